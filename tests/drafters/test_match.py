"""The match drafter (experiments/ngram.py MatchDrafter): it copies after the longest and latest
earlier match of the text's tail, fills the rest of a round from the n-gram table with real q
rows, and speculative decoding with it keeps the main model's law."""
import random

import numpy as np
import pytest
import torch

from experiments.data import CharData
from experiments.ngram import MatchDrafter, NgramDrafter, NgramTable
from experiments.speculative import plain_decode, speculative_decode
from tests.helpers import chi_square_pvalue, exact_law_of_three

TEXT = [0, 1, 2, 0, 1, 3, 0, 1, 2, 4, 2, 0, 1]


def brute_match(seq, min_match):
    """(length, end) by trying every earlier end and every length: the longest, then the latest."""
    best = None
    for end in range(len(seq) - 1, 0, -1):  # latest first: a tie keeps the latest
        length = 0
        while length < end and seq[end - 1 - length] == seq[len(seq) - 1 - length]:
            length += 1
        if length >= min_match and (best is None or length > best[0]):
            best = (length, end)
    return best


@pytest.fixture(scope="module")
def small():
    return NgramTable(TEXT, order=3, vocab_size=5)


@pytest.fixture(scope="module")
def table():
    data = CharData()
    return NgramTable(data.train.tolist(), 5, data.vocab_size)


def test_the_match_is_the_longest_then_the_latest(small):
    drafter = MatchDrafter(small, min_match=2)
    # the tail "0 1 2 3" ends earlier at 4 (4 chars) and "2 3" at 7 and 11 (2 chars): the longest wins
    seq = [0, 1, 2, 3, 4, 2, 3, 0, 3, 2, 3, 1, 0, 1, 2, 3]
    assert drafter.match(seq) == (4, 4)
    assert drafter.continuation(seq, 3) == [4, 2, 3]
    # "0 1 2 3" ends earlier at 4 and at 13, 4 chars each: the latest wins
    seq = [0, 1, 2, 3, 4, 1, 2, 3, 0, 0, 1, 2, 3, 1, 0, 1, 2, 3]
    assert drafter.match(seq) == (4, 13)
    assert drafter.continuation(seq, 2) == [1, 0]
    # an earlier occurrence may overlap the tail: "0 0 0 0" is the longest, ending one before the end
    assert drafter.match([1, 0, 0, 0, 0, 0]) == (4, 5)
    assert MatchDrafter(small, min_match=3).match([0, 1, 2, 3, 1, 2]) is None  # only "1 2" recurs
    assert MatchDrafter(small, min_match=2).match([0, 1]) is None


@pytest.mark.parametrize("alphabet", [2, 3, 5])
def test_the_match_agrees_with_brute_force(small, alphabet):
    rng = random.Random(alphabet)
    for min_match in (1, 2, 3, 6):
        drafter = MatchDrafter(small, min_match)
        for _ in range(150):
            seq = [rng.randrange(alphabet) for _ in range(rng.randrange(1, 60))]
            assert drafter.match(seq) == brute_match(seq, min_match), (min_match, seq)


def test_a_drafter_reused_on_a_shorter_text_matches_afresh(small):
    drafter = MatchDrafter(small, min_match=2)
    long = [0, 1, 2, 3, 4, 2, 3, 0, 3, 2, 3, 1, 0, 1, 2, 3]
    assert drafter.match(long) == (4, 4)
    assert drafter.match([4, 2, 3, 1, 2, 3]) == (2, 3)  # a new decode: nothing of `long` remains


def test_no_match_of_min_match_chars_drafts_from_the_table(small):
    seq = [0, 1, 2, 3, 1, 2]  # "1 2" recurs, "3 1 2" does not
    q, drafts = MatchDrafter(small, min_match=3).propose(seq, len(seq) - 1, 4, 1.0, torch.Generator().manual_seed(7))
    q_ngram, drafts_ngram = NgramDrafter(small).propose(seq, len(seq) - 1, 4, 1.0, torch.Generator().manual_seed(7))
    assert drafts == drafts_ngram and torch.equal(q, q_ngram)


def test_a_copy_that_reaches_the_end_is_filled_from_the_table(small):
    drafter = MatchDrafter(small, min_match=2)
    seq = [3, 0, 1, 4, 0, 1]  # "0 1" ended at 3: three chars follow it before the text ends
    assert drafter.match(seq) == (2, 3)
    q, drafts = drafter.propose(seq, len(seq) - 1, 5, 1.0, torch.Generator().manual_seed(1))
    assert drafts[:3] == [4, 0, 1] and len(drafts) == 5 and drafter.copied == 3
    assert q[:3].tolist() == torch.nn.functional.one_hot(torch.tensor([4, 0, 1]), 5).float().tolist()
    for i in (3, 4):  # the table's q after the context and every draft before, copies included
        assert torch.equal(q[i], small.q(seq[-2:] + drafts[:i], 1.0))
    assert q[3].tolist() == pytest.approx([0, 0, 2 / 3, 1 / 3, 0])  # after "0 1": 2, 3, 2 in TEXT
    assert drafter.forwards == 5 and drafter.length == len(seq) + 4 and drafter.forward_s > 0


@pytest.mark.parametrize("temperature", [0.0, 0.5, 1.0])
def test_every_q_row_is_a_distribution_that_can_draw_its_draft(table, temperature):
    data = CharData()
    gen = torch.Generator().manual_seed(2)
    text = data.train[:3000].tolist()
    drafter = MatchDrafter(table)
    for end in range(20, 3000, 97):
        q, drafts = drafter.propose(text[:end], end - 1, 8, temperature, gen)
        assert q.shape == (8, data.vocab_size) and len(drafts) == 8
        np.testing.assert_allclose(q.sum(1).numpy(), 1, rtol=1e-5)
        assert (q[torch.arange(8), torch.tensor(drafts)] > 0).all()
    assert 0 < drafter.copied < drafter.forwards  # both copies and table drafts were made


@pytest.mark.parametrize("gamma", [3, 8])
def test_match_greedy_equals_plain_greedy(models64, table, gamma):
    prompt = CharData().encode("ROMEO:\n")
    with torch.inference_mode():
        plain = plain_decode(models64[0], prompt, 300, temperature=0).tokens
        drafter = MatchDrafter(table)
        result = speculative_decode(models64[0], drafter, prompt, 300, gamma, temperature=0)
    assert result.tokens == plain
    assert result.main_forwards + result.accepted == 300
    assert 0 < drafter.copied < result.proposed == result.draft_forwards


# min_match 1, which generate does not offer: a copy, then the table's drafts in one round (the
# registry's match drafter, min_match 6, copies both drafts of its case in tests/drafters/test_law.py)
@pytest.mark.parametrize("text,min_match,copied", [
    pytest.param("KING RICHARD II", 1, 1, marks=pytest.mark.slow),  # "I" ended one char before the end: one copy (p ≈ 0.57), then the table (-m slow)
])
def test_match_sampled_output_follows_the_main_model(models64, table, text, min_match, copied):
    main, prompt, draws = models64[0], CharData().encode(text), 1200
    first = MatchDrafter(table, min_match)
    first.propose(prompt, len(prompt) - 1, 2, 1.0, torch.Generator().manual_seed(0))
    assert first.copied == copied
    laws = exact_law_of_three(main, prompt)
    gen = torch.Generator().manual_seed(11)
    with torch.inference_mode():
        runs = [speculative_decode(main, MatchDrafter(table, min_match), prompt, 3, 2, temperature=1.0, generator=gen)
                for _ in range(draws)]
    samples = np.array([r.tokens for r in runs])
    for position, law in enumerate(laws):
        assert chi_square_pvalue(samples[:, position], law) > 1e-3, f"char {position + 1}"
