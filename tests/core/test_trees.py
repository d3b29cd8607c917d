"""Token trees (experiments/trees.py): the tree mask, one verify forward that equals decoding
each branch alone, the cache kept after a tree, and tree decoding that writes plain greedy text for
every drafter that builds trees (n-gram, prompt lookup, Medusa, EAGLE, lookahead); their law at
T = 1: tests/drafters/test_law.py."""
import pytest
import torch

from experiments.data import CharData
from experiments.engine import Plan, make_runner
from experiments.heads import load_drafter
from experiments.lookahead import Lookahead
from experiments.ngram import LookupDrafter, NgramDrafter, NgramTable, PromptLookup
from experiments.speculative import plain_decode, tree_decode
from experiments.trees import Tree, best_first, tree_accept
from tests.helpers import CHECKPOINTS


@pytest.fixture(scope="module")
def data():
    return CharData()


@pytest.fixture(scope="module")
def table(data):
    return NgramTable(data.train.tolist(), 5, data.vocab_size)


def test_tree_mask_is_each_node_and_its_ancestors():
    tree = Tree.root(9)
    tree.add_path([1, 2, 3])
    tree.add_path([1, 4])      # shares the node of 1
    tree.add_path([5])
    assert tree.tokens == [9, 1, 2, 3, 4, 5] and tree.parents == [-1, 0, 1, 2, 1, 0]
    assert tree.depths == [0, 1, 2, 3, 2, 1]
    assert tree.ancestors().int().tolist() == [[1, 0, 0, 0, 0, 0],
                                               [1, 1, 0, 0, 0, 0],
                                               [1, 1, 1, 0, 0, 0],
                                               [1, 1, 1, 1, 0, 0],
                                               [1, 1, 0, 0, 1, 0],
                                               [1, 0, 0, 0, 0, 1]]
    assert tree.branch(3) == [1, 2, 3] and tree.branch(4) == [1, 4]


def test_best_first_adds_the_most_likely_branches():
    probs = {(): [(1, 0.6), (2, 0.3), (3, 0.1)], (1,): [(4, 0.9), (5, 0.1)], (2,): [(6, 1.0)]}
    branches = lambda tree: [tree.branch(i) for i in range(1, len(tree.tokens))]
    # 1 (0.6), then 1→4 (0.54) before 2 (0.3): a likely child beats an unlikely sibling
    assert branches(best_first(0, 4, lambda b: probs.get(tuple(b), []))) == [[1], [1, 4], [2]]
    # then 2→6 (0.3, offered after 3) ties nothing; 3 (0.1) beats 1→5 (0.06)
    assert branches(best_first(0, 6, lambda b: probs.get(tuple(b), []))) == [[1], [1, 4], [2], [2, 6], [3]]


def test_tree_accept_samples_p_and_descends_while_it_hits_a_child():
    tree = Tree.root(0)
    tree.add_path([1, 2])
    p = torch.zeros(3, 4)
    p[0, 1], p[1, 3], p[2, 0] = 1, 1, 1  # root -> 1 (a child), then 3 (not a child of node 1)
    assert tree_accept(p, tree) == ([1], 3)


@pytest.mark.parametrize("engine", ["eager", "compiled"])
def test_tree_logits_equal_decoding_each_branch_alone(models64, data, table, engine):
    main = models64[0]
    seq = data.encode("ROMEO:\n") + plain_decode(main, data.encode("ROMEO:\n"), 90, temperature=0).tokens
    tree = best_first(seq[-1], 16, lambda b: [(t, 1.0 / (r + 2)) for r, t in
                                              enumerate(table.context_probs(seq[-4:] + b).argsort(descending=True)[:3].tolist())])
    assert max(tree.depths) >= 3 and len(tree.tokens) == 16
    with torch.inference_mode():
        runner = make_runner(main, Plan(tree_size=16), engine)
        runner.extend(seq[:-1])
        logits, _ = runner.extend_tree(tree)
        for node in range(len(tree.tokens)):
            alone = make_runner(main, Plan(), "eager")
            expected = alone.extend(seq + tree.branch(node))[0][-1]
            assert (logits[node] - expected).abs().max() < 1e-5, f"node {node}"


@pytest.mark.parametrize("engine", ["eager", "compiled"])
def test_the_cache_after_a_tree_holds_the_accepted_branch(models64, data, table, engine):
    main = models64[0]
    seq = data.encode("ROMEO:\n") + plain_decode(main, data.encode("ROMEO:\n"), 130, temperature=0).tokens
    tree = Tree.root(seq[-1])
    for branch in ([5, 6, 7], [5, 8], [9, 10, 11, 12]):
        tree.add_path(branch)
    with torch.inference_mode():
        runner = make_runner(main, Plan(tree_size=len(tree.tokens)), engine)
        runner.extend(seq[:-1])
        runner.extend_tree(tree)
        runner.keep_path([tree.child(0, 9), tree.child(tree.child(0, 9), 10)])  # keep 9, 10
        got = runner.extend(seq + [9, 10, 3])[0]
        expected = make_runner(main, Plan(), "eager").extend(seq + [9, 10, 3])[0][-1]
    assert runner.length == len(seq) + 3
    assert (got[-1] - expected).abs().max() < 1e-5


def drafters_for_trees(models64, table):
    medusa = load_drafter(CHECKPOINTS / "medusa_s0.pt", main=models64[0])[0].double()
    eagle = load_drafter(CHECKPOINTS / "eagle_s0.pt", main=models64[0])[0].double()
    return {"ngram": (lambda: NgramDrafter(table), 16), "lookup": (lambda: LookupDrafter(PromptLookup(3)), 8),
            "medusa": (medusa.tree_drafter, 8),
            "eagle": (eagle.tree_drafter, 16),
            "lookahead": (lambda: Lookahead(4, 3, 4), Lookahead(4, 3, 4).nodes())}


SLOW = pytest.mark.slow  # the same tree path as a kept case: `pytest -m slow` runs them


@pytest.mark.parametrize("name,engine", [("ngram", "eager"), ("ngram", "compiled"), pytest.param("lookup", "eager", marks=SLOW),
                                         ("medusa", "compiled"), pytest.param("eagle", "eager", marks=SLOW), ("eagle", "compiled"),
                                         pytest.param("lookahead", "eager", marks=SLOW), ("lookahead", "compiled")])
def test_tree_greedy_equals_plain_greedy(models64, data, table, plain_greedy, name, engine):
    make, nodes = drafters_for_trees(models64, table)[name]
    prompt, plain = plain_greedy
    with torch.inference_mode():
        result = tree_decode(models64[0], make(), prompt, 300, nodes, temperature=0, engine=engine)
    assert result.tokens == plain
    assert result.main_forwards + result.accepted == 300
    assert result.accepted > 0
