"""chapter/views/mtp.py: ④'s seeds, the MTP loss's verdict, the two α and DeepSeek-V3's scale."""

import copy

import pytest

from chapter.views import mtp


def verdict(beyond, t=-3.0, df=2, ci95=(-0.02, -0.01), mean=-0.015):
    return {"beyond_seed_noise": beyond, "t": t, "df": df, "ci95": list(ci95) if ci95 else None,
            "mean_difference": mean}


@pytest.mark.parametrize("beyond,marked", [(None, "none"), (True, "beyond"), (False, "within")])
def test_the_loss_verdict_is_marked_beyond_within_or_none(beyond, marked):
    assert mtp.noise_verdict(verdict(beyond)) == marked


def test_a_difference_without_spread_is_its_own_interval():
    """Every seed moved alike: no t, no interval; the sentence quotes the difference at both ends."""
    out = mtp.loss_verdict({"verdict": verdict(False, t=None, ci95=None, mean=-0.004),
                            "summary": {"mtp_loss_lower": True}})
    assert out["ci95"] == [-0.004, -0.004]
    assert (out["has_t"], out["has_df"], out["abs_mean_difference"]) == (False, True, 0.004)


def test_a_single_seed_has_no_test():
    out = mtp.loss_verdict({"verdict": verdict(None, t=None, df=None, ci95=None, mean=0.002),
                            "summary": {"mtp_loss_lower": False}})
    assert (out["noise_verdict"], out["has_df"], out["loss_lower"]) == ("none", False, False)


def test_the_papers_figures_are_put_in_the_units_printed():
    scale = mtp.paper_scale({"total_params": 671e9, "active_params": 37e9, "train_tokens": 14.8e12,
                             "mtp_acceptance": [0.85, 0.9],
                             "mtp_weight": {"first_tokens": 10e12, "then_tokens": 4.8e12}})
    assert "%g" % scale["total_yi"] == "6710" and "%g" % scale["total_b"] == "671"
    assert "%g" % scale["first_t"] == "10" and "%g" % scale["then_t"] == "4.8"
    assert ["%g" % p for p in scale["acceptance_pct"]] == ["85", "90"]


def with_flags(data, flips, ahead):
    changed = copy.deepcopy(data)
    changed["mtp"]["summary"].update(alpha_order_flips=flips, mtp_ahead_generated=ahead)
    return changed


@pytest.mark.parametrize("flips,ahead,explained", [(True, True, True), (True, False, False), (False, True, False)])
def test_the_ranking_flip_is_explained_only_when_the_head_leads_in_generated_text(page_data, flips, ahead, explained):
    v = mtp.view(with_flags(page_data, flips, ahead))
    assert (v["alpha_order_flips"], v["flip_explained"]) == (flips, explained)


def test_the_view_quotes_the_committed_results_without_changing_them(page_data):
    before = copy.deepcopy(page_data)
    v = mtp.view(page_data)
    assert page_data == before
    ledger_mtp = [r for r in page_data["ledger"]["rows"] if r["method"] == "mtp"]
    assert v["ledger_repeats"] == ledger_mtp[0]["repeats"]
    assert v["n_seeds"] == len(page_data["mtp"]["seeds"]) and v["seed"] == page_data["mtp"]["seeds"][0]
    assert v["sample_steps"] == len(page_data["mtp"]["sample"]["steps"])


def test_the_replay_prices_the_head_on_the_dials_model_as_trained(page_data):
    """④ says what the head's characters per forward buy in time: its own fastest row at the dial's first point."""
    row = mtp.view(page_data)["as_trained"]
    light = page_data["regime"]["points"][0]
    assert row["family"] == "mtp" and row in light["best"]["T1"]


def test_the_modules_new_parameters_are_the_diagrams_sum(page_data):
    """④'s main path prints the module's new parameters and their share of the main model, the figures the
    diagram's readout (static/js/mtp_diagram.js paramTotals) prints in its deep dive."""
    v, params = mtp.view(page_data), page_data["mtp"]["params"]
    own = params["hidden_norm"] + params["embed_norm"] + params["proj"] + params["block"]
    assert v["new_params"] == own == params["mtp_head_total"]
    assert v["new_params_pct"] == pytest.approx(100 * own / params["main_total"])
