"""The results files, declared once: every file experiments/measure/ writes and the page reads, as
typed records (TypedDict). The writers build their rows with these types (rows.timed_row returns a
TimedRow); the build (chapter/schema.py) turns each file's record into the dotted paths it checks
the JSON against, and gives the page only the fields declared here. So a field the page reads is
declared here, once; a writer may write more (it stays in the file, the page does not get it).

No torch, and nothing else of ours is imported: the build imports this module without torch.

How a field's type reads:
  float: a number (int or float); int, str, bool; a bare list or dict: its contents are not checked
  Annotated[..., Positive]: above 0 (a time, a size, a count or a price that the page divides by);
    PositiveNum, PositiveInt
  Annotated[str, FamilyName] / Annotated[str, EngineName]: the name of a family / an engine that
    registry.json declares (the page prints every such name through the registry's labels); Family, Engine
  NotRequired[...]: may be absent; `X | None`: may be null (either way, what is there is checked)
  dict[str, X]: every value an X; list[X]: every item an X; both hold at least one, unless MayBeEmpty
  EveryValue(R) on a record: each of its values is an R too (the keys it names carry more)

Probabilities are float64 values that sum to 1; `p` is always the main (target) model and `q`
the draft (Leviathan et al. 2023). Every file carries `meta`: where and how it was measured.
Each file is written by the experiments/measure/<module>.py its comment names.
"""
from typing import Annotated, NotRequired, TypedDict


class Positive:
    """Above 0: a time, a size, a count or a price that the page divides by."""


class FamilyName:
    """A str that names a family registry.json declares."""


class EngineName:
    """A str that names an engine registry.json declares."""


class MayBeEmpty:
    """On a dict or a list: it may hold nothing."""


class EveryValue:
    """On a record keyed by name: each of its values is also a `record` (its named keys add fields)."""

    def __init__(self, record):
        self.record = record


PositiveNum = Annotated[float, Positive]
PositiveInt = Annotated[int, Positive]
Family = Annotated[str, FamilyName]
Engine = Annotated[str, EngineName]


# ---- shared by several files

class Cpu(TypedDict):  # the host CPU (jsonio.cpu_details)
    family: str
    model: str


class Meta(TypedDict):
    device: str
    device_type: str
    cpu: NotRequired[Cpu]      # older files lack it
    threads: int
    torch: str
    date: str
    command: str
    git_commit: str            # the commit checked out when the run started
    git_dirty: bool | None     # tracked files differed from that commit at the start (null: no git)
    seeds: list[int]           # the model seeds this file used (the first one, or all)


class Results(TypedDict):
    meta: Meta


class Spread(TypedDict):  # timing.summary over the repeats
    median: PositiveNum
    min: PositiveNum
    max: PositiveNum
    n: PositiveInt


class RatioSpread(TypedDict):  # timing.summary of ratios over the repeats
    median: float
    min: float
    max: float
    n: int


class MeanStd(TypedDict):  # stats.mean_std
    values: list
    mean: float
    std: float | None          # null for one seed


class Words(TypedDict):  # one phrase in both languages
    zh: str
    en: str


class ModelConfig(TypedDict):
    n_layer: int
    n_embd: int
    n_head: int
    block_size: int
    mlp_hidden: int
    vocab_size: int
    mtp: bool


class Config(TypedDict):  # one configuration of a family
    family: Family
    shape: str                 # chain (size γ) | tree (size = nodes)
    size: int


class ConfigSpeedup(Config):
    speedup: PositiveNum


class RunParts(TypedDict):  # one run taken apart, every part measured inside it (≥ 0, sum = wall)
    main_forwards: PositiveNum  # seconds inside the main model's forwards
    draft_forwards: float      # seconds inside the drafter's (draft model or MTP head)
    other: float               # the rest: sampling, acceptance rule, Python loop


class Parts(TypedDict):  # the same three parts, as seconds or as shares of the wall time
    main_forwards: float
    draft_forwards: float
    other: float


class TimedRow(TypedDict):
    """rows.timed_row: one configuration against plain decoding in one run, engine, scale and temperature."""
    family: Family             # a family registry.json declares (plain, draft, mtp, ngram, ...)
    shape: str                 # chain (size γ) | tree (size = nodes)
    size: int
    engine: Engine             # eager | compiled | aot | native, or the peer library (transformers)
    scale: PositiveNum
    temperature: float
    repeats: PositiveInt
    verdict: str               # faster | slower | unclear: every paired repeat on one side of 1×?
    tokens_per_main: PositiveNum
    accepted_per_proposed: float | None
    accepted_per_main: float
    main_forwards: PositiveNum
    alpha: float | None        # chains: accepted / (accepted + rejected), the ledger's per-draft α
    wall_s: Spread
    speedup: PositiveNum
    speedup_runs: Spread
    parts_s: RunParts
    # the median-wall run per round, over plain decoding's seconds per forward (its median-wall run):
    verify_over_main: PositiveNum  # the main model's verify forward
    drafter_per_round: float   # the drafter
    other_per_round: NotRequired[float | None]  # the rest (sampling, the rule, Python)
    round_total: PositiveNum   # their sum
    plain_per_char: PositiveNum  # plain decoding's median run per character, in the same unit (1 + its rest)
    speedup_from_parts: PositiveNum  # the median run's own chars per forward × plain_per_char / round_total: the two median runs' ratio (tokens_per_main, pooled over the repeats, gives about this)
    greedy_equal: NotRequired[bool]  # T = 0 only: every run wrote plain greedy decoding's text
    c: float | None            # the drafter's time per draft in plain forwards, same run and scale
    speedup_theory: NotRequired[float]  # Theorem 3.8 at the row's α and c (chains)


class FreshCheck(TypedDict):
    """rows.fresh_check: a speedup of the harness against fresh `python -m experiments.generate`
    processes of the same two decoders; every file that holds one, the page prints it (macros fresh_check)."""
    engine: Engine
    temperature: float
    family: Family
    size: int
    scale: PositiveNum
    repeats: PositiveInt
    harness_speedup: PositiveNum
    fresh_speedup: PositiveNum
    tolerance: float           # the fraction they should agree within
    agrees: bool


class DrafterAlpha(TypedDict):  # teacher-forced first-draft Σ min(p, q) of one drafter
    alpha: float | None        # null: no position drafted
    positions: int


class Coverage(TypedDict):
    coverage: float


class DrafterCoverage(TypedDict):  # keyed by drafter (each a DrafterAlpha); these two also say how often they draft
    lookup: Coverage           # share of positions where prompt lookup drafts at all
    suffix: Coverage           # ... where suffix decoding finds a match


class Range(TypedDict):
    min: float
    max: float


# ---- models.json (models.py): every trained run and the data

class DataInfo(TypedDict):
    name: str
    file: str
    chars: int
    vocab_size: int
    sha256: str
    train_chars: int
    val_chars: int


class ValLosses(TypedDict):
    main: float
    mtp: NotRequired[float]    # the MTP head's, main_mtp runs only


class Run(TypedDict):
    kind: str                  # main_mtp | control | draft
    seed: int
    mtp_weight: float          # λ, read from the checkpoint
    steps: int
    params: PositiveInt        # next-token model alone (MTP head excluded)
    params_total: PositiveInt
    config: ModelConfig
    val_loss_full: ValLosses   # mean loss over the whole val split, 64-char windows
    val_loss_train_log: ValLosses  # last eval of the training run (fixed val batches)
    train_wall_s: float
    train_device: str
    train_threads: int
    batch_size: int


class MtpParts(TypedDict):  # parameters of each part of the MTP head
    hidden_norm: int
    embed_norm: int
    proj: int
    block: int
    shared_embedding_head: int
    shared_final_norm: int
    main_blocks: list


class ModelsSummary(TypedDict):
    seed: int                  # the seed the summary describes (the first)
    draft_params_fraction: float  # draft params / main params (next-token parts)


class ModelsFile(Results):
    data: DataInfo
    runs: dict[str, Run]
    mtp_parts: MtpParts
    mtp_depth: int
    mtp_head_params: int
    summary: ModelsSummary


# ---- registry.json (registry.py): every decoding method and engine as experiments/ declares them,
# in the order the page lists them; every name the page prints for one comes from here

class FamilyEntry(TypedDict):
    name: str
    label: Words
    drafts: Words              # where its drafts come from, one phrase
    shapes: list               # chain | tree: what it drafts
    group: str | None          # model | head | feature | table | none: its kind on ⑤'s map, its colour on the dial
    source: str | None         # draft | mtp | heads | corpus | context | self (methods.SOURCES)
    q: str                     # sampled | one-hot
    recent: bool               # one of the 2025–26 methods
    measured: bool             # families.json sweeps it
    training: Words | None     # what building it takes (null: a timed training run)


class EngineEntry(TypedDict):
    name: str
    label: Words
    peer: NotRequired[bool]    # the peer library (transformers), timed beside our engines


class RegistryFile(Results):
    families: list[FamilyEntry]
    engines: list[EngineEntry]


# ---- causal.json (causal.py): section ① — causal masking, kv-cache, one verify step

class PrefixCheck(TypedDict):
    text: str
    n_short: int
    n_full: int
    max_abs_diff: float        # max |Δlogit| over the first 56 positions (float32)
    max_abs_diff_float64: float  # the same with the model in float64
    max_abs_logit: float


class KvcacheCheck(TypedDict):
    n_tokens: int
    max_abs_diff: float
    max_abs_diff_float64: float
    max_abs_logit: float
    how: str


class VerifyRow(TypedDict):
    char: str
    role: str
    top: list                  # [[char, p], ...] next-char distribution per row


class VerifyExample(TypedDict):
    context: str               # 8 real val chars
    gamma: int
    seed: int
    temperature: float
    drafts: list               # the draft model's real proposals, one char each
    p_draft: list
    q_draft: list
    u: list
    n_accepted: int
    next_char: str
    next_kind: str             # resample | bonus
    selection: str
    rows: list[VerifyRow]


class Rollback(TypedDict):
    gamma: int
    seed: int
    n_accepted: int
    length_before: int
    length_after_verify: int
    length_after_rollback: int
    max_abs_diff_vs_rebuilt: float
    equal: bool


class CausalFile(Results):
    prefix_check: PrefixCheck
    kvcache_check: KvcacheCheck
    verify_example: VerifyExample
    rollback: Rollback


# ---- acceptance.json (acceptance.py): section ② — the rule on real positions

class Position(TypedDict):
    kind: str                  # high | typical | low | overweight | uncertain
    context: str
    next_char: str
    p: list
    q: list
    alpha_theory: float        # Σ min(p, q)
    counts: list               # output histogram of the draws through accept_reject
    accept_rate: float
    tv_out_p: float
    tv_q_p: float
    chi2_stat: float
    chi2_dof: int
    chi2_p: float
    overweight_char: str | None  # the char q over-weights; overweight position only


class AcceptanceFile(Results):
    vocab: list
    draws: int
    seed: int
    selection: str
    positions: list[Position]


# ---- divergence_sweep.json (divergence.py): α and KL along the draft's training

class Snapshot(TypedDict):
    step: int
    alpha_mean: float
    kl_mean: float
    tv_mean: float
    accept_rate_sampled: float
    n_samples: int
    draft_val_loss: float


class DivergenceFile(Results):
    n_positions: int
    seed: int
    context: int
    samples_per_position: int
    snapshots: list[Snapshot]
    max_abs_alpha_minus_one_minus_tv: float


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


class GammaRow(TypedDict):  # the draft model at one γ in one mode
    gamma: int
    mode: str
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


class GammaSweepFile(TimedSetup):  # the draft model's rows, γ in {1, 2, 3, 4, 6, 8}
    gammas: list
    c: Modes
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


# ---- families.json (families.py): every drafter family, T = 1 and 0, its rows and sweep from the answer run (regime.json's first point)

class DepthT1(TypedDict):
    eagle: list
    eagle3: list
    block: list
    medusa: list


class DepthT0(TypedDict):
    eagle: list
    eagle3: list


class AlphaByDepth(TypedDict):
    """teacher-forced α of the j-th draft of a chain (probes.alpha_by_depth), keys T1 | T0, then the
    drafter: [depth 1, 2, ...]; windows of `window` chars every `stride`"""
    depth: int
    window: int
    stride: int
    T1: DepthT1
    T0: DepthT0


# what section ⑤'s map prints of any family, where the family has it (families.py family_costs)
class MapCost(TypedDict):
    params: NotRequired[int]
    train_wall_s: NotRequired[float]
    entries: NotRequired[int]
    bytes: NotRequired[int]


class Params(TypedDict):
    params: PositiveInt


class SeedCost(TypedDict):
    params: int
    train_wall_s: float


class TrainedCost(TypedDict):
    params: int
    steps: int
    train_wall_s: float
    by_seed: dict[str, SeedCost]  # every seed with it


class MedusaConfig(TypedDict):
    n_heads: int               # heads: drafts for positions t + 2 .. t + K + 1


class MedusaCost(TrainedCost):
    config: MedusaConfig


class BlockConfig(TypedDict):
    n_masks: int


class BlockCost(TrainedCost):
    config: BlockConfig


class Eagle3Config(TypedDict):
    ttt_steps: int


class Eagle3Cost(TrainedCost):
    config: Eagle3Config


class NgramCost(TypedDict):
    order: int
    contexts: int
    entries: int
    bytes: int


class LookupCost(TypedDict):
    match_chars: int


class LookaheadCost(TypedDict):
    ngram: int


# suffix decoding's index: the training split and its suffix array (one int64 per character)
class SuffixCost(TypedDict):
    corpus_chars: int
    bytes: int
    max_depth: int
    max_occurrences: int
    factor: float


class FamilyCosts(TypedDict):  # keyed by family (each a MapCost), and the main model's parameters
    main_params: PositiveInt
    draft: Params
    mtp: Params
    medusa: MedusaCost
    eagle: TrainedCost
    block: BlockCost
    eagle3: Eagle3Cost
    ngram: NgramCost
    lookup: LookupCost
    lookahead: LookaheadCost
    suffix: SuffixCost


class FamilyRow(TimedRow):
    run: str                   # "regime"


class NodeTop(TypedDict):  # p at one node, top chars
    chars: str
    p: list


class TreeRound(TypedDict):  # one real round of n-gram tree decoding (families.py recorded_trees)
    nodes: int
    context: str
    root_position: int
    tokens: str                # one char per node, the root first
    parents: list
    depths: list
    path: list                 # accepted nodes, top down
    emitted: str               # the accepted chars and the main model's next one
    p_top: list[NodeTop]
    p_at_parent: list          # p of each node's char at its parent
    tokens_per_main: float     # over that whole decode


# keys <k> and <nodes>: that verify forward timed back to back over a one-position forward
class VerifyPrices(TypedDict):
    chain: dict[str, float]
    tree: dict[str, float]


class RoundRow(ConfigSpeedup):  # a row with its round's parts in plain forwards
    tokens_per_main: PositiveNum
    verify_over_main: PositiveNum
    drafter_per_round: float
    other_per_round: float


class DraftingPrice(TypedDict):
    size: int
    drafter_per_round: float


class DraftingByFamily(TypedDict):
    eagle: list[DraftingPrice]
    eagle3: list[DraftingPrice]
    block: list[DraftingPrice]


class Recent(TypedDict):
    """the 2025–26 families (suffix | block | eagle3) against the rest, T = 1: the fastest row of each
    group, and the drafting price per round against γ of EAGLE, EAGLE-3 and the block (the sweep)"""
    engine: Engine
    temperature: float
    new_is_faster: bool
    all_new_slower_than_plain: bool
    plain_per_char: float      # plain decoding's 1 + its rest
    best_new: RoundRow
    best_old: RoundRow
    each_new: dict[str, RoundRow]  # every new family's fastest row
    drafting: DraftingByFamily


class FamilyAtT0(TypedDict):  # a family's best row at T = 1 and at T = 0: its speedups and paired ranges
    family: Family
    speedup_T1: PositiveNum
    speedup_T0: PositiveNum
    runs_T1: dict[str, float]
    runs_T0: dict[str, float]
    at_T0: str                 # faster | slower | unclear (the two ranges overlap)


class TemperatureChange(TypedDict):
    engine: Engine
    families: list[FamilyAtT0]
    faster_at_T0: Annotated[list[Family], MayBeEmpty]
    slower_at_T0: Annotated[list[Family], MayBeEmpty]
    unclear_at_T0: Annotated[list[Family], MayBeEmpty]


class VerifyInLoop(Config):
    """a row's verify price in the decoding loop (its verify_over_main) beside the same forward timed
    back to back in the same run (families.py verify_prices; over a one-position forward):
    in_loop = back_to_back + loop_extra, and for a tree back_to_back = chain_back_to_back + mask_extra"""
    positions: PositiveInt     # new positions in the verify: γ + 1, or the tree's nodes
    in_loop: float
    back_to_back: float
    chain_back_to_back: float  # a chain forward over as many positions (①'s curve, this run)
    loop_extra: float
    mask_extra: NotRequired[float]  # trees: building the tree mask and the nodes' positions


class FastestRound(TypedDict):  # the fastest T = 1 row's round in plain forwards
    total: float               # verify + drafting + the rest
    plain_per_char: float      # plain decoding: 1 forward + its rest
    speedup_from_parts: float  # tokens_per_main × plain_per_char / total
    verify_biggest: bool       # the verify is the largest of the three parts


class SlowestRow(RoundRow):
    round_total: PositiveNum   # verify + drafting + the rest
    plain_per_char: PositiveNum  # plain decoding's, same run


# at T = 1: the rows slower than plain (speedup < 1) and the slowest, its round in plain forwards
class SlowerThanPlain(TypedDict):
    temperature: float
    rows: int
    families: Annotated[list[Family], MayBeEmpty]  # slower in every paired repeat (stats.paired_verdict)
    unclear: NotRequired[Annotated[list[Family], MayBeEmpty]]  # neither side of 1x in every repeat
    slowest: SlowestRow


class ShapeFastest(Config):
    speedup: PositiveNum
    verify_over_main: PositiveNum


class ShapeMostTokens(Config):
    tokens_per_main: PositiveNum


# one shape's fastest configuration and the one with the most characters per main forward
class ShapeSweep(TypedDict):
    fastest: ShapeFastest
    most_tokens: ShapeMostTokens


class SweepShapes(TypedDict):  # the sweep of one family (n-gram) at T = 1, per shape
    family: Family
    temperature: float
    tree: ShapeSweep
    chain: ShapeSweep
    tree_gets_fewer: bool      # the deepest tree emits fewer than the deepest chain


class Memory(TypedDict):
    main_bytes: PositiveInt    # the main model's float32 weights
    ngram_over_main: float     # the n-gram table's bytes over those


class SweepGreedy(TypedDict):  # the T = 0 sweep's greedy check (every run)
    configurations: int
    identical: int
    all_identical: bool


# families.py summarize: the conclusions sections ⑤ and ⑦ print, on the primary engine
class FamiliesSummary(TypedDict):
    primary_engine: Engine
    recent: Recent | None      # null where one group has no row
    temperature_change: TemperatureChange
    fastest_verify: NotRequired[VerifyInLoop]
    tree_verify: NotRequired[dict[str, VerifyInLoop]]
    # the fastest row per temperature (keys T1 | T0): pick it from rows by engine, temperature, family
    fastest: dict[str, ConfigSpeedup]
    fastest_round: NotRequired[FastestRound]  # absent where its rest was not taken apart
    slower_than_plain: NotRequired[SlowerThanPlain]
    sweep_shapes: NotRequired[SweepShapes]
    # the learned drafters' α at T = 1 over model seeds (empty with one seed): keys draft | mtp | medusa | eagle
    alpha_seed_range: Annotated[dict[str, Range], MayBeEmpty]
    memory: Memory
    greedy_check: SweepGreedy


class FamiliesFile(Results):
    prompt: str
    n_chars: PositiveInt
    threads: int
    engines: list[Engine]
    temperatures: list
    alpha_chars: PositiveInt   # chars of each text α is measured on (n_chars: of each timed run)
    families: list[Family]     # draft | mtp | ngram | lookup | suffix | medusa | block | eagle | eagle3 | lookahead
    chain_gammas: list
    tree_sizes: list
    sweep_repeats: int
    repeats: int
    seeds: list
    model_seed: int            # the models every figure but alpha_by_seed is measured on
    alpha_seeds: list          # sampling seeds of the texts α is measured on (T = 1)
    # teacher-forced first-draft Σ min(p, q) on text the main model wrote; keys T1 | T0, then the drafter
    alpha: dict[str, Annotated[DrafterCoverage, EveryValue(DrafterAlpha)]]
    alpha_by_depth: AlphaByDepth
    # α at T = 1 on each model seed with trained Medusa and EAGLE drafters (keys: seed, then drafter)
    alpha_by_seed: dict[str, dict[str, DrafterAlpha]]
    costs: Annotated[FamilyCosts, EveryValue(MapCost)]
    # one chain drafting round (EAGLE | EAGLE-3 | block) of γ drafts over a one-position main
    # forward, back to back; keys: engine, family, then γ
    drafting_prices: dict[str, dict[str, dict[str, float]]]
    # the answer run's rows at the model as trained (regime.json's first point, families.py answer_rows)
    sweep: list[TimedRow]      # its choosing pass: every chain γ and tree size, few repeats
    rows: list[FamilyRow]      # plain and each family's fastest
    tree_rounds: list[TreeRound]  # one per tree size
    verify_prices: NotRequired[dict[str, VerifyPrices]]  # per engine (① prints the trees beside their chains)
    summary: FamiliesSummary


# ---- conditions.json (conditions.py): when speculation pays; the first seed's models, T = 1 unless said

class ConditionConfig(TypedDict):  # one per family, every row below
    shape: str
    size: int
    name: str


class TextStats(TypedDict):  # over one text per sampling seed
    mean: float | None
    min: float | None
    max: float | None
    values: list


class MeanCoverage(TypedDict):
    mean: float


class DraftingShare(TypedDict):  # share of positions where prompt lookup and suffix decoding draft at all
    lookup: MeanCoverage
    suffix: MeanCoverage


class AtTemperature(TypedDict):
    temperature: float
    texts: int
    alpha: dict[str, TextStats]  # teacher-forced first draft, per drafter
    tokens_per_main: dict[str, TextStats]
    coverage: DraftingShare


class TextKind(TypedDict):
    texts: int
    drafters: Annotated[DrafterCoverage, EveryValue(DrafterAlpha)]


class ByLength(TypedDict):  # wall seconds per output length, warm; speedup over plain of the same length and engine
    engine: Engine
    n_chars: PositiveInt
    family: Family
    wall_s: Spread
    speedup: PositiveNum
    main_forwards: float


# a fresh generate process: its wall, the decode's, the rest (start-up) and, within it, building or
# loading the engine's compiled code
class StartUp(TypedDict):
    engine: Engine
    family: Family
    process_s: float
    decode_s: float
    start_up_s: float
    compile_s: float


class Preparation(TypedDict):  # in this process, best of 3: loading each checkpoint, building the n-gram table
    load_main_s: float
    load_draft_s: float
    load_medusa_s: float
    load_eagle_s: float
    load_block_s: float
    load_eagle3_s: float
    ngram_table_s: float
    suffix_index_s: float


class AlphaAt(TypedDict):
    temperature: float
    alpha: float


class TokensAt(TypedDict):
    temperature: float
    tokens_per_main: float


# one drafter's (the draft model's) α and characters per main forward against temperature
class TemperatureSummary(TypedDict):
    drafter: Family
    lowest_alpha: AlphaAt
    other_alpha: Range         # the other T's α
    peak_alpha: AlphaAt        # T > 0
    peak_tokens: TokensAt
    highest: AlphaAt
    rises_from_T0: bool        # peak α > α at T = 0
    falls_past_peak: bool      # α at the highest T < peak α


# T = 1, the drafters with a first draft (prompt lookup aside): held-out text against the main model's own
class TextsSummary(TypedDict):
    val_own_gap: float         # max |α(val) − α(own)|
    val_own_bound: float       # val_own_gap + 0.005, the bound the page prints to 2 digits
    draft_rises_on_repetitive: bool
    lookup_drafts_more_on_val: bool


class PerChar(TypedDict):  # seconds per character at the longest output
    plain: float
    ngram: float


class Payback(TypedDict):
    saves_per_char_s: float
    pays_back_after_chars: float


class LengthsSummary(TypedDict):  # on the conditions' one engine (the dial's)
    shortest: int
    longest: int
    per_char_s: PerChar
    plain_per_char_s: dict[str, float]        # plain decoding per length (a string)
    slower_than_plain: dict[str, list]        # per length: families whose speedup there prints below 1.00×
    # the seconds the n-gram chain saves per character at the longest output, and the characters
    # that repay building its table (null where it saves nothing)
    ngram_table: Payback | None


class ConditionsSummary(TypedDict):  # conditions.py summarize: what section ⑦ and the closing quiz conclude
    engine: Engine             # the one the timings ran on: the dial's answer engine
    temperature: TemperatureSummary
    texts: TextsSummary
    lengths: LengthsSummary


class ConditionsFile(Results):
    prompt: str
    n_chars: PositiveInt
    threads: int
    engine: Engine               # by_length and start_up: the dial's answer engine
    model_seed: int
    configs: dict[str, ConditionConfig]
    temperatures: list
    text_seeds: list
    by_temperature: list[AtTemperature]  # α (teacher-forced first draft) and tokens per main forward
    text_kinds: list
    # α on each kind of text (val | own | repetitive), keys T1 | T0, then the drafter
    by_text: dict[str, dict[str, TextKind]]
    lengths: list
    repeats: int
    by_length: list[ByLength]
    start_up: list[StartUp]
    start_up_how: str
    preparation: Preparation
    summary: ConditionsSummary


# ---- exercises.json (exercises.py): what the four exercises print with their reference answers

class Chi2Exercise(TypedDict):
    context: str
    n: int
    alpha: float
    accepted: float
    tv_output_p: float
    tv_q_p: float
    chi2: float
    dof: int
    p_value: float


class Chi2Rules(TypedDict):  # exercise 1, and a broken rule
    rule: Chi2Exercise
    accept_every_draft: Chi2Exercise


class GammaMeasured(TypedDict):
    alpha: float
    c: float
    theory_gamma: int
    theory_speedup: float
    measured_gamma: int
    measured_speedup: float
    measured_speedup_at_theory_gamma: float


class GammaAtCost(TypedDict):
    alpha: float
    gamma: int
    tokens_per_main: float
    speedup: float


class ByCost(TypedDict):
    c: float
    rows: list[GammaAtCost]


class GammaExercise(TypedDict):
    measured: GammaMeasured
    by_cost: list[ByCost]


class HeadAlphas(TypedDict):
    medusa_head: float
    draft_model: float
    mtp_head: float


class MedusaExercise(TypedDict):
    steps: int
    train_s: float
    untrained: HeadAlphas
    trained: HeadAlphas


class RollbackAnswer(TypedDict):
    passed: bool
    max_abs_diff: float
    length: int
    expected_length: int


class RollbackExercise(TypedDict):
    answer: RollbackAnswer
    no_rollback: RollbackAnswer


class ExercisesSummary(TypedDict):
    gamma_theory_agrees: bool  # exercises.py summarize: theory_gamma == measured_gamma


class ExercisesFile(Results):
    chi2: Chi2Rules
    gamma: GammaExercise
    medusa: MedusaExercise
    rollback: RollbackExercise
    summary: ExercisesSummary


# ---- costs.json (costs.py): one forward's price per engine, kv-cache mode, vs new positions

class EngineSeconds(TypedDict):
    main: PositiveNum
    draft: PositiveNum
    mtp_head: PositiveNum
    positions: dict[str, PositiveNum]  # keys: the positions above


class PositionsSpread(TypedDict):
    positions: dict[str, Spread]  # over the repeats


class EngineCosts(TypedDict):
    seconds: EngineSeconds
    spread: PositionsSpread
    c: float
    c_mtp: float
    c_pair: dict[str, float]
    c_mtp_pair: dict[str, float]
    over_main: dict[str, PositiveNum]  # n positions / 1 position: median of the paired repeats
    over_main_spread: dict[str, Spread]  # the paired ratios over the repeats


class Flatness(TypedDict):  # costs.py summarize, one engine
    flat_until: int            # most positions within flat_slack of one (costs.py flat_until)
    flat_slack: float
    over_main_last: float      # the last: 64 positions / 1
    flat_start: bool           # flat_until > 1: a second position is (nearly) free


class CostsSummary(TypedDict):  # per engine, then over the engines
    eager: Flatness
    compiled: NotRequired[Flatness]
    aot: NotRequired[Flatness]
    native: NotRequired[Flatness]
    primary_engine: Engine     # compiled where it ran, else eager
    flat_until_max: int        # the largest flat_until of the engines
    flat_start: bool           # flat_until_max > 1


class CostsFile(Results):
    positions: list[PositiveInt]  # new positions per main forward: 1, 2, 3, 4, 6, ... 64
    repeats: int
    calls_per_repeat: int
    threads: int
    how: str
    engines: dict[str, EngineCosts]
    summary: CostsSummary


# ---- mtp.json (mtp.py): the MTP head over seeds

class MtpParams(MtpParts):
    mtp_head_total: PositiveInt
    main_total: PositiveInt


class LossCurve(TypedDict):
    main: list
    mtp: NotRequired[list]


class Curve(TypedDict):
    step: list
    val: LossCurve
    train: LossCurve
    wall_s: float


class ValLossOverSeeds(TypedDict):
    main_mtp: MeanStd
    control: MeanStd
    mtp_head: MeanStd
    draft: MeanStd


class AlphaOverSeeds(TypedDict):
    mtp: MeanStd
    draft: MeanStd
    mtp_val: MeanStd
    draft_val: MeanStd


class PairedVerdict(TypedDict):  # the paired t-test, with MTP loss − control, per seed (stats.py paired_t_test)
    differences: list
    mean_difference: float
    n_seeds: int
    test: str                  # the test, in one sentence
    df: int | None             # n − 1; null (like all below) for a single seed
    standard_error: float | None
    t: float | None
    t_critical: float | None   # two-sided 95% of Student's t (4.303 for df 2)
    p: float | None
    ci95: list | None          # [lo, hi] of the mean difference
    beyond_seed_noise: bool | None  # |t| > t_critical


class SampleStep(TypedDict):  # one main forward
    emitted: list
    n_accepted: int
    next_from: str
    accepted: bool
    draft: str | None          # null on a forward with no draft
    p_draft: float | None
    q_draft: float | None
    u: float | None


class Sample(TypedDict):
    text: str
    prompt: str
    n_chars: int
    temperature: float
    seed: int
    mode: str
    main_forwards: int
    accepted: int
    proposed: int
    steps: list[SampleStep]


class MtpSummary(TypedDict):  # what the section's prose quotes (mtp.py)
    mtp_ahead_generated: bool  # MTP head's α > small draft's, on generated text
    mtp_ahead_val: bool        # ... on real val text (Σmin(p, q))
    alpha_order_flips: bool    # the two rankings differ
    mtp_loss_lower: bool       # mean val loss: the main model with the MTP loss below the control
    head_minus_main_loss: float  # mean val loss: MTP head − main model
    train_chars_seen: PositiveInt  # steps × batch × block_size of the main model


LossWeight = TypedDict("LossWeight", {"lambda": float})  # the MTP loss weight, read from the checkpoint


class MtpFile(Results, LossWeight):
    seeds: list[int]
    depth: int
    params: MtpParams
    curves: dict[str, Curve]
    val_loss: ValLossOverSeeds
    alpha: AlphaOverSeeds
    alpha_how: str
    verdict: PairedVerdict
    sample: Sample
    summary: MtpSummary


# ---- lab.json (lab.py): the first seed's models for the page's live lab (section ⑧), as float16
# weights and the n-gram table's counts, each gzip + base64 ("blob"); build.py puts it in its own
# <script id="lab-data">, parsed only when the lab comes into view

class Tensor(TypedDict):
    name: str
    shape: list
    offset: int


class LabModel(TypedDict):
    config: ModelConfig
    params: int                # every weight, the MTP head's included
    tensors: list[Tensor]
    blob: str


class LabNgram(TypedDict):
    order: int
    contexts: int
    pairs: int
    next_bytes: int
    char_bytes: int
    count_bytes: int
    blob: str
    built_from: str


class RoundingChange(TypedDict):
    max_abs_logit: float
    max_tv: float
    argmax_agree: float
    positions: int


class MainRounding(TypedDict):
    model: RoundingChange
    mtp: RoundingChange


class DraftRounding(TypedDict):
    model: RoundingChange


class Rounding(TypedDict):  # what rounding the weights to float16 changes, on the checked val text (T = 1)
    main: MainRounding
    draft: DraftRounding


class LabFile(Results):
    vocab: str
    model_seed: int
    check_chars: int
    main: LabModel
    draft: LabModel
    ngram: LabNgram
    rounding: Rounding


# every results file the page reads, in the order the build reads them
RESULTS_FILES = {
    "models.json": ModelsFile,
    "registry.json": RegistryFile,
    "causal.json": CausalFile,
    "acceptance.json": AcceptanceFile,
    "divergence_sweep.json": DivergenceFile,
    "ledger.json": LedgerFile,
    "gamma_sweep.json": GammaSweepFile,
    "ladder.json": LadderFile,
    "regime.json": RegimeFile,
    "families.json": FamiliesFile,
    "conditions.json": ConditionsFile,
    "exercises.json": ExercisesFile,
    "costs.json": CostsFile,
    "mtp.json": MtpFile,
    "lab.json": LabFile,
}
