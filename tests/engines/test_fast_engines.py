"""Every method on the engines with the least overhead (aot: AOTInductor packages; native: the C++
step), against plain decoding on the same engine and on the eager one: the same greedy text for
every chain and tree family, and the same counters as eager (the drafts, the accepted, the main
forwards). The T = 1 law of their decoders is checked in tests/drafters/test_law.py; their logits against
eager in test_aot.py and test_native.py."""
import pytest
import torch

from experiments.data import CharData
from experiments.engine import available_engines
from experiments.methods import Spec, decode, load_models
from experiments.runs import CHECKPOINTS

CHAINS = [Spec("draft", 3), Spec("mtp"), Spec("ngram", 4), Spec("lookup", 4), Spec("match", 6),
          Spec("suffix", 8), Spec("medusa", 3), Spec("eagle", 4), Spec("eagle3", 4), Spec("block", 4)]
TREES = [Spec("ngram", tree=8), Spec("lookup", tree=8), Spec("suffix", tree=8), Spec("medusa", tree=8),
         Spec("eagle", tree=8), Spec("eagle3", tree=8), Spec("block", tree=8), Spec("lookahead", gamma=3)]
N_CHARS = 200  # past the 64-character window three times


@pytest.fixture(scope="module")
def models():
    data = CharData()
    return load_models(CHECKPOINTS, 0, train_tokens=data.train.tolist())


@pytest.fixture(scope="module")
def plain_eager(models):
    with torch.inference_mode():
        return decode(Spec("plain"), models, CharData().encode("ROMEO:\n"), N_CHARS, temperature=0).tokens


def engine_or_skip(models, engine):
    if engine not in available_engines(models.main, [engine]):
        pytest.skip(f"the {engine} engine cannot build here")
    return engine


def shape_of(spec):
    return f"{spec.method}-{'tree' if spec.tree or spec.method == 'lookahead' else 'chain'}"


# aot builds a package per (model, kind, shape), 10-30 s each on a fresh cache: make test builds
# three (main on 1 and 5 positions, an 8-node tree); `pytest -m slow` runs every method on it
CASES = ([("native", spec) for spec in CHAINS + TREES]
         + [pytest.param("aot", spec, marks=() if spec in (Spec("ngram", 4), Spec("ngram", tree=8)) else pytest.mark.slow)
            for spec in CHAINS + TREES])


@pytest.mark.parametrize("engine,spec", CASES, ids=lambda x: x if isinstance(x, str) else shape_of(x))
def test_greedy_text_equals_plain_on_the_engine_and_on_eager(models, plain_eager, engine, spec):
    engine_or_skip(models, engine)
    prompt = CharData().encode("ROMEO:\n")
    with torch.inference_mode():
        plain = decode(Spec("plain"), models, prompt, N_CHARS, temperature=0, engine=engine).tokens
        fast = decode(spec, models, prompt, N_CHARS, temperature=0, engine=engine)
        eager = decode(spec, models, prompt, N_CHARS, temperature=0)
    # float32 logits a few 1e-5 apart from eager's: on this prompt no near-tie flips an argmax
    assert plain == plain_eager
    assert fast.tokens == plain
    assert (fast.main_forwards, fast.proposed, fast.accepted) == (eager.main_forwards, eager.proposed, eager.accepted)
