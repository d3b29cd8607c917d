"""The suite's shared fixtures: the committed models in float64 and their plain greedy text, the AOT
packages' quick options, and the data file's check before any test runs. A folder's conftest.py
holds the fixtures only its tests use (tests/page/conftest.py: the browser; tests/build/: the
rendered page); plain helpers (no fixtures) are in tests/helpers.py. At the end, the hook that
marks the tests that open a browser or compile an engine."""
from pathlib import Path

import pytest
import torch

pytest.register_assert_rewrite("tests.helpers")  # its asserts explain themselves as a test's do

from experiments import aot  # noqa: E402
from experiments.data import CharData, DataError, find_data  # noqa: E402
from experiments.engine import ENGINES  # noqa: E402
from experiments.speculative import plain_decode  # noqa: E402
from tests.helpers import CHAPTER_AOT_OPTIONS, ROOT  # noqa: E402

# One thread: as fast as two for these batch-1 models, and two processes that each spin two
# OpenMP threads on a 2-core machine slow each other down many times over.
torch.set_num_threads(1)


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


# ---- the markers (pyproject.toml registers them; `make test-fast` leaves out all four)
# browser: set here when the test uses the browser or open_page fixture (headless Chromium, tests/page/).
# compiles: set here when the test runs an engine that compiles, one of experiments.engine.ENGINES but
# eager (compiled: torch.compile; aot: AOTInductor packages; native: the C++ extension), which is when
#   1. one of its parameters names one: engine="native", or a case whose .engine is "aot" (test_law.py);
#   2. or it uses a fixture in COMPILING_FIXTURES, which builds them for every test that uses it;
#   3. or it is in a file of COMPILING_FILES, an engine's own tests, which build it test by test;
#   4. or else the test carries @pytest.mark.compiles itself: it runs one in its body with none of the
#      above (a loop over engines, a `generate --engine native` process).
# slow and sampled are set by hand, on the long sampled checks and on tests/drafters/test_law.py.
BROWSER_FIXTURES = {"browser", "open_page"}
COMPILING_ENGINES = set(ENGINES) - {"eager"}
COMPILING_FIXTURES = {"measured"}  # measure/test_measure_smoke.py: every measurement on eager, compiled and native
COMPILING_FILES = {"engines/test_engine.py", "engines/test_aot.py", "engines/test_native.py", "engines/test_fast_engines.py"}
TESTS = Path(__file__).resolve().parent


def compiling_engine(value):
    """The compiling engine a parameter value names: the name itself, or its `engine` attribute."""
    name = value if isinstance(value, str) else getattr(value, "engine", None)
    return name if name in COMPILING_ENGINES else None


def pytest_collection_modifyitems(config, items):
    """Sets the browser and compiles markers by the rules above."""
    missing = sorted(name for name in COMPILING_FILES if not (TESTS / name).is_file())
    if missing:
        raise pytest.UsageError(f"tests/conftest.py COMPILING_FILES names files that are not there: {missing}")
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if BROWSER_FIXTURES & fixtures:
            item.add_marker(pytest.mark.browser)
        params = getattr(getattr(item, "callspec", None), "params", {})
        if (any(compiling_engine(value) for value in params.values()) or COMPILING_FIXTURES & fixtures
                or item.path.is_relative_to(TESTS) and item.path.relative_to(TESTS).as_posix() in COMPILING_FILES):
            item.add_marker(pytest.mark.compiles)
