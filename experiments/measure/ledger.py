"""ledger.json (section ⑤) and gamma_sweep.json (section ③): every decoder from "ROMEO:\n" at
T = 1, both modes, timed with interleaved repeats after a warm-up; the price of each kind of
forward; where each run's time went; the greedy identity check."""
import statistics

import torch

from experiments.measure.common import GAMMA, LEDGER_GAMMAS, LEDGER_PROMPT, main_and_draft
from experiments.measure.stats import burst_check, expected_tokens, pooled_burst_check, theorem_3_8
from experiments.speculative import MODES, mtp_decode, plain_decode, speculative_decode
from experiments.timing import interleaved, per_call, set_threads, summary

TEMPERATURE = 1.0
PARTS_HOW = ("the repeat whose wall time is the median, taken apart: seconds inside the main model's "
             "forwards and inside the drafter's forwards (draft model or MTP head), each summed by a "
             "timer around every forward call of that run's decoding loop; other = that run's wall "
             "time minus both (sampling, the acceptance rule, the Python loop)")


@torch.no_grad()
def forward_costs(main, draft, mode, device, sizes):
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
    timed = lambda fn: per_call(fn, sizes.forward_calls, sizes.forward_warmup, device)["median"]
    seconds = {name: timed(fn) for name, fn in calls.items()}
    seconds["verify"] = {g: timed(fn) for g, fn in verify.items()}
    return {"seconds": seconds, "c": seconds["draft"] / seconds["main"],
            "c_mtp": seconds["mtp_head"] / seconds["main"],
            "verify_over_main": {g: t / seconds["main"] for g, t in seconds["verify"].items()}}


def decoder_runs(main, draft, prompt, n_chars, mode, temperature, device):
    """{name: fn(seed) -> Result} for every method of the ledger."""
    def gen(seed):
        return torch.Generator(device=device).manual_seed(seed)
    runs = {"plain": lambda seed: plain_decode(main, prompt, n_chars, temperature, mode, gen(seed))}
    for g in LEDGER_GAMMAS:
        runs[f"draft_{g}"] = (lambda g: lambda seed: speculative_decode(
            main, draft, prompt, n_chars, g, temperature, mode, gen(seed)))(g)
    runs["mtp"] = lambda seed: mtp_decode(main, prompt, n_chars, temperature, mode, gen(seed))
    return runs


def method_of(name):
    """'plain' -> (plain, 0); 'draft_3' -> (draft, 3); 'mtp' -> (mtp, 1)."""
    if name in ("plain", "mtp"):
        return name, 0 if name == "plain" else 1
    return "draft", int(name.split("_")[1])


def median_repeat(wall):
    """Index of the repeat whose wall time is the median (the lower middle one if the count is even)."""
    order = sorted(range(len(wall)), key=wall.__getitem__)
    return order[(len(wall) - 1) // 2]


def time_parts(result, wall_s):
    """One run's wall time split into the parts measured inside it; `other` is what remains."""
    parts = {"main_forwards": result.main_forward_s, "draft_forwards": result.draft_forward_s}
    parts["other"] = wall_s - parts["main_forwards"] - parts["draft_forwards"]
    assert parts["other"] >= 0, f"forwards ({parts}) took longer than the run around them ({wall_s} s)"
    return parts


def ledger_row(name, mode, run, plain_wall, costs, n_chars):
    """One method in one mode: counters pooled over the repeats, wall time, speedups, and the
    median run taken apart."""
    method, gamma = method_of(name)
    results, wall = run["results"], run["wall_s"]
    total = lambda key: sum(getattr(r, key) for r in results)
    main_forwards = total("main_forwards") / len(results)
    draft_forwards = total("draft_forwards") / len(results)
    checked = total("accepted") + total("rejected")
    alpha = total("accepted") / checked if checked else None
    k = median_repeat(wall)
    parts = time_parts(results[k], wall[k])
    row = {"method": method, "mode": mode, "gamma": gamma, "repeats": len(results),
           "main_forwards": main_forwards, "draft_forwards": draft_forwards,
           "draft_forwards_per_main": draft_forwards / main_forwards,
           "tokens_per_main": n_chars / main_forwards, "alpha": alpha,
           "wall_s": summary(wall), "wall_s_runs": wall,
           "speedup": statistics.median(plain_wall) / statistics.median(wall),
           "speedup_runs": summary([p / w for p, w in zip(plain_wall, wall)]),
           "parts_s": parts, "parts_repeat": k, "parts_how": PARTS_HOW,
           "parts_share": {key: s / wall[k] for key, s in parts.items()},
           "forward_time_s": parts["main_forwards"] + parts["draft_forwards"],
           "overhead_s": parts["other"],
           "overhead_per_main_forward_s": parts["other"] / results[k].main_forwards}
    if method != "plain":
        c = costs["c_mtp"] if method == "mtp" else costs["c"]
        row.update(tokens_per_main_expected=expected_tokens(alpha, gamma),
                   speedup_theory=theorem_3_8(alpha, gamma, c), c_used=c,
                   verify_over_main=costs["verify_over_main"][gamma],
                   run_lengths=[sum(r.run_lengths.count(k) for r in results) for k in range(gamma + 1)])
        row["burst"] = burst_check(row["run_lengths"], alpha)
    return row


@torch.no_grad()
def greedy_checks(main, draft, prompt, n_chars, device):
    """T = 0: does every speculative decoder reproduce plain greedy decoding? kv-cache mode over
    all n_chars; recompute mode within the window (prompt + output + γ <= block_size), and, for
    the record, past it too, where the two cropping rules differ."""
    checks = []
    window = main.cfg.block_size
    for mode in MODES:
        runs = decoder_runs(main, draft, prompt, n_chars, mode, 0.0, device)
        plain = runs.pop("plain")(0).tokens
        for name, run in runs.items():
            method, gamma = method_of(name)
            tokens = run(0).tokens
            n = n_chars if mode == "kvcache" else min(n_chars, window - len(prompt) - gamma)
            mismatch = next((i for i, (a, b) in enumerate(zip(tokens, plain)) if a != b), None)
            check = {"method": method, "mode": mode, "gamma": gamma,
                     "chars_compared": n, "equal": mismatch is None or mismatch >= n}
            if mode == "recompute":
                check["first_mismatch_past_window"] = mismatch  # None: identical for all n_chars
            checks.append(check)
    return checks


def pick(row):
    return {"method": row["method"], "gamma": row["gamma"]}


def ledger_summary(rows, greedy):
    """What the ledger section's prose quotes, computed here so the template only formats."""
    of_mode = lambda mode: [r for r in rows if r["mode"] == mode]
    plain = {mode: next(r for r in of_mode(mode) if r["method"] == "plain") for mode in MODES}
    spec = {mode: [r for r in of_mode(mode) if r["method"] != "plain"] for mode in MODES}
    fewest = min(spec["kvcache"], key=lambda r: r["main_forwards"])
    recompute = [c for c in greedy if c["mode"] == "recompute"]
    diverged = sorted({c["first_mismatch_past_window"] for c in recompute} - {None})
    return {
        # the kv-cache row with the fewest main forwards, against plain kv-cache decoding
        "fewest_main_forwards": {
            **pick(fewest), "mode": "kvcache",
            "main_forwards_saved": 1 - fewest["main_forwards"] / plain["kvcache"]["main_forwards"],
            # its drafter's forwards (median run) over all of plain decoding's forwards (median run)
            "draft_over_plain_forwards": (fewest["parts_s"]["draft_forwards"]
                                          / plain["kvcache"]["parts_s"]["main_forwards"])},
        "fastest": {mode: {**pick(max(spec[mode], key=lambda r: r["speedup"])),
                           "speedup": max(r["speedup"] for r in spec[mode])} for mode in MODES},
        "greedy_equal": sum(c["equal"] for c in greedy), "greedy_checks": len(greedy),
        # recompute mode past the window: which checks stayed identical for every char, and the
        # others grouped by the first char (0-based) where they left plain greedy decoding
        "past_window": {
            "identical": [pick(c) for c in recompute if c["first_mismatch_past_window"] is None],
            "diverged": [{"first_mismatch": k, "checks": [pick(c) for c in recompute
                                                         if c["first_mismatch_past_window"] == k]}
                         for k in diverged]},
    }


def gamma_summary(rows, costs):
    """What section ③'s prose quotes about the draft model's γ rows."""
    deviation = [abs(r["tokens_per_main"] / r["tokens_per_main_expected"] - 1) for r in rows]
    of_mode = {mode: [r for r in rows if r["mode"] == mode] for mode in MODES}
    fastest = {mode: max(of_mode[mode], key=lambda r: r["speedup"]) for mode in MODES}
    seconds = {mode: costs[mode]["seconds"] for mode in MODES}
    return {
        "max_tokens_deviation": max(deviation),  # max |measured / expected tokens per main forward − 1|
        "rows_below_expected_tokens": sum(r["tokens_per_main"] < r["tokens_per_main_expected"] for r in rows),
        "rows": len(rows),
        "below_theory": {mode: {"rows_below": sum(r["speedup"] < r["speedup_theory"] for r in of_mode[mode]),
                                "rows": len(of_mode[mode])} for mode in MODES},
        # the fastest γ per mode, and what one more draft adds at its α going from γmax − 1 to γmax
        "fastest": {mode: {"gamma": r["gamma"], "alpha": r["alpha"], "speedup": r["speedup"],
                           "gain_of_last_draft": r["alpha"] ** GAMMA} for mode, r in fastest.items()},
        # how many times faster one forward gets with the kv-cache than recomputing the window
        "kvcache_forward_gain": {"main": seconds["recompute"]["main"] / seconds["kvcache"]["main"],
                                 "draft": seconds["recompute"]["draft"] / seconds["kvcache"]["draft"]},
    }


def measure(args, data, seeds, sizes):
    threads = set_threads(1)
    main, draft = main_and_draft(args, seeds[0])
    prompt, n_chars = data.encode(LEDGER_PROMPT), sizes.ledger_chars
    rows, costs = [], {}
    with torch.inference_mode():
        for mode in MODES:
            costs[mode] = forward_costs(main, draft, mode, args.device, sizes)
            print(f"  {mode}: main {costs[mode]['seconds']['main'] * 1e3:.3f} ms, c = {costs[mode]['c']:.3f}, "
                  f"c_mtp = {costs[mode]['c_mtp']:.3f}", flush=True)
            runs = interleaved(decoder_runs(main, draft, prompt, n_chars, mode, TEMPERATURE, args.device),
                               sizes.ledger_repeats, warmup=1, device=args.device)
            plain_wall = runs["plain"]["wall_s"]
            for name, run in runs.items():
                rows.append(ledger_row(name, mode, run, plain_wall, costs[mode], n_chars))
                print(f"  {mode} {name}: {rows[-1]['wall_s']['median']:.3f} s, "
                      f"speedup {rows[-1]['speedup']:.2f}", flush=True)
        greedy = greedy_checks(main, draft, prompt, n_chars, args.device)
    setup = {"prompt": LEDGER_PROMPT, "n_chars": n_chars, "temperature": TEMPERATURE,
             "repeats": sizes.ledger_repeats, "warmup": 1, "threads": threads,
             "seeds": list(range(sizes.ledger_repeats)), "gamma_max": GAMMA, "forward_costs": costs}
    draft_rows = [r for r in rows if r["method"] == "draft"]
    sweep_rows = [{k: r[k] for k in ("gamma", "mode", "alpha", "tokens_per_main", "tokens_per_main_expected",
                                     "speedup", "speedup_runs", "speedup_theory", "run_lengths", "burst",
                                     "wall_s")}
                  for r in draft_rows]
    return {"ledger": {**setup, "rows": rows, "greedy_check": greedy, "summary": ledger_summary(rows, greedy)},
            "gamma_sweep": {**setup, "gammas": list(LEDGER_GAMMAS), "rows": sweep_rows,
                            "c": {mode: costs[mode]["c"] for mode in MODES},
                            "burst_pooled": {mode: pooled_burst_check(rows, mode) for mode in MODES},
                            "summary": gamma_summary(draft_rows, costs)}}
