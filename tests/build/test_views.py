"""chapter/views/: what the page computes from the results, once, before the templates format it."""

import pytest

from chapter.views.choosing import published
from chapter.views.dial import dial_view, expected_chars, peer_view
from chapter.views.mtp import deepseek_scale
from chapter.views.rows import find_row, first_seed_run, paired_verdict, tag_regime

PAPERS = {"deepseek_v3": {"total_params": 600.0, "active_params": 30.0, "train_tokens": 1000.0,
                          "mtp_acceptance": [0.85, 0.90], "decoding_speedup": 1.8}}


def mtp(alpha):
    return {"mtp": {"alpha": {"mtp": {"mean": alpha}}, "params": {"main_total": 3.0},
                    "summary": {"train_chars_seen": 10}}}


@pytest.mark.parametrize("alpha,inside,near", [(0.87, True, True), (0.83, False, True), (0.95, False, True),
                                               (0.951, False, False), (0.70, False, False)])
def test_deepseek_scale_places_our_alpha_against_the_reported_range(alpha, inside, near):
    out = deepseek_scale(mtp(alpha), PAPERS)
    assert (out["inside"], out["near"]) == (inside, near)
    assert (out["params_ratio"], out["active_ratio"], out["data_ratio"]) == (200.0, 10.0, 100.0)


def test_the_published_figures_carry_their_arxiv_ids():
    papers = published()
    assert papers["deepseek_v3"]["arxiv"] == "2412.19437"
    assert all(fig["arxiv"] for fig in papers["gpu"].values() if fig)


def dial_row(family, speedup, lo, hi, theory=None, alpha=0.5, size=3, chars=1.875, verify=1.0, draft=0.1, rest=0.1, c=0.1):
    row = {"family": family, "engine": "native", "temperature": 1.0, "c": c, "shape": "chain", "size": size,
           "speedup": speedup, "speedup_runs": {"min": lo, "max": hi, "n": 3},
           "alpha": alpha, "tokens_per_main": chars, "verify_over_main": verify, "drafter_per_round": draft,
           "other_per_round": rest}
    if theory:
        row["theory"] = {"with_verify_price": theory, "verify_price": 1.1, "gap": speedup / theory - 1}
    return row


def dial(points):
    for i, point in enumerate(points):
        point.setdefault("r", {"5": 1.5 if i == 1 else 1.2})  # the second scale's verify is the dearest
    return {"regime": {"points": points, "summary": {"cache_edge_bytes": 100}}}


def test_a_dial_rows_verdict_needs_every_paired_repeat_on_one_side_of_one():
    assert [paired_verdict(dial_row("x", 1.1, lo, hi)["speedup_runs"]) for lo, hi in [(1.01, 1.3), (0.7, 0.99), (0.9, 1.2), (1.0, 1.2)]] == [
        "faster", "slower", "unclear", "unclear"]


def test_the_dial_names_where_each_family_pays_for_good_and_what_theorem_3_8_misses():
    # at α = 0.5, γ = 3 the formula expects 1.875 characters per verify: over γc + r = 0.3 + 1.1, 1.875 / 1.4
    formula = 1.875 / 1.4
    assert expected_chars(dial_row("x", 1.0, 0.9, 1.1, theory=formula)) == pytest.approx(1.875)
    light = {"scale": 1, "main_bytes": 10, "best": {"T1": [dial_row("ngram", 1.2, 1.1, 1.3), dial_row("mtp", 1.1, 1.05, 1.2),
                                                          dial_row("draft", 0.9, 0.8, 0.95)]}}
    middle = {"scale": 4, "main_bytes": 40, "best": {"T1": [dial_row("ngram", 1.5, 1.4, 1.6), dial_row("mtp", 0.9, 0.8, 1.1),
                                                           dial_row("draft", 1.2, 1.1, 1.3)]}}
    heavy = {"scale": 40, "main_bytes": 400, "best": {"T1": [
        dial_row("ngram", 2.0, 1.9, 2.1, theory=2.1),                        # 5 % off: close
        dial_row("mtp", 1.2, 1.1, 1.3, theory=1.25),                         # faster again, after a lapse
        dial_row("lookup", 1.0, 0.9, 1.1, theory=formula, chars=1.2),        # 25 % off
        dial_row("draft", 1.2, 1.1, 1.3, theory=1.6, rest=0.9),              # 25 % off
        dial_row("lookahead", 0.6, 0.5, 0.7)]}}                              # a tree: no theorem
    data = dial([light, middle, heavy])
    tag_regime(data)
    assert [r["verdict"] for r in heavy["best"]["T1"]] == ["faster", "faster", "unclear", "faster", "slower"]
    assert heavy["fig_r"] == "regime|x40" and heavy["best"]["T1"][0]["fig"].endswith("|regime-x40")
    view = dial_view(data)
    # the MTP head was faster at the lightest scale, not at the middle one: it pays for good from the heaviest
    assert view["pays"] == [{"scale": 1, "bytes": 10, "families": ["ngram"]}, {"scale": 4, "bytes": 40, "families": ["draft"]},
                            {"scale": 40, "bytes": 400, "families": ["mtp"]}]
    assert view["never"] == ["lookup", "lookahead"]
    assert view["best"]["scale"] == 40 and view["best"]["row"]["family"] == "ngram"
    assert view["dearest_verify_scale"] == 4
    theory = view["theory"]["T1"]
    assert theory["rows"] == 4 and theory["largest_close_gap"] == pytest.approx(1 - 2.0 / 2.1)
    assert [m["family"] for m in theory["misses"]] == ["lookup", "draft"]
    assert theory["misses"][0]["chars"] == 1.2 and theory["misses"][0]["expected_chars"] == pytest.approx(1.875)
    assert theory["misses"][1]["rest_share"] == pytest.approx(0.9 / 2.0)


def test_a_dial_where_nothing_pays_says_so():
    point = {"scale": 1, "main_bytes": 10, "best": {"T1": [dial_row("ngram", 0.9, 0.8, 1.1)]}}
    data = dial([point])
    tag_regime(data)
    view = dial_view(data)
    assert view["pays"] == [] and view["never"] == ["ngram"] and view["theory"]["T1"]["largest_close_gap"] is None


def peer_row(engine, family, speedup, wall, size=3):
    return {"engine": engine, "family": family, "shape": "chain", "size": size, "speedup": speedup,
            "wall_s": {"median": wall}}


def test_the_peer_table_puts_each_engine_plain_first_and_keeps_the_native_rows_the_others_can_be_compared_with():
    native = [peer_row("native", "ngram", 2.7, 2.0, 5), peer_row("native", "block", 1.4, 4.0),
              peer_row("native", "draft", 2.0, 3.0, 4), peer_row("native", "mtp", 1.5, 4.0, 1)]
    peers = [peer_row("transformers", "draft", 1.3, 5.0, 2), peer_row("transformers", "plain", 1.0, 6.5, 0),
             peer_row("eager", "ngram", 1.6, 4.0, 5), peer_row("eager", "plain", 1.0, 6.4, 0),
             peer_row("transformers", "lookup", 0.9, 7.1, 2)]
    heavy = {"scale": 140, "main_bytes": 4e8, "r": {"1": 1.0, "5": 1.2},
             "plain": {"T1": peer_row("native", "plain", 1.0, 6.0, 0)}, "best": {"T1": native},
             "peers": {"version": "9.9", "rows": peers, "eager_r": {"1": 1.0, "5": 2.4}}}
    data = {"regime": {"n_chars": 200, "points": [heavy], "summary": {"peer": {"ratio": 2.2}}}}
    view = peer_view(data)
    order = [(item["row"]["engine"], item["row"]["family"]) for item in view["rows"]]
    # native: plain, then the fastest and the families the others also run (block and MTP: neither does here)
    assert order == [("native", "plain"), ("native", "ngram"), ("native", "draft"),
                     ("eager", "plain"), ("eager", "ngram"),
                     ("transformers", "plain"), ("transformers", "draft"), ("transformers", "lookup")]
    assert view["rows"][1]["ms_per_char"] == pytest.approx(10.0)  # 2.0 s for 200 characters
    assert view["r"]["5"] == {"native": 1.2, "eager": 2.4} and view["against"] == {"ratio": 2.2}
    # without the library's rows there is no table
    heavy["peers"]["rows"] = [r for r in peers if r["engine"] != "transformers"]
    assert peer_view(data) is None


def test_find_row_matches_every_given_field_and_first_seed_run_reads_the_first_seed():
    rows = [{"family": "draft", "size": 2}, {"family": "draft", "size": 4}, {"family": "ngram", "size": 4}]
    assert find_row(rows, size=4) is rows[1] and find_row(rows, family="ngram", size=4) is rows[2]
    assert find_row(rows, family="mtp") is None
    models = {"meta": {"seeds": [3, 0]}, "runs": {"main_s0": "zero", "main_s3": "three"}}
    assert first_seed_run(models, "main") == "three"
