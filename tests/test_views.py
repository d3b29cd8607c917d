"""build/views.py: what the page computes from the results, once, before the templates format it."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "build"))
from views import deepseek_scale, published  # noqa: E402

PAPERS = {"deepseek_v3": {"total_params": 600.0, "active_params": 30.0, "train_tokens": 1000.0,
                          "mtp_acceptance": [0.85, 0.90], "decoding_speedup": 1.8}}


def mtp(alpha):
    return {"mtp": {"alpha": {"mtp": {"mean": alpha}}, "params": {"main_total": 3.0},
                    "summary": {"train_chars_seen": 10}}}


@pytest.mark.parametrize("alpha,inside,near", [(0.87, True, True), (0.83, False, True), (0.95, False, True),
                                               (0.951, False, False), (0.70, False, False)])
def test_deepseek_scale_places_our_alpha_against_the_reported_range(alpha, inside, near):
    out = deepseek_scale(mtp(alpha), PAPERS)
    assert (out["inside"], out["near"]) == (inside, near)
    assert (out["params_ratio"], out["active_ratio"], out["data_ratio"]) == (200.0, 10.0, 100.0)


def test_the_published_figures_carry_their_arxiv_ids():
    papers = published()
    assert papers["deepseek_v3"]["arxiv"] == "2412.19437"
    assert all(fig["arxiv"] for fig in papers["gpu"].values() if fig)
