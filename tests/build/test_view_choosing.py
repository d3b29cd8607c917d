"""chapter/views/choosing.py: ⑦'s tables, the rows its sentences quote and the facts that choose their wording."""
import copy

import pytest

from chapter.views.choosing import (dont_view, length_table, ngram_payback, slowest_view, span, t0_clauses,
                                    temperature_heavy, temperature_item, temperature_table, texts_table, view)


def registry(*names):
    return {"families": [{"name": n, "label": {"zh": n, "en": n}} for n in names]}


def spread(mean, *values):
    return {"mean": mean, "min": min(values, default=mean), "max": max(values, default=mean), "values": list(values)}


def conditions():
    """Two drafters (one drafting only where its context recurs) at two temperatures and two lengths."""
    by_temperature = [{"temperature": t, "alpha": {"draft": spread(a, a), "lookup": spread(None)},
                       "tokens_per_main": {"draft": spread(2.0, 1.5, 2.5), "lookup": spread(1.2, 1.2)}}
                      for t, a in ((1.0, 0.7), (0.0, 0.6))]
    text = {kind: {f"T{t}": {"drafters": {"draft": {"alpha": 0.5 + t / 10, "coverage": 1.0},
                                          "lookup": {"alpha": 0.2, "coverage": 0.25}}} for t in (0, 1)}
            for kind in ("own", "repetitive")}
    by_length = [{"n_chars": n, "family": f, "speedup": s, "wall_s": {"median": 0.001}}
                 for n, f, s in ((8, "draft", 0.9), (8, "lookup", 1.1), (64, "draft", 1.5), (64, "lookup", 0.8), (8, "plain", 1.0))]
    return {"temperatures": [0.0, 1.0], "by_temperature": by_temperature,  # not in the order of the temperatures
            "configs": {"draft": {"shape": "chain", "size": 4}, "lookup": {"shape": "chain", "size": 4}},
            "text_kinds": ["own", "repetitive"], "by_text": text, "lengths": [8, 64], "by_length": by_length,
            "summary": {"lengths": {"slower_than_plain": {"8": ["draft"], "64": ["lookup"]},
                                    "plain_per_char_s": {"8": 0.000125, "64": 0.0001}}}}


def test_the_temperature_table_follows_the_runs_temperatures_and_skips_drafterless_families():
    data = {"conditions": conditions(), "registry": registry("plain", "lookup", "draft", "ngram")}
    table = temperature_table(data)
    assert [c["temperature"] for c in table["columns"]] == [0.0, 1.0] and table["colspan"] == 3
    assert [f for f, _ in table["alpha"]] == ["lookup", "draft"]  # the registry's order; plain and ngram have no α
    draft = dict(table["alpha"])["draft"]
    assert [(c["temperature"], c["mean"], c["ranged"]) for c in draft] == [(0.0, 0.6, False), (1.0, 0.7, False)]
    tokens = {f: cells for f, _, cells in table["tokens"]}
    assert tokens["draft"][0]["ranged"] and not tokens["lookup"][0]["ranged"]
    assert dict(table["alpha"])["lookup"][0]["mean"] is None


def test_only_a_drafter_that_drafts_where_its_context_recurs_shows_its_coverage():
    data = {"conditions": conditions(), "registry": registry("draft", "lookup")}
    cells = dict(texts_table(data))
    assert [c["coverage"] for c in cells["draft"]] == [None, None]
    assert [(c["kind"], c["T1"], c["T0"], c["coverage"]) for c in cells["lookup"]] == [("own", 0.2, 0.2, 0.25),
                                                                                       ("repetitive", 0.2, 0.2, 0.25)]


def test_the_length_table_marks_the_cells_below_plain_decoding():
    table = length_table({"conditions": conditions()})
    rows = {f: cells for f, _, cells in table["rows"]}
    assert [(c["speedup"], c["slower"]) for c in rows["draft"]] == [(0.9, True), (1.5, False)]
    assert [(c["speedup"], c["slower"]) for c in rows["lookup"]] == [(1.1, False), (0.8, True)]
    assert table["plain_ms_per_char"] == [1000 * 0.000125, 1000 * 0.0001]


def test_the_ngram_payback_is_against_the_longest_output():
    co = conditions()
    assert ngram_payback({"conditions": co}) is None  # the run did not say
    co["summary"]["lengths"]["ngram_table"] = {"saves_per_char_s": 2e-5, "pays_back_after_chars": 50.0}
    pay = ngram_payback({"conditions": co})
    assert (pay["longest"], pay["past_longest"], pay["after_chars"]) == (64, False, 50.0)
    assert pay["saves_ms_per_char"] == pytest.approx(0.02)
    co["summary"]["lengths"]["ngram_table"]["pays_back_after_chars"] = 65.0
    assert ngram_payback({"conditions": co})["past_longest"]


def test_the_t0_sentence_keeps_faster_slower_unclear_and_drops_an_empty_verdict():
    rows = [{"family": f, "at_T0": word} for f, word in (("a", "unclear"), ("b", "slower"), ("c", "unclear"))]
    data = {"families": {"summary": {"temperature_change": {"families": rows}}}}
    assert [(word, [r["family"] for r in group]) for word, group in t0_clauses(data)] == [("slower", ["b"]),
                                                                                          ("unclear", ["a", "c"])]


def slower(**changes):
    """The slowest row as the summary quotes it, with the median run's figures rows.restore_runs gives back: that
    run wrote 1.234 characters a main forward (the pooled tokens_per_main, 1.3, is not what the estimate uses)."""
    slowest = {"tokens_per_main": 1.3, "plain_per_char": 1.016, "round_total": 2.996,
               "speedup_from_parts": 1.234 * 1.016 / 2.996} | changes
    return {"families": {"summary": {"slower_than_plain": {"rows": 4, "families": ["x", "y"], "slowest": slowest}}}}


def test_the_slowest_rows_estimate_is_made_of_the_printed_figures():
    v = slowest_view(slower())
    assert v["slowest_chars"] == pytest.approx(1.234)  # the median run's, not the pooled 1.3
    assert v["slowest_estimate"] == 1.23 * 1.02 / 3.0  # not 1.234 × 1.016 ÷ 2.996
    assert (v["n_slower"], v["n_unclear"]) == (2, None)
    assert slowest_view(slower(plain_per_char=None))["slowest_estimate"] is None
    with_unclear = slower()
    with_unclear["families"]["summary"]["slower_than_plain"]["unclear"] = ["z"]
    assert slowest_view(with_unclear)["n_unclear"] == 1
    assert slowest_view(with_unclear)["unclear"] == ["z"] and slowest_view(slower())["unclear"] == []  # named on the page


def test_the_committed_results(page_data):
    before = copy.deepcopy(page_data)
    v = view(page_data)
    assert page_data == before  # a view never changes what it reads
    assert v["gamma_row"]["mode"] == "kvcache" and v["gamma_row"]["gamma"] == v["gamma"]["measured_gamma"]
    assert v["theory_picks_fastest"] == (v["gamma"]["measured_gamma"] == v["gamma"]["theory_gamma"])
    assert v["wrong_p_unprintable"] == (page_data["exercises"]["chi2"]["accept_every_draft"]["p_value"] < 1e-300)
    assert v["start_up"]["family"] == "plain"
    counts = v["t_counts"]
    assert sum(counts.values()) == v["t_families"] == len(page_data["families"]["summary"]["temperature_change"]["families"])
    assert [p["arxiv"] for p in v["papers"]] == sorted(p["arxiv"] for p in v["papers"]) and v["papers"]
    assert v["n_configs"] == len(v["length_table"]["rows"]) == len(page_data["conditions"]["configs"])
    assert set(v["latin_zh_labels"]) >= {"ngram", "mtp", "medusa", "eagle"} and "lookup" not in v["latin_zh_labels"]
    assert sum(len(group) for _, group in v["t0_clauses"]) == len(page_data["families"]["summary"]["temperature_change"]["families"])


def temperature_data(verdicts, lowest_T=0.0, papers=()):
    rows = [{"family": f"f{i}", "at_T0": w, "runs_T1": {"min": 1.0 + i, "max": 1.1 + i}, "runs_T0": {"min": 0.8, "max": 0.9},
             "speedup_T1": 1.05 + i, "speedup_T0": 0.85} for i, w in enumerate(verdicts)]
    change = {"engine": "native", "families": rows} | {f"{w}_at_T0": [r["family"] for r in rows if r["at_T0"] == w]
                                                       for w in ("faster", "slower", "unclear")}
    gpu = {f"p{i}": {"paper": f"P{i}", "arxiv": arxiv, "by_temperature": {"model": "M", "T0": t0, "T1": t1}}
           for i, (arxiv, t0, t1) in enumerate(papers)} | {"none": None, "bare": {"paper": "Q", "arxiv": "1"}}
    return {"families": {"summary": {"temperature_change": change}},
            "conditions": {"summary": {"temperature": {"drafter": "draft", "lowest_alpha": {"temperature": lowest_T, "alpha": 0.6},
                                                       "other_alpha": {"min": 0.65, "max": 0.7},
                                                       "highest": {"temperature": 1.3, "alpha": 0.7}}}},
            "published": {"gpu": gpu},
            "regime": {"points": [{"main_bytes": 4e8, "best": {"T1": []}}]}}  # a dial without greedy rows at its end


def test_the_temperature_item_counts_the_answer_runs_verdicts_and_keeps_the_papers_apart():
    item = temperature_item(temperature_data(["faster", "slower", "unclear", "unclear"],
                                             papers=[("2406.1", [4.0, 4.0], [3.6, 3.6]), ("2211.1", [3.1, 3.4], [2.3, 2.6])]))
    assert item["t_counts"] == {"faster": 1, "slower": 1, "unclear": 2} and item["t_families"] == 4
    assert not item["t_none_moved"] and temperature_item(temperature_data(["unclear", "unclear"]))["t_none_moved"]
    # the named families carry both paired ranges; the unclear ones are only counted
    assert [(r["family"], r["runs_T1"]["min"], r["runs_T0"]["max"]) for r in item["t_named"]["slower"]] == [("f1", 2.0, 0.9)]
    assert [r["family"] for r in item["t_named"]["faster"]] == ["f0"]
    assert item["greedy_seldom_faster"] and item["alpha_lowest_greedy"] and item["temperature_no_reason"]
    # the drafter's α at T = 0 beside the range over the other temperatures, so that "lowest" can be checked
    assert item["alpha_greedy"] == {"T0": 0.6, "others": {"min": 0.65, "max": 0.7}}
    assert [(p["paper"], p["T0"], p["T1"]) for p in item["papers"]] == [("P1", "3.1–3.4", "2.3–2.6"), ("P0", "4", "3.6")]
    assert item["papers_greedy_above"] and item["papers_lowest_T1"] == 2.3  # papers without by_temperature are left out


def test_the_temperature_items_facts_turn_with_the_data():
    item = temperature_item(temperature_data(["faster", "faster", "unclear"], lowest_T=1.3,
                                             papers=[("1", [2.0, 2.5], [2.4, 2.6])]))
    assert not item["greedy_seldom_faster"] and not item["alpha_lowest_greedy"] and not item["temperature_no_reason"]
    assert not item["papers_greedy_above"]  # the ranges overlap
    assert temperature_item(temperature_data(["unclear"]))["papers"] == []


def test_a_published_span_prints_one_figure_where_its_ends_agree():
    assert span([3.1, 3.4]) == "3.1–3.4" and span([4.04, 4.04]) == "4.04"


def test_temperature_is_no_reason_only_where_every_paper_still_pays_at_T1():
    data = temperature_data(["unclear", "slower"], papers=[("1", [1.2, 1.3], [0.9, 1.0])])
    assert not temperature_item(data)["temperature_no_reason"]  # a paper's T = 1 figure at or below 1×
    assert temperature_item(temperature_data(["unclear", "slower"]))["temperature_no_reason"]  # no paper to contradict


@pytest.mark.parametrize("r5,priced", [(1.19, True), (1.15, False), (1.02, False)])
def test_the_twins_verify_is_priced_only_past_the_flatness_slack(r5, priced):
    """The busy-hardware case says the twin's speedups come from a dear forward only where its verify is not flat."""
    data = {"families": {"costs": {"ngram": {"bytes": 15.9e6}}, "summary": {"memory": {"ngram_over_main": 5.4, "main_bytes": 2.954e6}}},
            "regime": {"engine": "native", "points": [{"r": {"5": 1.3}, "main_bytes": 3e6}, {"r": {"5": r5}, "main_bytes": 4e8}]},
            "costs": {"summary": {"eager": {"flat_slack": 0.15}, "native": {"flat_slack": 0.15}}},
            "dial": {"never": ["lookup", "lookahead"]}}
    v = dont_view(data)
    assert v["heavy_verify_priced"] is priced
    assert f"{15.9 / v['main_mb']:.1f}" == "5.4"  # the ratio reproduces from the main model's MB as printed, 2.95
    assert v["light_never_pay"]  # neither light drafter pays for good at any scale
    assert not dont_view({**data, "dial": {"never": ["lookahead"]}})["light_never_pay"]
    assert v["r5"] == {"min": min(1.3, r5), "max": max(1.3, r5)}   # ①'s band, quoted again
    assert v["r5_falls"] is (1.3 > 1.15 * r5)  # 1.3 as trained against the twin's: past the slack only beside 1.02
    falls = {**data, "regime": {"engine": "native", "points": [{"r": {"5": 2.22}}, {"r": {"5": r5}}]}}
    assert dont_view(falls)["r5_falls"] and (dont_view(falls)["r5_light"], dont_view(falls)["r5_heavy"]) == (2.22, r5)


def test_the_temperature_item_counts_the_heaviest_twins_moves_by_their_paired_ranges():
    """⑦'s temperature item on the heaviest twin: a family counts as faster or slower under greedy decoding only
    where its T = 0 and T = 1 rows' paired ranges do not overlap; the example is the first that moved."""
    def r(family, lo, hi):
        return {"family": family, "speedup": (lo + hi) / 2, "speedup_runs": {"min": lo, "max": hi, "n": 3}}

    t1 = [r("ngram", 2.3, 2.9), r("draft", 1.6, 2.3), r("medusa", 1.0, 1.7), r("lookup", 0.9, 1.1)]
    t0 = [r("ngram", 1.7, 1.9), r("draft", 1.4, 1.7), r("medusa", 1.8, 1.9)]  # lookup not run greedy
    h = temperature_heavy({"regime": {"points": [{}, {"main_bytes": 4e8, "best": {"T1": t1, "T0": t0}}]}})
    assert (h["n"], h["slower"], h["faster"]) == (3, 1, 1)  # draft's ranges overlap (1.6–2.3 against 1.4–1.7)
    assert h["example"]["T1"] is t1[0] and h["example"]["T0"] is t0[0]
    assert temperature_heavy({"regime": {"points": [{"main_bytes": 4e8, "best": {"T1": t1}}]}}) is None
