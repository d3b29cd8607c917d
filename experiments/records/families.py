"""families.json (measure/families.py): every drafter family, its rows and sweep from the answer run."""
from typing import Annotated, NotRequired, TypedDict

from experiments.records.base import (Config, ConfigSpeedup, DrafterAlpha, DrafterCoverage, Engine, EveryValue,
                                      Family, MayBeEmpty, PositiveInt, PositiveNum, Range, Results, TimedRow)


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
