"""chapter/views/dial.py view(): what ⑥'s dial sentences count and compare, from hand-made dicts and the committed results."""
import json

import pytest

from chapter.views import dial
from chapter.views.rows import tag_regime
from tests.helpers import dipped


def row(family, verdict, shape="chain", size=3, speedup=1.2):
    return {"family": family, "verdict": verdict, "shape": shape, "size": size, "speedup": speedup, "engine": "native"}


def point(scale, t1, t0=None, s_per_char=2e-3, main_s=5e-4):
    best = {"T1": t1} | ({"T0": t0} if t0 is not None else {})
    return {"scale": scale, "main_bytes": scale * 1e6, "best": best, "plain": {"T1": {"s_per_char": s_per_char}},
            "main_s": main_s}


def data(points, pays, never, theory=None):
    regime = {"points": points, "prompt": "ROMEO:\nBut", "threads": 1, "summary": {"cache_edge_bytes": 2e6},
              "roofline": {"bandwidth_bytes_per_s": 12.5e9}}
    best = {"scale": points[-1]["scale"], "bytes": points[-1]["main_bytes"], "row": points[-1]["best"]["T1"][0]}
    names = dict.fromkeys(r["family"] for p in points for rows in p["best"].values() for r in rows)
    registry = {"families": [{"name": f, "group": f} for f in names]}  # each family a kind of its own: every line drawn
    return {"regime": regime, "registry": registry,
            "dial": {"pays": pays, "never": never, "best": best, "heaviest_cache_multiple": 70.0, "theory": theory or {}}}


def test_the_heaviest_fastest_family_is_found_again_as_trained_and_its_configuration_compared():
    light = point(1, [row("ngram", "faster", size=5), row("draft", "unclear", size=4), row("mtp", "slower")])
    heavy = point(40, [row("draft", "faster", size=6), row("ngram", "faster"), row("mtp", "unclear")], t0=[row("ngram", "faster")],
                  main_s=2e-3)
    v = dial.view(data([light, heavy], pays=[{"scale": 1, "bytes": 1e6, "families": ["ngram"]}, {"scale": 40, "bytes": 4e7, "families": ["draft"]}],
                       never=["mtp"]))
    assert v["fastest"]["family"] == "draft" and v["fastest_as_trained"] is light["best"]["T1"][1]
    assert v["config_moved"]  # γ = 4 as trained, γ = 6 at the heaviest scale
    assert (v["heaviest"]["faster"], v["heaviest"]["families"], v["as_trained"]["faster"]) == (2, 3, 1)
    assert v["fastest_greedy"] is heavy["best"]["T0"][0] and not v["best_elsewhere"]
    assert v["pays_summary"]["first"]["as_trained"] and v["pays_summary"]["last"] == {"bytes": 4e7, "count": 2, "of": 3}
    assert v["forward"]["light"] == {"ms": pytest.approx(0.5), "fine": True}
    assert v["forward"]["heavy"]["fine"] is False
    assert v["bandwidth_gb_s"] == pytest.approx(12.5) and v["prompt_shown"] == "ROMEO:\\nBut"


def test_a_family_missing_as_trained_and_a_dial_without_greedy_rows():
    light = point(1, [row("ngram", "faster")])
    heavy = point(40, [row("eagle", "faster", shape="tree", size=3)])
    v = dial.view(data([light, heavy], pays=[], never=["ngram"]))
    assert v["fastest_as_trained"] is None and v["config_moved"] is False
    assert v["fastest_greedy"] is None and v["pays_summary"] is None


def test_a_tree_and_a_chain_of_the_same_size_are_different_configurations():
    assert dial.config_key(row("x", "faster", shape="tree", size=5)) != dial.config_key(row("x", "faster", size=5))
    assert dial.config_key(row("x", "faster", size=5)) == dial.config_key(row("y", "unclear", size=5))


def test_theorem_3_8_lines_skip_empty_temperatures_and_count_the_close_chains_in_percent():
    miss = {"family": "draft", "size": 4, "gap": -0.25, "chars": 2.0, "expected_chars": 2.6, "rest_share": 0.125}
    theory = {"T1": {"rows": 4, "close": 0.15, "misses": [miss], "largest_close_gap": 0.1},
              "T0": {"rows": 0, "close": 0.15, "misses": [], "largest_close_gap": None}}
    lines = dial.theory_lines(theory)
    assert len(lines) == 1
    line = lines[0]
    assert (line["name"], line["rows"], line["within"]) == ("T = 1", 4, 3)
    assert line["close_pct"] == pytest.approx(15) and line["largest_close_pct"] == pytest.approx(10)
    assert line["misses"][0]["gap_pct"] == pytest.approx(-25) and line["misses"][0]["rest_pct"] == pytest.approx(12.5)
    assert dial.theory_lines({"T0": {"rows": 2, "close": 0.15, "misses": [], "largest_close_gap": None}})[0]["largest_close_pct"] is None


def test_the_committed_dial_and_the_view_leaves_it_as_it_was(page_data):
    results = page_data
    before = json.dumps(results, sort_keys=True)
    v = dial.view(results)
    assert json.dumps(results, sort_keys=True) == before
    heavy = results["regime"]["points"][-1]
    assert v["heaviest"]["faster"] == len([r for r in heavy["best"]["T1"] if r["verdict"] == "faster"])
    assert v["fastest_as_trained"]["family"] == v["fastest"]["family"]
    assert all(line["within"] + len(line["misses"]) == line["rows"] for line in v["theory"])


def dip_point(scale, speedup, verify=1.2):
    return {"scale": scale, "main_bytes": scale * 1e6,
            "best": {"T1": [dict(row("ngram", "faster", size=5, speedup=speedup), verify_over_main=verify, fig=f"x{scale}")]}}


def test_a_dip_is_a_scale_slower_than_both_neighbours():
    points = [dip_point(1, 1.5), dip_point(4, 2.5), dip_point(16, 1.8), dip_point(40, 2.7), dip_point(140, 2.6)]
    assert dial.dips(points, "ngram") == [16]
    assert dial.dips(points[:3], "ngram") == []  # the heaviest scale has no neighbour after it
    assert dial.dips(points, "mtp") == []  # a family the dial lacks has no line


def test_a_rerun_speaks_of_the_first_dip_with_both_commits_and_nothing_without_one():
    committed = {"points": [dip_point(1, 1.5, verify=1.3), dip_point(4, 2.5), dip_point(16, 1.8, verify=2.4), dip_point(40, 2.7)],
                 "meta": {"git_commit": "f150b63a4750"}}
    rerun = {"points": [dip_point(1, 1.4), dip_point(4, 2.6), dip_point(16, 2.7, verify=1.2), dip_point(40, 2.5)],
             "meta": {"git_commit": "76a59f203f63"}}
    note = dial.rerun_note(committed, rerun, "ngram")
    assert (note["scale"], note["rerun_commit"]) == (16, "76a59f2")
    assert (note["row"]["verify_over_main"], note["rerun_row"]["verify_over_main"], note["rerun_row"]["speedup"]) == (2.4, 1.2, 2.7)
    # the dip's verify against the family's own at the other scales of the charted run
    assert note["verify_elsewhere"] == {"min": 1.2, "max": 1.3} and note["verify_dear"]
    assert (note["families"], note["dipping"], note["dipping_rerun"]) == (1, 1, 0)  # the one line dips only in the charted run
    # the caption's words: most lines dip; fewer, and under half as many, in the rerun
    assert note["most_dip"] and note["fewer_in_rerun"] and note["dip_is_the_runs"]
    assert dial.rerun_note(committed, None, "ngram") is None  # no rerun file: nothing printed
    assert dial.rerun_note(rerun, committed, "ngram") is None  # the rerun's own line has no dip
    elsewhere = {**rerun, "meta": {**rerun["meta"], "device": "another CPU"}}
    assert dial.rerun_note(committed, elsewhere, "ngram") is None  # a rerun on another machine says nothing of this one's dip
    rerun["points"] = [p for p in rerun["points"] if p["scale"] != 16]
    assert dial.rerun_note(committed, rerun, "ngram") is None  # the rerun lacks the dip's scale


def test_a_rerun_puts_a_dip_down_to_the_verify():
    """A dial with a dip (tests.helpers.dipped) against its rerun on the same machine: at the dip the charted
    verify is the dearer, and the rerun's row is faster there than the charted one."""
    results, rerun, family = dipped()
    tag_regime(results)
    tag_regime({"regime": rerun}, run="rerun")
    v = dial.view({**results, "dial": dial.dial_view(results)}, rerun=rerun)
    note = v["rerun"]
    assert note is not None and note["family"] == family == v["fastest"]["family"]
    assert note["row"]["verify_over_main"] > note["rerun_row"]["verify_over_main"]
    assert note["rerun_row"]["speedup"] > note["row"]["speedup"]
    assert note["verify_dear"]  # dearer than the family's verify at every other scale of the charted run
    assert note["rerun_row"]["fig"] != note["row"]["fig"]  # the two measurements print under their own conditions
    assert not results["regime"]["meta"]["git_commit"].startswith(note["rerun_commit"])


def test_where_it_pays_in_one_sentence_names_the_first_scale_counts_from_the_last_and_names_the_rest():
    groups = [{"scale": 1, "bytes": 1e6, "families": ["draft", "ngram"]}, {"scale": 4, "bytes": 4e6, "families": ["suffix"]},
              {"scale": 40, "bytes": 4e7, "families": ["mtp", "eagle"]}]
    drawn = ["ngram", "draft", "mtp", "eagle", "lookahead"]
    s = dial.pays_summary({"pays": groups, "never": ["lookahead", "lookup"]}, drawn)
    assert s["first"]["families"] == ["draft", "ngram"] and s["first"]["as_trained"]
    # from the last group's scale every group before it pays too: 2 + 1 + 2 of the 7 families
    assert s["last"] == {"bytes": 4e7, "count": 5, "of": 7}
    # those that never pay: the chart's lines apart from the families in ⑤'s fold
    assert s["never"] == ["lookahead"] and s["never_folded"] == ["lookup"] and s["any_never"]
    one = dial.pays_summary({"pays": [{"scale": 4, "bytes": 4e6, "families": ["ngram"]}], "never": []}, drawn)
    assert one["last"] is None and not one["first"]["as_trained"] and not one["any_never"] and one["never_folded"] == []
    assert dial.pays_summary({"pays": [], "never": ["ngram"]}, drawn) is None


def test_the_dip_note_says_whether_greedy_lines_dip_there_too():
    def dipping(scale, t1, t0):
        return {"scale": scale, "main_bytes": scale * 1e6,
                "best": {key: [dict(row(f, "faster", size=5, speedup=v), verify_over_main=1.2, fig=f"x{scale}{key}") for f, v in speeds.items()]
                         for key, speeds in (("T1", t1), ("T0", t0))}}
    committed = {"meta": {"git_commit": "f150b63a4750"}, "points": [
        dipping(1, {"ngram": 1.5, "draft": 1.4}, {"ngram": 1.5, "draft": 1.4}),
        dipping(16, {"ngram": 1.2, "draft": 1.1}, {"ngram": 1.2, "draft": 1.6}),
        dipping(40, {"ngram": 2.5, "draft": 2.0}, {"ngram": 2.5, "draft": 2.0})]}
    rerun = {"meta": {"git_commit": "76a59f203f63"}, "points": [dipping(p["scale"], {"ngram": 2.0, "draft": 2.0}, {}) for p in committed["points"]]}
    assert dial.rerun_note(committed, rerun, "ngram")["greedy_dips_too"] is False  # one of two greedy lines dips
    committed["points"][1]["best"]["T0"][1]["speedup"] = 1.0
    assert dial.rerun_note(committed, rerun, "ngram")["greedy_dips_too"] is True
    assert dial.dips(committed["points"], "draft", "T0") == [16]


def fall_row(family, speedup, lo, hi, size=3):
    return {"family": family, "shape": "chain", "size": size, "speedup": speedup,
            "speedup_runs": {"min": lo, "max": hi, "n": 3}}


def test_a_lines_falls_are_told_apart_by_their_paired_ranges_and_configurations():
    """⑥'s note under the dial: each drawn line's falls from one scale to the next, and those within the two
    points' paired ranges (the run cannot tell them apart); only the lead family of each kind is a drawn line."""
    registry = {"families": [{"name": "ngram", "group": "table"}, {"name": "lookup", "group": "table"},
                             {"name": "draft", "group": "model"}, {"name": "eagle", "group": "feature"}]}
    points = [{"scale": 1, "main_bytes": 3e6, "best": {"T1": [fall_row("ngram", 1.0, 0.9, 1.1), fall_row("lookup", 3.0, 2.9, 3.1),
                                                              fall_row("draft", 1.5, 1.4, 1.6), fall_row("eagle", 1.0, 0.9, 1.1)]}},
              {"scale": 4, "main_bytes": 1.2e7, "best": {"T1": [fall_row("ngram", 2.6, 2.3, 2.7), fall_row("draft", 1.2, 1.1, 1.3),
                                                                fall_row("eagle", 0.8, 0.7, 0.85, size=5), fall_row("lookup", 0.5, 0.4, 0.6)]}},
              {"scale": 16, "main_bytes": 4.7e7, "best": {"T1": [fall_row("ngram", 2.4, 2.2, 2.9), fall_row("draft", 1.3, 1.2, 1.4),
                                                                 fall_row("lookup", 1.0, 0.9, 1.1), fall_row("eagle", 0.9, 0.8, 1.0)]}}]
    d = {"registry": registry, "regime": {"points": points}}
    assert dial.lead_families(d) == ["ngram", "draft", "eagle"]  # lookup is a table too, slower than the n-gram table
    falls = dial.line_falls(d)
    assert falls["n"] == 3 and falls["within"] == 1  # lookup's 3.0 → 0.5 is not drawn
    assert falls["example"]["family"] == "ngram" and falls["example"]["to_bytes"] == 4.7e7  # 2.6 → 2.4, ranges overlap
    assert not falls["mostly"]  # eagle's 1.0 → 0.8 and draft's 1.5 → 1.2 lie outside their ranges
    points[1]["best"]["T1"][2] = fall_row("eagle", 0.95, 0.85, 1.05, size=5)  # now within eagle's 0.9–1.1
    falls = dial.line_falls(d)  # eagle now falls twice within its ranges (1.0 → 0.95 → 0.9), draft once outside
    assert (falls["n"], falls["within"]) == (4, 3) and falls["mostly"]
    rising = {"registry": registry, "regime": {"points": [points[0], {**points[0], "scale": 4}]}}
    assert dial.line_falls(rising) is None  # no line falls


def cache_row(family, verify, drafting, rest):
    return {"family": family, "verify_over_main": verify, "drafter_per_round": drafting, "other_per_round": rest,
            "round_total": verify + drafting + rest}


def test_paying_inside_the_cache_is_put_down_to_the_dearer_forward_only_where_the_fixed_costs_fell_more():
    """Where the first scale that pays for good still fits in the cache, the note under the dial gives its
    first family's round there against the model as trained; only where drafting plus the rest
    fell more than the verify (the gain comes mostly from the dearer forward), never past the cache edge."""
    light = {"scale": 1, "main_bytes": 3e6, "r": {"5": 2.2}, "best": {"T1": [cache_row("ngram", 2.03, 0.73, 0.55)]}}
    mid = {"scale": 4, "main_bytes": 1.2e7, "r": {"5": 1.94}, "best": {"T1": [cache_row("ngram", 1.66, 0.22, 0.18)]}}
    data = {"regime": {"points": [light, mid], "summary": {"cache_edge_bytes": 6.4e7}}}
    summary = {"first": {"scale": 4, "as_trained": False, "families": ["ngram"]}}
    c = dial.pays_in_cache(data, summary, "ngram")
    assert c["bytes"] == 1.2e7 and c["verify"] == (2.03, 1.66) and c["fixed"] == (pytest.approx(1.28), pytest.approx(0.40))
    assert c["box_family"]  # the answer box takes the n-gram table apart
    assert not dial.pays_in_cache(data, summary, "draft")["box_family"]  # the box takes the draft model apart
    assert dial.pays_in_cache(data, {"first": {"scale": 1, "as_trained": True, "families": ["ngram"]}}, "ngram") is None  # pays as trained
    assert dial.pays_in_cache(data, None, "ngram") is None
    data["regime"]["summary"]["cache_edge_bytes"] = 1e7  # 12 MB is past this edge
    assert dial.pays_in_cache(data, summary, "ngram") is None
    data["regime"]["summary"]["cache_edge_bytes"] = 6.4e7
    mid["best"]["T1"] = [cache_row("ngram", 0.9, 0.7, 0.5)]  # the verify fell more than the fixed costs
    assert dial.pays_in_cache(data, summary, "ngram") is None
