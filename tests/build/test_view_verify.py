"""chapter/views/verify.py: ①'s grid, the cost curve's facts, the tree and twin prices."""

import copy

import pytest

from chapter.views import verify


@pytest.mark.parametrize("gamma,accepted,start,rejects,discarded,chain_discarded",
                         [(6, 2, 4, True, 2, 4), (3, 3, 3, False, 0, 0), (8, 4, 4, False, 0, 4)])
def test_the_grid_opens_on_a_short_chain_and_counts_the_discarded_rows(gamma, accepted, start, rejects, discarded,
                                                                        chain_discarded):
    g = verify.grid({"gamma": gamma, "n_accepted": accepted, "context": "abcde"})
    assert (g["gamma_start"], g["grid_rejects"], g["chain_discarded"]) == (start, rejects, chain_discarded)
    if rejects:
        assert g["grid_discarded"] == discarded


def flat_summary(eager, compiled=None):
    summary = {"eager": {"flat_until": eager}, "flat_until_max": max(eager, compiled or 0)}
    if compiled is not None:
        summary["compiled"] = {"flat_until": compiled}
    return summary


@pytest.mark.parametrize("eager,compiled,engine",
                         [(2, 4, "compiled"), (4, 4, "eager"), (4, 2, "eager"), (3, None, "eager")])
def test_the_flat_stretch_is_the_compiled_engines_only_where_it_alone_is_longest(eager, compiled, engine):
    assert verify.flat_engine(flat_summary(eager, compiled)) == engine


def test_the_flat_stretch_is_the_answer_engines_where_costs_measured_it():
    summary = flat_summary(2, 4) | {"native": {"flat_until": 2, "flat_start": True}}
    assert verify.flat_engine(summary, "native") == "native"
    assert verify.flat_engine(summary, "aot") == "compiled"  # not measured: the longest flat stretch
    rising = {k: {"median": r, "min": r, "max": r, "n": 7} for k, r in (("1", 1.0), ("2", 1.1), ("4", 1.5))}
    curve = {"seconds": {"main": 1e-3}, "over_main_spread": rising}
    costs = {"engines": {"eager": curve, "compiled": curve, "native": curve}, "threads": 1, "positions": [1, 2, 4],
             "summary": summary | {"flat_start": True, "eager": {"flat_until": 2, "flat_slack": 0.15, "flat_start": True},
                                   "compiled": {"flat_until": 4, "flat_start": True}}}
    v = verify.cost_curve(costs, "native")
    assert (v["flat_engine"], v["flat_max"], v["flat_is_answer"]) == ("native", 2, True)
    assert verify.cost_curve(costs)["flat_engine"] == "compiled" and verify.cost_curve(costs)["flat_max"] == 4


def tree_data(tree_sizes):
    prices = {"chain": {"16": 3.0, "32": 6.0}, "tree": {str(k): k / 5 for k in tree_sizes}}
    return {"families": {"engines": ["native"], "verify_prices": {"native": prices}},
            "costs": {"summary": {"primary_engine": "compiled"}}}


def test_a_trees_price_comes_from_the_families_run_when_it_holds_both_sizes():
    engine, prices = verify.tree_prices(tree_data([4, 16, 32]))
    assert engine == "native"
    assert prices["tree"][32] == {"value": 6.4, "cond": "families|native|tree32"}
    assert prices["chain"][16] == {"value": 3.0, "cond": "families|native|chain16"}


NO_PRICES = {"families": {"engines": ["native"]}, "costs": {"summary": {"primary_engine": "compiled"}}}


@pytest.mark.parametrize("data", [tree_data([4, 16]), NO_PRICES])
def test_without_both_tree_sizes_the_costs_primary_engine_is_quoted(data):
    assert verify.tree_prices(data) == ("compiled", None)


def test_the_fast_engines_are_the_measured_ones_in_order():
    costs = {"engines": {"native": {"seconds": {"main": 0.0002}}, "eager": {"seconds": {"main": 0.001}}}}
    assert verify.fast_engines(costs) == [{"engine": "native", "ms": 1000 * 0.0002}]


def test_the_dearest_twin_is_the_dials_and_a_third_curve_only_between_the_ends(page_data):
    t = verify.twins(page_data)
    points = page_data["regime"]["points"]
    assert t["dearest"]["scale"] == page_data["dial"]["dearest_verify_scale"]
    assert (t["light"], t["heavy"]) == (points[0], points[-1])
    assert t["dearest_between"] == (t["dearest"] is not points[0] and t["dearest"] is not points[-1])


def test_the_view_quotes_the_committed_results_without_changing_them(page_data):
    before = copy.deepcopy(page_data)
    v = verify.view(page_data)
    assert page_data == before
    costs = page_data["costs"]
    assert v["eager_ms"] == 1000 * costs["engines"]["eager"]["seconds"]["main"]
    assert v["last_position"] == costs["positions"][-1]
    assert v["several_engines"] == (len(costs["engines"]) > 1)


def test_the_twin_paragraph_quotes_the_same_ends_as_the_regime_summary(page_data):
    """①'s twin paragraph tells the mechanism from views/regime.mechanism: the same two ends of the dial,
    and the band r_5 stays in over every scale between them, which ① prints."""
    m = verify.view(page_data)["mechanism"]
    t = verify.twins(page_data)
    assert (m["light"]["point"], m["heavy"]["point"]) == (t["light"], t["heavy"])
    r5 = [p["r"]["5"] for p in page_data["regime"]["points"]]
    assert m["r5"] == {"min": min(r5), "max": max(r5)} and m["r5"]["min"] <= t["heavy"]["r"]["5"] <= m["r5"]["max"]



def test_the_steepest_curve_is_named_with_its_cheap_base_and_each_engines_extra_position():
    """① says why the native curve climbs highest: its one-position forward is the cheapest while one
    more position costs every engine about the same; the view finds the steepest by r at the last position."""
    def engine(base_ms, last_ms):
        return {"seconds": {"main": base_ms / 1000, "positions": {"1": base_ms / 1000, "9": last_ms / 1000}},
                "over_main": {"9": last_ms / base_ms}}
    costs = {"positions": [1, 9], "engines": {"eager": engine(0.6, 0.76), "native": engine(0.12, 0.28)}}
    s = verify.steepest(costs)
    assert s["steepest"] == "native" and s["steepest_explained"]  # the cheapest base, and not the eager engine
    assert s["steepest_cheaper"] == pytest.approx(0.6 / 0.12) and s["extra_alike"]  # 0.02 ms a position on both
    costs["engines"]["eager"] = engine(0.6, 1.2)  # 0.075 ms a position: not alike
    assert not verify.steepest(costs)["extra_alike"]
    costs["engines"]["eager"] = engine(0.6, 0.76)
    costs["engines"]["native"] = engine(0.7, 1.5)  # dearer base and steeper: the sentence's reason would not hold
    assert verify.steepest(costs)["steepest"] == "native" and not verify.steepest(costs)["steepest_explained"]


def test_the_curves_first_clear_dip_is_found_and_a_dip_within_the_repeats_is_not():
    """① says the price of positions does not rise at every step only where a larger count's slowest repeat
    lies under the smaller count's fastest (3 positions 2.14×, 4 only 1.83×, as measured here)."""
    def costs(spreads):
        return {"positions": [1, 2, 3, 4], "engines": {"native": {"over_main_spread": {
            str(k): {"median": m, "min": lo, "max": hi, "n": 7} for k, (m, lo, hi) in zip([1, 2, 3, 4], spreads)}}}}

    dip = verify.curve_dip(costs([(1, 1, 1), (1.44, 1.43, 1.45), (2.14, 2.13, 2.15), (1.83, 1.82, 1.84)]), "native")
    assert (dip["k"], dip["k_next"], dip["r"], dip["r_next"], dip["repeats"]) == (3, 4, 2.14, 1.83, 7)
    # 4 positions' median under 3's, but their repeats overlap: no dip the run can vouch for
    assert verify.curve_dip(costs([(1, 1, 1), (1.44, 1.43, 1.45), (2.14, 1.9, 2.2), (2.0, 1.95, 2.1)]), "native") is None
    assert verify.curve_dip(costs([(1, 1, 1), (1.2, 1.1, 1.3), (1.5, 1.4, 1.6), (2.0, 1.9, 2.1)]), "native") is None
