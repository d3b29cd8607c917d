"""Every decoding method, in one place: what it is (one Family record each, FAMILIES), how it is
built from the trained models and its options, and what it accepts. `generate`, every measurement,
the tests and, through registry.json, the page read methods from here.

A method runs as a chain (up to γ drafts per main forward, speculative.speculative_decode) or
as a token tree (`tree` nodes per main forward, speculative.tree_decode); plain decoding is
neither. The options are those of `python -m experiments.generate`:
- gamma: drafts per round of a chain (MTP: 1; Medusa: at most its heads); lookahead: its window;
- tree: nodes of a token tree per verify (None: a chain);
- order: the n-gram table's order (contexts of up to order − 1 characters, for ngram and for
  match's fill); prompt lookup matches the last order − 1 characters; lookahead harvests n-grams
  of `order` characters.
"""
import copy
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch

from experiments.cli import UsageError
from experiments.engine import Plan, check_engine, make_runner
from experiments.heads import load_drafter, pair_logits
from experiments.lookahead import Lookahead
from experiments.ngram import (DEFAULT_ORDER, MAX_ORDER, LookupDrafter, MatchDrafter, NgramDrafter, NgramTable,
                               PromptLookup)
from experiments.model import CheckpointError, load_checkpoint
from experiments.runners import Drafter, ModelDrafter
from experiments.runs import RUNS, run_name
from experiments.speculative import Result, check_gamma, check_tree, plain_decode, speculative_decode, tree_decode
from experiments.suffix import MAX_OCCURRENCES, SuffixDrafter, SuffixIndex

SOURCES = {  # where a family's drafts come from, and so what it needs besides the main model
    None: "no drafts (plain decoding)",
    "draft": "a draft model of its own (Models.draft)",
    "mtp": "the main model's MTP module, trained with it",
    "heads": "a drafter trained on the frozen main model (experiments/heads.py; Models.heads)",
    "corpus": "the training text (Models.train_tokens): a table or an index built from it",
    "context": "the text so far (prompt and output): nothing to train or store",
    "self": "the main model's own guesses (no drafter)",
}


@dataclass(frozen=True)
class Family:
    """One decoding method, declared once: everything `generate`, the measurements, the schema and
    the page need to know about it. `register` adds one; the rest of the code reads FAMILIES.

    label, drafts: {"zh", "en"} — its name as the page prints it, and one phrase on where its
      drafts come from ({names} filled in from terms(models));
    chain, tree: whether it drafts chains (speculative_decode) and/or token trees (tree_decode);
    group: what kind of drafter it is on ⑤'s map, which gives its colour on the dial (model, head,
      feature, table; none: no drafter of its own; plain decoding has none);
    source: a key of SOURCES; q: "sampled" (drafts drawn from a distribution q) or "one-hot"
      (copied drafts: q(x) = 1, accepted with probability p(x));
    order, min_order: the default and least order of its n-gram (None: it has none);
    max_gamma: the most drafts of a chain (MTP: 1, depth 1; a trained head's own limit is its max_drafts);
    recent: one of the 2025–26 methods (section ⑤'s "what changed"); measured: families.json sweeps it;
    optional: a trained drafter that load_models skips where its checkpoint is missing;
    build(spec, models, mode, engine, temperature) -> a fresh Drafter for one decode;
    prepare(spec, models): what check() builds up front so that no timed decode builds it;
    first_draft: how its first draft is scored teacher-forced (probes.alpha_along): "propose" (one
      propose() per position), a function (models, ids, main_pass, start) -> logits [len − start, V]
      for a network (main_pass: the main model's logits, every layer's output, its last), or None;
    training: {"zh", "en"} what building it takes, where that is not a timed training run;
    terms(models) -> the numbers `drafts` names;
    config: (shape, size), the configuration a measurement times when it times one per family
      (conditions.json): a chain of γ = size or a tree of `size` nodes;
    candidates: the (shape, size) configurations the chapter's answer run (measure/regime.py)
      chooses its fastest from, on every engine and scale."""
    name: str
    label: dict
    drafts: dict
    chain: bool = False
    tree: bool = False
    group: str | None = None
    source: str | None = None
    q: str = "sampled"
    order: int | None = None
    min_order: int = 1
    max_gamma: int | None = None
    recent: bool = False
    measured: bool = True
    optional: bool = False
    build: Callable | None = None
    prepare: Callable | None = None
    first_draft: Callable | str | None = None
    training: dict | None = None
    terms: Callable | None = None
    config: tuple | None = ("chain", 4)
    candidates: tuple = ()

    def choices(self) -> tuple:
        """The configurations to choose among: its candidates, else the one it is timed in (config)."""
        return self.candidates or ((self.config,) if self.config else ())

    def record(self, models=None):
        """What the page reads of it (registry.json): no functions; `drafts` with its terms filled in."""
        terms = self.terms(models) if self.terms and models is not None else {}
        return {"name": self.name, "label": self.label,
                "drafts": {lang: text.format(**terms) for lang, text in self.drafts.items()},
                "shapes": [shape for shape, on in (("chain", self.chain), ("tree", self.tree)) if on],
                "group": self.group, "source": self.source, "q": self.q, "order": self.order, "recent": self.recent,
                "measured": self.measured, "training": self.training}


FAMILIES: dict[str, Family] = {}  # name -> Family, in the order the page lists them


def register(family: Family) -> Family:
    """Add a family (or replace one of the same name): generate, check, drafter, the probes, the
    measurements and the page's registry pick it up from here."""
    FAMILIES[family.name] = family
    return family


def family(name: str) -> Family:
    if name not in FAMILIES:
        raise ValueError(f"method must be one of {', '.join(FAMILIES)}, got {name!r}")
    return FAMILIES[name]


def names(**wanted) -> tuple[str, ...]:
    """The registered families whose fields equal `wanted` (names(chain=True), names(source="heads")),
    in FAMILIES order."""
    return tuple(name for name, f in FAMILIES.items() if all(getattr(f, k) == v for k, v in wanted.items()))


def orders() -> dict[str, int]:
    """{family: its default order} of the families with an n-gram."""
    return {name: f.order for name, f in FAMILIES.items() if f.order is not None}


def heads_drafter(spec, models, mode, engine, temperature):
    heads = models.heads[spec.method]
    return heads.tree_drafter() if spec.tree is not None else heads.chain_drafter(mode, engine, spec.gamma)


def model_drafter(spec, models, mode, engine, temperature):
    """The draft model sees 1 or 2 new tokens per round; a whole round is one compiled graph."""
    return ModelDrafter(make_runner(models.draft, Plan(mode, sizes=(1, 2), margin=spec.gamma, round=(spec.gamma, temperature)),
                                    engine))


def draft_first(models, ids, main_pass, start):
    return models.draft(ids, models.draft.new_cache())[0][0, start - 1:-1]


def heads_first(kind):
    """A trained head's first draft, teacher-forced: the kind's own probe (heads.py first_draft_logits)."""
    return lambda models, ids, main_pass, start: models.heads[kind].first_draft_logits(ids, main_pass, start)


def head_config(kind, key):
    return lambda models: {key: getattr(models.heads[kind].cfg, key)}


NONE = {"zh": "无", "en": "none"}
for _family in [
    Family("plain", {"zh": "普通解码", "en": "plain decoding"}, {"zh": "没有草稿", "en": "no drafts"},
           measured=False, training=NONE, config=None),
    Family("draft", {"zh": "草稿模型", "en": "draft model"},
           {"zh": "独立的小模型，自回归地猜", "en": "a separate small model, guessing autoregressively"},
           group="model", chain=True, source="draft", build=model_drafter, first_draft=draft_first,
           candidates=(("chain", 2), ("chain", 3), ("chain", 4), ("chain", 6))),
    Family("mtp", {"zh": "MTP 头", "en": "MTP head"},
           {"zh": "主模型身上的一个模块，读 hₜ 和下一个字", "en": "a module on the main model reading hₜ and the next character"},
           group="head", chain=True, source="mtp", max_gamma=1, config=("chain", 1),
           build=lambda spec, models, mode, engine, temperature: make_runner(models.main, Plan(mode, sizes=(1, 2), mtp=True), engine),
           first_draft=lambda models, ids, main_pass, start: pair_logits(models.main, ids, main_pass[2], models.main.mtp, start),
           training={"zh": "和主模型一起训练（λ）", "en": "with the main model (λ)"},
           candidates=(("chain", 1),)),
    Family("ngram", {"zh": "n-gram 表", "en": "n-gram table"},
           {"zh": "在训练集里统计每段上下文（最多 {context} 字）之后各字出现的频率",
            "en": "how often each character follows each context of up to {context} characters in the training text"},
           group="table", chain=True, tree=True, source="corpus", order=DEFAULT_ORDER,
           build=lambda spec, models, *_: NgramDrafter(models.table(spec.order_or_default())),
           prepare=lambda spec, models: models.table(spec.order_or_default()), first_draft="propose",
           training={"zh": "数一遍训练集", "en": "one pass counting the training text"},
           terms=lambda models: {"context": DEFAULT_ORDER - 1},
           candidates=(("chain", 3), ("chain", 5), ("chain", 8))),
    Family("lookup", {"zh": "提示查找", "en": "prompt lookup"},
           {"zh": "在已写文本里找最后 {match} 个字上次出现的地方，抄它后面的字",
            "en": "finds where the last {match} characters appeared before in the text so far and copies what followed"},
           group="table", chain=True, tree=True, source="context", q="one-hot", order=4, min_order=2,  # matches the last 3 chars
           build=lambda spec, models, *_: LookupDrafter(PromptLookup(spec.order_or_default() - 1, models.vocab_size)),
           first_draft="propose", training=NONE, terms=lambda models: {"match": FAMILIES["lookup"].order - 1},
           candidates=(("chain", 4), ("chain", 8))),
    # copies the longest earlier match of at least 6 characters, then drafts from the table of its order
    Family("match", {"zh": "最长匹配 + n-gram", "en": "longest match + n-gram"},
           {"zh": "抄已写文本里最长的一段匹配，抄完再查 n-gram 表",
            "en": "copies the longest earlier match in the text so far, then drafts from the n-gram table"},
           group="table", chain=True, source="corpus", order=DEFAULT_ORDER, measured=False,
           build=lambda spec, models, *_: MatchDrafter(models.table(spec.order_or_default())),
           prepare=lambda spec, models: models.table(spec.order_or_default()),
           training={"zh": "数一遍训练集", "en": "one pass counting the training text"}),
    Family("suffix", {"zh": "后缀解码", "en": "suffix decoding"},
           {"zh": "文本末尾在训练集或已写文本里出现过的最长一段（至多 {depth} 字），取它至多 {occurrences} 处出现之后跟着的字，长成一棵树（链取最常见的一枝）",
            "en": "the longest tail of the text (up to {depth} characters) seen in the training text or the output, "
                  "grown into a tree of what followed up to {occurrences} of its occurrences (a chain: the likeliest branch)"},
           group="table", chain=True, tree=True, source="corpus", q="one-hot", recent=True,
           build=lambda spec, models, *_: SuffixDrafter(models.suffix_index()),
           prepare=lambda spec, models: models.suffix_index(), first_draft="propose",
           training={"zh": "给训练集建一个后缀数组", "en": "one suffix array over the training text"},
           terms=lambda models: {"depth": models.suffix_index().max_depth, "occurrences": MAX_OCCURRENCES},
           candidates=(("chain", 4), ("chain", 8))),
    Family("medusa", {"zh": "Medusa 头", "en": "Medusa heads"},
           {"zh": "接在主模型最后一层隐状态上的 {n_heads} 个残差头，同时猜后面 {n_heads} 个位置",
            "en": "{n_heads} residual heads on the main model's last hidden state, guessing the next {n_heads} positions at once"},
           group="head", chain=True, tree=True, source="heads", build=heads_drafter, first_draft=heads_first("medusa"),
           terms=head_config("medusa", "n_heads"), config=("chain", 3),
           candidates=(("chain", 3),)),
    Family("block", {"zh": "块并行草稿器", "en": "block-parallel drafter"},
           {"zh": "一个 Transformer 块读 [hₜ；下一个字] 和 {n_masks} 个可学习的掩码位置，一次调用给出全部草稿",
            "en": "one transformer block over [hₜ; the next character] and {n_masks} learned mask positions: every draft from one call"},
           group="head", chain=True, tree=True, source="heads", recent=True, optional=True, build=heads_drafter, first_draft=heads_first("block"),
           terms=head_config("block", "n_masks"),
           candidates=(("chain", 4), ("chain", 8))),
    Family("eagle", {"zh": "EAGLE 草稿层", "en": "EAGLE drafter"},
           {"zh": "一层 Transformer，读主模型特征、预测下一个特征，可以接着自己往下猜",
            "en": "one transformer layer that reads the main model's features and predicts the next one, so it can keep drafting on its own"},
           group="feature", chain=True, tree=True, source="heads", build=heads_drafter, first_draft=heads_first("eagle"),
           candidates=(("chain", 3), ("chain", 5))),
    Family("eagle3", {"zh": "EAGLE-3 草稿层", "en": "EAGLE-3 drafter"},
           {"zh": "EAGLE 那一层改为读取主模型全部 {layers} 层输出的融合特征，只学字的分布，训练时还喂它自己的草稿",
            "en": "EAGLE's layer reading a fusion of all {layers} of the main model's layer outputs, trained on tokens only and on its own drafts"},
           group="feature", chain=True, tree=True, source="heads", recent=True, optional=True, build=heads_drafter,
           first_draft=heads_first("eagle3"), terms=lambda models: {"layers": models.main.cfg.n_layer},
           candidates=(("chain", 3), ("chain", 5))),
    Family("lookahead", {"zh": "前瞻解码", "en": "lookahead decoding"},
           {"zh": "没有草稿员：Jacobi 迭代的猜测加上从轨迹里收集的 {ngram}-gram",
            "en": "no drafter: Jacobi-iteration guesses plus {ngram}-grams harvested from their trajectory"},
           group="none", tree=True, source="self", q="one-hot", order=3, min_order=2, config=("tree", 16),
           build=lambda spec, models, *_: Lookahead(*lookahead_shape(spec)), training=NONE,
           terms=lambda models: {"ngram": FAMILIES["lookahead"].order},
           candidates=(("tree", 16),)),
]:
    register(_family)
DECLARED = tuple(FAMILIES)  # the families this module declares: what a fresh `generate` process can run


@dataclass(frozen=True)
class Spec:
    """One method and its options (see the module docstring); None is the method's default
    (gamma 1, lookahead's window from its tree; order from its Family)."""
    method: str
    gamma: int | None = None
    tree: int | None = None
    order: int | None = None

    @property
    def shape(self) -> str | None:
        """'chain' or 'tree'; None for plain decoding."""
        return None if self.method == "plain" else "tree" if self.tree is not None else "chain"

    @property
    def size(self) -> int:
        """γ of a chain, the nodes of a tree, 0 for plain decoding (the results' `size`)."""
        return {None: 0, "tree": self.tree, "chain": self.gamma}[self.shape]

    def __str__(self):
        """The one name of a configuration in logs and results: 'plain', 'ngram γ=4', 'lookahead tree=16'."""
        return self.method if self.shape is None else f"{self.method} {'γ' if self.shape == 'chain' else 'tree'}={self.size}"

    def order_or_default(self):
        default = FAMILIES[self.method].order if self.method in FAMILIES else None
        return (default or DEFAULT_ORDER) if self.order is None else self.order


def lookahead_window(nodes):
    """Lookahead's window when only its tree size is given: about a third of the nodes; the rest
    are candidate n-grams."""
    return max(1, (nodes - 1) // 3)


def spec_of(method: str, shape: str, size: int, order: int | None = None) -> Spec:
    """The Spec of a measured configuration: a chain of γ = size, or a tree of `size` nodes."""
    if method == "plain":
        return Spec("plain")
    if shape == "chain":
        return Spec(method, gamma=size, order=order)
    return Spec(method, tree=size, order=order)


@dataclass
class Models:
    """The trained models a method may need: the main model (with its MTP head), the draft model,
    the feature drafters by kind, and the training text for the n-gram table and suffix decoding's index."""
    main: object
    draft: object = None
    heads: dict = field(default_factory=dict)
    train_tokens: list = None
    vocab_size: int = 65
    tables: dict = field(default_factory=dict)    # order -> NgramTable, built on first use
    payloads: dict = field(default_factory=dict)  # kind -> the feature drafter's checkpoint payload
    suffixes: SuffixIndex = None                  # suffix decoding's corpus index, built on first use

    def training_text(self, what):
        if self.train_tokens is None:
            raise ValueError(f"{what} needs the training text (Models.train_tokens)")
        return self.train_tokens

    def table(self, order):
        if order not in self.tables:
            self.tables[order] = NgramTable(self.training_text("the n-gram table"), order, self.vocab_size)
        return self.tables[order]

    def heavy_twin(self, scale, seed=0):
        """Every network scale× heavier in weights, the same functions (model.heavy_twin): the main
        model and its MTP head, the draft model and the feature drafters, each by the same factor, so
        each drafter keeps its weight ratio to the main model. Tables are left as they are."""
        for i, network in enumerate([self.main, self.draft, *self.heads.values()]):
            if network is not None:
                network.heavy_twin(scale, seed + i)
        return self

    def twin(self, scale, seed=0):
        """A copy whose networks are heavy twins (heavy_twin); the text, the tables and the suffix
        index are shared, not copied."""
        shared = {id(x): x for x in (self.train_tokens, self.tables, self.suffixes, self.payloads)}
        return copy.deepcopy(self, shared).heavy_twin(scale, seed)

    def suffix_index(self):
        if self.suffixes is None:
            self.suffixes = SuffixIndex(self.training_text("suffix decoding's index"), self.vocab_size)
        return self.suffixes


def load_models(checkpoints, seed, device="cpu", train_tokens=None, vocab_size=65, tables=None) -> Models:
    """Every trained model of one seed from `checkpoints`: main + MTP, the draft model and every
    trained drafter (source "heads"; a missing file is a UsageError saying how to train it), the
    optional ones (EAGLE-3, the block drafter: seed 0 here) where they are trained (check() says
    how to train a missing one)."""
    def path(name):
        p = Path(checkpoints) / f"{name}.pt"
        if not p.exists():
            raise UsageError(f"{p} not found: run `make data` to train it")
        return p
    main_run, _, draft_run = RUNS
    main = load_checkpoint(path(run_name(*main_run, seed)), device)[0]
    draft = load_checkpoint(path(run_name(*draft_run, seed)), device)[0]
    kinds = [kind for kind in names(source="heads")
             if not FAMILIES[kind].optional or (Path(checkpoints) / f"{run_name(kind, 0, seed)}.pt").exists()]
    try:
        loaded = {kind: load_drafter(path(run_name(kind, 0, seed)), device, main=main) for kind in kinds}
    except CheckpointError:
        raise
    except ValueError as err:  # trained on another main model, or one of another shape: it names both files
        raise UsageError(str(err)) from None
    return Models(main, draft, {kind: d for kind, (d, _) in loaded.items()}, train_tokens, vocab_size,
                  dict(tables or {}), {kind: payload for kind, (_, payload) in loaded.items()})


def lookahead_shape(spec):
    """(window, n-gram size, candidates) of lookahead: the window is gamma (given) or about a third
    of the tree's nodes (lookahead_window); the candidate n-grams fill the rest of the tree, or
    as many as the window without a tree."""
    window, order = spec.gamma if spec.gamma is not None else lookahead_window(spec.tree) if spec.tree else 1, spec.order_or_default()
    candidates = window if spec.tree is None else (spec.tree - 1 - window) // (order - 1)
    return window, order, candidates


def resolved(spec: Spec) -> Spec:
    """The spec with its defaults filled in: a chain's gamma (1), lookahead's window, and its tree
    when only its window was given (1 + window + candidates × (order − 1) nodes)."""
    if spec.method == "plain" or spec.tree is not None and spec.method != "lookahead":
        return spec  # no chain: gamma stays unset
    if spec.method != "lookahead":
        return replace(spec, gamma=1 if spec.gamma is None else spec.gamma)
    window, order, candidates = lookahead_shape(spec)
    return replace(spec, gamma=window, tree=spec.tree or 1 + window + candidates * (order - 1))


def check_options(spec: Spec, mode: str = "kvcache", engine: str = "eager") -> Spec:
    """The checks of check() that need no model (generate runs them before it loads any): a
    ValueError whose message starts with the option it is about. Returns the resolved spec."""
    method = spec.method
    fam = family(method)
    check_engine(engine, mode)
    if spec.gamma is not None and (method == "plain" or spec.tree is not None and method != "lookahead"):
        raise ValueError("gamma does not apply to plain decoding" if method == "plain" else
                         f"gamma does not apply to a {method} tree: its depth comes from its nodes (--tree)")
    if spec.order is not None and fam.order is None:
        raise ValueError(f"order applies to {', '.join(orders())}, not method {method}")
    if spec.tree is not None:
        if not fam.tree:
            raise ValueError(f"tree applies to {', '.join(names(tree=True))}, not method {method}")
        if spec.tree < 2:
            raise ValueError(f"tree must be at least 2 nodes (the root and one candidate), got {spec.tree}")
    if (spec.tree is not None or method == "lookahead") and mode != "kvcache":
        raise ValueError(f"mode must be kvcache for {method}'s token tree: a tree is verified against the kv cache")
    if spec.gamma is not None and spec.gamma < 1:
        raise ValueError(f"gamma must be at least 1, got {spec.gamma}")
    resolved_spec = resolved(spec)
    if fam.max_gamma is not None and resolved_spec.gamma > fam.max_gamma:
        raise ValueError(f"gamma must be {fam.max_gamma}: the MTP head has depth 1, it drafts one token" if method == "mtp"
                         else f"gamma must be at most {fam.max_gamma} for {method}")
    if fam.order is not None and not fam.min_order <= spec.order_or_default() <= MAX_ORDER:
        raise ValueError(f"order must be between {fam.min_order} and {MAX_ORDER}"
                         f"{'' if fam.min_order == 1 else f' for {method}'}, got {spec.order_or_default()}")
    if method == "lookahead" and lookahead_shape(resolved_spec)[2] < 0:
        raise ValueError(f"tree {resolved_spec.tree} leaves no room for a window of gamma {resolved_spec.gamma}")
    return resolved_spec


def check(spec: Spec, models: Models, mode: str = "kvcache", engine: str = "eager") -> Spec:
    """A ValueError whose message starts with the option it is about (generate's flags), for a
    spec the models or the mode cannot run. Returns the resolved spec. Builds the table or index
    the spec needs (Family.prepare), so that no timed decode builds it. (The runners check the
    mode themselves.)"""
    method, given = spec.method, spec
    spec = check_options(spec, mode, engine)
    fam = FAMILIES[method]
    block_size = models.main.cfg.block_size
    if given.tree is not None:
        check_tree(spec.tree, block_size)
    if fam.source == "mtp" and models.main.mtp is None:
        raise ValueError("checkpoint has no MTP head (it was trained with --mtp 0): use a main checkpoint for mtp")
    if fam.chain and spec.tree is None:
        check_gamma(spec.gamma, block_size)
    if fam.source == "draft" and models.draft is None:
        raise ValueError(f"draft-checkpoint: method {method} needs the draft model (Models.draft)")
    if fam.source == "heads":
        head = models.heads.get(method)
        if head is None:
            raise ValueError(f"heads-checkpoint: method {method} needs its trained drafter (Models.heads[{method!r}]; "
                             f"python -m experiments.train --model {method} --seed S trains it)")
        if head.cfg.kind != method:
            raise ValueError(f"heads-checkpoint holds {head.cfg.kind} drafters, not {method}")
        if head.max_drafts is not None and spec.tree is None and spec.gamma > head.max_drafts:
            raise ValueError(f"gamma must be at most {head.max_drafts} for {method}: one draft per "
                             f"{'head' if method == 'medusa' else 'mask position'}")
    if fam.prepare is not None:
        fam.prepare(spec, models)
    if method == "lookahead" and given.tree is None and spec.tree > block_size:
        raise ValueError(f"gamma and order of lookahead make a tree of 1 + gamma + gamma × (order − 1) = "
                         f"{spec.tree} nodes, more than one {block_size}-position verify holds: "
                         f"lower gamma or order, or give tree")
    return spec


def accepts(spec: Spec, models: Models, mode: str = "kvcache", engine: str = "eager") -> bool:
    """Whether check() lets the models run this spec."""
    try:
        check(spec, models, mode, engine)
    except ValueError:
        return False
    return True


def drafter(spec: Spec, models: Models, mode: str = "kvcache", engine: str = "eager",
            temperature: float = 1.0) -> Drafter:
    """A fresh Drafter for one decode of a checked spec (drafters keep state)."""
    return FAMILIES[spec.method].build(spec, models, mode, engine, temperature)


def decode(spec: Spec, models: Models, prompt: list[int], n: int, temperature: float = 1.0, mode: str = "kvcache",
           engine: str = "eager", generator: torch.Generator | None = None, trace: bool = False) -> Result:
    """Decode n tokens after prompt with the method of `spec`: a speculative.Result."""
    return run_checked(check(spec, models, mode, engine), models, prompt, n, temperature, mode, engine, generator, trace)


def run_checked(spec, models, prompt, n, temperature, mode, engine, generator, trace=False):
    """decode() of a spec check() has already resolved."""
    if spec.method == "plain":
        return plain_decode(models.main, prompt, n, temperature, mode, generator, engine)
    draft = drafter(spec, models, mode, engine, temperature)
    if spec.tree is not None:
        return tree_decode(models.main, draft, prompt, n, spec.tree, temperature, generator, engine, trace)
    return speculative_decode(models.main, draft, prompt, n, spec.gamma, temperature, mode, generator, trace, engine)


def decoder(spec: Spec, models: Models, prompt: list[int], n: int, temperature: float = 1.0, mode: str = "kvcache",
            engine: str = "eager", device: str = "cpu") -> Callable[[int], Result]:
    """fn(seed) -> Result: one method's decode with sampling seed `seed` (timing.interleaved's shape)."""
    spec = check(spec, models, mode, engine)  # once, outside the timed calls
    return lambda seed: run_checked(spec, models, prompt, n, temperature, mode, engine,
                                    torch.Generator(device=device).manual_seed(seed))
