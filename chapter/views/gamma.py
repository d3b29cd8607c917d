"""③, how many to guess (sections/gamma.html.j2): the γ sweep of the eager draft model (gamma_sweep.json),
how closely it follows the formula (deep/gamma-fit.html.j2), and the best γ of the draft model on ⑥'s
dial (regime.json) beside it."""
from chapter.views.rows import find_row, first_seed_run


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

def dial_draft(regime):
    """The draft model's fastest row on ⑥'s dial at T = 1, as trained (`light`) and at the heaviest
    scale (`heavy`), with the γ each was chosen among; None where either scale lacks the draft model."""
    light = find_row(regime["points"][0]["best"]["T1"], family="draft")
    heavy = find_row(regime["points"][-1]["best"]["T1"], family="draft")
    if not (light and heavy):
        return None
    return {"light": light, "heavy": heavy, "light_among": regime["sweep"]["gammas"],
            "heavy_among": [size for _shape, size in regime["candidates"]["draft"]]}


def view(data):
    """What ③, how many to guess (sections/gamma.html.j2) prints, computed here so that the template only formats it."""
    sweep, models = data["gamma_sweep"], data["models"]
    summary, costs = sweep["summary"], sweep["forward_costs"]
    return {"sweep": sweep, "best": summary["fastest"]["kvcache"], "n_gammas": len(sweep["gammas"]),
            "gamma_max": sweep["gamma_max"], "gamma_before_max": sweep["gamma_max"] - 1,
            "main_layers": layers(models, "main"), "draft_layers": layers(models, "draft"),
            # the median repeat's two forwards behind c, in seconds (build.ms_pair prints them)
            "kv_pair": costs["kvcache"]["c_pair"], "rc_pair": costs["recompute"]["c_pair"],
            "cache_gain": summary["kvcache_forward_gain"], "c_with_cache": summary["c_with_cache"],
            "tokens_drop": summary["tokens_drops"] > 0, "fit": formula_fit(summary), "dial": dial_draft(data["regime"])}
