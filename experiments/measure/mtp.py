"""mtp.json (section ④): the MTP head across seeds: parameter counts per part, loss curves, val
losses (mean ± std), the paired t-test of MTP training against the control, acceptance of the
MTP head vs the small draft at γ = 1, and a traced sample.

Its results are declared in experiments/records/mtp_lab.py: MtpFile (mtp.json)."""
import torch

from experiments.measure.common import (CONTROL, DRAFT, LEDGER_PROMPT, MAIN_MTP, load, mtp_param_parts, training_log,
                                        val_loss_of)
from experiments.probes import CONTEXT, SEED, val_offsets
from experiments.stats import alpha, mean_std, paired_t_test
from experiments.rule import probs_from_logits
from experiments.methods import Models, Spec, decode
from experiments.runs import run_name

TEMPERATURE = 1.0


@torch.no_grad()
def mtp_val_alpha(main, draft, data, offsets, device):
    """Mean Σmin(p, q) on val text at γ = 1 for both drafters. Small draft: q from the same
    context as p. MTP head: it drafts x_{t+2} from h_t and the true x_{t+1}, so its q at t is
    compared with the main model's p one position later. The head's block attends over the
    whole window of (h, next char) pairs, as in training and in kv-cache decoding."""
    windows = data.val.unfold(0, CONTEXT, 1)[offsets].to(device)        # ..., x_t, x_{t+1}
    logits, h = main(windows)
    p_next = probs_from_logits(logits[:, -1].double(), 1.0)            # p(x_{t+2} | ..., x_{t+1})
    q_mtp = probs_from_logits(main.mtp_forward(h[:, :-1], windows[:, 1:])[:, -1].double(), 1.0)
    q_draft = probs_from_logits(draft(windows)[0][:, -1].double(), 1.0)
    return {"mtp": float(alpha(p_next, q_mtp).mean()), "draft": float(alpha(p_next, q_draft).mean())}


def generated_alpha(main, draft, prompt, sizes):
    """Per-draft acceptance of each drafter at γ = 1 while the main model writes ledger_chars
    chars, pooled over alpha_runs sampling seeds (kv-cache mode)."""
    n = sizes.ledger_chars
    models = Models(main, draft)
    out = {}
    with torch.inference_mode():
        for key in ("mtp", "draft"):
            results = [decode(Spec(key), models, prompt, n, TEMPERATURE, "kvcache", generator=torch.Generator().manual_seed(r))
                       for r in range(sizes.alpha_runs)]
            accepted = sum(r.accepted for r in results)
            out[key] = accepted / (accepted + sum(r.rejected for r in results))
    return out


def traced_sample(main, data, prompt, sizes):
    with torch.inference_mode():
        result = decode(Spec("mtp"), Models(main), prompt, sizes.sample_chars, TEMPERATURE, "kvcache",
                        generator=torch.Generator().manual_seed(SEED), trace=True)

    def first(step, key):  # the one draft's value; None on a step with no draft
        return step[key][0] if step.get(key) else None

    steps = [{"draft": data.chars[s["drafts"][0]] if s["drafts"] else None,
              "p_draft": first(s, "p_draft"), "q_draft": first(s, "q_draft"), "u": first(s, "u"),
              "accepted": bool(s["n_accepted"]),
              "emitted": [data.chars[t] for t in s["emitted"]],
              "n_accepted": s["n_accepted"], "next_from": s["next_from"]}
             for s in result.trace]
    return {"prompt": LEDGER_PROMPT, "n_chars": sizes.sample_chars, "temperature": TEMPERATURE, "seed": SEED,
            "mode": "kvcache", "text": data.decode(result.tokens),
            "main_forwards": result.main_forwards, "accepted": result.accepted,
            "proposed": result.proposed, "steps": steps}


def measure(args, data, seeds, sizes):
    prompt = data.encode(LEDGER_PROMPT)
    losses = {"main_mtp": [], "control": [], "mtp_head": [], "draft": []}
    curves, alphas = {}, {"mtp": [], "draft": [], "mtp_val": [], "draft_val": []}
    offsets = val_offsets(data, sizes.n_positions)
    for seed in seeds:
        main = load(args, run_name(*MAIN_MTP, seed))[0]
        draft = load(args, run_name(*DRAFT, seed))[0]
        full = {kind: val_loss_of(args, data, run_name(*run, seed))
                for kind, run in (("main_mtp", MAIN_MTP), ("control", CONTROL), ("draft", DRAFT))}
        losses["main_mtp"].append(full["main_mtp"]["main"])
        losses["mtp_head"].append(full["main_mtp"]["mtp"])
        losses["control"].append(full["control"]["main"])
        losses["draft"].append(full["draft"]["main"])
        for run in (MAIN_MTP, CONTROL, DRAFT):
            name = run_name(*run, seed)
            log = training_log(args, name)
            curves[name] = {"step": log["curves"]["step"], "val": log["curves"]["val"],
                            "train": log["curves"]["train"], "wall_s": log["wall_time_s"]}
        for key, value in generated_alpha(main, draft, prompt, sizes).items():
            alphas[key].append(value)
        for key, value in mtp_val_alpha(main, draft, data, offsets, args.device).items():
            alphas[f"{key}_val"].append(value)
        print(f"  seed {seed}: val main {losses['main_mtp'][-1]:.4f} control {losses['control'][-1]:.4f} "
              f"mtp head {losses['mtp_head'][-1]:.4f}; alpha mtp {alphas['mtp'][-1]:.3f} draft {alphas['draft'][-1]:.3f}",
              flush=True)
    main, payload = load(args, run_name(*MAIN_MTP, seeds[0]))
    val_loss = {kind: mean_std(values) for kind, values in losses.items()}
    alpha_stats = {key: mean_std(values) for key, values in alphas.items()}
    generated_ahead = alpha_stats["mtp"]["mean"] > alpha_stats["draft"]["mean"]
    val_ahead = alpha_stats["mtp_val"]["mean"] > alpha_stats["draft_val"]["mean"]
    batch_size = training_log(args, run_name(*MAIN_MTP, seeds[0]))["config"]["batch_size"]
    verdict = paired_t_test(losses["main_mtp"], losses["control"])
    return {"mtp": {
        "seeds": list(seeds),
        "lambda": payload["mtp_weight"],  # the MTP loss weight the main model was trained with
        "depth": 1,
        "params": {**mtp_param_parts(main), "mtp_head_total": main.n_params(main.mtp),
                   "main_total": main.n_params_main()},
        "curves": curves,
        "val_loss": val_loss,
        "verdict": verdict,
        "alpha": alpha_stats,
        "alpha_how": (f"mtp, draft: measured per-draft acceptance while generating {sizes.ledger_chars} chars "
                      f"from {LEDGER_PROMPT!r} at T = {TEMPERATURE:g} in kv-cache mode, {sizes.alpha_runs} "
                      f"sampling seeds per model seed; mtp_val, draft_val: mean Σmin(p, q) over "
                      f"{sizes.n_positions} val positions"),
        "sample": traced_sample(main, data, prompt, sizes),
        "summary": {
            # does the ranking of the two drafters by α change between generated and real text?
            "mtp_ahead_generated": generated_ahead,
            "mtp_ahead_val": val_ahead,
            "alpha_order_flips": generated_ahead != val_ahead,
            "mtp_loss_lower": verdict["mean_difference"] < 0,  # the main model with the MTP loss vs the control
            "head_minus_main_loss": val_loss["mtp_head"]["mean"] - val_loss["main_mtp"]["mean"],
            # characters the main model saw in training (first seed): steps × batch × block_size
            "train_chars_seen": payload["step"] * batch_size * main.cfg.block_size},
    }}
