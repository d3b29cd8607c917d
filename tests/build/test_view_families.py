"""chapter/views/families.py: what ⑤ and its deep dives print, from hand-made rows and from the committed results."""
import copy
import re

import orjson
import pytest

from chapter import build
from chapter.views import families
from chapter.views.dial import lead_families
from chapter.views.rows import find_row


def timed(family, engine="native", temperature=1.0, size=3, verify=1.256, draft=0.124, rest=0.333, chars=2.004, plain=1.116):
    """A timed row whose median run wrote `chars` characters a main forward (its parts' speedup says so)."""
    total = verify + draft + rest
    return {"family": family, "engine": engine, "temperature": temperature, "shape": "chain", "size": size,
            "verify_over_main": verify, "drafter_per_round": draft, "other_per_round": rest, "tokens_per_main": chars,
            "round_total": total, "plain_per_char": plain, "speedup_from_parts": chars * plain / total}


def test_a_round_is_summed_and_divided_as_its_parts_are_printed():
    row = timed("draft")  # printed: 1.26 + 0.12 + 0.33 = 1.71; 2.00 characters; plain 1.12 a character
    assert families.printed_total(row) == pytest.approx(1.71)
    assert families.speedup_from_printed(2.004, row, 1.116) == pytest.approx(2.0 * 1.12 / 1.71)
    assert families.speedup_from_printed(2.004, row, 1.116) != pytest.approx(2.004 * 1.116 / (1.256 + 0.124 + 0.333))
    apart = families.taken_apart(row, 1.116, chars=row["size"] + 1)
    assert apart["chars"] == 4 and apart["from_parts"] == pytest.approx(4 * 1.12 / 1.71)


def test_a_gap_is_printed_only_where_the_printed_figures_differ():
    assert families.printed_gap(1.214, 1.206) is None  # a > b, but both print 1.21
    assert families.printed_gap(1.216, 1.204) == pytest.approx(0.02)
    assert families.printed_gap(1.20, 1.30) is None


def test_best_rows_keep_each_familys_first_row_on_the_engine_and_temperature():
    rows = [timed("plain"), timed("draft", size=5), timed("draft", size=2), timed("ngram", engine="eager"),
            timed("ngram", temperature=0.0), timed("mtp")]
    best = families.best_rows(rows, "native", 1.0)
    assert list(best) == ["draft", "mtp"] and best["draft"]["size"] == 5
    assert find_row(rows, engine="native", temperature=1.0, family="plain") is rows[0]
    assert list(families.best_rows(rows, "native", 0.0)) == ["ngram"]


def test_the_training_cell_names_minutes_or_words():
    run = {"train_wall_s": 90}
    assert families.training({"source": "draft"}, {}, run) == {"words": None, "minutes": 1.5, "main_frozen": False}
    assert families.training({"source": "heads"}, {"train_wall_s": 30}, run)["main_frozen"] is True
    words = {"zh": "无", "en": "none"}
    assert families.training({"source": "draft", "training": words}, {}, run)["words"] == words
    assert families.training({"source": "context"}, {}, run)["minutes"] is None


def test_eagle3_gains_on_eagle_deep_in_the_chain_only_where_the_printed_alphas_say_so():
    deep = families.depth_view({"depth": 3, "window": 64, "stride": 4, "T1": {
        "eagle": [0.85, 0.80, 0.78], "eagle3": [0.86, 0.85, 0.84], "block": [0.77, 0.40, 0.30]}})
    assert deep["eagle3_above"] == pytest.approx(0.06) and deep["eagle3_loses_less"]
    assert (deep["block"]["first"], deep["block"]["last"]) == (0.77, 0.30)
    level = families.depth_view({"depth": 2, "window": 64, "stride": 4, "T1": {
        "eagle": [0.85, 0.781], "eagle3": [0.90, 0.779], "block": [0.7, 0.3]}})
    assert level["eagle3_above"] is None and not level["eagle3_loses_less"]


def recent_summary():
    drafting = {"eagle3": [{"size": 1, "drafter_per_round": 0.3}, {"size": 4, "drafter_per_round": 1.2}],
                "block": [{"size": 1, "drafter_per_round": 0.5}, {"size": 4, "drafter_per_round": 0.55}]}
    return {"recent": {"plain_per_char": 1.116, "all_new_slower_than_plain": True, "drafting": drafting,
                       "best_old": timed("ngram"), "each_new": {"suffix": timed("suffix"), "block": timed("block", size=4),
                                                                 "eagle3": timed("eagle3", size=2)}}}



def test_the_recent_drafters_are_taken_apart_beside_the_fastest_older_family():
    alpha = {"eagle3": {"alpha": 0.86}, "mtp": {"alpha": 0.86}, "lookahead": {"alpha": None}}
    recent = families.recent_view(recent_summary(), alpha)
    assert [a["row"]["family"] for a in recent["taken_apart"]] == ["ngram", "suffix"]
    assert recent["plain_rest"] == pytest.approx(0.116)
    assert recent["eagle3"]["all_pass"]["chars"] == 3
    assert recent["eagle3"]["alpha_highest"]  # a tie goes to the first family with that α
    assert recent["block"]["one_call"]["size"] == 1 and recent["block"]["back_to_back"]["drafter_per_round"] == 0.55
    assert recent["drafting"]["eagle3"]["last"]["size"] == 4
    assert not families.recent_view(recent_summary(), {"mtp": {"alpha": 0.9}, "eagle3": {"alpha": 0.86}})["eagle3"]["alpha_highest"]
    assert families.recent_view({}, alpha) is None


def test_the_view_of_the_committed_results(page_data):
    before = orjson.dumps(page_data)
    v = families.view(page_data)
    assert orjson.dumps(page_data) == before, "a view never changes the data the scripts receive"
    fa, summary = page_data["families"], page_data["families"]["summary"]
    assert [m["family"] for m in v["map"]] == fa["families"] and v["n_families"] == len(fa["families"])
    # the main path's map: the dial's lines, one family of each kind, in the map's order; the fold the rest
    shown = [m["family"] for m in v["map_shown"]]
    assert set(shown) == set(lead_families(page_data)) and shown == [f for f in fa["families"] if f in shown]
    assert len({m["group"] for m in v["map_shown"]}) == len(shown) == v["n_shown"]
    assert [m["family"] for m in v["map_more"]] == [f for f in fa["families"] if f not in shown] and v["n_more"] == len(v["map_more"])
    # the sentences under the map quote only rows on show
    assert {m["family"] for m in v["alpha_not_enough"]["rows"]} <= set(shown)
    assert v["lookups_dearer"]["family"] in shown
    for key, temperature in (("T1", 1.0), ("T0", 0.0)):
        row = v["fastest"][key]
        assert (row["family"], row["size"], row["temperature"]) == (
            summary["fastest"][key]["family"], summary["fastest"][key]["size"], temperature)
    assert v["same_fastest"] == (summary["fastest"]["T1"]["family"] == summary["fastest"]["T0"]["family"])
    lookup = next(m for m in v["map"] if m["family"] == "lookup")
    assert lookup["coverage"] == fa["alpha"]["T1"]["lookup"]["coverage"] < 1  # one-hot, drafting at some positions
    assert next(m for m in v["map"] if m["family"] == "suffix")["coverage"] is None  # one-hot, but everywhere
    ngram = next(m for m in v["map"] if m["family"] == "ngram")
    assert ngram["entries"] == fa["costs"]["ngram"]["entries"] and ngram["index_mb"] is None
    # the page's sum of printed parts lands within rounding of the results' own speedup from parts
    assert v["fastest_round"]["from_parts"] == pytest.approx(summary["fastest_round"]["speedup_from_parts"], abs=0.02)
    heavy = page_data["regime"]["points"][-1]
    assert v["ngram_faq"]["heavy"]["draft"] in heavy["best"]["T1"] and v["ngram_faq"]["heavy_mb"] == heavy["main_bytes"] / 1e6
    assert v["zh_starts_latin"]["ngram"] and not v["zh_starts_latin"]["draft"]
    assert v["engine_label"]["en"] == "native C++ engine"


def test_the_view_drops_a_missing_heavy_row_and_a_missing_sweep(page_data):
    data = copy.deepcopy(page_data)
    heavy = data["regime"]["points"][-1]
    heavy["best"]["T1"] = [r for r in heavy["best"]["T1"] if r["family"] != "ngram"]
    del data["families"]["summary"]["sweep_shapes"], data["families"]["summary"]["tree_verify"]
    v = families.view(data)
    assert v["ngram_faq"]["heavy"] is None and v["sweep"] is None and v["tree_price"] is None


TEMPLATES = ("sections/families.html.j2", "deep/trees.html.j2", "deep/heads.html.j2", "deep/recent.html.j2")


@pytest.mark.parametrize("name", TEMPLATES)
def test_the_families_templates_only_format(name):
    """Row selection, counting and rounding arithmetic live in the view: each template reads view.families once."""
    text = (build.ROOT / "templates" / name).read_text(encoding="utf-8")
    assert len(re.findall(r"\{%-? *set ", text)) == 1 and "set v = view.families" in text
    for logic in ("selectattr", "rejectattr", "| length", "| round", "| max", "| min", "| sum", "| map", "data.", "registry."):
        assert logic not in text, f"{name}: {logic}"


def test_a_high_alpha_that_drafting_does_not_repay_is_named_highest_first():
    """⑤'s sentence under the map: the families whose α beats the fastest family's yet which are slower than
    plain decoding in every paired repeat, highest α first, at most two; none where no such family exists."""
    def row(family, alpha, verdict):
        return {"family": family, "alpha": alpha, "chars": 2.0,
                "T1": {"verdict": verdict, "drafter_per_round": 0.5, "shape": "chain", "size": 1}}
    rows = [row("draft", 0.74, "faster"), row("mtp", 0.86, "slower"), row("eagle", 0.85, "unclear"),
            row("eagle3", 0.87, "slower"), row("medusa", 0.80, "slower"), row("ngram", None, "faster")]
    slow = families.alpha_not_enough(rows, "draft")
    assert slow["bar"]["family"] == "draft" and slow["several"]
    assert [m["family"] for m in slow["rows"]] == ["eagle3", "mtp"]  # eagle's repeats cannot tell; medusa is third
    assert [m["family"] for m in families.alpha_not_enough(rows, "draft", most=5)["rows"]] == ["eagle3", "mtp", "medusa"]
    assert families.alpha_not_enough(rows, "eagle3") is None  # nothing beats the highest α
    assert families.alpha_not_enough(rows, "ngram") is None  # the fastest has no α to beat
    # "drafting costs them more a round" only where every named row's round costs more than the fastest's
    assert not slow["dearer_round"]  # 0.5 a round each, as the fastest's
    assert not slow["shorter_round"]  # 2.0 characters a main forward each, as the fastest's
    assert slow["same_size"]  # both γ = 1: the sentence names the size once
    assert slow["one_draft"]  # a chain of one: its yield is 1 + α while decoding, which the sentence says
    rows[0]["T1"]["drafter_per_round"] = 0.3
    assert families.alpha_not_enough(rows, "draft")["dearer_round"]
    # "their rounds are shorter" only where every named row yields fewer characters a main forward than the fastest
    rows[0]["chars"] = 2.5
    assert families.alpha_not_enough(rows, "draft")["shorter_round"]
    rows[1]["chars"] = 2.6  # the MTP head's rounds are longer than the fastest's
    assert not families.alpha_not_enough(rows, "draft")["shorter_round"]
    rows[3]["T1"]["size"] = 2  # EAGLE-3 now drafts 2 a round, the MTP head 1
    assert not families.alpha_not_enough(rows, "draft")["same_size"]
    assert not families.alpha_not_enough(rows, "draft")["one_draft"]


def test_two_alphas_that_print_alike_are_told_apart_only_when_they_do():
    """③'s α while decoding is named beside ⑤'s teacher-forced α of the draft model only when the two print
    as one figure (three decimals): a coincidence a reader would otherwise take for one quantity."""
    rows = [{"family": "ngram", "alpha": 0.7401}, {"family": "draft", "alpha": 0.7404}]
    assert families.alpha_twin(rows, 0.7396) == 0.7396  # both print 0.740
    assert families.alpha_twin(rows, 0.7406) is None  # 0.741 against 0.740
    assert families.alpha_twin([{"family": "draft", "alpha": None}], 0.74) is None


def test_the_runner_up_is_named_level_only_where_the_paired_ranges_overlap():
    """⑤ calls the runner-up level with the fastest where their paired ranges overlap, as ⑥'s box does."""
    def row(family, speedup, lo, hi):
        return {"family": family, "speedup": speedup, "speedup_runs": {"min": lo, "max": hi, "n": 7}}
    draft, ngram, mtp = row("draft", 1.53, 1.37, 1.80), row("ngram", 1.52, 1.41, 1.56), row("mtp", 0.87, 0.84, 0.94)
    assert families.level_with(draft, [mtp, draft, ngram]) is ngram
    assert families.level_with(draft, [mtp, draft]) is None  # clearly ahead of the next
    assert families.level_with(draft, [draft]) is None


def test_a_table_whose_python_lookups_cost_more_than_the_draft_models_round_is_named_on_the_native_engine():
    """⑤'s sentence on lookups: on the native engine (the draft model's round in one C++ call), the first table
    drafter in the map's order whose drafting a round costs more than the draft model's; none elsewhere."""
    def row(family, group, drafting):
        return {"family": family, "group": group, "T1": {"drafter_per_round": drafting}}
    rows = [row("draft", "model", 0.34), row("ngram", "table", 0.48), row("lookup", "table", 0.15),
            row("medusa", "head", 0.57), row("suffix", "table", 1.12)]
    dear = families.lookups_dearer(rows, "native")
    assert dear is rows[1]  # the n-gram table: the first dearer table, in the map's order
    assert families.lookups_dearer([rows[0], *rows[2:]], "native")["family"] == "suffix"
    assert families.lookups_dearer(rows, "compiled") is None  # the claim is about the native engine's C++ round
    assert families.lookups_dearer([row("draft", "model", 2.0), *rows[1:]], "native") is None  # no table dearer
    assert families.lookups_dearer(rows[1:], "native") is None  # no draft model to compare with


@pytest.mark.parametrize("cost, free", [(0.001, True), (50.0, False)])
def test_the_winner_drafts_at_next_to_no_cost_only_where_its_drafting_is_not_dearer_than_the_draft_models(page_data, cost, free):
    """⑤ says the fastest family "wins by drafting at next to no cost" only for a table or the context whose
    drafting a round costs no more than the draft model's (a dearer lookup is what the note on drafting prices names)."""
    data = copy.deepcopy(page_data)
    fa = data["families"]
    engine, winner = fa["summary"]["primary_engine"], fa["summary"]["fastest"]["T1"]["family"]
    source = next(f["source"] for f in data["registry"]["families"] if f["name"] == winner)
    row = families.best_rows(fa["rows"], engine, 1.0)[winner]
    row["drafter_per_round"] = cost
    v = families.view(data)
    assert v["fastest_drafts_free"] is (free and source in ("corpus", "context") and engine == "native"
                                        or (source in ("corpus", "context") and engine != "native"))


def test_the_draft_rounds_one_call_is_set_beside_gamma_cs_only_where_it_costs_less():
    """⑤'s note on drafting prices sets ③'s c (one draft forward a call) times γ beside the draft model's
    one-call round, where ③ timed the same engine, the round is a chain and γ·c (at c as printed) exceeds it."""
    draft = {"family": "draft", "shape": "chain", "size": 3, "drafter_per_round": 0.387}
    data = {"gamma_sweep": {"engines": {"kvcache": "native"}, "c": {"kvcache": 0.20234}}}
    u = families.round_under_c(draft, data, "native")
    assert (u["c"], u["gamma"]) == (0.202, 3) and u["calls"] == pytest.approx(0.606)  # 3 × 0.202 as printed
    assert u["round"] == 0.387 and u["in_cpp"]  # the native engine's one call is C++
    assert families.round_under_c(draft, data, "compiled") is None  # ③ timed the native engine
    data["gamma_sweep"]["engines"]["kvcache"] = "compiled"
    assert not families.round_under_c(draft, data, "compiled")["in_cpp"]  # one call, but a compiled graph
    data["gamma_sweep"]["engines"]["kvcache"] = "native"
    assert families.round_under_c(None, data, "native") is None
    draft["drafter_per_round"] = 0.7  # the round costs more than three calls would
    assert families.round_under_c(draft, data, "native") is None
    draft.update(drafter_per_round=0.387, shape="tree")
    assert families.round_under_c(draft, data, "native") is None


def test_the_quiz_asks_why_the_table_pulls_ahead_only_where_its_longer_chain_clearly_wins():
    """The closing quiz's question on the heaviest twin answers "its near-free drafting affords a longer chain":
    asked only where the table's paired range is clear of the draft model's, and its chain longer and richer."""
    def row(speedup, low, high, size, chars, shape="chain"):  # chars in the median run: its parts' speedup × round ÷ plain
        return {"speedup": speedup, "speedup_runs": {"min": low, "max": high}, "size": size, "shape": shape,
                "speedup_from_parts": speedup, "round_total": chars / speedup, "plain_per_char": 1.0}
    draft = row(1.76, 1.58, 2.27, 2, 2.31)
    assert families.table_ahead(row(2.44, 2.28, 2.88, 5, 3.66), draft)
    assert not families.table_ahead(row(2.44, 2.20, 2.88, 5, 3.66), draft)  # the ranges overlap
    assert not families.table_ahead(row(2.44, 2.28, 2.88, 2, 3.66), draft)  # no longer chain
    assert not families.table_ahead(row(2.44, 2.28, 2.88, 5, 2.20), draft)  # no more characters a forward
    assert not families.table_ahead(row(2.44, 2.28, 2.88, 4, 3.66, shape="tree"), draft)  # a tree's size is no γ
