"""Medusa heads and the EAGLE drafter (experiments/heads.py): what they compute, that training
them leaves the main model alone, and that decoding with them keeps the main model's output."""
from pathlib import Path

import numpy as np
import pytest
import torch

from experiments.data import CharData
from experiments.heads import FeatureDrafter, HeadsConfig, load_drafter
from experiments.model import GPT, GPTConfig
from experiments.speculative import feature_decode, plain_decode
from experiments.train import train
from tests.test_decoding import chi_square_pvalue, exact_law_of_three

CHECKPOINTS = Path(__file__).resolve().parent.parent / "experiments" / "checkpoints"


@pytest.fixture(scope="module")
def drafters(models64):
    """The committed seed-0 Medusa and EAGLE drafters on the float64 main model."""
    out = {}
    for kind in ("medusa", "eagle"):
        path = CHECKPOINTS / f"{kind}_s0.pt"
        assert path.exists(), f"missing {path}: run `make data`"
        drafter, _ = load_drafter(path, main=models64[0])
        out[kind] = drafter.double()
    return out


@pytest.fixture(scope="module")
def plain_greedy(models64):
    prompt = CharData().encode("ROMEO:\n")
    with torch.inference_mode():
        return prompt, plain_decode(models64[0], prompt, 300, temperature=0).tokens


def tiny_main():
    torch.manual_seed(0)
    return GPT(GPTConfig(n_layer=1, n_embd=32, n_head=2, mlp_hidden=48, block_size=16, mtp=True)).eval()


def test_medusa_heads_start_as_the_next_token_head():
    main = tiny_main()
    drafter = FeatureDrafter(main, HeadsConfig("medusa", main="tiny"))
    x = torch.randint(0, 65, (2, 16))
    with torch.no_grad():
        logits, h = main(x)
        heads = drafter.medusa_logits(h)
    assert heads.shape == (2, 16, 3, 65)
    for k in range(3):  # zero-initialized residual blocks: z + SiLU(0) = z
        torch.testing.assert_close(heads[:, :, k], logits)


def test_eagle_drafter_reads_features_and_next_token_like_the_mtp_head():
    """With the MTP head's weights, the EAGLE drafter computes exactly what the MTP head does."""
    main = tiny_main()
    drafter = FeatureDrafter(main, HeadsConfig("eagle", main="tiny"))
    drafter.net.load_state_dict(main.mtp.state_dict())
    x = torch.randint(0, 65, (1, 16))
    with torch.no_grad():
        _, h = main(x)
        torch.testing.assert_close(main.head(main.mtp_features(h[:, :-1], x[:, 1:], head=drafter.net)),
                                   main.mtp_forward(h[:, :-1], x[:, 1:]))


@pytest.mark.parametrize("kind", ["medusa", "eagle"])
def test_training_moves_the_drafter_and_not_the_main_model(tmp_path, kind):
    main = tiny_main()
    before = {k: v.clone() for k, v in main.state_dict().items()}
    data = CharData()
    result = train(None, f"{kind}_tiny", 0.0, 30, 8, 0, 3e-3, eval_interval=30, eval_batches=2, data=data,
                   checkpoint_dir=tmp_path, results_dir=tmp_path, log_every=1000,
                   build=lambda: FeatureDrafter(main, HeadsConfig(kind, main="tiny", block_size=16)))
    for k, v in main.state_dict().items():
        assert torch.equal(v, before[k]), f"the main model's {k} changed"
    val = result["curves"]["val"]
    first_key = "head1" if kind == "medusa" else "reg"
    assert val[first_key][-1] < val[first_key][0]
    saved = torch.load(tmp_path / f"{kind}_tiny.pt", weights_only=True)
    assert saved["config"]["kind"] == kind
    assert not any(k.startswith("main") for k in saved["model"])  # only the drafter is stored


GREEDY = [("medusa", 3, "eager"), ("medusa", 2, "compiled"), ("eagle", 4, "eager"), ("eagle", 3, "compiled")]


@pytest.mark.parametrize("kind,gamma,engine", GREEDY)
def test_greedy_equals_plain_greedy(models64, drafters, plain_greedy, kind, gamma, engine):
    prompt, plain = plain_greedy
    with torch.inference_mode():
        result = feature_decode(models64[0], drafters[kind], prompt, 300, gamma, temperature=0, engine=engine)
    assert result.tokens == plain
    assert result.main_forwards + result.accepted == 300
    assert result.accepted > 0.3 * result.proposed  # the drafts are not noise: they were trained


def test_eagle_chain_greedy_in_recompute_mode_within_the_window(models64, drafters):
    prompt = CharData().encode("ROMEO:\n")
    n = 64 - len(prompt) - 4
    with torch.inference_mode():
        plain = plain_decode(models64[0], prompt, n, temperature=0, mode="recompute").tokens
        result = feature_decode(models64[0], drafters["eagle"], prompt, n, 4, temperature=0, mode="recompute")
    assert result.tokens == plain


@pytest.mark.parametrize("kind", [pytest.param("medusa", marks=pytest.mark.slow), "eagle"])
def test_sampled_output_follows_the_main_model(models64, drafters, kind):
    prompt, draws = CharData().encode("ROMEO:\nI "), 1200
    laws = exact_law_of_three(models64[0], prompt)
    gen = torch.Generator().manual_seed(11)
    with torch.inference_mode():
        runs = [feature_decode(models64[0], drafters[kind], prompt, 3, 2, temperature=1.0, generator=gen)
                for _ in range(draws)]
    assert sum(r.proposed for r in runs) == draws  # the third char is always drafted
    samples = np.array([r.tokens for r in runs])
    for position, law in enumerate(laws):
        assert chi_square_pvalue(samples[:, position], law) > 1e-3, f"char {position + 1}"


def test_medusa_gamma_is_at_most_its_heads(models64, drafters):
    with pytest.raises(ValueError, match="at most 3"):
        feature_decode(models64[0], drafters["medusa"], [0, 1], 10, 4)
