"""The decoders, written once: plain decoding, one loop for a chain of drafts and one for a token
tree. Every drafter family is a runners.Drafter; experiments/methods.py builds them.

Notation (Leviathan et al. 2023, arXiv 2211.17192): p = main (target) model, q = drafter.
"""
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import torch

from experiments.engine import Plan, make_runner
from experiments.model import GPT
from experiments.rule import check_temperature, probs_from_logits, sample
from experiments.runners import Drafter, Runner
from experiments.trees import tree_accept


def check_gamma(gamma: int, block_size: int) -> int:
    """The main model checks γ drafts and the bonus position in one forward of at most block_size
    positions, so γ <= block_size - 1 in both modes."""
    if not 1 <= gamma <= block_size - 1:
        raise ValueError(f"gamma must be between 1 and {block_size - 1}: the main model verifies "
                         f"gamma drafts plus one bonus position in one window of {block_size}, got {gamma}")
    return gamma


def check_tree(n_nodes: int, block_size: int) -> int:
    """A token tree of candidates is verified in one forward of at most block_size positions; it
    holds the root and at least one candidate."""
    if not 2 <= n_nodes <= block_size:
        raise ValueError(f"tree must be between 2 and {block_size} nodes (one verify window), got {n_nodes}")
    return n_nodes


@dataclass
class Result:
    tokens: list[int]
    main_forwards: int = 0
    draft_forwards: int = 0
    proposed: int = 0
    accepted: int = 0
    rejected: int = 0  # rounds that ended in a rejection (each checked draft is accepted or this)
    run_lengths: list[int] = field(default_factory=list)  # drafts accepted per round of full length γ
    trace: list[dict] = field(default_factory=list)
    main_forward_s: float = 0.0   # wall seconds inside the main model's forwards
    draft_forward_s: float = 0.0  # ... inside the drafter's (its forwards, lookups or head calls)
    compile_s: float = 0.0        # compilation done by this call (compiled engine, first use only)

    def count_round(self, proposed: int, accepted: int, gamma: int) -> None:
        self.proposed += proposed
        self.accepted += accepted
        self.rejected += accepted < proposed
        if proposed == gamma:
            self.run_lengths.append(accepted)

    @property
    def tokens_per_main(self) -> float:
        return len(self.tokens) / self.main_forwards


def finished(result: Result, seq: list[int], prompt: Sequence[int], main: Runner, drafter: Drafter | None = None,
             trace: Iterable[dict] = ()) -> Result:
    """The result of a decode: the new tokens, and the counters of both sides."""
    result.tokens = seq[len(prompt):]
    result.trace = list(trace)
    result.main_forwards, result.main_forward_s = main.forwards, main.forward_s
    result.compile_s = main.compile_s
    if drafter is not None:
        result.draft_forwards, result.draft_forward_s = drafter.forwards, drafter.forward_s
        result.compile_s += drafter.compile_s
    return result


def plain_decode(model: GPT, prompt: Sequence[int], n: int, temperature: float = 1.0, mode: str = "kvcache",
                 generator: torch.Generator | None = None, engine: str = "eager") -> Result:
    """Autoregressive decoding: one main forward per token."""
    check_temperature(temperature)
    main = make_runner(model, Plan(mode), engine)
    seq = list(prompt)
    while len(seq) < len(prompt) + n:
        seq.append(main.sample_next(seq, temperature, generator))
    return finished(Result([]), seq, prompt, main)


def speculative_decode(model: GPT, drafter: Drafter, prompt: Sequence[int], n: int, gamma: int,
                       temperature: float = 1.0, mode: str = "kvcache", generator: torch.Generator | None = None,
                       trace: bool = False, engine: str = "eager") -> Result:
    """Speculative decoding with a chain of drafts: each round the drafter proposes up to γ
    tokens, the main model scores all of them (plus one more position) in one forward, and
    accept_reject keeps a prefix and draws the next token (Runner.verify). A round with no drafts (a drafter
    that reads the main model's features, before its first forward; prompt lookup without a
    match) is a plain main step. Invariant between rounds: the main model has processed all but
    the newest confirmed token, and the drafter has forgotten every rejected position."""
    check_gamma(gamma, model.cfg.block_size)
    check_temperature(temperature)
    # after the prompt, the main model sees the pending token + up to γ drafts per round
    main = make_runner(model, Plan(mode, sizes=(1, gamma + 1), margin=gamma, layers=drafter.layers), engine)
    seq = list(prompt)
    target = len(prompt) + n
    result, steps = Result([]), []
    while len(seq) < target:
        record = {} if trace else None
        # page listing: round (chapter/listings.py shows the lines down to its end on the page)
        m = len(seq)
        g = min(gamma, target - m - 1)  # never draft a token that would not be emitted
        q, drafts = drafter.propose(seq, main.length, g, temperature, generator) if g else (None, [])
        g = len(drafts)
        n_acc, token, h, start = main.verify(seq, drafts, q, temperature, generator, record)  # the rule
        drafter.observe(h, start)
        seq += drafts[:n_acc] + [token]
        main.truncate(m + n_acc)  # roll the caches back past the rejected drafts
        drafter.truncate(m + n_acc)
        # end page listing
        result.count_round(g, n_acc, gamma)
        if trace:
            next_from = "main" if g == 0 else "bonus" if n_acc == g else "residual"
            steps.append({"drafts": drafts, "n_accepted": n_acc, "emitted": drafts[:n_acc] + [token],
                          "next_from": next_from, **record})
    return finished(result, seq, prompt, main, drafter, steps)


def tree_decode(model: GPT, drafter: Drafter, prompt: Sequence[int], n: int, n_nodes: int, temperature: float = 1.0,
                generator: torch.Generator | None = None, engine: str = "eager", trace: bool = False) -> Result:
    """Speculative decoding with a token tree per main forward (kv-cache mode; experiments/trees.py):
    the drafter's tree(seq, n_nodes, max_depth) is verified in one forward and walked under p.
    The drafter hears the main model's features (observe) and each verify's outcome (verified)."""
    check_temperature(temperature)
    check_tree(n_nodes, model.cfg.block_size)
    main = make_runner(model, Plan(tree_size=n_nodes, layers=drafter.layers), engine)
    seq = list(prompt)
    target = len(prompt) + n
    result, steps = Result([]), []
    logits, h, start = main.extend(seq)
    drafter.observe(h, start)
    seq.append(sample(probs_from_logits(logits[-1], temperature), generator))
    while len(seq) < target:
        tree = drafter.tree(seq, n_nodes, max_depth=target - len(seq) - 1)
        logits, h = main.extend_tree(tree)
        p = probs_from_logits(logits, temperature)
        path, token = tree_accept(p, tree, generator)
        main.keep_path(path)
        drafter.observe(h[[0] + path], main.tree_start)  # the root and the accepted branch
        drafter.verified(tree, logits, path)
        accepted = [tree.tokens[i] for i in path]
        seq += accepted + [token]
        result.count_round(len(tree.tokens) - 1, len(path), n_nodes - 1)
        if trace:
            steps.append({"tokens": tree.tokens, "parents": tree.parents, "depths": tree.depths, "path": path,
                          "emitted": accepted + [token], "p": p, "start": len(seq) - len(accepted) - 2})
    return finished(result, seq, prompt, main, drafter, steps)
