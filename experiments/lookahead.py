"""Lookahead decoding (Fu et al. 2024, arXiv 2402.02057): speculation with no drafter at all.

Each main forward carries, beside the pending token, two branches of one token tree:
- the lookahead branch: a Jacobi window of W guesses for the next W positions, fed as a chain.
  The main model's argmax after each guess is a better guess for the position after it (one
  Jacobi iteration), and the next round's window is made from those outputs;
- the verification branch: up to G n-grams from a pool that start with the pending token.

The pool is harvested from the Jacobi trajectory: the output at position P follows the input at
P − 1 of this iteration, which was itself the output after the input at P − 2 one iteration
before, and so on; read along that diagonal, N tokens are a short continuation the model itself
produced, and they go into the pool under their first token. The window itself is a candidate
too (classic Jacobi decoding accepts the guesses that turn out right).

This is a simplification of the paper's 2D window: the paper feeds the last N − 1 levels of the
trajectory into each forward; here only the newest level is fed and the older ones are kept in
memory to read the diagonals. All candidates are fixed before the verify draws its randomness,
so the tree walk of experiments/trees.py keeps the main model's distribution at any temperature.
"""
from experiments.runners import DrafterBase
from experiments.trees import Tree

POOL_PER_TOKEN = 8  # n-grams kept per first token, newest first


class Lookahead(DrafterBase):
    def __init__(self, window=4, ngram=3, candidates=4):
        if window < 1 or ngram < 2 or candidates < 0:
            raise ValueError(f"lookahead needs window >= 1, ngram >= 2 and candidates >= 0, "
                             f"got {window}, {ngram}, {candidates}")
        super().__init__()
        self.window, self.ngram, self.candidates = window, ngram, candidates
        self.guesses = []  # Jacobi guesses for the positions after the pending token
        self.levels = []   # inputs of the last ngram − 2 iterations: {position: token}
        self.pool = {}     # first token -> continuations of up to ngram − 1 tokens, newest first

    def nodes(self):
        """The most nodes a tree can have: the root, the window, the candidates."""
        return 1 + self.window + self.candidates * (self.ngram - 1)

    def tree(self, seq, n_nodes, max_depth):
        with self.timed(forwards=1):
            root = len(seq) - 1  # the pending token's position
            # short of guesses (at the start, or after a long accept): fill in with recent text; such
            # guesses may end up in harvested n-grams too, where they are only less likely to pass
            guesses = (self.guesses + seq[len(seq) - self.window:])[:self.window]
            guesses = guesses[:min(max_depth, n_nodes - 1)]
            tree = Tree.root(seq[-1])
            for continuation in self.pool.get(seq[-1], [])[:self.candidates]:
                continuation = continuation[:max_depth]
                if len(tree.tokens) + len(continuation) + len(guesses) > n_nodes:
                    break
                tree.add_path(continuation)
            self.chain, node = [0], 0  # the window's nodes, root first
            for token in guesses:
                node = tree.child(node, token) or tree.add(node, token)
                self.chain.append(node)
            self.inputs = dict(zip(range(root, root + len(self.chain)), [seq[-1]] + guesses))
            self.root = root
        return tree

    def verified(self, tree, logits, path):
        with self.timed():
            outputs = logits[self.chain].argmax(-1).tolist()  # outputs[j]: the guess for position root + j + 1
            levels = self.levels + [self.inputs]
            for j, token in enumerate(outputs):
                P = self.root + j + 1
                gram = [level.get(P - len(levels) + i) for i, level in enumerate(levels)] + [token]
                if None not in gram:
                    self.remember(gram[-self.ngram:])
            self.levels = levels[-(self.ngram - 2):] if self.ngram > 2 else []
            next_root = self.root + 1 + len(path)
            self.guesses = outputs[next_root - self.root:]  # outputs for positions after the new pending token

    def remember(self, gram):
        first, rest = gram[0], gram[1:]
        kept = self.pool.setdefault(first, [])
        if rest in kept:
            kept.remove(rest)
        kept.insert(0, rest)
        del kept[POOL_PER_TOKEN:]
