"""Suffix decoding (experiments/suffix.py): the suffix array is sorted, a tail's range holds
exactly its occurrences, the speculation tree is the most frequent continuations within its
budget, and decoding with it keeps the main model's greedy text (its law at T = 1:
tests/drafters/test_law.py)."""
import random

import pytest
import torch

from experiments.data import CharData
from experiments.speculative import plain_decode, speculative_decode, tree_decode
from experiments.suffix import SuffixDrafter, SuffixIndex, count_trie, likeliest_chain, speculation_tree, suffix_array


@pytest.fixture(scope="module")
def index():
    data = CharData()
    return SuffixIndex(data.train.tolist(), data.vocab_size)


@pytest.mark.parametrize("alphabet,depth", [(2, 5), (3, 8), (5, 24)])
def test_the_suffix_array_is_sorted_on_its_depth(alphabet, depth):
    rng = random.Random(depth)
    ids = [rng.randrange(alphabet) for _ in range(400)]
    order = suffix_array(ids, depth).tolist()
    assert sorted(order) == list(range(len(ids)))
    text = bytes(ids)
    keys = [text[i:i + depth] for i in order]
    assert keys == sorted(keys)  # bytes order: a shorter suffix before its extensions


def brute_tail(corpus, seq, max_depth):
    """The longest tail of seq (<= max_depth) that occurs in corpus, and where its occurrences end."""
    for length in range(min(max_depth, len(seq)), 0, -1):
        pattern = bytes(seq[-length:])
        ends = [i + length for i in range(len(corpus) - length + 1) if corpus[i:i + length] == pattern]
        if ends:
            return length, sorted(ends)
    return 0, []


@pytest.mark.parametrize("alphabet", [2, 4])
def test_the_longest_tail_and_its_occurrences_agree_with_brute_force(alphabet):
    rng = random.Random(alphabet)
    corpus = [rng.randrange(alphabet) for _ in range(300)]
    index = SuffixIndex(corpus, vocab_size=alphabet + 1, max_depth=6)
    for _ in range(200):
        seq = [rng.randrange(alphabet + 1) for _ in range(rng.randrange(1, 12))]  # the extra char never occurs
        length, lo, hi = index.longest_tail(seq)
        expected_length, expected_ends = brute_tail(bytes(corpus), seq, 6)
        assert length == expected_length, seq
        if length:
            assert sorted(index.end(i) for i in range(lo, hi)) == expected_ends, seq


def test_the_tree_takes_the_most_frequent_continuations_within_its_budget():
    text = bytes([0, 1, 2, 0, 1, 2, 0, 1, 3, 0, 2, 2, 0, 1, 2])
    starts = [1, 4, 7, 10, 13]  # after each 0, up to 4 characters
    trie = count_trie(text, starts, 4)
    assert trie[1][0] == 4 and trie[2][0] == 1 and trie[1][1][2][0] == 3 and trie[1][1][3][0] == 1
    tree, score = speculation_tree(0, trie, len(starts), budget=3, min_prob=0.1)
    # "1" (4 of 5), "1 2" (3), then "1 2 0" (2) before "2" and "1 3" (1 each)
    assert [tree.branch(i) for i in range(1, len(tree.tokens))] == [[1], [1, 2], [1, 2, 0]]
    assert score == pytest.approx((4 + 3 + 2) / 5)
    pruned, _ = speculation_tree(0, trie, len(starts), budget=10, min_prob=0.5)
    # a child is kept where it follows its parent at least half the time: "2" after the root (1/5) is not
    assert all(pruned.branch(i)[0] == 1 for i in range(1, len(pruned.tokens)))
    assert len(pruned.tokens) - 1 <= 10
    chain, chain_score = likeliest_chain(0, trie, len(starts), budget=3)
    assert chain.tokens[1:] == [1, 2, 0] and chain_score == pytest.approx((4 + 3 + 2) / 5)


def test_the_number_of_drafts_follows_the_match_length(index):
    text = CharData().encode("ROMEO:\nWhat say")
    drafter = SuffixDrafter(index, factor=0.5)
    length = index.longest_tail(text)[0]
    q, drafts = drafter.propose(text, len(text) - 1, 40, 1.0)
    assert 1 <= len(drafts) <= length // 2
    assert q.shape == (len(drafts), index.vocab_size)
    assert torch.equal(q, torch.nn.functional.one_hot(torch.tensor(drafts), index.vocab_size).float())
    assert drafter.forwards == len(drafts) and drafter.forward_s > 0
    tree = SuffixDrafter(index, factor=0.5).tree(text, 64, 63)
    assert 2 <= len(tree.tokens) <= 1 + length // 2 and tree.tokens[0] == text[-1]


def test_the_request_drafts_where_it_repeats_itself(index):
    # a string the corpus does not hold, written twice: the request's own text predicts it best
    text = CharData().encode("zqzqx zqzqxj zqzqx zqzqxj zqzq")
    drafter = SuffixDrafter(index)
    _, drafts = drafter.propose(text, len(text) - 1, 4, 0.0)
    assert drafter.sources == {"corpus": 0, "request": 1}
    assert drafts == CharData().encode("x zq")


@pytest.mark.parametrize("shape", ["chain", "tree"])
def test_suffix_greedy_equals_plain_greedy(models64, index, shape):
    prompt = CharData().encode("ROMEO:\n")
    with torch.inference_mode():
        plain = plain_decode(models64[0], prompt, 300, temperature=0).tokens
        drafter = SuffixDrafter(index)
        result = (speculative_decode(models64[0], drafter, prompt, 300, 8, temperature=0) if shape == "chain"
                  else tree_decode(models64[0], drafter, prompt, 300, 16, temperature=0))
    assert result.tokens == plain
    assert result.main_forwards + result.accepted == 300
    assert result.accepted > 0 and min(drafter.sources.values()) > 0  # both places drafted
