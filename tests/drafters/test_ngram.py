"""The character n-gram drafter and prompt lookup (experiments/ngram.py): its table is the counts it
claims, it backs off to shorter contexts, its q is a distribution at the lowest temperature, and
speculative decoding with it keeps the main model's output (its law at T = 1:
tests/drafters/test_law.py)."""
from collections import Counter

import numpy as np
import pytest
import torch

from experiments.data import CharData
from experiments.ngram import LookupDrafter, NgramDrafter, NgramTable, PromptLookup
from experiments.rule import MIN_TEMPERATURE, probs_from_logits
from experiments.speculative import plain_decode, speculative_decode
from tests.helpers import chi_square_pvalue

TEXT = [0, 1, 2, 0, 1, 3, 0, 1, 2, 4, 2, 0, 1]


def test_table_holds_the_counts_after_every_context():
    table = NgramTable(TEXT, order=3, vocab_size=5)
    for length in range(3):
        after = {}
        for i in range(length, len(TEXT)):
            after.setdefault(tuple(TEXT[i - length:i]), Counter())[TEXT[i]] += 1
        for context, counts in after.items():
            q = table.context_probs(list(context)).numpy()
            expected = np.array([counts[c] for c in range(5)], dtype=float) / sum(counts.values())
            np.testing.assert_allclose(q, expected, rtol=1e-6)
    assert table.entries()[0] == sum(len({tuple(TEXT[i - n:i]) for i in range(n, len(TEXT))}) for n in range(3))


def test_backs_off_to_the_longest_context_that_occurs():
    table = NgramTable(TEXT, order=3, vocab_size=5)
    # (4, 2) never occurs; (2,) does: after "2" came 0, 4 and 0
    np.testing.assert_allclose(table.context_probs([3, 3, 2]).numpy(), [2 / 3, 0, 0, 0, 1 / 3], rtol=1e-6)
    np.testing.assert_allclose(table.context_probs([3, 3]).numpy(), [1, 0, 0, 0, 0])  # (3, 3) no; (3,) yes
    wider = NgramTable(TEXT, order=3, vocab_size=6)  # char 5 never occurs: back off to the empty context
    np.testing.assert_allclose(wider.context_probs([5, 5]).numpy(), np.bincount(TEXT, minlength=6) / len(TEXT), rtol=1e-6)
    assert table.q([0, 1], 0).tolist() == [0, 0, 1, 0, 0]  # after "0 1": 2, 3, 2, 2... most often 2
    cooled = table.q([2], 0.5).numpy()
    np.testing.assert_allclose(cooled, np.array([4, 0, 0, 0, 1]) / 5, rtol=1e-6)  # (2/3)² : (1/3)²


@pytest.fixture(scope="module")
def table():
    data = CharData()
    return NgramTable(data.train.tolist(), 5, data.vocab_size)


@pytest.mark.compiles  # its loop runs the compiled engine too
def test_ngram_greedy_equals_plain_greedy(models64, table):
    prompt = CharData().encode("ROMEO:\n")
    with torch.inference_mode():
        plain = plain_decode(models64[0], prompt, 300, temperature=0).tokens
        for engine in ("eager", "compiled"):
            result = speculative_decode(models64[0], NgramDrafter(table), prompt, 300, 4, temperature=0, engine=engine)
            assert result.tokens == plain, engine
            assert result.main_forwards + result.accepted == 300


def test_q_is_a_distribution_after_every_context_at_the_lowest_temperature(table):
    """counts^(1/T) underflowed float32 at T = 0.01 after a flat context: q = 0/0 = NaN (issue 18, item 15)."""
    for (length, code), probs in table.counts.items():
        context = [code // table.vocab_size ** k % table.vocab_size for k in range(length - 1, -1, -1)]
        q = table.q(context, MIN_TEMPERATURE)
        assert torch.isfinite(q).all() and abs(float(q.sum()) - 1) < 1e-5, (length, context)
        assert q[torch.from_numpy(probs) == 0].eq(0).all() and int(q.argmax()) == int(probs.argmax())


def test_greedy_q_is_the_one_hot_the_rule_makes_of_the_counts(table):
    """q at T = 0 is read from a precomputed argmax; it must be probs_from_logits(log counts, 0), ties included."""
    for (length, code), probs in list(table.counts.items())[::97]:
        context = [code // table.vocab_size ** k % table.vocab_size for k in range(length - 1, -1, -1)]
        expected = probs_from_logits(torch.from_numpy(probs).log(), 0)
        assert torch.equal(table.q(context, 0), expected) and torch.equal(table.q(context, 0), expected), context


def test_ngram_chain_keeps_the_main_models_law_at_the_lowest_temperature(models64, table):
    """A prompt whose n-gram context is flat (no char above 0.11) and whose next char is a near tie
    for the main model, so that p at T = 0.01 is not one-hot: the first char keeps p's law."""
    prompt, draws = CharData().encode("?\n\nGREMIO:\nGood morrow, "), 400
    with torch.inference_mode():
        law = probs_from_logits(models64[0](torch.tensor([prompt]))[0][0, -1], MIN_TEMPERATURE)
        assert table.context_probs(prompt).max() < 0.11 and law.max() < 0.7
        gen = torch.Generator().manual_seed(3)
        firsts = np.array([speculative_decode(models64[0], NgramDrafter(table), prompt, 3, 2, temperature=MIN_TEMPERATURE,
                                              generator=gen).tokens[0] for _ in range(draws)])
    assert chi_square_pvalue(firsts, law) > 1e-3


def test_prompt_lookup_copies_the_latest_earlier_match():
    lookup = PromptLookup(ngram=2, vocab_size=5)
    seq = [0, 1, 2, 3, 0, 1, 4, 4, 0, 1]
    assert lookup.continuation(seq, 3) == [4, 4, 0]  # the latest earlier "0 1" is at 4, not at 0
    assert lookup.continuation(seq, 9) == [4, 4, 0, 1]  # no further than the text goes
    assert lookup.continuation([0, 1, 2, 3], 3) == []  # "2 3" never occurred before
    q, drafts = LookupDrafter(lookup).propose(seq, len(seq) - 1, 2, 1.0)
    assert drafts == [4, 4] and q.tolist() == [[0, 0, 0, 0, 1], [0, 0, 0, 0, 1]]


def test_prompt_lookup_greedy_equals_plain_greedy(models64):
    """(Its law at T = 1 on the same text: the lookup chain's case in tests/drafters/test_law.py.)"""
    main = models64[0]
    lookup = PromptLookup(ngram=2)
    repetitive = CharData().encode("the the the t")  # " t" occurred before: the first round drafts
    with torch.inference_mode():
        plain = plain_decode(main, repetitive, 200, temperature=0).tokens
        greedy = speculative_decode(main, LookupDrafter(lookup), repetitive, 200, 4, temperature=0)
        assert greedy.tokens == plain and greedy.proposed > 0
