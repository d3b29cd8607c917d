"""The measurement helpers on hand-made inputs, and the results files the page reads
(causal.json, acceptance.json, divergence_sweep.json) checked for their schema and for the
properties they are meant to show."""
import math

import numpy as np
import pytest
import torch
from scipy import stats

from experiments.data import CharData
from experiments.measure.acceptance import pick_positions
from experiments.probes import draws_through_rule
from experiments.runs import DRAFT_SNAPSHOTS
from experiments.stats import alpha, chi2_sf, chi_square, entropy, kl, tv
from tests.helpers import results

KINDS = ["high", "typical", "low", "overweight", "uncertain"]




@pytest.fixture(scope="module")
def data():
    return CharData()


def dist(*values):
    return torch.tensor(values, dtype=torch.float64)


# --- helpers ---

def test_distances_on_hand_made_distributions():
    p, q = dist(0.5, 0.5, 0.0), dist(0.25, 0.25, 0.5)
    assert float(tv(p, q)) == pytest.approx(0.5)
    assert float(alpha(p, q)) == pytest.approx(0.5)
    assert float(kl(p, q)) == pytest.approx(math.log(2))  # 2 · 0.5 · log(0.5 / 0.25)
    assert float(kl(q, p)) == math.inf  # q has mass where p has none
    assert float(kl(p, p)) == 0.0
    assert float(entropy(p)) == pytest.approx(math.log(2))
    assert float(alpha(p, p)) == pytest.approx(1.0) and float(tv(p, p)) == 0.0
    batch = torch.stack([p, q])
    assert tv(batch, batch.flip(0)).tolist() == pytest.approx([0.5, 0.5])


@pytest.mark.parametrize("stat", [0.0, 0.5, 3.0, 20.0])
def test_chi2_sf_closed_forms(stat):
    assert chi2_sf(stat, 2) == pytest.approx(math.exp(-stat / 2))                  # χ²(2) is Exp(1/2)
    assert chi2_sf(stat, 1) == pytest.approx(math.erfc(math.sqrt(stat / 2)))       # χ²(1) = Z²


def scipy_chi_square(counts, law):
    """The same pooling as experiments.stats.chi_square, written with numpy, tested by scipy."""
    counts, expected = np.asarray(counts, float), np.asarray(law) * sum(counts)
    rare = expected < 5
    observed = np.append(counts[~rare], counts[rare].sum())
    expected = np.append(expected[~rare], expected[rare].sum())
    keep = expected > 0
    result = stats.chisquare(observed[keep], expected[keep])
    return result.statistic, int(keep.sum()) - 1, result.pvalue


@pytest.mark.parametrize("counts,law", [
    ([30, 50, 20], [0.3, 0.5, 0.2]),
    ([10, 60, 25, 3, 2, 0], [0.1, 0.6, 0.25, 0.03, 0.01, 0.01]),  # three rare cells pooled
    ([0, 400, 600], [0.0, 0.4, 0.6]),  # a cell nothing is expected in
    ([120, 80, 0], [0.5, 0.5, 0.0]),
])
def test_chi_square_matches_scipy(counts, law):
    stat, dof, p_value = chi_square(torch.tensor(counts), dist(*law))
    want_stat, want_dof, want_p = scipy_chi_square(counts, law)
    assert dof == want_dof
    assert stat == pytest.approx(want_stat, rel=1e-9, abs=1e-12)
    assert p_value == pytest.approx(want_p, rel=1e-9)


def test_draws_through_rule_edge_cases():
    gen = torch.Generator().manual_seed(0)
    p = dist(0.2, 0.3, 0.5)
    accepted, emitted = draws_through_rule(p, p, 200, gen)
    assert accepted == 200  # q = p: every draft passes
    disjoint_q = dist(0.0, 0.0, 1.0)
    accepted, emitted = draws_through_rule(dist(0.4, 0.6, 0.0), disjoint_q, 200, gen)
    assert accepted == 0 and set(emitted.tolist()) <= {0, 1}  # all from the residual = p


def test_pick_positions_are_distinct_and_match_their_kind():
    rng = np.random.default_rng(0)
    p = torch.tensor(rng.dirichlet(np.full(5, 0.5), size=40))
    q = torch.tensor(rng.dirichlet(np.full(5, 0.5), size=40))
    chosen, overweight = pick_positions(p, q)
    assert list(chosen) == KINDS and len(set(chosen.values())) == len(KINDS)
    row = chosen["overweight"]
    char = int(overweight[row].argmax())
    assert p[row, char] < q[row, char] / 4
    assert int(entropy(p).argmax()) in chosen.values()


# --- acceptance.json ---

def test_acceptance_schema(data):
    out = results("acceptance")
    assert "meta" in out and isinstance(out["selection"], str) and out["selection"]
    assert out["vocab"] == data.chars and len(out["vocab"]) == 65
    assert out["draws"] == 200_000 and isinstance(out["seed"], int)
    positions = out["positions"]
    assert [pos["kind"] for pos in positions] == KINDS
    assert len({pos["val_offset"] for pos in positions}) == len(positions)
    for pos in positions:
        offset = pos["val_offset"]
        assert pos["context"] == data.decode(data.val[offset:offset + 64].tolist())
        assert len(pos["p"]) == len(pos["q"]) == len(pos["counts"]) == 65
        assert all(isinstance(c, int) for c in pos["counts"])
        for key in ("alpha_theory", "accept_rate", "tv_out_p", "tv_q_p", "chi2_stat", "chi2_p"):
            assert isinstance(pos[key], float), key
        assert isinstance(pos["chi2_dof"], int)
        overweight = pos["overweight_char"]
        if pos["kind"] == "overweight":
            x = out["vocab"].index(overweight)
            assert pos["p"][x] < pos["q"][x] / 4
        else:
            assert overweight is None


@pytest.mark.parametrize("kind", KINDS)
def test_acceptance_draws_follow_p(kind):
    out = results("acceptance")
    pos = next(pos for pos in out["positions"] if pos["kind"] == kind)
    p, q, counts, draws = np.array(pos["p"]), np.array(pos["q"]), np.array(pos["counts"]), out["draws"]
    assert p.sum() == pytest.approx(1, abs=1e-12) and q.sum() == pytest.approx(1, abs=1e-12)
    assert counts.sum() == draws
    tv_q_p = 0.5 * np.abs(p - q).sum()
    assert pos["tv_q_p"] == pytest.approx(tv_q_p, abs=1e-12)
    assert pos["alpha_theory"] == pytest.approx(np.minimum(p, q).sum(), abs=1e-12)
    assert abs(pos["alpha_theory"] - (1 - tv_q_p)) < 1e-9
    a = pos["alpha_theory"]
    assert abs(pos["accept_rate"] - a) < 5 * math.sqrt(a * (1 - a) / draws)
    tv_out_p = 0.5 * np.abs(counts / draws - p).sum()
    assert pos["tv_out_p"] == pytest.approx(tv_out_p, abs=1e-12)
    # E TV(out, p) <= ½ Σ sqrt(p(1-p)/draws); the draft's own distance is far larger
    assert pos["tv_out_p"] < 2 * 0.5 * np.sqrt(p * (1 - p) / draws).sum()
    assert pos["tv_out_p"] < tv_q_p / 4
    stat, dof, p_value = scipy_chi_square(counts, p)
    assert pos["chi2_dof"] == dof
    assert pos["chi2_stat"] == pytest.approx(stat, rel=1e-9)
    assert pos["chi2_p"] == pytest.approx(p_value, rel=1e-6)
    assert pos["chi2_p"] > 1e-3


# --- divergence_sweep.json ---

def test_divergence_sweep():
    out = results("divergence_sweep")
    assert out["n_positions"] >= 2000 and isinstance(out["seed"], int)
    snaps = out["snapshots"]
    assert [s["step"] for s in snaps] == list(DRAFT_SNAPSHOTS)
    for s in snaps:
        for key in ("alpha_mean", "kl_mean", "tv_mean", "accept_rate_sampled", "draft_val_loss"):
            assert isinstance(s[key], float), key
        assert s["n_samples"] == out["n_positions"] * out["samples_per_position"]
        assert abs(s["alpha_mean"] - (1 - s["tv_mean"])) < 1e-9
        a = s["alpha_mean"]  # the rate also varies by position, so this bound is generous
        assert abs(s["accept_rate_sampled"] - a) < 5 * math.sqrt(a * (1 - a) / s["n_samples"])
    assert snaps[-1]["alpha_mean"] > snaps[0]["alpha_mean"]
    assert snaps[-1]["kl_mean"] < snaps[0]["kl_mean"]
    assert snaps[-1]["draft_val_loss"] < snaps[0]["draft_val_loss"]
    assert out["max_abs_alpha_minus_one_minus_tv"] < 1e-9


# --- causal.json ---

def test_causal_checks():
    out = results("causal")
    prefix, kvcache = out["prefix_check"], out["kvcache_check"]
    assert len(prefix["text"]) == prefix["n_full"] == 64 and prefix["n_short"] == 56
    assert kvcache["n_tokens"] == 64 and kvcache["how"]
    assert prefix["max_abs_diff"] <= 1e-5
    # float32 rounding: the one-token kv-cache path sums in another order; in float64 the two
    # paths agree to ~1e-14, so nothing leaks from later positions
    assert kvcache["max_abs_diff"] <= 1e-4
    assert max(prefix["max_abs_diff_float64"], kvcache["max_abs_diff_float64"]) <= 1e-12


def test_verify_example_agrees_with_its_uniforms(data):
    ex = results("causal")["verify_example"]
    gamma = ex["gamma"]
    assert gamma == 8 and ex["temperature"] == 1.0 and isinstance(ex["seed"], int)
    offset = ex["val_offset"]
    assert ex["context"] == data.decode(data.val[offset:offset + 8].tolist())
    assert len(ex["drafts"]) == len(ex["p_draft"]) == len(ex["q_draft"]) == len(ex["u"]) == gamma
    assert all(d in data.chars for d in ex["drafts"] + [ex["next_char"]])
    n = 0
    while n < gamma and ex["u"][n] < min(1.0, ex["p_draft"][n] / ex["q_draft"][n]):
        n += 1
    assert ex["n_accepted"] == n and 2 <= n <= 6
    assert ex["next_kind"] == ("bonus" if n == gamma else "resample")
    rows = ex["rows"]
    assert "".join(row["char"] for row in rows) == ex["context"] + "".join(ex["drafts"])
    assert [row["role"] for row in rows] == ["context"] * 8 + ["draft"] * gamma
    for row in rows:
        probs = [prob for _, prob in row["top"]]
        assert len(probs) == 5 and probs == sorted(probs, reverse=True) and 0 < probs[0] <= 1
    assert isinstance(ex["selection"], str) and ex["selection"]


def test_rollback_matches_a_rebuilt_cache():
    rb = results("causal")["rollback"]
    assert rb["length_after_verify"] == rb["length_before"] + rb["gamma"] + 1
    assert rb["length_after_rollback"] == rb["length_before"] + 1 + rb["n_accepted"]
    assert rb["max_abs_diff_vs_rebuilt"] <= 1e-5 and rb["equal"] is True
