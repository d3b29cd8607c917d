"""What the fast engines share: a static cache sized once, per-layer k/v buffers, RoPE gathered by
position, and each kind of step written as a plain function of the model, the cache and tensors
(the way gpt-fast does it), so that a compiler sees one graph whose shape never changes.

- `StaticCache`: a ring buffer of `2 * window` slots per layer. Position t lives in slot
  t % capacity; `slot_pos` records which position each slot holds, and the attention mask is
  read from it (t attends to positions t - window + 1 .. t). Rollback moves the runner's length
  and nothing else: a stale slot holds a position the next forward rewrites before reading, or
  one later than any query, which the mask hides.
- The graphs (`main_graph`, `tree_graph`, `mtp_graph`, `round_graph`): the main model on T
  positions, on the nodes of a token tree, the MTP head (or an EAGLE drafter) on T pairs, and a
  whole draft round with its sampling.
- `StaticRunner` / `StaticMTPDrafter`: drop-in for `runners.Runner` / `MTPDrafter` in kv-cache
  mode. New positions are padded up to a built size (padding rows are written past the real
  length and ignored), so a decoder needs only a few graphs. How a graph is built and run is
  the subclass's: torch.compile (experiments/engine.py) or AOTInductor (experiments/aot.py).
"""
import os
from shutil import which

import torch

from experiments.model import rope_tables
from experiments.rule import probs_from_logits
from experiments.runners import EngineUnavailable, MTPDrafter, Runner

ROPE_POSITIONS = 1 << 14  # RoPE table length of the static engines: a longer sequence is refused


def check_compiler():
    """Inductor's C++ backend (and the native engine's build) calls the system compiler; say
    which one is missing."""
    cxx = os.environ.get("CXX", "g++")
    if which(cxx) is None:
        raise EngineUnavailable(f"no C++ compiler ({cxx}) on PATH")


class StaticCache:
    """Keys and values of one sequence in fixed per-layer buffers (see the module docstring)."""

    def __init__(self, n_layer, n_head, head_dim, window, dtype=torch.float32, device="cpu"):
        self.window, self.capacity = window, 2 * window
        shape = (1, n_head, self.capacity, head_dim)
        # separate buffers per layer: one tensor sliced per layer made inductor copy it whole
        self.k = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(n_layer)]
        self.v = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(n_layer)]
        self.slot_pos = torch.full((self.capacity,), -2 * self.capacity, dtype=torch.long, device=device)

    def prepare(self, pos):
        """Claim the slots of absolute positions pos [T]; return the mask [T, capacity]."""
        self.slots = pos % self.capacity
        self.slot_pos.index_copy_(0, self.slots, pos)
        held = self.slot_pos[None, :]
        return (held <= pos[:, None]) & (held > pos[:, None] - self.window)

    def prepare_tree(self, pos, ancestors):
        """Claim slots for the T nodes of a token tree (root first, pos [T] = the root's position
        + each node's depth): node i goes to the slot of position root + i, as if the nodes were
        a chain. Returns the mask: the positions before the root within node i's window, and
        node i's ancestors and itself."""
        chain = pos[0] + torch.arange(pos.shape[0], device=pos.device)
        self.slots = chain % self.capacity
        self.slot_pos.index_copy_(0, self.slots, chain)
        held = self.slot_pos[None, :]
        seen = (held < pos[0]) & (held > pos[:, None] - self.window)
        in_tree = torch.zeros_like(seen).index_copy(1, self.slots, ancestors)
        return seen | in_tree

    def keep_path(self, root, path):
        """After a tree from position root: the accepted nodes `path` (top down) move to the
        slots of positions root + 1, root + 2, ... (the root already sits at its own)."""
        if not path:
            return
        device = self.slot_pos.device
        src = (root + torch.tensor(path, device=device)) % self.capacity
        dst = (root + 1 + torch.arange(len(path), device=device)) % self.capacity
        for buffer in self.k + self.v:
            buffer.index_copy_(2, dst, buffer.index_select(2, src))

    def update(self, layer, kv):
        """Write this step's keys and values ([2, B, H, T, D]); return every slot of the layer."""
        self.k[layer].index_copy_(2, self.slots, kv[0])
        self.v[layer].index_copy_(2, self.slots, kv[1])
        return self.k[layer], self.v[layer]


def rope_at(model, pos):
    cos, sin = model.engine_rope
    return cos[pos], sin[pos]


def main_graph(model, cache, idx, pos):
    """Logits and hidden states of the main (or draft) model for ids idx [1, T] at positions pos."""
    return run_blocks(model, cache, idx, pos, cache.prepare(pos))


def tree_graph(model, cache, idx, pos, ancestors):
    """main_graph for the nodes of a token tree: pos [T] the root's position + each node's depth,
    ancestors [T, T] the tree mask (StaticCache.prepare_tree)."""
    return run_blocks(model, cache, idx, pos, cache.prepare_tree(pos, ancestors))


def main_layers_graph(model, cache, idx, pos):
    """main_graph whose hidden states are every layer's output side by side (EAGLE-3 reads them)."""
    return run_blocks(model, cache, idx, pos, cache.prepare(pos), layers=True)


def tree_layers_graph(model, cache, idx, pos, ancestors):
    """tree_graph with every layer's output (main_layers_graph)."""
    return run_blocks(model, cache, idx, pos, cache.prepare_tree(pos, ancestors), layers=True)


def run_blocks(model, cache, idx, pos, mask, layers=False):
    cos, sin = rope_at(model, pos)
    x, outputs = model.tok_emb(idx), []
    for layer, block in enumerate(model.blocks):
        x = block(x, cos, sin, mask, cache, layer)
        if layers:
            outputs.append(x)
    return model.head(x), torch.cat(outputs, dim=-1) if layers else x


def mtp_graph(model, head, cache, h, next_idx, pos):
    """Logits for x_{t+2} and the head's output features from h_t [1, T, C] and the ids of
    x_{t+1} [1, T] at positions pos. head: the MTP head, or an EAGLE drafter of the same shape."""
    mask = cache.prepare(pos)
    cos, sin = rope_at(model, pos)
    x = head(h, model.tok_emb(next_idx), cos, sin, mask, cache)
    return model.head(x), x


def round_graph(model, cache, idx, pos, u, gamma, temperature):
    """γ draft steps and their sampling in one graph. idx [1, 2]: the last two confirmed tokens
    at positions pos [2] (the older one may already be in the cache: rewriting it changes
    nothing), u [γ] float64 uniforms. Each draft inverts its CDF at u exactly as
    rule.sample does, so with the same uniforms it draws the same token."""
    q_rows, tokens = [], []
    for i in range(gamma):
        logits, _ = main_graph(model, cache, idx, pos)
        q = probs_from_logits(logits[0, -1], temperature)
        cdf = q.cumsum(0).double()
        token = (cdf <= u[i] * cdf[-1]).sum().clamp(max=q.shape[0] - 1)
        q_rows.append(q)
        tokens.append(token)
        idx, pos = token.view(1, 1), pos[-1:] + 1
    return torch.stack(q_rows), torch.stack(tokens)


def prepare_model(model, positions=ROPE_POSITIONS):
    """RoPE tables long enough for the engine, held on the model (one copy per model)."""
    if getattr(model, "engine_rope", None) is None:
        cos, sin = rope_tables(model.cfg.head_dim, positions)
        weight = model.tok_emb.weight
        model.engine_rope = (cos.to(weight), sin.to(weight))


GRAPHS = {"main": main_graph, "mtp": mtp_graph, "round": round_graph, "tree": tree_graph,
          "main_layers": main_layers_graph, "tree_layers": tree_layers_graph}


def static_cache(model, mtp=False):
    """A StaticCache for the model (its MTP head's one layer with mtp=True), on its device."""
    cfg, weight = model.cfg, model.tok_emb.weight
    return StaticCache(1 if mtp else cfg.n_layer, cfg.n_head, cfg.head_dim, cfg.block_size, weight.dtype, weight.device)


def scratch_inputs(model, kind, size, device, head=None):
    cfg = model.cfg
    if kind == "round":  # size = (γ, temperature)
        gamma, temperature = size
        return (*scratch_inputs(model, "main", 2, device), torch.full((gamma,), 0.5, dtype=torch.float64,
                                                                      device=device), gamma, temperature)
    cache = static_cache(model, mtp=kind == "mtp")
    ids, pos = torch.zeros((1, size), dtype=torch.long, device=device), torch.arange(size, device=device)
    if kind in ("main", "main_layers"):
        return cache, ids, pos
    if kind in ("tree", "tree_layers"):  # a chain of `size` nodes
        return cache, ids, pos, torch.ones((size, size), dtype=torch.bool, device=device).tril()
    h = torch.zeros((1, size, cfg.n_embd), dtype=model.tok_emb.weight.dtype, device=device)
    return head or model.mtp, cache, h, ids, pos


def check_positions(end):
    if end > ROPE_POSITIONS:
        raise ValueError(f"the static engines hold RoPE tables for {ROPE_POSITIONS} positions, asked for {end}")


def padded(tokens, sizes):
    """tokens padded up to the smallest compiled size that holds them, or None (run eagerly)."""
    size = next((size for size in sorted(sizes) if size >= len(tokens)), None)
    return None if size is None else list(tokens) + [0] * (size - len(tokens))


class StaticRunner(Runner):
    """`Runner` in kv-cache mode on a StaticCache, with built steps for `sizes` new positions
    (fewer are padded up; a longer feed, such as the prompt, runs the same step eagerly in
    window-sized chunks). With sizes=() nothing is built: the static cache alone, eagerly.
    A subclass says how a step is built ahead of its first timed call (`build(kind, sizes)`,
    returning the seconds it took) and which callable runs it (`graph(kind)`): torch.compile in
    engine.CompiledRunner, AOTInductor packages in aot.AOTRunner. layers=True: the main and tree
    steps return every layer's output as h (their *_layers graphs)."""

    def __init__(self, model, sizes=(1,), round=None, tree_size=None, layers=False):
        super().__init__(model, "kvcache", margin=0, layers=layers)
        self.sizes, self.round, self.tree_size = tuple(sizes), round, tree_size
        self.main_kind, self.tree_kind = ("main_layers", "tree_layers") if layers else ("main", "tree")
        self.compile_s = self.build(self.main_kind, self.sizes)
        if round is not None:
            self.compile_s += self.build("round", [round])
        if tree_size is not None:
            self.compile_s += self.build(self.tree_kind, [tree_size])

    def build(self, kind, sizes):
        raise NotImplementedError

    def graph(self, kind):
        raise NotImplementedError

    def new_cache(self, margin):
        return static_cache(self.model)  # rollback needs no margin: nothing is moved

    def draft_round(self, seq, g, temperature, generator=None):
        """One built graph for a full round (γ = g at the built temperature) when the
        runner is 1 or 2 tokens behind seq; otherwise the step-by-step round of Runner."""
        L = len(seq)
        if self.round != (g, temperature) or L - self.length not in (1, 2) or L < 2:
            return super().draft_round(seq, g, temperature, generator)
        check_positions(L + g)
        u = torch.rand(g, generator=generator, dtype=torch.float64, device=self.device)  # as g samples would
        with self.timed(forwards=g):  # here the drafter's time includes its sampling
            q, tokens = self.graph("round")(self.model, self.cache, *self.inputs(seq[L - 2:], L - 2), u, g, temperature)
            drafts = tokens.tolist()
        self.length = L + g - 1
        return q, drafts

    def forward(self, tokens, start):
        check_positions(start + len(tokens) + max(self.sizes, default=0))
        feed = padded(tokens, self.sizes)
        if feed is not None:
            logits, h = self.graph(self.main_kind)(self.model, self.cache, *self.inputs(feed, start))
            return logits[0, :len(tokens)], h[0, :len(tokens)]
        parts = [GRAPHS[self.main_kind](self.model, self.cache, *self.inputs(tokens[i:i + self.window], start + i))
                 for i in range(0, len(tokens), self.window)]
        return torch.cat([logits[0] for logits, _ in parts]), torch.cat([h[0] for _, h in parts])

    def forward_tree(self, tree):
        """The tree padded to the built size with lone nodes (they see only themselves, and
        no real node sees them), or eagerly when it is larger."""
        T = len(tree.tokens)
        N = T if self.tree_size is None or T > self.tree_size else self.tree_size
        check_positions(self.length + N)
        ancestors = torch.eye(N, dtype=torch.bool)
        ancestors[:T, :T] = tree.ancestors()
        idx = torch.tensor([tree.tokens + [0] * (N - T)], device=self.device)
        pos = self.length + torch.tensor(tree.depths + [0] * (N - T), device=self.device)
        step = self.graph(self.tree_kind) if N == self.tree_size else GRAPHS[self.tree_kind]
        logits, h = step(self.model, self.cache, idx, pos, ancestors.to(self.device))
        return logits[0, :T], h[0, :T]

    def inputs(self, tokens, start):
        return (torch.tensor([tokens], device=self.device),
                torch.arange(start, start + len(tokens), device=self.device))

    def truncate(self, n):
        self.length = n  # the mask hides what lies past it (see StaticCache)


class StaticMTPDrafter(MTPDrafter):
    """`MTPDrafter` in kv-cache mode on a StaticCache, with steps for `sizes` new pairs (built and
    run as StaticRunner's: `build`, `graph`)."""

    def __init__(self, model, sizes=(1,), head=None):
        super().__init__(model, "kvcache", head)
        self.sizes = tuple(sizes)
        self.compile_s = self.build("mtp", self.sizes)

    def forward(self, h, next_tokens, start):
        check_positions(start + len(next_tokens) + max(self.sizes, default=0))
        T, feed = len(next_tokens), padded(next_tokens, self.sizes)
        if feed is None:  # the prompt: window-sized chunks, eagerly
            for i in range(0, T, self.window):
                logits, x = mtp_graph(self.model, self.head, self.cache, h[None, i:i + self.window],
                                     *self.inputs(next_tokens[i:i + self.window], start + i))
            return logits[0, -1], x[0, -1]
        h = torch.cat((h, h.new_zeros(len(feed) - T, h.shape[1])))
        logits, x = self.graph("mtp")(self.model, self.head, self.cache, h[None], *self.inputs(feed, start))
        return logits[0, T - 1], x[0, T - 1]

    inputs = StaticRunner.inputs
    build = StaticRunner.build
    graph = StaticRunner.graph

    def truncate(self, n):
        self.length = min(n, self.length)  # the mask hides what lies past it (see StaticCache)

    def new_cache(self, margin):
        return static_cache(self.model, mtp=True)
