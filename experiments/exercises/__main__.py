"""python -m experiments.exercises {chi2,gamma,medusa,rollback} [options]: see __init__.py."""
import math
import sys
from pathlib import Path

import torch

from experiments.cli import ArgumentParser, UsageError, check_folder, check_seed, open_checkpoint, run_cli
from experiments.data import CharData
from experiments.exercises import chi2, gamma, medusa_head, solutions
from experiments.exercises import rollback as reader
from experiments.exercises.check_rollback import check_rollback
from experiments.jsonio import RESULTS
from experiments.rule import accept_reject
from experiments.runs import CHECKPOINTS


def models(args):
    check_folder(args.checkpoints, "--checkpoints", "checkpoints (main_s0.pt, draft_s0.pt)")
    main = open_checkpoint(args.checkpoints / "main_s0.pt", "cpu", "--checkpoints")[0]
    draft = open_checkpoint(args.checkpoints / "draft_s0.pt", "cpu", "--checkpoints")[0]
    return main, draft


def run_chi2(args):
    if not chi2.MIN_DRAWS <= args.n <= chi2.MAX_DRAWS:
        raise UsageError(f"--n must be between {chi2.MIN_DRAWS} and {chi2.MAX_DRAWS:,} draws, got {args.n}")
    if not 0 <= args.position < 1000:
        raise UsageError(f"--position must be 0 .. 999, got {args.position}")
    check_seed(args.seed)
    main, draft = models(args)
    rule = chi2.accept_every_draft if args.rule == "accept-all" else accept_reject
    chi2.report(chi2.chi2_check(main, draft, CharData(), args.n, args.position, args.seed, rule, log=print))
    return 0


def measured_gamma(results):
    """gamma.measured_check on the sweep in `results`; a missing or damaged file is one line."""
    path = results / "gamma_sweep.json"
    remedy = "run `python -m experiments.measure --only ledger` (part of `make measure`) to measure it"
    if not path.is_file():
        raise UsageError(f"{path} not found: {remedy}")
    try:
        return gamma.measured_check(results)
    except (OSError, ValueError, KeyError, TypeError) as err:  # ValueError: orjson's JSONDecodeError
        raise UsageError(f"{path} cannot be read (truncated or not a γ sweep: {type(err).__name__}): "
                         f"{remedy}") from None


def run_gamma(args):
    if not 0 < args.c < math.inf:  # NaN fails too
        raise UsageError(f"--c must be a finite cost ratio > 0, got {args.c}")
    gamma.report(args.c, gamma.optimal_gammas(args.c), measured_gamma(args.results))
    return 0


def run_medusa(args):
    if not 1 <= args.steps <= medusa_head.MAX_STEPS:
        raise UsageError(f"--steps must be between 1 and {medusa_head.MAX_STEPS}, got {args.steps}")
    check_seed(args.seed)
    main, draft = models(args)
    data = CharData()
    untrained = medusa_head.train_head(main, data, 0, seed=args.seed)  # zero-init: main's own head
    before = medusa_head.first_draft_alpha(main, draft, untrained, data)
    head = medusa_head.train_head(main, data, args.steps, seed=args.seed)
    medusa_head.report(before, medusa_head.first_draft_alpha(main, draft, head, data), args.steps)
    return 0


def run_rollback(args):
    main, _ = models(args)
    fn = solutions.rollback if args.solution else reader.rollback
    try:
        result = check_rollback(fn, main, CharData())
    except NotImplementedError as err:
        print(f"not yet: {err}")
        return 1
    verdict = "passed" if result["passed"] else "failed"
    print(f"{verdict}: cache length {result['length']} (expected {result['expected_length']}), "
          f"max |Δlogit| against a fresh cache {result['max_abs_diff']:.2e}")
    return 0 if result["passed"] else 1


def parse_args(argv=None):
    parser = ArgumentParser(prog="python -m experiments.exercises", description=__doc__)
    parser.add_argument("--checkpoints", type=Path, default=CHECKPOINTS,
                        help="where main_s0.pt and draft_s0.pt are")
    sub = parser.add_subparsers(dest="exercise", required=True)
    one = sub.add_parser("chi2", help="1. N draws through accept_reject against p")
    one.add_argument("--n", type=int, default=50_000,
                     help=f"draws, {chi2.MIN_DRAWS} .. {chi2.MAX_DRAWS:,} (the most take about a minute)")
    one.add_argument("--position", type=int, default=0, help="which random val position, 0 .. 999")
    one.add_argument("--seed", type=int, default=0)
    one.add_argument("--rule", choices=["accept-reject", "accept-all"], default="accept-reject",
                     help="accept-all: a broken rule that accepts every draft (its output follows q)")
    one.set_defaults(run=run_chi2)
    two = sub.add_parser("gamma", help="2. the best γ for α = 0.5, 0.7, 0.85 at a cost c")
    two.add_argument("--c", type=float, default=0.05, help="drafting cost per draft, in main forwards (finite, > 0)")
    two.add_argument("--results", type=Path, default=RESULTS, help="where the measured gamma_sweep.json is")
    two.set_defaults(run=run_gamma)
    three = sub.add_parser("medusa", help="3. train one Medusa head and measure its α")
    three.add_argument("--steps", type=int, default=300,
                       help=f"training steps, 1 .. {medusa_head.MAX_STEPS} (the most take about a minute)")
    three.add_argument("--seed", type=int, default=0)
    three.set_defaults(run=run_medusa)
    four = sub.add_parser("rollback", help="4. check your rollback() in experiments/exercises/rollback.py")
    four.add_argument("--solution", action="store_true", help="check the reference answer instead")
    four.set_defaults(run=run_rollback)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(1)
    return run_cli(args.run, args)


if __name__ == "__main__":
    sys.exit(main())
