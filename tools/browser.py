"""The headless browser the page is checked in, launched one way by the tests and by make bench:
Debian's chromium (playwright's own browsers cannot be downloaded here) with these flags."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = Path(os.environ.get("CHAPTER_PAGE", ROOT / "site" / "16_speculative_decoding_viz.html"))  # another build: set CHAPTER_PAGE
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
# Sections far from the window are not laid out (content-visibility: auto), and what overflows a
# section is clipped: a check of the whole page's layout (or its height) lays them all out first.
LAY_OUT_ALL = "main > section[id^='s-'] { content-visibility: visible !important; }"
