"""Every measurement the page reads, rerun from the committed checkpoints (no training).

    python -m experiments.measure --device cpu --seeds 0       # what `make measure` runs
    python -m experiments.measure --only models

Each measurement writes one experiments/results/<name>.json with a `meta` block.
"""
import argparse
import copy
import statistics
import sys
import time
from pathlib import Path

import torch

from experiments.data import SHA256, CharData
from experiments.jsonio import RESULTS, meta, read_json, write_json
from experiments.model import load_checkpoint
from experiments.speculative import (MODES, Runner, accept_reject, mtp_decode, plain_decode,
                                     probs_from_logits, sample, speculative_decode)
from experiments.timing import interleaved, per_call, set_threads, summary
from experiments.train import CHECKPOINTS, DRAFT_SNAPSHOTS, RUNS, run_name

SEED = 0            # every random choice below starts from this seed; it goes into the JSON
CONTEXT = 64        # chars of val text before each measured position (block_size)
N_POSITIONS = 2000  # random val positions for the acceptance picks and the divergence sweep
DRAWS = 200_000     # draws through accept_reject per acceptance position
SAMPLES_PER_POSITION = 20  # sampled γ = 1 verifies per position and snapshot in the sweep
GAMMA = 8
VERIFY_CONTEXT = 8  # chars of context in the verify example
LEDGER_PROMPT = "ROMEO:\n"
LEDGER_CHARS = 600
LEDGER_GAMMAS = (1, 2, 3, 4, 6, 8)
LEDGER_REPEATS = 7  # timed runs per method and mode, each with its own sampling seed
ROLLBACK_CONTEXT = 40
N_SHORT = 56


def trained_seeds():
    """Seeds whose three runs (main + MTP, control, draft) finished: checkpoint and training log."""
    seeds = sorted(int(p.stem[6:]) for p in CHECKPOINTS.glob("main_s*.pt") if p.stem[6:].isdigit())
    done = lambda name: (CHECKPOINTS / f"{name}.pt").exists() and (RESULTS / f"train_{name}.json").exists()
    complete = [s for s in seeds if all(done(run_name(m, mtp, s)) for m, mtp in RUNS)]
    if not complete:
        raise SystemExit(f"error: no trained checkpoints in {CHECKPOINTS}: run `make data`")
    return complete


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


def checkpoint(args, name):
    return load_checkpoint(require(CHECKPOINTS / f"{name}.pt"), args.device)[0]


_val_losses = {}


def val_loss_of(args, data, name):
    """full_val_loss of one checkpoint, computed once per process (models and mtp both use it)."""
    if (name, args.device) not in _val_losses:
        _val_losses[name, args.device] = full_val_loss(checkpoint(args, name), data, args.device)
    return _val_losses[name, args.device]


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
                "val_loss_full": val_loss_of(args, data, name),
                "train_wall_s": log["wall_time_s"], "train_device": log["meta"]["device"],
                "train_threads": log["meta"]["threads"],
                "batch_size": log["config"]["batch_size"]}
    main = checkpoint(args, run_name("main", 0.3, args.seeds[0]))
    return {"data": {"name": "tiny shakespeare", "file": data.path.name, "chars": data.n_chars,
                     "vocab_size": data.vocab_size, "sha256": SHA256,
                     "train_chars": len(data.train), "val_chars": len(data.val)},
            "runs": runs, "mtp_parts": mtp_param_parts(main),
            "mtp_depth": 1 if main.mtp is not None else 0,  # this MTP head predicts one extra token
            "mtp_head_params": main.n_params(main.mtp)}


def mtp_param_parts(main):
    """Parameters of each part of the MTP head, and of the main-model parts it shares."""
    head = main.mtp
    return {"hidden_norm": main.n_params(head.hidden_norm), "embed_norm": main.n_params(head.embed_norm),
            "proj": main.n_params(head.proj), "block": main.n_params(head.block),
            "shared_embedding_head": main.n_params(main.tok_emb), "shared_final_norm": main.n_params(main.norm),
            "main_blocks": [main.n_params(b) for b in main.blocks]}




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


def theorem_3_8(alpha, gamma, c):
    """Expected wall-clock improvement (Leviathan et al. 2023, Theorem 3.8)."""
    return (1 - alpha ** (gamma + 1)) / ((1 - alpha) * (gamma * c + 1))


def expected_tokens(alpha, gamma):
    """Expected tokens per main forward, (1 - α^{γ+1}) / (1 - α) (Leviathan 2023, eq. 1)."""
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)


@torch.no_grad()
def forward_costs(main, draft, mode, device):
    """Seconds per forward, timed the same way for every model: main on 1 new token, main
    verifying 1+γ tokens, the draft on 1 token, the MTP head on 1 pair. kv-cache mode: a warm
    cache holding a full window; recompute mode: a forward over the whole 64-token window (what
    that mode runs for every token, and for every verify)."""
    window = main.cfg.block_size
    ids = torch.arange(window + GAMMA + 1, device=device)[None] % main.cfg.vocab_size
    h = main(ids[:, :window])[1]

    def cached(model, n_new, forward=None):
        cache = model.new_cache(mtp=forward is not None)
        warm = ids[:, :window - 1]
        (forward or model)(*([h[:, :window - 1], warm] if forward else [warm]), cache=cache)

        def step():
            if forward:
                forward(h[:, :n_new], ids[:, :n_new], cache=cache)
            else:
                model(ids[:, window:window + n_new], cache=cache)
            cache.rollback(cache.length - n_new)
        return step

    if mode == "kvcache":
        calls = {"main": cached(main, 1), "draft": cached(draft, 1), "mtp_head": cached(main, 1, main.mtp_forward)}
        verify = {g: cached(main, g + 1) for g in range(1, GAMMA + 1)}
    else:
        full = ids[:, :window]
        calls = {"main": lambda: main(full), "draft": lambda: draft(full),
                 "mtp_head": lambda: main.mtp_forward(h[:, :window - 1], full[:, 1:])}
        verify = {g: (lambda: main(full)) for g in range(1, GAMMA + 1)}
    seconds = {name: per_call(fn, device=device)["median"] for name, fn in calls.items()}
    seconds["verify"] = {g: per_call(fn, device=device)["median"] for g, fn in verify.items()}
    return {"seconds": seconds, "c": seconds["draft"] / seconds["main"],
            "c_mtp": seconds["mtp_head"] / seconds["main"],
            "verify_over_main": {g: t / seconds["main"] for g, t in seconds["verify"].items()}}


def decoder_runs(main, draft, prompt, mode, temperature, device):
    """{name: fn(seed) -> Result} for every method of the ledger."""
    def gen(seed):
        return torch.Generator(device=device).manual_seed(seed)
    runs = {"plain": lambda seed: plain_decode(main, prompt, LEDGER_CHARS, temperature, mode, gen(seed))}
    for g in LEDGER_GAMMAS:
        runs[f"draft_{g}"] = (lambda g: lambda seed: speculative_decode(
            main, draft, prompt, LEDGER_CHARS, g, temperature, mode, gen(seed)))(g)
    runs["mtp"] = lambda seed: mtp_decode(main, prompt, LEDGER_CHARS, temperature, mode, gen(seed))
    return runs


def burst_check(run_lengths, alpha):
    """Drafts accepted per full round against the geometric law at the row's α, which holds
    if acceptances are independent: P(n = k) = α^k (1 - α) for k < γ, P(n = γ) = α^γ.
    dof = (γ + 1 cells) - 1 (fixed total) - 1 (α fitted from the same rounds)."""
    gamma, rounds = len(run_lengths) - 1, sum(run_lengths)
    law = [alpha ** k * (1 - alpha) for k in range(gamma)] + [alpha ** gamma]
    expected = [p * rounds for p in law]
    chi2 = sum((o - e) ** 2 / e for o, e in zip(run_lengths, expected))
    dof = gamma - 1
    return {"expected": expected, "chi2": chi2, "dof": dof, "p": chi2_sf(chi2, dof) if dof > 0 else None}


def pooled_burst_check(rows, mode):
    """The mode's draft rows with degrees of freedom left, together: chi-squares add up."""
    checks = [r["burst"] for r in rows if r["mode"] == mode and r["method"] == "draft" and r["burst"]["dof"] > 0]
    chi2, dof = sum(c["chi2"] for c in checks), sum(c["dof"] for c in checks)
    return {"rows": len(checks), "chi2": chi2, "dof": dof, "p": chi2_sf(chi2, dof)}


def ledger_row(name, mode, run, plain_wall, costs):
    """One method in one mode: counters pooled over the repeats, wall time, speedups."""
    method, gamma = ("plain", 0) if name == "plain" else ("mtp", 1) if name == "mtp" else ("draft", int(name.split("_")[1]))
    results, wall = run["results"], run["wall_s"]
    total = lambda key: sum(getattr(r, key) for r in results)
    main_forwards = total("main_forwards") / len(results)
    draft_forwards = total("draft_forwards") / len(results)
    checked = total("accepted") + total("rejected")
    alpha = total("accepted") / checked if checked else None
    speedups = [p / w for p, w in zip(plain_wall, wall)]
    t = costs["seconds"]
    # what the forwards alone cost: main forwards at the verify price, draft forwards at theirs
    main_price = t["verify"][gamma] if gamma else t["main"]
    draft_price = t["mtp_head"] if method == "mtp" else t["draft"]
    forward_time = main_forwards * main_price + draft_forwards * draft_price
    row = {"method": method, "mode": mode, "gamma": gamma, "repeats": len(results),
           "main_forwards": main_forwards, "draft_forwards": draft_forwards,
           "tokens_per_main": LEDGER_CHARS / main_forwards, "alpha": alpha,
           "wall_s": summary(wall), "wall_s_runs": wall,
           "speedup": statistics.median(plain_wall) / statistics.median(wall),
           "speedup_runs": summary(speedups),
           "forward_time_s": forward_time, "overhead_s": statistics.median(wall) - forward_time,
           "overhead_per_main_forward_s": (statistics.median(wall) - forward_time) / main_forwards}
    if method != "plain":
        c = costs["c_mtp"] if method == "mtp" else costs["c"]
        row.update(tokens_per_main_expected=expected_tokens(alpha, gamma),
                   speedup_theory=theorem_3_8(alpha, gamma, c), c_used=c,
                   verify_over_main=costs["verify_over_main"][gamma],
                   run_lengths=[sum(r.run_lengths.count(k) for r in results) for k in range(gamma + 1)])
        row["burst"] = burst_check(row["run_lengths"], alpha)
    return row


@torch.no_grad()
def greedy_checks(main, draft, prompt, device):
    """T = 0: does every speculative decoder reproduce plain greedy decoding? kv-cache mode over
    all LEDGER_CHARS; recompute mode within the window (prompt + output + γ <= block_size),
    and, for the record, past it too, where the two cropping rules differ."""
    checks = []
    window = main.cfg.block_size
    for mode in MODES:
        runs = decoder_runs(main, draft, prompt, mode, 0.0, device)
        plain = runs.pop("plain")(0).tokens
        for name, run in runs.items():
            gamma = 1 if name == "mtp" else int(name.split("_")[1])
            tokens = run(0).tokens
            n = LEDGER_CHARS if mode == "kvcache" else window - len(prompt) - gamma
            mismatch = next((i for i, (a, b) in enumerate(zip(tokens, plain)) if a != b), None)
            check = {"method": "mtp" if name == "mtp" else "draft", "mode": mode, "gamma": gamma,
                     "chars_compared": n, "equal": mismatch is None or mismatch >= n}
            if mode == "recompute":
                check["first_mismatch_past_window"] = mismatch  # None: identical for all 600
            checks.append(check)
    return checks


def measure_ledger(args, data):
    """Every decoder from "ROMEO:\n", T = 1, LEDGER_CHARS chars, both modes, LEDGER_REPEATS
    interleaved repeats after a warm-up; single-forward costs; the greedy identity check.
    Writes ledger.json (every method) and gamma_sweep.json (the draft model's γ sweep)."""
    threads = set_threads(1)
    main, draft = main_and_draft(args)
    prompt = data.encode(LEDGER_PROMPT)
    rows, costs = [], {}
    with torch.inference_mode():
        for mode in MODES:
            costs[mode] = forward_costs(main, draft, mode, args.device)
            print(f"  {mode}: main {costs[mode]['seconds']['main'] * 1e3:.3f} ms, c = {costs[mode]['c']:.3f}, "
                  f"c_mtp = {costs[mode]['c_mtp']:.3f}", flush=True)
            runs = interleaved(decoder_runs(main, draft, prompt, mode, 1.0, args.device),
                               LEDGER_REPEATS, warmup=1, device=args.device)
            plain_wall = runs["plain"]["wall_s"]
            for name, run in runs.items():
                rows.append(ledger_row(name, mode, run, plain_wall, costs[mode]))
                print(f"  {mode} {name}: {rows[-1]['wall_s']['median']:.3f} s, "
                      f"speedup {rows[-1]['speedup']:.2f}", flush=True)
        greedy = greedy_checks(main, draft, prompt, args.device)
    setup = {"prompt": LEDGER_PROMPT, "n_chars": LEDGER_CHARS, "temperature": 1.0,
             "repeats": LEDGER_REPEATS, "warmup": 1, "threads": threads, "seeds": list(range(LEDGER_REPEATS)),
             "forward_costs": costs}
    sweep_rows = [{k: r[k] for k in ("gamma", "mode", "alpha", "tokens_per_main", "tokens_per_main_expected",
                                     "speedup", "speedup_runs", "speedup_theory", "run_lengths", "burst",
                                     "wall_s")}
                  for r in rows if r["method"] == "draft"]
    return {"ledger": {**setup, "rows": rows, "greedy_check": greedy},
            "gamma_sweep": {**setup, "gammas": list(LEDGER_GAMMAS), "rows": sweep_rows,
                            "c": {mode: costs[mode]["c"] for mode in MODES},
                            "burst_pooled": {mode: pooled_burst_check(rows, mode) for mode in MODES}}}


def mean_std(values):
    """Mean and sample standard deviation (n - 1); std is None for a single value."""
    return {"values": values, "mean": statistics.mean(values),
            "std": statistics.stdev(values) if len(values) > 1 else None}


def seed_verdict(with_mtp, control):
    """Paired by seed: does the MTP loss move the main model's val loss beyond seed noise?
    'beyond' means |mean difference| > 2 standard errors of the paired differences."""
    diffs = [a - b for a, b in zip(with_mtp, control)]
    out = {"differences": diffs, "mean_difference": statistics.mean(diffs), "n_seeds": len(diffs)}
    if len(diffs) > 1:
        se = statistics.stdev(diffs) / len(diffs) ** 0.5
        out.update(standard_error=se, t=out["mean_difference"] / se if se else None,
                   beyond_seed_noise=abs(out["mean_difference"]) > 2 * se)
    else:
        out.update(standard_error=None, t=None, beyond_seed_noise=None)
    return out


@torch.no_grad()
def mtp_val_alpha(main, draft, data, offsets, device):
    """Mean Σmin(p, q) on val text at γ = 1 for both drafters. Small draft: q from the same
    context as p. MTP head: it drafts x_{t+2} from h_t and the true x_{t+1}, so its q at t is
    compared with the main model's p one position later."""
    windows = data.val.unfold(0, CONTEXT, 1)[offsets].to(device)        # ..., x_t, x_{t+1}
    logits, h = main(windows)
    p_next = probs_from_logits(logits[:, -1].double(), 1.0)            # p(x_{t+2} | ..., x_{t+1})
    q_mtp = probs_from_logits(main.mtp_forward(h[:, -2:-1], windows[:, -1:])[:, 0].double(), 1.0)
    q_draft = probs_from_logits(draft(windows)[0][:, -1].double(), 1.0)
    return {"mtp": float(alpha(p_next, q_mtp).mean()), "draft": float(alpha(p_next, q_draft).mean())}


def measure_mtp(args, data):
    """The MTP head across seeds: parameter counts per part, loss curves, val losses (mean ±
    std), acceptance of the MTP head vs the small draft at γ = 1, and a traced sample."""
    prompt = data.encode(LEDGER_PROMPT)
    losses = {"main_mtp": [], "control": [], "mtp_head": [], "draft": []}
    curves, alphas = {}, {"mtp": [], "draft": [], "mtp_val": [], "draft_val": []}
    offsets = val_offsets(data, N_POSITIONS)
    for seed in args.seeds:
        main = checkpoint(args, run_name("main", 0.3, seed))
        draft = checkpoint(args, run_name("draft", 0.0, seed))
        full = {kind: val_loss_of(args, data, run_name(model, mtp, seed))
                for kind, (model, mtp) in zip(("main_mtp", "control", "draft"), RUNS)}
        losses["main_mtp"].append(full["main_mtp"]["main"])
        losses["mtp_head"].append(full["main_mtp"]["mtp"])
        losses["control"].append(full["control"]["main"])
        losses["draft"].append(full["draft"]["main"])
        for model, mtp in RUNS:
            name = run_name(model, mtp, seed)
            log = read_json(require(RESULTS / f"train_{name}.json"))
            curves[name] = {"step": log["curves"]["step"], "val": log["curves"]["val"],
                            "train": log["curves"]["train"], "wall_s": log["wall_time_s"]}
        with torch.inference_mode():
            for key, run in (("mtp", lambda g: mtp_decode(main, prompt, LEDGER_CHARS, 1.0, "kvcache", g)),
                             ("draft", lambda g: speculative_decode(main, draft, prompt, LEDGER_CHARS, 1, 1.0, "kvcache", g))):
                results = [run(torch.Generator().manual_seed(r)) for r in range(5)]
                accepted = sum(r.accepted for r in results)
                alphas[key].append(accepted / (accepted + sum(r.rejected for r in results)))
            val_alpha = mtp_val_alpha(main, draft, data, offsets, args.device)
        alphas["mtp_val"].append(val_alpha["mtp"])
        alphas["draft_val"].append(val_alpha["draft"])
        print(f"  seed {seed}: val main {losses['main_mtp'][-1]:.4f} control {losses['control'][-1]:.4f} "
              f"mtp head {losses['mtp_head'][-1]:.4f}; alpha mtp {alphas['mtp'][-1]:.3f} draft {alphas['draft'][-1]:.3f}",
              flush=True)
    main = checkpoint(args, run_name("main", 0.3, args.seeds[0]))
    head = main.mtp
    with torch.inference_mode():
        sample_result = mtp_decode(main, prompt, 240, 1.0, "kvcache", torch.Generator().manual_seed(SEED), trace=True)
    def first(step, key):  # the one draft's value; None on a step with no draft
        return step[key][0] if step.get(key) else None

    steps = [{"draft": data.chars[s["drafts"][0]] if s["drafts"] else None,
              "p_draft": first(s, "p_draft"), "q_draft": first(s, "q_draft"), "u": first(s, "u"),
              "accepted": bool(s["n_accepted"]),
              "emitted": [data.chars[t] for t in s["emitted"]], "kinds": s["kinds"]}
             for s in sample_result.trace]
    return {"seeds": list(args.seeds), "lambda": 0.3, "depth": 1,
            "params": {**mtp_param_parts(main), "mtp_head_total": main.n_params(head), "main_total": main.n_params_main()},
            "curves": curves,
            "val_loss": {kind: mean_std(values) for kind, values in losses.items()},
            "verdict": seed_verdict(losses["main_mtp"], losses["control"]),
            "alpha": {key: mean_std(values) for key, values in alphas.items()},
            "alpha_how": (f"mtp, draft: measured per-draft acceptance while generating {LEDGER_CHARS} chars "
                          f"from {LEDGER_PROMPT!r} at T = 1 in kv-cache mode, 5 sampling seeds per model seed; "
                          f"mtp_val, draft_val: mean Σmin(p, q) over {N_POSITIONS} val positions"),
            "sample": {"prompt": LEDGER_PROMPT, "n_chars": 240, "temperature": 1.0, "seed": SEED,
                       "mode": "kvcache", "text": data.decode(sample_result.tokens),
                       "main_forwards": sample_result.main_forwards, "accepted": sample_result.accepted,
                       "proposed": sample_result.proposed, "steps": steps}}


def one_file(fn):
    """A measurement that writes a single results file, named after the measurement."""
    return lambda name, args, data: {name: fn(args, data)}


# name -> fn(name, args, data) returning {results file stem: payload}
MEASUREMENTS = {"models": one_file(measure_models), "causal": one_file(measure_causal),
                "acceptance": one_file(measure_acceptance),
                "divergence_sweep": one_file(measure_divergence_sweep),
                "mtp": one_file(measure_mtp),
                "ledger": lambda name, args, data: measure_ledger(args, data)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seeds", type=int, nargs="+",
                        help="model seeds to measure (default: every seed with a full set of checkpoints)")
    parser.add_argument("--only", choices=sorted(MEASUREMENTS), nargs="+")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    args.seeds = args.seeds or trained_seeds()
    torch.set_num_threads(args.threads)
    data = CharData()
    names = args.only or list(MEASUREMENTS)
    for i, name in enumerate(names, 1):
        t0 = time.time()
        print(f"[measure {i}/{len(names)}] {name} ...", flush=True)
        outputs = MEASUREMENTS[name](name, args, data)
        for stem, payload in outputs.items():
            write_json(RESULTS / f"{stem}.json", {"meta": meta(args.seeds, args.device), **payload})
        written = ", ".join(f"experiments/results/{stem}.json" for stem in outputs)
        print(f"[measure {i}/{len(names)}] {name}: wrote {written} in {time.time() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
