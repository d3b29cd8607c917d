"""python -m experiments.measure [--only NAME ...] [--seeds S ...] [--device cpu|cuda] [--engines eager compiled aot native]"""
import sys
import time
from pathlib import Path

import torch

from experiments.cli import ArgumentParser, UsageError, check_device, check_folder, check_seed, check_threads, run_cli
from experiments.data import CharData
from experiments.jsonio import RESULTS, git_state, meta, read_json, write_json
from experiments.progress import clock_text
from experiments.measure import MEASUREMENTS
from experiments.measure.common import Sizes, trained_seeds
from experiments.engine import ENGINES
from experiments.native import kernel_choice
from experiments.runs import CHECKPOINTS, RUNS, run_name


def parse_args(argv=None):
    parser = ArgumentParser(
        prog="python -m experiments.measure",
        description="Rerun every measurement the page reads from the trained checkpoints.")
    parser.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    parser.add_argument("--seeds", type=int, nargs="+",
                        help="model seeds to measure (default: every seed with a full set of checkpoints)")
    parser.add_argument("--only", choices=list(MEASUREMENTS), nargs="+",
                        help="these measurements only (default: all, in this order); regime is the answer run "
                             "and writes regime.json and ladder.json")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (default 1); the timed measurements always run on 1")
    parser.add_argument("--engines", nargs="+", choices=list(ENGINES), default=list(ENGINES),
                        help="engines to measure (eager, the baseline of every ratio, always is; the ledger and "
                             "conditions take eager and compiled, costs and the answer run (regime: the dial and "
                             "the engine ladder) every one given); an engine that cannot build here is left out "
                             "with one line")
    parser.add_argument("--checkpoints", type=Path, default=CHECKPOINTS, help="where the trained weights are")
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="where the training logs are and the results go")
    return parser.parse_args(argv)


def measure(args, sizes=Sizes()):
    """Run the chosen measurements and write their results files; returns the exit code."""
    git = git_state()  # the commit measured is the one checked out when the run starts
    check_folder(Path(args.checkpoints), "--checkpoints", "trained checkpoints")
    if Path(args.results).exists():  # created when the first results file is written
        check_folder(Path(args.results), "--results", "results files")
    args.device = check_device(args.device)
    if "native" in args.engines:
        kernel_choice()  # $NATIVE_KERNEL, before any measurement starts
    torch.set_num_threads(check_threads(args.threads))
    if args.seeds:
        seeds = [check_seed(s, "--seeds") for s in args.seeds]
        missing = [s for s in seeds if not all((Path(args.checkpoints) / f"{run_name(*run, s)}.pt").exists()
                                               for run in RUNS)]
        if missing:  # before any measurement starts, not halfway through one
            raise UsageError(f"--seeds: seed {', '.join(map(str, missing))} has no full set of checkpoints in "
                             f"{args.checkpoints}: run `make data SEEDS=...`")
    else:
        seeds = trained_seeds(args.checkpoints, args.results)
    if len(set(seeds)) != len(seeds):
        raise UsageError(f"--seeds lists a seed twice: {seeds}")
    data = CharData()
    names = args.only or list(MEASUREMENTS)
    expected = last_times(Path(args.results), names)
    start = time.time()
    for i, name in enumerate(names, 1):
        fn, which = MEASUREMENTS[name]
        used = seeds if which == "all" else seeds[:1]
        t0 = time.time()
        print(f"[measure {i}/{len(names)}] {name} ...", flush=True)
        outputs = fn(args, data, used, sizes)
        took = time.time() - t0
        for stem, payload in outputs.items():
            payload = {"meta": {**meta(used, args.device, git=git), "measure_s": round(took, 1)}, **payload}
            write_json(Path(args.results) / f"{stem}.json", payload)
        written = ", ".join(f"{stem}.json" for stem in outputs)
        left = sum(expected.get(n, float("nan")) for n in names[i:])
        print(f"[measure {i}/{len(names)}] {name}: wrote {written} in {clock_text(took)}; {clock_text(time.time() - start)} "
              f"spent, about {clock_text(left)} left (the last run's times)", flush=True)
    return 0


def last_times(results, names):
    """{measurement: seconds it took when its results file was last written (meta.measure_s)}, for the
    estimate of what is left; a measurement without a file, or one written before the field, is absent."""
    out = {}
    for name in names:
        try:
            out[name] = read_json(results / f"{name}.json")["meta"]["measure_s"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return out


def main(argv=None):
    return run_cli(measure, parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
