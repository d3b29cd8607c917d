"""⑦, choosing a method: the papers' figures its picker quotes."""
from pathlib import Path

import orjson

STATIC = Path(__file__).resolve().parents[2] / "static"


def published(path=STATIC / "data" / "published.json"):
    """Papers' figures that ⑦'s method picker quotes for a GPU, each with its arXiv id."""
    return orjson.loads(Path(path).read_bytes())


def plain_start_up(conditions):
    """The start-up of a fresh process that decodes plainly (conditions.json start_up)."""
    return next(r for r in conditions["start_up"] if r["family"] == "plain")


def length_row(conditions, n_chars, family):
    """A family's timed row at one output length (conditions.json by_length)."""
    return next(r for r in conditions["by_length"] if r["n_chars"] == n_chars and r["family"] == family)


def view(data):
    """What ⑦, choosing a method (sections/choosing.html.j2) prints, computed here so that the template only formats it."""
    return {}
