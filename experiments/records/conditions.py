"""conditions.json (when speculation pays), exercises.json (the exercises' printed answers) and
costs.json (one forward's price per engine)."""
from typing import Annotated, NotRequired, TypedDict

from experiments.records.base import (DrafterAlpha, DrafterCoverage, Engine, EveryValue, Family, PositiveInt,
                                      PositiveNum, Range, Results, Spread)


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
