"""Suffix decoding (Oliaro et al., arXiv 2411.04975; shipped in ArcticInference and vLLM): draft
what followed the text's latest characters wherever they occurred before, in two places at once:

- the corpus (here the training split), indexed once by a suffix array: every suffix of the text,
  sorted, so the occurrences of any pattern are one contiguous range found by binary search;
- the request itself (prompt + what has been written), searched afresh each round.

Each round, in each place, the pattern is the longest tail of the text (at most max_depth
characters) that occurs there; the continuations after its occurrences are counted into a trie,
and the speculation tree takes the most frequent continuations best-first. A node's score is
its count over the pattern's occurrences (the empirical probability of that continuation); a
child is kept only where it follows its parent at least min_prob of the time; and the tree has
at most factor × (pattern length) candidates, so a long match earns many drafts and a short one
few. Of the two trees, the one with the larger total score (the expected number of accepted
drafts, if the counts were the truth) drafts this round. A chain is that tree's likeliest branch.

Every draft is a function of the text, so q is one-hot (as prompt lookup's): the chain rule
accepts a draft with probability p(draft), the tree walk samples p at each node, and the output
keeps the main model's distribution; at T = 0 it is greedy decoding.

Simplified here: the paper's global tree holds the model's earlier *outputs*, and both trees
grow as text arrives; this corpus is the training text, fixed, and the request is searched
directly (it is short). At most max_occurrences occurrences of a pattern are counted, spread
evenly over its sorted range, so a short pattern's counts are a sample.
"""
import heapq
import math
from array import array

import numpy as np
import torch

from experiments.ngram import longest_recurring_tail
from experiments.runners import DrafterBase
from experiments.trees import Tree

MAX_DEPTH = 24          # the longest pattern matched, and the deepest continuation counted
FACTOR = 1.0            # candidates per round <= FACTOR × pattern length
MIN_PROB = 0.1          # a child must follow its parent at least this often
MAX_OCCURRENCES = 64    # occurrences counted per pattern


def suffix_array(ids, depth):
    """Start positions of the suffixes of ids (integers >= 0), sorted by their first `depth`
    characters (at least), ties in position order (prefix doubling: sort by rank pairs, 2, 4, 8 ... chars)."""
    n = len(ids)
    rank = np.asarray(ids, dtype=np.int64)
    order = np.argsort(rank, kind="stable")
    k = 1
    while k < depth:
        second = np.full(n, -1, dtype=np.int64)  # past the end sorts first: a shorter suffix is smaller
        second[:n - k] = rank[k:]
        order = np.lexsort((second, rank))
        r, s = rank[order], second[order]
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.concatenate(([0], np.cumsum((r[1:] != r[:-1]) | (s[1:] != s[:-1]))))
        k *= 2
    return order


class SuffixIndex:
    """The corpus and a suffix array of it read backwards (the reversed text's suffixes, sorted on
    their first max_depth characters). A tail of the text read backwards is a prefix of those
    suffixes, so the places where a tail occurs form one range of the array, and lengthening the
    tail by one character narrows the range by a binary search on that character alone."""

    def __init__(self, tokens, vocab_size=65, max_depth=MAX_DEPTH):
        if vocab_size > 256:
            raise ValueError(f"the suffix index codes a character in a byte: vocab_size {vocab_size} > 256")
        self.text, self.max_depth, self.vocab_size = bytes(tokens), max_depth, vocab_size
        self.reversed = self.text[::-1]
        self.order = array("l", suffix_array(list(self.reversed), max_depth).tolist())  # array: fast indexing

    def __len__(self):
        return len(self.text)

    def longest_tail(self, seq):
        """(length, lo, hi): the longest tail of seq (at most max_depth characters) that occurs in
        the corpus, and its range of self.order (length 0: not even the last character occurs)."""
        lo, hi, length = 0, len(self.order), 0
        for offset, char in enumerate(reversed(seq[-self.max_depth:])):
            # the suffixes in [lo, hi) share their first `offset` characters: the next one is sorted
            new_lo = self.bisect(char, offset, lo, hi, left=True)
            new_hi = self.bisect(char, offset, new_lo, hi, left=False)
            if new_lo == new_hi:
                break
            lo, hi, length = new_lo, new_hi, offset + 1
        return length, lo, hi

    def bisect(self, char, offset, lo, hi, left):
        """The first of order[lo:hi] whose character at `offset` is >= char (left) or > char;
        a suffix too short to have one sorts first, as in suffix_array."""
        order, text, n = self.order, self.reversed, len(self.reversed)
        while lo < hi:
            mid = (lo + hi) // 2
            at = order[mid] + offset
            c = text[at] if at < n else -1
            if c < char or (not left and c == char):
                lo = mid + 1
            else:
                hi = mid
        return lo

    def end(self, i):
        """Where, in the corpus read forwards, the occurrence of a tail at order[i] ends (exclusive)."""
        return len(self.text) - self.order[i]


def count_trie(text, starts, depth):
    """A trie {char: [count, children]} of the continuations text[s:s + depth] for s in starts."""
    root = {}
    for s in starts:
        node = root
        for char in text[s:s + depth]:
            entry = node.get(char)
            if entry is None:
                entry = node[char] = [0, {}]
            entry[0] += 1
            node = entry[1]
    return root


def speculation_tree(root_token, trie, occurrences, budget, min_prob=MIN_PROB, max_depth=MAX_DEPTH):
    """(Tree, score): up to `budget` candidates of the trie, at most max_depth deep, best-first by
    count / occurrences, each child kept only where count(child) / count(parent) >= min_prob;
    ties by character. The score is the sum of the candidates' scores."""
    tree, score = Tree.root(root_token), 0.0
    heap = [(-count, char, 0, children) for char, (count, children) in trie.items()
            if count >= min_prob * occurrences]
    heapq.heapify(heap)
    while heap and len(tree.tokens) <= budget:
        neg_count, char, parent, children = heapq.heappop(heap)
        node = tree.add(parent, char)
        score += -neg_count / occurrences
        if tree.depths[node] >= max_depth:
            continue
        for child, (count, grandchildren) in children.items():
            if count >= min_prob * -neg_count:
                heapq.heappush(heap, (-count, child, node, grandchildren))
    return tree, score


class SuffixDrafter(DrafterBase):
    """Suffix decoding as a Drafter: token trees (tree) and chains (propose: the likeliest
    child at each step), from the corpus index and the request's own text, whichever scores higher."""

    def __init__(self, index, factor=FACTOR, min_prob=MIN_PROB, max_occurrences=MAX_OCCURRENCES):
        super().__init__()
        self.index, self.factor, self.min_prob, self.max_occurrences = index, factor, min_prob, max_occurrences
        self.sources = {"corpus": 0, "request": 0}  # rounds each place drafted

    def corpus_counts(self, seq, depth):
        """(trie, occurrences counted, pattern length) of the corpus, or None without a match."""
        length, lo, hi = self.index.longest_tail(seq)
        if length == 0:
            return None
        m, k = hi - lo, self.max_occurrences
        picks = range(lo, hi) if m <= k else (lo + i * m // k for i in range(k))
        starts = [self.index.end(i) for i in picks]
        return count_trie(self.index.text, starts, depth), len(starts), length

    def request_counts(self, seq, depth):
        """The same for the request's text: the latest occurrences of its longest recurring tail."""
        found = longest_recurring_tail(seq, 1)
        if found is None:
            return None
        text, length = bytes(seq), min(found[0], self.index.max_depth)
        pattern, ends = text[len(text) - length:], []
        at = text.rfind(pattern, 0, len(text) - 1)  # occurrences that end before the text does
        while at >= 0 and len(ends) < self.max_occurrences:
            ends.append(at + length)
            at = text.rfind(pattern, 0, at + length - 1)
        return count_trie(text, ends, depth), len(ends), length

    def best(self, seq, limit, depth, build):
        """build(trie, occurrences, budget) -> (tree, score) in both places, from continuations of
        `depth` characters; the higher score's tree. The budget is min(limit, factor × pattern length)."""
        best, source = None, None
        for name, counts in (("corpus", self.corpus_counts), ("request", self.request_counts)):
            found = counts(seq, depth)
            budget = 0 if found is None else min(limit, math.floor(self.factor * found[2]))
            if budget >= 1:
                tree, score = build(found[0], found[1], budget)
                if best is None or score > best[1]:
                    best, source = (tree, score), name
        if best is None:
            return Tree.root(seq[-1])
        self.sources[source] += 1
        return best[0]

    def tree(self, seq, n_nodes, max_depth):
        with self.timed(forwards=1):
            tree = self.best(seq, n_nodes - 1, min(n_nodes - 1, max_depth),
                             lambda trie, occurrences, budget: speculation_tree(seq[-1], trie, occurrences, budget,
                                                                                self.min_prob, max_depth))
        return tree

    def propose(self, seq, main_length, g, temperature, generator=None):
        with self.timed():
            tree = self.best(seq, g, g, lambda trie, occurrences, budget: likeliest_chain(seq[-1], trie, occurrences,
                                                                                       budget, self.min_prob))
            drafts = tree.tokens[1:]
            q = (torch.nn.functional.one_hot(torch.tensor(drafts, dtype=torch.long), self.index.vocab_size).float()
                 if drafts else None)
        self.forwards += len(drafts)
        self.length = len(seq) + max(len(drafts) - 1, 0)
        return q, drafts


def likeliest_chain(root_token, trie, occurrences, budget, min_prob=MIN_PROB):
    """(Tree, score) of one branch: from the root, the most frequent child (ties: the smaller
    character) while it follows its parent at least min_prob of the time, up to `budget` drafts."""
    tree, score, node, parent_count = Tree.root(root_token), 0.0, trie, occurrences
    while len(tree.tokens) <= budget and node:
        char, (count, children) = min(node.items(), key=lambda item: (-item[1][0], item[0]))
        if count < min_prob * parent_count:
            break
        tree.add(len(tree.tokens) - 1, char)
        score += count / occurrences
        node, parent_count = children, count
    return tree, score
