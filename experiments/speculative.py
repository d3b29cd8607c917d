"""Decoding, written once: the sampler, the acceptance rule, and three decoders (plain,
draft-model speculative, MTP self-speculative), each in `recompute` or `kvcache` mode.

Notation (Leviathan et al. 2023, arXiv 2211.17192): p = main (target) model, q = draft.
"""
import bisect
import math
import time
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from experiments.model import ROLLBACK_MARGIN

MODES = ("recompute", "kvcache")
ENGINES = ("eager", "compiled")  # experiments/engine.py: the compiled one runs in kv-cache mode only

# The smallest temperature above 0 that sampling accepts: a floor chosen far above the T where
# logits / T overflows float32 (at T = 1e-45 the softmax is NaN and the sampler emits garbage).
# Use T = 0 for greedy.
MIN_TEMPERATURE = 0.01


def check_temperature(temperature):
    if not (temperature == 0 or MIN_TEMPERATURE <= temperature < math.inf):  # NaN fails both
        raise ValueError(f"temperature must be 0 (greedy) or a finite number >= {MIN_TEMPERATURE}, "
                         f"got {temperature}")
    return temperature


def check_gamma(gamma, block_size):
    """The main model checks γ drafts and the bonus position in one forward of at most block_size
    positions, so γ <= block_size - 1 in both modes."""
    if not 1 <= gamma <= block_size - 1:
        raise ValueError(f"gamma must be between 1 and {block_size - 1}: the main model verifies "
                         f"gamma drafts plus one bonus position in one window of {block_size}, got {gamma}")
    return gamma


def probs_from_logits(logits, temperature):
    """Temperature divides the logits; T = 0 is a one-hot at the argmax (greedy)."""
    check_temperature(temperature)
    if temperature == 0:
        return F.one_hot(logits.argmax(-1), logits.shape[-1]).to(logits.dtype)
    return torch.softmax(logits if temperature == 1 else logits / temperature, dim=-1)


def sample(probs, generator=None):
    """One token id drawn from a probability vector, by inverting its CDF on the host (three
    small ops; torch.multinomial costs about three times as much per call on the CPU)."""
    cdf = probs.cumsum(0).tolist()
    u = torch.rand(1, generator=generator, dtype=torch.float64, device=probs.device).item()
    i = bisect.bisect_right(cdf, u * cdf[-1])
    if i == len(cdf):  # rounding put u at the very top: take the last token with any mass
        i = len(cdf) - 1
        while i > 0 and cdf[i] == cdf[i - 1]:
            i -= 1
    return i


def uniforms(n, generator=None, dtype=torch.float32, device="cpu"):
    return torch.rand(n, generator=generator, dtype=dtype, device=device)


def residual(p_i, q_i):
    """normalize(max(0, p - q)); falls back to p when the residual mass is only rounding."""
    r = (p_i - q_i).clamp_(min=0)
    mass = float(r.sum())
    return p_i if mass <= 1e-12 else r / mass


def accept_reject(p, q, drafts, generator=None, trace=None):
    """Verify γ drafts. p: [γ+1, V] main distributions, q: [γ, V] draft distributions,
    drafts: [γ] the draft's tokens. Draft i is accepted when u_i < min(1, p_i(d_i)/q_i(d_i)),
    left to right; at the first rejection the next token comes from the residual
    normalize(max(0, p_i - q_i)); if all γ pass, a bonus token comes from p_γ.
    Returns (n_accepted, next_token). With `trace` (a dict), records u, p(d), q(d)."""
    gamma = drafts.shape[0]
    index = drafts.to(p.device)[:, None]
    p_d = p[:gamma].gather(1, index)[:, 0].tolist()
    q_d = q.gather(1, index)[:, 0].tolist()
    u = uniforms(gamma, generator, p.dtype, p.device).tolist()
    n = 0
    while n < gamma and q_d[n] > 0 and u[n] * q_d[n] < p_d[n]:  # u < p/q; q(d) = 0 never accepts
        n += 1
    if trace is not None:
        trace.update(u=u, p_draft=p_d, q_draft=q_d)
    if n == gamma:
        return n, sample(p[gamma], generator)
    return n, sample(residual(p[n], q[n]), generator)


def check_engine(engine, mode):
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if engine == "compiled" and mode != "kvcache":
        raise ValueError("engine compiled runs in kvcache mode only (it is a static kv cache): use --mode kvcache")
    return engine


def make_runner(model, mode, engine, sizes=(1,), lookahead=None, mtp=False, round=None, head=None, tree_size=None):
    """A Runner (an MTPRunner with mtp=True, over `head` if given) in the given engine. For the compiled engine:
    `sizes` are the numbers of new positions per call it compiles for (others are padded up to
    one), round = (γ, T) compiles a whole draft round of γ steps and their sampling, and
    tree_size a verify of a token tree of that many nodes (smaller trees are padded up)."""
    check_engine(engine, mode)
    if engine == "eager":
        return MTPRunner(model, mode, head) if mtp else Runner(model, mode, lookahead)
    from experiments import engine as compiled  # it builds on the classes below: import late
    if mtp:
        return compiled.CompiledMTPRunner(model, sizes, head)
    return compiled.CompiledRunner(model, sizes, round, tree_size)


class Runner:
    """One model run over a growing sequence. `extend(seq)` computes the positions of seq that
    are not processed yet and returns (logits, h, start): rows for absolute positions
    start, start+1, ... In `kvcache` mode those are just the new positions; in `recompute`
    mode the whole sequence is cropped to its last block_size tokens and rerun.
    `truncate(n)` forgets positions n and later (the kv-cache rollback). `lookahead` = γ sizes the
    cache for speculative decoding; `forward_s` sums the wall seconds spent in the model."""

    def __init__(self, model, mode, lookahead=None):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.model, self.mode = model, mode
        self.window = model.cfg.block_size
        # A round that confirmed m tokens rolls back to n >= m; the furthest forward so far
        # started at m + γ - 2 (the draft's last) or m - 1 (main). KVCache rolls back to
        # n >= that start - margin, so margin γ - 2 is the least that works; γ is used.
        margin = ROLLBACK_MARGIN if lookahead is None else lookahead
        self.device = model.tok_emb.weight.device
        self.cache = self.new_cache(margin) if mode == "kvcache" else None
        self.sync = self.device.type == "cuda"  # time the kernels, not their launch
        self.length = 0
        self.forwards = 0
        self.forward_s = 0.0
        self.compile_s = 0.0  # the compiled engine's compilation, kept out of forward_s

    def new_cache(self, margin):
        return self.model.new_cache(margin=margin)

    def extend(self, seq):
        if self.mode == "kvcache":
            start, tokens = self.length, seq[self.length:]
        else:
            start = max(0, len(seq) - self.window)
            tokens = seq[start:]
        logits, h = self.timed(self.forward, tokens, start)
        self.length = len(seq)
        return logits, h, start

    def timed(self, forward, *args):
        t0 = time.perf_counter()
        out = forward(*args)
        if self.sync:
            torch.cuda.synchronize(self.device)
        self.forward_s += time.perf_counter() - t0
        self.forwards += 1
        return out

    def extend_tree(self, tree):
        """Logits [T, V] and features of every node of a token tree (experiments/trees.py) whose root is the
        token at position self.length; kv-cache mode only. keep_path follows."""
        self.tree_start = self.length
        if len(tree.tokens) == 1:  # no candidates: an ordinary one-token forward
            logits, h = self.timed(self.forward, tree.tokens, self.length)
        else:
            logits, h = self.timed(self.forward_tree, tree)
        self.length += len(tree.tokens)
        return logits, h

    def forward_tree(self, tree):
        logits, h = self.model(torch.tensor([tree.tokens], device=self.device), cache=self.cache, tree=tree)
        return logits[0], h[0]

    def keep_path(self, path):
        """Keep the root and the accepted nodes of the last tree as the next positions."""
        self.cache.keep_path(self.tree_start, path)
        self.length = self.tree_start + 1 + len(path)

    def forward(self, tokens, start):
        """Logits and hidden states [T, ...] of tokens at absolute positions start, start+1, ..."""
        logits, h = self.model(torch.tensor([tokens], device=self.device), cache=self.cache)
        return logits[0], h[0]

    def truncate(self, n):
        self.length = n
        if self.cache is not None:
            self.cache.rollback(n)

    def draft_round(self, seq, g, temperature, generator=None):
        """Draft g tokens after seq, one forward and one sample each: returns (q [g, V], the
        drafts). Afterwards the runner has processed all of seq and every draft but the last."""
        q_rows, drafts = [], []
        for _ in range(g):
            logits, _, _ = self.extend(seq + drafts)
            q_rows.append(probs_from_logits(logits[-1], temperature))
            drafts.append(sample(q_rows[-1], generator))
        return torch.stack(q_rows), drafts


class MTPRunner:
    """The MTP head over confirmed pairs (h_j, x_{j+1}); its last row drafts the token after
    the pending one. Hidden states come from the main model's latest forward (`observe`).
    `head` is any module shaped like the MTP head (default: the model's own); an EAGLE drafter
    is one (experiments/heads.py)."""

    def __init__(self, model, mode, head=None):
        if head is None and model.mtp is None:
            raise ValueError("this checkpoint has no MTP head (it was trained with --mtp 0)")
        self.model, self.mode, self.head = model, mode, head or model.mtp
        self.window = model.cfg.block_size
        self.device = model.tok_emb.weight.device
        self.cache = self.new_cache() if mode == "kvcache" else None
        self.sync = self.device.type == "cuda"
        self.length = 0
        self.forwards = 0
        self.forward_s = 0.0
        self.compile_s = 0.0  # the compiled engine's compilation, kept out of forward_s

    def new_cache(self):
        return self.model.new_cache(mtp=True)

    def observe(self, h, start):
        self.h, self.h_start = h, start

    def extend(self, seq, main_length):
        """Draft logits and the head's output feature for position main_length + 1, from pairs
        j < main_length."""
        if self.mode == "kvcache":
            first = self.length
        else:
            first = max(self.h_start, main_length - self.window)
        h = self.h[first - self.h_start:main_length - self.h_start]
        t0 = time.perf_counter()
        logits, feature = self.forward(h, seq[first + 1:main_length + 1], first)
        if self.sync:
            torch.cuda.synchronize(h.device)
        self.forward_s += time.perf_counter() - t0
        self.length = main_length
        self.forwards += 1
        return logits, feature

    def draft_round(self, seq, main_length, g, temperature, generator=None):
        """g drafts after seq (main_length + 1 tokens long): the first from the main model's real
        features, each next one from the feature the head predicted the step before (EAGLE's
        chain). The chained positions are forgotten at the end of the round: the next round
        recomputes them from the main model's real features."""
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
        from experiments.trees import Tree, top_choices  # trees builds on this module: import late
        L = len(seq) - 1  # the pending token's position
        logits, feature = self.extend(seq, L)
        t0 = time.perf_counter()
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
            for node, feature in self.tree_step(cand, frontier, L, features).items():
                features[node] = feature
                probs[node] = torch.softmax(self.model.head(feature), -1)
        kept = sorted(sorted(range(1, len(cand.tokens)), key=lambda i: (-score[i], i))[:n_nodes - 1])
        tree, index = Tree.root(seq[-1]), {0: 0}
        for i in kept:  # a child is never likelier than its parent: the kept set is closed under parents
            index[i] = tree.add(index[cand.parents[i]], cand.tokens[i])
        self.forward_s += time.perf_counter() - t0
        return tree

    def verified(self, tree, logits, path):
        """Nothing to learn from a verify: the next round re-reads the main model's features."""

    def tree_step(self, cand, frontier, L, features):
        """Features of the frontier nodes of `cand`: their branches' pairs as one token tree whose
        root is the real pair at position L − 1 (already cached: re-fed, then kept)."""
        from experiments.trees import Tree
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


class Drafter:
    """What a drafter without a model of its own shares (n-gram table, prompt lookup, Medusa,
    lookahead): counters like a runner's, and hooks a decoder calls that most ignore."""

    def __init__(self):
        self.length = 0
        self.forwards = 0   # draft rounds or lookups, each counted like a forward
        self.forward_s = 0.0
        self.compile_s = 0.0

    def truncate(self, n):
        self.length = n

    def observe(self, h, start):
        """The main model's features h [T, C] for positions start, start + 1, ..."""

    def verified(self, tree, logits, path):
        """The outcome of a tree verify: every node's logits and the accepted nodes."""


@dataclass
class Result:
    tokens: list
    main_forwards: int = 0
    draft_forwards: int = 0
    proposed: int = 0
    accepted: int = 0
    rejected: int = 0  # rounds that ended in a rejection (each checked draft is accepted or this)
    run_lengths: list = field(default_factory=list)  # drafts accepted per round of full length γ
    trace: list = field(default_factory=list)
    main_forward_s: float = 0.0   # wall seconds inside the main model's forwards
    draft_forward_s: float = 0.0  # ... inside the draft model's or the MTP head's
    compile_s: float = 0.0        # compilation done by this call (compiled engine, first use only)

    def count_round(self, proposed, accepted, gamma):
        self.proposed += proposed
        self.accepted += accepted
        self.rejected += accepted < proposed
        if proposed == gamma:
            self.run_lengths.append(accepted)

    @property
    def tokens_per_main(self):
        return len(self.tokens) / self.main_forwards


def plain_decode(model, prompt, n, temperature=1.0, mode="kvcache", generator=None, trace=False,
                 engine="eager"):
    """Autoregressive decoding: one main forward per token."""
    check_temperature(temperature)
    main = make_runner(model, mode, engine)
    seq = list(prompt)
    steps = []
    while len(seq) < len(prompt) + n:
        logits, _, _ = main.extend(seq)
        seq.append(sample(probs_from_logits(logits[-1], temperature), generator))
        if trace:
            steps.append({"emitted": [seq[-1]], "kinds": ["main"]})
    return Result(seq[len(prompt):], main.forwards, trace=steps, main_forward_s=main.forward_s,
                  compile_s=main.compile_s)


def speculative_decode(model, draft_model, prompt, n, gamma, temperature=1.0, mode="kvcache",
                       generator=None, trace=False, engine="eager"):
    """Draft-model speculative decoding: the draft proposes γ tokens autoregressively, the main
    model scores all of them (plus one more position) in one forward, accept_reject decides.
    draft_model is a GPT, or anything with a drafter() (the n-gram table).
    Invariant between rounds: both models have processed all but the newest confirmed tokens."""
    check_gamma(gamma, model.cfg.block_size)
    check_temperature(temperature)
    # after the prompt, main sees the pending token + γ drafts (or the pending token alone, when a
    # drafter proposes nothing); the draft 1 or 2 new tokens
    main = make_runner(model, mode, engine, sizes=(1, gamma + 1), lookahead=gamma)
    if hasattr(draft_model, "drafter"):  # a drafter without a model (experiments/ngram.py)
        draft = draft_model.drafter()
    else:
        draft = make_runner(draft_model, mode, engine, sizes=(1, 2), lookahead=gamma, round=(gamma, temperature))
    seq = list(prompt)
    target = len(prompt) + n
    result, steps = Result([]), []
    while len(seq) < target:
        m = len(seq)
        g = min(gamma, target - m - 1)  # never draft a token that would not be emitted
        q, drafts = draft.draft_round(seq, g, temperature, generator) if g else (None, [])
        g = len(drafts)  # a drafter may propose fewer (prompt lookup, where the text has no match)
        seq += drafts  # the rejected ones are cut off below
        logits, _, _ = main.extend(seq)
        p = probs_from_logits(logits[-(g + 1):], temperature)
        q = p[:0] if q is None else q
        record = {} if trace else None
        n_acc, token = accept_reject(p, q, torch.tensor(drafts, dtype=torch.long), generator, record)
        del seq[m + n_acc:]
        seq.append(token)
        main.truncate(m + n_acc)
        draft.truncate(min(m + n_acc, draft.length))
        result.count_round(g, n_acc, gamma)
        if trace:
            kind = "resample" if n_acc < g else ("bonus" if g else "main")
            steps.append({"drafts": drafts, "n_accepted": n_acc, "emitted": drafts[:n_acc] + [token],
                          "kinds": ["draft"] * n_acc + [kind], **record})
    result.tokens = seq[len(prompt):]
    result.main_forwards, result.draft_forwards, result.trace = main.forwards, draft.forwards, steps
    result.main_forward_s, result.draft_forward_s = main.forward_s, draft.forward_s
    result.compile_s = main.compile_s + draft.compile_s
    return result


def mtp_decode(model, prompt, n, temperature=1.0, mode="kvcache", generator=None, trace=False,
               engine="eager"):
    """MTP self-speculative decoding (γ = 1): each main forward verifies the head's draft and
    samples one more token; the head then drafts the token after that from the main model's
    hidden state and the embedding of the token just emitted."""
    return feature_decode(model, None, prompt, n, 1, temperature, mode, generator, trace, engine)


def feature_decode(model, drafter, prompt, n, gamma, temperature=1.0, mode="kvcache", generator=None,
                   trace=False, engine="eager"):
    """Speculative decoding with a drafter that reads the main model's hidden states: the MTP head
    (drafter None), or a FeatureDrafter (Medusa heads, EAGLE; experiments/heads.py). Each round
    the drafter proposes γ tokens from the features of the latest main forward, the main model
    verifies them in one forward, accept_reject decides. Between rounds the main model has
    processed all but the newest confirmed token; the first token is a plain main sample."""
    check_gamma(gamma, model.cfg.block_size)
    check_temperature(temperature)
    # after the prompt, both see at most γ + 1 new positions per round
    main = make_runner(model, mode, engine, sizes=(1, gamma + 1), lookahead=gamma)
    if drafter is None:
        head = make_runner(model, mode, engine, sizes=(1, gamma + 1), mtp=True)
    else:
        head = drafter.runner(mode, engine, gamma)
    seq = list(prompt)
    target = len(prompt) + n
    result, steps = Result([]), []
    logits, h, start = main.extend(seq)  # the prompt: the first token is a plain main sample
    head.observe(h, start)
    seq.append(sample(probs_from_logits(logits[-1], temperature), generator))
    if trace:
        steps.append({"drafts": [], "n_accepted": 0, "emitted": [seq[-1]], "kinds": ["main"]})
    while len(seq) < target:
        m = len(seq)
        g = min(gamma, target - m - 1)  # never draft a token that would not be emitted
        q, drafts = head.draft_round(seq, main.length, g, temperature, generator) if g else (None, [])
        logits, h, start = main.extend(seq + drafts)
        head.observe(h, start)
        p = probs_from_logits(logits[-(g + 1):], temperature)
        record = {} if trace else None
        n_acc, token = accept_reject(p, p[:0] if q is None else q, torch.tensor(drafts, dtype=torch.long),
                                     generator, record)
        seq += drafts[:n_acc] + [token]
        main.truncate(m + n_acc)
        result.count_round(g, n_acc, gamma)
        if trace:
            kind = "resample" if n_acc < g else ("bonus" if g > 1 else "main")
            steps.append({"drafts": drafts, "n_accepted": n_acc, "emitted": drafts[:n_acc] + [token],
                          "kinds": ["draft"] * n_acc + [kind], **record})
    result.tokens = seq[len(prompt):]
    result.main_forwards, result.draft_forwards, result.trace = main.forwards, head.forwards, steps
    result.main_forward_s, result.draft_forward_s = main.forward_s, head.forward_s
    result.compile_s = main.compile_s + head.compile_s
    return result
