"""⑥, the ledger (sections/ledger.html.j2 and its deep dives, templates/deep/): the model as trained on
the eager engine, row by row; the kv-cache row that saves the most main forwards, taken apart; the
recompute bill; the greedy check; and what the families' ledger says around its table."""
from chapter.views.dial import THEORY_CLOSE, plain_forward_s, shown_prompt
from chapter.views.rows import find_row, first_seed_run, median_run_chars, ranges_overlap, round_rest

ENGINES = {"rows": "eager", "compiled": "compiled"}  # the engine of the ledger's rows (rows.py: a row without one), and its third button's


def mode_rows(ledger, mode):
    """The ledger's rows in one mode: plain decoding's, and the speculative ones."""
    rows = [r for r in ledger["rows"] if r["mode"] == mode]
    return find_row(rows, method="plain"), [r for r in rows if r["method"] != "plain"]

def fewest_forwards_rows(ledger):
    """The kv-cache row that makes the fewest main forwards (summary.fewest_main_forwards), and plain decoding's."""
    fewest = ledger["summary"]["fewest_main_forwards"]
    plain, spec = mode_rows(ledger, "kvcache")
    return find_row(spec, method=fewest["method"], gamma=fewest["gamma"]), plain

def saving_bill(data, cut, plain):
    """Why that row's time drops less than its main forwards: what its drafter's and the main model's
    forwards cost, against plain decoding, and the rest of its round, in the units the page prints."""
    ledger = data["ledger"]
    fewest, prices = ledger["summary"]["fewest_main_forwards"], ledger["forward_costs"]["kvcache"]["seconds"]
    is_draft = cut["method"] == "draft"
    return {"saved_pct": 100 * fewest["main_forwards_saved"],
            "is_draft": is_draft, "drafts_in_sequence": is_draft and cut["gamma"] > 1,
            "drafts_exceed_plain": fewest["drafts_exceed_plain_forwards"],
            "drafts_pct_of_plain": 100 * fewest["draft_over_plain_forwards"],
            "draft_ms": 1000 * (prices["draft"] if is_draft else prices["mtp_head"]), "main_ms": 1000 * prices["main"],
            "draft_params_pct": 100 * data["models"]["summary"]["draft_params_fraction"],
            "verify_positions": cut["gamma"] + 1, "rest_pct": 100 * cut["parts_share"]["other"],
            "rest_ms": 1000 * cut["overhead_per_main_forward_s"], "plain_rest_ms": 1000 * plain["overhead_per_main_forward_s"]}

def recompute_bill(ledger):
    """Recompute mode in a sentence: a main step's price, c, the verify of γ_max drafts, the fastest row."""
    costs, fastest = ledger["forward_costs"]["recompute"], ledger["summary"]["fastest"]["recompute"]
    gamma_max = ledger["gamma_max"]
    _, spec = mode_rows(ledger, "recompute")
    return {"main_ms": 1000 * costs["seconds"]["main"], "c": costs["c"], "gamma_max": gamma_max,
            "verify_over_main": costs["verify_over_main"][str(gamma_max)],
            "verify_flat": ledger["summary"]["recompute_verify_flat"],
            "fastest": find_row(spec, method=fastest["method"], gamma=fastest["gamma"])}

def greedy_groups(checks):
    """The greedy checks grouped by mode in their order, a mismatch counted from 1 as the table prints it."""
    groups = []
    for check in checks:
        if not groups or groups[-1]["mode"] != check["mode"]:
            groups.append({"mode": check["mode"], "checks": []})
        differs = None if check["equal"] else check["first_mismatch"] + 1
        groups[-1]["checks"].append({**check, "differs_from": differs})
    return groups

def family_ledger(families):
    """What the families' ledger says around its table: the engine of the dial's first point, how
    often the sweep timed each configuration, and the T = 0 greedy check when there is one."""
    check = families["summary"]["greedy_check"]
    return {"engines": families["engines"], "answer_engine": families["engines"][0],
            "sweep_once": families["sweep_repeats"] == 1, "greedy_check": check if check["configurations"] else None}


def box_column(point, row):
    """One end of the dial in ⑥'s answer box, all from the row's median-time run and in plain
    forwards: the characters that run wrote per round (one main forward each: forwards saved),
    what plain decoding pays for as many characters (times its own cost per character), and the
    round's price: (a) the verify, (b) drafting, (c) the rest. Plain's price over the round's is the
    speedup. forward_s: one plain forward in seconds (plain decoding's time per character over its
    plain forwards per character), the unit that turns (a)–(c) into time."""
    rest = round_rest(row)
    chars = median_run_chars(row)
    return {"point": point, "row": row, "bytes": point["main_bytes"],
            "forward_s": plain_forward_s(point, row), "rest": rest, "fixed": row["drafter_per_round"] + rest,
            "chars_per_round": chars, "saved_pct": 100 * (1 - 1 / chars),
            # (a)'s k: a chain's verify checks γ drafts and the last character (readers set (a) against ①'s r₅)
            "verify_k": row["size"] + 1 if row["shape"] == "chain" else None,
            "plain_price": chars * row["plain_per_char"]}

def answer_box(data):
    """⑥'s opening box: the heaviest scale's fastest family at T = 1 on the dial's native rows, as
    trained and at the heaviest twin (box_column). The family's row as trained is its fastest there; a family not
    measured as trained leaves that column out. verify_steady: ① within THEORY_CLOSE at both ends."""
    points = data["regime"]["points"]
    light, heavy = points[0], points[-1]
    fastest = heavy["best"]["T1"][0]
    trained = find_row(light["best"]["T1"], family=fastest["family"])
    columns = ([box_column(light, trained)] if trained else []) + [box_column(heavy, fastest)]
    t, h = columns[0], columns[-1]
    # in time, from one end to the other: a plain forward, then (b) and (c) (their plain forwards times its time)
    growth = {"forward": h["forward_s"] / t["forward_s"],
              "drafting": h["row"]["drafter_per_round"] * h["forward_s"] / (t["row"]["drafter_per_round"] * t["forward_s"]),
              "rest": h["rest"] * h["forward_s"] / (t["rest"] * t["forward_s"]),
              "weights": h["bytes"] / t["bytes"]}
    leader = light["best"]["T1"][0]  # as trained, the fastest family (⑤'s)
    return {"family": fastest["family"], "columns": columns, "trained": trained is not None, "growth": growth,
            "chain": all(c["verify_k"] for c in columns),  # the caption names (a) r_{γ+1}
            # as trained another family may lead (⑤ names it): the box says so beside the left column
            "leader_as_trained": leader if trained and leader["family"] != fastest["family"] else None,
            # ... and level with it where the two rows' paired ranges overlap
            "level_with_leader": trained is not None and ranges_overlap(leader, trained),
            # how many times slower a plain forward reads each byte of the main model at the heavy end
            "read_slower": (t["bytes"] / t["forward_s"]) / (h["bytes"] / h["forward_s"]),
            # the forward's growth to two significant figures, as the box prints it: its ms ends, printed
            # to three, would not divide to the last digit of a three-figure growth
            "forward_about": float(f"{growth['forward']:.2g}"),
            # a forward outgrows its weights once they no longer fit in cache (a slower read per byte)
            "forward_outgrows_weights": growth["forward"] > growth["weights"]
                                        and heavy["main_bytes"] > data["regime"]["summary"]["cache_edge_bytes"],
            # (b) and (c) grow in time, but less than the forward: so they shrink in plain forwards
            "others_grow_less": max(growth["drafting"], growth["rest"]) < growth["forward"],
            # (b) + (c) under a tenth of what they were: the box says they all but vanish
            "fixed_vanish": h["fixed"] < 0.1 * t["fixed"],
            # ① about the same at both ends (the box's words), else whether it falls or rises
            "verify_steady": abs(h["row"]["verify_over_main"] / t["row"]["verify_over_main"] - 1) <= THEORY_CLOSE,
            "verify_falls": h["row"]["verify_over_main"] < t["row"]["verify_over_main"]}


def view(data):
    """What ⑥, the ledger (sections/ledger.html.j2) prints, computed here so that the template only formats it."""
    ledger, run = data["ledger"], first_seed_run(data["models"], "main")
    block = run["config"]["block_size"]
    cut, kv_plain = fewest_forwards_rows(ledger)
    return {"main_run": run, "block": block, "gamma_cap": block - 1, "prompt_shown": shown_prompt(ledger["prompt"]),
            "warmup_plural": ledger["warmup"] != 1, "threads_plural": ledger["threads"] != 1,
            "has_compiled": bool(ledger.get("compiled")), "families": family_ledger(data["families"]),
            "greedy_groups": greedy_groups(ledger["greedy_check"]), "greedy_all_equal": ledger["summary"]["greedy_all_equal"],
            "cut": cut, "kv_plain": kv_plain, "bill": saving_bill(data, cut, kv_plain), "recompute": recompute_bill(ledger),
            "engine": ENGINES, "answer": answer_box(data)}
