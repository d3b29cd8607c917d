"""The markers a field's type carries (Positive, FamilyName, …) and the records several results files share
(Meta, Spread, TimedRow, …). How a type reads: experiments/records/__init__.py."""
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
