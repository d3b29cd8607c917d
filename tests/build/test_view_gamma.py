"""chapter/views/gamma.py: what ③ prints about the γ sweep and the draft model's γ on ⑥'s dial."""
import copy

import pytest

from chapter.views import gamma


def summary(kv_below, kv_rows, rc_below, rc_rows):
    return {"rows": kv_rows + rc_rows, "max_tokens_deviation": 0.0125, "all_below_expected_tokens": False,
            "below_theory": {"kvcache": {"rows_below": kv_below, "rows": kv_rows},
                             "recompute": {"rows_below": rc_below, "rows": rc_rows}}}


@pytest.mark.parametrize("kv_below, rc_below, every_row", [(6, 6, True), (5, 6, False), (6, 0, False)])
def test_the_formula_fit_says_every_row_only_when_both_modes_fall_below_theory_in_every_row(kv_below, rc_below, every_row):
    fit = gamma.formula_fit(summary(kv_below, 6, rc_below, 6))
    assert fit["all_below_theory"] is every_row
    assert (fit["kv_below"], fit["rc_below"], fit["rows"]) == (kv_below, rc_below, 12)
    assert fit["max_deviation_pct"] == pytest.approx(1.25)


@pytest.mark.parametrize("highs, below", [((0.99, 0.7), True), ((0.99, 1.02), False), ((), False)])
def test_the_recompute_verify_is_priced_at_both_ends_and_below_one_only_when_every_repeat_is(highs, below):
    gammas = [8, 1][:len(highs)]
    rows = ([{"mode": "recompute", "gamma": g, "speedup_runs": {"max": hi}} for g, hi in zip(gammas, highs)]
            + [{"mode": "kvcache", "gamma": 2, "speedup_runs": {"max": 1.3}}])
    sweep = {"gammas": [8, 1, 4], "rows": rows,
             "lane_costs": {"recompute": {"verify_over_main": {"1": 1.6, "4": 3.6, "8": 6.0}}}}
    price = gamma.recompute_verify(sweep)
    assert (price["gamma_lo"], price["lo"], price["gamma_hi"], price["hi"]) == (1, 1.6, 8, 6.0)
    assert price["all_below_one"] is below


def timed(size, speedup, lo=None, hi=None, n=3, family="draft", drafting=0.35):
    lo, hi = speedup if lo is None else lo, speedup if hi is None else hi
    return {"family": family, "shape": "chain", "size": size, "speedup": speedup, "drafter_per_round": drafting,
            "speedup_runs": {"min": lo, "max": hi, "n": n}, "verdict": "unclear"}


def point(scale, best, tried):
    return {"scale": scale, "main_bytes": 1000 * scale, "best": {"T1": best}, "choose": {"T1": tried}}


def square(gamma, speedup, lo, hi, engine="native"):
    return {"mode": "kvcache", "engine": engine, "gamma": gamma, "speedup": speedup, "speedup_runs": {"min": lo, "max": hi}}


def choice_data(light, heavy, square_gamma=5, square_engine="native", squares=None):
    """The dial's two ends, and ③'s squares: their fastest γ on their engine, and their rows."""
    squares = squares or [square(g, 0.9, 0.7, 1.2, square_engine) for g in (3, 4, 5)]
    sweep = {"summary": {"fastest": {"kvcache": {"gamma": square_gamma}}}, "engines": {"kvcache": square_engine}, "rows": squares}
    return {"regime": {"engine": "native", "points": [light, point(4, [], []), heavy]}, "gamma_sweep": sweep}


def test_the_best_gamma_table_takes_the_dials_two_ends():
    light = point(1, [timed(5, 1.5, 1.3, 1.8, n=7), timed(3, 1.2, family="ngram")],
                  [timed(g, s, n=1) for g, s in ((1, 1.1), (4, 1.55), (5, 1.6), (8, 1.2))] + [timed(2, 3.0, n=1, family="ngram")])
    heavy = point(140, [timed(3, 2.0, 1.8, 2.05)], [timed(g, s, n=1) for g, s in ((2, 2.02), (3, 2.03), (6, 1.7))])
    c = gamma.gamma_choice(choice_data(light, heavy))
    assert [r["where"] for r in c["rows"]] == ["light", "heavy"]
    assert [r["best"]["size"] for r in c["rows"]] == [5, 3] and [r["main_bytes"] for r in c["rows"]] == [1000, 140000]
    assert [r["runner"]["size"] for r in c["rows"]] == [4, 2]  # the ngram's choosing run is not the draft model's
    assert c["rows"][0]["runner_fig"] == "draft|chain4|native|kvcache|T1|regime-x1-choose"
    assert c["rows"][1]["runner_fig"] == "draft|chain2|native|kvcache|T1|regime-x140-choose"
    assert (c["rows"][0]["tried_en"], c["rows"][0]["tried_zh"]) == ("1, 4, 5, 8", "1、4、5、8")
    assert c["interior"] and c["flat"] and c["edges"] == []
    # the squares' fastest γ and the dial's as trained are named apart only where they differ on one engine
    assert not c["runs_disagree"]  # both γ = 5
    assert gamma.gamma_choice(choice_data(light, heavy, square_gamma=4))["runs_disagree"]
    assert not gamma.gamma_choice(choice_data(light, heavy, square_gamma=4, square_engine="eager"))["runs_disagree"]
    # the squares at the two γ, level where their paired ranges overlap (readers saw them level on the chart)
    q = gamma.gamma_choice(choice_data(light, heavy, square_gamma=4))["squares"]
    assert (q["best"]["gamma"], q["dial"]["gamma"], q["level"]) == (4, 5, True)
    apart = [square(4, 1.3, 1.25, 1.4), square(5, 0.9, 0.7, 1.2)]
    assert not gamma.gamma_choice(choice_data(light, heavy, square_gamma=4, squares=apart))["squares"]["level"]


def test_the_rule_of_thumbs_facts_fail_on_one_row():
    light = point(1, [timed(8, 1.5, 1.4, 1.6)], [timed(g, s, n=1) for g, s in ((2, 1.2), (8, 1.55))])  # best at the end
    heavy = point(140, [timed(3, 2.0, 1.95, 2.05)], [timed(g, s, n=1) for g, s in ((2, 1.5), (3, 2.03), (6, 1.7))])
    c = gamma.gamma_choice(choice_data(light, heavy))
    assert not c["rows"][0]["interior"] and not c["interior"]
    assert c["edges"] == [c["rows"][0]] and c["rows"][0]["largest"]  # γ = 8, the largest tried
    low = point(1, [timed(2, 1.5, 1.4, 1.6)], [timed(g, s, n=1) for g, s in ((2, 1.55), (8, 1.2))])
    assert not gamma.gamma_choice(choice_data(low, heavy))["rows"][0]["largest"]  # γ = 2, the smallest tried
    assert not c["rows"][1]["runner_within"] and not c["flat"]  # 1.5 lies below the best's 1.95–2.05


def test_the_best_gamma_table_needs_the_draft_model_at_both_ends():
    light = point(1, [timed(3, 1.2, family="ngram")], [timed(3, 1.2, n=1, family="ngram")])
    heavy = point(140, [timed(3, 2.0)], [timed(3, 2.0, n=1)])
    assert gamma.gamma_choice(choice_data(light, heavy)) is None
    assert gamma.gamma_choice(choice_data(point(1, [timed(3, 1.2)], []), heavy)) is None  # no choosing runs


def test_tried_text_names_a_run_of_gammas_by_its_ends():
    assert gamma.tried_text([3, 1, 2, 4], ", ") == "1–4"
    assert gamma.tried_text([1, 2], ", ") == "1, 2" and gamma.tried_text([2, 3, 4, 6], "、") == "2、3、4、6"


def test_the_view_of_the_committed_results(page_data):
    before = copy.deepcopy(page_data)
    v = gamma.view(page_data)
    assert page_data == before  # a view never changes the page_data the page's scripts get
    sweep = page_data["gamma_sweep"]
    assert v["best"] is sweep["summary"]["fastest"]["kvcache"]
    kv = [r for r in sweep["rows"] if r["mode"] == "kvcache"]
    assert v["n_gammas"] == len(kv) and v["gamma_before_max"] == sweep["gamma_max"] - 1
    assert {r["repeats"] for r in kv} == {v["kv_repeats"]}  # the sentence's one count holds for every square
    # the squares and the sliders' c come from one lane: the answer engine's kv cache, as ⑤–⑦ rank on
    assert v["engine"] == sweep["engines"]["kvcache"] == page_data["regime"]["engine"]
    assert {r["engine"] for r in kv} == {v["engine"]} and sweep["c"]["kvcache"] == sweep["lane_costs"]["kvcache"]["c"]
    # the FAQ compares the modes on the one engine that runs both
    assert v["rc_engine"] == "eager" and v["eager_c"] == {m: sweep["forward_costs"][m]["c"] for m in ("kvcache", "recompute")}
    assert v["tokens_drop"] is (sweep["summary"]["tokens_drops"] > 0)
    runs = page_data["models"]["runs"]
    assert (v["main_layers"], v["draft_layers"]) == (runs["main_s0"]["config"]["n_layer"], runs["draft_s0"]["config"]["n_layer"])
    assert v["main_layers"] > v["draft_layers"]
    light, heavy = v["choice"]["rows"]
    assert light["best"] in page_data["regime"]["points"][0]["best"]["T1"] and light["best"]["family"] == "draft"
    assert heavy["best"] in page_data["regime"]["points"][-1]["best"]["T1"] and heavy["best"]["family"] == "draft"
    for row in (light, heavy):  # the runner-up is another γ, tried on the same engine
        assert row["runner"]["size"] != row["best"]["size"]
