"""⑦, choosing a method: the tables of its conditions (temperature, kind of text, output length),
the figures its "when not to speculate" list and its exercises quote, and the papers' figures its
picker quotes (published, for the page's scripts)."""
from pathlib import Path

import orjson

from chapter.views.regime import r5_band, r5_falls
from chapter.views.rows import flat_bound, median_run_chars, ranges_overlap

STATIC = Path(__file__).resolve().parents[2] / "static"

# the drafters that draft only where the context has occurred before: their α counts those
# positions alone, so the texts table prints the share of positions they drafted at
PARTIAL_DRAFTERS = ("lookup", "suffix")
VERDICTS = ("faster", "slower", "unclear")  # the order of the clauses of the T = 0 sentence


def published(path=STATIC / "data" / "published.json"):
    """Papers' figures that ⑦'s method picker quotes for a GPU, each with its arXiv id."""
    return orjson.loads(Path(path).read_bytes())


def plain_start_up(conditions):
    """The start-up of a fresh process that decodes plainly (conditions.json start_up)."""
    return next(r for r in conditions["start_up"] if r["family"] == "plain")


def length_row(conditions, n_chars, family):
    """A family's timed row at one output length (conditions.json by_length)."""
    return next(r for r in conditions["by_length"] if r["n_chars"] == n_chars and r["family"] == family)


def at_temperature(conditions, temperature):
    """The conditions run's row at one temperature (by_temperature)."""
    return next(r for r in conditions["by_temperature"] if r["temperature"] == temperature)


def drafters(data):
    """Every family with a first draft (a teacher-forced α), in the registry's order."""
    alpha = data["conditions"]["by_temperature"][0]["alpha"]
    return [f["name"] for f in data["registry"]["families"] if f["name"] in alpha]


def spread(s):
    """A table cell of a mean over texts: the mean, and the lowest and highest single text where
    there was more than one (ranged); the mean is None where the drafter has no figure."""
    return {"mean": s["mean"], "min": s.get("min"), "max": s.get("max"), "ranged": len(s.get("values", [])) > 1}


def temperature_table(data):
    """The temperature table: each drafter's α, and each configuration's characters per main
    forward, one cell a temperature, in the order of the run's temperatures."""
    co = data["conditions"]
    columns = [at_temperature(co, t) for t in co["temperatures"]]
    return {"columns": columns, "colspan": len(columns) + 1,  # the group rows span the drafter column too
            "alpha": [(f, [dict(spread(col["alpha"][f]), temperature=col["temperature"]) for col in columns])
                      for f in drafters(data)],
            "tokens": [(f, c, [spread(col["tokens_per_main"][f]) for col in columns]) for f, c in co["configs"].items()]}


def t0_clauses(data):
    """The T = 0 sentence's clauses: (verdict, the families' rows of temperature_change that had it),
    faster, slower, then unclear, leaving out a verdict no family had."""
    rows = data["families"]["summary"]["temperature_change"]["families"]
    grouped = [(word, [r for r in rows if r["at_T0"] == word]) for word in VERDICTS]
    return [(word, group) for word, group in grouped if group]


def latin_zh_labels(data):
    """The families whose Chinese label starts in Latin letters ("n-gram 表", "MTP 头"): after "和"
    the T = 0 sentence puts a space before such a name."""
    return [f["name"] for f in data["registry"]["families"] if f["label"]["zh"][:1].isascii()]


def temperature_view(data):
    """The temperature deep dive's figures: the draft model's α and characters per forward at
    T = 0, and whether the texts are ⑤'s (so the T = 1 column is ⑤'s α)."""
    co, fa = data["conditions"], data["families"]
    greedy = at_temperature(co, 0.0)
    summary = co["summary"]["temperature"]  # conditions.py summarize: the draft model's α and characters per forward
    return {"temperature_table": temperature_table(data), "drafter": summary["drafter"],
            "rises_from_T0": summary["rises_from_T0"], "falls_past_peak": summary["falls_past_peak"],
            "peak": summary["peak_alpha"], "peak_tokens": summary["peak_tokens"], "hottest": summary["highest"],
            "alpha_T0": greedy["alpha"]["draft"]["mean"], "tokens_T0": greedy["tokens_per_main"]["draft"]["mean"],
            "n_text_seeds": len(co["text_seeds"]), "texts_are_families": co["text_seeds"] == fa["alpha_seeds"],
            "t0_engine": fa["summary"]["temperature_change"]["engine"], "t0_clauses": t0_clauses(data),
            "latin_zh_labels": latin_zh_labels(data)}


def texts_table(data):
    """The texts table: each drafter's α at T = 1 and T = 0 on each kind of text, and, for a drafter
    that drafts only where the context recurs, the share of positions it drafted at (else None)."""
    by_text = data["conditions"]["by_text"]

    def cell(f, kind):
        at1, at0 = by_text[kind]["T1"]["drafters"][f], by_text[kind]["T0"]["drafters"][f]
        return {"kind": kind, "T1": at1["alpha"], "T0": at0["alpha"],
                "coverage": at1["coverage"] if f in PARTIAL_DRAFTERS else None}
    return [(f, [cell(f, kind) for kind in data["conditions"]["text_kinds"]]) for f in drafters(data)]


def texts_view(data):
    """The kind-of-text deep dive: its table, and the drafters' rows at T = 1 on each kind the paragraph quotes."""
    co = data["conditions"]
    return {"texts_table": texts_table(data), "texts": co["summary"]["texts"], "val_texts": co["by_text"]["val"]["T1"]["texts"],
            "own": co["by_text"]["own"]["T1"]["drafters"], "rep": co["by_text"]["repetitive"]["T1"]["drafters"],
            "val": co["by_text"]["val"]["T1"]["drafters"]}


def length_table(data):
    """The output-length table: each configuration's speedup at each length, marked slower where
    its ratio of medians is below 1, and plain decoding's milliseconds per character."""
    co, lengths = data["conditions"], data["conditions"]["summary"]["lengths"]

    def cell(n, f):
        return {"speedup": length_row(co, n, f)["speedup"], "slower": f in lengths["slower_than_plain"][str(n)]}
    return {"rows": [(f, c, [cell(n, f) for n in co["lengths"]]) for f, c in co["configs"].items()],
            "plain_ms_per_char": [1000 * lengths["plain_per_char_s"][str(n)] for n in co["lengths"]]}


def ngram_payback(data):
    """How long an output pays back building the n-gram table (None where the run did not say):
    milliseconds saved per character at the longest length, the characters it takes, and whether
    that is past the longest output measured."""
    co = data["conditions"]
    pay = co["summary"]["lengths"].get("ngram_table")
    if not pay:
        return None
    longest = max(co["lengths"])
    return {"longest": longest, "saves_ms_per_char": 1000 * pay["saves_per_char_s"],
            "after_chars": pay["pays_back_after_chars"], "past_longest": pay["pays_back_after_chars"] > longest}


def length_view(data):
    """The output-length deep dive, and the "output is short" item: start-up, preparation and the shortest output."""
    co = data["conditions"]
    shortest, prep = co["summary"]["lengths"]["shortest"], co["preparation"]
    return {"length_table": length_table(data), "n_configs": len(co["configs"]), "start_up": plain_start_up(co),
            "shortest": shortest, "shortest_plain_ms": 1000 * length_row(co, shortest, "plain")["wall_s"]["median"],
            "load_draft_ms": 1000 * prep["load_draft_s"], "load_eagle_ms": 1000 * prep["load_eagle_s"],
            "ngram_table_s": prep["ngram_table_s"], "ngram_payback": ngram_payback(data)}


def slowest_view(data):
    """The "round costs more than it earns" item: ⑤'s slowest family at T = 1, how many were slower
    (or could not be told apart: None where the summary has no such list), and its cost per character
    recomputed from the printed figures: characters per forward × plain's cost per character ÷ the
    round's cost, each rounded to the two decimals it is printed with, so that the sum on the page adds up."""
    sp = data["families"]["summary"]["slower_than_plain"]
    slowest = sp["slowest"]
    per_char = slowest["plain_per_char"]  # plain decoding's cost per character in the slowest row's own run
    chars = median_run_chars(slowest) if per_char else None  # in the median run its parts come from, as ⑤ and ⑥ count them
    estimate = round(chars, 2) * round(per_char, 2) / round(slowest["round_total"], 2) if per_char else None
    return {"n_compared": sp["rows"], "n_slower": len(sp["families"]), "n_unclear": len(sp["unclear"]) if "unclear" in sp else None,
            "unclear": sp.get("unclear", []),  # named, since no table on the main path shows which
            "slowest": slowest, "slowest_chars": chars, "slow_per_char": per_char, "slowest_estimate": estimate}


def dont_view(data):
    """The rest of the "when not to speculate" list: the band r_5 stays in over the dial (as ① prints it), whether the heaviest twin's
    5-position verify is still priced (past the flatness slack costs.json records, experiments/stats.py
    is_flat: then the twin's speedups come from a dear forward, not a free verify), the n-gram table's size and how many times the main model's weights it is,
    and whether prompt lookup and lookahead decoding, which need almost no memory, pay for good at no scale of ⑥'s dial (data.dial)."""
    fa = data["families"]
    points, bound = data["regime"]["points"], flat_bound(data["costs"])
    return {"r5": r5_band(points),  # ①'s band of r_5 over the dial
            # where r_5 falls along the dial, the model as trained is itself a busy case: its ends, as ① prints them
            "r5_falls": r5_falls(points, bound),
            "r5_light": points[0]["r"]["5"], "r5_heavy": points[-1]["r"]["5"],
            "heavy_verify_priced": points[-1]["r"]["5"] > bound,
            "ngram_table_mb": fa["costs"]["ngram"]["bytes"] / 1e6, "ngram_entries": fa["costs"]["ngram"].get("entries"), "ngram_over_main": fa["summary"]["memory"]["ngram_over_main"],
            # printed beside the ratio to two decimals, so that the ratio reproduces from it (3.0 MB would give 5.3)
            "main_mb": fa["summary"]["memory"]["main_bytes"] / 1e6,
            # the two drafters that need almost no memory, where neither pays for good at any scale of ⑥'s dial
            "light_never_pay": {"lookup", "lookahead"} <= set(data["dial"]["never"])}


def span(lo_hi):
    """A published range as the page prints it: "3.1–3.4", or one figure where both ends agree."""
    lo, hi = lo_hi
    return f"{lo:g}" if lo == hi else f"{lo:g}–{hi:g}"


def temperature_heavy(data):
    """The same question on the heaviest twin (regime.json, the answer engine): each family's best row at T = 0
    against its best at T = 1, counted as clearly faster or slower where their paired ranges do not overlap;
    `example`: the fastest family at T = 1 where it moved. Readers saw greedy lines below T = 1's on the dial."""
    heavy = data["regime"]["points"][-1]
    t0 = {r["family"]: r for r in heavy["best"].get("T0", [])}
    pairs = [(r, t0[r["family"]]) for r in heavy["best"]["T1"] if r["family"] in t0]
    if not pairs:
        return None
    moved = [(a, b) for a, b in pairs if not ranges_overlap(a, b)]  # ranges apart: greedy clearly faster or slower
    faster = sum(b["speedup"] > a["speedup"] for a, b in moved)
    return {"bytes": heavy["main_bytes"], "n": len(pairs), "faster": faster, "slower": len(moved) - faster,
            "example": {"T1": moved[0][0], "T0": moved[0][1]} if moved else None}


def temperature_item(data):
    """The temperature item of "when not to speculate", in two parts kept apart. Measured here: how many
    families' best rows were faster, slower or could not be told apart at T = 0 against T = 1
    (families.json temperature_change, the answer engine), and the draft model's teacher-forced α at
    T = 0 against the hottest temperature (conditions.json). Published: each paper that reports one model
    at both temperatures (published.json by_temperature), and whether every paper's T = 0 range lies
    above its T = 1 range."""
    tc = data["families"]["summary"]["temperature_change"]
    counts = {word: len(tc[f"{word}_at_T0"]) for word in VERDICTS}
    n = len(tc["families"])
    summary = data["conditions"]["summary"]["temperature"]
    papers = [{"paper": fig["paper"], "arxiv": fig["arxiv"], "model": fig["by_temperature"]["model"],
               "T0": span(fig["by_temperature"]["T0"]), "T1": span(fig["by_temperature"]["T1"]),
               "lowest_T1": fig["by_temperature"]["T1"][0],
               "greedy_above": fig["by_temperature"]["T0"][0] > fig["by_temperature"]["T1"][1]}
              for fig in sorted((f for f in data["published"]["gpu"].values() if f and "by_temperature" in f),
                                key=lambda f: f["arxiv"])]  # the oldest paper first
    lowest_T1 = min((p["lowest_T1"] for p in papers), default=None)
    greedy_seldom_faster = 2 * counts["faster"] < n  # fewer than half the families gained from greedy decoding
    alpha_lowest_greedy = summary["lowest_alpha"]["temperature"] == 0
    # the families named as clearly faster or slower: their rows, whose paired ranges show they do not overlap
    clauses = dict(t0_clauses(data))
    named = {word: clauses.get(word, []) for word in ("faster", "slower")}
    heavy = temperature_heavy(data)
    return {"t_families": n, "t_counts": counts, "t_named": named, "t_heavy": heavy,
            # greedy decoding helped no family, as trained nor on the heaviest twin: one sentence says both
            "greedy_never_faster": heavy is not None and counts["faster"] == 0 and heavy["faster"] == 0 and heavy["n"] == n,
            "t_none_moved": counts["faster"] == counts["slower"] == 0,  # then one clause says so, with no "0 of"
            "greedy_seldom_faster": greedy_seldom_faster,
            "alpha_lowest_greedy": alpha_lowest_greedy,
            # why, for the drafter the conditions run follows (the draft model): at T = 0 a draft passes only where
            # both argmaxes agree, and they differ often enough that its teacher-forced α is lowest there; the
            # item prints it beside the range over the other temperatures, so "lowest" can be checked
            "alpha_greedy": {"T0": summary["lowest_alpha"]["alpha"], "others": summary["other_alpha"]},
            "papers": papers, "papers_greedy_above": all(p["greedy_above"] for p in papers), "papers_lowest_T1": lowest_T1,
            # the item's title and last sentence: here greedy decoding seldom helped and α is lowest at T = 0, and
            # every paper still reports a speedup above 1× at T = 1
            "temperature_no_reason": greedy_seldom_faster and alpha_lowest_greedy and (lowest_T1 is None or lowest_T1 > 1)}


def exercises_view(data):
    """The exercises' answers, and the facts that choose their wording: a p-value too small to print,
    whether the theorem's γ is the fastest measured, and that row (for its verdict)."""
    ex = data["exercises"]
    measured = ex["gamma"]["measured"]
    gamma_row = next(r for r in data["gamma_sweep"]["rows"]
                     if r["mode"] == "kvcache" and r["gamma"] == measured["measured_gamma"])
    return {"chi2": ex["chi2"]["rule"], "chi2_wrong": ex["chi2"]["accept_every_draft"],
            "wrong_p_unprintable": ex["chi2"]["accept_every_draft"]["p_value"] < 1e-300,  # below float's normal range
            "gamma": measured, "gamma_costs": ex["gamma"]["by_cost"], "n_gammas": len(data["gamma_sweep"]["gammas"]),
            "gamma_row": gamma_row, "theory_picks_fastest": measured["measured_gamma"] == measured["theory_gamma"],
            "theory_agrees": ex["summary"]["gamma_theory_agrees"],
            "medusa": ex["medusa"], "rollback": ex["rollback"]["answer"], "no_rollback": ex["rollback"]["no_rollback"],
            "model_seed": data["families"]["model_seed"]}


def view(data):
    """What ⑦, choosing a method (sections/choosing.html.j2) prints, computed here so that the template only formats it."""
    co = data["conditions"]
    return {"prompt": co["prompt"], "n_chars": co["n_chars"], "engine": co["engine"], "repeats": co["repeats"],
            "configs": co["configs"], "temperatures": co["temperatures"], "text_kinds": co["text_kinds"],
            "lengths": co["lengths"], "peer": data["ledger"].get("peer"),
            **temperature_view(data), **texts_view(data), **length_view(data), **slowest_view(data),
            **dont_view(data), **exercises_view(data), **temperature_item(data)}
