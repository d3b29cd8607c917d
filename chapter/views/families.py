"""⑤, where drafts come from (sections/families.html.j2, and its deep dives templates/deep/trees, heads
and recent.html.j2): the family map's rows, the fastest rows the sentences quote, and each round taken
apart in plain forwards.

The page prints a round's parts with two decimals each and then their total and the speedup they give;
those are computed here from the printed (rounded) parts, so that a reader's arithmetic on the page
gives what the page prints (printed_total, speedup_from_printed, printed_gap)."""
from chapter.views.dial import lead_families
from chapter.views.rows import find_row, median_run_chars, ranges_overlap


def printed_total(row):
    """A round's price in plain forwards, summed from its three parts as printed (two decimals each)."""
    return round(row["verify_over_main"], 2) + round(row["drafter_per_round"], 2) + round(row["other_per_round"], 2)

def speedup_from_printed(chars, row, plain_per_char):
    """chars × plain decoding's price per character ÷ the round's price, each factor as printed."""
    return round(chars, 2) * round(plain_per_char, 2) / printed_total(row)

def taken_apart(row, plain_per_char, chars=None):
    """One round of a timed row in plain forwards: the row, its printed total and the speedup those give
    (for `chars` characters a round: by default its median-time run's characters per main forward, the run
    its parts come from)."""
    chars = median_run_chars(row) if chars is None else chars
    return {"row": row, "total": printed_total(row), "chars": chars,
            "from_parts": speedup_from_printed(chars, row, plain_per_char)}

def printed_gap(a, b):
    """a − b as their printed figures (two decimals) differ, where a prints above b; None otherwise."""
    gap = round(a, 2) - round(b, 2)
    return gap if gap > 0 else None


def best_rows(rows, engine, temperature):
    """Each family's timed row on the engine at the temperature (families.json keeps one a family: its
    sweep's fastest configuration), by family, plain decoding left out."""
    best = {}
    for row in rows:
        if row["engine"] == engine and row["temperature"] == temperature and row["family"] != "plain":
            best.setdefault(row["family"], row)
    return best



def training(family, cost, draft_run):
    """The map's training cell: the registry's words, or minutes of training (the draft model's own run,
    or a drafter's on the frozen main model); neither where nothing is trained."""
    if family.get("training"):
        return {"words": family["training"], "minutes": None, "main_frozen": False}
    if family.get("source") == "draft":
        return {"words": None, "minutes": draft_run["train_wall_s"] / 60, "main_frozen": False}
    if "train_wall_s" in cost:
        return {"words": None, "minutes": cost["train_wall_s"] / 60, "main_frozen": True}
    return {"words": None, "minutes": None, "main_frozen": False}

def map_row(name, data, best, draft_run):
    """One row of the family map: what the family costs (its training, its parameters or its table) and
    what it earns (α at T = 1, with its coverage where it drafts one-hot, and its fastest rows)."""
    fa = data["families"]
    family = next(f for f in data["registry"]["families"] if f["name"] == name)
    cost = fa["costs"].get(name, {})
    alpha = fa["alpha"]["T1"].get(name, {})
    coverage = alpha.get("coverage", 1)
    return {"family": name, "group": family["group"], "drafts": family["drafts"], "training": training(family, cost, draft_run),
            "entries": cost.get("entries"), "params": cost.get("params", 0),
            "index_mb": cost["bytes"] / 1e6 if "bytes" in cost and "entries" not in cost else None,
            "alpha": alpha.get("alpha"), "alpha_fig": f"{name}|T1|own",
            "coverage": coverage if family.get("q") == "one-hot" and coverage < 1 else None,
            "seed_range": fa["summary"].get("alpha_seed_range", {}).get(name),
            "T1": best["T1"].get(name), "T0": best["T0"].get(name),
            "chars": median_run_chars(best["T1"][name]) if name in best["T1"] else None}


def alpha_not_enough(rows, fastest_family, most=2):
    """The fastest family's map row (`bar`) and the rows whose teacher-forced α beats it while their best
    T = 1 row is slower than plain decoding in every paired repeat, highest α first (at most `most`): a high α
    that dear drafting does not repay. None where no row qualifies."""
    bar = next((m for m in rows if m["family"] == fastest_family and m["alpha"] is not None), None)
    if bar is None:
        return None
    slow = [m for m in rows if m["alpha"] is not None and m["alpha"] > bar["alpha"] and m["T1"] and m["T1"]["verdict"] == "slower"]
    slow = sorted(slow, key=lambda m: -m["alpha"])[:most]
    # "drafting costs them more a round" holds only where each round of theirs costs more than the fastest's;
    # else the point is what a round drafts for its cost (the rounds' sizes differ), said with both figures
    dearer = bool(bar["T1"]) and all(m["T1"]["drafter_per_round"] > bar["T1"]["drafter_per_round"] for m in slow)
    # else, "their rounds are shorter" only where each yields fewer characters a main forward than the fastest's
    # (each in its median run, as ⑥'s box counts them)
    shorter = bool(bar["T1"]) and all(m["chars"] < bar["chars"] for m in slow)
    # a chain of one draft writes 1 + α characters a main forward, α as measured while decoding: readers set ④'s
    # "1 + α" with the map's teacher-forced α against the yields printed here
    one_draft = all(m["T1"]["shape"] == "chain" and m["T1"]["size"] == 1 for m in slow)
    return {"bar": bar, "rows": slow, "several": len(slow) > 1, "dearer_round": dearer, "shorter_round": shorter,
            "same_size": len({(m["T1"]["shape"], m["T1"]["size"]) for m in slow}) == 1, "one_draft": one_draft} if slow else None


def lookups_dearer(rows, engine):
    """On the native engine, the first table drafter in the map's order whose drafting costs more a round than
    the draft model's (its lookups run in Python, the draft model's whole round in one C++ call): that table's
    map row. None elsewhere, or where no table costs more."""
    draft = next((m for m in rows if m["family"] == "draft" and m["T1"]), None)
    if engine != "native" or draft is None:
        return None
    return next((m for m in rows if m["group"] == "table" and m["T1"]
                 and m["T1"]["drafter_per_round"] > draft["T1"]["drafter_per_round"]), None)


def draft_round_is_one_call(engine):
    """Every engine but eager runs a round of γ drafts as one call (StaticRunner's built graph, NativeRunner's C++)."""
    return engine != "eager"


def round_under_c(draft, data, engine):
    """⑤'s note on drafting prices: ③'s c (one draft forward a call, timed on this engine) times the draft
    model's chain length, where that exceeds its round's drafting, which one call runs: readers divided the
    round by γ and asked why it beat c. None where ③ timed another engine, the round is no chain, or it costs
    as much."""
    sweep = data["gamma_sweep"]
    if draft is None or not draft_round_is_one_call(engine) or sweep["engines"]["kvcache"] != engine or draft["shape"] != "chain":
        return None
    c, gamma = round(sweep["c"]["kvcache"], 3), draft["size"]  # c as ③ prints it: the product reproduces
    return {"c": c, "gamma": gamma, "calls": gamma * c, "round": draft["drafter_per_round"],
            "in_cpp": engine == "native"} if gamma * c > draft["drafter_per_round"] else None


def level_with(fastest, rows):
    """The runner-up to the fastest timed row where their paired ranges overlap (⑥'s box calls the two
    level): None where the fastest is clearly ahead or runs alone."""
    others = sorted((r for r in rows if r is not fastest), key=lambda r: -r["speedup"])
    return others[0] if others and ranges_overlap(fastest, others[0]) else None


def alpha_twin(rows, alpha_decoding):
    """③'s α while decoding (the draft model's fastest sweep row) where it prints as the draft model's
    teacher-forced α here, to three decimals: two counts that land on one figure, which the page says
    apart. None where they print differently."""
    draft = next((m for m in rows if m["family"] == "draft" and m["alpha"] is not None), None)
    return alpha_decoding if draft and "%.3f" % draft["alpha"] == "%.3f" % alpha_decoding else None


def sweep_view(summary):
    """The n-gram table's sweep by shape (the deep dive on trees): its fastest and its most characters per
    forward, as a chain and as a tree; None where the sweep lacks either shape."""
    shapes = summary.get("sweep_shapes")
    if not shapes or not (shapes["tree"].get("most_tokens") and shapes["chain"].get("most_tokens")):
        return None
    return {"tree_most": shapes["tree"]["most_tokens"], "chain_most": shapes["chain"]["most_tokens"],
            "tree_best": shapes["tree"]["fastest"], "chain_best": shapes["chain"]["fastest"],
            "tree_gets_fewer": shapes.get("tree_gets_fewer")}

def tree_price(summary):
    """Where the fastest tree's verify price comes from, timed back to back: the printed extra of its mask
    over a chain of as many positions, and of the decoding loop over back to back, for the tree and the
    fastest chain (None where there is none to print)."""
    verify = summary.get("tree_verify")
    if not verify:
        return None
    tree, chain = verify["tree"], verify["chain"]
    return {"tree": tree, "chain": chain, "mask_extra": printed_gap(tree["back_to_back"], tree["chain_back_to_back"]),
            "tree_loop_extra": printed_gap(tree["in_loop"], tree["back_to_back"]),
            "chain_loop_extra": printed_gap(chain["in_loop"], chain["back_to_back"])}


def depth_view(by_depth):
    """α of the j-th draft at T = 1 (the recent drafters' deep dive): first and deepest for EAGLE, EAGLE-3
    and the block-parallel drafter, and whether EAGLE-3 prints above EAGLE at the deepest draft."""
    t1 = by_depth["T1"]
    ends = {f: {"first": t1[f][0], "last": t1[f][-1]} for f in ("eagle", "eagle3", "block")}
    eagle, eagle3 = ends["eagle"], ends["eagle3"]
    return {**ends, "depth": by_depth["depth"], "window": by_depth["window"], "stride": by_depth["stride"],
            "eagle3_above": printed_gap(eagle3["last"], eagle["last"]),
            "eagle3_loses_less": eagle3["first"] - eagle3["last"] < eagle["first"] - eagle["last"]}


def highest_alpha_family(alpha):
    """The family with the highest first-draft α (the first of equals), among those with one."""
    measured = [f for f, a in alpha.items() if a["alpha"] is not None]
    return max(measured, key=lambda f: alpha[f]["alpha"])

def recent_view(summary, alpha):
    """The three recent drafters against plain decoding and the fastest older family, at T = 1 (None where
    families.json has no such summary): each round taken apart, EAGLE-3's even if every draft passed,
    and the block-parallel drafter's one call timed back to back beside its price inside the loop."""
    recent = summary.get("recent")
    if not recent:
        return None
    new, old, per = recent["each_new"], recent["best_old"], recent["plain_per_char"]
    drafting = recent["drafting"]
    eagle3, block = new.get("eagle3"), new.get("block")
    return {"each_new": new, "best_old": old, "plain_per_char": per, "plain_rest": per - 1,
            "all_new_slower": recent["all_new_slower_than_plain"],
            "taken_apart": [taken_apart(r, per) for r in (old, new.get("suffix")) if r],
            "eagle3": eagle3 and {**taken_apart(eagle3, per), "all_pass": taken_apart(eagle3, per, eagle3["size"] + 1),
                                  "alpha_highest": highest_alpha_family(alpha) == "eagle3"},
            "block": block and {**taken_apart(block, per), "one_call": drafting["block"][0],
                                "back_to_back": next((d for d in drafting["block"] if d["size"] == block["size"]), None)},
            "drafting": {f: {"first": drafting[f][0], "last": drafting[f][-1]} for f in ("eagle3", "block")}}


def by_text_view(data, best_t0):
    """⑦'s kind-of-text table as the suffix paragraph quotes it: the drafters on the main model's own text
    and on the repetitive speaker list at T = 1, and suffix decoding's fastest row at T = 0."""
    by_text = data["conditions"]["by_text"]
    own = by_text["own"]["T1"]["drafters"]
    return {"own": own, "repetitive": by_text["repetitive"]["T1"]["drafters"],
            "suffix_everywhere": own["suffix"]["coverage"] == 1, "suffix_T0": best_t0.get("suffix")}


def ngram_faq(data, best_t1):
    """Why the n-gram table keeps pace with the draft model: their drafting prices as trained, and on ⑥'s
    heaviest twin (None there where either row is missing), where the table may pull clearly ahead."""
    points = data["regime"]["points"]
    light, heavy = points[0], points[-1]
    heavy_best = {f: find_row(heavy["best"]["T1"], family=f) for f in ("ngram", "draft")}
    heavy_best = heavy_best if all(heavy_best.values()) else None
    ngram, draft = best_t1["ngram"], best_t1["draft"]
    return {"ngram": ngram, "draft": draft, "ngram_cheaper": ngram["drafter_per_round"] < draft["drafter_per_round"],
            "draft_c": light["c"]["draft"], "draft_params_fraction": data["models"]["summary"]["draft_params_fraction"],
            "heavy": heavy_best, "heavy_mb": heavy["main_bytes"] / 1e6,
            "heavy_chars": heavy_best and {f: median_run_chars(r) for f, r in heavy_best.items()},
            # the closing quiz asks why the table pulls ahead there, answering "its near-free drafting affords a
            # longer chain": only where its paired range is clear of the draft model's and its chain is the longer
            "table_ahead_heavy": bool(heavy_best) and table_ahead(heavy_best["ngram"], heavy_best["draft"])}


def table_ahead(ngram, draft):
    """Is the n-gram table clearly faster than the draft model (paired ranges apart) with a longer chain that
    earns more characters per main forward (each in its median run)?"""
    chains = ngram["shape"] == draft["shape"] == "chain"
    return (chains and ngram["speedup"] > draft["speedup"] and not ranges_overlap(ngram, draft)
            and ngram["size"] > draft["size"] and median_run_chars(ngram) > median_run_chars(draft))


def fastest_round(data, fastest_t1, plain_t1):
    """The fastest row at T = 1 taken apart (None where families.json has no fastest_round): its round in
    plain forwards, plain decoding's rest per character, and the verify forward timed back to back
    beside its price in the loop (the printed extra, where the loop prints dearer)."""
    summary = data["families"]["summary"]
    if "fastest_round" not in summary:
        return None
    rnd = summary["fastest_round"]
    verify = summary.get("fastest_verify")
    costs = data["costs"]["summary"]
    not_flat = not costs[costs["primary_engine"]]["flat_start"]  # ①: a second position already costs more
    return {**taken_apart(fastest_t1, rnd["plain_per_char"]), "plain_per_char": rnd["plain_per_char"],
            "plain_rest": plain_t1["other_per_round"], "verify_biggest": rnd["verify_biggest"],
            "verify": verify, "loop_extra": verify and printed_gap(verify["in_loop"], verify["back_to_back"]),
            "not_flat": not_flat, "verify_biggest_not_free": rnd["verify_biggest"] and not_flat}


def zh_starts_latin(data):
    """By family: does its Chinese name start in Latin letters (after a Chinese character it wants a space)?"""
    return {f["name"]: f["label"]["zh"][:1].isascii() for f in data["registry"]["families"]}

def engine_label(data, engine):
    """The engine's name in both languages (registry.json), for sentences in one language."""
    return next(e["label"] for e in data["registry"]["engines"] if e["name"] == engine)


def view(data):
    """What ⑤ and its deep dives print, computed here so that the templates only format it."""
    fa, summary = data["families"], data["families"]["summary"]
    engine = summary["primary_engine"]
    best = {"T1": best_rows(fa["rows"], engine, 1.0), "T0": best_rows(fa["rows"], engine, 0.0)}
    fastest = {key: best[key][summary["fastest"][key]["family"]] for key in ("T1", "T0")}
    seed = data["models"]["meta"]["seeds"][0]
    main_config = data["models"]["runs"][f"main_s{seed}"]["config"]
    winner = next(f for f in data["registry"]["families"] if f["name"] == fastest["T1"]["family"])
    model_seeds = list(fa["alpha_by_seed"])
    medusa = fa["costs"]["medusa"]
    rows = [map_row(f, data, best, data["models"]["runs"][f"draft_s{seed}"]) for f in fa["families"]]
    # the map's main path shows one family of each kind, the lines ⑥'s dial draws; a fold holds the rest,
    # and the sentences under the map quote only rows on show
    leads = set(lead_families(data))
    shown = [m for m in rows if m["family"] in leads]
    slow = alpha_not_enough(shown, fastest["T1"]["family"])
    dearer = lookups_dearer(shown, engine)
    return {
        "n_families": len(fa["families"]),
        "map": rows, "map_shown": shown, "map_more": [m for m in rows if m["family"] not in leads],
        "n_shown": len(shown), "n_more": len(rows) - len(shown),
        "alpha_not_enough": slow,
        "lookups_dearer": dearer,
        # ③'s α while decoding, beside the draft model's teacher-forced α where the sentence quotes it
        "alpha_twin": alpha_twin(rows, data["gamma_sweep"]["summary"]["fastest"]["kvcache"]["alpha"])
                      if slow and slow["bar"]["family"] == "draft" else None,
        "zh_starts_latin": zh_starts_latin(data),
        "engine_label": engine_label(data, engine),
        "draft_round_is_one_call": draft_round_is_one_call(engine),
        "round_under_c": round_under_c(best["T1"].get("draft"), data, engine),
        "alpha": fa["alpha"]["T1"], "costs": fa["costs"], "model_seed": fa["model_seed"],
        "n_alpha_seeds": len(fa["alpha_seeds"]), "alpha_chars": fa["alpha_chars"],
        "model_seeds": model_seeds, "n_model_seeds": len(model_seeds), "several_model_seeds": len(model_seeds) > 1,
        "prompt_shown": fa["prompt"].replace("\n", "\\n"), "n_chars": fa["n_chars"], "repeats": fa["repeats"],
        "sweep_repeats": fa["sweep_repeats"], "sweep_single_run": fa["sweep_repeats"] == 1,
        "fastest": fastest, "fastest_chars": median_run_chars(fastest["T1"]), "same_fastest": fastest["T1"]["family"] == fastest["T0"]["family"],
        "level_with_fastest": level_with(fastest["T1"], best["T1"].values()),
        # a winner drafting from a corpus or the context drafts at next to no cost, unless its lookups cost more a
        # round than the draft model's drafting (lookups_dearer: the note on drafting prices says so with both figures)
        "fastest_drafts_free": winner.get("source") in ("corpus", "context")
                               and not lookups_dearer([m for m in rows if m["family"] in ("draft", winner["name"])], engine),
        "tree_slider_max": len(fa["tree_rounds"]) - 1, "tree_slider_start": min(1, len(fa["tree_rounds"]) - 1),
        "sweep": sweep_view(summary), "tree_price": tree_price(summary), "ngram_best": best["T1"].get("ngram"),
        "main_layers": main_config["n_layer"], "main_width": main_config["n_embd"],
        "medusa_heads": [{"number": k + 1, "predicts": k + 2} for k in range(medusa["config"]["n_heads"])],
        "depth": depth_view(fa["alpha_by_depth"]), "recent": recent_view(summary, fa["alpha"]["T1"]),
        "by_text": by_text_view(data, best["T0"]), "ngram_faq": ngram_faq(data, best["T1"]),
        "fastest_round": fastest_round(data, fastest["T1"], find_row(fa["rows"], engine=engine, temperature=1.0, family="plain")),
    }
