"""The timing harness on fake workloads, and the ledger, γ-sweep and MTP results checked for
the identities they are built from (recomputed here from their own fields)."""
import statistics

import pytest
from scipy import stats

from experiments import timing
from experiments.stats import burst_check, expected_tokens, mean_std, paired_t_test, pooled_burst_check, theorem_3_8
from tests.helpers import results


def test_interleaved_rotates_order_warms_up_and_passes_seeds(monkeypatch):
    calls = []
    methods = {name: (lambda name: lambda seed: calls.append((name, seed)) or seed)(name) for name in "abc"}
    clock = iter(range(1000))
    monkeypatch.setattr(timing.time, "perf_counter", lambda: next(clock))
    out = timing.interleaved(methods, repeats=3, warmup=2)
    assert calls[:6] == [("a", 10000), ("a", 10001), ("b", 10000), ("b", 10001), ("c", 10000), ("c", 10001)]
    timed = calls[6:]
    assert [n for n, _ in timed] == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]  # rotated each repeat
    assert all(out[n]["results"] == [0, 1, 2] for n in "abc")  # repeat r runs with seed r
    assert all(out[n]["wall_s"] == [1, 1, 1] for n in "abc")    # one fake tick per call


def test_summary_and_per_call():
    assert timing.summary([3.0, 1.0, 2.0, 10.0]) == {"median": 2.5, "min": 1.0, "max": 10.0, "n": 4}
    per_call = timing.per_call(lambda: sum(range(100)), calls=50, warmup=5)
    assert per_call["n"] == 50 and 0 < per_call["min"] <= per_call["median"] <= per_call["max"]


def test_formulas():
    assert expected_tokens(0.5, 1) == pytest.approx(1.5)
    assert expected_tokens(0.8, 4) == pytest.approx(1 + 0.8 + 0.64 + 0.512 + 0.4096)
    assert theorem_3_8(0.8, 4, 0.0) == pytest.approx(expected_tokens(0.8, 4))
    assert theorem_3_8(0.7, 1, 0.7) == pytest.approx(1.0)  # α = c: γ = 1 breaks even (Corollary 3.9)


def test_seed_statistics():
    s = mean_std([1.0, 2.0, 3.0])
    assert s["mean"] == 2.0 and s["std"] == pytest.approx(1.0)
    assert mean_std([1.5])["std"] is None


@pytest.mark.parametrize("with_mtp,control", [
    ([1.50, 1.51, 1.49], [1.52, 1.53, 1.51]),          # -0.02 every seed: no noise at all
    ([1.50, 1.512, 1.49], [1.52, 1.53, 1.511]),        # -0.02 ± 0.002: far beyond the noise
    ([1.50, 1.53, 1.49], [1.52, 1.50, 1.50]),          # signs disagree
    ([1.50, 1.50, 1.49], [1.52, 1.53, 1.50]),          # t ≈ -3.5: beyond 2 standard errors, within t(2)
    ([1.5, 1.4, 1.6, 1.45, 1.55], [1.52, 1.43, 1.6, 1.5, 1.58]),
])
def test_paired_t_test_matches_scipy(with_mtp, control):
    v = paired_t_test(with_mtp, control)
    n = len(with_mtp)
    assert v["df"] == n - 1 and v["n_seeds"] == n and v["test"]
    assert v["t_critical"] == pytest.approx(stats.t.ppf(0.975, n - 1))
    lo, hi = v["ci95"]
    assert lo <= v["mean_difference"] <= hi
    if v["t"] is None:  # identical differences: zero spread
        assert v["standard_error"] == 0 and v["beyond_seed_noise"] is True
        return
    want = stats.ttest_rel(with_mtp, control)
    assert v["t"] == pytest.approx(want.statistic) and v["p"] == pytest.approx(want.pvalue)
    assert v["beyond_seed_noise"] == (want.pvalue < 0.05) == (not lo <= 0 <= hi)


def test_three_seeds_need_t_not_two_standard_errors():
    v = paired_t_test([1.50, 1.50, 1.49], [1.52, 1.53, 1.50])
    assert 2 < abs(v["t"]) < 4.30 and v["t_critical"] == pytest.approx(4.303, abs=1e-3)
    assert v["beyond_seed_noise"] is False  # the old 2-standard-error rule said True
    assert paired_t_test([1.5], [1.6])["beyond_seed_noise"] is None


def test_ledger_rows_follow_from_their_own_fields():
    ledger = results("ledger")
    rows = ledger["rows"]
    assert {(r["method"], r["mode"]) for r in rows} == {(m, mode) for m in ("plain", "draft", "mtp")
                                                        for mode in ("recompute", "kvcache")}
    for r in rows:
        plain = next(p for p in rows if p["mode"] == r["mode"] and p["method"] == "plain")
        assert len(r["wall_s_runs"]) == r["repeats"] == ledger["repeats"] >= 5
        assert r["wall_s"]["median"] == pytest.approx(statistics.median(r["wall_s_runs"]))
        assert r["speedup"] == pytest.approx(plain["wall_s"]["median"] / r["wall_s"]["median"])
        assert r["tokens_per_main"] == pytest.approx(ledger["n_chars"] / r["main_forwards"])
        # the median run taken apart: parts measured inside it, none negative, summing to its wall
        run_wall = r["wall_s_runs"][r["parts_repeat"]]
        assert run_wall == statistics.median(r["wall_s_runs"]) and min(r["parts_s"].values()) >= 0
        assert sum(r["parts_s"].values()) == pytest.approx(run_wall, rel=1e-9)
        assert r["overhead_s"] == r["parts_s"]["other"]
        if r["method"] == "plain":
            assert r["main_forwards"] == ledger["n_chars"] and r["draft_forwards"] == 0
            continue
        assert 0 < r["alpha"] < 1
        assert r["speedup_theory"] == pytest.approx(theorem_3_8(r["alpha"], r["gamma"], r["c_used"]))
        # chars per main forward sit near the formula at the measured α (the last rounds draft less)
        assert abs(r["tokens_per_main"] / r["tokens_per_main_expected"] - 1) < 0.05
        assert sum(r["run_lengths"]) > 0 and len(r["run_lengths"]) == r["gamma"] + 1


def test_summaries_follow_from_the_rows():
    sweep, ledger = results("gamma_sweep"), results("ledger")
    rows, su = sweep["rows"], sweep["summary"]
    assert su["max_tokens_deviation"] == pytest.approx(
        max(abs(r["tokens_per_main"] / r["tokens_per_main_expected"] - 1) for r in rows))
    for mode in ("kvcache", "recompute"):
        mine = [r for r in rows if r["mode"] == mode]
        assert su["below_theory"][mode] == {"rows": len(mine),
                                            "rows_below": sum(r["speedup"] < r["speedup_theory"] for r in mine)}
        fastest = max(mine, key=lambda r: r["speedup"])
        assert su["fastest"][mode]["gamma"] == fastest["gamma"]
        assert su["fastest"][mode]["gain_of_last_draft"] == pytest.approx(fastest["alpha"] ** sweep["gamma_max"])
    lsu = ledger["summary"]
    kv = [r for r in ledger["rows"] if r["mode"] == "kvcache"]
    plain = next(r for r in kv if r["method"] == "plain")
    fewest = min((r for r in kv if r["method"] != "plain"), key=lambda r: r["main_forwards"])
    assert (lsu["fewest_main_forwards"]["method"], lsu["fewest_main_forwards"]["gamma"]) == (fewest["method"], fewest["gamma"])
    assert lsu["fewest_main_forwards"]["main_forwards_saved"] == pytest.approx(1 - fewest["main_forwards"] / plain["main_forwards"])
    checks = ledger["greedy_check"]
    assert (lsu["greedy_equal"], lsu["greedy_checks"]) == (sum(c["equal"] for c in checks), len(checks))


def test_forward_costs_are_consistent():
    costs = results("ledger")["forward_costs"]
    for mode, c in costs.items():
        # c is the median of draft / main paired repeat by repeat (costs.prices_of), so it lies
        # within the range of the unpaired ratios of the medians' neighbours, not exactly on one
        s = c["seconds"]
        assert 0.5 < c["c"] / (s["draft"] / s["main"]) < 2
        assert 0 < c["c"] < 1 and 0 < c["c_mtp"] < 1
    # kv-cache: a verify of 1+8 tokens costs more than 1 token but well under 9 forwards (under half of them)
    kv = costs["kvcache"]["verify_over_main"]
    assert 1 < kv["8"] < 9 / 2


def test_greedy_identity_holds_in_both_modes_for_every_char():
    checks = results("ledger")["greedy_check"]
    assert len(checks) == 2 * 7 and all(c["equal"] and c["first_mismatch"] is None for c in checks)
    assert all(c["chars_compared"] == 600 for c in checks)


def test_gamma_sweep_takes_each_modes_rows_from_its_lane():
    sweep, ledger = results("gamma_sweep"), results("ledger")
    assert sweep["engines"]["recompute"] == "eager"
    rc = [r for r in sweep["rows"] if r["mode"] == "recompute"]
    eager = [r for r in ledger["rows"] if r["method"] == "draft" and r["mode"] == "recompute"]
    assert len(rc) == len(eager) > 0
    for s, r in zip(rc, eager):
        assert (s["gamma"], s["speedup"], s["alpha"]) == (r["gamma"], r["speedup"], r["alpha"])
    kv = [r for r in sweep["rows"] if r["mode"] == "kvcache"]
    assert {r["engine"] for r in kv} == {sweep["engines"]["kvcache"]}
    assert sweep["gammas"] == sorted({r["gamma"] for r in sweep["rows"]})
    assert sweep["c"] == {m: sweep["lane_costs"][m]["c"] for m in sweep["c"]}
    for r in kv:
        assert r["speedup_theory"] == pytest.approx(theorem_3_8(r["alpha"], r["gamma"], sweep["c"]["kvcache"]))

def test_mtp_seed_statistics_and_trace():
    mtp = results("mtp")
    n = len(mtp["seeds"])
    for kind, summary in mtp["val_loss"].items():
        assert len(summary["values"]) == n
        assert summary["mean"] == pytest.approx(statistics.mean(summary["values"]))
        if n > 1:
            assert summary["std"] == pytest.approx(statistics.stdev(summary["values"]))
    with_mtp, control = mtp["val_loss"]["main_mtp"]["values"], mtp["val_loss"]["control"]["values"]
    diffs = [a - b for a, b in zip(with_mtp, control)]
    assert mtp["verdict"]["differences"] == pytest.approx(diffs)
    if n > 1:
        want = stats.ttest_rel(with_mtp, control)
        assert mtp["verdict"]["t"] == pytest.approx(want.statistic) and mtp["verdict"]["df"] == n - 1
        assert mtp["verdict"]["beyond_seed_noise"] == (want.pvalue < 0.05)
    assert mtp["lambda"] == results("models")["runs"][f"main_s{mtp['seeds'][0]}"]["mtp_weight"] > 0
    params = mtp["params"]
    assert params["mtp_head_total"] == params["hidden_norm"] + params["embed_norm"] + params["proj"] + params["block"]
    assert params["main_total"] == params["shared_embedding_head"] + sum(params["main_blocks"]) + params["shared_final_norm"]
    sample = mtp["sample"]
    emitted = "".join(ch for step in sample["steps"] for ch in step["emitted"])
    assert emitted == sample["text"] and len(emitted) == sample["n_chars"]
    assert len(sample["steps"]) == sample["main_forwards"]
    last = len(sample["steps"]) - 1
    for i, step in enumerate(sample["steps"]):
        assert len(step["emitted"]) == step["n_accepted"] + 1
        if step["draft"] is None:  # the prompt's forward, and the last one when one char is left
            assert i in (0, last)
            assert step["next_from"] == "main" and step["accepted"] is False and step["n_accepted"] == 0
        else:
            accept = step["u"] * step["q_draft"] < step["p_draft"]
            assert accept == step["accepted"] == (step["n_accepted"] == 1)
            assert step["next_from"] == ("bonus" if accept else "residual")
    assert sample["steps"][0]["draft"] is None


def test_burst_check_against_the_geometric_law():
    for alpha in (0.2, 0.73, 0.95):
        for gamma in (1, 3, 8):
            law = [e / 1000 for e in burst_check([1000] + [0] * gamma, alpha)["expected"]]
            assert sum(law) == pytest.approx(1) and law[0] == pytest.approx(1 - alpha)
            assert law[gamma] == pytest.approx(alpha ** gamma)
            # its mean is α + α² + … + α^γ = E − 1
            assert sum(k * p for k, p in enumerate(law)) == pytest.approx(expected_tokens(alpha, gamma) - 1)
    alpha, gamma, rounds = 0.7, 4, 100_000
    exact_counts = burst_check([rounds] + [0] * gamma, alpha)["expected"]  # the law × rounds
    fit = burst_check(exact_counts, alpha)
    assert fit["chi2"] == pytest.approx(0, abs=1e-9) and fit["dof"] == gamma - 1
    bursty = [n * (1.2 if k in (0, gamma) else 0.85) for k, n in enumerate(exact_counts)]
    b = burst_check(bursty, alpha)
    assert b["p"] < 1e-6
    assert b["p"] == pytest.approx(stats.chisquare(bursty, b["expected"], ddof=1).pvalue, rel=1e-6)
    assert burst_check([30, 70], 0.7)["p"] is None  # γ = 1: no degrees of freedom left
    rows = [{"mode": "kvcache", "method": "draft", "run_lengths": counts, "burst": burst_check(counts, alpha)}
            for counts in (exact_counts, bursty, [30, 70])]
    pooled = pooled_burst_check(rows, "kvcache")
    assert (pooled["rows"], pooled["dof"]) == (2, 2 * (gamma - 1))
    assert pooled["chi2"] == pytest.approx(fit["chi2"] + b["chi2"])
    assert pooled["ends"]["zero"]["observed"] == pytest.approx(exact_counts[0] + bursty[0])
    assert pooled["ends"]["full"]["expected"] == pytest.approx(fit["expected"][-1] + b["expected"][-1])
    assert pooled["verdict"] == "both_ends_high"


def pooled_verdict(counts, alpha):
    row = {"mode": "kvcache", "method": "draft", "run_lengths": counts, "burst": burst_check(counts, alpha)}
    return pooled_burst_check([row], "kvcache")["verdict"]


def test_pooled_burst_verdicts():
    alpha, gamma, rounds = 0.7, 4, 100_000
    law = burst_check([rounds] + [0] * gamma, alpha)["expected"]
    assert pooled_verdict(law, alpha) == "geometric"
    middle_heavy = [n * (0.8 if k in (0, gamma) else 1.2) for k, n in enumerate(law)]
    assert pooled_verdict(middle_heavy, alpha) == "differs"
    one_end = [n * (1.3 if k == 0 else 0.9) for k, n in enumerate(law)]
    assert pooled_verdict(one_end, alpha) == "differs"


def test_ledger_burst_fields_follow_from_run_lengths():
    ledger, sweep = results("ledger"), results("gamma_sweep")
    for r in ledger["rows"]:
        if r["method"] != "plain":
            recomputed = burst_check(r["run_lengths"], r["alpha"])
            assert r["burst"]["expected"] == pytest.approx(recomputed["expected"])
            assert (r["burst"]["chi2"], r["burst"]["dof"]) == pytest.approx((recomputed["chi2"], recomputed["dof"]))
            assert r["burst"]["p"] == (None if recomputed["p"] is None else pytest.approx(recomputed["p"]))
    for mode, pooled in sweep["burst_pooled"].items():  # over ③'s rows: each mode's lane (the sweep's engines)
        recomputed = pooled_burst_check([{**r, "method": "draft"} for r in sweep["rows"]], mode)
        assert pooled["verdict"] == recomputed["verdict"] and pooled["level"] == 0.05
        assert (pooled["rows"], pooled["dof"]) == (recomputed["rows"], recomputed["dof"])
        assert (pooled["chi2"], pooled["p"]) == pytest.approx((recomputed["chi2"], recomputed["p"]))
        for end in ("zero", "full"):
            assert pooled["ends"][end]["observed"] == recomputed["ends"][end]["observed"]
            assert pooled["ends"][end]["expected"] == pytest.approx(recomputed["ends"][end]["expected"])
