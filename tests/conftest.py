"""The suite's shared fixtures: the committed models in float64 and their plain greedy text, the AOT
packages' quick options, and the data file's check before any test runs. A folder's conftest.py
holds the fixtures only its tests use (tests/page/conftest.py: the browser; tests/build/: the
rendered page); plain helpers (no fixtures) are in tests/helpers.py."""
import pytest
import torch

pytest.register_assert_rewrite("tests.helpers")  # its asserts explain themselves as a test's do

from experiments import aot  # noqa: E402
from experiments.data import CharData, DataError, find_data  # noqa: E402
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
