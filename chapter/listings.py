"""Code shown on the page, taken from the source it shows so that it cannot drift from it.

A region starts at a line `# page listing: NAME` and ends at `# end page listing`, in the file
that LISTINGS names; the lines between them are shown dedented. A missing or unterminated region is
a clear build error naming the file.
"""
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# name -> (file, the function the region lives in): section ①'s listing of one round and its rule
LISTINGS = {"round": ("experiments/speculative.py", "speculative_decode"),
            "rule": ("experiments/rule.py", "accept_reject")}


class ListingError(Exception):
    pass


def region(text, name, where):
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip().startswith(f"# page listing: {name} ")
              or line.strip() == f"# page listing: {name}"]
    if len(starts) != 1:
        raise ListingError(f"{where}: expected one '# page listing: {name}' line, found {len(starts)}")
    start = starts[0] + 1
    end = next((i for i in range(start, len(lines)) if lines[i].strip() == "# end page listing"), None)
    if end is None:
        raise ListingError(f"{where}: the listing '{name}' has no '# end page listing' line")
    return textwrap.dedent("\n".join(lines[start:end]))


def listings(root=ROOT):
    """{name: {"path", "function", "code"}} for every listing the page shows."""
    out = {}
    for name, (path, function) in LISTINGS.items():
        source = Path(root) / path
        if not source.is_file():
            raise ListingError(f"{path} is missing: the page's listing '{name}' is taken from it")
        out[name] = {"path": path, "function": function, "code": region(source.read_text(encoding="utf-8"), name, path)}
    return out
