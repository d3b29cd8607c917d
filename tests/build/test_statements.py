"""Sentences whose numbers must reproduce from the figures printed beside them: the measurement
code computes every figure of such a sentence from the same values (issue 18)."""
import copy
import html
import math
import re

from chapter import build
from experiments.measure import conditions
from experiments.measure.ledger import gamma_summary, tokens_drops
from experiments.prices import median_pair, prices_of


def fake_values(main, draft, mtp_head):
    return {"main": main, "draft": draft, "mtp_head": mtp_head}


def test_c_is_the_median_repeats_ratio_and_its_pair_reproduces_it():
    # medians of the two columns (0.4 / 2.0 = 0.2) differ from the median of the ratios
    values = fake_values(main=[2.0, 1.0, 3.0, 2.5, 1.5], draft=[0.5, 0.4, 0.3, 0.45, 0.6],
                         mtp_head=[0.7, 0.5, 0.6, 0.8, 0.9])
    c, pair = median_pair(values, "draft")
    ratios = sorted(d / m for d, m in zip(values["draft"], values["main"]))
    assert c == ratios[2] and pair["draft"] / pair["main"] == c
    prices = prices_of(values, positions=(1,))
    assert prices["c"] == c and prices["c_pair"] == pair
    assert prices["c_mtp_pair"]["mtp_head"] / prices["c_mtp_pair"]["main"] == prices["c_mtp"]
    assert not math.isclose(prices["seconds"]["draft"] / prices["seconds"]["main"], c)  # why the pair is printed


def test_the_kv_cache_gains_are_made_of_the_times_c_is_made_of():
    costs = {"kvcache": {"c_pair": {"draft": 0.44, "main": 2.0}, "c": 0.22},
             "recompute": {"c_pair": {"draft": 1.1, "main": 5.5}, "c": 0.2}}
    row = dict(gamma=1, alpha=0.7, tokens_per_main=1.7, tokens_per_main_expected=1.7, speedup=1.2,
               speedup_theory=1.3)
    rows = [{**row, "mode": mode} for mode in ("kvcache", "recompute")]
    summary = gamma_summary({"rows": rows, "forward_costs": costs})
    gain = summary["kvcache_forward_gain"]
    assert math.isclose(gain["main"], 5.5 / 2.0) and math.isclose(gain["draft"], 1.1 / 0.44)
    ratio = (0.44 / 2.0) / (1.1 / 5.5)
    assert math.isclose(ratio, gain["main"] / gain["draft"])  # c larger with the cache <=> main gains more
    assert summary["c_with_cache"] == "larger" and costs["kvcache"]["c"] > costs["recompute"]["c"]


def test_tokens_drops_counts_longer_chains_that_emitted_fewer():
    rows = [{"mode": "kvcache", "gamma": g, "tokens_per_main": t} for g, t in ((1, 1.7), (2, 2.2), (3, 2.1), (4, 2.5))]
    rows += [{"mode": "recompute", "gamma": g, "tokens_per_main": t} for g, t in ((2, 2.0), (1, 1.8))]
    assert tokens_drops({"kvcache": rows[:4], "recompute": rows[4:]}) == 1


def page_text(results):
    """The page's visible words as `make site` would render them from these results."""
    visible = re.sub(r"<(script|style)\b.*?</\1>", " ", build.render(results), flags=re.S)  # no code, no data
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", visible)).split())


def test_the_wasted_rows_faq_counts_what_the_grid_opens_on():
    results = build.load_results()
    example = results["causal"]["verify_example"]
    shown = min(4, example["gamma"])  # the grid's opening γ (verify.html.j2)
    for accepted in (1, 3):
        changed = copy.deepcopy(results)
        changed["causal"]["verify_example"]["n_accepted"] = accepted
        text = page_text(changed)
        assert f"{accepted} of its {shown} drafts are accepted and the {shown - accepted} rows" in text
        assert f"while {example['gamma'] - accepted} rows are discarded" in text


def test_the_sweeps_characters_per_forward_name_their_run():
    """⑤ quotes the sweep's n-gram chain (3.90 at γ = 8) and ⑧ the timed row (3.82): each names
    its run, so the two figures are not one quantity printed twice."""
    results = build.load_results()
    text = page_text(results)
    engine = results["registry"]["engines"][[e["name"] for e in results["registry"]["engines"]].index(
        results["families"]["engines"][0])]["label"]["en"]  # the answer run's engine
    assert f"In the sweep ({engine}, T = 1, one run per configuration, sampling seed 0)" in text
    changed = copy.deepcopy(results)
    changed["families"]["sweep_repeats"] = 3
    assert "T = 1, 3 runs per configuration)" in page_text(changed)


def test_c_is_printed_with_the_two_times_that_reproduce_it():
    """③: 'c = 0.113 / 0.406 = 0.280' divides; the mode with the larger c is the one whose main
    step the cache sped up more (the old text said 'only 2.4 times' of a gain above 2.3)."""
    results = build.load_results()
    text = page_text(results)
    draft, main, c = map(float, re.search(r"so c = ([\d.]+) / ([\d.]+) =\s+([\d.]+)", text).groups())
    assert round(draft / main, 3) == c  # the printed times divide to the printed c
    gain = results["gamma_sweep"]["summary"]["kvcache_forward_gain"]
    eager = results["gamma_sweep"]["forward_costs"]  # the FAQ compares the modes on the eager engine, which runs both
    larger = eager["kvcache"]["c"] > eager["recompute"]["c"]
    assert ("so c is larger with the cache than in recompute mode" in text) == larger == (gain["main"] > gain["draft"])
    assert "(;" not in text and "（；" not in text


def test_the_temperature_sentence_quotes_the_peak_of_characters_per_forward():
    """⑦ said characters per forward climb 'to 3.00' (at α's peak, T = 0.8) beside a table whose
    T = 0.5 row held 3.16: the sentence names the peak of the quantity it quotes (conditions.py
    summarize finds it; the page is rendered from the changed rows and their summary)."""
    results = build.load_results()
    for bump in (0.0, 5.0):  # as measured, then with another temperature made the peak
        changed = copy.deepcopy(results)
        rows = [r for r in changed["conditions"]["by_temperature"] if r["temperature"] > 0]
        if bump:
            rows[-1]["tokens_per_main"]["draft"]["mean"] += bump
        changed["conditions"]["summary"] = conditions.summarize(changed["conditions"])
        peak = max(rows, key=lambda r: r["tokens_per_main"]["draft"]["mean"])
        text = page_text(changed)
        assert f"to at most {peak['tokens_per_main']['draft']['mean']:.2f} (T = {peak['temperature']})" in text


def test_a_token_tree_s_verify_is_priced_as_a_tree_beside_its_chain_in_one_run():
    """①'s sentence on token trees prints families.json's tree prices (the verify with the tree's
    mask) beside the chain of as many positions timed in the same run, not costs.json's chain
    alone under the trees' name (issue 39, item 5)."""
    results = build.load_results()
    engine = results["families"]["engines"][0]  # the answer run's engine, where families.json times its verify
    prices = results["families"]["verify_prices"][engine]
    text = page_text(results)
    f2 = lambda v: f"{v:.2f}"
    # (page_text leaves a space where each figure's tag was: "1.88 ×")
    assert (f"a tree of 16 or 32 nodes, verified with its mask, costs {f2(prices['tree']['16'])} × or "
            f"{f2(prices['tree']['32'])} × one position, against {f2(prices['chain']['16'])} × or "
            f"{f2(prices['chain']['32'])} × for as many positions in a chain in the same run") in text
    del results["families"]["verify_prices"]  # an older families.json: the chain prices of costs.json, as before
    assert "16 or 32 nodes at once cost" in page_text(results)
