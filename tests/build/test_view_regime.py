"""chapter/views/regime.py: the regime summary's sums and counts, from hand-made dicts and the committed results."""
import json

import pytest

from chapter.views import ledger, regime
from chapter.views.dial import dial_end


def timed(family, verdict, engine="native"):
    return {"family": family, "verdict": verdict, "engine": engine}


def test_the_lessons_round_numbers_are_summed_as_the_page_prints_them():
    budget = regime.lesson_budget({"gamma": 4, "draft_ms": 2, "target_ms": 25, "device": "A100"})
    assert (budget["speculative_ms"], budget["most_tokens"], budget["plain_ms"]) == (33, 5, 125)  # 5 tokens at most, and those 5 one at a time
    assert budget["device"] == "A100"


def test_a_dial_end_counts_only_the_rows_faster_in_every_repeat():
    point = {"scale": 40, "main_bytes": 4e8,
             "best": {"T1": [timed("ngram", "faster"), timed("draft", "unclear"), timed("mtp", "faster"), timed("medusa", "slower")]}}
    end = dial_end(point)
    assert (end["families"], end["faster"], end["fastest"]["family"], end["engine"]) == (4, 2, "ngram", "native")


def test_the_summary_quotes_both_ends_of_the_committed_dial(page_data):
    v = regime.view(page_data)
    points = page_data["regime"]["points"]
    for end, point in ((v["as_trained"], points[0]), (v["heavy"], points[-1])):
        assert end["faster"] == len([r for r in point["best"]["T1"] if r["verdict"] == "faster"])
        assert end["fastest"] is point["best"]["T1"][0]


def test_the_view_leaves_the_data_as_it_was(page_data):
    before = json.dumps(page_data, sort_keys=True, default=str)
    regime.view(page_data)
    assert json.dumps(page_data, sort_keys=True, default=str) == before


def scale_point(scale, r5, plain_s, drafter, other, n_chars=200):
    """A hand-made dial point: its r_5, plain decoding's median time, and the n-gram table's best T = 1 row
    (plain decoding spends 1.25 plain forwards per character beside it)."""
    ngram = {"family": "ngram", "drafter_per_round": drafter, "other_per_round": other, "speedup": 2.0, "plain_per_char": 1.25}
    return {"scale": scale, "main_bytes": scale * 1e6, "r": {"5": r5},
            "plain": {"T1": {"s_per_char": plain_s / n_chars}},
            "best": {"T1": [{"family": "draft", "drafter_per_round": 9.0, "other_per_round": 9.0}, ngram]}}


def test_the_mechanism_reads_the_tables_round_and_one_plain_forward_at_both_ends():
    dial = {"points": [scale_point(1, 1.30, 0.02, 0.5, 0.4), scale_point(4, 1.10, 0.1, 0.2, 0.1),
                       scale_point(100, 1.20, 6.0, 0.01, 0.02)]}
    m = regime.mechanism(dial, 1.15)
    assert (m["light"]["drafter"], m["light"]["other"], m["heavy"]["drafter"], m["heavy"]["other"]) == (0.5, 0.4, 0.01, 0.02)
    assert m["light"]["forward"]["ms"] == pytest.approx(0.08)  # 0.1 ms a character over 1.25 plain forwards
    assert m["heavy"]["forward"]["ms"] == pytest.approx(24)
    assert m["light"]["forward"]["fine"] and not m["heavy"]["forward"]["fine"]
    assert m["r5"] == {"min": 1.10, "max": 1.30} and m["r5_above_one"] and m["forward_dearer"]
    assert m["drafter_shrinks"] and m["other_shrinks"]
    assert not m["r5_falls"]  # 1.30 as trained is within 15% of the heaviest's 1.20: a band


def test_the_mechanisms_booleans_turn_with_the_data():
    dial = {"points": [scale_point(1, 1.10, 0.5, 0.01, 0.02, 100), scale_point(50, 1.25, 0.2, 0.3, 0.01, 100)]}
    m = regime.mechanism(dial, 1.15)
    assert m["r5"] == {"min": 1.10, "max": 1.25} and not m["forward_dearer"]
    assert not m["drafter_shrinks"] and m["other_shrinks"]
    at_one = regime.mechanism({"points": [scale_point(1, 1.0, 0.5, 0.01, 0.02, 100), scale_point(50, 1.25, 0.2, 0.3, 0.01, 100)]}, 1.15)
    assert not at_one["r5_above_one"]  # "above 1× throughout" needs every scale above
    # a CPU whose small forward is arithmetic-bound: 5 positions cost 2.2 as trained and 1.3 on the twin
    falls = regime.mechanism({"points": [scale_point(1, 2.2, 0.5, 0.01, 0.02), scale_point(140, 1.3, 9.0, 0.01, 0.02)]}, 1.15)
    assert falls["r5_falls"] and falls["r5"] == {"min": 1.3, "max": 2.2}
    assert not regime.mechanism({"points": [scale_point(1, 1.49, 0.5, 0.01, 0.02), scale_point(140, 1.3, 9.0, 0.01, 0.02)]},
                                1.15)["r5_falls"]  # 1.49 ≤ 1.15 × 1.3: within the flat bound of each other


def test_pays_says_whether_each_end_has_a_faster_method_and_where_the_fastest_is():
    light = {"faster": 2, "fastest": {"speedup": 1.5}}
    heavy = {"faster": 0, "fastest": {"speedup": 1.2}}
    assert regime.pays(light, heavy) == {"as_trained": True, "heavy": False, "more_when_heavy": False}
    assert regime.pays(heavy, light)["more_when_heavy"]


def test_the_committed_mechanism_matches_the_dials_json(page_data):
    v = regime.view(page_data)
    dial, m = page_data["regime"], regime.mechanism(page_data["regime"], 1 + page_data["costs"]["summary"]["eager"]["flat_slack"])
    for end, point in ((m["light"], dial["points"][0]), (m["heavy"], dial["points"][-1])):
        row = next(r for r in point["best"]["T1"] if r["family"] == "ngram")
        assert (end["drafter"], end["other"]) == (row["drafter_per_round"], row["other_per_round"])
        assert end["forward"]["ms"] == pytest.approx(1000 * point["plain"]["T1"]["s_per_char"] / row["plain_per_char"])
        assert end["r5"] == point["r"]["5"]
    r5 = [p["r"]["5"] for p in dial["points"]]
    assert m["r5"] == {"min": min(r5), "max": max(r5)} and m["r5_above_one"] == (min(r5) > 1)
    assert m["r5_falls"] == (r5[0] > (1 + page_data["costs"]["summary"]["eager"]["flat_slack"]) * r5[-1])
    # ① and ⑥'s answer box quote one plain forward with one value at each end
    box = ledger.answer_box(page_data)
    assert 1000 * box["columns"][0]["forward_s"] == pytest.approx(m["light"]["forward"]["ms"])
    assert 1000 * box["columns"][-1]["forward_s"] == pytest.approx(m["heavy"]["forward"]["ms"])
