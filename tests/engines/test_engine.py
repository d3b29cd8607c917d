"""The compiled engine (experiments/engine.py) against the eager one: the same logits through
rollbacks and past the sliding window, and the same greedy text for every decoder. (The T = 1
law of the compiled decoders is checked in tests/drafters/test_law.py.)"""
import pytest
import torch

from experiments.data import CharData
from experiments.engine import CompiledRunner
from experiments.graphs import StaticCache
from experiments.methods import Models, Spec, decode
from experiments.model import load_checkpoint
from experiments.speculative import plain_decode
from tests.helpers import CHECKPOINTS, max_logit_gap


@pytest.fixture(scope="module")
def main32():
    return load_checkpoint(CHECKPOINTS / "main_s0.pt")[0]


def test_static_cache_ring_buffer_matches_the_eager_cache(main32):
    """The engine's cache, masks and RoPE-by-position, run eagerly (nothing compiled)."""
    assert max_logit_gap(main32, CompiledRunner(main32, sizes=()), seed=1) < 1e-4


@pytest.mark.parametrize("layers", [False, True])
def test_compiled_logits_match_eager(main32, layers):
    """Feeds of 1 and 2-5 positions run the compiled graphs (padded to 1 or 5 positions); with
    layers, the graphs that return every layer's output (EAGLE-3's drafter reads them)."""
    runner = CompiledRunner(main32, sizes=(1, 5), layers=layers)
    assert max_logit_gap(main32, runner, seed=2) < 1e-4


def test_static_cache_mask_sees_exactly_the_window():
    cache = StaticCache(1, 1, 2, window=4)
    cache.prepare(torch.arange(0, 6))
    mask = cache.prepare(torch.tensor([6, 7]))
    held = cache.slot_pos
    for row, t in enumerate((6, 7)):
        visible = sorted(held[mask[row]].tolist())
        assert visible == list(range(t - 3, t + 1))


@pytest.mark.parametrize("method", ["plain", "draft γ=3", "mtp"])
def test_compiled_greedy_text_equals_eager(models64, method):
    main, draft = models64
    prompt, n = CharData().encode("ROMEO:\n"), 300  # past the 64-char window several times
    run = {"plain": lambda **kw: plain_decode(main, prompt, n, temperature=0, **kw),
           "draft γ=3": lambda **kw: decode(Spec("draft", 3), Models(main, draft), prompt, n, temperature=0, **kw),
           "mtp": lambda **kw: decode(Spec("mtp"), Models(main), prompt, n, temperature=0, **kw)}[method]
    with torch.inference_mode():
        eager, compiled = run(engine="eager"), run(engine="compiled")
        plain = plain_decode(main, prompt, n, temperature=0).tokens
    assert compiled.tokens == eager.tokens == plain
    assert (compiled.main_forwards, compiled.draft_forwards) == (eager.main_forwards, eager.draft_forwards)


def test_compiled_draft_round_samples_what_the_eager_round_samples(models64):
    """The compiled round draws its γ uniforms at once from the same generator and inverts the
    same CDFs, so at T = 1 (float64, no near-ties) the two engines write the same text."""
    main, draft = models64
    prompt = CharData().encode("ROMEO:\n")
    with torch.inference_mode():
        runs = [decode(Spec("draft", 3), Models(main, draft), prompt, 200, temperature=1.0, engine=engine,
                       generator=torch.Generator().manual_seed(7)) for engine in ("eager", "compiled")]
    assert runs[0].tokens == runs[1].tokens
    assert (runs[0].accepted, runs[0].rejected) == (runs[1].accepted, runs[1].rejected)
