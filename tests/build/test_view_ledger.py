"""chapter/views/ledger.py: the rows ⑥'s ledger quotes and what it derives from them, from hand-made
dicts and the committed results."""
import json

import pytest

from chapter.build import load_results
from chapter.views import ledger
from chapter.views.rows import tag_regime, tag_rows


def ledger_row(method, mode, gamma=0, **fields):
    return {"method": method, "mode": mode, "gamma": gamma, **fields}


def timed(method, mode, gamma=0, rest_s=2e-4, other_share=0.2):
    return ledger_row(method, mode, gamma, overhead_per_main_forward_s=rest_s, parts_share={"other": other_share})


def data(rows, fewest, recompute_fastest, prices=None, greedy=None):
    prices = prices or {"main": 1e-3, "draft": 2e-4, "mtp_head": 5e-5}
    book = {"rows": rows, "prompt": "ROMEO:\n", "warmup": 1, "threads": 2, "gamma_max": 4, "greedy_check": greedy or [],
            "summary": {"fewest_main_forwards": fewest, "fastest": {"recompute": recompute_fastest},
                        "greedy_all_equal": True, "recompute_verify_flat": False},
            "forward_costs": {"kvcache": {"seconds": prices},
                              "recompute": {"seconds": {"main": 4e-3}, "c": 0.05, "verify_over_main": {"4": 1.3}}}}
    families = {"engines": ["native", "eager"], "sweep_repeats": 1,
                "summary": {"greedy_check": {"configurations": 0, "identical": 0, "all_identical": True}}}
    models = {"meta": {"seeds": [7, 8]}, "runs": {"main_s7": {"params": 1000, "config": {"block_size": 64}}},
              "summary": {"draft_params_fraction": 0.125}}
    return {"ledger": book, "families": families, "models": models}


FEWEST = {"method": "draft", "gamma": 3, "main_forwards_saved": 0.5, "draft_over_plain_forwards": 0.25,
          "drafts_exceed_plain_forwards": False}


def test_the_row_that_saves_most_is_the_kv_cache_one_the_summary_names():
    rows = [timed("plain", "recompute"), timed("draft", "recompute", 3), timed("plain", "kvcache", rest_s=1e-4),
            timed("draft", "kvcache", 2), timed("draft", "kvcache", 3, rest_s=3e-4, other_share=0.3), timed("mtp", "kvcache", 1),
            timed("mtp", "recompute", 1)]
    v = ledger.view(data(rows, FEWEST, {"method": "mtp", "gamma": 1}))
    assert v["cut"] is rows[4] and v["kv_plain"] is rows[2]
    assert v["recompute"]["fastest"] is rows[6]
    bill = v["bill"]
    assert bill["is_draft"] and bill["drafts_in_sequence"] and bill["verify_positions"] == 4
    assert bill["draft_ms"] == pytest.approx(0.2) and bill["main_ms"] == pytest.approx(1.0)
    assert (bill["saved_pct"], bill["drafts_pct_of_plain"], bill["draft_params_pct"]) == pytest.approx((50, 25, 12.5))
    assert (bill["rest_pct"], bill["rest_ms"], bill["plain_rest_ms"]) == pytest.approx((30, 0.3, 0.1))
    assert v["recompute"]["verify_over_main"] == 1.3 and v["recompute"]["main_ms"] == pytest.approx(4.0)
    assert (v["block"], v["gamma_cap"], v["main_run"]["params"]) == (64, 63, 1000)
    assert v["prompt_shown"] == "ROMEO:\\n" and not v["warmup_plural"] and v["threads_plural"]


def test_an_mtp_head_is_priced_as_one_draft_per_round():
    rows = [timed("plain", "kvcache"), timed("mtp", "kvcache", 1), timed("plain", "recompute"), timed("mtp", "recompute", 1)]
    fewest = {**FEWEST, "method": "mtp", "gamma": 1, "drafts_exceed_plain_forwards": True}
    v = ledger.view(data(rows, fewest, {"method": "mtp", "gamma": 1}))
    assert v["cut"] is rows[1] and v["recompute"]["fastest"] is rows[3]
    assert not v["bill"]["is_draft"] and not v["bill"]["drafts_in_sequence"] and v["bill"]["drafts_exceed_plain"]
    assert v["bill"]["draft_ms"] == pytest.approx(0.05)
    assert v["families"]["greedy_check"] is None and v["families"]["sweep_once"] and v["families"]["answer_engine"] == "native"


def test_the_greedy_checks_are_grouped_by_mode_in_their_order_and_a_mismatch_counted_from_one():
    checks = [{"method": "draft", "mode": "recompute", "gamma": 1, "equal": True, "first_mismatch": None},
              {"method": "mtp", "mode": "recompute", "gamma": 1, "equal": False, "first_mismatch": 41},
              {"method": "draft", "mode": "kvcache", "gamma": 1, "equal": True, "first_mismatch": None}]
    groups = ledger.greedy_groups(checks)
    assert [(g["mode"], len(g["checks"])) for g in groups] == [("recompute", 2), ("kvcache", 1)]
    assert [c["differs_from"] for g in groups for c in g["checks"]] == [None, 42, None]
    assert "differs_from" not in checks[1]


def test_the_committed_ledger_and_the_view_leaves_it_as_it_was():
    results = load_results()
    tag_rows(results)
    tag_regime(results)
    before = json.dumps(results, sort_keys=True)
    v = ledger.view(results)
    assert json.dumps(results, sort_keys=True) == before
    fewest = results["ledger"]["summary"]["fewest_main_forwards"]
    assert (v["cut"]["mode"], v["cut"]["method"], v["cut"]["gamma"]) == ("kvcache", fewest["method"], fewest["gamma"])
    assert (v["kv_plain"]["mode"], v["kv_plain"]["method"]) == ("kvcache", "plain")
    assert v["recompute"]["fastest"]["mode"] == "recompute"
    assert sum(len(g["checks"]) for g in v["greedy_groups"]) == len(results["ledger"]["greedy_check"])
