"""chapter/views/header.py: the chapter card's models and losses."""

from chapter.views import header


def dial_point(scale, fastest, verdict="faster"):
    """A hand-made end of the dial: its fastest T = 1 row and one more."""
    rows = [{"family": "ngram", "engine": "native", "speedup": fastest, "verdict": verdict},
            {"family": "draft", "engine": "native", "speedup": 1.0, "verdict": "unclear"}]
    return {"scale": scale, "main_bytes": scale * 3e6, "best": {"T1": rows}}


def card_data(seeds, std, points=(dial_point(1, 1.5), dial_point(140, 2.5))):
    runs = {f"{kind}_s{s}": {"params": params + s} for s in seeds for kind, params in (("main", 1000), ("draft", 50))}
    loss = {"mean": 1.5, "std": std}
    return {"models": {"meta": {"seeds": seeds}, "runs": runs},
            "mtp": {"seeds": seeds, "val_loss": {"main_mtp": loss, "mtp_head": loss, "draft": loss}},
            "regime": {"points": list(points)}}


def test_the_card_describes_the_first_seeds_runs():
    v = header.view(card_data([2, 0, 1], std=0.01))
    assert (v["main"]["params"], v["draft"]["params"]) == (1002, 52)
    assert v["draft_percent_of_main"] == 100 * 52 / 1002


def test_the_losses_are_a_mean_over_seeds_only_with_a_spread():
    over = header.view(card_data([0, 1, 2], std=0.01))
    one = header.view(card_data([3], std=None))
    assert (over["loss_over_seeds"], over["n_seeds"]) == (True, 3)
    assert (one["loss_over_seeds"], one["loss_seed"]) == (False, 3)


def test_the_ledes_answer_reads_both_ends_of_the_dial():
    assert header.view(card_data([0], std=None))["answer"] == {"as_trained": True, "heavy": True, "more_when_heavy": True}
    slower_heavy = (dial_point(1, 1.5), dial_point(140, 0.9, verdict="slower"))
    assert header.view(card_data([0], std=None, points=slower_heavy))["answer"] == {
        "as_trained": True, "heavy": False, "more_when_heavy": False}


def test_the_view_leaves_the_data_as_it_was():
    data = card_data([0], std=None)
    before = repr(data)
    header.view(data)
    assert repr(data) == before
