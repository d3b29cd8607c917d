"""What the page shows that is computed from the results: done once here, in Python, so that the
templates only format it and the scripts read it from the chapter data (never from the DOM it was
rendered into). build.py render() adds each view to the page data."""
from pathlib import Path

import orjson

STATIC = Path(__file__).resolve().parent.parent / "static"
LAB_GAMMA = 4  # the lab's default γ (static/js/lab_text.js LAB_DEFAULTS)


def compare_row(method, gamma, row, source):
    """One row of ⑧'s comparison: what Python measured for a setting the lab can run."""
    return {"method": method, "gamma": gamma, "alpha": row.get("alpha"), "tokens_per_main": row["tokens_per_main"],
            "repeats": row["repeats"], "source": source}


def lab_compare(data):
    """⑧'s comparison rows, Python's α and characters per main forward beside what the lab runs:
    the ledger's kv-cache eager rows (its sampling seeds) for plain decoding, the draft model at the
    lab's γ and at γmax, and the MTP head; families.json for the n-gram table, its one-run sweep at
    the lab's γ (source "sweep") and its timed row (source "families") where that is another γ.
    A smaller `make measure` (the smoke test's sizes) may have neither n-gram row: then none."""
    ledger, families = data["ledger"], data["families"]
    eager = [r for r in ledger["rows"] if r["mode"] == "kvcache" and r.get("engine") == "eager"]
    rows = [compare_row("plain", 0, r, "ledger") for r in eager if r["method"] == "plain"]
    for gamma in dict.fromkeys([LAB_GAMMA, ledger["gamma_max"]]):
        rows += [compare_row("draft", gamma, r, "ledger") for r in eager if r["method"] == "draft" and r["gamma"] == gamma]
    rows += [compare_row("mtp", 1, r, "ledger") for r in eager if r["method"] == "mtp"]

    def ngram_chain(r):
        return r["family"] == "ngram" and r["shape"] == "chain" and r["engine"] == "eager" and r["temperature"] == 1

    sweep = next((r for r in families["sweep"] if ngram_chain(r) and r["size"] == LAB_GAMMA), None)
    timed = next((r for r in families["rows"] if ngram_chain(r)), None)
    if sweep:
        rows.append(compare_row("ngram", LAB_GAMMA, sweep, "sweep"))
    if timed and timed["size"] != LAB_GAMMA:
        rows.append(compare_row("ngram", timed["size"], timed, "families"))
    return rows


def figure_condition(method, config, engine, mode, temperature, run):
    """The condition a measured row's figures are printed under (macros.fig, format.js figHTML): what
    ran, on which engine and in which mode, at which temperature, and in which measurement. One row
    copied into another table (⑤'s draft model is ⑥'s fastest row) keeps its condition."""
    return f"{method}|{config}|{engine}|{mode}|T{temperature:g}|{run}"


def tag_rows(data):
    """Every timed row of the ledger, the γ sweep and the families gets its figure condition, as `fig`."""
    ledger, families = data["ledger"], data["families"]

    def family_row(row, engine, temperature, run):
        config = "-" if row["family"] == "plain" else f"{row['shape']}{row['size']}"
        row["fig"] = figure_condition(row["family"], config, engine, "kvcache", temperature, row.get("run", run))

    for row in ledger["rows"] + ledger.get("compiled", {}).get("rows", []):
        config = "-" if row["method"] == "plain" else f"chain{row['gamma']}"
        row["fig"] = figure_condition(row["method"], config, row.get("engine", "eager"), row["mode"], ledger["temperature"], "ledger")
        if "verify_over_main" in row:  # a ledger row's verify price is rₖ timed back to back before the runs, k = γ + 1
            row["fig_r"] = f"ledger|{row.get('engine', 'eager')}|{row['mode']}|k{row['gamma'] + 1}"
    for run, rows in (("families", families["rows"]), ("sweep", families["sweep"]), ("families", ledger.get("family_rows", []))):
        for row in rows:
            family_row(row, row["engine"], row["temperature"], run)
    sweep = data["gamma_sweep"]  # ③'s rows are the ledger's eager draft-model rows, so they share its conditions
    for row in sweep["rows"]:
        row["fig"] = figure_condition("draft", f"chain{row['gamma']}", "eager", row["mode"], sweep["temperature"], "ledger")
    for mode, row in sweep["summary"]["fastest"].items():
        row["fig"] = figure_condition("draft", f"chain{row['gamma']}", "eager", mode, sweep["temperature"], "ledger")
    summary, engine = families["summary"], families["summary"]["primary_engine"]  # rows the sentences quote, cut down
    for key, temperature in (("T1", 1.0), ("T0", 0.0)):
        if key in summary.get("fastest", {}):
            family_row(summary["fastest"][key], engine, temperature, "families")
    if "slower_than_plain" in summary:
        family_row(summary["slower_than_plain"]["slowest"], engine, summary["slower_than_plain"]["temperature"], "families")
    if "fastest_verify" in summary:
        family_row(summary["fastest_verify"], engine, summary["slower_than_plain"]["temperature"], "families")
    shapes = summary.get("sweep_shapes")
    for shape in ("chain", "tree") if shapes else ():
        for row in (shapes[shape]["fastest"], shapes[shape]["most_tokens"], summary.get("tree_verify", {}).get(shape)):
            if row:
                family_row(row, engine, shapes["temperature"], "sweep")
    recent = summary.get("recent")  # ⑤'s 2025–26 paragraph: timed rows, cut down
    if recent:
        for row in [*recent["each_new"].values(), recent.get("best_new"), recent.get("best_old")]:
            if row:
                family_row(row, recent["engine"], recent["temperature"], "families")


def paired_verdict(row):
    """faster / slower / unclear: whether every paired repeat of a timed row lies on one side of 1×
    (experiments/measure/regime.py separated, which the dial's summary uses, says the same)."""
    runs = row["speedup_runs"]
    return "faster" if runs["min"] > 1 else "slower" if runs["max"] < 1 else "unclear"


def tag_regime(data):
    """The dial's rows: each gets its figure condition (`fig`, the scale as the run) and its verdict;
    each point, the condition its r_k are printed under (`fig_r`, "|k<k>" appended)."""
    for point in data["regime"]["points"]:
        run = f"regime-x{point['scale']:g}"
        point["fig_r"] = f"regime|x{point['scale']:g}"
        for key, rows in point["best"].items():
            for row in rows:
                row["fig"] = figure_condition(row["family"], f"{row['shape']}{row['size']}", "native", "kvcache",
                                              float(key[1:]), run)
                row["verdict"] = paired_verdict(row)


THEORY_CLOSE = 0.15  # ⑥'s dial calls Theorem 3.8 close to a row within this fraction


def expected_chars(alpha, gamma):
    """Characters per verify when each of γ drafts is accepted independently with probability α
    (Leviathan et al., arXiv 2211.17192): (1 − α^(γ+1)) / (1 − α)."""
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)


def dial_view(data):
    """What ⑥'s dial says in words: Theorem 3.8 against the heaviest scale (dial_theory) and, per
    temperature, where each family starts to pay (regime.json summary.pays_from grouped by scale,
    with the main model's bytes and their multiple of the cache's edge; `never`: the families no
    scale of the dial made faster in every paired repeat)."""
    regime = data["regime"]
    points, edge = regime["points"], regime["summary"]["cache_edge_bytes"]
    pays = {}
    for key in ("T1", "T0"):
        if key not in regime["summary"]:
            continue
        pays_from = regime["summary"][key]["pays_from"]
        measured = list(dict.fromkeys(r["family"] for p in points for r in p["best"].get(key, [])))
        pays[key] = {"from": [{"scale": p["scale"], "bytes": p["main_bytes"], "cache_multiple": p["main_bytes"] / edge,
                               "families": [f for f in measured if pays_from.get(f) == p["scale"]]}
                              for p in points if p["scale"] in pays_from.values()],
                     "never": [f for f in measured if f not in pays_from]}
    return {"theory": dial_theory(data), "pays": pays,
            "heaviest_cache_multiple": points[-1]["main_bytes"] / edge}


def dial_theory(data):
    """⑥'s dial at its heaviest scale, per temperature: how close Theorem 3.8 (at each chain row's
    measured α, c and r_{γ+1}) comes to the measured speedup, and for each row it misses by more
    than THEORY_CLOSE which part the theorem gets wrong: the count (characters per verify against
    the formula's, when acceptances are not independent) or the price (the rest of the round,
    sampling, the rule and Python, which the theorem leaves out)."""
    heaviest = data["regime"]["points"][-1]
    out = {}
    for key, rows in heaviest["best"].items():
        chains = [r for r in rows if r.get("theory")]
        misses = []
        for r in chains:
            gap = r["speedup"] / r["theory"]["with_verify_price"] - 1
            if abs(gap) > THEORY_CLOSE:
                expected = expected_chars(r["alpha"], r["size"])
                round_cost = r["verify_over_main"] + r["drafter_per_round"] + r["other_per_round"]
                misses.append({"family": r["family"], "size": r["size"], "gap": gap, "fig": r["fig"],
                               "chars": r["tokens_per_main"], "expected_chars": expected,
                               "rest_share": r["other_per_round"] / round_cost,
                               "part": "count" if abs(r["tokens_per_main"] / expected - 1) >= abs(gap) / 2 else "price"})
        out[key] = {"rows": len(chains), "close": THEORY_CLOSE, "misses": misses,
                    "largest_close_gap": max([abs(r["speedup"] / r["theory"]["with_verify_price"] - 1) for r in chains
                                              if abs(r["speedup"] / r["theory"]["with_verify_price"] - 1) <= THEORY_CLOSE],
                                             default=None)}
    return out


def deepseek_scale(data, papers):
    """④'s FAQ: this chapter's main model beside DeepSeek-V3 (published.json): how many times
    fewer parameters (total and activated) and training characters it has, and where the MTP
    head's α counted during decoding falls against the reported acceptance range (inside it, or
    within 0.05 of it: "near")."""
    ds, mtp = papers["deepseek_v3"], data["mtp"]
    ours, (low, high) = mtp["alpha"]["mtp"]["mean"], ds["mtp_acceptance"]
    return {"params_ratio": ds["total_params"] / mtp["params"]["main_total"],
            "active_ratio": ds["active_params"] / mtp["params"]["main_total"],
            "data_ratio": ds["train_tokens"] / mtp["summary"]["train_chars_seen"],
            "alpha": ours, "inside": low <= ours <= high, "near": low - 0.05 <= ours <= high + 0.05,
            # the published figures the FAQ quotes
            "total_params": ds["total_params"], "active_params": ds["active_params"],
            "train_tokens": ds["train_tokens"], "acceptance": [low, high], "decoding_speedup": ds["decoding_speedup"]}


def published(path=STATIC / "data" / "published.json"):
    """Papers' figures that ⑦'s method picker quotes for a GPU, each with its arXiv id."""
    return orjson.loads(Path(path).read_bytes())
