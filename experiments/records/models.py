"""models.json, registry.json, and the files of sections ① and ②: causal.json, acceptance.json,
divergence_sweep.json."""
from typing import NotRequired, TypedDict

from experiments.records.base import ModelConfig, PositiveInt, Results, Words


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
