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


def open_lab(page, state="ready", timeout=60_000):
    """Open ⑧'s lab as a reader does (its fold waits off the main path), scroll it into view and wait
    until its models reach `state` ("ready", or "error" where the browser cannot run them)."""
    fold = page.locator("#lab-fold")
    if fold.get_attribute("open") is None:
        fold.locator("> summary").click()
    page.locator("#lab-widget").scroll_into_view_if_needed()
    page.wait_for_selector(f'#lab-widget[data-state="{state}"]', state="attached", timeout=timeout)
    return page
