"""costs.json: what one forward costs, per engine, through the decoders' own runners — the main
model on n new positions with a kv cache that already holds a full window (n = 1 .. 64), the
draft model on one, the MTP head on one pair. The curve says how many drafts can ride along
with a verify for (nearly) free. `forward_prices` is also what the ledger uses for c."""
import torch

from experiments.engine import READY
from experiments.measure.common import main_and_draft
from experiments.speculative import ENGINES, make_runner
from experiments.timing import interleaved_calls, set_threads

def price_calls(main, draft, mode, engine, positions):
    """{name: fn()}: one forward per call, then the rollback that undoes it (not timed apart:
    a decoder pays it too). Names: "main" (1 new position), "draft", "mtp_head", and "n=<k>"
    for the main model on k new positions."""
    window = main.cfg.block_size
    tokens = [(7 * i) % main.cfg.vocab_size for i in range(window + max(positions))]

    def forward_of(model, n):
        runner = make_runner(model, mode, engine, sizes=(n,), lookahead=n)
        runner.extend(tokens[:window])

        def call():
            runner.extend(tokens[:window + n])
            runner.truncate(window)
        return call

    def head_forward():
        _, h, start = make_runner(main, mode, "eager").extend(tokens[:window + 1])
        head = make_runner(main, mode, engine, sizes=(1,), mtp=True)
        head.observe(h, start)
        head.extend(tokens, window)

        def call():
            head.truncate(window - 1)
            head.extend(tokens, window)
        return call

    calls = {"main": forward_of(main, 1), "draft": forward_of(draft, 1), "mtp_head": head_forward()}
    calls.update({f"n={n}": forward_of(main, n) for n in positions if n > 1})
    return calls


def forward_prices(main, draft, mode, engine, positions, sizes, device):
    """Median seconds per forward over sizes.cost_repeats interleaved repeats (each the median
    of sizes.forward_calls calls), with min and max over the repeats, and the ratios the
    theory uses: c = draft / main, c_mtp = MTP head / main, and n positions / 1 position."""
    with torch.inference_mode():
        calls = price_calls(main, draft, mode, engine, positions)
        spread = interleaved_calls(calls, sizes.cost_repeats, sizes.forward_calls, sizes.forward_warmup, device)
    seconds = {name: s["median"] for name, s in spread.items()}
    per_n = {n: seconds["main"] if n == 1 else seconds[f"n={n}"] for n in positions}
    return {"seconds": {"main": seconds["main"], "draft": seconds["draft"], "mtp_head": seconds["mtp_head"],
                        "positions": per_n},
            "spread": {"main": spread["main"], "draft": spread["draft"], "mtp_head": spread["mtp_head"],
                       "positions": {n: spread["main"] if n == 1 else spread[f"n={n}"] for n in positions}},
            "c": seconds["draft"] / seconds["main"], "c_mtp": seconds["mtp_head"] / seconds["main"],
            "over_main": {n: t / seconds["main"] for n, t in per_n.items()}}


def engines_available(main, requested):
    """The engines to measure: eager always (every ratio is against it), compiled if requested
    and it compiles here; if not, say so in one line and measure eager alone."""
    from experiments.engine import CompileUnavailable, ensure_compiled
    if "compiled" not in (requested or ()):
        return ["eager"]
    try:
        with torch.inference_mode():
            ensure_compiled(main, "main", (1,))
    except CompileUnavailable as err:
        print(f"  note: the compiled engine is unavailable here ({err}); measuring eager only", flush=True)
        return ["eager"]
    return list(ENGINES)


def compile_seconds(*models):
    """Seconds each compiled graph took to build in this process, per model and (kind, size)."""
    return {name: {f"{kind}/{size}": s for (kind, size), s in sorted(READY.get(model, {}).items())}
            for name, model in models}


def measure(args, data, seeds, sizes):
    threads = set_threads(1)
    main, draft = main_and_draft(args, seeds[0])
    engines = engines_available(main, getattr(args, "engines", ENGINES))
    prices = {}
    for engine in engines:
        prices[engine] = forward_prices(main, draft, "kvcache", engine, sizes.cost_positions, sizes, args.device)
        over = prices[engine]["over_main"]
        print(f"  {engine}: main {prices[engine]['seconds']['main'] * 1e3:.3f} ms, c = {prices[engine]['c']:.3f}, "
              f"c_mtp = {prices[engine]['c_mtp']:.3f}, "
              + ", ".join(f"{n} positions / 1 = {over[n]:.2f}" for n in sizes.cost_positions[1::3]), flush=True)
    return {"costs": {"positions": list(sizes.cost_positions), "mode": "kvcache", "threads": threads,
                      "repeats": sizes.cost_repeats, "calls_per_repeat": sizes.forward_calls,
                      "engines": prices, "compile_s": compile_seconds(("main", main), ("draft", draft)),
                      "how": ("one forward of the main model on n new positions after a cache that holds "
                              "a full 64-position window, through the decoders' runners (building the "
                              "input, the forward, the rollback); the draft and the MTP head on one")}}
