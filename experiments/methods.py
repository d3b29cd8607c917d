"""Every decoding method, in one place: how it is built from the trained models and its options,
and what it accepts. `generate`, every measurement and the tests run methods through here.

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
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch

from experiments.cli import UsageError
from experiments.engine import check_engine, make_runner
from experiments.heads import load_drafter
from experiments.lookahead import Lookahead
from experiments.ngram import (DEFAULT_ORDER, MAX_ORDER, LookupDrafter, MatchDrafter, NgramDrafter, NgramTable,
                               PromptLookup)
from experiments.model import load_checkpoint
from experiments.runners import ModelDrafter
from experiments.runs import RUNS, run_name
from experiments.speculative import check_gamma, check_tree, plain_decode, speculative_decode, tree_decode
from experiments.suffix import SuffixDrafter, SuffixIndex

METHODS = ("plain", "draft", "mtp", "ngram", "lookup", "match", "suffix", "medusa", "eagle", "eagle3", "block",
           "lookahead")
CHAIN_METHODS = ("draft", "mtp", "ngram", "lookup", "match", "suffix", "medusa", "eagle", "eagle3", "block")
TREE_METHODS = ("ngram", "lookup", "suffix", "medusa", "eagle", "eagle3", "block", "lookahead")
HEAD_METHODS = ("medusa", "eagle", "eagle3", "block")  # trained drafters on the frozen main model (experiments/heads.py)
ORDERS = {"ngram": DEFAULT_ORDER, "lookup": 4, "match": DEFAULT_ORDER, "lookahead": 3}  # lookup matches 3 chars;
# match copies the longest earlier match of at least 6 characters, then drafts from the table of its order


@dataclass(frozen=True)
class Spec:
    """One method and its options (see the module docstring); None is the method's default
    (gamma 1, lookahead's window from its tree; order from ORDERS)."""
    method: str
    gamma: int | None = None
    tree: int | None = None
    order: int | None = None

    def order_or_default(self):
        return ORDERS.get(self.method, DEFAULT_ORDER) if self.order is None else self.order


def lookahead_window(nodes):
    """Lookahead's window when only its tree size is given: about a third of the nodes; the rest
    are candidate n-grams."""
    return max(1, (nodes - 1) // 3)


def spec_of(method, shape, size, order=None):
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


def load_models(checkpoints, seed, device="cpu", train_tokens=None, vocab_size=65, tables=None):
    """Every trained model of one seed from `checkpoints`: main + MTP, the draft model, Medusa
    and EAGLE (a missing file is a UsageError saying how to train it), and EAGLE-3 and the block
    drafter where they are trained (seed 0 here; check() says how to train a missing one)."""
    def path(name):
        p = Path(checkpoints) / f"{name}.pt"
        if not p.exists():
            raise UsageError(f"{p} not found: run `make data` to train it")
        return p
    main_run, _, draft_run = RUNS
    main = load_checkpoint(path(run_name(*main_run, seed)), device)[0]
    draft = load_checkpoint(path(run_name(*draft_run, seed)), device)[0]
    loaded = {kind: load_drafter(path(run_name(kind, 0, seed)), device, main=main) for kind in HEAD_METHODS
              if kind in ("medusa", "eagle") or (Path(checkpoints) / f"{run_name(kind, 0, seed)}.pt").exists()}
    return Models(main, draft, {kind: d for kind, (d, _) in loaded.items()}, train_tokens, vocab_size,
                  dict(tables or {}), {kind: payload for kind, (_, payload) in loaded.items()})


def lookahead_shape(spec):
    """(window, n-gram size, candidates) of lookahead: the window is gamma (given) or about a third
    of the tree's nodes (lookahead_window); the candidate n-grams fill the rest of the tree, or
    as many as the window without a tree."""
    window, order = spec.gamma if spec.gamma is not None else lookahead_window(spec.tree) if spec.tree else 1, spec.order_or_default()
    candidates = window if spec.tree is None else (spec.tree - 1 - window) // (order - 1)
    return window, order, candidates


def resolved(spec):
    """The spec with its defaults filled in: a chain's gamma (1), lookahead's window, and its tree
    when only its window was given (1 + window + candidates × (order − 1) nodes)."""
    if spec.method == "plain" or spec.tree is not None and spec.method != "lookahead":
        return spec  # no chain: gamma stays unset
    if spec.method != "lookahead":
        return replace(spec, gamma=1 if spec.gamma is None else spec.gamma)
    window, order, candidates = lookahead_shape(spec)
    return replace(spec, gamma=window, tree=spec.tree or 1 + window + candidates * (order - 1))


def check_options(spec, mode="kvcache", engine="eager"):
    """The checks of check() that need no model (generate runs them before it loads any): a
    ValueError whose message starts with the option it is about. Returns the resolved spec."""
    method = spec.method
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    check_engine(engine, mode)
    if spec.gamma is not None and (method == "plain" or spec.tree is not None and method != "lookahead"):
        raise ValueError("gamma does not apply to plain decoding" if method == "plain" else
                         f"gamma does not apply to a {method} tree: its depth comes from its nodes (--tree)")
    if spec.order is not None and method not in ORDERS:
        raise ValueError(f"order applies to {', '.join(ORDERS)}, not method {method}")
    if spec.tree is not None:
        if method not in TREE_METHODS:
            raise ValueError(f"tree applies to {', '.join(TREE_METHODS)}, not method {method}")
        if spec.tree < 2:
            raise ValueError(f"tree must be at least 2 nodes (the root and one candidate), got {spec.tree}")
    if (spec.tree is not None or method == "lookahead") and mode != "kvcache":
        raise ValueError(f"mode must be kvcache for {method}'s token tree: a tree is verified against the kv cache")
    if spec.gamma is not None and spec.gamma < 1:
        raise ValueError(f"gamma must be at least 1, got {spec.gamma}")
    resolved_spec = resolved(spec)
    if method == "mtp" and resolved_spec.gamma != 1:
        raise ValueError("gamma must be 1: the MTP head has depth 1, it drafts one token")
    order = spec.order_or_default()
    if method in ("ngram", "match") and not 1 <= order <= MAX_ORDER:
        raise ValueError(f"order must be between 1 and {MAX_ORDER}, got {order}")
    if method in ("lookup", "lookahead") and not 2 <= order <= MAX_ORDER:
        raise ValueError(f"order must be between 2 and {MAX_ORDER} for {method}, got {order}")
    if method == "lookahead" and lookahead_shape(resolved_spec)[2] < 0:
        raise ValueError(f"tree {resolved_spec.tree} leaves no room for a window of gamma {resolved_spec.gamma}")
    return resolved_spec


def check(spec, models, mode="kvcache", engine="eager"):
    """A ValueError whose message starts with the option it is about (generate's flags), for a
    spec the models or the mode cannot run. Returns the resolved spec. Builds the n-gram table the
    spec needs, so that no timed decode builds it. (The runners check the mode themselves.)"""
    method, given = spec.method, spec
    spec = check_options(spec, mode, engine)
    block_size = models.main.cfg.block_size
    if given.tree is not None:
        check_tree(spec.tree, block_size)
    if method == "mtp" and models.main.mtp is None:
        raise ValueError("checkpoint has no MTP head (it was trained with --mtp 0): use a main checkpoint for mtp")
    if method in CHAIN_METHODS and spec.tree is None:
        check_gamma(spec.gamma, block_size)
    if method == "draft" and models.draft is None:
        raise ValueError("draft-checkpoint: method draft needs the draft model (Models.draft)")
    if method in HEAD_METHODS:
        head = models.heads.get(method)
        if head is None:
            raise ValueError(f"heads-checkpoint: method {method} needs its trained drafter (Models.heads[{method!r}]; "
                             f"python -m experiments.train --model {method} --seed S trains it)")
        if head.cfg.kind != method:
            raise ValueError(f"heads-checkpoint holds {head.cfg.kind} drafters, not {method}")
        if head.max_drafts is not None and spec.tree is None and spec.gamma > head.max_drafts:
            raise ValueError(f"gamma must be at most {head.max_drafts} for {method}: one draft per "
                             f"{'head' if method == 'medusa' else 'mask position'}")
    if method in ("ngram", "match"):
        models.table(spec.order_or_default())
    if method == "suffix":
        models.suffix_index()
    if method == "lookahead" and given.tree is None and spec.tree > block_size:
        raise ValueError(f"gamma and order of lookahead make a tree of 1 + gamma + gamma × (order − 1) = "
                         f"{spec.tree} nodes, more than one {block_size}-position verify holds: "
                         f"lower gamma or order, or give tree")
    return spec


def accepts(spec, models, mode="kvcache", engine="eager"):
    """Whether check() lets the models run this spec."""
    try:
        check(spec, models, mode, engine)
    except ValueError:
        return False
    return True


def drafter(spec, models, mode="kvcache", engine="eager", temperature=1.0):
    """A fresh Drafter for one decode of a checked spec (drafters keep state)."""
    method, order = spec.method, spec.order_or_default()
    if method == "lookahead":
        return Lookahead(*lookahead_shape(spec))
    if method == "ngram":  # the table and prompt lookup draft chains and trees alike
        return NgramDrafter(models.table(order))
    if method == "lookup":
        return LookupDrafter(PromptLookup(order - 1, models.vocab_size))
    if method == "match":
        return MatchDrafter(models.table(order))
    if method == "suffix":
        return SuffixDrafter(models.suffix_index())
    if method in HEAD_METHODS:
        heads = models.heads[method]
        return heads.tree_drafter() if spec.tree is not None else heads.chain_drafter(mode, engine, spec.gamma)
    if method == "draft":  # it sees 1 or 2 new tokens per round; a whole round is one compiled graph
        return ModelDrafter(make_runner(models.draft, mode, engine, sizes=(1, 2), lookahead=spec.gamma,
                                        round=(spec.gamma, temperature)))
    return make_runner(models.main, mode, engine, sizes=(1, 2), mtp=True)  # mtp


def decode(spec, models, prompt, n, temperature=1.0, mode="kvcache", engine="eager", generator=None, trace=False):
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


def config_name(method, shape, size):
    """The name a measured configuration has in the results: 'plain', 'ngram:chain:4', 'eagle:tree:16'."""
    return method if method == "plain" else f"{method}:{shape}:{size}"


def config_decoder(models, method, shape, size, prompt, n, temperature, engine, device):
    """decoder() of a measured configuration (kv-cache mode, where every family runs)."""
    return decoder(spec_of(method, shape, size), models, prompt, n, temperature, "kvcache", engine, device)


def decoder(spec, models, prompt, n, temperature=1.0, mode="kvcache", engine="eager", device="cpu"):
    """fn(seed) -> Result: one method's decode with sampling seed `seed` (timing.interleaved's shape)."""
    spec = check(spec, models, mode, engine)  # once, outside the timed calls
    return lambda seed: run_checked(spec, models, prompt, n, temperature, mode, engine,
                                    torch.Generator(device=device).manual_seed(seed))
