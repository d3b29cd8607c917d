"""mtp.json (the MTP head over seeds) and lab.json (the models of the page's live lab)."""
from typing import NotRequired, TypedDict

from experiments.records.base import MeanStd, ModelConfig, PositiveInt, Results
from experiments.records.models import MtpParts


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
