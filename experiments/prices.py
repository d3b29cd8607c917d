"""What each kind of forward costs, timed side by side through the decoders' own runners (the
timing harness of experiments/timing.py): the main model on n new positions, the draft model on
one, the MTP head on one pair, a compiled draft round. costs.json, the ledger and the families
all price forwards here, so a ratio has one definition: c is the median over repeats of
(drafter forward ÷ one-position main forward), and median_pair keeps the two times of that repeat."""
import statistics

import torch

from experiments.engine import Plan, make_runner
from experiments.timing import interleaved_calls, summary


def price_calls(main, draft, mode, engine, positions, rounds=()):
    """{name: fn()}: one forward per call, then the rollback that undoes it (not timed apart:
    a decoder pays it too). Names: "main" (1 new position), "draft", "mtp_head", "n=<k>" for
    the main model on k new positions, and "round=<γ>" for a draft round of γ drafts with their
    sampling (Runner.draft_round) for each γ in rounds."""
    window = main.cfg.block_size
    tokens = [(7 * i) % main.cfg.vocab_size for i in range(window + max(positions))]

    def forward_of(model, n):
        runner = make_runner(model, Plan(mode, sizes=(n,), margin=n), engine)
        runner.extend(tokens[:window])

        def call():
            runner.extend(tokens[:window + n], rows=n)  # as a verify of n positions
            runner.truncate(window)
        return call

    def head_forward():
        _, h, start = make_runner(main, Plan(mode), "eager").extend(tokens[:window + 1])
        head = make_runner(main, Plan(mode, mtp=True), engine)
        head.observe(h, start)
        head.extend(tokens, window)

        def call():
            head.truncate(window - 1)
            head.extend(tokens, window)
        return call

    def round_of(gamma):  # a whole draft round at T = 1: one graph in the compiled engine
        runner = make_runner(draft, Plan(mode, sizes=(1, 2), margin=gamma, round=(gamma, 1.0)), engine)
        runner.extend(tokens[:window])
        generator = torch.Generator().manual_seed(0)

        def call():
            runner.draft_round(tokens[:window + 1], gamma, 1.0, generator)
            runner.truncate(window)
        return call

    calls = {"main": forward_of(main, 1), "draft": forward_of(draft, 1), "mtp_head": head_forward()}
    calls.update({f"n={n}": forward_of(main, n) for n in positions if n > 1})
    calls.update({f"round={g}": round_of(g) for g in rounds})
    return calls


def forward_prices(main, draft, mode, engines, positions, sizes, device, rounds=()):
    """{engine: prices}. Seconds per forward: the median over sizes.cost_repeats repeats (each
    the median of sizes.forward_calls calls; every call of every engine interleaved in each
    repeat), with min and max. Ratios are paired, repeat by repeat, then the median is taken:
    c = draft / main and c_mtp = MTP head / main (median_pair: with the two times of the median
    repeat), over_main[n] = n positions / 1 position, and
    c_round[γ] = a draft round / γ / main (the drafting cost per draft when a round is one call,
    as in the compiled engine)."""
    with torch.inference_mode():
        calls = {f"{engine}:{name}": fn for engine in engines
                 for name, fn in price_calls(main, draft, mode, engine, positions, rounds).items()}
        values = interleaved_calls(calls, sizes.cost_repeats, sizes.forward_calls, sizes.forward_warmup, device)
    return {engine: prices_of({name.split(":", 1)[1]: v for name, v in values.items()
                               if name.startswith(f"{engine}:")}, positions, rounds) for engine in engines}


def median_pair(values, name):
    """c, the chapter's one definition of a drafter's cost: in each repeat, a drafter forward's
    seconds over a one-position main forward's, timed side by side; c is the median repeat's
    ratio (the lower median for an even count). Returns (c, {name: s, "main": s}) with the two
    times of that repeat, so a page that prints them prints figures whose ratio is c."""
    ratios = [a / b for a, b in zip(values[name], values["main"])]
    i = ratios.index(statistics.median_low(ratios))
    return ratios[i], {name: values[name][i], "main": values["main"][i]}


def prices_of(values, positions, rounds=()):
    key = lambda n: "main" if n == 1 else f"n={n}"
    seconds = {name: statistics.median(v) for name, v in values.items()}
    ratios = lambda name: [a / b for a, b in zip(values[name], values["main"])]  # paired by repeat
    c, c_pair = median_pair(values, "draft")
    c_mtp, c_mtp_pair = median_pair(values, "mtp_head")
    over_main = {n: summary(ratios(key(n))) for n in positions}
    prices = {"seconds": {"main": seconds["main"], "draft": seconds["draft"], "mtp_head": seconds["mtp_head"],
                        "positions": {n: seconds[key(n)] for n in positions}},
            "spread": {"main": summary(values["main"]), "draft": summary(values["draft"]),
                       "mtp_head": summary(values["mtp_head"]),
                       "positions": {n: summary(values[key(n)]) for n in positions}},
            "c": c, "c_pair": c_pair, "c_mtp": c_mtp, "c_mtp_pair": c_mtp_pair,
            "over_main": {n: r["median"] for n, r in over_main.items()},
            "over_main_spread": over_main}
    if rounds:
        prices["c_round"] = {g: statistics.median(ratios(f"round={g}")) / g for g in rounds}
    return prices
