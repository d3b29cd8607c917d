"""⑥'s engine deep dive (sections/engines.html.j2, its body in deep/engines.html.j2): the same decoders
on the compiled engine (ledger.json compiled), on every engine of the ladder (ladder.json), and in
the library a reader would use, on the weights as trained (ledger.json peer) and on the dial's
heaviest twin (regime.json, through dial.peer_view)."""
from chapter.views.rows import first_seed_run

# the three parts of a round the ladder takes apart, as its sentences name them
PART_NAMES = {"verify": {"zh": "验收", "en": "The verify"}, "drafting": {"zh": "起草", "en": "Drafting"},
              "other": {"zh": "其余部分", "en": "The rest of the loop"}}

def loop_against_alone(summary):
    """How the compiled fastest row's verify inside the run compares with the same verify timed back
    to back: "dearer" (the loop's extra is clear), "cheaper" (the in-loop price, at the two decimals
    the page prints, below the lowest repeat's) or "within" the repeats' spread."""
    if summary["loop_extra_clear"]:
        return "dearer"
    if round(summary["verify_over_plain"], 2) < round(summary["back_to_back"]["min"], 2):
        return "cheaper"
    return "within"

def compiled_lane(ledger):
    """The compiled engine's ledger: its fastest row (the summary's cut-down `fastest` and its full
    row), the verify's price in the run and alone, and where compiled plain greedy decoding first
    leaves the eager engine's text (1-based; None: nowhere). None where it was not measured."""
    compiled = ledger.get("compiled")
    if not compiled:
        return None
    fastest, summary = compiled["fastest"], ledger["summary"]["compiled"]
    row = next(r for r in compiled["rows"] if r["method"] == fastest["method"] and r["gamma"] == fastest["gamma"])
    mismatch = compiled["plain_greedy_first_mismatch"]
    return {"fastest": fastest, "row": row, "summary": summary, "back_to_back": summary["back_to_back"],
            "verify_ms": 1000 * summary["verify_s"], "plain_ms": 1000 * summary["plain_s"],
            "verify_positions": fastest["gamma"] + 1, "loop_against_alone": loop_against_alone(summary),
            "plain_mismatch_at": None if mismatch is None else mismatch + 1}

def grew_most(says):
    """The parts of a round that grew most from the reference engine to the last, in plain forwards
    of each engine: each with its names and its growth."""
    return [{"part": part, "growth": says["growth"][part], **PART_NAMES[part]} for part in says["grew_most"]]

def temperature_says(says, temperature):
    """What the ladder says at one temperature: its summary, whether a rung with less overhead than the
    reference was measured (`compared`), and the parts of the round that grew most (`grew_alone`: the
    one part, where one grew more than the others)."""
    compared = says.get("overhead_gain") is not None
    grew = grew_most(says) if compared else []
    return {**says, "temperature": temperature, "key": f"T{temperature:g}", "compared": compared,
            "grew": grew, "grew_alone": grew[0]["part"] if len(grew) == 1 else None}

def ladder(data):
    """The engine ladder: its engines (from the most per-call overhead to the least) and where they
    ran, the reference engine and the last rung, what it says at each temperature, and the main
    model's weights in MB."""
    ld = data["ladder"]
    return {"engines": ld["engines"], "device": ld["meta"]["device"], "threads": ld["threads"],
            "fresh_check": ld.get("fresh_check"), "reference": ld["reference"], "last": ld["engines"][-1],
            "last_is_reference": ld["engines"][-1] == ld["reference"], "many_threads": ld["threads"] != 1,
            "weights_mb": data["families"]["summary"]["memory"]["main_bytes"] / 1e6,
            "says": [temperature_says(ld["summary"][f"T{t:g}"], t) for t in ld["temperatures"]]}

def library_as_trained(ledger):
    """The library's three rows on the weights as trained (plain, assisted, lookup, by method), its
    per-character times in ms beside ours, and whether the table has a column against our compiled
    engine. None where the library was not measured."""
    peer = ledger.get("peer")
    if not peer:
        return None
    rows = {r["method"]: r for r in peer["rows"]}
    summary = ledger["summary"]["peer"]
    ms = {name: 1000 * summary[f"{name}_s"]
          for name in ("forward", "ours_forward", "other", "ours_other", "forward_gap", "other_gap")}
    return {"version": peer["version"], "gamma": peer["gamma"], "check": peer["check"], "rows": peer["rows"],
            "plain": rows["plain"], "assisted": rows["assisted"], "lookup": rows["lookup"], "summary": summary, "ms": ms,
            "compiled_column": rows["plain"]["over_ours_compiled"] is not None}

def peer_engines(registry):
    """The engines that are another library's, not this chapter's (registry.json `peer`)."""
    return {e["name"] for e in registry["engines"] if e.get("peer")}

def library_assists(row, peers):
    """A library's draft-model row is its assisted generation."""
    return row["engine"] in peers and row["family"] == "draft"

def twin_row(item, peers):
    """A row of the twin's table: peer_view's row and time per character, and how the table names it."""
    row = item["row"]
    return {**item, "ours": row["engine"] not in peers, "plain": row["family"] == "plain",
            "assisted": library_assists(row, peers)}

def library_on_twin(data):
    """The dial's heaviest twin in the library (data.peer_twin, dial.peer_view's table): its rows
    named for the table, r_k of the native and the eager engine there, and ours against the library's
    fastest (`against`, None where regime.json has no summary.peer). None where the library was not
    measured."""
    twin = data["peer_twin"]
    if twin is None:
        return None
    heavy, peers, against = data["regime"]["points"][-1], peer_engines(data["registry"]), twin["against"]
    # the eager r_k's figure condition, as tag_regime writes the native one's (point fig_r, "|k<k>" appended)
    r_rows = [{"k": k, "eager": r["eager"], "eager_fig": f"regime|eager|x{twin['scale']:g}|k{k}"}
              for k, r in twin["r"].items()]
    return {"bytes": twin["bytes"], "version": twin["version"], "heavy": heavy,
            "repeats": twin["rows"][0]["row"]["repeats"],
            "rows": [twin_row(item, peers) for item in twin["rows"]], "r_rows": r_rows,
            "native_r2_below_one": heavy["r"]["2"] < 1, "against": against,
            "theirs_plain": bool(against) and against["theirs"]["family"] == "plain",
            "theirs_assisted": bool(against) and library_assists(against["theirs"], peers)}


def view(data):
    """What ⑥'s engine deep dive (sections/engines.html.j2) prints, computed here so that the template only formats it."""
    ledger, main = data["ledger"], first_seed_run(data["models"], "main")
    return {"n_chars": ledger["n_chars"], "temperature": ledger["temperature"], "block": main["config"]["block_size"],
            "params": main["params"], "compiled": compiled_lane(ledger), "ladder": ladder(data),
            "library": library_as_trained(ledger), "twin": library_on_twin(data)}
