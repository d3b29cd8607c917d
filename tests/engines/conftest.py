"""The engine tests' fixtures: chapter_aot_options, for the one AOT test that builds its packages
with the chapter's own inductor options (the suite builds them without: tests/conftest.py)."""
import pytest

from experiments import aot
from tests.helpers import CHAPTER_AOT_OPTIONS


@pytest.fixture
def chapter_aot_options():
    aot.INDUCTOR_CONFIGS.update(CHAPTER_AOT_OPTIONS)
    yield
    aot.INDUCTOR_CONFIGS.clear()
