"""Is the built page the committed one, up to whitespace? For refactors that must not change the page.

    python -m tools.page_diff [REV]   # REV: the commit to compare with (default HEAD)

Every <pre>, <script> and <style> block must be byte-identical; elsewhere, runs of whitespace count
as one space (and none between two tags). Prints the first differences and exits 1 when there are any."""
import difflib
import re
import subprocess
import sys

from chapter.build import OUT, ROOT

VERBATIM = re.compile(r"<(pre|script|style)\b.*?</\1>", re.S)


def parts(html):
    """The page's verbatim blocks, and the rest with its whitespace normalised, one tag per line."""
    blocks = [m.group(0) for m in VERBATIM.finditer(html)]
    rest = re.sub(r"\s+", " ", VERBATIM.sub("<verbatim/>", html))
    rest = re.sub(r">\s+<", "><", rest).replace("><", ">\n<")
    return blocks, rest.splitlines()


def main(rev="HEAD"):
    old = subprocess.run(["git", "show", f"{rev}:site/{OUT.name}"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    old_blocks, old_rest = parts(old)
    new_blocks, new_rest = parts(OUT.read_text(encoding="utf-8"))
    changed = [i for i, (a, b) in enumerate(zip(old_blocks, new_blocks)) if a != b]
    if len(old_blocks) != len(new_blocks):
        print(f"{len(old_blocks)} verbatim blocks at {rev}, {len(new_blocks)} now")
    for i in changed[:5]:
        print(f"verbatim block {i} differs: {old_blocks[i][:80]!r}")
    diff = list(difflib.unified_diff(old_rest, new_rest, rev, "built", n=1, lineterm=""))
    print("\n".join(diff[:60]))
    same = not diff and not changed and len(old_blocks) == len(new_blocks)
    print("same page, up to whitespace" if same else "the page differs")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
