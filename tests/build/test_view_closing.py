"""chapter/views/closing.py: the measured figures the quiz quotes, and question 10's options."""
import copy

import pytest

from chapter.build import load_results
from chapter.views.closing import ledger_row, temperature_options, view


def conditions(lowest):
    return {"summary": {"temperature": {"lowest_alpha": {"temperature": lowest, "alpha": 0.6},
                                        "other_alpha": {"min": 0.7, "max": 0.8}},
                        "lengths": {"shortest": 8}},
            "by_temperature": [{"temperature": t} for t in (0.0, 0.5, 1.0, 1.3)],
            "start_up": [{"family": "draft", "start_up_s": 9.0}, {"family": "plain", "start_up_s": 1.5}],
            "by_length": [{"n_chars": 32, "family": "plain", "wall_s": {"median": 0.5}},
                          {"n_chars": 8, "family": "draft", "wall_s": {"median": 0.25}},
                          {"n_chars": 8, "family": "plain", "wall_s": {"median": 0.002}}],
            "engine": "native", "preparation": {"ngram_table_s": 0.3}}


LEDGER = {"n_chars": 600, "forward_costs": {"kvcache": {"verify_over_main": {"1": 1.1, "2": 1.2}}},
          "rows": [{"method": "mtp", "mode": "recompute", "main_forwards": 1, "speedup": 9.0},
                   {"method": "draft", "mode": "kvcache", "main_forwards": 2, "speedup": 8.0},
                   {"method": "mtp", "mode": "kvcache", "main_forwards": 350.0, "speedup": 1.25}]}
MODELS = {"meta": {"seeds": [0]}, "runs": {"main_s0": {"config": {"block_size": 128}}}}


def test_the_answer_is_the_temperature_of_the_lowest_alpha():
    assert temperature_options(conditions(0.5)) == [(False, "T = 0", "T = 0"), (True, "T = 0.5", "T = 0.5"),
                                                     (False, "T = 1", "T = 1"), (False, "T = 1.3", "T = 1.3")]


def test_the_mtp_row_is_the_kv_cache_one():
    assert ledger_row(LEDGER, "mtp", "kvcache")["speedup"] == 1.25


@pytest.mark.parametrize("lowest,greedy", [(0.0, True), (1.3, False)])
def test_the_quiz_figures(lowest, greedy):
    data = {"ledger": LEDGER, "conditions": conditions(lowest), "models": MODELS}
    before = copy.deepcopy(data)
    v = view(data)
    assert data == before  # a view never changes what it reads
    assert v["lowest_is_greedy"] is greedy
    assert (v["mtp_main_forwards"], v["mtp_speedup"], v["verify_1_over_main"]) == (350.0, 1.25, 1.1)
    assert (v["start_up_s"], v["shortest"], v["shortest_plain_ms"], v["window"]) == (1.5, 8, 2.0, 128)


def test_the_committed_results_have_one_answer():
    options = view(load_results())["temperature_options"]
    assert sum(ok for ok, _, _ in options) == 1
