"""regime.json (measure/regime.py): the answer run, the dial of heavy twins on the native engine."""
from typing import Annotated, NotRequired, TypedDict

from experiments.records.base import (Config, ConfigSpeedup, Engine, FreshCheck, MayBeEmpty, PositiveInt, PositiveNum,
                                      Results, Spread, TimedRow)


# ---- regime.json (regime.py): the answer run: the dial, heavy twins of every network on the native engine

class Sweep(TypedDict):  # ... and at the model as trained on the answer engine: every one of these
    gammas: list[int]
    trees: list[int]


# the machine, once: one thread's streaming read and matmul, and where its caches stop helping
class Roofline(TypedDict):
    bandwidth_bytes_per_s: PositiveNum
    flops_per_s: PositiveNum
    bandwidth_sweep: dict[str, float]  # MB streamed -> bytes/s
    cache_edge_mb: int         # the smallest buffer streamed at most `knee`× as fast as the largest
    knee: float
    sysfs_last_level_cache: str | None  # what sysfs reports (a VM may report the host's)


class DrafterCosts(TypedDict):  # back to back, as costs.json's c
    draft: float
    mtp: float


class RooflinePrediction(TypedDict):  # what the roofline predicts
    main_s: float
    r: dict[str, float]


class TheoryCheck(TypedDict):
    verify_price: float        # r_{γ+1} at this scale
    with_verify_price: float   # Theorem 3.8 at the row's α, c and r_{γ+1}
    gap: float                 # measured / that − 1


class BestRow(TimedRow):
    theory: NotRequired[TheoryCheck]


class PlainRow(TimedRow):
    s_per_char: float


class Peers(TypedDict):  # the heaviest scale, T = 1: what a reader would use on the same twin, in the same run
    library: str
    version: str | None
    rows: list[TimedRow]       # engine: eager or the library; over its own plain
    eager_r: dict[str, PositiveNum]  # r_k of our eager engine on the twin, keys "1".."9"
    eager_main_s: PositiveNum


class RegimePoint(TypedDict):  # one scale
    scale: PositiveNum
    main_bytes: PositiveInt    # the main model's weights (its MTP head apart)
    drafter_bytes: dict[str, int]  # draft | mtp | medusa | eagle | eagle3 | block
    main_s: PositiveNum        # a one-position main forward, seconds (prices.py)
    r: dict[str, PositiveNum]  # r_k: k new positions / one, keys "1".."9"
    c: DrafterCosts
    roofline: RooflinePrediction
    plain: dict[str, PlainRow]  # plain decoding's own row, keys T1 | T0
    best: dict[str, list[BestRow]]  # every family's fastest configuration, per temperature, fastest first
    choose: dict[str, Annotated[list[TimedRow], MayBeEmpty]]  # the choosing pass (one repeat), keys T1 | T0
    peers: NotRequired[Peers]


class PeerSide(Config):
    engine: Engine


# ours (the native fastest row) against the library's fastest decoder: its median wall / ours
class OursAgainstPeer(TypedDict):
    ours: PeerSide
    theirs: PeerSide
    ratio: PositiveNum
    ratio_runs: Spread
    verdict: str


class Heaviest(TypedDict):
    scale: PositiveNum
    main_bytes: PositiveInt
    r5: PositiveNum


class RegimeFastest(ConfigSpeedup):
    verdict: str               # faster | slower | unclear: every paired repeat on one side of 1×?


class RegimeAnswer(TypedDict):
    fastest: RegimeFastest
    verdicts: dict[str, str]   # family -> verdict at the heaviest scale


class RegimeSummary(TypedDict):  # regime.py summarize
    peer: OursAgainstPeer | None
    heaviest: Heaviest
    cache_edge_bytes: PositiveInt
    T1: RegimeAnswer
    T0: RegimeAnswer


class RegimeFile(Results):
    prompt: str
    n_chars: PositiveInt
    threads: int
    engine: Engine
    model_seed: int
    temperatures: list
    candidates: dict           # family: [[shape, size], ...] the choosing pass tried (Family.candidates)
    sweep: Sweep
    trained_repeats: PositiveInt  # paired repeats at the model as trained (repeats: at every heavier scale)
    choose_repeats: int
    choose_chars: PositiveInt  # characters per run of the choosing pass on the twins (n_chars at the model as trained)
    repeats: int
    roofline: Roofline
    points: list[RegimePoint]  # lightest first
    # the heaviest scale's fastest row at T = 1 against fresh `generate --scale` processes
    fresh_check: FreshCheck | None
    summary: RegimeSummary
