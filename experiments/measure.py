"""Every measurement the page reads, rerun from the committed checkpoints (no training).

    python -m experiments.measure --device cpu --seeds 0       # what `make measure` runs
    python -m experiments.measure --only models

Each measurement writes one experiments/results/<name>.json with a `meta` block.
"""
import argparse
import copy
import sys
import time
from pathlib import Path

import torch

from experiments.data import SHA256, CharData
from experiments.jsonio import RESULTS, meta, read_json, write_json
from experiments.model import load_checkpoint
from experiments.speculative import Runner, accept_reject, probs_from_logits, sample
from experiments.train import CHECKPOINTS, DRAFT_SNAPSHOTS, RUNS, run_name

SEED = 0            # every random choice below starts from this seed; it goes into the JSON
CONTEXT = 64        # chars of val text before each measured position (block_size)
N_POSITIONS = 2000  # random val positions for the acceptance picks and the divergence sweep
DRAWS = 200_000     # draws through accept_reject per acceptance position
SAMPLES_PER_POSITION = 20  # sampled γ = 1 verifies per position and snapshot in the sweep
GAMMA = 8
VERIFY_CONTEXT = 8  # chars of context in the verify example
ROLLBACK_CONTEXT = 40
N_SHORT = 56


def require(path):
    if not Path(path).exists():
        raise SystemExit(f"error: {path} not found: run `make data` to train it")
    return path


@torch.no_grad()
def full_val_loss(model, data, device):
    """Mean loss over the whole val split in non-overlapping block_size windows."""
    T = model.cfg.block_size
    n = (len(data.val) - 1) // T
    x = data.val[:n * T].view(n, T).to(device)
    y = data.val[1:n * T + 1].view(n, T).to(device)
    totals, count = {}, 0
    for xb, yb in zip(x.split(256), y.split(256)):
        for key, loss in model.losses(xb, yb).items():
            totals[key] = totals.get(key, 0.0) + loss.item() * len(xb)
        count += len(xb)
    return {key: round(total / count, 5) for key, total in totals.items()}


def measure_models(args, data):
    """Sizes, configs and val losses of every trained model; per-part counts of the MTP head."""
    runs = {}
    for seed in args.seeds:
        for model_kind, mtp in RUNS:
            name = run_name(model_kind, mtp, seed)
            model, payload = load_checkpoint(require(CHECKPOINTS / f"{name}.pt"), args.device)
            log = read_json(require(RESULTS / f"train_{name}.json"))
            runs[name] = {
                "kind": "draft" if model_kind == "draft" else ("main_mtp" if mtp else "control"),
                "seed": seed, "mtp_weight": mtp, "steps": payload["step"],
                "config": payload["config"], "params": model.n_params_main(),
                "params_total": model.n_params(),
                "val_loss_train_log": log["final_val"],
                "val_loss_full": full_val_loss(model, data, args.device),
                "train_wall_s": log["wall_time_s"], "train_device": log["meta"]["device"],
                "train_threads": log["meta"]["threads"],
                "batch_size": log["config"]["batch_size"]}
    main, _ = load_checkpoint(CHECKPOINTS / f"{run_name('main', 0.3, args.seeds[0])}.pt")
    head = main.mtp
    mtp_parts = {
        "hidden_norm": main.n_params(head.hidden_norm),
        "embed_norm": main.n_params(head.embed_norm),
        "proj": main.n_params(head.proj),
        "block": main.n_params(head.block),
        "shared_embedding_head": main.n_params(main.tok_emb),
        "shared_final_norm": main.n_params(main.norm),
    }
    return {"data": {"name": "tiny shakespeare", "file": data.path.name, "chars": data.n_chars,
                     "vocab_size": data.vocab_size, "sha256": SHA256,
                     "train_chars": len(data.train), "val_chars": len(data.val)},
            "runs": runs, "mtp_parts": mtp_parts,
            "mtp_depth": 1 if head is not None else 0,  # this MTP head predicts one extra token
            "mtp_head_params": main.n_params(head)}


def checkpoint(args, name):
    return load_checkpoint(require(CHECKPOINTS / f"{name}.pt"), args.device)[0]


def main_and_draft(args):
    seed = args.seeds[0]
    return (checkpoint(args, run_name("main", 0.3, seed)),
            checkpoint(args, run_name("draft", 0.0, seed)))


# Distances between next-char distributions [..., V], float64.

def tv(p, q):
    return 0.5 * (p - q).abs().sum(-1)


def kl(p, q):
    """KL(p || q) in nats; xlogy makes 0·log 0 = 0."""
    return (torch.xlogy(p, p) - torch.xlogy(p, q)).sum(-1)


def alpha(p, q):
    """Acceptance probability of one draft from q verified against p: Σ min(p, q)."""
    return torch.minimum(p, q).sum(-1)


def entropy(p):
    return -torch.xlogy(p, p).sum(-1)


def chi2_sf(stat, dof):
    """P(X ≥ stat) for X ~ χ²(dof): the regularized upper incomplete gamma Q(dof/2, stat/2)
    (scipy is only a test dependency)."""
    a, x = torch.tensor([dof / 2, stat / 2], dtype=torch.float64)
    return float(torch.special.gammaincc(a, x))


def chi_square(counts, law):
    """Pearson's chi-square of counts against law; chars expected < 5 times share one bin
    (dropped when it expects nothing). Returns (stat, dof, p-value)."""
    expected = law * counts.sum()
    rare = expected < 5
    observed = torch.cat([counts[~rare], counts[rare].sum()[None]]).double()
    expected = torch.cat([expected[~rare], expected[rare].sum()[None]])
    observed, expected = observed[expected > 0], expected[expected > 0]
    stat = float(((observed - expected) ** 2 / expected).sum())
    dof = len(expected) - 1
    return stat, dof, chi2_sf(stat, dof)


def val_offsets(data, n, seed=SEED):
    """n distinct random val offsets; each gives a CONTEXT-char window and the char after it."""
    order = torch.randperm(len(data.val) - CONTEXT, generator=torch.Generator().manual_seed(seed))
    return order[:n]


@torch.no_grad()
def next_char_probs(model, data, offsets, device):
    """The model's next-char distribution after each window: float32 forwards, then a float64
    softmax of the logits, so that every row sums to 1 far below the 1e-9 the identities need."""
    windows = data.val.unfold(0, CONTEXT, 1)[offsets]
    logits = [model(x.to(device))[0][:, -1] for x in windows.split(256)]
    return probs_from_logits(torch.cat(logits).double().cpu(), 1.0)


def draws_through_rule(p, q, n, generator):
    """n independent γ = 1 verifies of one position: a draft from q, then accept_reject.
    Returns (drafts accepted, the n emitted tokens). The bonus row is p again; it never matters,
    because only the first emitted token is counted."""
    p2, q1 = torch.stack([p, p]), q[None]
    accepted, emitted = 0, []
    for _ in range(n):
        draft = sample(q, generator)
        n_accepted, token = accept_reject(p2, q1, torch.tensor([draft]), generator)
        accepted += n_accepted
        emitted.append(draft if n_accepted else token)
    return accepted, torch.tensor(emitted)


def first_example(offsets, make, wanted):
    """make(offset) for each offset in turn; the first example that `wanted` accepts."""
    for offset in offsets:
        example = make(offset)
        if wanted(example):
            return example
    raise RuntimeError("no val offset gave an example with the wanted acceptance count")


@torch.no_grad()
def propose(draft, context, gamma, generator):
    """The draft model's γ proposals after context (ids), one at a time with its kv-cache, as
    speculative_decode drafts. Returns (drafts [γ], q [γ, V] float64 on the CPU)."""
    runner = Runner(draft, "kvcache")
    drafts, q_rows = [], []
    for _ in range(gamma):
        logits, _, _ = runner.extend(context + drafts)
        q_rows.append(probs_from_logits(logits[-1].double().cpu(), 1.0))
        drafts.append(sample(q_rows[-1], generator))
    return torch.tensor(drafts), torch.stack(q_rows)


@torch.no_grad()
def prefix_diff(model, idx):
    """max |logit(first N_SHORT fed) - logit(all fed)| over the first N_SHORT positions."""
    return float((model(idx[:, :N_SHORT])[0] - model(idx)[0][:, :N_SHORT]).abs().max())


@torch.no_grad()
def kvcache_diff(model, idx):
    """max |Δlogit| between feeding idx one token at a time through a kv-cache and one forward."""
    cache = model.new_cache()
    stepped = torch.cat([model(idx[:, t:t + 1], cache=cache)[0] for t in range(idx.shape[1])], 1)
    return float((stepped - model(idx)[0]).abs().max())


def causal_checks(main, data, offset, device):
    """Both checks in float32, as the models run, and again in float64: the float64 differences
    show that what remains in float32 is rounding, not a leak of later positions."""
    idx = data.val[offset:offset + CONTEXT][None].to(device)
    main64 = copy.deepcopy(main).double()
    with torch.no_grad():
        max_abs_logit = float(main(idx)[0].abs().max())
    prefix = {"val_offset": offset, "text": data.decode(idx[0].tolist()), "n_short": N_SHORT,
              "n_full": CONTEXT, "max_abs_diff": prefix_diff(main, idx),
              "max_abs_diff_float64": prefix_diff(main64, idx), "max_abs_logit": max_abs_logit}
    kvcache = {"val_offset": offset, "n_tokens": CONTEXT, "max_abs_diff": kvcache_diff(main, idx),
               "max_abs_diff_float64": kvcache_diff(main64, idx), "max_abs_logit": max_abs_logit,
               "how": f"main model, the same {CONTEXT} val chars: fed one at a time through its "
                      f"kv-cache ({CONTEXT} forwards) vs one forward without a cache; max "
                      f"|Δlogit| over all {CONTEXT} positions and {main.cfg.vocab_size} chars, "
                      f"float32 (and again with the model in float64)"}
    return prefix, kvcache


@torch.no_grad()
def verify_example(main, draft, data, offset, device):
    """The draft proposes γ chars after VERIFY_CONTEXT real val chars; one main forward over
    context + drafts gives p for every draft and the bonus row; accept_reject decides."""
    context = data.val[offset:offset + VERIFY_CONTEXT].tolist()
    generator = torch.Generator().manual_seed(SEED)
    drafts, q = propose(draft, context, GAMMA, generator)
    seq = context + drafts.tolist()
    logits = main(torch.tensor([seq], device=device))[0][0]
    p = probs_from_logits(logits.double().cpu(), 1.0)  # row j: next char after seq[:j + 1]
    record = {}
    n_accepted, token = accept_reject(p[-(GAMMA + 1):], q, drafts, generator, record)
    top = p.topk(5)
    rows = [{"char": data.chars[c], "role": "context" if j < len(context) else "draft",
             "top": [[data.chars[i], prob] for prob, i in zip(top.values[j].tolist(),
                                                               top.indices[j].tolist())]}
            for j, c in enumerate(seq)]
    return {"val_offset": offset, "context": data.decode(context), "gamma": GAMMA, "seed": SEED,
            "temperature": 1.0, "drafts": [data.chars[d] for d in drafts.tolist()],
            "p_draft": record["p_draft"], "q_draft": record["q_draft"], "u": record["u"],
            "n_accepted": n_accepted, "next_char": data.chars[token],
            "next_kind": "bonus" if n_accepted == GAMMA else "resample", "rows": rows}


@torch.no_grad()
def rollback_check(main, draft, data, offset):
    """One kv-cache verify as speculative_decode runs it (the cache holds all confirmed chars but
    the newest; the verify feeds that one + γ drafts), its rollback to what the decoder keeps
    (confirmed + accepted drafts), and the same cache built from scratch on that text."""
    confirmed = data.val[offset:offset + ROLLBACK_CONTEXT].tolist()
    generator = torch.Generator().manual_seed(SEED)
    drafts, q = propose(draft, confirmed, GAMMA, generator)
    runner = Runner(main, "kvcache")
    runner.extend(confirmed[:-1])
    length_before = runner.cache.length
    logits, _, _ = runner.extend(confirmed + drafts.tolist())
    length_after_verify = runner.cache.length
    n_accepted, _ = accept_reject(probs_from_logits(logits.double().cpu(), 1.0), q, drafts, generator)
    kept = confirmed + drafts[:n_accepted].tolist()
    runner.truncate(len(kept))
    rebuilt = Runner(main, "kvcache")
    rebuilt.extend(kept)
    diff = max(float((a - b).abs().max())
               for a, b in zip(runner.cache.snapshot(), rebuilt.cache.snapshot()))
    return {"val_offset": offset, "n_confirmed": len(confirmed), "gamma": GAMMA, "seed": SEED,
            "n_accepted": n_accepted, "length_before": length_before,
            "length_after_verify": length_after_verify,
            "length_after_rollback": runner.cache.length, "max_abs_diff_vs_rebuilt": diff,
            "equal": diff <= 1e-5}


def measure_causal(args, data):
    """Causality of the main model (a prefix's logits do not depend on what follows, the kv-cache
    equals a full forward), one real verify step, and a kv-cache rollback."""
    main, draft = main_and_draft(args)
    order = val_offsets(data, len(data.val) - CONTEXT).tolist()
    example = first_example(order, lambda o: verify_example(main, draft, data, o, args.device),
                            lambda e: 2 <= e["n_accepted"] <= GAMMA - 2)
    example["selection"] = (f"the first val offset, in a random order drawn with seed {SEED}, "
                            f"whose {VERIFY_CONTEXT}-char context made the main model accept "
                            f"between 2 and {GAMMA - 2} of the draft's {GAMMA} proposals")
    print(f"  verify example at val offset {example['val_offset']}: "
          f"{example['n_accepted']}/{GAMMA} accepted", flush=True)
    rollback = first_example(order, lambda o: rollback_check(main, draft, data, o),
                             lambda r: 0 < r["n_accepted"] < GAMMA)
    rollback["selection"] = (f"the first val offset in the same order whose verify accepted "
                             f"between 1 and {GAMMA - 1} drafts, so the rollback drops some")
    prefix, kvcache = causal_checks(main, data, order[0], args.device)
    return {"prefix_check": prefix, "kvcache_check": kvcache, "verify_example": example, "rollback": rollback}


def pick_positions(p, q):
    """Row indices, distinct, for the five kinds of acceptance position."""
    a = alpha(p, q)
    overweight = torch.where(p < q / 4, q - p, torch.zeros_like(p))  # q likes what p dislikes
    closeness = {kind: -(a - a.quantile(level)).abs()
                 for kind, level in (("high", 0.9), ("typical", 0.5), ("low", 0.1))}
    scores = {**closeness, "overweight": overweight.max(-1).values, "uncertain": entropy(p)}
    chosen = {}
    for kind, score in scores.items():
        score = score.clone()
        score[list(chosen.values())] = -torch.inf
        chosen[kind] = int(score.argmax())
    return chosen, overweight


def measure_acceptance(args, data):
    """At five kinds of real val position: full p and q, and DRAWS draws through accept_reject
    whose output is compared with p."""
    main, draft = main_and_draft(args)
    offsets = val_offsets(data, N_POSITIONS)
    p_all = next_char_probs(main, data, offsets, args.device)
    q_all = next_char_probs(draft, data, offsets, args.device)
    chosen, overweight = pick_positions(p_all, q_all)
    generator = torch.Generator().manual_seed(SEED)
    positions = []
    for kind, row in chosen.items():
        p, q, offset = p_all[row], q_all[row], int(offsets[row])
        t0 = time.time()
        accepted, emitted = draws_through_rule(p, q, DRAWS, generator)
        wall_s = time.time() - t0
        counts = torch.bincount(emitted, minlength=len(p))
        stat, dof, p_value = chi_square(counts, p)
        positions.append({
            "kind": kind, "val_offset": offset,
            "context": data.decode(data.val[offset:offset + CONTEXT].tolist()),
            "next_char": data.chars[int(data.val[offset + CONTEXT])],
            "p": p.tolist(), "q": q.tolist(), "alpha_theory": float(alpha(p, q)),
            "counts": counts.tolist(), "accept_rate": accepted / DRAWS,
            "tv_out_p": float(tv(counts.double() / DRAWS, p)), "tv_q_p": float(tv(q, p)),
            "chi2_stat": stat, "chi2_dof": dof, "chi2_p": p_value,
            "overweight_char": (data.chars[int(overweight[row].argmax())]
                                if kind == "overweight" else None),
            "draws_wall_s": round(wall_s, 2)})
        last = positions[-1]
        print(f"  {kind}: alpha {last['alpha_theory']:.4f}, accepted {last['accept_rate']:.4f}, "
              f"TV(out, p) {last['tv_out_p']:.4f}, chi2 p {p_value:.3f}, {wall_s:.1f} s", flush=True)
    return {"vocab": data.chars, "draws": DRAWS, "seed": SEED, "n_candidates": N_POSITIONS,
            "positions": positions,
            "selection": (f"{N_POSITIONS} random val positions (seed {SEED}, {CONTEXT}-char "
                          f"contexts); high, typical, low: alpha = Σmin(p, q) closest to its 90th, "
                          f"50th, 10th percentile; overweight: the largest q(x) - p(x) over chars "
                          f"with p(x) < q(x)/4; uncertain: the highest entropy of p; each position "
                          f"used once")}


def measure_divergence_sweep(args, data):
    """Draft snapshots along training against the final main model on the same val positions:
    mean Σmin(p, q), KL(p‖q), TV, the sampled acceptance rate and the draft's loss."""
    seed = args.seeds[0]
    offsets = val_offsets(data, N_POSITIONS)
    targets = data.val[offsets + CONTEXT]
    p = next_char_probs(checkpoint(args, run_name("main", 0.3, seed)), data, offsets, args.device)
    generator = torch.Generator().manual_seed(SEED)
    rows = torch.arange(N_POSITIONS)
    snapshots, identity_gap = [], 0.0
    for step in DRAFT_SNAPSHOTS:
        draft = checkpoint(args, f"{run_name('draft', 0.0, seed)}_step{step}")
        q = next_char_probs(draft, data, offsets, args.device)
        a, d = alpha(p, q), tv(p, q)
        accepted = sum(draws_through_rule(p[i], q[i], SAMPLES_PER_POSITION, generator)[0]
                       for i in range(N_POSITIONS))
        n_samples = N_POSITIONS * SAMPLES_PER_POSITION
        identity_gap = max(identity_gap, float((a - (1 - d)).abs().max()))
        snapshots.append({"step": step, "alpha_mean": float(a.mean()), "kl_mean": float(kl(p, q).mean()),
                          "tv_mean": float(d.mean()), "accept_rate_sampled": accepted / n_samples,
                          "n_samples": n_samples,
                          "draft_val_loss": float(-q[rows, targets].log().mean())})
        print(f"  step {step}: alpha {snapshots[-1]['alpha_mean']:.4f}, "
              f"KL {snapshots[-1]['kl_mean']:.4f}", flush=True)
    return {"n_positions": N_POSITIONS, "seed": SEED, "samples_per_position": SAMPLES_PER_POSITION,
            "context": CONTEXT, "main_val_loss": float(-p[rows, targets].log().mean()),
            "snapshots": snapshots, "max_abs_alpha_minus_one_minus_tv": identity_gap}


MEASUREMENTS = {"models": measure_models, "causal": measure_causal,
                "acceptance": measure_acceptance, "divergence_sweep": measure_divergence_sweep}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--only", choices=sorted(MEASUREMENTS), nargs="+")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    data = CharData()
    names = args.only or list(MEASUREMENTS)
    for i, name in enumerate(names, 1):
        t0 = time.time()
        print(f"[measure {i}/{len(names)}] {name} ...", flush=True)
        result = MEASUREMENTS[name](args, data)
        write_json(RESULTS / f"{name}.json", {"meta": meta(args.seeds, args.device), **result})
        print(f"[measure {i}/{len(names)}] {name}: wrote experiments/results/{name}.json "
              f"in {time.time() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
