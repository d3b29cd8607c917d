"""What the page shows that is computed from the results: done once here, in Python, so that the
templates only format it and the scripts read it from the chapter data (never from the DOM it was
rendered into). build.py render() adds each view to the page data."""
from pathlib import Path

import orjson

from chapter.schema import ResultsError

STATIC = Path(__file__).resolve().parent.parent / "static"
LAB_GAMMA = 4  # the lab's default γ (static/js/lab_text.js LAB_DEFAULTS)


def far_below_linear(r_k, k):
    """⑧'s "more positions raise a forward's time far more slowly than their number": r_k < k / 2.
    Not the flatness rule (experiments/stats.py is_flat: r_k within FLAT_SLACK of one, extra
    positions nearly free), a question of how the price grows: ①'s eager r_4 = 1.24 is not flat,
    yet far below linear."""
    return r_k < k / 2


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
    """Every timed row of the ledger, the γ sweep and the families gets its figure condition, as `fig`,
    and its verdict (judge); a summary's cut-down row gets its full row's paired speedups back."""
    ledger, families = data["ledger"], data["families"]
    pools = {"families": families["rows"], "sweep": families["sweep"]}

    def family_row(row, engine, temperature, run, where):
        if "speedup_runs" in row:
            judge(row)
        else:
            restore_runs(row, pools[run], ("family", "shape", "size"), {"engine": engine, "temperature": temperature},
                         where=f"families.json: field '{where}'")
        # families.json's rows are the answer run's at the model as trained: the dial's first point
        row["fig"] = answer_condition(row, engine, temperature, "regime-x1" if run == "families" else run)

    for row in ledger["rows"] + ledger.get("compiled", {}).get("rows", []):
        config = "-" if row["method"] == "plain" else f"chain{row['gamma']}"
        row["fig"] = figure_condition(row["method"], config, row.get("engine", "eager"), row["mode"], ledger["temperature"], "ledger")
        judge(row)
        if "verify_over_main" in row:  # a ledger row's verify price is rₖ timed back to back before the runs, k = γ + 1
            row["fig_r"] = f"ledger|{row.get('engine', 'eager')}|{row['mode']}|k{row['gamma'] + 1}"
    for run, rows in (("families", families["rows"]), ("sweep", families["sweep"])):
        for row in rows:
            family_row(row, row["engine"], row["temperature"], run, None)  # a full row: nothing to restore
    sweep = data["gamma_sweep"]  # ③'s rows are the ledger's eager draft-model rows, so they share its conditions
    for row in sweep["rows"]:
        row["fig"] = figure_condition("draft", f"chain{row['gamma']}", "eager", row["mode"], sweep["temperature"], "ledger")
        judge(row)
    for mode, row in ledger["summary"]["fastest"].items():
        restore_runs(row, ledger["rows"], ("method", "gamma"), {"mode": mode}, f"ledger.json: field 'summary.fastest.{mode}'")
    if "compiled" in ledger:
        restore_runs(ledger["compiled"]["fastest"], ledger["compiled"]["rows"], ("method", "gamma"),
                     where="ledger.json: field 'compiled.fastest'")
    for mode, row in sweep["summary"]["fastest"].items():
        restore_runs(row, sweep["rows"], ("gamma",), {"mode": mode}, f"gamma_sweep.json: field 'summary.fastest.{mode}'")
        row["fig"] = figure_condition("draft", f"chain{row['gamma']}", "eager", mode, sweep["temperature"], "ledger")
    summary, engine = families["summary"], families["summary"]["primary_engine"]  # rows the sentences quote, cut down
    for key, temperature in (("T1", 1.0), ("T0", 0.0)):
        if key in summary.get("fastest", {}):
            family_row(summary["fastest"][key], engine, temperature, "families", f"summary.fastest.{key}")
    if "slower_than_plain" in summary:
        family_row(summary["slower_than_plain"]["slowest"], engine, summary["slower_than_plain"]["temperature"], "families",
                   "summary.slower_than_plain.slowest")
    if "fastest_verify" in summary:
        family_row(summary["fastest_verify"], engine, summary["slower_than_plain"]["temperature"], "families",
                   "summary.fastest_verify")
    shapes = summary.get("sweep_shapes")
    for shape in ("chain", "tree") if shapes else ():
        for which, row in (("fastest", shapes[shape]["fastest"]), ("most_tokens", shapes[shape]["most_tokens"])):
            family_row(row, engine, shapes["temperature"], "sweep", f"summary.sweep_shapes.{shape}.{which}")
        if summary.get("tree_verify", {}).get(shape):
            family_row(summary["tree_verify"][shape], engine, shapes["temperature"], "sweep", f"summary.tree_verify.{shape}")
    for rungs in data["ladder"].get("rungs", {}).values():  # ⑥'s engine ladder: the answer run's first point
        for rung in rungs:
            for row in (rung["best"], *rung.get("rows", [])):
                judge(row)
                row["fig"] = answer_condition(row, row["engine"], row["temperature"], "regime-x1")
    recent = summary.get("recent")  # ⑤'s 2025–26 paragraph: timed rows, cut down
    if recent:
        quoted = [(f"each_new.{f}", row) for f, row in recent["each_new"].items()]
        for where, row in quoted + [("best_new", recent.get("best_new")), ("best_old", recent.get("best_old"))]:
            if row:
                family_row(row, recent["engine"], recent["temperature"], "families", f"summary.recent.{where}")


def paired_verdict(runs):
    """The chapter's verdict rule, the build's twin of experiments/stats.py paired_verdict: "faster"
    ("slower") only when every paired repeat of a timed row lies above (below) 1×; otherwise, or
    with a single run, "unclear". runs: the row's speedup_runs {min, max, n}."""
    if runs["n"] < 2:
        return "unclear"
    return "faster" if runs["min"] > 1 else "slower" if runs["max"] < 1 else "unclear"


def judge(row):
    """A timed row gets its verdict (macros.verdict prints it; check_verdicts holds the page to it)."""
    row["verdict"] = paired_verdict(row["speedup_runs"])


def restore_runs(cut, rows, keys, given=None, where="a summary"):
    """A summary quotes a row cut down to a few fields: give it back its full row's paired speedups
    (and so its verdict), found by the fields that name it (`keys`, read from the cut row, and
    `given`, what the summary says once for all its rows). where: the summary's file and field, for
    the ResultsError when no row matches."""
    want = {k: cut.get(k) for k in keys} | (given or {})
    full = next((r for r in rows if all(r.get(k) == v for k, v in want.items())), None)
    if full is None:
        raise ResultsError(f"{where} quotes a timed row that its rows lack: {want}")
    cut["speedup_runs"] = full["speedup_runs"]
    judge(cut)


def answer_condition(row, engine, temperature, run):
    """The figure condition of a row of the answer run (regime.json, and the files that copy its rows)."""
    config = "-" if row["family"] == "plain" else f"{row['shape']}{row['size']}"
    return figure_condition(row["family"], config, engine, "kvcache", temperature, run)


def tag_regime(data):
    """The dial's rows and the peers': each gets its figure condition (`fig`, the scale as the run)
    and its verdict; each point, the condition its r_k are printed under (`fig_r`, "|k<k>" appended)."""
    for point in data["regime"]["points"]:
        run = f"regime-x{point['scale']:g}"
        point["fig_r"] = f"regime|x{point['scale']:g}"
        peers = point.get("peers", {}).get("rows", [])
        for row in [r for rows in point["best"].values() for r in rows] + list(point.get("plain", {}).values()) + peers:
            row["fig"] = answer_condition(row, row["engine"], row["temperature"], run)
            judge(row)


THEORY_CLOSE = 0.15  # ⑥'s dial calls Theorem 3.8 close to a row within this fraction


def expected_chars(row):
    """The characters per forward Theorem 3.8 counted for a row (each of γ drafts accepted
    independently with probability α): its speedup times the round's price it divided by, γc + r."""
    theory = row["theory"]
    return theory["with_verify_price"] * (row["size"] * row["c"] + theory["verify_price"])


def stays_faster_from(points, key, family):
    """The lightest scale from which the family's fastest row is faster than plain decoding in every
    paired repeat at that scale and at every heavier one (None: not at the heaviest)."""
    verdicts = [next((r["verdict"] for r in p["best"].get(key, []) if r["family"] == family), None) for p in points]
    start = len(verdicts)
    while start and verdicts[start - 1] == "faster":
        start -= 1
    return points[start]["scale"] if start < len(points) else None


def dial_view(data):
    """What ⑥'s dial says in words, at T = 1: where each family starts to pay for good
    (stays_faster_from, grouped by scale, with the main model's bytes and their multiple of the
    cache's edge; `never`: the families not faster at the heaviest scale), the best row of the
    whole dial, and Theorem 3.8 at the heaviest scale (dial_theory). tag_regime runs first."""
    regime = data["regime"]
    points, edge = regime["points"], regime["summary"]["cache_edge_bytes"]
    families = list(dict.fromkeys(r["family"] for p in points for r in p["best"]["T1"]))
    start = {f: stays_faster_from(points, "T1", f) for f in families}
    pays = [{"scale": p["scale"], "bytes": p["main_bytes"], "cache_multiple": p["main_bytes"] / edge,
             "families": [f for f in families if start[f] == p["scale"]]}
            for p in points if p["scale"] in start.values()]
    best = max(((p, p["best"]["T1"][0]) for p in points if p["best"]["T1"]), key=lambda pr: pr[1]["speedup"])
    dearest = max(points, key=lambda p: p["r"]["5"])  # where a verify of 5 costs most, over one position
    return {"pays": pays, "never": [f for f in families if start[f] is None], "dearest_verify_scale": dearest["scale"],
            "best": {"scale": best[0]["scale"], "bytes": best[0]["main_bytes"], "row": best[1]},
            "theory": {key: dial_theory(rows) for key, rows in points[-1]["best"].items()},
            "heaviest_cache_multiple": points[-1]["main_bytes"] / edge}


PEER_ENGINES = ("native", "eager", "transformers")  # the peer table's order: ours fastest first, the library last


def peer_view(data):
    """⑥'s table on the heaviest twin at T = 1, or None where the peer library was not measured:
    per engine (native, our eager, transformers' generate), its plain row and its speculative rows
    fastest first, each with its time per character; the native rows of the families the others
    run, and its fastest; r_k of the native and the eager engine there; and ours against the
    library's fastest decoder (regime.json summary.peer). tag_regime runs first."""
    regime = data["regime"]
    heavy = regime["points"][-1]
    peers = heavy.get("peers")
    if not peers or not any(r["engine"] == "transformers" for r in peers["rows"]):
        return None
    others = {r["family"] for r in peers["rows"]}
    fastest = heavy["best"]["T1"][0]
    native = [heavy["plain"]["T1"]] + [r for r in heavy["best"]["T1"] if r["family"] in others or r is fastest]
    by_engine = {"native": native, **{e: [r for r in peers["rows"] if r["engine"] == e] for e in PEER_ENGINES[1:]}}
    n_chars = regime["n_chars"]
    rows = [{"row": r, "ms_per_char": 1000 * r["wall_s"]["median"] / n_chars}
            for e in PEER_ENGINES for r in sorted(by_engine[e], key=lambda r: (r["family"] != "plain", -r["speedup"]))]
    return {"scale": heavy["scale"], "bytes": heavy["main_bytes"], "version": peers.get("version"), "rows": rows,
            "r": {k: {"native": heavy["r"][k], "eager": peers["eager_r"][k]} for k in heavy["r"]},
            "against": regime["summary"].get("peer")}


def dial_theory(rows):
    """Theorem 3.8 (at each chain row's measured α, c and r_{γ+1}) against the measured speedup of
    the heaviest scale's rows: how many come within THEORY_CLOSE, and for each row further off the
    two parts of a round the theorem models loosely, printed side by side: the count (characters
    per verify, measured and by the formula, which assumes independent acceptances) and the price
    (the share of the round that is neither verifying nor drafting: sampling, the rule, Python,
    which the theorem leaves out)."""
    chains = [r for r in rows if r.get("theory")]
    close = [abs(r["theory"]["gap"]) for r in chains if abs(r["theory"]["gap"]) <= THEORY_CLOSE]
    misses = []
    for r in chains:
        if abs(r["theory"]["gap"]) > THEORY_CLOSE:
            round_cost = r["verify_over_main"] + r["drafter_per_round"] + r["other_per_round"]
            misses.append({"family": r["family"], "size": r["size"], "gap": r["theory"]["gap"],
                           "chars": r["tokens_per_main"], "expected_chars": expected_chars(r),
                           "rest_share": r["other_per_round"] / round_cost})
    return {"rows": len(chains), "close": THEORY_CLOSE, "misses": misses, "largest_close_gap": max(close, default=None)}


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
