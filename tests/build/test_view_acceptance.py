"""chapter/views/acceptance.py: the counts ②'s paragraphs quote."""
import copy

from chapter.views.acceptance import view

DATA = {"acceptance": {"positions": [{"context": "ROMEO:\n"}, {"context": "x" * 7}, {"context": "y" * 7}],
                       "vocab": list("abcd"), "draws": 20000},
        "divergence_sweep": {"snapshots": [{}, {}], "n_positions": 512, "max_abs_alpha_minus_one_minus_tv": 3e-7}}


def test_the_counts_are_those_of_the_lists():
    v = view(DATA)
    assert (v["n_positions"], v["context_chars"], v["vocab_size"], v["n_snapshots"]) == (3, 7, 4, 2)
    assert (v["draws"], v["sweep_positions"], v["max_tv_gap"]) == (20000, 512, 3e-7)


def test_the_view_leaves_the_data_as_it_was():
    data = copy.deepcopy(DATA)
    view(data)
    assert data == DATA
