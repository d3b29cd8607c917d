"""Inputs at the edges of what the command-line tools accept (issue 18): the lowest temperature
gives every drafter a real q, and each tool's bad input is one line, `error: ...`, and exit code 2."""
import pytest
import torch

from experiments import speculative
from experiments.data import CharData
from experiments.heads import load_drafter
from experiments.model import load_checkpoint
from experiments.ngram import NgramTable, PromptLookup
from experiments.speculative import MIN_TEMPERATURE, feature_decode, mtp_decode, speculative_decode
from experiments.train import CHECKPOINTS

# Repeats itself (prompt lookup finds matches) and ends in flat n-gram contexts.
PROMPT = "Good morrow, neighbour.\nGood morrow, "


@pytest.fixture(scope="module")
def main():
    return load_checkpoint(CHECKPOINTS / "main_s0.pt")[0]


def decode_with(family, main, data, prompt, **common):
    """40 chars with the drafter family's q (lookahead has none: its tree is checked by sampling p)."""
    if family == "ngram":
        return speculative_decode(main, NgramTable(data.train.tolist(), 5, data.vocab_size), prompt, 40, 3, **common)
    if family == "lookup":
        return speculative_decode(main, PromptLookup(2), prompt, 40, 3, **common)
    if family == "draft":
        return speculative_decode(main, load_checkpoint(CHECKPOINTS / "draft_s0.pt")[0], prompt, 40, 3, **common)
    if family == "mtp":
        return mtp_decode(main, prompt, 40, **common)
    return feature_decode(main, load_drafter(CHECKPOINTS / f"{family}_s0.pt", main=main)[0], prompt, 40, 3, **common)


@pytest.mark.parametrize("family", ["ngram", "lookup", "draft", "mtp", "medusa", "eagle"])
def test_every_drafters_q_is_a_distribution_at_the_lowest_temperature(family, main, monkeypatch):
    checked = []

    def recording_accept_reject(p, q, drafts, generator=None, trace=None):
        checked.append(q)
        return accept_reject(p, q, drafts, generator, trace)
    accept_reject = speculative.accept_reject
    monkeypatch.setattr(speculative, "accept_reject", recording_accept_reject)
    data = CharData()
    with torch.inference_mode():
        decode_with(family, main, data, data.encode(PROMPT), temperature=MIN_TEMPERATURE,
                    generator=torch.Generator().manual_seed(0))
    q = torch.cat(checked)
    assert len(q) > 0 and torch.isfinite(q).all() and (q >= 0).all(), family
    assert torch.allclose(q.sum(-1), torch.ones(len(q)), atol=1e-5), family
