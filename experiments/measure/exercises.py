"""exercises.json (section ⑦'s exercises): what each exercise prints when run with its reference
answer on the first seed's models, so that the page can say what to expect; and what a wrong
answer gives (a rule that accepts every draft; no rollback at all); `summarize` writes what the
answers conclude.

Its results are declared in experiments/records/conditions.py: ExercisesFile (exercises.json)."""
import time

from experiments.exercises import chi2, gamma, medusa_head, solutions
from experiments.exercises.check_rollback import check_rollback
from experiments.measure.common import main_and_draft
from experiments.timing import set_threads

GAMMA_COSTS = (0.05,)  # exercise 2's default c, beside the measured one


def summarize(payload):
    """What the exercises' answers conclude, from the payload `measure` writes: whether Theorem
    3.8 picks the γ that measured fastest (exercise 2)."""
    measured = payload["gamma"]["measured"]
    return {"gamma_theory_agrees": measured["theory_gamma"] == measured["measured_gamma"]}


def measure(args, data, seeds, sizes):
    threads = set_threads(1)
    main, draft = main_and_draft(args, seeds[0])
    draws = sizes.exercise_draws
    check = gamma.measured_check(args.results)
    t0 = time.perf_counter()
    head = medusa_head.train_head(main, data, sizes.exercise_steps, log=lambda line: None)
    train_s = time.perf_counter() - t0
    untrained = medusa_head.train_head(main, data, 0)
    payload = {
        "threads": threads,
        "chi2": {"rule": chi2.chi2_check(main, draft, data, draws),
                 "accept_every_draft": chi2.chi2_check(main, draft, data, draws, rule=chi2.accept_every_draft)},
        "gamma": {"measured": check,
                  "by_cost": [{"c": c, "rows": gamma.optimal_gammas(c)} for c in (*GAMMA_COSTS, check["c"])]},
        "medusa": {"steps": sizes.exercise_steps, "train_s": train_s,
                   "untrained": medusa_head.first_draft_alpha(main, draft, untrained, data),
                   "trained": medusa_head.first_draft_alpha(main, draft, head, data)},
        "rollback": {"answer": check_rollback(solutions.rollback, main, data),
                     "no_rollback": check_rollback(lambda cache, length: None, main, data)}}
    return {"exercises": {**payload, "summary": summarize(payload)}}
