"""chapter/views/lab.py: ⑧'s eager curve, the float16 checks' greedy changes and the comparison table's rows."""

import copy

import jinja2
import pytest

from chapter.views import lab


def costs(positions, flat_until, r):
    return {"positions": positions, "engines": {"eager": {"seconds": {"main": 0.0005}, "over_main": r}},
            "summary": {"eager": {"flat_until": flat_until, "flat_slack": 0.15}}}


def test_the_quoted_r_k_are_those_the_curve_has():
    curve = lab.eager_curve(costs([1, 2, 4], 1, {"1": 1.0, "2": 1.3, "4": 1.9}))
    assert curve["r_list"] == [{"k": 2, "r": 1.3}, {"k": 4, "r": 1.9}]
    assert (curve["verify_k"], curve["verify_drafts"], curve["r_verify"]) == (4, 3, 1.9)
    assert curve["main_ms"] == 1000 * 0.0005


@pytest.mark.parametrize("flat_until,r,priced,stretch", [
    (1, {"2": 1.3, "4": 1.9}, True, False),  # the second position already has a price
    (3, {"2": 1.1, "4": 1.5}, False, True),  # a flat stretch of three positions
    (1, {"4": 1.9}, False, False),  # no second position on the curve: neither opening
])
def test_the_curves_opening_is_a_priced_second_position_or_a_flat_stretch(flat_until, r, priced, stretch):
    curve = lab.eager_curve(costs([1, 2, 4] if "2" in r else [1, 4], flat_until, r))
    assert (curve["second_position_priced"], curve["flat_stretch"]) == (priced, stretch)
    if priced:
        assert curve["second_position_extra"] == pytest.approx(0.3)


@pytest.mark.parametrize("r4,far", [(1.9, True), (2.1, False)])
def test_a_verify_is_far_below_linear_under_half_its_positions(r4, far):
    assert lab.eager_curve(costs([1, 4], 1, {"4": r4}))["verify_far_below_linear"] is far


@pytest.mark.parametrize("agree,positions,all_agree,flips", [(1.0, 178, True, 0), (0.9943820224719101, 178, False, 1),
                                                            (0.75, 10, False, 2), (0.85, 10, False, 2)])
def test_the_greedy_changes_are_counted(agree, positions, all_agree, flips):
    """2.5 rounds to 2, as Python's round (and jinja's filter) rounds a half to even."""
    check = lab.rounding_check({"argmax_agree": agree, "positions": positions, "max_tv": 0.001})
    assert (check["all_agree"], check["flips"], check["max_tv"]) == (all_agree, flips, 0.001)


def test_the_count_is_what_jinjas_round_filter_made_of_it():
    """The template once counted with `((1 - a) * n) | round | int`: the view must give the same numbers."""
    count = jinja2.Environment().from_string("{{ ((1 - a) * n) | round | int }}")
    for n in (10, 102, 178):
        for changed in range(n + 1):
            for a in (1 - changed / n, (n - changed) / n, 1 - (changed + 0.5) / n):
                assert lab.rounding_check({"argmax_agree": a, "positions": n})["flips"] == int(count.render(a=a, n=n))


def test_the_table_marks_its_rows_without_changing_lab_compare():
    rows = [{"method": "plain", "repeats": 3}, {"method": "draft", "repeats": 3}, {"method": "ngram", "repeats": 1},
            {"method": "mtp", "repeats": 3}]
    before = copy.deepcopy(rows)
    marked = lab.compare_rows(rows)
    assert rows == before
    assert [r["shows_gamma"] for r in marked] == [False, True, True, False]
    assert [r["is_plain"] for r in marked] == [True, False, False, False]
    assert [r["seeds_plural"] for r in marked] == [True, True, False, True]


def test_the_view_quotes_the_committed_results_without_changing_them(page_data):
    before = copy.deepcopy(page_data)
    v = lab.view(page_data)
    assert page_data == before
    assert v["ngram_compared"] == any(r["method"] == "ngram" for r in page_data["lab_compare"])
    assert v["vocab_size"] == len(page_data["lab_meta"]["vocab"])
    assert v["rounding"]["mtp"]["positions"] == page_data["lab_meta"]["rounding"]["main"]["mtp"]["positions"]
