"""The drafter tests' fixture: the committed seed-0 feature drafters on the float64 main model."""
import pytest

from experiments.heads import KINDS, load_drafter
from experiments.methods import FAMILIES
from tests.helpers import CHECKPOINTS


@pytest.fixture(scope="module")
def drafters(models64):
    """The committed seed-0 trained drafters (Medusa, EAGLE, EAGLE-3, the block) on the float64 main
    model; an optional kind without a committed checkpoint (a new one, not trained yet) is left out."""
    out = {}
    for kind in KINDS:
        path = CHECKPOINTS / f"{kind}_s0.pt"
        if not path.exists() and FAMILIES[kind].optional:
            continue
        assert path.exists(), f"missing {path}: run `make data`"
        drafter, _ = load_drafter(path, main=models64[0])
        out[kind] = drafter.double()
    return out
