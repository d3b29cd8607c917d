"""⑥'s dial (regime.json) in words, and the peer library's table on the heaviest twin (both for the
page's scripts too, as data.dial and data.peer_twin); view() adds what the dial's sentences count and
compare (sections/dial.html.j2 and its deep dives, templates/deep/twin-build and dial-why)."""
from chapter.views.rows import find_row, ranges_overlap, round_rest


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
    (stays_faster_from, grouped by scale, with the main model's bytes; `never`: the families not
    faster at the heaviest scale), the best row of the
    whole dial, and Theorem 3.8 at the heaviest scale (dial_theory). tag_regime runs first."""
    regime = data["regime"]
    points, edge = regime["points"], regime["summary"]["cache_edge_bytes"]
    families = list(dict.fromkeys(r["family"] for p in points for r in p["best"]["T1"]))
    start = {f: stays_faster_from(points, "T1", f) for f in families}
    pays = [{"scale": p["scale"], "bytes": p["main_bytes"], "families": [f for f in families if start[f] == p["scale"]]}
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


def faster_count(rows):
    """How many of a scale's rows beat plain decoding in every paired repeat."""
    return sum(r["verdict"] == "faster" for r in rows)

def dial_end(point):
    """One end of the dial at T = 1, as the sentences quote it: its scale and weights, how many
    families it has and how many of them are faster, and its fastest row (the rows come fastest first)."""
    rows = point["best"]["T1"]
    return {"scale": point["scale"], "bytes": point["main_bytes"], "engine": rows[0]["engine"],
            "families": len(rows), "faster": faster_count(rows), "fastest": rows[0]}

def plain_forward_s(point, row):
    """One plain forward at a dial point, in seconds: plain decoding's time per character over the plain
    forwards it spends per character (its forward, sampling and loop), as measured beside `row`."""
    return point["plain"]["T1"]["s_per_char"] / row["plain_per_char"]

def milliseconds(seconds):
    """A time as the dial prints it in ms: three decimals below a millisecond (`fine`), one above."""
    return {"ms": 1000 * seconds, "fine": seconds < 1e-3}

def shown_prompt(prompt):
    """A prompt as <code> shows it, its line breaks written out."""
    return prompt.replace("\n", "\\n")

def config_key(row):
    """What macros.config prints for a row: a tree's nodes, or any other shape's γ."""
    return ("tree" if row["shape"] == "tree" else "chain", row["size"])

def pays_groups(dial):
    """dial_view's `pays`, each group told whether it is the model as trained (its wording differs)."""
    return [{**group, "as_trained": group["scale"] == 1} for group in dial["pays"]]

def pays_summary(dial, drawn):
    """"Where it pays for good" in one sentence, beside the grid that shows it cell by cell: the
    families of the first group by name; from the last group's scale, how many of all the charted
    families pay (every group before it counts there too); and those that never do, by name, the lines the
    chart draws (`drawn`) first and the rest said to be in ⑤'s fold (readers hunted the chart for them)."""
    groups = pays_groups(dial)
    if not groups:
        return None
    paying = sum(len(g["families"]) for g in groups)
    last = groups[-1] if len(groups) > 1 else None
    never = [f for f in dial["never"] if f in drawn]
    folded = [f for f in dial["never"] if f not in drawn]
    return {"first": groups[0], "last": last and {"bytes": last["bytes"], "count": paying, "of": paying + len(dial["never"])},
            "never": never, "never_folded": folded, "any_never": bool(dial["never"])}

def pays_in_cache(data, summary, box_family):
    """Where the first scale that pays for good still fits in the cache: its first family's round there against
    the model as trained, in plain forwards (the verify; drafting plus the rest). Printed only
    where the fixed costs fell more than the verify did: there the gain comes mostly from the dearer forward,
    not a cheap verify (readers took the cache edge for the threshold). None elsewhere."""
    regime = data["regime"]
    if summary is None or summary["first"]["as_trained"]:
        return None
    point = next(p for p in regime["points"] if p["scale"] == summary["first"]["scale"])
    family = summary["first"]["families"][0]
    before, at = find_row(regime["points"][0]["best"]["T1"], family=family), find_row(point["best"]["T1"], family=family)
    if point["main_bytes"] >= regime["summary"]["cache_edge_bytes"] or not (before and at):
        return None
    fixed = lambda r: r["drafter_per_round"] + round_rest(r)
    parts = {"family": family, "bytes": point["main_bytes"],
             # ⑥'s answer box takes this family apart (box_family: the heaviest scale's fastest): then its left
             # column is this round as trained
             "box_family": box_family == family,
             "verify": (before["verify_over_main"], at["verify_over_main"]), "fixed": (fixed(before), fixed(at))}
    return parts if parts["fixed"][0] - parts["fixed"][1] > parts["verify"][0] - parts["verify"][1] else None


THEORY_TEMPERATURES = (("T1", "T = 1"), ("T0", "T = 0"))

def theory_lines(theory):
    """dial_view's Theorem 3.8 check, one line per temperature that has chains, in percent: how many
    chains come close, the largest gap among those, and each row further off."""
    lines = []
    for key, name in THEORY_TEMPERATURES:
        check = theory.get(key)
        if not check or not check["rows"]:
            continue
        largest = check["largest_close_gap"]
        lines.append({"name": name, "rows": check["rows"], "within": check["rows"] - len(check["misses"]),
                      "close_pct": 100 * check["close"], "largest_close_pct": None if largest is None else 100 * largest,
                      "misses": [{"family": m["family"], "size": m["size"], "gap_pct": 100 * m["gap"], "chars": m["chars"],
                                  "expected_chars": m["expected_chars"], "rest_pct": 100 * m["rest_share"]}
                                 for m in check["misses"]]})
    return lines

def scale_times(light, heavy):
    """One forward's time at both ends of the dial, in ms (the deep dive on the dial's rows)."""
    return {"forward": {"light": milliseconds(light["main_s"]), "heavy": milliseconds(heavy["main_s"])}}

def dips(points, family, key="T1"):
    """The scales, lightest first, where the family's fastest row at temperature `key` is slower than
    at both neighbouring scales: a dip in its line on the dial."""
    speed = [next((r["speedup"] for r in p["best"].get(key, []) if r["family"] == family), None) for p in points]
    return [points[i]["scale"] for i in range(1, len(points) - 1)
            if None not in speed[i - 1:i + 2] and speed[i] < min(speed[i - 1], speed[i + 1])]

def lead_families(data):
    """The lines the dial draws with its grid closed (dial.js leadFamilies): the fastest family of each kind
    (registry.json's group) at the heaviest scale and T = 1, fastest first."""
    group = {f["name"]: f["group"] for f in data["registry"]["families"]}
    leads = {}
    for row in data["regime"]["points"][-1]["best"]["T1"]:
        leads.setdefault(group[row["family"]], row["family"])
    return list(leads.values())


def line_falls(data):
    """Each drawn line's falls at T = 1 from one scale to the next, in the lines' order, and how many of them lie
    within the two points' paired ranges (the run cannot tell the scales apart); `mostly`: over half do, which
    the note under the dial says with the first such fall. Readers asked why lines fall past 118 MB. None
    without a fall."""
    points, falls = data["regime"]["points"], []
    for family in lead_families(data):
        rows = [find_row(p["best"]["T1"], family=family) for p in points]
        for (a, ra), (b, rb) in zip(zip(points, rows), zip(points[1:], rows[1:])):
            if ra and rb and rb["speedup"] < ra["speedup"]:
                falls.append({"family": family, "from_bytes": a["main_bytes"], "to_bytes": b["main_bytes"],
                              "before": ra, "after": rb, "overlap": ranges_overlap(ra, rb)})
    if not falls:
        return None
    within = [f for f in falls if f["overlap"]]
    return {"n": len(falls), "within": len(within), "mostly": 2 * len(within) > len(falls),
            "example": within[0] if within else None}


def same_machine(a, b):
    """Did two results files run on the same kind of machine (meta: device name, device type, CPU details)?"""
    key = lambda meta: (meta.get("device"), meta.get("device_type"), meta.get("cpu"))
    return key(a["meta"]) == key(b["meta"])

def rerun_note(regime, rerun, family):
    """What a full rerun of the dial (build.load_rerun) says of the committed dial's first dip in the
    family's line: at that scale, the row's in-loop verify and speedup in both runs, the family's verify at
    the committed run's other scales, the rerun's commit, and how many families dip there in each run.
    None without a rerun, without a dip, when the rerun ran on another machine (its dips say nothing of
    this one's), or when the rerun lacks that scale or that family there."""
    scales = dips(regime["points"], family) if rerun and same_machine(regime, rerun) else []
    if not scales:
        return None
    at = {p["scale"]: i for i, p in enumerate(regime["points"])}[scales[0]]
    point = regime["points"][at]
    again = next((p for p in rerun["points"] if p["scale"] == point["scale"]), None)
    row = find_row(point["best"]["T1"], family=family)
    rerun_row = again and find_row(again["best"]["T1"], family=family)
    if not rerun_row:
        return None
    families = [r["family"] for r in point["best"]["T1"]]
    greedy = [r["family"] for r in point["best"].get("T0", [])]

    elsewhere = [r["verify_over_main"] for i, p in enumerate(regime["points"]) if i != at
                 for r in [find_row(p["best"]["T1"], family=family)] if r]

    def dip_here(run, key="T1", charted=families):
        return sum(point["scale"] in dips(run["points"], f, key) for f in charted)

    dipping, dipping_rerun = dip_here(regime), dip_here(rerun)
    return {"family": family, "scale": point["scale"], "bytes": point["main_bytes"], "row": row, "rerun_row": rerun_row,
            # how many of the families charted there dip at that scale, in the charted run and in the rerun
            "families": len(families), "dipping": dipping, "dipping_rerun": dipping_rerun,
            # the caption's words: most lines or some; fewer in the rerun; fewer than half as many (the dip is the run's)
            "most_dip": 2 * dipping > len(families), "fewer_in_rerun": dipping_rerun < dipping,
            "dip_is_the_runs": 2 * dipping_rerun < dipping,
            # and at T = 0 in the charted run, whose chart the temperature buttons switch to
            "greedy_dips_too": 2 * dip_here(regime, "T0", greedy) > len(greedy),
            # the family's in-loop verify at the other scales of the charted run: what the dip's verify stands against
            "verify_elsewhere": {"min": min(elsewhere), "max": max(elsewhere)}, "verify_dear": row["verify_over_main"] > max(elsewhere),
            "rerun_commit": rerun["meta"]["git_commit"][:7]}

def view(data, rerun=None):
    """What ⑥'s dial (sections/dial.html.j2) prints, computed here so that the template only formats it.
    dial_view (data.dial) has already said it in words; this adds what the sentences count and compare.
    rerun: the newest full rerun of the dial (build.load_rerun), tagged, or None; read for rerun_note only."""
    regime, dial = data["regime"], data["dial"]
    light, heavy = regime["points"][0], regime["points"][-1]
    fastest = heavy["best"]["T1"][0]
    as_trained = find_row(light["best"]["T1"], family=fastest["family"])
    greedy = heavy["best"].get("T0")
    pays = pays_summary(dial, lead_families(data))
    return {"as_trained": dial_end(light), "heaviest": dial_end(heavy),
            "light": light, "heavy": heavy,  # the two points themselves, for their r_k (macros.r_at) and c
            "prompt_shown": shown_prompt(regime["prompt"]), "threads_plural": regime["threads"] != 1,
            "edge_bytes": regime["summary"]["cache_edge_bytes"], "heaviest_cache_multiple": dial["heaviest_cache_multiple"],
            "bandwidth_gb_s": regime["roofline"]["bandwidth_bytes_per_s"] / 1e9, **scale_times(light, heavy),
            # the heaviest scale's fastest rows, that family's row as trained, and the fastest of the whole dial
            "fastest": fastest, "fastest_greedy": greedy[0] if greedy else None, "fastest_as_trained": as_trained,
            "config_moved": as_trained is not None and config_key(as_trained) != config_key(fastest),
            "best": dial["best"], "best_elsewhere": dial["best"]["scale"] != heavy["scale"],
            "fresh_check": regime.get("fresh_check"),
            "pays_summary": pays, "pays_in_cache": pays_in_cache(data, pays, fastest["family"]), "falls": line_falls(data),
            "theory": theory_lines(dial["theory"]), "rerun": rerun_note(regime, rerun, fastest["family"])}
