"""Every timed row gets the condition its figures are printed under and its verdict by the chapter's one
rule (paired_verdict), before any section reads it. build.py render() runs tag_rows and tag_regime
first; the sections' views read the tagged rows."""
from chapter.schema import ResultsError


def find_row(rows, **fields):
    """The first row whose fields have the given values (None when there is none)."""
    return next((r for r in rows if all(r.get(k) == v for k, v in fields.items())), None)


def ranges_overlap(a, b):
    """Whether two timed rows' paired speedup ranges overlap: neither is clearly the faster."""
    ra, rb = a["speedup_runs"], b["speedup_runs"]
    return ra["min"] <= rb["max"] and rb["min"] <= ra["max"]


def first_seed_run(models, kind):
    """The training run of one kind ("main", "draft") with the first seed: the models the page runs."""
    return models["runs"][f"{kind}_s{models['meta']['seeds'][0]}"]


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
    sweep = data["gamma_sweep"]  # ③'s rows are the ledger run's draft-model rows, each on its mode's lane
    for row in sweep["rows"]:
        row["fig"] = figure_condition("draft", f"chain{row['gamma']}", row["engine"], row["mode"], sweep["temperature"], "ledger")
        judge(row)
    for mode, row in ledger["summary"]["fastest"].items():
        restore_runs(row, ledger["rows"], ("method", "gamma"), {"mode": mode}, f"ledger.json: field 'summary.fastest.{mode}'")
    if "compiled" in ledger:
        restore_runs(ledger["compiled"]["fastest"], ledger["compiled"]["rows"], ("method", "gamma"),
                     where="ledger.json: field 'compiled.fastest'")
    for mode, row in sweep["summary"]["fastest"].items():
        restore_runs(row, sweep["rows"], ("gamma",), {"mode": mode}, f"gamma_sweep.json: field 'summary.fastest.{mode}'")
        row["fig"] = figure_condition("draft", f"chain{row['gamma']}", sweep["engines"][mode], mode, sweep["temperature"], "ledger")
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

# The words of a verdict badge (macros.verdict; static/js/format.js verdictBadgeHTML is its twin):
# the verdict, the paired speedups' range and their count, each language on its own.
BADGE_WORD = {"faster": {"zh": "更快", "en": "faster"}, "slower": {"zh": "更慢", "en": "slower"},
              "unclear": {"zh": "分不出", "en": "can't tell"}}
BADGE_ONE_RUN = {"zh": "只测一次", "en": "one run"}
BADGE_SEP = " · "  # between a badge's parts, where a narrow column may wrap it (macros.badge_text; format.js BADGE_SEP)


def verdict_badge(runs):
    """{zh, en}: a timed row's verdict as its badge prints it, "faster · 2.16–3.02× · 3 pairs" /
    "更快 · 2.16–3.02× · 3 对"; a single run, which the rule cannot judge, is "one run" / "只测一次"."""
    if runs["n"] < 2:
        return dict(BADGE_ONE_RUN)
    word, span = BADGE_WORD[paired_verdict(runs)], f"{runs['min']:.2f}–{runs['max']:.2f}×"
    return {"zh": BADGE_SEP.join((word["zh"], span, f"{runs['n']} 对")), "en": BADGE_SEP.join((word["en"], span, f"{runs['n']} pairs"))}


def judge(row):
    """A timed row gets its verdict (macros.verdict prints it; check_verdicts holds the page to it)."""
    row["verdict"] = paired_verdict(row["speedup_runs"])

MEDIAN_RUN = ("speedup_from_parts", "round_total", "plain_per_char")  # what median_run_chars reads

def restore_runs(cut, rows, keys, given=None, where="a summary"):
    """A summary quotes a row cut down to a few fields: give it back its full row's paired speedups
    (and so its verdict) and its median run's figures where the cut row lacks them (median_run_chars),
    found by the fields that name it (`keys`, read from the cut row, and `given`, what the summary says
    once for all its rows). where: the summary's file and field, for the ResultsError when no row matches."""
    want = {k: cut.get(k) for k in keys} | (given or {})
    full = find_row(rows, **want)
    if full is None:
        raise ResultsError(f"{where} quotes a timed row that its rows lack: {want}")
    cut["speedup_runs"] = full["speedup_runs"]
    for key in MEDIAN_RUN:
        if key in full:
            cut.setdefault(key, full[key])
    judge(cut)

def answer_condition(row, engine, temperature, run):
    """The figure condition of a row of the answer run (regime.json, and the files that copy its rows)."""
    config = "-" if row["family"] == "plain" else f"{row['shape']}{row['size']}"
    return figure_condition(row["family"], config, engine, "kvcache", temperature, run)

def tag_regime(data, run="regime"):
    """The dial's rows and the peers': each gets its figure condition (`fig`, the scale as the run)
    and its verdict; each point, the condition its r_k are printed under (`fig_r`, "|k<k>" appended).
    run: the measurement's name in those conditions (a rerun of the dial has its own, build.render)."""
    name = run
    for point in data["regime"]["points"]:
        run = f"{name}-x{point['scale']:g}"
        point["fig_r"] = f"{name}|x{point['scale']:g}"
        peers = point.get("peers", {}).get("rows", [])
        for row in [r for rows in point["best"].values() for r in rows] + list(point.get("plain", {}).values()) + peers:
            row["fig"] = answer_condition(row, row["engine"], row["temperature"], run)
            judge(row)

def round_rest(row):
    """A timed row's round beyond its verify and drafting, in plain forwards: sampling, the rule and the loop
    (other_per_round, or what its round_total leaves where a row was summarised without it)."""
    return row.get("other_per_round", row["round_total"] - row["verify_over_main"] - row["drafter_per_round"])


def median_run_chars(row):
    """Characters per main forward in a timed row's median-time run, the run its round's parts come from: the
    speedup those parts give × the round's price ÷ plain decoding's price per character. ⑤'s sentences and
    ⑥'s box print this one figure; the row's tokens_per_main pools every run."""
    return row["speedup_from_parts"] * row["round_total"] / row["plain_per_char"]


def flat_bound(costs):
    """The most a forward may cost, over one position, and still count as flat: costs.json records one
    slack (experiments/stats.py FLAT_SLACK) beside each engine's curve, and every run measures eager's."""
    return 1 + costs["summary"]["eager"]["flat_slack"]
