"""chapter/views/engines.py: what ⑥'s engine deep dive prints about the compiled ledger, the engine
ladder and the library a reader would use."""
import copy

import pytest

from chapter.views import engines


def compiled_summary(in_loop, alone_min, extra_clear=False):
    return {"loop_extra_clear": extra_clear, "verify_over_plain": in_loop, "verify_s": 0.0005, "plain_s": 0.0004,
            "back_to_back": {"min": alone_min, "max": alone_min + 0.05, "n": 7}}


@pytest.mark.parametrize("in_loop, alone_min, extra_clear, says", [
    (1.30, 1.14, True, "dearer"),
    (1.08, 1.14, False, "cheaper"),
    (1.141, 1.144, False, "within"),  # below, but not at the two decimals the page prints
    (1.20, 1.14, False, "within"),  # above every repeat without a clear extra: the spread's own noise
])
def test_the_loop_against_the_verify_timed_alone(in_loop, alone_min, extra_clear, says):
    assert engines.loop_against_alone(compiled_summary(in_loop, alone_min, extra_clear)) == says


def ledger(mismatch):
    rows = [{"method": "draft", "gamma": 2, "speedup": 1.2}, {"method": "mtp", "gamma": 4, "speedup": 1.1},
            {"method": "draft", "gamma": 4, "speedup": 1.6}]
    return {"compiled": {"rows": rows, "fastest": {"method": "draft", "gamma": 4},
                         "plain_greedy_first_mismatch": mismatch},
            "summary": {"compiled": compiled_summary(1.08, 1.14)}}


def test_the_compiled_lane_finds_its_fastest_row_by_method_and_gamma():
    measured = ledger(None)
    lane = engines.compiled_lane(measured)
    assert lane["row"] is measured["compiled"]["rows"][2]  # not draft γ = 2, nor the MTP head at 4
    assert lane["verify_positions"] == 5
    assert (lane["verify_ms"], lane["plain_ms"]) == pytest.approx((0.5, 0.4))
    assert lane["plain_mismatch_at"] is None


@pytest.mark.parametrize("mismatch, at", [(0, 1), (41, 42)])
def test_the_first_mismatch_is_counted_from_one(mismatch, at):
    assert engines.compiled_lane(ledger(mismatch))["plain_mismatch_at"] == at


def test_no_compiled_lane_without_the_compiled_engine():
    assert engines.compiled_lane({"summary": {}}) is None


def says(grew_most, overhead_gain=4.0):
    return {"overhead_gain": overhead_gain, "grew_most": grew_most,
            "growth": {"verify": 0.23, "drafting": 0.25, "other": 0.26}}


def test_one_part_that_grew_most_is_named_alone():
    out = engines.temperature_says(says(["drafting"]), 1.0)
    assert (out["key"], out["compared"], out["grew_alone"]) == ("T1", True, "drafting")
    assert out["overhead_gain"] == 4.0  # the summary's own fields come along


def test_parts_that_grew_alike_keep_their_order_names_and_growth():
    out = engines.temperature_says(says(["other", "verify"]), 0.5)
    assert out["key"] == "T0.5" and out["grew_alone"] is None
    assert [(p["part"], p["en"], p["growth"]) for p in out["grew"]] == [("other", "The rest of the loop", 0.26),
                                                                         ("verify", "The verify", 0.23)]


@pytest.mark.parametrize("summary", [{"grew_most": []}, says(["other"], overhead_gain=None)])
def test_a_ladder_without_a_cheaper_rung_compares_nothing(summary):
    out = engines.temperature_says(summary, 1.0)
    assert not out["compared"] and out["grew"] == [] and out["grew_alone"] is None


def peer(compiled):
    rows = [{"method": m, "over_ours_compiled": compiled} for m in ("plain", "assisted", "lookup")]
    return {"peer": {"version": "5", "gamma": 3, "check": {}, "rows": rows},
            "summary": {"peer": {f"{name}_s": 0.002 for name in
                                 ("forward", "ours_forward", "other", "ours_other", "forward_gap", "other_gap")}}}


def test_the_library_rows_by_method_and_its_times_in_ms():
    lib = engines.library_as_trained(peer(0.33))
    assert [lib[m]["method"] for m in ("plain", "assisted", "lookup")] == ["plain", "assisted", "lookup"]
    assert lib["ms"]["other_gap"] == pytest.approx(2.0) and lib["compiled_column"]
    assert not engines.library_as_trained(peer(None))["compiled_column"]
    assert engines.library_as_trained({"summary": {}}) is None


REGISTRY = {"engines": [{"name": "native"}, {"name": "eager"}, {"name": "transformers", "peer": True}]}


@pytest.mark.parametrize("engine, family, ours, plain, assisted", [
    ("native", "draft", True, False, False), ("transformers", "draft", False, False, True),
    ("transformers", "plain", False, True, False), ("transformers", "lookup", False, False, False),
    ("eager", "plain", True, True, False)])
def test_a_twin_row_is_named_by_whose_engine_and_which_method(engine, family, ours, plain, assisted):
    peers = engines.peer_engines(REGISTRY)
    assert peers == {"transformers"}
    row = engines.twin_row({"row": {"engine": engine, "family": family}, "ms_per_char": 1.0}, peers)
    assert (row["ours"], row["plain"], row["assisted"], row["ms_per_char"]) == (ours, plain, assisted, 1.0)


def test_the_view_of_the_committed_results(page_data):
    before = copy.deepcopy(page_data)
    v = engines.view(page_data)
    assert page_data == before  # a view never changes the page_data the page's scripts get
    lane = v["compiled"]
    assert (lane["row"]["method"], lane["row"]["gamma"]) == (lane["fastest"]["method"], lane["fastest"]["gamma"])
    assert lane["row"] in page_data["ledger"]["compiled"]["rows"]
    ladder = page_data["ladder"]
    assert [s["key"] for s in v["ladder"]["says"]] == [f"T{t:g}" for t in ladder["temperatures"]]
    assert v["ladder"]["last"] == ladder["engines"][-1]
    assert v["params"] == page_data["models"]["runs"]["main_s0"]["params"]
    twin = page_data["peer_twin"]
    assert [r["row"] for r in v["twin"]["rows"]] == [r["row"] for r in twin["rows"]]
    assert sum(not r["ours"] for r in v["twin"]["rows"]) == sum(r["row"]["engine"] == "transformers" for r in twin["rows"])
    assert v["twin"]["native_r2_below_one"] is (page_data["regime"]["points"][-1]["r"]["2"] < 1)
