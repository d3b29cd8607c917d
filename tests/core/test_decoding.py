"""The decoders on the trained checkpoints: greedy identity with plain decoding, counters, the
limits of γ and T, and recompute mode past the window (each verified row sees plain recompute
decoding's context, and keeps its law). Each drafter's law at T = 1: tests/drafters/test_law.py."""
import time

import numpy as np
import pytest
import torch

from experiments import runners
from experiments.data import CharData
from experiments.heads import load_drafter
from experiments.methods import Models, Spec, decode, drafter
from experiments.rule import MIN_TEMPERATURE, probs_from_logits
from experiments.runners import Counters, Runner
from experiments.speculative import plain_decode, speculative_decode
from tests.helpers import CHECKPOINTS, LONG_PROMPT, chi_square_pvalue

PROMPTS = ["ROMEO:\n", "First Citizen:\nBefore we proceed any further, hear me speak.", "\n"]


@pytest.fixture(scope="module")
def data():
    return CharData()


@pytest.fixture(scope="module")
def models(models64):
    return models64


def decoders(models):
    both = Models(*models)
    out = {"plain": lambda prompt, n, **kw: plain_decode(both.main, prompt, n, **kw),
           "mtp": lambda prompt, n, **kw: decode(Spec("mtp"), both, prompt, n, **kw)}
    for gamma in (1, 2, 3, 8):
        out[f"draft γ={gamma}"] = (lambda g: lambda prompt, n, **kw:
                                   decode(Spec("draft", g), both, prompt, n, **kw))(gamma)
    return out


@pytest.mark.parametrize("prompt", PROMPTS)
def test_greedy_identity_kvcache_past_the_window(models, data, prompt):
    ids, n = data.encode(prompt), 220  # passes the 64-char window several times
    with torch.inference_mode():
        runs = {name: run(ids, n, temperature=0, mode="kvcache").tokens
                for name, run in decoders(models).items()}
    for name, tokens in runs.items():
        assert tokens == runs["plain"], f"{name} greedy differs from plain greedy"


@pytest.mark.parametrize("prompt", PROMPTS[:2])
def test_greedy_identity_recompute_within_the_window(models, data, prompt):
    ids = data.encode(prompt)
    with torch.inference_mode():
        for name, run in decoders(models).items():
            gamma = int(name.split("=")[1]) if "=" in name else 1
            n = 64 - len(ids) - gamma  # prompt + output + γ fits in block_size
            plain = plain_decode(models[0], ids, n, temperature=0, mode="recompute").tokens
            assert run(ids, n, temperature=0, mode="recompute").tokens == plain, name


@pytest.mark.parametrize("mode", ["kvcache", "recompute"])
def test_counters_add_up(models, data, mode):
    ids = data.encode("ROMEO:\n")
    with torch.inference_mode():
        for name, run in decoders(models).items():
            result = run(ids, 150, temperature=1.0, mode=mode,
                         generator=torch.Generator().manual_seed(0))
            assert len(result.tokens) == 150
            # every main forward emits its accepted drafts plus one token of its own
            assert result.main_forwards + result.accepted == 150, name
            assert result.draft_forwards == result.proposed, name
            assert 0 <= result.accepted <= result.proposed, name
            if name != "plain":
                assert 0 < result.accepted < result.proposed, name


@pytest.mark.parametrize("gamma", [20, 30, 63])
def test_long_gamma_kvcache_rolls_back(models, data, gamma):
    """Issue 8, bug 2: the draft runs γ steps ahead of the last confirmed char, so its cache may
    compact between a forward and the rollback; the margin is sized from γ."""
    main, draft = models
    ids = data.encode("ROMEO:\n")
    with torch.inference_mode():
        plain = plain_decode(main, ids, 300, temperature=0, mode="kvcache").tokens
        greedy = decode(Spec("draft", gamma), Models(main, draft), ids, 300, temperature=0, mode="kvcache")
        sampled = decode(Spec("draft", gamma), Models(main, draft), ids, 300, temperature=1.0, mode="kvcache",
                         generator=torch.Generator().manual_seed(0))
    assert greedy.tokens == plain
    assert greedy.rejected > 10  # many rollbacks happened
    assert len(sampled.tokens) == 300 and sampled.main_forwards + sampled.accepted == 300


@pytest.mark.parametrize("mode", ["kvcache", "recompute"])
def test_gamma_must_fit_one_verify_window(models, data, mode):
    """Issue 8, bug 1: the verify forward covers γ drafts + 1 bonus row in one window of 64."""
    main, draft = models
    ids = data.encode("ROMEO:\n")
    both = Models(main, draft)
    for gamma in (0, 64, 100):
        with pytest.raises(ValueError, match="gamma must be between 1 and 63"):  # the decoder's own check
            speculative_decode(main, drafter(Spec("draft", gamma), both, mode), ids, 90, gamma, temperature=0, mode=mode)
        with pytest.raises(ValueError, match="gamma must be"):  # and the registry's, before any forward
            decode(Spec("draft", gamma), both, ids, 90, temperature=0, mode=mode)
    with torch.inference_mode():
        result = decode(Spec("draft", 63), both, ids, 150, temperature=1.0, mode=mode,
                        generator=torch.Generator().manual_seed(0))
    assert len(result.tokens) == 150 and result.main_forwards + result.accepted == 150


def test_mtp_with_a_prompt_longer_than_the_window(models, data):
    """Issue 8, bug 3: the MTP head's cache gets the prompt's pairs in window-sized chunks."""
    ids = data.encode(PROMPTS[1] * 2)
    assert len(ids) > 100
    with torch.inference_mode():
        plain = plain_decode(models[0], ids, 120, temperature=0, mode="kvcache").tokens
        mtp = decode(Spec("mtp"), Models(models[0]), ids, 120, temperature=0, mode="kvcache")
    assert mtp.tokens == plain and mtp.accepted > 0


@pytest.mark.parametrize("temperature", [float("nan"), float("inf"), -1.0, 1e-45, 0.009])
def test_temperature_outside_the_allowed_range_is_refused(models, data, temperature):
    """Issue 8, bug 4: T is 0 (greedy) or finite and >= MIN_TEMPERATURE."""
    logits = torch.tensor([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="temperature must be 0"):
        probs_from_logits(logits, temperature)
    for name, run in decoders(models).items():
        with pytest.raises(ValueError, match="temperature must be 0"):
            run(data.encode("ROMEO:\n"), 5, temperature=temperature)


def test_min_temperature_gives_a_distribution():
    logits = torch.tensor([30.0, -30.0, 29.0])  # logits / 0.01 = 3000: far from float32's limit
    probs = probs_from_logits(logits, MIN_TEMPERATURE)
    assert torch.isfinite(probs).all() and abs(probs.sum().item() - 1) < 1e-6
    assert probs.argmax().item() == 0


def test_the_one_clock_adds_seconds_and_forwards_only_for_a_block_that_finishes(monkeypatch):
    """Counters.timed, which every runner and drafter times its forwards with (on a fake clock: no
    wall-clock time is asserted)."""
    ticks = iter([10.0, 10.25, 20.0, 20.0, 30.0])
    monkeypatch.setattr(runners.time, "perf_counter", lambda: next(ticks))
    counters = Counters()
    with counters.timed(forwards=3):
        pass
    with counters.timed():
        pass
    assert counters.forwards == 3 and counters.forward_s == 0.25 and counters.compile_s == 0.0
    seconds = counters.forward_s
    with pytest.raises(ValueError), counters.timed(forwards=1):
        raise ValueError("a failed forward")
    assert counters.forwards == 3 and counters.forward_s == seconds


@pytest.mark.parametrize("mode", ["kvcache", "recompute"])
def test_forward_seconds_are_inside_the_wall_time(models, data, mode):
    """Result.main_forward_s and draft_forward_s: time inside the model calls, part of the total."""
    ids = data.encode("ROMEO:\n")
    for name, run in decoders(models).items():
        with torch.inference_mode():
            t0 = time.perf_counter()
            result = run(ids, 60, temperature=1.0, mode=mode, generator=torch.Generator().manual_seed(0))
            wall_s = time.perf_counter() - t0
        assert result.main_forward_s > 0, name
        assert (result.draft_forward_s > 0) == (name != "plain"), name
        assert result.main_forward_s + result.draft_forward_s < wall_s, name


def test_a_recompute_verify_gives_every_row_plain_recompute_context(models64):
    """Each verified position sees the block_size characters up to itself, as plain recompute
    decoding's forward over that crop does (once, the verify cropped prompt + drafts to 64)."""
    main = models64[0]
    window = main.cfg.block_size
    seq = [(7 * i + 3) % main.cfg.vocab_size for i in range(window + 40)]
    with torch.inference_mode():
        for length, rows in [(20, 5), (window - 3, 9), (window + 10, 5), (window + 40, 40), (window + 40, 1)]:
            logits, _, start = Runner(main, "recompute").extend(seq[:length], rows=rows)
            assert start + len(logits) == length
            for i in range(length - rows, length):
                crop = seq[max(0, i + 1 - window):i + 1]
                alone = main(torch.tensor([crop]))[0][0, -1]
                assert (logits[i - start] - alone).abs().max() < 1e-9, (length, rows, i)


@pytest.mark.parametrize("spec", [Spec("draft", 4), Spec("ngram", 63), Spec("mtp"), Spec("eagle", 19), Spec("medusa", 3),
                                  pytest.param(Spec("draft", 63), marks=pytest.mark.slow)])
def test_recompute_greedy_equals_plain_recompute_past_the_window(models64, data, spec):
    main, draft = models64
    heads = {kind: load_drafter(CHECKPOINTS / f"{kind}_s0.pt", main=main)[0].double() for kind in ("eagle", "medusa")}
    models = Models(main, draft, heads, train_tokens=data.train.tolist())
    prompt = data.encode("ROMEO:\n")
    with torch.inference_mode():
        plain = plain_decode(main, prompt, 150, temperature=0, mode="recompute").tokens
        assert decode(spec, models, prompt, 150, temperature=0, mode="recompute").tokens == plain


def exact_recompute_law_of_three(main, prompt):
    """P(x1), P(x2), P(x3) after a prompt longer than the window under plain recompute decoding
    (each step sees the last block_size characters), by enumerating the first two characters."""
    V, window = main.cfg.vocab_size, main.cfg.block_size
    with torch.inference_mode():
        p1 = probs_from_logits(main(torch.tensor([prompt[-window:]]))[0][0, -1], 1.0)
        firsts = torch.arange(V)[:, None]
        p2_given_1 = probs_from_logits(main(torch.cat([torch.tensor(prompt[1 - window:]).expand(V, -1), firsts], 1))[0][:, -1], 1.0)
        pairs = torch.cartesian_prod(torch.arange(V), torch.arange(V))
        p3_given_12 = probs_from_logits(main(torch.cat([torch.tensor(prompt[2 - window:]).expand(V * V, -1), pairs], 1))[0][:, -1], 1.0)
    joint12 = p1[:, None] * p2_given_1
    return p1, joint12.sum(0), (joint12.reshape(-1, 1) * p3_given_12).sum(0)


@pytest.mark.slow  # the greedy checks and the row-by-row context check above pin it down in make test
def test_recompute_sampled_output_follows_plain_recompute_past_the_window(models64, data):
    main, draft = models64
    prompt, draws = data.encode(LONG_PROMPT + "\nI "), 1200
    assert len(prompt) > main.cfg.block_size
    laws = exact_recompute_law_of_three(main, prompt)
    gen = torch.Generator().manual_seed(5)
    with torch.inference_mode():
        samples = np.array([decode(Spec("draft", 2), Models(main, draft), prompt, 3, temperature=1.0, mode="recompute",
                                   generator=gen).tokens for _ in range(draws)])
    for position, law in enumerate(laws):
        assert chi_square_pvalue(samples[:, position], law) > 1e-3, f"char {position + 1}"
