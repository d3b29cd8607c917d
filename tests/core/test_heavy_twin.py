"""The heavy twin (model.heavy_twin, Models.heavy_twin): every network made S× heavier in weights by
SwiGLU units whose output weights are zero computes the same function, so every decoder gives the
same text and the same law; only the bytes a forward reads change. (generate --scale:
tests/cli/test_generate.py.)"""
import copy

import numpy as np
import pytest
import torch

from experiments.data import CharData
from experiments.methods import Models, Spec, decode, load_models, names
from experiments.model import GPT, MAIN, GPTConfig, heavy_twin
from tests.helpers import CHECKPOINTS, LONG_PROMPT, chi_square_pvalue, exact_law_of_three, largest_gamma

SCALE = 3


@pytest.fixture(scope="module")
def data():
    return CharData()


@pytest.fixture(scope="module")
def pair(data):
    """The seed-0 models as trained and their heavy twins (float32, as the CLI runs them)."""
    models = load_models(CHECKPOINTS, 0, train_tokens=data.train.tolist(), vocab_size=data.vocab_size)
    twins = copy.deepcopy(models)
    twins.tables, twins.suffixes = models.tables, models.suffixes
    return models, twins.heavy_twin(SCALE)


def weights(network):
    return sum(p.numel() for p in network.parameters())


def test_every_network_is_scale_times_heavier_and_keeps_its_ratio_to_the_main_model(pair):
    models, twins = pair
    trunk = lambda m: weights(m) - weights(m.mtp)
    assert trunk(twins.main) / trunk(models.main) == pytest.approx(SCALE, rel=0.01)
    assert weights(twins.main.mtp) / weights(models.main.mtp) == pytest.approx(SCALE, rel=0.01)
    assert weights(twins.draft) / weights(models.draft) == pytest.approx(SCALE, rel=0.01)
    for kind in models.heads:
        assert weights(twins.heads[kind]) / weights(models.heads[kind]) == pytest.approx(SCALE, rel=0.01), kind
    assert twins.main.cfg.mlp_hidden > models.main.cfg.mlp_hidden == MAIN.mlp_hidden


@pytest.mark.parametrize("text", ["ROMEO:\n", LONG_PROMPT[:64], "zq!xX"])
def test_every_network_computes_the_same_logits(pair, data, text):
    models, twins = pair
    x = torch.tensor([data.encode(text)])
    with torch.inference_mode():
        (logits, h), (twin_logits, twin_h) = models.main(x), twins.main(x)
        assert (logits - twin_logits).abs().max() < 1e-5
        assert (models.draft(x)[0] - twins.draft(x)[0]).abs().max() < 1e-5
        mtp = lambda m, h: m.mtp_forward(h[:, :-1], x[:, 1:])
        assert (mtp(models.main, h) - mtp(twins.main, twin_h)).abs().max() < 1e-5
        layers = models.main(x, layers=True)[1]
        for kind, head in models.heads.items():
            twin = twins.heads[kind]
            if kind == "medusa":
                out = [d.medusa_logits(h[0]) for d in (head, twin)]
            elif kind == "block":
                out = [d.block_logits(h[0], x[0], 4) for d in (head, twin)]
            else:
                feature = layers if head.net.reads_layers else h
                out = [m.mtp_forward(d.net.read(feature[:, :-1]), x[:, 1:], head=d.net)
                       for m, d in ((models.main, head), (twins.main, twin))]
            assert (out[0] - out[1]).abs().max() < 1e-5, kind


@pytest.mark.parametrize("engine", ["eager", "native"])
def test_every_method_writes_the_same_greedy_text(pair, data, engine):
    models, twins = pair
    prompt = data.encode("ROMEO:\n")
    with torch.inference_mode():
        plain = decode(Spec("plain"), models, prompt, 120, temperature=0, engine=engine).tokens
        assert decode(Spec("plain"), twins, prompt, 120, temperature=0, engine=engine).tokens == plain
        for method in names(chain=True):
            spec = Spec(method, min(4, largest_gamma(twins, method)))
            assert decode(spec, twins, prompt, 120, temperature=0, engine=engine).tokens == plain, method
        for method in ("ngram", "eagle", "medusa", "lookahead"):
            spec = Spec(method, tree=16)
            assert decode(spec, twins, prompt, 120, temperature=0, engine=engine).tokens == plain, f"{method} tree"


@pytest.mark.slow  # the twin's logits equal the model's within 1e-5 (above): its law follows; the draws confirm it
def test_a_twin_decodes_the_main_model_s_law(data):
    """T = 1 on a small twin: the first three chars of draft-model speculative decoding follow the
    trained main model's law (the twin's function is the trained one's)."""
    torch.manual_seed(0)
    main = GPT(MAIN).double().eval()
    draft = GPT(GPTConfig(n_layer=1, n_embd=32, n_head=2, mlp_hidden=48, mtp=False)).double().eval()
    twins = Models(copy.deepcopy(main), copy.deepcopy(draft)).heavy_twin(SCALE)
    prompt, draws = data.encode("ROMEO:\nI "), 1200
    laws = exact_law_of_three(main, prompt)
    gen = torch.Generator().manual_seed(3)
    with torch.inference_mode():
        samples = np.array([decode(Spec("draft", 2), twins, prompt, 3, temperature=1.0, generator=gen).tokens
                            for _ in range(draws)])
    for position, law in enumerate(laws):
        assert chi_square_pvalue(samples[:, position], law) > 1e-3, f"char {position + 1}"


def test_scale_one_is_the_model_itself_and_below_one_is_refused():
    model = GPT(MAIN)
    assert heavy_twin(model, 1) is model and model.cfg.mlp_hidden == MAIN.mlp_hidden
    with pytest.raises(ValueError, match="at least 1"):
        heavy_twin(model, 0.5)
