"""The built page in headless Chromium, opened from disk: no console errors, no network
requests, the language toggle works, and screenshots at desktop and phone width."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "site" / "16_speculative_decoding_viz.html"
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def open_page(browser, width, scheme="light", hash_=""):
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    errors, requests = [], []
    page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("request", lambda req: req.url.startswith("file://") or requests.append(req.url))
    page.goto(PAGE.as_uri() + hash_)
    page.wait_for_load_state("load")
    return page, errors, requests


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_page_loads_clean_and_toggles_language(browser, width, scheme):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page, errors, requests = open_page(browser, width, scheme, "#lang=zh")
    assert page.evaluate("document.documentElement.dataset.lang") == "zh"
    assert page.locator("h1 [lang=zh]").is_visible() and not page.locator("h1 [lang=en]").is_visible()
    page.screenshot(path=str(ARTIFACTS / f"page-{width}-{scheme}-zh.png"), full_page=True)
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # the toggle is the first focusable control
    assert page.evaluate("document.documentElement.dataset.lang") == "en"
    assert page.locator("h1 [lang=en]").is_visible()
    page.screenshot(path=str(ARTIFACTS / f"page-{width}-{scheme}-en.png"), full_page=True)
    # no horizontal scrolling at phone width
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert errors == [] and requests == []
    page.context.close()
