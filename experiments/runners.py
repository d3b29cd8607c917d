"""Model runs over a growing sequence, in `recompute` or `kvcache` mode, and the Drafter protocol
every drafter family follows (the decoders in experiments/speculative.py call nothing else).

A Drafter (as static/js/lab_decode.js's drafters, and transformers' CandidateGenerator):
- `propose(seq, main_length, g, temperature, generator)` -> (q [g', V] or None, drafts [g']),
  g' <= g: the drafts for the positions after seq, with the distributions they were drawn from
  (None: no drafts this round). main_length is how much of seq the main model has processed.
- `tree(seq, n_nodes, max_depth)` -> a trees.Tree rooted at seq[-1], for a tree verify.
- `observe(h, start)`: the main model's features h [T, C] of positions start, start + 1, ...
  after each of its forwards; `verified(tree, logits, path)`: the outcome of a tree verify.
- `truncate(n)`: forget positions n and later (what the main model rejected).
- counters: `forwards` (its forwards, or lookups counted like forwards), `forward_s` (wall seconds
  inside them) and `compile_s` (compilation, kept out of forward_s).
- `layers`: whether it reads every layer's output of the main model (observe), not the last.

`Drafter` is that protocol as a type; `DrafterBase` gives its defaults. Runners and drafters keep
their counters alike (`Counters`) and time every forward, lookup or head call with one wrapper:
`with self.timed(forwards=k): ...`.
"""
import time
from typing import Protocol

import torch

from experiments.model import ROLLBACK_MARGIN
from experiments.rule import accept_reject, probs_from_logits, sample
from experiments.trees import Tree, top_choices

MODES = ("recompute", "kvcache")


class EngineUnavailable(RuntimeError):
    """An engine cannot run here (no C++ compiler, or its build failed), with a one-line reason:
    the caller uses another engine or stops with that line."""


class Drafter(Protocol):
    """What the decoders call on a drafter (the module docstring says what each does)."""

    layers: bool

    @property
    def forwards(self) -> int: ...

    @property
    def forward_s(self) -> float: ...

    @property
    def compile_s(self) -> float: ...

    def propose(self, seq: list[int], main_length: int, g: int, temperature: float,
                generator: torch.Generator | None = None) -> tuple[torch.Tensor | None, list[int]]: ...

    def tree(self, seq: list[int], n_nodes: int, max_depth: int) -> Tree: ...

    def observe(self, h: torch.Tensor, start: int) -> None: ...

    def verified(self, tree: Tree, logits: torch.Tensor, path: list[int]) -> None: ...

    def truncate(self, n: int) -> None: ...


class Counters:
    """The counters of a runner or a drafter, and the one wrapper that feeds them."""

    sync = False  # an owner on CUDA sets it (with self.device): time the kernels, not their launch

    def __init__(self):
        self.forwards = 0
        self.forward_s = 0.0
        self.compile_s = 0.0  # compilation (the compiled engines'), kept out of forward_s

    def timed(self, forwards: int = 0) -> "Clock":
        """`with self.timed(forwards=k): ...` adds the wall seconds of the block to forward_s (on
        CUDA, once its kernels are done) and k to forwards; a block that raises adds neither."""
        return Clock(self, forwards)


class Clock:
    """The with-block of Counters.timed (a class, not a generator: a third of the cost per call)."""

    __slots__ = ("owner", "forwards", "t0")

    def __init__(self, owner: Counters, forwards: int):
        self.owner, self.forwards = owner, forwards

    def __enter__(self) -> None:
        self.t0 = time.perf_counter()

    def __exit__(self, kind, value, traceback) -> None:
        if kind is not None:
            return
        owner = self.owner
        if owner.sync:
            torch.cuda.synchronize(owner.device)
        owner.forward_s += time.perf_counter() - self.t0
        owner.forwards += self.forwards


class DrafterBase(Counters):
    """The Drafter protocol's defaults: counters, and hooks that most drafters ignore."""

    layers = False  # whether it reads every layer's output of the main model (observe), not the last

    def __init__(self):
        super().__init__()
        self.length = 0

    def propose(self, seq: list[int], main_length: int, g: int, temperature: float,
                generator: torch.Generator | None = None) -> tuple[torch.Tensor | None, list[int]]:
        raise NotImplementedError(f"{type(self).__name__} drafts token trees only")

    def tree(self, seq: list[int], n_nodes: int, max_depth: int) -> Tree:
        raise NotImplementedError(f"{type(self).__name__} drafts chains only")

    def truncate(self, n: int) -> None:
        self.length = min(n, self.length)

    def observe(self, h: torch.Tensor, start: int) -> None:
        """The main model's features h [T, C] for positions start, start + 1, ..."""

    def verified(self, tree: Tree, logits: torch.Tensor, path: list[int]) -> None:
        """The outcome of a tree verify: every node's logits and the accepted nodes."""


class Runner(Counters):
    """One model run over a growing sequence. `extend(seq, rows)` computes the positions of seq
    that are not processed yet and returns (logits, h, start): rows for absolute positions
    start, start+1, ... In `kvcache` mode those are just the new positions. In `recompute` mode
    each of the last `rows` positions gets the context plain recompute decoding gives it, the
    block_size characters up to itself: one batched forward over every such crop (a sliding mask
    over one longer sequence would not do: each layer would widen what a position sees).
    `truncate(n)` forgets positions n and later (the kv-cache rollback). `margin` (γ for a chain of
    γ drafts) sizes the cache's rollback margin; `forward_s` sums the wall seconds spent in the model."""

    def __init__(self, model, mode, margin=None, layers=False):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        super().__init__()
        self.model, self.mode, self.layers = model, mode, layers  # layers: h is every layer's output
        self.window = model.cfg.block_size
        # A round that confirmed m tokens rolls back to n >= m; the furthest forward so far
        # started at m + γ - 2 (the draft's last) or m - 1 (main). KVCache rolls back to
        # n >= that start - margin, so margin γ - 2 is the least that works; γ is used.
        margin = ROLLBACK_MARGIN if margin is None else margin
        self.device = model.tok_emb.weight.device
        self.cache = self.new_cache(margin) if mode == "kvcache" else None
        self.sync = self.device.type == "cuda"  # time the kernels, not their launch
        self.length = 0

    def new_cache(self, margin):
        return self.model.new_cache(margin=margin)

    def extend(self, seq, rows=1):
        if self.mode == "kvcache":
            start = self.length
            with self.timed(forwards=1):
                logits, h = self.forward(seq[start:], start)
        else:
            start = max(0, len(seq) - rows - self.window + 1)  # the crop of the first of the rows
            last = max(0, len(seq) - self.window)              # ... and of the last
            crops = [seq[s:s + self.window] for s in range(start, last + 1)]
            with self.timed(forwards=1):
                logits, h = self.forward_crops(crops)
        self.length = len(seq)
        return logits, h, start

    def forward_crops(self, crops):
        """Logits and h [T, ...] of positions start.. of the recompute crops (each block_size
        long but where the sequence is shorter, one step apart): every row of the first crop,
        then the last row of each next one."""
        logits, h = self.model(torch.tensor(crops, device=self.device), layers=self.layers)
        return torch.cat((logits[0], logits[1:, -1])), torch.cat((h[0], h[1:, -1]))

    def extend_tree(self, tree):
        """Logits [T, V] and features of every node of a token tree (experiments/trees.py) whose root is the
        token at position self.length; kv-cache mode only. keep_path follows."""
        self.tree_start = self.length
        with self.timed(forwards=1):
            if len(tree.tokens) == 1:  # no candidates: an ordinary one-token forward
                logits, h = self.forward(tree.tokens, self.length)
            else:
                logits, h = self.forward_tree(tree)
        self.length += len(tree.tokens)
        return logits, h

    def forward_tree(self, tree):
        logits, h = self.model(torch.tensor([tree.tokens], device=self.device), cache=self.cache, tree=tree,
                               layers=self.layers)
        return logits[0], h[0]

    def keep_path(self, path):
        """Keep the root and the accepted nodes of the last tree as the next positions."""
        self.cache.keep_path(self.tree_start, path)
        self.length = self.tree_start + 1 + len(path)

    def forward(self, tokens, start):
        """Logits and hidden states [T, ...] of tokens at absolute positions start, start+1, ..."""
        logits, h = self.model(torch.tensor([tokens], device=self.device), cache=self.cache, layers=self.layers)
        return logits[0], h[0]

    def truncate(self, n):
        self.length = n
        if self.cache is not None:
            self.cache.rollback(n)

    def sample_next(self, seq, temperature, generator=None):
        """Forward the new positions of seq and draw the token after it from the last row's p
        (plain decoding's step)."""
        logits, _, _ = self.extend(seq)
        return sample(probs_from_logits(logits[-1], temperature), generator)

    def verify(self, seq, drafts, q, temperature, generator=None, record=None):
        """One verify (speculative decoding's step): forward seq + drafts (the new positions), then
        accept_reject on the last len(drafts) + 1 rows; q [g, V] is None without drafts. Returns
        (n_accepted, next_token, h, start), h and start as extend returns them (for drafters that
        observe the main model's features). The native engine does all of it in one C++ call."""
        g = len(drafts)
        logits, h, start = self.extend(seq + drafts, rows=g + 1)
        p = probs_from_logits(logits[-(g + 1):], temperature)
        n, token = accept_reject(p, p[:0] if q is None else q, torch.tensor(drafts, dtype=torch.long),
                                 generator, record)
        return n, token, h, start

    def draft_round(self, seq, g, temperature, generator=None):
        """Draft g tokens after seq, one forward and one sample each: returns (q [g, V], the
        drafts). Afterwards the runner has processed all of seq and every draft but the last."""
        q_rows, drafts = [], []
        for _ in range(g):
            logits, _, _ = self.extend(seq + drafts)
            q_rows.append(probs_from_logits(logits[-1], temperature))
            drafts.append(sample(q_rows[-1], generator))
        return torch.stack(q_rows), drafts


class ModelDrafter(DrafterBase):
    """A small model of its own as the drafter (Leviathan et al. 2023, arXiv 2211.17192): a Runner
    (or the compiled engine's) that drafts autoregressively."""

    def __init__(self, runner):
        self.runner = runner  # its counters are the runner's (the properties below), not DrafterBase's own

    def propose(self, seq, main_length, g, temperature, generator=None):
        return self.runner.draft_round(seq, g, temperature, generator)

    def truncate(self, n):
        self.runner.truncate(min(n, self.runner.length))

    forwards = property(lambda self: self.runner.forwards)
    forward_s = property(lambda self: self.runner.forward_s)
    compile_s = property(lambda self: self.runner.compile_s)


class MTPDrafter(DrafterBase):
    """The MTP head over confirmed pairs (h_j, x_{j+1}); its last row drafts the token after
    the pending one. Hidden states come from the main model's latest forward (`observe`).
    `head` is any module shaped like the MTP head (default: the model's own); an EAGLE drafter
    is one (experiments/heads.py). `margin` = γ sizes the cache's rollback margin, as Runner's:
    a chain of γ drafts advances the head's cache γ − 1 positions past the main model's."""

    def __init__(self, model, mode, head=None, margin=None):
        if head is None and model.mtp is None:
            raise ValueError("this checkpoint has no MTP head (it was trained with --mtp 0)")
        super().__init__()
        self.model, self.mode, self.head = model, mode, head or model.mtp
        self.layers = self.head.reads_layers
        self.window = model.cfg.block_size
        self.device = model.tok_emb.weight.device
        margin = ROLLBACK_MARGIN if margin is None else margin
        self.cache = self.new_cache(margin) if mode == "kvcache" else None
        self.sync = self.device.type == "cuda"
        self.h = None

    def new_cache(self, margin):
        return self.model.new_cache(mtp=True, margin=margin)

    def observe(self, h, start):
        self.h, self.h_start = self.head.read(h), start

    def extend(self, seq, main_length):
        """Draft logits and the head's output feature for position main_length + 1, from pairs
        j < main_length."""
        if self.mode == "kvcache":
            first = self.length
        else:
            first = max(self.h_start, main_length - self.window)
        h = self.h[first - self.h_start:main_length - self.h_start]
        with self.timed(forwards=1):
            logits, feature = self.forward(h, seq[first + 1:main_length + 1], first)
        self.length = main_length
        return logits, feature

    def propose(self, seq, main_length, g, temperature, generator=None):
        """g drafts after seq (main_length + 1 tokens long): the first from the main model's real
        features, each next one from the feature the head predicted the step before (EAGLE's
        chain). The chained positions are forgotten at the end of the round: the next round
        recomputes them from the main model's real features. Before the main model's first
        forward there are no features: no drafts (the first token is a plain main sample)."""
        if self.h is None:
            return None, []
        real_h = self.h
        q_rows, drafts = [], []
        logits, feature = self.extend(seq, main_length)
        for i in range(g):
            q_rows.append(probs_from_logits(logits, temperature))
            drafts.append(sample(q_rows[-1], generator))
            if i + 1 < g:  # the predicted feature of position main_length + i joins the pairs
                self.h = torch.cat((self.h, feature[None]))
                logits, feature = self.extend(seq + drafts, main_length + i + 1)
        self.h = real_h
        self.truncate(main_length)
        return torch.stack(q_rows), drafts

    def truncate(self, n):
        self.length = min(n, self.length)
        if self.cache is not None:
            self.cache.rollback(self.length)

    def tree(self, seq, n_nodes, max_depth, top_k=4, depth_limit=6):
        """EAGLE-2's dynamic draft tree (arXiv 2406.16858), kv-cache mode: expand depth by depth,
        each time the top_k most likely nodes (the product of the head's probabilities along the
        branch) get top_k children each; then keep the n_nodes − 1 most likely nodes. One head
        forward per depth: the pairs of the expanded branches go in as a token tree rooted at the
        last real pair (h of the newest processed position, the pending token)."""
        L = len(seq) - 1  # the pending token's position
        logits, feature = self.extend(seq, L)
        with self.timed():  # its head forwards count themselves (tree_features)
            cand, score, features = Tree.root(seq[-1]), [1.0], {0: feature}
            frontier, probs = [0], {0: torch.softmax(logits, -1)}
            depths = min(max_depth, depth_limit, n_nodes - 1)
            for depth in range(depths):
                added = []
                for node in frontier:
                    for token, p in top_choices(probs[node], top_k):
                        added.append(cand.add(node, token))
                        score.append(score[node] * p)
                frontier = sorted(added, key=lambda i: -score[i])[:top_k]
                if depth + 1 == depths or not frontier:
                    break
                for node, feature in self.tree_features(cand, frontier, L, features).items():
                    features[node] = feature
                    probs[node] = torch.softmax(self.model.head(feature), -1)
            kept = sorted(sorted(range(1, len(cand.tokens)), key=lambda i: (-score[i], i))[:n_nodes - 1])
            tree, index = Tree.root(seq[-1]), {0: 0}
            for i in kept:  # a child is never likelier than its parent: the kept set is closed under parents
                index[i] = tree.add(index[cand.parents[i]], cand.tokens[i])
        return tree

    def tree_features(self, cand, frontier, L, features):
        """Features of the frontier nodes of `cand`: their branches' pairs as one token tree whose
        root is the real pair at position L − 1 (already cached: re-fed, then kept)."""
        nodes = sorted({a for node in frontier for a in cand.path_to(node)})
        batch, index = Tree.root(cand.tokens[0]), {0: 0}
        for node in nodes[1:]:
            index[node] = batch.add(index[cand.parents[node]], cand.tokens[node])
        h = torch.stack([self.h[L - 1 - self.h_start]] + [features[cand.parents[n]] for n in nodes[1:]])
        self.cache.rollback(L - 1)
        out = self.model.mtp_features(h[None], torch.tensor([batch.tokens], device=h.device), self.cache,
                                      self.head, tree=batch)[0]
        self.cache.rollback(L)
        self.forwards += 1
        return {node: out[index[node]] for node in frontier}

    def forward(self, h, next_tokens, start):
        """The head's logits and output feature for its last pair: h [T, C] at positions start..,
        next_tokens [T]."""
        next_idx = torch.tensor([next_tokens], device=h.device)
        feature = self.model.mtp_features(h[None], next_idx, cache=self.cache, head=self.head)[0, -1]
        return self.model.head(feature), feature
