"""chapter/views/glossary.py: the window the glossary's execution modes quote."""
from chapter.views.glossary import context_window, view


def models(seeds, sizes):
    return {"models": {"meta": {"seeds": seeds},
                       "runs": {f"main_s{s}": {"config": {"block_size": n}} for s, n in zip(seeds, sizes)}}}


def test_the_window_is_the_first_seeds_main_model():
    assert context_window(models([2, 0], [64, 128])) == 64
    assert view(models([0, 2], [128, 64])) == {"window": 128}
