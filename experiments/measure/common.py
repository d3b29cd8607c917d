"""What every measurement shares: how much work each one does (Sizes), the fixed constants,
checkpoint loading and val losses (the probes of the models are in experiments/probes.py)."""
import sys
from dataclasses import dataclass
from pathlib import Path

import torch

from experiments.cli import UsageError
from experiments.engine import ENGINES
from experiments.jsonio import read_json
from experiments.methods import FAMILIES, load_models
from experiments.model import load_checkpoint
from experiments.runs import RUNS, run_name

GAMMA = 8           # γmax: the longest draft chain measured (verify example, rollback, γ sweep, costs)
LEDGER_GAMMAS = (1, 2, 3, 4, 6, 8)
LEDGER_PROMPT = "ROMEO:\n"
MAIN_MTP, CONTROL, DRAFT = RUNS  # (model, λ) of the three training runs per seed
ROOT = Path(__file__).resolve().parents[2]  # where `python -m experiments.generate` runs


@dataclass(frozen=True)
class Sizes:
    """How much work each measurement does. `make measure` uses the defaults; the smoke test
    passes smaller ones so that every measurement runs in seconds on a tiny model."""
    n_positions: int = 2000         # random val positions for the acceptance picks and the sweeps
    draws: int = 200_000            # draws through accept_reject per acceptance position
    samples_per_position: int = 20  # sampled γ = 1 verifies per position and snapshot (divergence)
    ledger_chars: int = 600         # chars each ledger run generates
    ledger_repeats: int = 5         # timed runs per method and mode, each with its own sampling seed
    sweep_repeats: int = 15         # the same for ③'s native kv-cache sweep, whose runs last tens of ms
    forward_calls: int = 60         # timed calls per forward price and repeat, after forward_warmup untimed ones
    forward_warmup: int = 10
    cost_repeats: int = 7           # interleaved repeats of every forward price (costs.py)
    cost_positions: tuple = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)  # new positions per main forward
    alpha_runs: int = 5             # texts the main model writes (one per sampling seed) for every teacher-forced α (families, conditions)
    sample_chars: int = 240         # the traced MTP sample
    family_gammas: tuple = tuple(range(1, 9))  # chain lengths every drafter family is swept over (families.py)
    family_trees: tuple = (4, 8, 16, 32)       # token-tree sizes, in nodes
    condition_lengths: tuple = (8, 32, 128, 600)  # output lengths timed for every family
    condition_repeats: int = 5      # interleaved timed runs per family and length
    start_up_families: tuple | None = None  # the families whose fresh-process start-up is timed (None: every one)
    exercise_draws: int = 50_000    # exercise 1's draws through the rule (exercises.py)
    exercise_steps: int = 300       # exercise 3's training steps
    fresh_repeats: int = 3          # fresh generate processes per side of a fresh-process check (the answer run)
    regime_scales: tuple = (1, 4, 16, 40, 140)  # the answer run's dial: heavy twins, main model 2.95 MB .. 413 MB
    regime_chars: int = 200         # chars per timed run of the answer run
    regime_choose_repeats: int = 1  # runs per candidate while it chooses each family's fastest configuration
    regime_choose_chars: int = 100  # chars per choosing run on the twins (a run there lasts seconds; the pass only ranks)
    regime_repeats: int = 3         # interleaved timed runs of plain and every family's fastest row, per heavy scale
    regime_trained_repeats: int = 7  # the same at the model as trained (every engine: the ladder), where runs are short
    regime_bandwidth_sweep: tuple = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)  # MB streamed for the roofline


def require(path):
    if not Path(path).exists():
        raise UsageError(f"{path} not found: run `make data` to train it")
    return path


def trained_seeds(checkpoints, results):
    """Seeds whose three runs (main + MTP, control, draft) finished: checkpoint and training log."""
    checkpoints, results = Path(checkpoints), Path(results)
    seeds = sorted(int(p.stem[6:]) for p in checkpoints.glob("main_s*.pt") if p.stem[6:].isdigit())
    done = lambda name: (checkpoints / f"{name}.pt").exists() and (results / f"train_{name}.json").exists()
    complete = [s for s in seeds if all(done(run_name(m, mtp, s)) for m, mtp in RUNS)]
    if not complete:
        raise UsageError(f"no seed has all its checkpoints in {checkpoints} and all its training logs "
                         f"(train_*.json) in {results}: run `make data`, or name the seeds with --seeds")
    return complete


def load(args, name):
    """(model, checkpoint payload) of experiments/checkpoints/<name>.pt on args.device."""
    return load_checkpoint(require(Path(args.checkpoints) / f"{name}.pt"), args.device)


def checkpoint(args, name):
    return load(args, name)[0]


# the engines the ledger and the families compare; costs and the ladder take every one
LEDGER_ENGINES = ("eager", "compiled")


def engines_of(args, among=ENGINES):
    """The engines given by --engines (all by default) that a measurement takes, in ENGINES order."""
    wanted = getattr(args, "engines", None) or ENGINES
    return [engine for engine in ENGINES if engine in wanted and engine in among]


def answer_engine(engines):
    """The engine the chapter's answer is measured on: the last one that builds here, in ENGINES
    order; native, the one with the least per-call overhead (without a C++ compiler, eager, and
    every row names it in its engine field). The dial and ⑦'s timings both run on it."""
    return engines[-1]


def load_seed(args, data, seed, tables=None):
    """Every model of one seed (methods.load_models), the n-gram table shared across seeds."""
    return load_models(args.checkpoints, seed, args.device, data.train.tolist(), data.vocab_size, tables)


def main_and_draft(args, seed):
    return checkpoint(args, run_name(*MAIN_MTP, seed)), checkpoint(args, run_name(*DRAFT, seed))


@torch.no_grad()
def full_val_loss(model, data, device):
    """Mean loss over the whole val split in non-overlapping block_size windows."""
    T = model.cfg.block_size
    n = (len(data.val) - 1) // T
    x = data.val[:n * T].view(n, T).to(device)
    y = data.val[1:n * T + 1].view(n, T).to(device)
    totals, count = {}, 0
    for xb, yb in zip(x.split(256), y.split(256)):
        for key, loss in model.losses(xb, yb).items():
            totals[key] = totals.get(key, 0.0) + loss.item() * len(xb)
        count += len(xb)
    return {key: round(total / count, 5) for key, total in totals.items()}


_val_losses = {}


def val_loss_of(args, data, name):
    """full_val_loss of one checkpoint, computed once per process (models and mtp both use it)."""
    key = (str(Path(args.checkpoints) / name), args.device)
    if key not in _val_losses:
        _val_losses[key] = full_val_loss(checkpoint(args, name), data, args.device)
    return _val_losses[key]


def mtp_param_parts(main):
    """Parameters of each part of the MTP head, and of the main-model parts it shares."""
    head = main.mtp
    return {"hidden_norm": main.n_params(head.hidden_norm), "embed_norm": main.n_params(head.embed_norm),
            "proj": main.n_params(head.proj), "block": main.n_params(head.block),
            "shared_embedding_head": main.n_params(main.tok_emb), "shared_final_norm": main.n_params(main.norm),
            "main_blocks": [main.n_params(b) for b in main.blocks]}


def training_log(args, name):
    return read_json(require(Path(args.results) / f"train_{name}.json"))


def generate_command(args, seed, method, engine, n_chars, shape=None, size=None, temperature=None, sampling_seed=None,
                     scale=1):
    """The command line a reader runs for one configuration (experiments/generate.py) on the
    checkpoints of model seed `seed`: a chain of γ = size or a tree of `size` nodes."""
    checkpoint = lambda name: str(Path(args.checkpoints) / f"{name}.pt")
    command = [sys.executable, "-m", "experiments.generate", "--method", method,
               "--n", str(n_chars), "--engine", engine, "--device", args.device,
               "--checkpoint", checkpoint(run_name(*MAIN_MTP, seed)),
               "--draft-checkpoint", checkpoint(run_name(*DRAFT, seed))]
    if method in FAMILIES and FAMILIES[method].source == "heads":
        command += ["--heads-checkpoint", checkpoint(run_name(method, 0, seed))]
    if shape is not None and method != "plain":
        command += ["--tree", str(size)] if shape == "tree" else ["--gamma", str(size)]
    if temperature is not None:
        command += ["--temperature", str(temperature)]
    if sampling_seed is not None:
        command += ["--seed", str(sampling_seed)]
    if scale != 1:
        command += ["--scale", str(scale)]
    return command
