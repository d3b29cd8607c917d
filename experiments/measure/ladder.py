"""ladder.json (section ⑥'s engine ladder): the same decoders on every engine, from the one with
the most per-call overhead to the one with the least: eager → compiled (torch.compile) → aot
(AOTInductor packages) → native (a C++ step). Each rung: plain decoding, its fastest speculative
row, what a verify of k positions costs against a one-position forward there, and Theorem 3.8 at
that rung's own measured costs.

How it is timed, so that every ratio is one a reader reproduces with `generate`:
- choose: every candidate configuration on every engine, interleaved with each engine's plain
  decoder, a few repeats (it only chooses the fastest per engine and temperature);
- timed: plain and the chosen row of every engine, all interleaved in one run (repeat r runs
  every decoder with sampling seed r after one untimed warm-up decode each, which also builds
  the engine's graphs), so each speedup is paired: over the rung's own plain decoder, and over
  the compiled engine's plain decoder (the chapter's reference rung);
- fresh: the last rung's chosen row at T = 0 against plain, as separate
  `python -m experiments.generate` processes (rows.fresh_check): the harness must agree with it.

Fills chapter/schema.py SCHEMA["ladder.json"]."""

import torch

from experiments.engine import available_engines
from experiments.measure.common import GAMMA, LEDGER_PROMPT, engines_of, load_seed
from experiments.measure.rows import fresh_check, timed_row
from experiments.methods import accepts, config_decoder, config_name, spec_of
from experiments.prices import forward_prices
from experiments.stats import theorem_3_8
from experiments.timing import interleaved, set_threads, summary

TEMPERATURES = (1.0, 0.0)
# the candidates of every rung: the drafters that need no training beyond the main model's, the
# 2025–26 families (suffix decoding, the block drafter, EAGLE-3), and the draft model and MTP head (a chain each; trees cost more positions than a CPU verify gives free)
CANDIDATES = ([("ngram", g) for g in (2, 3, 4, 5, 6, 8)] + [("match", g) for g in (4, 6, 8)]
              + [("suffix", g) for g in (8, 16)] + [("block", g) for g in (4, 6)] + [("eagle3", g) for g in (3, 4)]
              + [("draft", g) for g in (2, 3, 4)] + [("mtp", 1)])
COMPARE_AT = 5  # positions of the verify whose price the rungs are compared at (4 drafts + the bonus)
REFERENCE = "compiled"  # the rung every other is also compared with: today's torch.compile engine


def decoders(models, configs, prompt, n_chars, temperature, engines, device):
    """{"engine:plain" and "engine:family:chain:γ": fn(seed)} for the configurations the registry accepts."""
    out = {}
    for engine in engines:
        out[f"{engine}:plain"] = config_decoder(models, "plain", "chain", 0, prompt, n_chars, temperature, engine, device)
        for family, gamma in configs(engine):
            if accepts(spec_of(family, "chain", gamma), models):
                out[f"{engine}:{config_name(family, 'chain', gamma)}"] = config_decoder(
                    models, family, "chain", gamma, prompt, n_chars, temperature, engine, device)
    return out


def rows_of(runs, engines, n_chars, temperature):
    """timed_row of every run against its own engine's plain decoder."""
    rows = []
    for name, run in runs.items():
        engine, config = name.split(":", 1)
        family, shape, size = ("plain", "chain", 0) if config == "plain" else config.split(":")
        rows.append(timed_row(family, shape, int(size), run, runs[f"{engine}:plain"], n_chars, engine, temperature))
    return rows


def choose(models, prompt, n_chars, engines, device, repeats):
    """({(engine, T): (family, γ)}: the fastest candidate per engine and temperature, and every
    candidate's speedup over its own plain in this stage: [{engine, temperature, family, size,
    speedup, min, max}])."""
    best, tried = {}, []
    for temperature in TEMPERATURES:
        runs = interleaved(decoders(models, lambda engine: CANDIDATES, prompt, n_chars, temperature, engines, device),
                           repeats, warmup=1, device=device)
        for row in rows_of(runs, engines, n_chars, temperature):
            key = (row["engine"], temperature)
            if row["family"] == "plain":
                continue
            tried.append({k: row[k] for k in ("engine", "temperature", "family", "size", "speedup", "tokens_per_main")}
                         | {"min": row["speedup_runs"]["min"], "max": row["speedup_runs"]["max"]})
            if key not in best or row["speedup"] > best[key]["speedup"]:
                best[key] = row
        print(f"  choose T={temperature:g}: " + ", ".join(
            f"{e} {best[e, temperature]['family']} γ={best[e, temperature]['size']} "
            f"{best[e, temperature]['speedup']:.2f}×" for e in engines), flush=True)
    return {key: (row["family"], row["size"]) for key, row in best.items()}, tried


def over_reference(run, reference):
    """The run against the reference rung's plain decoder of the same run, repeat by repeat."""
    return summary([p / w for p, w in zip(reference["wall_s"], run["wall_s"])])


def theory(row, prices):
    """Theorem 3.8 at this rung's costs: with the drafter's c alone (the theorem as written), with
    the verify's measured price r_{γ+1} in place of 1, and rebuilt from the row's own round taken apart."""
    alpha, gamma = row["alpha"], row["size"]
    out = {"theorem_3_8": row.get("speedup_theory"), "verify_price": prices["over_main"][gamma + 1]}
    if alpha is not None and alpha < 1 and row["c"] is not None:
        out["with_verify_price"] = theorem_3_8(alpha, gamma, row["c"], out["verify_price"])
    return out


def rung(engine, temperature, rows, runs, prices, n_chars):
    plain = next(r for r in rows if r["engine"] == engine and r["family"] == "plain")
    best = next(r for r in rows if r["engine"] == engine and r["family"] != "plain")
    reference = runs[f"{REFERENCE}:plain"] if f"{REFERENCE}:plain" in runs else None
    name = lambda row: f"{engine}:" + ("plain" if row is plain else config_name(row["family"], "chain", row["size"]))
    out = {"engine": engine, "temperature": temperature,
           "main_s": prices["seconds"]["main"],
           # r_k: a forward on k new positions over one on 1, timed back to back (prices.py)
           "verify_price": {str(k): v for k, v in prices["over_main"].items()},  # JSON keys
           "plain": {**plain, "chars_per_s": n_chars / plain["wall_s"]["median"]},
           "best": {**best, "chars_per_s": n_chars / best["wall_s"]["median"], "theory": theory(best, prices)}}
    if reference is not None:
        out["plain"]["over_reference"] = over_reference(runs[name(plain)], reference)
        out["best"]["over_reference"] = over_reference(runs[name(best)], reference)
    return out


def round_parts(row):
    """A row's round in plain forwards of its engine: the verify, the drafting, the rest (rows.timed_row)."""
    return {"verify": row["verify_over_main"], "drafting": row["drafter_per_round"], "other": row["other_per_round"]}


def summarize(payload):
    """What ⑥ says about the ladder, per temperature: the rungs in order with plain's and the best
    row's speed over the reference rung's plain, and each rung's speculative ratio over its own
    plain; whether removing overhead (the last rung's plain over the reference's) gains more than
    speculation does on the reference rung; how the verify price and the speculative ratio move
    from the reference rung to the last, and which part of the fastest row's round grew most."""
    out = {"reference": payload["reference"]}
    for key, rungs in payload["rungs"].items():
        by = {r["engine"]: r for r in rungs}
        last, ref = rungs[-1], by.get(payload["reference"])
        s = {"engines": [r["engine"] for r in rungs],
             "fastest": max(rungs, key=lambda r: r["best"]["chars_per_s"])["engine"],
             # the same k on every rung, so the prices compare: a verify of COMPARE_AT positions
             "verify_at": COMPARE_AT, "verify_prices": {r["engine"]: r["verify_price"][str(COMPARE_AT)] for r in rungs}}
        if ref is not None and last is not ref:
            k_ref, k_last = ref["best"]["size"] + 1, last["best"]["size"] + 1
            # ratios of the median speeds the chart draws (as each rung's speedup is), so a
            # sentence's figure is the bars' ratio; over_reference keeps the paired spread
            overhead = last["plain"]["chars_per_s"] / ref["plain"]["chars_per_s"]
            s.update({
                "overhead_gain": overhead,
                "speculation_gain": ref["best"]["speedup"],                   # speculation on the reference rung
                "best_over_reference": last["best"]["chars_per_s"] / ref["plain"]["chars_per_s"],
                "overhead_beats_speculation": overhead > ref["best"]["speedup"],
                "verify_ref": {"positions": k_ref, "price": ref["verify_price"][str(k_ref)]},
                "verify_last": {"positions": k_last, "price": last["verify_price"][str(k_last)]},
                "speculation_last": last["best"]["speedup"],
                "speculation_grows": last["best"]["speedup"] > ref["best"]["speedup"],
                # the fastest row's round taken apart, in plain forwards of its own engine
                "round_ref": round_parts(ref["best"]), "round_last": round_parts(last["best"])})
            growth = {part: s["round_last"][part] - s["round_ref"][part] for part in s["round_ref"]}
            s["grew_most"] = max(growth, key=growth.get)
        out[key] = s
    return out


def measure(args, data, seeds, sizes):
    threads = set_threads(1)
    models = load_seed(args, data, seeds[0])
    engines = available_engines(models.main, engines_of(args))
    prompt, n_chars = data.encode(LEDGER_PROMPT), sizes.ledger_chars
    with torch.inference_mode():
        chosen, tried = choose(models, prompt, n_chars, engines, args.device, sizes.ladder_choose_repeats)
        prices = forward_prices(models.main, models.draft, "kvcache", engines, tuple(range(1, GAMMA + 2)), sizes,
                                args.device)
        rungs, rows_by_t = {}, {}
        for temperature in TEMPERATURES:
            configs = lambda engine: [chosen[engine, temperature]]
            runs = interleaved(decoders(models, configs, prompt, n_chars, temperature, engines, args.device),
                               sizes.ladder_repeats, warmup=1, device=args.device)
            rows = rows_of(runs, engines, n_chars, temperature)
            rows_by_t[temperature] = rows
            rungs[f"T{temperature:g}"] = [rung(e, temperature, rows, runs, prices[e], n_chars) for e in engines]
            for r in rungs[f"T{temperature:g}"]:
                print(f"  T={temperature:g} {r['engine']}: plain {r['plain']['chars_per_s']:.0f} chars/s, "
                      f"{r['best']['family']} γ={r['best']['size']} {r['best']['chars_per_s']:.0f} chars/s "
                      f"({r['best']['speedup']:.2f}× its plain)", flush=True)
    row = next(r for r in rows_by_t[0.0] if r["engine"] == engines[-1] and r["family"] != "plain")
    fresh = fresh_check(args, seeds[0], row, n_chars, sizes.fresh_repeats)
    print(f"  fresh processes, {row['engine']} {row['family']} γ = {row['size']} at T = 0: "
          f"{fresh['fresh_speedup']:.2f}× against the harness's {fresh['harness_speedup']:.2f}×", flush=True)
    payload = {"prompt": LEDGER_PROMPT, "n_chars": n_chars, "threads": threads, "engines": engines,
               "reference": REFERENCE if REFERENCE in engines else engines[0],
               "temperatures": list(TEMPERATURES), "candidates": [list(c) for c in CANDIDATES],
               "choose_repeats": sizes.ladder_choose_repeats, "repeats": sizes.ladder_repeats,
               "seeds": list(range(sizes.ladder_repeats)), "model_seed": seeds[0],
               "prices": {e: {"main_s": p["seconds"]["main"], "over_main": p["over_main"], "c": p["c"],
                              "c_mtp": p["c_mtp"]} for e, p in prices.items()},
               "rungs": rungs, "fresh_check": fresh,
               "choose_rows": tried}  # the choosing stage: few repeats, read to compare configurations only
    return {"ladder": {**payload, "summary": summarize(payload)}}
