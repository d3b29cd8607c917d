"""Two drafters without a model. A character n-gram drafter: retrieval-based drafting (REST, arXiv 2311.08252, drafts from a
datastore), here the simplest datastore there is — counts of every character after every context
of up to order − 1 characters in the training split.

q is a real distribution (the counts after the longest context that occurs, backing off to shorter
ones), so the one acceptance rule min(1, p/q) applies unchanged and the output keeps the main
model's distribution. A draft costs a dictionary lookup and a few small tensor ops: no forward at all.

And prompt lookup decoding: copy what followed the latest earlier occurrence of the last k
characters of prompt + output. Its drafts are deterministic (one-hot q), and where the text has
no earlier match it drafts nothing that round.

And the two together (MatchDrafter): copy what followed the longest earlier match of the text's
tail (at least min_match characters; one-hot q), and draft the rest of the round from the table
(real q) — the simplest form of suffix-based drafting (cf. SuffixDecoding, arXiv 2411.04975,
which keeps a suffix tree over many texts and drafts trees; this is not that method).
"""
import numpy as np
import torch

from experiments.rule import probs_from_logits, sample
from experiments.runners import DrafterBase
from experiments.trees import Tree, best_first, top_choices

DEFAULT_ORDER = 5
MAX_ORDER = 10  # a (context, next char) pair is coded in base 65 in an int64: 65^10 < 2^63


class NgramTable:
    """Counts of next characters per context, for every context length 0 .. order − 1."""

    def __init__(self, tokens, order=DEFAULT_ORDER, vocab_size=65):
        if not 1 <= order <= MAX_ORDER:
            raise ValueError(f"order must be between 1 and {MAX_ORDER}, got {order}")
        self.order, self.vocab_size = order, vocab_size
        ids = np.asarray(tokens, dtype=np.int64)
        self.counts = {}  # (context length, context code) -> next-char probabilities [V], float32
        for length in range(order):
            # a context of `length` chars before position i, coded in base V (first char most significant)
            code = np.zeros(len(ids) - length, dtype=np.int64)
            for j in range(length):
                code = code * vocab_size + ids[j:len(ids) - length + j]
            pairs, n = np.unique(code * vocab_size + ids[length:], return_counts=True)
            for context, nxt, count in zip((pairs // vocab_size).tolist(), (pairs % vocab_size).tolist(), n.tolist()):
                row = self.counts.setdefault((length, context), np.zeros(vocab_size, dtype=np.float32))
                row[nxt] = count
        for row in self.counts.values():
            row /= row.sum()  # each row becomes the distribution after its context
        # q at T = 0: a one-hot at each context's first most frequent char (what probs_from_logits
        # makes of the log counts), as a row of one shared identity: no state builds up across decodes
        self.greedy_char = {key: int(row.argmax()) for key, row in self.counts.items()}
        self.one_hot = torch.eye(vocab_size)

    def entries(self):
        """Contexts stored, and (context, next char) pairs with a nonzero probability."""
        return len(self.counts), int(sum(np.count_nonzero(row) for row in self.counts.values()))

    def context_key(self, seq):
        """(length, code) of the longest context of seq's tail that occurs in the table."""
        for length in range(min(self.order - 1, len(seq)), -1, -1):
            code = 0
            for c in seq[len(seq) - length:]:
                code = code * self.vocab_size + c
            if (length, code) in self.counts:
                return length, code
        raise AssertionError("the empty context always occurs")

    def context_probs(self, seq):
        """The next-char distribution after seq: the longest context of seq's tail that occurs."""
        return torch.from_numpy(self.counts[self.context_key(seq)])  # shares the table's memory: never written to

    def q(self, seq, temperature):
        """q at temperature T: counts^(1/T), normalized; T = 0 is a one-hot at the most frequent."""
        if temperature == 0:
            return self.one_hot[self.greedy_char[self.context_key(seq)]]  # a view: never written to
        probs = self.context_probs(seq)
        if temperature == 1:
            return probs
        # the log probabilities are the table's logits: counts^(1/T) itself underflows float32
        # at small T (a flat context's every count^(1/T) is 0, and 0/0 is NaN); a char that never
        # followed the context has log 0 = -inf and keeps probability exactly 0
        return probs_from_logits(probs.log(), temperature)


class NgramDrafter(DrafterBase):
    """The table as a Drafter (experiments/runners.py): each draft is a lookup, counted in
    `forwards` and timed in `forward_s` like a model's forward."""

    def __init__(self, table):
        super().__init__()
        self.table = table

    def propose(self, seq, main_length, g, temperature, generator=None):
        with self.timed(forwards=g):
            q_rows, drafts = [], []
            context = list(seq[-(self.table.order - 1):]) if self.table.order > 1 else []
            for _ in range(g):
                q_rows.append(self.table.q(context + drafts, temperature))
                drafts.append(sample(q_rows[-1], generator))
        self.length = len(seq) + g - 1
        return torch.stack(q_rows), drafts

    def tree(self, seq, n_nodes, max_depth):
        """The most likely continuations under the table's own frequencies (whatever the
        temperature: a tree's candidates are checked by sampling p, so q only ranks them)."""
        with self.timed(forwards=1):
            context = list(seq[-(self.table.order - 1):]) if self.table.order > 1 else []
            propose = lambda branch: (top_choices(self.table.context_probs(context + branch), n_nodes)
                                      if len(branch) < max_depth else [])
            tree = best_first(seq[-1], n_nodes, propose)
        return tree


class PromptLookup:
    """Prompt lookup: drafts copied from the text itself (the prompt and what was written)."""

    def __init__(self, ngram=3, vocab_size=65):
        if ngram < 1:
            raise ValueError(f"the lookup n-gram must be at least 1 character, got {ngram}")
        self.ngram, self.vocab_size = ngram, vocab_size

    def continuation(self, seq, g):
        """Up to g characters that followed the latest earlier occurrence of seq's last ngram."""
        return next(self.continuations(seq, g), [])

    def continuations(self, seq, g):
        """What followed each earlier occurrence of seq's last ngram (up to g characters), latest first."""
        k = self.ngram
        if len(seq) <= k:
            return
        tail = seq[-k:]
        for start in range(len(seq) - k - 1, -1, -1):
            if seq[start:start + k] == tail:
                yield seq[start + k:start + k + g]



class LookupDrafter(DrafterBase):
    """Prompt lookup as a Drafter: proposes the continuation (possibly fewer than g drafts, or
    none), each with a one-hot q: the acceptance rule then keeps a draft exactly when p's own
    sample would have been it."""

    def __init__(self, lookup):
        super().__init__()
        self.lookup = lookup

    def propose(self, seq, main_length, g, temperature, generator=None):
        with self.timed():
            drafts = self.lookup.continuation(seq, g)
            q = torch.nn.functional.one_hot(torch.tensor(drafts, dtype=torch.long), self.lookup.vocab_size).float() if drafts else None
        self.forwards += len(drafts)
        self.length = len(seq) + max(len(drafts) - 1, 0)
        return q, drafts

    def tree(self, seq, n_nodes, max_depth):
        """The continuations of every earlier match, latest first, merged into one tree."""
        with self.timed(forwards=1):
            tree = Tree.root(seq[-1])
            for path in self.lookup.continuations(seq, min(max_depth, n_nodes - 1)):
                if len(tree.tokens) + len(path) > n_nodes:
                    break
                tree.add_path(path)
        return tree



def longest_recurring_tail(seq, shortest=1):
    """(length, end) of the longest suffix of seq (at least `shortest` characters) that also
    occurs ending at some end < len(seq), with the latest such end; None if there is none.

    No index is needed (nothing to reset when a new decode starts): a suffix of length L occurs
    ending earlier iff its reverse occurs in reversed(seq) at an offset >= 1, and that is monotone
    in L, so a galloping then binary search finds the longest in O(log n) bytes.find scans, each
    linear and in C (a few µs at a few thousand characters). Characters are coded in bytes."""
    n, k = len(seq), shortest
    if n - 1 < k:
        return None
    rev = bytes(reversed(seq))  # rev[i] = seq[n-1-i]; seq[e-L:e] reversed is rev[n-e:n-e+L]

    def latest(length):  # smallest offset j = n - e >= 1 where the length-L suffix recurs, or -1
        return rev.find(rev[:length], 1)

    j = latest(k)
    if j < 0:
        return None
    found, missing, gallop = k, n, True  # a suffix of all n characters cannot end before n
    while missing - found > 1:  # gallop up from k until a length does not recur, then bisect
        length = min(2 * found, missing - 1) if gallop else (found + missing) // 2
        at = latest(length)
        if at < 0:
            missing, gallop = length, False
        else:
            found, j = length, at
    return found, n - j

class MatchDrafter(DrafterBase):
    """Copy, then the table: each round first copies up to g characters that followed the latest
    earlier occurrence of the longest suffix of seq (at least min_match characters) that also
    ends earlier in seq, with one-hot q rows as LookupDrafter; where the copy runs into the end of
    seq, or nothing matches, the round's remaining drafts are sampled from the table as
    NgramDrafter's (table.q of the context and every draft so far, copied ones included). Each q
    row is the distribution its draft was drawn from, so the acceptance rule is unchanged.
    The search is longest_recurring_tail."""

    def __init__(self, table, min_match=6):
        if min_match < 1:
            raise ValueError(f"min_match must be at least 1 character, got {min_match}")
        if table.vocab_size > 256:
            raise ValueError(f"the match search codes a character in a byte: vocab_size {table.vocab_size} > 256")
        super().__init__()
        self.table, self.min_match = table, min_match
        self.copied = 0  # drafts that were copies (the rest came from the table)

    def match(self, seq):
        """(length, end) of the longest suffix of seq of at least min_match characters that also
        occurs ending at end < len(seq), the latest such end; None if there is none."""
        return longest_recurring_tail(seq, self.min_match)

    def continuation(self, seq, g):
        """Up to g characters that followed the longest earlier match ([] if none)."""
        found = self.match(seq)
        return [] if found is None else list(seq[found[1]:found[1] + g])

    def propose(self, seq, main_length, g, temperature, generator=None):
        with self.timed(forwards=g):
            drafts = self.continuation(seq, g)
            q_rows = list(torch.nn.functional.one_hot(torch.tensor(drafts, dtype=torch.long), self.table.vocab_size).float()) if drafts else []
            self.copied += len(drafts)
            context = list(seq[-(self.table.order - 1):]) if self.table.order > 1 else []
            while len(drafts) < g:
                q_rows.append(self.table.q(context + drafts, temperature))
                drafts.append(sample(q_rows[-1], generator))
        self.length = len(seq) + g - 1
        return (torch.stack(q_rows) if q_rows else None), drafts
