"""The conclusions the page prints live in the results JSON (issue 19, item 4): each measurement
module's `summarize` turns the payload it writes into its `summary` block, and the templates only
format it. Every summary field is checked here on a small hand-made payload, and again after the
data change, so that a wrong rule (the wrong peak, a comparison the wrong way round) fails."""
import copy
from types import SimpleNamespace

import pytest

from chapter import build
from chapter.schema import SCHEMA
from experiments.measure import conditions, costs, exercises, families, ledger, regime
from tests.helpers import ROOT


def declared(filename, summary):
    """Every summary field the schema declares for `filename` is in `summary`, with its type."""
    for field in SCHEMA[filename]:
        if field.startswith("summary"):
            path, _, kind = field.partition(":")
            build.check_field({"summary": summary}, path.split("."), kind, filename)


# conditions.json


def spread(mean):
    return {"mean": mean, "min": mean, "max": mean, "values": [mean]}


def conditions_payload(engine="native"):
    """α and tokens per forward of the draft model against temperature, α on three texts, walls
    per length on one engine (plain 1 ms and the n-gram chain 0.5 ms per character)."""
    temps = {0.0: (0.60, 2.0), 0.5: (0.70, 3.2), 0.8: (0.75, 3.0), 1.0: (0.72, 3.1), 1.3: (0.65, 2.8)}
    by_temperature = [{"temperature": t, "alpha": {"draft": spread(a)}, "tokens_per_main": {"draft": spread(k)}}
                      for t, (a, k) in temps.items()]
    alpha = lambda kind, **a: {f: {"alpha": a.get(f, base), "positions": 10}
                               for f, base in (("draft", 0.7), ("ngram", 0.5), ("mtp", 0.8), ("medusa", 0.4),
                                               ("eagle", 0.8))}
    texts = {"val": {**alpha("val", draft=0.72, mtp=0.77), "lookup": {"alpha": 0.5, "coverage": 0.3}},
             "own": {**alpha("own"), "lookup": {"alpha": 0.4, "coverage": 0.2}},
             "repetitive": {**alpha("repetitive", draft=0.9), "lookup": {"alpha": 0.7, "coverage": 0.9}}}
    per_char = {"plain": 1e-3, "ngram": 0.5e-3}
    by_length = [{"engine": engine, "n_chars": n, "family": f, "wall_s": {"median": s * n}, "speedup": per_char["plain"] / s}
                 for f, s in per_char.items() for n in (8, 600)]
    return {"engine": engine, "temperatures": list(temps), "by_temperature": by_temperature,
            "text_kinds": ["val", "own", "repetitive"], "by_text": {k: {"T1": {"drafters": d}} for k, d in texts.items()},
            "lengths": [8, 600], "by_length": by_length,
            "start_up": [{"engine": engine, "family": "plain", "compile_s": 0.0}],
            "preparation": {"ngram_table_s": 0.25}}


def test_conditions_engine_and_schema():
    assert conditions.summarize(conditions_payload())["engine"] == "native"
    assert conditions.summarize(conditions_payload("eager"))["engine"] == "eager"  # where native does not build
    declared("conditions.json", conditions.summarize(conditions_payload()))


def test_conditions_temperature_peaks_and_low():
    payload = conditions_payload()
    t = conditions.summarize(payload)["temperature"]
    assert t["drafter"] == "draft"
    assert t["lowest_alpha"] == {"temperature": 0.0, "alpha": 0.60}
    assert t["other_alpha"] == {"min": 0.65, "max": 0.75}
    assert t["peak_alpha"] == {"temperature": 0.8, "alpha": 0.75}
    assert t["peak_tokens"] == {"temperature": 0.5, "tokens_per_main": 3.2}  # not α's peak
    assert t["highest"] == {"temperature": 1.3, "alpha": 0.65}
    assert t["rises_from_T0"] and t["falls_past_peak"]
    # greedy best, α falling with T: the peak over T > 0 is the first warm row, and the low moves
    for row, a in zip(payload["by_temperature"], (0.9, 0.8, 0.7, 0.6, 0.5)):
        row["alpha"]["draft"]["mean"] = a
    row["tokens_per_main"]["draft"]["mean"] = 9.0
    t = conditions.summarize(payload)["temperature"]
    assert t["lowest_alpha"] == {"temperature": 1.3, "alpha": 0.5} and t["other_alpha"] == {"min": 0.6, "max": 0.9}
    assert t["peak_alpha"]["temperature"] == 0.5 and t["peak_tokens"]["temperature"] == 1.3
    assert not t["rises_from_T0"] and t["falls_past_peak"]
    payload["by_temperature"][-1]["alpha"]["draft"]["mean"] = 0.95  # the highest T is the peak
    t = conditions.summarize(payload)["temperature"]
    assert t["peak_alpha"]["temperature"] == 1.3 and t["rises_from_T0"] and not t["falls_past_peak"]


def test_conditions_texts():
    payload = conditions_payload()
    x = conditions.summarize(payload)["texts"]
    assert x["val_own_gap"] == pytest.approx(0.03)  # the MTP head's 0.77 against 0.8, larger than the draft's 0.02
    assert x["val_own_bound"] == pytest.approx(0.035)
    assert x["draft_rises_on_repetitive"] and x["lookup_drafts_more_on_val"]
    drafters = payload["by_text"]
    drafters["val"]["T1"]["drafters"]["eagle"]["alpha"] = 0.9          # a larger gap, the other way
    drafters["repetitive"]["T1"]["drafters"]["draft"]["alpha"] = 0.6
    drafters["val"]["T1"]["drafters"]["lookup"]["coverage"] = 0.1
    x = conditions.summarize(payload)["texts"]
    assert x["val_own_gap"] == pytest.approx(0.1) and x["val_own_bound"] == pytest.approx(0.105)
    assert not x["draft_rises_on_repetitive"] and not x["lookup_drafts_more_on_val"]


def test_conditions_lengths_and_pay_back():
    payload = conditions_payload()
    lengths = conditions.summarize(payload)["lengths"]
    assert (lengths["shortest"], lengths["longest"]) == (8, 600)
    assert lengths["per_char_s"] == pytest.approx({"plain": 1e-3, "ngram": 0.5e-3})
    assert lengths["plain_per_char_s"] == pytest.approx({"8": 1e-3, "600": 1e-3})
    assert lengths["ngram_table"] == pytest.approx({"saves_per_char_s": 0.5e-3, "pays_back_after_chars": 500})
    for r in payload["by_length"]:  # at the longest output the chain saves nothing: no pay-back
        if r["family"] == "ngram" and r["n_chars"] == 600:
            r["wall_s"]["median"] = 0.7
    assert conditions.summarize(payload)["lengths"]["ngram_table"] is None


def test_conditions_cells_slower_than_plain():
    payload = conditions_payload()
    assert conditions.summarize(payload)["lengths"]["slower_than_plain"] == {"8": [], "600": []}
    for r in payload["by_length"]:
        if r["family"] == "ngram":
            r["speedup"] = 0.99 if r["n_chars"] == 8 else 0.996  # the second prints 1.00×: not slower
    assert conditions.summarize(payload)["lengths"]["slower_than_plain"] == {"8": ["ngram"], "600": []}


# costs.json


def costs_payload(eager_curve, compiled_curve=None):
    engines = {"eager": {"over_main": eager_curve}}
    if compiled_curve:
        engines["compiled"] = {"over_main": compiled_curve}
    return {"positions": [int(n) for n in eager_curve], "engines": engines}


def test_costs_flat_start_and_primary_engine():
    steep = {"1": 1.0, "2": 1.3, "4": 1.9, "64": 6.0}          # JSON's string keys
    flat = {1: 1.0, 2: 1.05, 4: 1.12, 64: 5.0}                 # measure's int keys
    s = costs.summarize(costs_payload(steep, flat))
    assert s["primary_engine"] == "compiled"
    assert (s["eager"]["flat_until"], s["eager"]["flat_start"]) == (1, False)
    assert (s["compiled"]["flat_until"], s["compiled"]["flat_start"]) == (4, True)
    assert (s["flat_until_max"], s["flat_start"]) == (4, True)
    assert s["eager"]["over_main_last"] == 6.0 and s["eager"]["flat_slack"] == 0.15
    declared("costs.json", s)
    s = costs.summarize(costs_payload(steep))
    assert (s["primary_engine"], s["flat_until_max"], s["flat_start"]) == ("eager", 1, False)
    declared("costs.json", s)


# families.json


def runs(speedup, spread=0.05, n=5):
    """Paired repeats ±spread around a median (the verdict rule reads their min and max)."""
    return {"median": speedup, "min": (1 - spread) * speedup, "max": (1 + spread) * speedup, "n": n}


def frow(family, temperature, speedup, engine="compiled", shape="chain", size=2, tokens=2.0, verify=1.5,
         drafting=0.1, other=0.2, **extra):
    return {"family": family, "temperature": temperature, "speedup": speedup, "speedup_runs": runs(speedup),
            "engine": engine, "shape": shape, "size": size, "tokens_per_main": tokens, "verify_over_main": verify,
            "drafter_per_round": drafting, "other_per_round": other, "plain_per_char": 1.05,
            "round_total": verify + drafting + (other or 0), **extra}


def retime(row, speedup, spread=0.05):
    """A row given another median, its paired repeats moved with it."""
    row.update(speedup=speedup, speedup_runs=runs(speedup, spread))


def families_payload():
    rows = [frow("plain", t, 1.0, other=0.05) for t in (1.0, 0.0)]
    rows += [frow("ngram", 1.0, 1.6, size=5, tokens=3.0, verify=1.9, drafting=0.01, other=0.3),
             frow("draft", 1.0, 0.9, size=3, tokens=2.5, verify=0.8, drafting=0.9, other=0.4),
             frow("lookahead", 1.0, 0.7, shape="tree", size=4, tokens=1.2, verify=1.5, drafting=0.1, other=0.2),
             frow("ngram", 0.0, 1.3), frow("lookup", 0.0, 1.8, size=7), frow("draft", 0.0, 1.1),
             frow("ngram", 1.0, 9.0, engine="eager")]  # another engine's rows never count
    sweep = [frow("ngram", 1.0, s, shape=shape, size=n, tokens=k, verify=v)
             for s, shape, n, k, v in [(1.2, "chain", 3, 3.0, 1.5), (1.6, "chain", 5, 3.5, 1.9),
                                       (1.1, "chain", 8, 3.9, 2.6), (1.0, "tree", 4, 2.5, 1.6),
                                       (0.6, "tree", 32, 3.3, 4.0)]]
    sweep += [frow("ngram", 0.0, 1.3, greedy_equal=True), frow("lookup", 0.0, 1.8, greedy_equal=False),
              frow("ngram", 0.0, 1.2, engine="eager", greedy_equal=True)]
    chain = {k: 1 + 0.1 * (k - 1) for k in range(1, 33)}
    prices = {"chain": {str(k): v for k, v in chain.items()}, "tree": {"4": 1.4, "32": 4.5}}
    return {"engines": ["compiled", "eager"], "rows": rows, "sweep": sweep,
            "verify_prices": {"compiled": prices, "eager": prices},
            "alpha_by_seed": {s: {f: {"alpha": a + 0.01 * int(s)} for f, a in
                                  (("draft", 0.74), ("mtp", 0.86), ("medusa", 0.48), ("eagle", 0.84))}
                              for s in ("0", "1", "2")},
            "costs": {"main_params": 1000, "ngram": {"bytes": 10_000}}}


def test_families_schema():
    declared("families.json", families.summarize(families_payload()))


def test_families_fastest_rows_and_the_round():
    payload = families_payload()
    s = families.summarize(payload)
    assert s["fastest"]["T1"] == {"family": "ngram", "shape": "chain", "size": 5, "speedup": 1.6}
    assert s["fastest"]["T0"]["family"] == "lookup"
    r = s["fastest_round"]
    assert r["total"] == pytest.approx(1.9 + 0.01 + 0.3) and r["plain_per_char"] == pytest.approx(1.05)
    assert r["speedup_from_parts"] == pytest.approx(3.0 * 1.05 / 2.21) and r["verify_biggest"]
    payload["rows"][2].update(speedup=0.5, verify_over_main=0.3)  # the n-gram row slows down: the draft model wins
    s = families.summarize(payload)
    assert s["fastest"]["T1"]["family"] == "draft"
    assert s["fastest_round"]["total"] == pytest.approx(2.1) and not s["fastest_round"]["verify_biggest"]
    payload["rows"][3]["other_per_round"] = None  # not taken apart: no round to print
    assert "fastest_round" not in families.summarize(payload)


def test_families_rows_slower_than_plain():
    payload = families_payload()
    sp = families.summarize(payload)["slower_than_plain"]
    assert (sp["temperature"], sp["rows"], sp["families"], sp["unclear"]) == (1.0, 3, ["draft", "lookahead"], [])
    retime(payload["rows"][3], 0.98)  # the draft model's repeats now straddle 1x: not slower, not faster
    sp = families.summarize(payload)["slower_than_plain"]
    assert (sp["families"], sp["unclear"]) == (["lookahead"], ["draft"])
    payload = families_payload()
    assert sp["slowest"]["family"] == "lookahead" and sp["slowest"]["round_total"] == pytest.approx(1.8)
    assert (sp["slowest"]["shape"], sp["slowest"]["size"], sp["slowest"]["tokens_per_main"]) == ("tree", 4, 1.2)
    payload["rows"][3]["speedup"] = 0.5  # the draft model becomes the slowest
    sp = families.summarize(payload)["slower_than_plain"]
    assert sp["slowest"]["family"] == "draft" and sp["slowest"]["round_total"] == pytest.approx(2.1)


def test_families_sweep_shapes():
    payload = families_payload()
    ss = families.summarize(payload)["sweep_shapes"]
    assert (ss["family"], ss["temperature"]) == ("ngram", 1.0)
    assert ss["chain"]["fastest"] == {"family": "ngram", "shape": "chain", "size": 5, "speedup": 1.6,
                                      "verify_over_main": 1.9}
    assert ss["chain"]["most_tokens"] == {"family": "ngram", "shape": "chain", "size": 8, "tokens_per_main": 3.9}
    assert (ss["tree"]["fastest"]["size"], ss["tree"]["most_tokens"]["size"]) == (4, 32)
    assert ss["tree_gets_fewer"]
    payload["sweep"][4]["tokens_per_main"] = 4.5  # the 32-node tree now emits the most
    assert not families.summarize(payload)["sweep_shapes"]["tree_gets_fewer"]
    payload["sweep"] = [r for r in payload["sweep"] if r["shape"] == "chain"]  # no tree swept: nothing to compare
    assert "sweep_shapes" not in families.summarize(payload)


def test_families_seed_range_memory_and_greedy():
    payload = families_payload()
    s = families.summarize(payload)
    assert s["alpha_seed_range"]["mtp"] == pytest.approx({"min": 0.86, "max": 0.88})
    assert sorted(s["alpha_seed_range"]) == ["draft", "eagle", "medusa", "mtp"]
    assert s["memory"] == {"main_bytes": 4000, "ngram_over_main": 2.5}
    assert s["greedy_check"] == {"configurations": 3, "identical": 2, "all_identical": False}
    payload["alpha_by_seed"] = {"0": payload["alpha_by_seed"]["0"]}  # one model seed: no range
    payload["sweep"][6]["greedy_equal"] = True
    s = families.summarize(payload)
    assert s["alpha_seed_range"] == {}
    assert s["greedy_check"]["all_identical"]


def test_families_fastest_verify_only_where_its_forward_was_priced():
    payload = families_payload()
    assert families.summarize(payload)["fastest_verify"]["positions"] == 6  # the n-gram chain, γ = 5
    payload["rows"][2]["size"] = 40  # a verify of 41 positions: longer than any timed back to back
    assert "fastest_verify" not in families.summarize(payload)


def test_drafting_is_priced_for_the_trained_drafters_that_reach_every_gamma():
    head = lambda most: SimpleNamespace(max_drafts=most)  # noqa: E731
    models = SimpleNamespace(heads={"eagle": head(None), "medusa": head(3), "block": head(8), "eagle3": head(None)})
    assert families.drafting_families(models, range(1, 9)) == ["eagle", "block", "eagle3"]
    assert families.drafting_families(models, (1, 2)) == ["eagle", "medusa", "block", "eagle3"]


def test_families_recent_against_the_rest():
    payload = families_payload()
    assert families.summarize(payload)["recent"] is None  # no 2025–26 family measured: nothing to say
    payload["rows"] += [frow("suffix", 1.0, 1.4, size=8, tokens=3.4), frow("block", 1.0, 1.2, size=4),
                        frow("suffix", 1.0, 2.0, engine="eager"), frow("eagle3", 0.0, 2.5)]  # other lanes never count
    payload["drafting_prices"] = {"compiled": {"eagle3": {"2": 0.8, "1": 0.4}, "block": {"1": 0.3, "2": 0.3},
                                               "eagle": {"1": 0.5}},
                                  "eager": {"eagle3": {"3": 9.0}}}  # JSON keys: γ as strings; another engine's
    declared("families.json", families.summarize(payload))
    r = families.summarize(payload)["recent"]
    assert (r["best_new"]["family"], r["best_old"]["family"], r["new_is_faster"]) == ("suffix", "ngram", False)
    assert r["best_new"]["tokens_per_main"] == 3.4 and r["best_old"]["speedup"] == 1.6
    assert r["drafting"]["eagle3"] == [{"size": 1, "drafter_per_round": 0.4}, {"size": 2, "drafter_per_round": 0.8}]
    assert [d["size"] for d in r["drafting"]["block"]] == [1, 2] and len(r["drafting"]["eagle"]) == 1
    # each new family's fastest row, taken apart against plain's 1 + 0.05 per character
    assert sorted(r["each_new"]) == ["block", "suffix"] and r["each_new"]["block"]["speedup"] == 1.2
    assert r["all_new_slower_than_plain"] is False and r["plain_per_char"] == pytest.approx(1.05)
    assert (r["best_old"]["verify_over_main"], r["best_old"]["other_per_round"]) == (1.9, 0.3)  # the n-gram row's parts
    retime(payload["rows"][-4], 0.9)  # both new rows of the lane now slower than plain in every repeat
    retime(payload["rows"][-3], 0.8)
    assert families.summarize(payload)["recent"]["all_new_slower_than_plain"] is True
    retime(payload["rows"][-3], 0.8, spread=0.3)  # ...unless one's repeats reach past 1x
    assert families.summarize(payload)["recent"]["all_new_slower_than_plain"] is False
    retime(payload["rows"][-4], 1.4)
    retime(payload["rows"][-3], 1.7)  # the block row now beats the n-gram table's
    r = families.summarize(payload)["recent"]
    assert (r["best_new"]["family"], r["new_is_faster"]) == ("block", True)


# ledger.json and gamma_sweep.json


def lrow(method, mode, gamma=0, main_forwards=600, speedup=1.0, main_s=0.3, draft_s=0.0, other_s=0.1,
         engine="eager", theory=None, median_run_forwards=None):
    """main_forwards: the mean over the repeats; median_run_forwards: the median-wall run's own count,
    which parts_s was timed over (the same unless given)."""
    return {"method": method, "mode": mode, "gamma": gamma, "engine": engine, "main_forwards": main_forwards,
            "speedup": speedup, "speedup_theory": theory,
            "parts_s": {"main_forwards": main_s, "draft_forwards": draft_s, "other": other_s},
            "parts_main_forwards": median_run_forwards or main_forwards}


def ledger_payload():
    rows = [lrow("plain", mode) for mode in ("kvcache", "recompute")]
    rows += [lrow("draft", "kvcache", 8, 170, 1.1, draft_s=0.2), lrow("mtp", "kvcache", 1, 340, 1.3, draft_s=0.1),
             lrow("draft", "recompute", 3, 250, 1.8)]
    greedy = [{"method": "draft", "mode": "kvcache", "gamma": 8, "equal": True},
              {"method": "draft", "mode": "recompute", "gamma": 3, "equal": True, "first_mismatch": None}]
    compiled = [lrow("plain", "kvcache", main_s=0.12, engine="compiled"),
                lrow("draft", "kvcache", 3, 250, 1.2, main_s=0.075, engine="compiled", theory=1.5, median_run_forwards=240)]
    peer_rows = [{"method": "plain", "main_forwards": 600, "parts_main_forwards": 600,
                  "parts_s": {"main_forwards": 0.48, "other": 0.066}}]
    return {"rows": rows, "greedy_check": greedy, "gamma_max": 8,
            "forward_costs": {"recompute": {"verify_over_main": {8: 1.1}}},  # measure's int keys
            "compiled": {"rows": compiled, "fastest": {"method": "draft", "gamma": 3, "speedup": 1.2},
                         "forward_costs": {"verify_over_main_spread": {
                             3: {"median": 1.3, "min": 1.2, "max": 1.4, "n": 7}}},  # rₖ at k = γ + 1 = 4
                         "greedy_check": [{"equal": True}, {"equal": False}]},
            "peer": {"check": {"greedy_first_mismatch": {"plain": None, "assisted": None, "lookup": 12}},
                     "rows": peer_rows}}


def test_ledger_schema():
    payload = ledger_payload()
    declared("ledger.json", ledger.ledger_summary(payload))
    del payload["compiled"], payload["peer"]
    s = ledger.ledger_summary(payload)
    declared("ledger.json", s)
    assert "compiled" not in s and "peer" not in s


def test_ledger_greedy_drafts_and_recompute_verify():
    payload = ledger_payload()
    s = ledger.ledger_summary(payload)
    assert s["fewest_main_forwards"]["method"] == "draft"
    assert s["fewest_main_forwards"]["draft_over_plain_forwards"] == pytest.approx(0.2 / 0.3)
    assert not s["fewest_main_forwards"]["drafts_exceed_plain_forwards"]
    assert s["greedy_all_equal"] and s["recompute_verify_flat"]
    payload["rows"][2]["parts_s"]["draft_forwards"] = 0.4
    payload["greedy_check"][1]["equal"] = False
    payload["forward_costs"]["recompute"]["verify_over_main"] = {"8": 1.2}  # JSON's string keys
    s = ledger.ledger_summary(payload)
    assert s["fewest_main_forwards"]["drafts_exceed_plain_forwards"]
    assert not s["greedy_all_equal"] and not s["recompute_verify_flat"]


def test_ledger_compiled():
    payload = ledger_payload()
    c = ledger.ledger_summary(payload)["compiled"]
    assert c["beats_plain"] and c["helps_less_than_eager"] and c["below_theory"]  # 1.2 < eager's 1.3 < 1.5
    # the median run's seconds over that run's own 240 forwards (not the mean count, 250), as
    # rows.timed_row prices the same run for the families' ledger
    assert c["verify_s"] == pytest.approx(0.075 / 240) and c["plain_s"] == pytest.approx(0.12 / 600)
    assert c["verify_over_plain"] == pytest.approx(0.075 / 240 / (0.12 / 600))
    assert (c["greedy_equal"], c["greedy_checks"]) == (1, 2)
    # the loop's 1.5625 against the back-to-back repeats of the γ = 3 verify: above all of them ...
    assert c["back_to_back"] == {"median": 1.3, "min": 1.2, "max": 1.4, "n": 7} and c["loop_extra_clear"]
    assert not c["loop_verify_flat"]  # 1.56 one-character forwards: not the one forward Theorem 3.8 assumes
    payload["compiled"]["forward_costs"]["verify_over_main_spread"] = {"3": {"median": 1.5, "min": 1.3, "max": 1.7, "n": 7}}
    assert not ledger.ledger_summary(payload)["compiled"]["loop_extra_clear"]  # ... or within their spread
    payload["compiled"]["fastest"]["speedup"] = 0.9
    payload["compiled"]["rows"][1].update(speedup=0.9, speedup_theory=0.8)
    payload["rows"][2]["speedup"], payload["rows"][3]["speedup"] = 0.8, 0.85  # eager speculation lost too
    c = ledger.ledger_summary(payload)["compiled"]
    assert not c["beats_plain"] and not c["helps_less_than_eager"] and not c["below_theory"]


def test_ledger_peer():
    payload = ledger_payload()
    p = ledger.ledger_summary(payload)["peer"]
    assert p["greedy_identical"] == 2
    assert p["forward_s"] == pytest.approx(0.8e-3) and p["ours_forward_s"] == pytest.approx(0.5e-3)
    assert p["other_s"] == pytest.approx(0.11e-3) and p["ours_other_s"] == pytest.approx(0.1e-3 / 0.6)
    assert p["forward_gap_s"] == pytest.approx(0.3e-3) and p["other_gap_s"] == pytest.approx(0.11e-3 - 0.1e-3 / 0.6)
    assert p["gap_mostly_in_forwards"]
    payload["peer"]["rows"][0]["parts_s"].update(main_forwards=0.31, other=0.5)
    assert not ledger.ledger_summary(payload)["peer"]["gap_mostly_in_forwards"]


def gamma_payload(c_pairs, expected=2.0):
    rows = [{"mode": mode, "gamma": g, "alpha": 0.7, "tokens_per_main": 1.9, "tokens_per_main_expected": expected,
             "speedup": 1.0, "speedup_theory": 1.2} for mode in ("kvcache", "recompute") for g in (1, 2)]
    return {"rows": rows, "forward_costs": {mode: {"c_pair": pair} for mode, pair in c_pairs.items()}}


def test_gamma_all_below_and_c_with_cache():
    larger = {"kvcache": {"draft": 0.44, "main": 2.0}, "recompute": {"draft": 1.1, "main": 5.5}}
    s = ledger.gamma_summary(gamma_payload(larger))
    declared("gamma_sweep.json", s)
    assert s["all_below_expected_tokens"] and s["c_with_cache"] == "larger"
    payload = gamma_payload({"kvcache": {"draft": 0.2, "main": 2.0}, "recompute": {"draft": 1.1, "main": 5.5}})
    payload["rows"][0]["tokens_per_main"] = 2.1
    s = ledger.gamma_summary(payload)
    assert not s["all_below_expected_tokens"] and s["c_with_cache"] == "smaller"
    same = {"kvcache": {"draft": 0.5, "main": 2.0}, "recompute": {"draft": 1.0, "main": 4.0}}
    assert ledger.gamma_summary(gamma_payload(same))["c_with_cache"] == "same"


# exercises.json


def test_exercises_gamma_theory_agrees():
    payload = {"gamma": {"measured": {"theory_gamma": 3, "measured_gamma": 1}}}
    s = exercises.summarize(payload)
    declared("exercises.json", s)
    assert s == {"gamma_theory_agrees": False}
    agreeing = copy.deepcopy(payload)
    agreeing["gamma"]["measured"]["measured_gamma"] = 3
    assert exercises.summarize(agreeing)["gamma_theory_agrees"]


# the committed results carry what summarize writes


@pytest.mark.parametrize("filename, summarize", [
    ("conditions.json", conditions.summarize), ("costs.json", costs.summarize),
    ("families.json", families.summarize), ("exercises.json", exercises.summarize),
    ("ledger.json", ledger.ledger_summary), ("gamma_sweep.json", ledger.gamma_summary),
    ("regime.json", regime.summarize)])
def test_committed_summaries_are_what_summarize_writes(filename, summarize):
    import orjson
    payload = orjson.loads((ROOT / "experiments/results" / filename).read_bytes())
    assert summarize(payload) == payload["summary"]


def test_the_dial_calls_a_row_faster_only_when_every_paired_repeat_is():
    row = lambda lo, hi: {"speedup_runs": {"median": (lo + hi) / 2, "min": lo, "max": hi, "n": 5}}
    assert [regime.separated(row(*r)) for r in [(1.02, 1.4), (0.7, 0.98), (0.9, 1.3), (1.0, 1.2)]] == [
        "faster", "slower", "unclear", "unclear"]
    point = lambda scale, lo, hi: {"scale": scale, "main_bytes": scale, "r": {"5": 1.0},
                                   "best": {"T1": [{"family": "ngram", "shape": "chain", "size": 5, "speedup": 1.0,
                                                    **row(lo, hi)}]}}
    payload = {"points": [point(1, 0.8, 1.1), point(4, 1.1, 1.5), point(16, 1.5, 2.0)],
               "roofline": {"cache_edge_mb": 32}}
    s = regime.summarize(payload)
    assert s["T1"]["verdicts"] == {"ngram": "faster"} and s["T1"]["fastest"]["verdict"] == "faster"
    assert s["heaviest"]["scale"] == 16 and s["cache_edge_bytes"] == 32 * 2 ** 20
