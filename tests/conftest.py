"""Shared fixtures: a headless Chromium (Debian's, driven by Playwright) and a page opener that
records console errors and network requests and fails the test if there were any."""
from pathlib import Path

import pytest
import torch

from chapter import build
from experiments import aot
from experiments.data import DataError, find_data
from experiments.jsonio import RESULTS, read_json
from tools.browser import CHROMIUM, CHROMIUM_ARGS, LAY_OUT_ALL, PAGE  # noqa: F401 (PAGE: the tests import it from here)

# One thread: as fast as two for these batch-1 models, and two processes that each spin two
# OpenMP threads on a 2-core machine slow each other down many times over.
torch.set_num_threads(1)

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"


@pytest.fixture(scope="session")
def rendered_page():
    """The page as `make site` would build it now, from templates/, static/ and the results JSON."""
    return build.render(build.load_results())


@pytest.fixture(scope="session")
def models64():
    """The committed seed-0 main and draft checkpoints in float64, so that no near-tie flips an
    argmax. One pair per session: the compiled engine compiles once per model object."""
    from experiments.model import load_checkpoint
    paths = [ROOT / "experiments" / "checkpoints" / f"{name}_s0.pt" for name in ("main", "draft")]
    missing = [str(p) for p in paths if not p.exists()]
    assert not missing, f"missing checkpoints {missing}: run `make data`"
    return tuple(load_checkpoint(p)[0].double() for p in paths)


# AOT packages in tests are built without the chapter's inductor options (freezing, max_autotune):
# tuning a GEMM kernel for each linear's shape is most of a package's build time on a fresh cache
# (about 30 s of 40-55 s here) and changes nothing the tests check but speed. The one test that
# builds with the chapter's own options asks for them with the `chapter_aot_options` fixture.
CHAPTER_AOT_OPTIONS = dict(aot.INDUCTOR_CONFIGS)


@pytest.fixture(scope="session", autouse=True)
def quick_aot_packages():
    aot.INDUCTOR_CONFIGS.clear()
    yield
    aot.INDUCTOR_CONFIGS.update(CHAPTER_AOT_OPTIONS)


@pytest.fixture
def chapter_aot_options():
    aot.INDUCTOR_CONFIGS.update(CHAPTER_AOT_OPTIONS)
    yield
    aot.INDUCTOR_CONFIGS.clear()


def results(name):
    """A results file the experiments wrote, or a failure that says how to make it."""
    path = RESULTS / f"{name}.json"
    assert path.exists(), f"{path} is missing: run `make measure`"
    return read_json(path)


def open_deep(page, *names):
    """Open deep dives (<details class="deep" id="deep-NAME">) as a reader does, by their summary."""
    for name in names:
        box = page.locator(f"#deep-{name}")
        if box.get_attribute("open") is None:
            box.locator("> summary").click()


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




def pytest_sessionstart(session):
    """The data file is found (or downloaded) once, before any test runs: without it most tests would
    fail one by one, each with the same error, minutes later. (pytest-xdist's workers skip this: the
    controller has checked.)"""
    if hasattr(session.config, "workerinput"):
        return
    try:
        find_data()
    except DataError as err:
        pytest.exit(f"error: {err}", returncode=2)
