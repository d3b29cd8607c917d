"""chapter/views/gamma.py: what ③ prints about the γ sweep and the draft model's γ on ⑥'s dial."""
import copy

import pytest

from chapter.build import load_results
from chapter.views import gamma
from chapter.views.rows import tag_regime, tag_rows


@pytest.fixture(scope="module")
def data():
    data = load_results()
    tag_rows(data)
    tag_regime(data)
    return data


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


def best(*rows):
    return [{"family": family, "size": size} for family, size in rows]


def regime(light, heavy):
    return {"points": [{"best": {"T1": light}}, {"best": {"T1": []}}, {"best": {"T1": heavy}}],
            "sweep": {"gammas": [1, 2, 3]}, "candidates": {"draft": [["chain", 2], ["chain", 6]]}}


def test_the_dial_picks_the_draft_model_row_of_the_lightest_and_the_heaviest_scale():
    dial = gamma.dial_draft(regime(best(("ngram", 3), ("draft", 5)), best(("draft", 2), ("mtp", 1))))
    assert (dial["light"]["size"], dial["heavy"]["size"]) == (5, 2)
    assert dial["light_among"] == [1, 2, 3]
    assert dial["heavy_among"] == [2, 6]  # the candidates' sizes, without their shape


def test_the_dial_says_nothing_when_a_scale_lacks_the_draft_model():
    assert gamma.dial_draft(regime(best(("draft", 5)), best(("ngram", 3)))) is None
    assert gamma.dial_draft(regime([], best(("draft", 2)))) is None


def test_the_view_of_the_committed_results(data):
    before = copy.deepcopy(data)
    v = gamma.view(data)
    assert data == before  # a view never changes the data the page's scripts get
    sweep = data["gamma_sweep"]
    assert v["best"] is sweep["summary"]["fastest"]["kvcache"]
    assert v["n_gammas"] == len(sweep["gammas"]) and v["gamma_before_max"] == sweep["gamma_max"] - 1
    assert v["tokens_drop"] is (sweep["summary"]["tokens_drops"] > 0)
    runs = data["models"]["runs"]
    assert (v["main_layers"], v["draft_layers"]) == (runs["main_s0"]["config"]["n_layer"], runs["draft_s0"]["config"]["n_layer"])
    assert v["main_layers"] > v["draft_layers"]
    assert v["dial"]["light"]["family"] == v["dial"]["heavy"]["family"] == "draft"
    assert v["dial"]["heavy"] in data["regime"]["points"][-1]["best"]["T1"]
