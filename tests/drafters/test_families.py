"""Every registered family (experiments/methods.py): each chain family at the largest γ generate
accepts writes plain greedy text past the cache's slots on each engine, and each drafter's q is a
distribution at the lowest temperature."""
import pytest
import torch

from experiments import runners
from experiments.data import CharData
from experiments.heads import load_drafter
from experiments.methods import Models, Spec, decode, load_models, names
from experiments.model import load_checkpoint
from experiments.rule import MIN_TEMPERATURE
from tests.helpers import CHECKPOINTS, largest_gamma


@pytest.fixture(scope="module")
def data():
    return CharData()


@pytest.fixture(scope="module")
def seed0(data):
    """Every seed-0 model as the CLI loads them (float32)."""
    return load_models(CHECKPOINTS, 0, train_tokens=data.train.tolist(), vocab_size=data.vocab_size)


# the feature drafters' caches once rolled back too little for γ >= 19 (the default margin was 16)
@pytest.mark.parametrize("engine", ["eager", "native", pytest.param("compiled", marks=pytest.mark.slow),
                                    pytest.param("aot", marks=pytest.mark.slow)])
def test_every_chain_family_runs_at_its_largest_gamma(seed0, data, engine):
    prompt, n = data.encode("ROMEO:\n"), 160  # past the cache's 144 slots: it has to move and roll back
    with torch.inference_mode():
        plain = decode(Spec("plain"), seed0, prompt, n, temperature=0, engine=engine).tokens
        for method in names(chain=True):
            gamma = largest_gamma(seed0, method)
            result = decode(Spec(method, gamma), seed0, prompt, n, temperature=0, engine=engine)
            assert result.tokens == plain, f"{method} γ = {gamma} on {engine}"


# Repeats itself (prompt lookup finds matches) and ends in flat n-gram contexts.
PROMPT = "Good morrow, neighbour.\nGood morrow, "


@pytest.fixture(scope="module")
def main():
    return load_checkpoint(CHECKPOINTS / "main_s0.pt")[0]


def decode_with(family, main, data, prompt, **common):
    """40 chars with the drafter family's q (lookahead has none: its tree is checked by sampling p)."""
    models = Models(main, train_tokens=data.train.tolist(), vocab_size=data.vocab_size)
    if family == "draft":
        models.draft = load_checkpoint(CHECKPOINTS / "draft_s0.pt")[0]
    if family in ("medusa", "eagle"):
        models.heads[family] = load_drafter(CHECKPOINTS / f"{family}_s0.pt", main=main)[0]
    spec = Spec(family, 1 if family == "mtp" else 3, order={"ngram": 5, "lookup": 3}.get(family))
    return decode(spec, models, prompt, 40, **common)


@pytest.mark.parametrize("family", ["ngram", "lookup", "draft", "mtp", "medusa", "eagle"])
def test_every_drafters_q_is_a_distribution_at_the_lowest_temperature(family, main, monkeypatch):
    checked = []

    def recording_accept_reject(p, q, drafts, generator=None, trace=None):
        checked.append(q)
        return accept_reject(p, q, drafts, generator, trace)
    accept_reject = runners.accept_reject  # rule.accept_reject, as Runner.verify calls it (runners imports the name)
    monkeypatch.setattr(runners, "accept_reject", recording_accept_reject)
    data = CharData()
    with torch.inference_mode():
        decode_with(family, main, data, data.encode(PROMPT), temperature=MIN_TEMPERATURE,
                    generator=torch.Generator().manual_seed(0))
    q = torch.cat(checked)
    assert len(q) > 0 and torch.isfinite(q).all() and (q >= 0).all(), family
    assert torch.allclose(q.sum(-1), torch.ones(len(q)), atol=1e-5), family
