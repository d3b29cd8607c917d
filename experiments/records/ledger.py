"""ledger.json and gamma_sweep.json (measure/ledger.py), and ladder.json (measure/regime.py): the timed
decoders of every engine as trained."""
from typing import NotRequired, TypedDict

from experiments.records.base import (Config, Engine, Family, FreshCheck, Parts, PositiveInt, PositiveNum,
                                      RatioSpread, Results, RunParts, Spread, TimedRow)


# ---- ledger.json and gamma_sweep.json (ledger.py): every decoder from "ROMEO:\n", both modes, timed

class ForwardSeconds(TypedDict):
    main: PositiveNum
    draft: PositiveNum
    mtp_head: PositiveNum
    verify: dict[str, PositiveNum]  # main verifying 1 + γ tokens, keys "1".."8"


class DraftPair(TypedDict):
    draft: PositiveNum
    main: PositiveNum


class MtpPair(TypedDict):
    mtp_head: PositiveNum
    main: PositiveNum


class ForwardCosts(TypedDict):  # ledger.forward_costs: seconds per forward in one mode
    seconds: ForwardSeconds
    c: PositiveNum             # draft / main: the median repeat's ratio (costs.median_pair)
    c_pair: DraftPair          # the two times of that repeat: c = draft / main exactly
    c_mtp: PositiveNum         # MTP head / main, the same way
    c_mtp_pair: MtpPair
    verify_over_main: dict[str, PositiveNum]
    verify_over_main_spread: dict[str, RatioSpread]  # the same ratio's median, min and max over the repeats


class TimedSetup(Results):  # how ledger.json's and gamma_sweep.json's decoders were timed
    prompt: str
    n_chars: PositiveInt
    temperature: float
    repeats: PositiveInt
    warmup: int
    threads: int
    seeds: list                # the sampling seeds of the repeats (not model seeds)
    gamma_max: PositiveInt     # γmax, the longest draft chain measured
    forward_costs: dict[str, ForwardCosts]  # keys recompute | kvcache


class Burst(TypedDict):  # rounds with 0..γ drafts accepted against the geometric law at the row's α
    expected: list
    chi2: float
    dof: int
    p: float | None            # null at γ = 1 (no degrees of freedom)


class LedgerRow(TypedDict):  # ledger.py ledger_row: one method in one mode and engine
    method: Family             # plain | draft | mtp
    mode: str                  # recompute | kvcache
    engine: Engine             # eager | compiled (experiments/engine.py)
    gamma: int                 # 0 for plain
    repeats: PositiveInt
    main_forwards: PositiveNum  # per run, mean over the repeats
    draft_forwards: float
    draft_forwards_per_main: float  # drafter forwards per main forward (per round)
    tokens_per_main: PositiveNum
    alpha: float | None        # measured per-draft acceptance; null for plain
    wall_s: Spread
    wall_s_runs: list
    speedup: PositiveNum       # median plain wall / median wall, same mode
    speedup_runs: Spread       # plain / row, repeat by repeat (same seed)
    parts_s: RunParts          # the median-wall repeat taken apart
    parts_share: Parts         # each part / that run's wall time
    parts_repeat: int          # which repeat (index into wall_s_runs)
    # that repeat's own main forwards (absent in files measured before it was kept)
    parts_main_forwards: NotRequired[int]
    parts_how: str             # how the parts were measured, in one sentence
    forward_time_s: float      # parts_s.main_forwards + parts_s.draft_forwards
    overhead_s: float          # parts_s.other
    overhead_per_main_forward_s: float  # parts_s.other / that run's main forwards
    tokens_per_main_expected: NotRequired[float]  # (1 - α^{γ+1}) / (1 - α); not for plain
    speedup_theory: NotRequired[float]  # Theorem 3.8 at the row's α and c; not for plain
    c_used: NotRequired[float]
    # rₖ at k = γ + 1, timed back to back before the runs (forward_costs), not in the loop
    verify_over_main: NotRequired[float]
    run_lengths: NotRequired[list]  # rounds with 0..γ drafts accepted
    burst: NotRequired[Burst]


class GreedyCheck(TypedDict):  # speculative greedy decoding against plain greedy decoding
    method: Family
    gamma: int
    chars_compared: int
    equal: bool
    first_mismatch: int | None  # the first char that differs; null: all identical


class ModeGreedyCheck(GreedyCheck):
    mode: str


class LedgerBest(TypedDict):
    method: Family
    gamma: int
    speedup: PositiveNum


class CompiledForwardCosts(ForwardCosts):
    c_round: dict[str, float]  # a compiled draft round / γ / main forward, keys γ


class CompileSeconds(TypedDict):  # seconds per graph, "kind/size"
    main: dict
    draft: dict


class Compiled(TypedDict):  # the compiled engine, kv-cache mode
    rows: list[LedgerRow]
    forward_costs: CompiledForwardCosts
    greedy_check: list[GreedyCheck]
    plain_greedy_first_mismatch: int | None  # compiled vs eager plain greedy; null: identical
    fastest: LedgerBest
    compile_s: CompileSeconds


class PeerMismatches(TypedDict):  # the first char that differs from our plain greedy text; null: identical
    plain: int | None
    assisted: int | None
    lookup: int | None


class PeerCheck(TypedDict):
    chars: int                 # val chars fed to both (past the sliding window)
    max_abs_logit_diff: float  # converted Mistral vs our kv-cache forward, float32
    greedy_first_mismatch: PeerMismatches


class PeerRow(TypedDict):
    method: str                # plain | assisted | lookup
    gamma: int
    main_forwards: float
    draft_forwards: float
    tokens_per_main: float
    wall_s: Spread
    speedup_own: float         # its plain / it (median wall)
    over_ours_eager: float     # our eager kv-cache plain / it
    over_ours_compiled: float | None  # our compiled plain / it
    parts_s: Parts


class Peer(TypedDict):  # transformers on the same weights (ledger.py peer_runs / peer_row)
    library: str
    version: str
    gamma: int                 # drafts per round
    check: PeerCheck
    rows: list[PeerRow]


class FewestMainForwards(TypedDict):
    method: Family
    gamma: int
    mode: str
    main_forwards_saved: float  # 1 − its main forwards / plain's
    draft_over_plain_forwards: float  # its drafter s / plain's forward s
    drafts_exceed_plain_forwards: bool  # draft_over_plain_forwards > 1


class CompiledSummary(TypedDict):  # the compiled engine's fastest row against compiled plain and eager
    beats_plain: bool          # compiled.fastest.speedup ≥ 1
    helps_less_than_eager: bool  # its speedup < the fastest eager kv-cache row's
    below_theory: bool         # its speedup < its Theorem 3.8
    verify_s: float            # its main forwards' seconds in the median run / their count
    plain_s: float             # the same for compiled plain decoding
    verify_over_plain: float   # verify_s / plain_s
    back_to_back: RatioSpread  # rₖ (k = γ + 1) of its verify timed back to back (compiled.forward_costs)
    loop_extra_clear: bool     # verify_over_plain > back_to_back.max
    loop_verify_flat: bool     # stats.is_flat(verify_over_plain): ≤ 1 + FLAT_SLACK (1.15)
    greedy_equal: int
    greedy_checks: int


class PeerSummary(TypedDict):  # transformers' plain decoding per character against our eager one
    greedy_identical: int      # its methods whose greedy text is our plain greedy text
    forward_s: float           # median run, per main forward
    other_s: float
    ours_forward_s: float
    ours_other_s: float
    forward_gap_s: float       # theirs − ours
    other_gap_s: float
    gap_mostly_in_forwards: bool  # forward_gap_s > other_gap_s


class LedgerSummary(TypedDict):  # what the section's prose quotes (ledger.py ledger_summary)
    fewest_main_forwards: FewestMainForwards
    fastest: dict[str, LedgerBest]
    greedy_equal: int
    greedy_checks: int
    greedy_all_equal: bool     # every greedy check identical
    # recompute: verifying γmax drafts is flat (stats.is_flat: ≤ 1.15 one-position forwards)
    recompute_verify_flat: bool
    compiled: NotRequired[CompiledSummary]  # absent without the compiled engine
    peer: NotRequired[PeerSummary]  # absent without the [peer] extra


class LedgerFile(TimedSetup):
    rows: list[LedgerRow]
    greedy_check: list[ModeGreedyCheck]
    engines: list[Engine]      # the engines measured: eager, and compiled where it compiled
    compiled: NotRequired[Compiled]  # absent when it could not compile or was not asked for
    peer: NotRequired[Peer]    # absent without the [peer] extra
    summary: LedgerSummary


class Modes(TypedDict):
    kvcache: float
    recompute: float


class GammaRow(TypedDict):  # the draft model at one γ in one mode, on that mode's lane
    gamma: int
    mode: str
    engine: Engine             # the mode's lane (GammaSweepFile.engines)
    repeats: PositiveInt       # timed runs, sampling seeds 0 .. repeats − 1 (the native lane runs more than the ledger)
    alpha: float
    tokens_per_main: float
    tokens_per_main_expected: float  # (1 - α^{γ+1}) / (1 - α) at the measured α
    speedup: float
    speedup_runs: Spread
    wall_s: Spread
    speedup_theory: float      # Theorem 3.8 with the measured α and c
    run_lengths: list          # rounds with 0..γ drafts accepted
    burst: Burst               # the same under the geometric law at the row's α


class EndCount(TypedDict):
    observed: int
    expected: float


class BurstEnds(TypedDict):
    zero: EndCount             # rounds with 0 accepted
    full: EndCount             # rounds with all γ


class PooledBurst(TypedDict):  # one pooled chi-square per mode over the rows with γ ≥ 2; its verdict words the page
    rows: int
    chi2: float
    dof: int
    p: float
    level: float               # the test's level, 0.05
    ends: BurstEnds
    verdict: str               # geometric (p ≥ level) | both_ends_high | differs


class RowsBelow(TypedDict):  # speedup < Theorem 3.8
    rows_below: int
    rows: int


class GammaBest(TypedDict):
    gamma: int
    alpha: float
    speedup: float
    gain_of_last_draft: float  # α^γmax: what γmax − 1 → γmax adds at that α


class ForwardGain(TypedDict):  # recompute / kv-cache seconds per forward
    main: float
    draft: float


class GammaSummary(TypedDict):  # what the section's prose quotes (ledger.py gamma_summary)
    max_tokens_deviation: float  # max |measured / expected tokens per main forward − 1|
    rows_below_expected_tokens: int
    rows: int
    all_below_expected_tokens: bool  # every row emitted fewer than the formula expects
    tokens_drops: int          # neighbouring γ rows where the longer chain emitted fewer (ledger.tokens_drops)
    below_theory: dict[str, RowsBelow]
    fastest: dict[str, GammaBest]
    kvcache_forward_gain: ForwardGain
    c_with_cache: str          # larger | smaller | same: c with the cache against recompute


class Lanes(TypedDict):  # the engine each mode's rows ran on
    kvcache: Engine            # the answer engine (native) where it builds, else eager
    recompute: Engine          # eager: the only engine with that mode


class GammaSweepFile(TimedSetup):  # the draft model's rows: kv cache γ = 1..γmax, recompute γ in {1, 2, 3, 4, 6, 8}
    engines: Lanes
    gammas: list               # every γ of the rows
    c: Modes                   # c of each mode's lane (lane_costs[mode].c); forward_costs are the eager engine's
    lane_costs: dict[str, ForwardCosts]  # keys recompute | kvcache: the forward prices of each mode's lane
    rows: list[GammaRow]
    burst_pooled: dict[str, PooledBurst]
    summary: GammaSummary


# ---- ladder.json (regime.py, the answer run's first point): section ⑥'s engine ladder, the same
# decoders on every engine measured, from the most per-call overhead to the least (eager, compiled,
# aot, native: 1 to 4 rungs)

class RungRow(TimedRow):  # speedup: over this engine's own plain decoding (medians), paired repeat by repeat
    chars_per_s: PositiveNum   # n_chars / median wall


class Rung(TypedDict):
    engine: Engine
    verify_price: dict[str, PositiveNum]  # r_k: a forward on k new positions / one on 1, back to back; keys "1".."9"
    plain: RungRow             # plain decoding on this engine
    best: RungRow              # the fastest speculative configuration on this engine, timed interleaved with plain
    rows: list[TimedRow]       # every family's fastest on this engine (the native rung's: the dial's)


class VerifyAt(TypedDict):  # the best row's verify: its positions and their price (r at those positions)
    positions: int
    price: float


class Round(TypedDict):  # the best row's round, in plain forwards of its engine
    verify: float
    drafting: float
    other: float


class LadderAnswer(TypedDict):  # regime.py ladder_summary at one temperature
    verify_at: int             # k of the verify whose price every rung is compared at
    verify_prices: dict[str, float]  # engine: r at verify_at
    # the fields that may be absent need the reference rung and another after it
    overhead_gain: NotRequired[float]  # the last rung's plain chars/s over the reference's (the bars' ratio)
    speculation_gain: NotRequired[float]  # the reference rung's best row over its own plain
    overhead_beats_speculation: NotRequired[bool]  # overhead_gain > speculation_gain
    best_over_reference: NotRequired[float]  # the last rung's best row chars/s over the reference's plain
    speculation_last: NotRequired[float]  # the last rung's best row over its own plain
    speculation_grows: NotRequired[bool]  # speculation_last > speculation_gain
    verify_ref: NotRequired[VerifyAt]  # on the reference rung
    verify_last: NotRequired[VerifyAt]  # on the last
    fastest_ref: NotRequired[Config]  # the reference rung's fastest row, whose round round_ref is
    fastest_last: NotRequired[Config]
    round_ref: NotRequired[Round]
    round_last: NotRequired[Round]
    growth: NotRequired[Round]  # round_last - round_ref, part by part
    # the part that grew most (verify | drafting | other), or those that grew alike (regime.grew_most)
    grew_most: NotRequired[list[str]]


class LadderSummary(TypedDict):
    reference: Engine
    T1: LadderAnswer
    T0: LadderAnswer


class LadderFile(Results):
    prompt: str
    n_chars: int
    threads: int
    repeats: int
    engines: list[Engine]      # the rungs, in ladder order
    reference: Engine          # the rung the summary compares with (compiled where measured)
    temperatures: list[float]  # [1.0, 0.0]: rungs and summary are keyed T1 | T0
    rungs: dict[str, list[Rung]]  # per temperature, one rung per engine in the order above
    summary: LadderSummary
    fresh_check: FreshCheck | None  # the last rung's best row at T = 0 against fresh generate processes
