"""costs.json: what one forward costs, per engine, through the decoders' own runners — the main
model on n new positions with a kv cache that already holds a full window (n = 1 .. 64), the
draft model on one, the MTP head on one pair. The curve says how many drafts can ride along
with a verify for (nearly) free. The prices come from experiments/prices.py, as the ledger's; `summarize`
writes what the page concludes from the curve.

Its results are declared in experiments/records/conditions.py: CostsFile (costs.json)."""
from experiments.engine import available_engines, compile_seconds
from experiments.measure.common import engines_of, main_and_draft
from experiments.prices import forward_prices
from experiments.stats import FLAT_SLACK, is_flat
from experiments.timing import set_threads

def flat_until(over_main, slack=FLAT_SLACK):
    """The most new positions whose forward is flat (stats.is_flat: at most `slack` more than a
    one-position one), counting up from 1 and stopping at the first that is not."""
    last = 1
    for n in sorted(over_main):
        if not is_flat(over_main[n], slack):
            break
        last = n
    return last


def summarize(payload, slack=FLAT_SLACK):
    """What the page concludes from the curves of the payload `measure` writes: per engine, how
    far the curve stays flat (flat_until) and whether it is flat past one position at all, and
    the last position's price; the engine the sentences are about (compiled where it ran), and
    the flattest start of the eager and compiled engines (the ones ①'s curve paragraph states)."""
    last = payload["positions"][-1]
    out = {}
    for engine, p in payload["engines"].items():
        over = {int(n): v for n, v in p["over_main"].items()}  # JSON keys are strings
        out[engine] = {"flat_until": flat_until(over, slack), "flat_slack": slack, "over_main_last": over[last]}
        out[engine]["flat_start"] = out[engine]["flat_until"] > 1  # a second position within the slack
    # the flat start ①'s curve paragraph states, over the engines it names (eager, compiled)
    flat_max = max(out[e]["flat_until"] for e in payload["engines"] if e in ("eager", "compiled"))
    return {**out, "primary_engine": "compiled" if "compiled" in payload["engines"] else "eager",
            "flat_until_max": flat_max, "flat_start": flat_max > 1}


def measure(args, data, seeds, sizes):
    threads = set_threads(1)
    main, draft = main_and_draft(args, seeds[0])
    engines = available_engines(main, engines_of(args))
    prices = forward_prices(main, draft, "kvcache", engines, sizes.cost_positions, sizes, args.device)
    for engine in engines:
        over = prices[engine]["over_main"]
        print(f"  {engine}: main {prices[engine]['seconds']['main'] * 1e3:.3f} ms, c = {prices[engine]['c']:.3f}, "
              f"c_mtp = {prices[engine]['c_mtp']:.3f}, "
              + ", ".join(f"{n} positions / 1 = {over[n]:.2f}" for n in sizes.cost_positions[1::3]), flush=True)
    payload = {"positions": list(sizes.cost_positions), "mode": "kvcache", "threads": threads,
               "repeats": sizes.cost_repeats, "calls_per_repeat": sizes.forward_calls,
               "engines": prices,
               "compile_s": compile_seconds(("main", main), ("draft", draft)),
               "how": ("one forward of the main model on n new positions after a cache that holds "
                       "a full 64-position window, through the decoders' runners (building the "
                       "input, the forward, the rollback); the draft and the MTP head on one")}
    return {"costs": {**payload, "summary": summarize(payload)}}
