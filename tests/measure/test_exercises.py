"""The four exercises (experiments/exercises/) run their reference answers on the committed
seed-0 checkpoints, and each one's check catches a wrong answer."""
import pytest
import torch

from experiments.data import CharData
from experiments.exercises import chi2, gamma, medusa_head, solutions
from experiments.exercises import rollback as reader
from experiments.exercises.check_rollback import check_rollback
from experiments.model import load_checkpoint
from experiments.runs import CHECKPOINTS
from experiments.stats import theorem_3_8


@pytest.fixture(scope="module")
def models():
    return tuple(load_checkpoint(CHECKPOINTS / f"{name}_s0.pt")[0] for name in ("main", "draft"))


@pytest.fixture(scope="module")
def data():
    return CharData()


def test_chi2_passes_the_rule_and_fails_a_rule_that_accepts_every_draft(models, data):
    main, draft = models
    honest = chi2.chi2_check(main, draft, data, 4000, position=0, seed=0)
    assert honest["p_value"] > 1e-3 and honest["tv_output_p"] < honest["tv_q_p"]
    assert abs(honest["accepted"] - honest["alpha"]) < 0.03  # the acceptance rate is Σmin(p, q)

    broken = chi2.chi2_check(main, draft, data, 4000, position=0, seed=0, rule=chi2.accept_every_draft)
    assert broken["accepted"] == 1 and broken["p_value"] < 1e-6


def test_best_gamma_is_the_theorems_argmax_and_grows_with_alpha():
    for alpha in (0.5, 0.7, 0.85):
        for c in (0.0, 0.05, 0.3):
            best, speedup = gamma.best_gamma(alpha, c)
            assert speedup == max(theorem_3_8(alpha, g, c) for g in gamma.GAMMAS) == theorem_3_8(alpha, best, c)
    assert gamma.best_gamma(0.7, 0.0)[0] == max(gamma.GAMMAS)  # free drafts: the longest chain
    rows = gamma.optimal_gammas(0.05)
    assert [r["gamma"] for r in rows] == sorted(r["gamma"] for r in rows) and rows[0]["gamma"] < rows[-1]["gamma"]
    check = gamma.measured_check()
    assert 0 < check["alpha"] < 1 and check["c"] > 0 and check["theory_gamma"] in (1, 2, 3, 4, 6, 8)


def test_a_trained_medusa_head_beats_its_untrained_self_and_leaves_the_main_model_alone(models, data):
    main, draft = models
    before_params = [p.clone() for p in main.parameters()]
    untrained = medusa_head.first_draft_alpha(main, draft, medusa_head.train_head(main, data, 0), data, 300)
    trained = medusa_head.first_draft_alpha(main, draft, medusa_head.train_head(main, data, 80, log=lambda _: None),
                                            data, 300)
    assert trained["medusa_head"] > untrained["medusa_head"] + 0.05
    assert trained["draft_model"] == untrained["draft_model"]  # same positions, same draft model
    assert all(torch.equal(a, b) for a, b in zip(before_params, main.parameters()))


def test_rollback_check_passes_the_answer_and_fails_wrong_ones(models, data):
    main, _ = models
    assert check_rollback(solutions.rollback, main, data)["passed"]
    assert not check_rollback(lambda cache, length: None, main, data)["passed"]  # no rollback at all
    off_by_one = lambda cache, length: solutions.rollback(cache, length + 1)  # keeps the rejected draft
    result = check_rollback(off_by_one, main, data)
    assert not result["passed"] and result["max_abs_diff"] > 1e-3
    with pytest.raises(NotImplementedError):  # the reader's skeleton ships unanswered
        check_rollback(reader.rollback, main, data)
    cache = main.new_cache()
    main(torch.tensor([[1, 2, 3]]), cache)
    with pytest.raises(ValueError):  # the answer refuses a length the cache never held
        solutions.rollback(cache, 4)


def test_a_long_chi2_run_logs_its_progress_and_draws_the_same(models, data, monkeypatch):
    main, draft = models
    whole = chi2.chi2_check(main, draft, data, 500, seed=4)
    monkeypatch.setattr(chi2, "PROGRESS_EVERY", 200)
    lines = []
    chunked = chi2.chi2_check(main, draft, data, 500, seed=4, log=lines.append)
    assert lines == ["200 of 500 draws", "400 of 500 draws", "500 of 500 draws"]
    assert chunked == whole
