"""The page tests' fixtures: a headless Chromium (Debian's, driven by Playwright) and a page opener
that records console errors and network requests and fails the test if there were any."""
import pytest

from tools.browser import CHROMIUM, CHROMIUM_ARGS, LAY_OUT_ALL, PAGE


def lay_out_all(page):
    """Lay out every section, for a check of the whole page's layout (see tools/browser.py)."""
    page.add_style_tag(content=LAY_OUT_ALL)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def open_page(browser):
    opened = []

    def _open(width=1280, scheme="light", hash_="#lang=en", lazy_layout=False):
        """The page, loaded, every widget started; with every section laid out (text and boxes
        measurable off screen) unless lazy_layout keeps the page's own content-visibility."""
        context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        page = context.new_page()
        page.errors, page.requests = [], []
        page.on("console", lambda msg: msg.type in ("error", "warning") and page.errors.append(msg.text))
        page.on("pageerror", lambda err: page.errors.append(str(err)))
        page.on("request", lambda req: req.url.startswith("file://") or page.requests.append(req.url))
        page.goto(PAGE.as_uri() + hash_)
        page.wait_for_load_state("load")
        page.wait_for_function("document.documentElement.dataset.widgets === 'ready'")  # main.js: all started
        if not lazy_layout:
            lay_out_all(page)
        opened.append(page)
        return page

    yield _open
    for page in opened:
        assert page.errors == [], page.errors
        assert page.requests == [], page.requests
        page.context.close()
