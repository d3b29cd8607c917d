"""The acceptance rule preserves the main model's distribution: exactly (by enumeration, in
float64), statistically (chi-square on draws), and in its edge cases."""
import itertools

import numpy as np
import pytest
import torch
from scipy import stats

from experiments import rule
from experiments.rule import accept_reject, probs_from_logits, residual


def random_dists(rows, vocab, seed, zeros=True):
    """Random distributions, some with zero entries (so q(x) = 0 and p(x) = 0 both occur)."""
    rng = np.random.default_rng(seed)
    d = rng.dirichlet(np.full(vocab, 0.7), size=rows)
    if zeros:
        d[rng.random(d.shape) < 0.25] = 0.0
        d[:, 0] += 1e-3  # keep every row non-empty
    return torch.tensor(d / d.sum(1, keepdims=True), dtype=torch.float64)


def enumerate_outputs(p, q, monkeypatch):
    """Exact law of what accept_reject emits, computed by running it on every draft sequence
    and every cell of u-space. For fixed drafts the rule compares each u_i with a threshold;
    we evaluate it at points just inside both ends of each cell and check it is constant there.
    The sampler is replaced by one that hands back the distribution it was asked to sample.
    Returns reach[i] = P(at least i+1 tokens emitted) and emit[i] = P(i-th emitted token = x)."""
    gamma, vocab = q.shape
    asked = {}

    def fake_sample(dist, generator=None):
        asked["dist"] = dist.clone()
        return -1

    monkeypatch.setattr(rule, "sample", fake_sample)
    emit = torch.zeros(gamma + 1, vocab, dtype=torch.float64)
    lengths = torch.zeros(gamma + 1, dtype=torch.float64)
    for drafts in itertools.product(range(vocab), repeat=gamma):
        p_drafts = float(np.prod([q[i, d] for i, d in enumerate(drafts)]))
        if p_drafts == 0:
            continue
        ratio = [min(1.0, float(p[i, d] / q[i, d])) for i, d in enumerate(drafts)]
        for cell in itertools.product((True, False), repeat=gamma):  # True: u_i below threshold
            bounds = [(0.0, r) if below else (r, 1.0) for r, below in zip(ratio, cell)]
            p_cell = float(np.prod([hi - lo for lo, hi in bounds]))
            if p_cell == 0:
                continue
            outcomes = set()
            for where in (1e-9, 0.5, 1 - 1e-9):
                u = torch.tensor([lo + where * (hi - lo) for lo, hi in bounds], dtype=torch.float64)
                monkeypatch.setattr(rule, "uniforms", lambda n, g=None, dtype=None, device=None, u=u: u)
                n, token = accept_reject(p, q, torch.tensor(drafts))
                assert token == -1
                outcomes.add((n, tuple(asked["dist"].tolist())))
            assert len(outcomes) == 1, "the rule is not constant inside a cell of u-space"
            n, dist = outcomes.pop()
            weight = p_drafts * p_cell
            lengths[n] += weight
            for i in range(n):
                emit[i, drafts[i]] += weight
            emit[n] += weight * torch.tensor(dist, dtype=torch.float64)
    return lengths, emit


@pytest.mark.parametrize("gamma,vocab,seed", [(1, 6, 0), (2, 5, 1), (3, 4, 2)])
def test_exact_distribution_by_enumeration(gamma, vocab, seed, monkeypatch):
    p = random_dists(gamma + 1, vocab, seed)
    q = random_dists(gamma, vocab, seed + 100)
    lengths, emit = enumerate_outputs(p, q, monkeypatch)
    assert lengths.sum().item() == pytest.approx(1.0, abs=1e-12)
    # The first emitted token has exactly the law p[0].
    torch.testing.assert_close(emit[0], p[0], atol=1e-12, rtol=0)
    # With p rows independent of the prefix, the i-th emitted token (when there is one) has law
    # p[i]: P(token i = x) = P(at least i+1 tokens) * p_i(x).
    reach = torch.flip(torch.cumsum(torch.flip(lengths, [0]), 0), [0])
    for i in range(gamma + 1):
        torch.testing.assert_close(emit[i], reach[i] * p[i], atol=1e-12, rtol=0)
    # Accepted-length law: P(N = k) = alpha_1 ... alpha_k (1 - alpha_{k+1}), alpha_i = sum min(p_i, q_i).
    alpha = torch.minimum(p[:gamma], q).sum(1)
    for k in range(gamma + 1):
        expected = torch.prod(alpha[:k]) * (1 - alpha[k] if k < gamma else 1.0)
        assert lengths[k].item() == pytest.approx(expected.item(), abs=1e-12)


def test_chi_square_on_draws():
    gamma, vocab, draws = 3, 8, 20000
    p = random_dists(gamma + 1, vocab, 7)
    q = random_dists(gamma, vocab, 8)
    gen = torch.Generator().manual_seed(0)
    first = np.zeros(vocab)
    lengths = np.zeros(gamma + 1)
    for _ in range(draws):
        drafts = torch.stack([torch.multinomial(q[i], 1, generator=gen)[0] for i in range(gamma)])
        n, token = accept_reject(p, q, drafts, gen)
        lengths[n] += 1
        first[drafts[0].item() if n > 0 else token] += 1
    expected = p[0].numpy() * draws
    support = expected > 0
    assert first[~support].sum() == 0, "emitted a token that p gives zero probability"
    assert stats.chisquare(first[support], expected[support]).pvalue > 1e-3
    alpha = torch.minimum(p[:gamma], q).sum(1).numpy()
    law = [np.prod(alpha[:k]) * (1 - alpha[k] if k < gamma else 1) for k in range(gamma + 1)]
    assert stats.chisquare(lengths, np.array(law) * draws).pvalue > 1e-3


def test_chi_square_detects_a_wrong_rule(monkeypatch):
    """The chi-square check above has teeth: accepting drafts blindly makes it fail."""
    vocab, draws = 8, 20000
    p, q = random_dists(2, vocab, 7, zeros=False), random_dists(1, vocab, 8, zeros=False)
    gen = torch.Generator().manual_seed(0)
    drafts = torch.multinomial(q[0], draws, replacement=True, generator=gen)
    counts = np.bincount(drafts.numpy(), minlength=vocab)  # what "always accept" would emit
    assert stats.chisquare(counts, p[0].numpy() * draws).pvalue < 1e-6


def test_p_equals_q_always_accepts():
    p = random_dists(4, 10, 3, zeros=False)
    gen = torch.Generator().manual_seed(1)
    for _ in range(200):
        drafts = torch.stack([torch.multinomial(p[i], 1, generator=gen)[0] for i in range(3)])
        n, _ = accept_reject(p, p[:3], drafts, gen)
        assert n == 3


def test_disjoint_supports_never_accept_and_resample_from_p():
    p = torch.tensor([[0.5, 0.5, 0, 0], [0.25, 0.25, 0.25, 0.25]], dtype=torch.float64)
    q = torch.tensor([[0, 0, 0.3, 0.7]], dtype=torch.float64)
    gen = torch.Generator().manual_seed(2)
    for draft in (2, 3):
        for _ in range(50):
            n, token = accept_reject(p, q, torch.tensor([draft]), gen)
            assert n == 0 and token in (0, 1)


def test_draft_outside_q_support_is_rejected():
    p = torch.tensor([[0.2, 0.8], [0.5, 0.5]], dtype=torch.float64)
    q = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    for seed in range(20):
        n, token = accept_reject(p, q, torch.tensor([1]), torch.Generator().manual_seed(seed))
        assert n == 0 and token == 1  # residual max(0, p - q) is all on token 1


def test_one_hot_and_greedy():
    logits_p = torch.tensor([[0.1, 3.0, -1.0], [2.0, 0.0, 0.0]], dtype=torch.float64)
    logits_q_agree = torch.tensor([[0.0, 1.0, 0.5]], dtype=torch.float64)
    logits_q_differ = torch.tensor([[0.0, 1.0, 2.5]], dtype=torch.float64)
    p = probs_from_logits(logits_p, 0)
    assert p.tolist() == [[0, 1, 0], [1, 0, 0]]
    q = probs_from_logits(logits_q_agree, 0)
    assert accept_reject(p, q, q.argmax(-1)) == (1, 0)  # accepted, bonus = argmax of p[1]
    q = probs_from_logits(logits_q_differ, 0)
    assert accept_reject(p, q, q.argmax(-1)) == (0, 1)  # rejected, resample = argmax of p[0]


def test_residual_rounding_falls_back_to_p():
    p = torch.tensor([0.25, 0.25, 0.5], dtype=torch.float64)
    q = p + torch.tensor([1e-17, -1e-17, 0], dtype=torch.float64)
    assert torch.equal(residual(p, q), p)
    q = torch.tensor([0.5, 0.25, 0.25], dtype=torch.float64)
    torch.testing.assert_close(residual(p, q), torch.tensor([0, 0, 1.0], dtype=torch.float64))


def test_temperature_scales_logits():
    logits = torch.tensor([1.0, 2.0, 3.0])
    torch.testing.assert_close(probs_from_logits(logits, 0.5), torch.softmax(logits * 2, -1))


def test_sampler_inverts_the_cdf_and_never_returns_a_zero(monkeypatch):
    probs = torch.tensor([0.0, 0.5, 0.0, 0.5, 0.0, 0.0], dtype=torch.float64)
    for u, expected in [(0.0, 1), (0.49, 1), (0.5, 3), (0.99, 3), (1.0, 3)]:  # 1.0: the rounding guard
        monkeypatch.setattr(rule.torch, "rand", lambda *a, u=u, **k: torch.tensor([u], dtype=torch.float64))
        assert rule.sample(probs) == expected
    monkeypatch.setattr(rule.torch, "rand", lambda *a, **k: torch.tensor([1.0], dtype=torch.float64))
    assert rule.sample(torch.tensor([1.0, 0.0, 0.0])) == 0
