"""The regime summary before ① (sections/regime.html.j2): what this page measures, what a GPU
differs in, and the dial's answer in one sentence each for the model as trained and its heaviest twin."""
from chapter.views.dial import dial_end
from chapter.views.rows import first_seed_run

FORWARD_ENGINE = "eager"  # the engine whose one-position forward the summary prices (costs.json)


def lesson_budget(budget):
    """The lesson's round numbers, with the sums the page prints worked out: γ drafts and one verify,
    the tokens they can buy, and writing the γ one at a time."""
    gamma, draft_ms, target_ms = budget["gamma"], budget["draft_ms"], budget["target_ms"]
    return {**budget, "speculative_ms": gamma * draft_ms + target_ms, "most_tokens": gamma + 1,
            "plain_ms": gamma * target_ms}


def view(data):
    """What the regime summary (sections/regime.html.j2) prints, computed here so that the template only formats it."""
    costs, points = data["costs"], data["regime"]["points"]
    engine = costs["summary"]["primary_engine"]
    flat = costs["summary"][engine]
    return {"main_params": first_seed_run(data["models"], "main")["params"],
            "forward_engine": FORWARD_ENGINE, "forward_ms": 1000 * costs["engines"][FORWARD_ENGINE]["seconds"]["main"],
            "engine": engine, "flat_until": flat["flat_until"], "flat_within": 1 + flat["flat_slack"],
            "widest": costs["positions"][-1], "threads_plural": costs["meta"]["threads"] != 1,
            "budget": lesson_budget(data["published"]["lesson_budget"]),
            "as_trained": dial_end(points[0]), "heavy": dial_end(points[-1])}
