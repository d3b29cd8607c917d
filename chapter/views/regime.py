"""The regime summary before ① (sections/regime.html.j2): what this page measures, what a GPU differs
in, and what one CPU core shows of it along the dial (the mechanism); and `pays`, the chapter's answer
that the lede gives (views/header.py)."""
from chapter.views.dial import dial_end, milliseconds, plain_forward_s
from chapter.views.rows import first_seed_run, flat_bound

MECHANISM_FAMILY = "ngram"  # the drafter whose round the mechanism is told with: a table, with no weights to grow heavy
VERIFY_K = "5"  # the verify the mechanism quotes: 5 positions (γ = 4), r_5 at every scale


def lesson_budget(budget):
    """The lesson's round numbers, with the sums the page prints worked out: γ drafts and one verify,
    the tokens they can buy at most, and writing that many one at a time (the same tokens on both sides)."""
    gamma, draft_ms, target_ms = budget["gamma"], budget["draft_ms"], budget["target_ms"]
    return {**budget, "speculative_ms": gamma * draft_ms + target_ms, "most_tokens": gamma + 1,
            "plain_ms": (gamma + 1) * target_ms}


def mechanism_end(point, family=MECHANISM_FAMILY):
    """One end of the dial as the mechanism quotes it: the point (its r_k go through macros.r_at),
    the drafting and other costs per round (in plain forwards) of `family`'s best T = 1 row, and one
    plain forward's time there (as ⑥'s answer box prints it, from the same row)."""
    row = next(r for r in point["best"]["T1"] if r["family"] == family)
    return {"point": point, "r5": point["r"][VERIFY_K],
            "drafter": row["drafter_per_round"], "other": row["other_per_round"],
            "forward": milliseconds(plain_forward_s(point, row))}


def r5_band(points):
    """The lowest and highest r_5 over the dial's scales: the band the verify of 5 positions stays in."""
    r5 = [p["r"][VERIFY_K] for p in points]
    return {"min": min(r5), "max": max(r5)}


def r5_falls(points, bound):
    """Does the verify of 5 positions get cheaper along the dial: as trained dearer than at the heaviest scale
    by more than the flat bound allows (rows.flat_bound)? So on a CPU whose small forward is arithmetic-bound
    and whose twins read memory: the verify gets cheaper with the weights, as on a GPU."""
    return points[0]["r"][VERIFY_K] > bound * points[-1]["r"][VERIFY_K]


def mechanism(regime, bound, family=MECHANISM_FAMILY):
    """What the dial shows on one CPU core, from its lightest and heaviest scale: the band the verify of
    5 positions stays in (r_5 at every scale), or, where it falls, its two ends; and how the round's other
    costs (drafting; sampling, the rule and the loop) compare with a forward that grows dear. The booleans
    give each comparison's direction, for the sentences' wording. bound: the flat bound (rows.flat_bound)."""
    points = regime["points"]
    light, heavy = mechanism_end(points[0], family), mechanism_end(points[-1], family)
    band = r5_band(points)
    return {"light": light, "heavy": heavy,
            # the verify of 5 positions across every scale: a band (① prints its ends), unless it falls (r5_falls)
            "r5": band, "r5_above_one": band["min"] > 1, "r5_falls": r5_falls(points, bound),
            "forward_dearer": heavy["forward"]["ms"] > light["forward"]["ms"],
            "drafter_shrinks": heavy["drafter"] < light["drafter"], "other_shrinks": heavy["other"] < light["other"]}


def pays(as_trained, heavy):
    """The one plain sentence of the answer: whether some method is faster at each end of the dial,
    and whether the fastest is faster with the weights read from memory than as trained."""
    return {"as_trained": as_trained["faster"] > 0, "heavy": heavy["faster"] > 0,
            "more_when_heavy": heavy["fastest"]["speedup"] > as_trained["fastest"]["speedup"]}


def view(data):
    """What the regime summary (sections/regime.html.j2) prints, computed here so that the template only formats it."""
    points = data["regime"]["points"]
    return {"main_params": first_seed_run(data["models"], "main")["params"],
            "budget": lesson_budget(data["published"]["lesson_budget"]),
            "as_trained": dial_end(points[0]), "heavy": dial_end(points[-1]),
            # the aside's "cheap but never free": the band the 5-position verify stays in over the dial, as ① prints it
            "mechanism": mechanism(data["regime"], flat_bound(data["costs"]))}
