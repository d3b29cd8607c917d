"""chapter/views/regime.py: the regime summary's sums and counts, from hand-made dicts and the committed results."""
import json

import pytest

from chapter.build import load_results
from chapter.views import regime
from chapter.views.choosing import published
from chapter.views.dial import dial_end, dial_view
from chapter.views.rows import tag_regime, tag_rows


@pytest.fixture(scope="module")
def page_data():
    """The committed results tagged as build.render() tags them, with the views the summary reads."""
    data = load_results()
    tag_rows(data)
    tag_regime(data)
    data["dial"] = dial_view(data)
    data["published"] = published()
    return data


def timed(family, verdict, engine="native"):
    return {"family": family, "verdict": verdict, "engine": engine}


def test_the_lessons_round_numbers_are_summed_as_the_page_prints_them():
    budget = regime.lesson_budget({"gamma": 4, "draft_ms": 2, "target_ms": 25, "device": "A100"})
    assert (budget["speculative_ms"], budget["most_tokens"], budget["plain_ms"]) == (33, 5, 100)
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
    costs = page_data["costs"]
    assert v["forward_ms"] == pytest.approx(1000 * costs["engines"]["eager"]["seconds"]["main"])
    assert v["flat_within"] == pytest.approx(1 + costs["summary"][v["engine"]]["flat_slack"])
    assert v["widest"] == max(costs["positions"])


def test_the_view_leaves_the_data_as_it_was(page_data):
    before = json.dumps(page_data, sort_keys=True, default=str)
    regime.view(page_data)
    assert json.dumps(page_data, sort_keys=True, default=str) == before
