"""chapter/views/ledger.py: the rows ⑥'s ledger quotes and what it derives from them, from hand-made
dicts and the committed results."""
import json

import pytest

from chapter.build import load_results
from chapter.views import ledger
from chapter.views.rows import tag_regime


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
    heavy, _ = box_row("ngram", 2.7, 3.6, verify=1.26, drafting=0.01, rest=0.02, size=5)  # ⑥'s answer box reads the dial
    regime = {"points": [{"scale": 140, "main_bytes": 4e8, "r": {}, "best": {"T1": [heavy]}, "plain": plain(0.2)}],
              "summary": {"cache_edge_bytes": 1e8}}
    return {"ledger": book, "families": families, "models": models, "regime": regime}


def plain(s_per_char):
    """A dial point's plain decoding at T = 1: its median run's seconds per character."""
    return {"T1": {"s_per_char": s_per_char}}


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


def test_the_committed_ledger_and_the_view_leaves_it_as_it_was(page_data):
    results = page_data
    before = json.dumps(results, sort_keys=True)
    v = ledger.view(results)
    assert json.dumps(results, sort_keys=True) == before
    fewest = results["ledger"]["summary"]["fewest_main_forwards"]
    assert (v["cut"]["mode"], v["cut"]["method"], v["cut"]["gamma"]) == ("kvcache", fewest["method"], fewest["gamma"])
    assert (v["kv_plain"]["mode"], v["kv_plain"]["method"]) == ("kvcache", "plain")
    assert v["recompute"]["fastest"]["mode"] == "recompute"
    assert sum(len(g["checks"]) for g in v["greedy_groups"]) == len(results["ledger"]["greedy_check"])


def box_row(family, speedup, tokens, verify, drafting, rest, plain_per_char=1.0, shape="chain", size=3, alpha=0.7):
    theory = {"verify_price": verify, "with_verify_price": 0.0, "gap": 0.0} if shape == "chain" else None
    chars = speedup * (verify + drafting + rest) / plain_per_char
    r = {"family": family, "shape": shape, "size": size, "speedup": speedup, "speedup_from_parts": speedup,
         "speedup_runs": {"min": 0.9 * speedup, "max": 1.1 * speedup, "n": 3},
         "tokens_per_main": tokens, "verify_over_main": verify, "drafter_per_round": drafting, "other_per_round": rest,
         "round_total": verify + drafting + rest, "plain_per_char": plain_per_char, "c": 0.01, "alpha": alpha, "theory": theory}
    if theory:  # expected_chars: Theorem 3.8's speedup × (γc + r): the count given here is `tokens * 1.01`
        theory["with_verify_price"] = tokens * 1.01 / (size * 0.01 + verify)
    return r, chars


def test_the_answer_box_prices_the_heaviest_fastest_family_at_both_ends():
    light_row, light_chars = box_row("ngram", 1.5, 2.8, verify=1.2, drafting=0.5, rest=0.35, plain_per_char=1.1)
    heavy_row, heavy_chars = box_row("ngram", 2.7, 3.6, verify=1.26, drafting=0.01, rest=0.02, size=5)
    other, _ = box_row("draft", 2.0, 2.6, verify=1.1, drafting=0.2, rest=0.02)
    # plain decoding: 2 ms a character in 1.1 plain forwards as trained, 200 ms in one on the twin
    regime = {"points": [{"scale": 1, "main_bytes": 3e6, "r": {}, "best": {"T1": [other, light_row]}, "plain": plain(0.002)},
                         {"scale": 140, "main_bytes": 4e8, "r": {}, "best": {"T1": [heavy_row, other]}, "plain": plain(0.2)}],
              "summary": {"cache_edge_bytes": 1e8}}
    box = ledger.answer_box({"regime": regime})
    trained, heavy = box["columns"]
    # in time: a plain forward 2/1.1 ms → 200 ms; drafting 0.5 → 0.01 of it; the rest 0.35 → 0.02 of it
    assert trained["forward_s"] == pytest.approx(0.002 / 1.1) and heavy["forward_s"] == pytest.approx(0.2)
    assert box["growth"] == {"forward": pytest.approx(110), "drafting": pytest.approx(2 * 1.1), "rest": pytest.approx(4 / 0.7 * 1.1),
                             "weights": pytest.approx(4e8 / 3e6)}
    assert box["others_grow_less"]
    assert box["forward_about"] == 110  # printed to two significant figures
    box_heavier = ledger.answer_box({"regime": {**regime, "points": [regime["points"][0], {**regime["points"][1], "plain": plain(0.5161)}]}})
    assert box_heavier["growth"]["forward"] == pytest.approx(0.5161 * 1.1 / 0.002) and box_heavier["forward_about"] == 280
    # as trained the draft model leads (the left column says so); the forward (110×) grows less than the weights (133×)
    assert box["leader_as_trained"] is other and not box["forward_outgrows_weights"]
    assert box["family"] == "ngram" and box["trained"] and trained["row"] is light_row and heavy["row"] is heavy_row
    # forwards saved: the median run's characters per round (one main forward each), not the repeats' mean
    assert (trained["chars_per_round"], heavy["chars_per_round"]) == (pytest.approx(light_chars), pytest.approx(heavy_chars))
    assert trained["saved_pct"] == pytest.approx(100 * (1 - 1 / light_chars))
    # plain decoding's price for as many characters, over the round's, is the speedup
    assert trained["plain_price"] == pytest.approx(light_chars * 1.1)
    assert trained["plain_price"] / light_row["round_total"] == pytest.approx(1.5)
    assert [c["fixed"] for c in (trained, heavy)] == [pytest.approx(0.85), pytest.approx(0.03)]  # (b) + (c)
    assert box["verify_steady"] and box["fixed_vanish"]
    assert box["verify_falls"] == (heavy_row["verify_over_main"] < light_row["verify_over_main"])
    # (a) names its k: a chain of γ drafts verifies γ + 1 positions (γ = 3 as trained, 5 on the twin)
    assert [c["verify_k"] for c in (trained, heavy)] == [4, 6] and box["chain"]


def test_the_answer_box_drops_a_family_not_run_as_trained():
    heavy_row, _ = box_row("ngram", 2.7, 3.6, verify=2.0, drafting=0.01, rest=0.02, size=5)
    other, _ = box_row("draft", 1.2, 2.6, verify=1.0, drafting=0.2, rest=0.02)
    regime = {"points": [{"scale": 1, "main_bytes": 3e6, "r": {}, "best": {"T1": [other]}, "plain": plain(0.002)},
                         {"scale": 140, "main_bytes": 4e8, "r": {}, "best": {"T1": [heavy_row, other]}, "plain": plain(0.2)}],
              "summary": {"cache_edge_bytes": 1e8}}
    box = ledger.answer_box({"regime": regime})
    assert not box["trained"] and [c["row"] for c in box["columns"]] == [heavy_row]
    assert box["verify_steady"]  # one column: nothing to compare ① against
    tree, _ = box_row("lookahead", 2.7, 3.6, verify=2.0, drafting=0.01, rest=0.02, shape="tree", size=8)
    treed = ledger.answer_box({"regime": {**regime, "points": [regime["points"][0], {**regime["points"][1], "best": {"T1": [tree]}}]}})
    assert treed["columns"][0]["verify_k"] is None and not treed["chain"]  # a tree's positions are not γ + 1


def test_the_committed_answer_box_reproduces_each_speedup_from_its_parts():
    results = load_results()
    tag_regime(results)
    box = ledger.answer_box(results)
    assert box["trained"] and len(box["columns"]) == 2
    for c in box["columns"]:
        r = c["row"]
        parts = r["verify_over_main"] + r["drafter_per_round"] + c["rest"]
        assert c["chars_per_round"] * r["plain_per_char"] / parts == pytest.approx(r["speedup"], rel=1e-6)
        assert c["plain_price"] / r["round_total"] == pytest.approx(r["speedup"], rel=1e-6)
        assert c["chars_per_round"] > 1 and r["tokens_per_main"] > 1
    # the fixed costs of a round shrink beside a dear forward: the dial's mechanism
    fixed = [c["row"]["drafter_per_round"] + c["rest"] for c in box["columns"]]  # (b) + (c) at both ends
    assert fixed[-1] < fixed[0] / 5
