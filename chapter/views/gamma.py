"""③, how many to guess (sections/gamma.html.j2): the draft model's γ sweep (gamma_sweep.json: kv cache on
the answer engine, recompute on the eager engine), how closely it follows the formula (deep/gamma-fit.html.j2),
and the table of the draft model's best γ on ⑥'s dial (regime.json), the chapter's answer engine."""
from chapter.views.glossary import context_window
from chapter.views.rows import answer_condition, find_row, first_seed_run, ranges_overlap


def layers(models, role):
    """The layer count of the first seed's `role` model ("main", "draft"): all seeds share a config."""
    return first_seed_run(models, role)["config"]["n_layer"]

def formula_fit(summary):
    """The deep dive's figures: how far the measured characters per forward stray from E(α, γ), and
    how many rows of each mode fall below Theorem 3.8."""
    below = summary["below_theory"]
    kv, rc = below["kvcache"], below["recompute"]
    return {"rows": summary["rows"], "max_deviation_pct": 100 * summary["max_tokens_deviation"],
            "all_below_expected_tokens": summary["all_below_expected_tokens"],
            "kv_below": kv["rows_below"], "kv_rows": kv["rows"], "rc_below": rc["rows_below"], "rc_rows": rc["rows"],
            "all_below_theory": kv["rows_below"] == kv["rows"] and rc["rows_below"] == rc["rows"]}

def recompute_verify(sweep):
    """A recompute-mode verify's price in main forwards at the shortest and longest γ that mode swept (each
    checked position reruns its own window), on that mode's lane (lane_costs, as static/js/gamma.js reads it),
    and whether every recompute row's paired repeats all ran below 1×."""
    rows = [r for r in sweep["rows"] if r["mode"] == "recompute"]
    gammas = sorted(r["gamma"] for r in rows) or sorted(sweep["gammas"])
    price = sweep["lane_costs"]["recompute"]["verify_over_main"]
    return {"gamma_lo": gammas[0], "gamma_hi": gammas[-1], "lo": price[str(gammas[0])], "hi": price[str(gammas[-1])],
            "all_below_one": bool(rows) and all(r["speedup_runs"]["max"] < 1 for r in rows)}

def runner_up(rows, best):
    """The fastest of `rows` (each a timed row of one family) whose γ is not `best`'s (None if none)."""
    others = [r for r in rows if r["size"] != best["size"]]
    return max(others, key=lambda r: r["speedup"]) if others else None

def tried_text(sizes, sep):
    """The γ tried as the table prints them: "1–8" where they run without a gap, else listed with `sep`."""
    sizes = sorted(sizes)
    if len(sizes) > 2 and sizes == list(range(sizes[0], sizes[-1] + 1)):
        return f"{sizes[0]}–{sizes[-1]}"
    return sep.join(str(s) for s in sizes)

def choice_row(best, tried, runner, runner_fig, engine, main_bytes):
    """One row of ③'s table of the best γ: the γ tried (one run each), the best row (timed again: its speedup
    and verdict), the runner-up of the one-run tries and the condition its speedup is printed under."""
    runs = best["speedup_runs"]
    return {"engine": engine, "main_bytes": main_bytes, "tried": sorted(tried), "best": best,
            "tried_zh": tried_text(tried, "、"), "tried_en": tried_text(tried, ", "),
            "runner": runner, "runner_fig": runner_fig,
            "interior": min(tried) < best["size"] < max(tried),  # neither the shortest nor the longest chain tried
            "largest": best["size"] == max(tried),  # else, at an end, the shortest
            "runner_within": runner is not None and runs["min"] <= runner["speedup"] <= runs["max"]}

def dial_choice(point, engine):
    """The draft model's row of ③'s table at one scale of ⑥'s dial (T = 1): the γ its choosing runs tried
    (one run each), the best, timed again in paired repeats, and the runner-up of the choosing runs;
    None where the scale lacks the draft model."""
    best = find_row(point["best"]["T1"], family="draft")
    tried = [r for r in point.get("choose", {}).get("T1", []) if r["family"] == "draft" and r["shape"] == "chain"]
    if best is None or not tried:
        return None
    runner = runner_up(tried, best)
    fig = runner and answer_condition(runner, engine, 1.0, f"regime-x{point['scale']:g}-choose")
    return choice_row(best, [r["size"] for r in tried], runner, fig, engine, point["main_bytes"])


def square(sweep, gamma):
    """The kv-cache row of ③'s squares at `gamma` (the speedup chart draws its paired range as a bar)."""
    return find_row(sweep["rows"], mode="kvcache", engine=sweep["engines"]["kvcache"], gamma=gamma)

def gamma_choice(data):
    """③'s small table of the best γ by speedup, for the draft model at T = 1 on the answer engine (⑥'s dial,
    SPEC §10: one answer engine), at the model as trained and at the heaviest twin; and the facts its rule
    of thumb follows from, over both rows: the best γ was never an end of the γ tried (`interior`), and each
    runner-up fell inside its best row's paired range (`flat`). None where the dial lacks the draft model."""
    regime = data["regime"]
    points = regime["points"]
    dial = [dial_choice(points[0], regime["engine"]), dial_choice(points[-1], regime["engine"])]
    if None in dial:
        return None
    rows = [{**row, "where": where} for row, where in zip(dial, ("light", "heavy"))]
    sweep = data["gamma_sweep"]
    fastest_square = sweep["summary"]["fastest"]["kvcache"]["gamma"]
    best_square, dial_square = square(sweep, fastest_square), square(sweep, rows[0]["best"]["size"])
    return {"rows": rows, "interior": all(r["interior"] for r in rows), "flat": all(r["runner_within"] for r in rows),
            "edges": [r for r in rows if not r["interior"]],  # the rows whose best γ is an end of the γ tried
            # the squares' fastest γ against the dial's as trained: two runs of one drafter on one engine that
            # need not agree where the curve is flat (the rule of thumb names both)
            "square_gamma": fastest_square, "dial_gamma": rows[0]["best"]["size"],
            "runs_disagree": sweep["engines"]["kvcache"] == regime["engine"] and fastest_square != rows[0]["best"]["size"],
            # readers saw the two squares level on the chart: both speedups, and whether their paired ranges overlap
            "squares": {"best": best_square, "dial": dial_square,
                        "level": ranges_overlap(best_square, dial_square)} if best_square and dial_square else None}


def view(data):
    """What ③, how many to guess (sections/gamma.html.j2) prints, computed here so that the template only formats it."""
    sweep, models = data["gamma_sweep"], data["models"]
    summary, costs = sweep["summary"], sweep["forward_costs"]
    kv_rows = [r for r in sweep["rows"] if r["mode"] == "kvcache"]
    return {"sweep": sweep, "best": summary["fastest"]["kvcache"], "n_gammas": len(kv_rows),
            # the verdict rule's example, stated beside the squares whose bars are paired ranges (verdict_rule.html.j2)
            "fastest_square": square(sweep, summary["fastest"]["kvcache"]["gamma"]),
            "kv_repeats": kv_rows[0]["repeats"],  # every row of a lane ran the same repeats (measure/ledger.py)
            # the engine of the charts' squares (the answer engine where it built) and of recompute mode
            "engine": sweep["engines"]["kvcache"], "rc_engine": sweep["engines"]["recompute"],
            "ranking_engine": sweep["engines"]["kvcache"] == data["regime"]["engine"],  # the engine ⑤–⑦ rank on
            "eager_c": {mode: costs[mode]["c"] for mode in costs},  # the FAQ's c of both modes, on the eager engine
            "gamma_max": sweep["gamma_max"], "gamma_before_max": sweep["gamma_max"] - 1, "block_size": context_window(data),
            "main_layers": layers(models, "main"), "draft_layers": layers(models, "draft"),
            # the median repeat's two forwards behind c, in seconds (build.ms_pair prints them)
            "kv_pair": costs["kvcache"]["c_pair"], "rc_pair": costs["recompute"]["c_pair"],
            "cache_gain": summary["kvcache_forward_gain"], "c_with_cache": summary["c_with_cache"],
            "tokens_drop": summary["tokens_drops"] > 0, "fit": formula_fit(summary),
            "recompute_verify": recompute_verify(sweep), "choice": gamma_choice(data)}
