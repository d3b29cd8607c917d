"""Token trees, written once: a tree of candidate continuations checked in one main forward.

The root is the pending token (sampled by the main model, not yet processed); every other node is
a candidate token whose parent comes before it. One forward processes all nodes at once: node i
sits at position root + depth(i) and its mask row lets it see the context and its own ancestors
only (SpecInfer, arXiv 2305.09781; Medusa, arXiv 2401.10774). So each node's logits are exactly
those of decoding its branch alone.

Verification keeps the main model's distribution for candidates that are a function of the context (not
sampled): walk down from the root; at node v draw x from p at v; if x is one of v's children,
descend to it, otherwise emit x and stop. Each emitted token is a sample from p given the tokens
before it; the tree only decides how many come out of one forward. At T = 0 (p one-hot) this is
greedy decoding.
"""
import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import torch

from experiments.rule import sample


@dataclass
class Tree:
    tokens: list[int]                                  # node tokens; node 0 is the root
    parents: list[int] = field(default_factory=list)   # parent of each node (-1 for the root), parents[i] < i
    depths: list[int] = field(default_factory=list)

    @classmethod
    def root(cls, token: int) -> "Tree":
        return cls([token], [-1], [0])

    def add(self, parent: int, token: int) -> int:
        self.tokens.append(token)
        self.parents.append(parent)
        self.depths.append(self.depths[parent] + 1)
        return len(self.tokens) - 1

    def add_path(self, tokens: Iterable[int], parent: int = 0) -> int:
        """Merge a chain of tokens below `parent` (a trie: shared prefixes share nodes)."""
        for token in tokens:
            parent = self.child(parent, token) or self.add(parent, token)
        return parent

    def child(self, node: int, token: int) -> int | None:
        return next((i for i in range(node + 1, len(self.tokens))
                     if self.parents[i] == node and self.tokens[i] == token), None)

    def ancestors(self) -> torch.Tensor:
        """[T, T] bool: row i is true at i and at every ancestor of i (the tree mask)."""
        T = len(self.tokens)
        mask = torch.eye(T, dtype=torch.bool)
        for i in range(1, T):
            mask[i] |= mask[self.parents[i]]
        return mask

    def path_to(self, node: int) -> list[int]:
        """The nodes from the root down to node."""
        out = []
        while node >= 0:
            out.append(node)
            node = self.parents[node]
        return out[::-1]

    def branch(self, node: int) -> list[int]:
        """Tokens from the root's first child down to node."""
        out = []
        while node > 0:
            out.append(self.tokens[node])
            node = self.parents[node]
        return out[::-1]


def best_first(root: int, n_nodes: int, propose: Callable[[list[int]], list[tuple[int, float]]]) -> Tree:
    """The tree of at most n_nodes nodes (root included) whose branches are the most likely under
    the drafter: propose(branch tokens) -> [(token, probability)] for the node after a branch.
    Candidates wait in a heap scored by the product of probabilities along their branch; the best
    one joins the tree, and its own children become candidates (EAGLE-2's dynamic tree, arXiv
    2406.16858; with a drafter blind to the branch, Medusa's)."""
    tree = Tree.root(root)
    heap = []  # (−score, tie-break, parent, token): the likeliest candidate first
    added = 0

    def offer(node, score):
        nonlocal added
        for token, prob in propose(tree.branch(node)):
            if prob > 0:
                heapq.heappush(heap, (-score * prob, added, node, token))
                added += 1

    offer(0, 1.0)
    while heap and len(tree.tokens) < n_nodes:
        neg_score, _, parent, token = heapq.heappop(heap)
        offer(tree.add(parent, token), -neg_score)
    return tree


def tree_accept(p: torch.Tensor, tree: Tree, generator: torch.Generator | None = None) -> tuple[list[int], int]:
    """Walk the tree under p [T, V] (one row per node). Returns (the accepted nodes top down,
    the next token)."""
    node, path = 0, []
    while True:
        x = sample(p[node], generator)
        child = tree.child(node, x)
        if child is None:
            return path, x
        path.append(child)
        node = child


def top_choices(probs: torch.Tensor, k: int) -> list[tuple[int, float]]:
    """The k most likely tokens of probs [V] with their probabilities (zeros left out)."""
    values, tokens = torch.topk(probs, min(k, probs.shape[0]))
    return [(t, v) for t, v in zip(tokens.tolist(), values.tolist()) if v > 0]

