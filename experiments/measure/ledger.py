"""ledger.json (⑥'s in-cache ledger, a deep dive) and gamma_sweep.json (section ③): every decoder from "ROMEO:\n" at
T = 1, both modes, timed with interleaved repeats after a warm-up; the price of each kind of
forward; where each run's time went; the greedy identity check. ③'s kv-cache sweep runs on the
answer engine (SWEEP_ENGINE, γ = 1..γmax), in an interleaved run of its own after the kv-cache
ledger's, so that ③'s c and best γ are those of the engine ⑤–⑦ rank on; its recompute sweep is the
eager engine's (the only one with that mode). `ledger_summary` and
`gamma_summary` write what the sections conclude from each file's payload.

Its results are declared in experiments/records/ledger.py: LedgerFile (ledger.json) and GammaSweepFile (gamma_sweep.json)."""
import statistics

import torch

from experiments.measure.common import GAMMA, LEDGER_ENGINES, LEDGER_GAMMAS, LEDGER_PROMPT, engines_of, main_and_draft
from experiments import peer
from experiments.measure.rows import median_repeat, time_parts
from experiments.prices import forward_prices
from experiments.stats import burst_check, expected_tokens, is_flat, pooled_burst_check, theorem_3_8
from experiments.engine import Plan, available_engines, compile_seconds, make_runner
from experiments.runners import MODES
from experiments.methods import Models, Spec, decoder
from experiments.timing import interleaved, set_threads, summary

TEMPERATURE = 1.0
PARTS_HOW = ("the repeat whose wall time is the median, taken apart: seconds inside the main model's "
             "forwards and inside the drafter's forwards (draft model or MTP head), each summed by a "
             "timer around every forward call of that run's decoding loop; other = that run's wall "
             "time minus both (sampling, the acceptance rule, the Python loop)")


def forward_costs(main, draft, mode, engines, device, sizes):
    """{engine: seconds per forward} (costs.forward_prices, through the decoders' runners, the
    engines interleaved): main on 1 new token, main verifying 1 + γ tokens, the draft on 1 token,
    the MTP head on 1 pair. kv-cache mode: a warm cache holding a full window; recompute mode:
    every forward reruns the whole 64-token window, a verify of k positions one such crop per
    position, in one batched forward (what that mode does for every token and every verify)."""
    out = {}
    rounds = LEDGER_GAMMAS if "compiled" in engines else ()
    for engine, prices in forward_prices(main, draft, mode, engines, tuple(range(1, GAMMA + 2)), sizes, device,
                                         rounds).items():
        seconds = prices["seconds"]
        verify = {g: seconds["positions"][g + 1] for g in range(1, GAMMA + 1)}
        out[engine] = {"seconds": {"main": seconds["main"], "draft": seconds["draft"], "mtp_head": seconds["mtp_head"],
                                   "verify": verify},
                       "c": prices["c"], "c_pair": prices["c_pair"], "c_mtp": prices["c_mtp"],
                       "c_mtp_pair": prices["c_mtp_pair"],
                       "verify_over_main": {g: prices["over_main"][g + 1] for g in range(1, GAMMA + 1)},
                       # median, min and max over the repeats: how far one repeat's ratio can stray
                       "verify_over_main_spread": {g: prices["over_main_spread"][g + 1] for g in range(1, GAMMA + 1)}}
        if engine == "compiled":  # a draft round is one compiled call: its c is per draft of a round
            out[engine]["c_round"] = prices["c_round"]
    return out


PLAIN = Spec("plain")
SPECS = (PLAIN, *(Spec("draft", g) for g in LEDGER_GAMMAS), Spec("mtp", 1))  # the ledger's methods
SWEEP_ENGINE = "native"  # ③'s kv-cache sweep: the answer engine (SPEC §10), eager where it cannot build
SWEEP_SPECS = (PLAIN, *(Spec("draft", g) for g in range(1, GAMMA + 1)))


def decoder_runs(main, draft, prompt, n_chars, mode, temperature, device, engine="eager", specs=SPECS):
    """{spec: fn(seed) -> Result} for every method of the ledger (or of `specs`)."""
    models = Models(main, draft)
    return {spec: decoder(spec, models, prompt, n_chars, temperature, mode, engine, device) for spec in specs}


def ledger_row(spec, mode, run, plain_wall, costs, n_chars, engine="eager"):
    """One method in one mode and engine: counters pooled over the repeats, wall time, speedups
    against plain decoding in the same mode and engine, and the median run taken apart."""
    method, gamma = spec.method, spec.size
    results, wall = run["results"], run["wall_s"]
    total = lambda key: sum(getattr(r, key) for r in results)
    main_forwards = total("main_forwards") / len(results)
    draft_forwards = total("draft_forwards") / len(results)
    checked = total("accepted") + total("rejected")
    alpha = total("accepted") / checked if checked else None
    k = median_repeat(wall)
    parts = time_parts(results[k], wall[k])
    row = {"method": method, "mode": mode, "engine": engine, "gamma": gamma, "repeats": len(results),
           "main_forwards": main_forwards, "draft_forwards": draft_forwards,
           "draft_forwards_per_main": draft_forwards / main_forwards,
           "tokens_per_main": n_chars / main_forwards, "alpha": alpha,
           "wall_s": summary(wall), "wall_s_runs": wall,
           "speedup": statistics.median(plain_wall) / statistics.median(wall),
           "speedup_runs": summary([p / w for p, w in zip(plain_wall, wall)]),
           "parts_s": parts, "parts_repeat": k, "parts_main_forwards": results[k].main_forwards, "parts_how": PARTS_HOW,
           "parts_share": {key: s / wall[k] for key, s in parts.items()},
           "forward_time_s": parts["main_forwards"] + parts["draft_forwards"],
           "overhead_s": parts["other"],
           "overhead_per_main_forward_s": parts["other"] / results[k].main_forwards}
    if method != "plain":
        c = costs["c_mtp"] if method == "mtp" else costs.get("c_round", {}).get(gamma, costs["c"])
        row.update(tokens_per_main_expected=expected_tokens(alpha, gamma),
                   speedup_theory=theorem_3_8(alpha, gamma, c), c_used=c,
                   verify_over_main=costs["verify_over_main"][gamma],
                   run_lengths=[sum(r.run_lengths.count(k) for r in results) for k in range(gamma + 1)])
        row["burst"] = burst_check(row["run_lengths"], alpha)
    return row


@torch.no_grad()
def greedy_checks(main, draft, prompt, n_chars, device, modes=MODES, engine="eager"):
    """T = 0: does every speculative decoder reproduce plain greedy decoding in the same engine and
    mode, over all n_chars? (In recompute mode too: a verify gives each of its positions plain
    recompute decoding's crop, runners.Runner.extend.) first_mismatch: the first char that differs, or None."""
    checks = []
    for mode in modes:
        runs = decoder_runs(main, draft, prompt, n_chars, mode, 0.0, device, engine)
        plain = runs.pop(PLAIN)(0).tokens
        for spec, run in runs.items():
            mismatch = first_mismatch(run(0).tokens, plain)
            checks.append({"method": spec.method, "mode": mode, "engine": engine, "gamma": spec.size,
                           "chars_compared": n_chars, "equal": mismatch is None, "first_mismatch": mismatch})
    return checks


def first_mismatch(a, b):
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)


def pick(row):
    return {"method": row["method"], "gamma": row["gamma"]}




def per_forward(row):
    """Seconds per main forward inside the row's median run, and the rest per main forward: that
    run's seconds over that run's own count of forwards (rows.timed_row divides the same way; the
    mean count over all repeats would price a speculative row's forwards a few percent off). A
    ledger.json written before rows recorded that count falls back to the mean."""
    forwards = row.get("parts_main_forwards", row["main_forwards"])
    return {"forward_s": row["parts_s"]["main_forwards"] / forwards, "other_s": row["parts_s"]["other"] / forwards}


def ledger_summary(payload):
    """What the ledger section's prose quotes, from the payload `measure` writes (rows,
    greedy_check, forward_costs, and compiled and peer where they ran), so the template only formats."""
    rows, greedy = payload["rows"], payload["greedy_check"]
    of_mode = lambda mode: [r for r in rows if r["mode"] == mode]
    plain = {mode: next(r for r in of_mode(mode) if r["method"] == "plain") for mode in MODES}
    spec = {mode: [r for r in of_mode(mode) if r["method"] != "plain"] for mode in MODES}
    fewest = min(spec["kvcache"], key=lambda r: r["main_forwards"])
    draft_over_plain = fewest["parts_s"]["draft_forwards"] / plain["kvcache"]["parts_s"]["main_forwards"]
    # verify / one-position forward by γ: int keys here, strings once read back from JSON
    recompute_verify = {str(g): v for g, v in payload["forward_costs"]["recompute"]["verify_over_main"].items()}
    out = {
        # the kv-cache row with the fewest main forwards, against plain kv-cache decoding
        "fewest_main_forwards": {
            **pick(fewest), "mode": "kvcache",
            "main_forwards_saved": 1 - fewest["main_forwards"] / plain["kvcache"]["main_forwards"],
            # its drafter's forwards (median run) over all of plain decoding's forwards (median run)
            "draft_over_plain_forwards": draft_over_plain,
            "drafts_exceed_plain_forwards": draft_over_plain > 1},
        "fastest": {mode: {**pick(max(spec[mode], key=lambda r: r["speedup"])),
                           "speedup": max(r["speedup"] for r in spec[mode])} for mode in MODES},
        "greedy_equal": sum(c["equal"] for c in greedy), "greedy_checks": len(greedy),
        "greedy_all_equal": all(c["equal"] for c in greedy),
        # recompute mode: is verifying γmax drafts (γmax + 1 crops in one batch) flat, within FLAT_SLACK of one crop?
        "recompute_verify_flat": is_flat(recompute_verify[str(payload["gamma_max"])]),
    }
    compiled = payload.get("compiled")
    if compiled:
        fastest = compiled["fastest"]
        row = next(r for r in compiled["rows"] if (r["method"], r["gamma"]) == (fastest["method"], fastest["gamma"]))
        verify = per_forward(row)["forward_s"]
        plain_c = per_forward(next(r for r in compiled["rows"] if r["method"] == "plain"))["forward_s"]
        # the same verify timed back to back (rₖ at k = γ + 1), over the repeats
        back = {str(g): v for g, v in compiled["forward_costs"]["verify_over_main_spread"].items()}[str(fastest["gamma"])]
        out["compiled"] = {
            "beats_plain": fastest["speedup"] >= 1,  # the fastest speculative row against compiled plain
            "helps_less_than_eager": fastest["speedup"] < out["fastest"]["kvcache"]["speedup"],
            "below_theory": row["speedup"] < row["speedup_theory"],  # the fastest row against Theorem 3.8
            # its main forwards in the run against compiled plain decoding's one-character forward
            "verify_s": verify, "plain_s": plain_c, "verify_over_plain": verify / plain_c,
            "back_to_back": back,  # timing.summary: median, min, max, n
            # does the loop pay more than every back-to-back repeat did (an extra the loop alone adds)?
            "loop_extra_clear": verify / plain_c > back["max"],
            "loop_verify_flat": is_flat(verify / plain_c),  # within FLAT_SLACK of the one forward Theorem 3.8 assumes
            "greedy_equal": sum(c["equal"] for c in compiled["greedy_check"]),
            "greedy_checks": len(compiled["greedy_check"])}
    peer = payload.get("peer")
    if peer:
        hf = per_forward(next(r for r in peer["rows"] if r["method"] == "plain"))
        ours = per_forward(plain["kvcache"])
        gap = {k: hf[k] - ours[k] for k in hf}
        out["peer"] = {
            "greedy_identical": sum(v is None for v in peer["check"]["greedy_first_mismatch"].values()),
            # per character of plain decoding: transformers' forward and the rest, against our eager ones
            "forward_s": hf["forward_s"], "other_s": hf["other_s"],
            "ours_forward_s": ours["forward_s"], "ours_other_s": ours["other_s"],
            "forward_gap_s": gap["forward_s"], "other_gap_s": gap["other_s"],
            "gap_mostly_in_forwards": gap["forward_s"] > gap["other_s"]}
    return out


def tokens_drops(of_mode):
    """How many neighbouring γ rows of one mode have the longer chain emit fewer characters per
    main forward (③'s FAQ asks why that can happen; it says whether it did)."""
    drops = 0
    for rows in of_mode.values():
        chain = sorted(rows, key=lambda r: r["gamma"])
        drops += sum(b["tokens_per_main"] < a["tokens_per_main"] for a, b in zip(chain, chain[1:]))
    return drops


def gamma_summary(payload):
    """What section ③'s prose quotes about the draft model's γ rows, from the payload `measure`
    writes (its rows, and forward_costs: the eager engine's, both modes, for the cache's gain)."""
    rows, costs = payload["rows"], payload["forward_costs"]
    below = sum(r["tokens_per_main"] < r["tokens_per_main_expected"] for r in rows)
    deviation = [abs(r["tokens_per_main"] / r["tokens_per_main_expected"] - 1) for r in rows]
    of_mode = {mode: [r for r in rows if r["mode"] == mode] for mode in MODES}
    fastest = {mode: max(of_mode[mode], key=lambda r: r["speedup"]) for mode in MODES}
    pair = {mode: costs[mode]["c_pair"] for mode in MODES}  # the times c is the ratio of, per mode
    gain = {model: pair["recompute"][model] / pair["kvcache"][model] for model in ("main", "draft")}
    return {
        "max_tokens_deviation": max(deviation),  # max |measured / expected tokens per main forward − 1|
        "rows_below_expected_tokens": below,
        "rows": len(rows),
        "all_below_expected_tokens": below == len(rows),
        "below_theory": {mode: {"rows_below": sum(r["speedup"] < r["speedup_theory"] for r in of_mode[mode]),
                                "rows": len(of_mode[mode])} for mode in MODES},
        "tokens_drops": tokens_drops(of_mode),
        # the fastest γ per mode, and what one more draft adds at its α going from γmax − 1 to γmax
        "fastest": {mode: {"gamma": r["gamma"], "alpha": r["alpha"], "speedup": r["speedup"],
                           "gain_of_last_draft": r["alpha"] ** GAMMA} for mode, r in fastest.items()},
        # how many times faster one forward gets with the kv-cache than recomputing the window on the eager
        # engine, from the times its c is made of, so that its c_kvcache / c_recompute = gain main / gain draft
        "kvcache_forward_gain": gain,
        # so c is larger with the cache when the main model gains more from it
        "c_with_cache": "larger" if gain["main"] > gain["draft"] else "smaller" if gain["main"] < gain["draft"] else "same",
    }


PEER_GAMMA = 3  # drafts per round for transformers' assisted generation and prompt lookup


def peer_runs(main, draft, prompt, n_chars, data):
    """transformers on our weights (experiments/peer.py), or {} without the [peer] extra: the
    methods to time beside ours, and the conversion check (logits and greedy text)."""
    if peer.available() is None:
        print("  note: transformers is not installed (pip install -e '.[peer]'): no peer rows", flush=True)
        return {}, None
    hf_main, hf_draft, counters = peer.peer_models(main, draft)
    text = data.val[:2 * main.cfg.block_size + 22].tolist()  # past the sliding window
    ours = decoder_runs(main, draft, prompt, n_chars, "kvcache", 0.0, "cpu")[PLAIN](0).tokens
    ids = torch.tensor([text])
    check = {"chars": len(text),
             "max_abs_logit_diff": (make_runner(main, Plan(), "eager").extend(text)[0]
                                    - hf_main(ids).logits[0]).abs().max().item(),
             "greedy_first_mismatch": {}}
    for method in peer.PEER_METHODS:
        tokens = peer.peer_decode(method, hf_main, hf_draft, counters, prompt, n_chars, 0.0, PEER_GAMMA).tokens
        check["greedy_first_mismatch"][method] = first_mismatch(tokens, ours)
    runs = {("peer", method): (lambda method: lambda seed: peer.peer_decode(
        method, hf_main, hf_draft, counters, prompt, n_chars, TEMPERATURE, PEER_GAMMA, seed))(method)
        for method in peer.PEER_METHODS}
    return runs, check


def peer_row(method, run, runs, n_chars):
    """A transformers row: counts, wall time, and speedups against its own plain decoding and
    against ours (eager and, when measured, compiled), all from the same interleaved run."""
    results, wall = run["results"], run["wall_s"]
    mean = lambda key: sum(getattr(r, key) for r in results) / len(results)
    k = median_repeat(wall)
    over = lambda key: statistics.median(runs[key]["wall_s"]) / statistics.median(wall) if key in runs else None
    return {"method": method, "gamma": 0 if method == "plain" else PEER_GAMMA, "repeats": len(results),
            "main_forwards": mean("main_forwards"), "draft_forwards": mean("draft_forwards"),
            "tokens_per_main": n_chars / mean("main_forwards"),
            "wall_s": summary(wall), "wall_s_runs": wall,
            "speedup_own": over(("peer", "plain")), "over_ours_eager": over(("eager", PLAIN)),
            "over_ours_compiled": over(("compiled", PLAIN)),
            "parts_s": time_parts(results[k], wall[k]), "parts_repeat": k, "parts_main_forwards": results[k].main_forwards}


def measure(args, data, seeds, sizes):
    threads = set_threads(1)
    main, draft = main_and_draft(args, seeds[0])
    engines = available_engines(main, engines_of(args, (*LEDGER_ENGINES, SWEEP_ENGINE)))
    # ③'s lane per mode: the answer engine's kv cache where it builds; recompute runs on eager alone
    sweep_lane = {"kvcache": SWEEP_ENGINE if SWEEP_ENGINE in engines else "eager", "recompute": "eager"}
    prompt, n_chars = data.encode(LEDGER_PROMPT), sizes.ledger_chars
    lanes = ([(mode, "eager") for mode in MODES] + [("kvcache", "compiled")] * ("compiled" in engines)
             + [("kvcache", SWEEP_ENGINE)] * (sweep_lane["kvcache"] == SWEEP_ENGINE))
    specs_of = lambda engine: SWEEP_SPECS if engine == SWEEP_ENGINE else SPECS
    rows, costs, all_runs = [], {}, {}
    with torch.inference_mode():
        for mode in MODES:
            costs.update({(mode, engine): c for engine, c in forward_costs(
                main, draft, mode, [e for m, e in lanes if m == mode], args.device, sizes).items()})
        for mode, engine in lanes:
            print(f"  {mode} {engine}: main {costs[mode, engine]['seconds']['main'] * 1e3:.3f} ms, "
                  f"c = {costs[mode, engine]['c']:.3f}, c_mtp = {costs[mode, engine]['c_mtp']:.3f}", flush=True)
        # the ledger's engines of one mode are interleaved in one run, so they compare fairly; ③'s native lane
        # runs on its own, with more repeats: its runs last tens of ms, and interleaved with the ledger's runs
        # it once read 1.33× at γ = 3 where, alone, it read 0.99× and the dial's own run 0.93×
        groups = [(mode, [e for m, e in lanes if m == mode and e != SWEEP_ENGINE], sizes.ledger_repeats) for mode in MODES]
        groups += [("kvcache", [SWEEP_ENGINE], sizes.sweep_repeats)] * (sweep_lane["kvcache"] == SWEEP_ENGINE)
        for mode, group, repeats in groups:
            methods = {(engine, spec): fn for engine in group
                       for spec, fn in decoder_runs(main, draft, prompt, n_chars, mode, TEMPERATURE,
                                                    args.device, engine, specs_of(engine)).items()}
            if mode == "kvcache" and "eager" in group:  # the library a reader would use, timed in the ledger's run
                peers, peer_check = peer_runs(main, draft, prompt, n_chars, data) if args.device == "cpu" else ({}, None)
                methods.update(peers)
            runs = interleaved(methods, repeats, warmup=1, device=args.device)
            all_runs.update({(mode, *key): run for key, run in runs.items()})
            for (engine, spec), run in runs.items():
                if engine == "peer":
                    continue
                rows.append(ledger_row(spec, mode, run, runs[engine, PLAIN]["wall_s"], costs[mode, engine],
                                       n_chars, engine))
                print(f"  {mode} {engine} {spec}: {rows[-1]['wall_s']['median']:.3f} s, "
                      f"speedup {rows[-1]['speedup']:.2f}", flush=True)
        greedy = greedy_checks(main, draft, prompt, n_chars, args.device)
        if "compiled" in engines:
            greedy_compiled = greedy_checks(main, draft, prompt, n_chars, args.device, ("kvcache",), "compiled")
            plain_tokens = {e: decoder_runs(main, draft, prompt, n_chars, "kvcache", 0.0, args.device, e)[PLAIN](0).tokens
                            for e in LEDGER_ENGINES}
    eager = [r for r in rows if r["engine"] == "eager"]
    setup = {"prompt": LEDGER_PROMPT, "n_chars": n_chars, "temperature": TEMPERATURE,
             "repeats": sizes.ledger_repeats, "warmup": 1, "threads": threads,
             "seeds": list(range(sizes.ledger_repeats)), "gamma_max": GAMMA,
             "forward_costs": {mode: costs[mode, "eager"] for mode in MODES}}
    kv_runs = {key[1:]: run for key, run in all_runs.items() if key[0] == "kvcache"}
    ledger = {**setup, "rows": eager, "greedy_check": greedy, "engines": [e for e in engines if e in LEDGER_ENGINES]}
    if "compiled" in engines:
        compiled_rows = [r for r in rows if r["engine"] == "compiled"]
        ledger["compiled"] = {
            "mode": "kvcache", "rows": compiled_rows, "forward_costs": costs["kvcache", "compiled"],
            "greedy_check": greedy_compiled,
            # the compiled engine's plain greedy text against the eager one's (float32: a near-tie may flip)
            "plain_greedy_first_mismatch": first_mismatch(plain_tokens["compiled"], plain_tokens["eager"]),
            "fastest": {**pick(max((r for r in compiled_rows if r["method"] != "plain"), key=lambda r: r["speedup"])),
                        "speedup": max(r["speedup"] for r in compiled_rows if r["method"] != "plain")},
            "compile_s": compile_seconds(("main", main), ("draft", draft))}
    if peer_check is not None:
        ledger["peer"] = {"library": "transformers", "version": peer.available(), "gamma": PEER_GAMMA,
                          "check": peer_check,
                          "rows": [peer_row(m, kv_runs["peer", m], kv_runs, n_chars) for m in peer.PEER_METHODS]}
    ledger["summary"] = ledger_summary(ledger)
    return {"ledger": ledger, "gamma_sweep": gamma_sweep(setup, rows, costs, sweep_lane)}


def gamma_sweep(setup, rows, costs, lane):
    """gamma_sweep.json's payload: the draft model's rows of each mode's lane ({mode: engine}), the c and
    forward prices of that lane (lane_costs; setup's forward_costs stay the eager engine's, both modes).
    Each row says how many repeats it ran (sampling seeds 0 .. repeats − 1): the native lane ran more."""
    draft_rows = [r for r in rows if r["method"] == "draft" and r["engine"] == lane[r["mode"]]]
    sweep_rows = [{k: r[k] for k in ("gamma", "mode", "engine", "repeats", "alpha", "tokens_per_main",
                                     "tokens_per_main_expected", "speedup", "speedup_runs", "speedup_theory",
                                     "run_lengths", "burst", "wall_s")}
                  for r in draft_rows]
    sweep = {**setup, "engines": lane, "gammas": sorted({r["gamma"] for r in draft_rows}), "rows": sweep_rows,
             "c": {mode: costs[mode, engine]["c"] for mode, engine in lane.items()},
             "lane_costs": {mode: costs[mode, engine] for mode, engine in lane.items()},
             "burst_pooled": {mode: pooled_burst_check(draft_rows, mode) for mode in MODES}}
    return {**sweep, "summary": gamma_summary(sweep)}
