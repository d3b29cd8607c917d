"""Shared fixtures: the page as the build renders it, the committed models in float64 and their
plain greedy text, the AOT packages' quick options, a headless Chromium (Debian's, driven by
Playwright) and a page opener that records console errors and network requests and fails the test
if there were any. Plain helpers (no fixtures) are in tests/helpers.py."""
import pytest
import torch

pytest.register_assert_rewrite("tests.helpers")  # its asserts explain themselves as a test's do

from chapter import build  # noqa: E402
from experiments import aot  # noqa: E402
from experiments.data import CharData, DataError, find_data  # noqa: E402
from experiments.speculative import plain_decode  # noqa: E402
from tests.helpers import CHAPTER_AOT_OPTIONS, ROOT  # noqa: E402
from tools.browser import CHROMIUM, CHROMIUM_ARGS, LAY_OUT_ALL, PAGE  # noqa: E402

# One thread: as fast as two for these batch-1 models, and two processes that each spin two
# OpenMP threads on a 2-core machine slow each other down many times over.
torch.set_num_threads(1)


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


@pytest.fixture(scope="module")
def plain_greedy(models64):
    prompt = CharData().encode("ROMEO:\n")
    with torch.inference_mode():
        return prompt, plain_decode(models64[0], prompt, 300, temperature=0).tokens


# AOT packages in tests are built without the chapter's inductor options (helpers.CHAPTER_AOT_OPTIONS)
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
