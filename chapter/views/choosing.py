"""⑦, choosing a method: the papers' figures its picker quotes."""
from pathlib import Path

import orjson

STATIC = Path(__file__).resolve().parents[2] / "static"


def published(path=STATIC / "data" / "published.json"):
    """Papers' figures that ⑦'s method picker quotes for a GPU, each with its arXiv id."""
    return orjson.loads(Path(path).read_bytes())


def view(data):
    """What ⑦, choosing a method (sections/choosing.html.j2) prints, computed here so that the template only formats it."""
    return {}
