"""The drafter tests' fixture: the committed seed-0 feature drafters on the float64 main model."""
import pytest

from experiments.heads import KINDS, load_drafter
from tests.helpers import CHECKPOINTS


@pytest.fixture(scope="module")
def drafters(models64):
    """The committed seed-0 Medusa, EAGLE and block drafters on the float64 main model."""
    out = {}
    for kind in KINDS:
        path = CHECKPOINTS / f"{kind}_s0.pt"
        assert path.exists(), f"missing {path}: run `make data`"
        drafter, _ = load_drafter(path, main=models64[0])
        out[kind] = drafter.double()
    return out
