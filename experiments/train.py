"""Train the main model (with or without the MTP loss) or the draft model on tiny shakespeare.

    python -m experiments.train --model main --mtp 0.3 --seed 0      # main + MTP head
    python -m experiments.train --model main --mtp 0 --seed 0        # control: no MTP loss
    python -m experiments.train --model draft --seed 0               # the small draft model

Weights go to experiments/checkpoints/<name>.pt (committed) and the loss curves, config, seed,
device and wall time to experiments/results/train_<name>.json, both only when the run ends: until
then the run keeps its resume state in <name>.opt.pt and its snapshots in <name>.partial/ (neither
committed), and rerunning an interrupted command resumes. A finished checkpoint is never replaced
unless --force says so; --out DIR trains a trial run into DIR instead.
"""
import math
import os
import pickle
import shutil
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

import torch

from experiments.cli import ArgumentParser, UsageError, check_device, check_folder, check_seed, check_threads, run_cli
from experiments.data import CharData, find_data
from experiments.heads import KINDS, FeatureDrafter, HeadsConfig
from experiments.jsonio import RESULTS, git_state, meta, write_json
from experiments.model import DRAFT, GPT, MAIN, CheckpointError, load_checkpoint, save_atomic, save_checkpoint
from experiments.progress import clock_text
from experiments.runs import CHECKPOINTS, DRAFT_SNAPSHOTS, RUNS, run_name, snapshot_path

EVAL_SEED = 1234  # the fixed val batches every run is evaluated on
HEAD_RUNS = tuple((kind, 0.0) for kind in KINDS)  # every trained head kind, on the frozen main + MTP model of its seed


UNREADABLE = (pickle.UnpicklingError, EOFError, OSError, RuntimeError)  # what torch.load raises on a cut file


def unreadable(path, err, remedy):
    return UsageError(f"{path} cannot be read (truncated or corrupt: {type(err).__name__}): {remedy}")


def read_resume_file(path, device="cpu", weights_only=True, remedy="rerun with --fresh to train from scratch"):
    """torch.load for the files a rerun resumes from; a truncated or corrupt one is one line."""
    try:
        return torch.load(path, map_location=device, weights_only=weights_only)
    except UNREADABLE as err:
        raise unreadable(path, err, remedy) from None


FLAGS = {"mtp_weight": "--mtp", "steps": "--steps", "batch_size": "--batch", "lr": "--lr"}  # config key -> option


def changed_settings(saved, config):
    """'--steps 300, now 100' for each setting the saved run had otherwise: the model's fields one
    by one; keys an older run did not record are not compared."""
    changes = []
    for key, value in config.items():
        old = saved.get(key, value)
        if isinstance(value, dict) and isinstance(old, dict):
            changes += [f"{key}.{field} {old.get(field)}, now {v}" for field, v in value.items() if old.get(field) != v]
        elif old != value:
            changes.append(f"{FLAGS.get(key, key)} {old}, now {value}")
    return changes


def resume(state, state_path, config, model, optimizer, generators):
    """Load a resume state into the run: refused, in one line, where it was saved by a run with
    other settings (it would train on with the new ones while its log kept the old) or holds
    another model."""
    changes = changed_settings(state["log"]["config"], config)
    if changes:
        raise UsageError(f"{state_path} was saved by a run with other settings ({'; '.join(changes)}): rerun "
                         f"with those, or add --fresh to train from scratch")
    try:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        for key, generator in generators.items():
            generator.set_state(state[key])
    except (RuntimeError, ValueError, KeyError) as err:
        raise UsageError(f"{state_path} holds the state of another model ({type(err).__name__}): "
                         f"add --fresh to train from scratch") from None
    return state["log"], state["step"]


def lr_at(step, steps, lr, warmup):
    """Linear warmup, then cosine decay to lr/10."""
    if step < warmup:
        return lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return lr * (0.1 + 0.45 * (1 + math.cos(math.pi * progress)))


@torch.no_grad()
def evaluate(model, batches):
    model.eval()
    totals = {}
    for x, y in batches:
        for key, loss in model.losses(x, y).items():
            totals[key] = totals.get(key, 0.0) + loss.item()
    model.train()
    return {key: total / len(batches) for key, total in totals.items()}


def make_optimizer(model, lr, weight_decay):
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))


def staging_dir(checkpoint_dir, name):
    """Where a run keeps its snapshots until it ends (the finished files are only replaced then)."""
    return Path(checkpoint_dir) / f"{name}.partial"


def finish(staging, checkpoint_dir, name, snapshots, steps):
    """Copy the run's snapshots into place, each atomically: the staged ones stay until the run's
    resume state is gone, so a kill in here is finished again by rerunning the command."""
    for step in (s for s in snapshots if s <= steps):
        staged, final = snapshot_path(staging, name, step), snapshot_path(checkpoint_dir, name, step)
        shutil.copyfile(staged, f"{final}.tmp")
        os.replace(f"{final}.tmp", final)


def train(cfg, name, mtp_weight, steps, batch_size, seed, lr, warmup=100, weight_decay=0.1,
          eval_interval=250, eval_batches=20, snapshots=(), device="cpu", data=None,
          checkpoint_dir=CHECKPOINTS, results_dir=RESULTS, log_every=100, command=None, build=None,
          force=False):
    """Train one model (a GPT of cfg, or what build() returns); resumable; returns the training
    log (also written as JSON). The weights, snapshots and log are written into place only when
    the run ends; a finished checkpoint already there is refused unless `force`."""
    git = git_state()  # the commit trained is the one checked out when the run starts
    checkpoint_dir, results_dir = Path(checkpoint_dir), Path(results_dir)
    checkpoint_dir.mkdir(parents=True, exist_ok=True)
    weights_path = checkpoint_dir / f"{name}.pt"
    state_path = checkpoint_dir / f"{name}.opt.pt"
    staging = staging_dir(checkpoint_dir, name)
    if not (force or state_path.exists()):
        refuse_finished(weights_path)
    data = data or CharData()

    torch.manual_seed(seed)
    if build is None:
        cfg = replace(cfg, vocab_size=data.vocab_size)
        model = GPT(cfg).to(device)
    else:  # drafters trained on a frozen main model (experiments/heads.py)
        model = build().to(device)
        cfg = model.cfg
    optimizer = make_optimizer(model, lr, weight_decay)
    batch_gen = torch.Generator().manual_seed(seed + 1)
    generators = {"batch_gen": batch_gen}  # every random stream of the run, saved for resuming
    if build is not None:
        generators["noise_gen"] = model.noise_gen.manual_seed(seed + 2)
    eval_gen = torch.Generator().manual_seed(EVAL_SEED)
    val_batches = [tuple(t.to(device) for t in data.batch("val", batch_size, cfg.block_size, eval_gen))
                   for _ in range(eval_batches)]
    config = {"model": asdict(cfg), "n_params": model.n_params(),
              **({"n_params_main": model.n_params_main()} if build is None else {}),
              "mtp_weight": mtp_weight, "steps": steps, "batch_size": batch_size, "lr": lr,
              "warmup": warmup, "weight_decay": weight_decay, "eval_interval": eval_interval,
              "eval_batches": eval_batches, "eval_seed": EVAL_SEED, "data": data.path.name,
              "optimizer": "AdamW(0.9, 0.95)", "schedule": "linear warmup, cosine to lr/10",
              "grad_clip": 1.0}
    log = {"name": name, "config": config, "curves": {"step": [], "train": {}, "val": {}, "lr": []},
           "elapsed_s": 0.0}
    step = 0
    state = None
    if state_path.exists():
        state = read_resume_file(state_path, device, weights_only=False)
        missing = [s for s in snapshots if s <= state["step"] and not snapshot_path(staging, name, s).exists()]
        if missing:  # e.g. left by older code, which saved the state first: only a fresh run has them
            print(f"[{name}] snapshots at steps {missing} are missing: training from scratch", flush=True)
            state = None
        elif not generators.keys() <= state.keys():  # older code drew EAGLE's noise from the global RNG
            print(f"[{name}] {state_path.name} has no {' or '.join(generators.keys() - state.keys())}: "
                  f"training from scratch", flush=True)
            state = None
    if state is not None:
        log, step = resume(state, state_path, config, model, optimizer, generators)
        print(f"[{name}] resuming from step {step}", flush=True)
    else:  # a fresh run: snapshots of an earlier, abandoned one are not this run's
        shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(exist_ok=True)

    about = {"name": name, "seed": seed, "mtp_weight": mtp_weight,
             **({"trained_on": model.trained_on()} if build is not None else {})}

    def save(step):
        save_atomic({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "log": log, "step": step,
                     **{key: generator.get_state() for key, generator in generators.items()}}, state_path)

    def record(step, train_means):
        val = evaluate(model, val_batches)
        curves = log["curves"]
        curves["step"].append(step)
        curves["lr"].append(lr_at(min(step, steps - 1), steps, lr, warmup))
        for key, value in val.items():
            curves["val"].setdefault(key, []).append(round(value, 5))
        for key, value in train_means.items():
            curves["train"].setdefault(key, []).append(round(value, 5))
        return val

    model.train()
    if step == 0:
        record(0, {})
        if 0 in snapshots:
            save_checkpoint(snapshot_path(staging, name, 0), model, {"step": 0, "seed": seed})
    sums, count = {}, 0
    t0, t_last, step_last = time.time() - log["elapsed_s"], time.time(), step
    while step < steps:
        x, y = (t.to(device) for t in data.batch("train", batch_size, cfg.block_size, batch_gen))
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step, steps, lr, warmup)
        losses = model.losses(x, y)
        loss = model.objective(losses, mtp_weight)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        step += 1
        for key, value in losses.items():
            sums[key] = sums.get(key, 0.0) + value.item()
        count += 1
        # The snapshot goes before the resume state, so a saved state at step s implies every
        # snapshot up to s exists. A kill between the two resumes from an earlier state and redoes
        # this step exactly (the batch generator's state is saved too), rewriting the same file.
        if step in snapshots:
            save_checkpoint(snapshot_path(staging, name, step), model, {"step": step, "seed": seed})
        if step % eval_interval == 0 or step == steps:
            means = {key: total / count for key, total in sums.items()}
            val = record(step, means)
            sums, count = {}, 0
            log["elapsed_s"] = time.time() - t0
            save(step)
            print(f"[{name}] step {step} val " + " ".join(f"{k} {v:.4f}" for k, v in val.items()), flush=True)
        if step % log_every == 0:
            now = time.time()
            tok_s = (step - step_last) * batch_size * cfg.block_size / (now - t_last)
            eta = (steps - step) * (now - t_last) / (step - step_last)
            print(f"[{name}] step {step}/{steps} loss " +
                  " ".join(f"{k} {v.item():.4f}" for k, v in losses.items()) +
                  f" | {tok_s:,.0f} tok/s | {clock_text(now - t0)} spent, about {clock_text(eta)} left", flush=True)
            t_last, step_last = now, step

    log["elapsed_s"] = time.time() - t0
    final = {key: values[-1] for key, values in log["curves"]["val"].items()}
    result = {"meta": meta([seed], device, command, git), **log, "final_val": final,
              "wall_time_s": round(log["elapsed_s"], 1)}
    finish(staging, checkpoint_dir, name, snapshots, steps)
    save_checkpoint(weights_path, model, {"step": step, **about})
    write_json(results_dir / f"train_{name}.json", result)
    state_path.unlink()
    shutil.rmtree(staging)
    return result


HEAD_STEPS, HEAD_LR = 2000, 2e-3


def trained_step(path, remedy="add --force to train it again"):
    """The step a checkpoint's run ended at (None for a file that records none)."""
    return read_resume_file(path, remedy=remedy).get("step")


def refuse_finished(weights_path):
    """A finished checkpoint is replaced only on purpose: one line saying what is there and how."""
    if weights_path.exists():
        step = trained_step(weights_path)
        raise UsageError(f"{weights_path} holds a finished run ({f'step {step}' if step is not None else 'its step unknown'}"
                         f"): add --force to train it again (it is replaced when the new run ends), or --out DIR to "
                         f"write a trial run elsewhere")


def is_complete(name, steps, snapshots, checkpoint_dir=CHECKPOINTS):
    paths = [checkpoint_dir / f"{name}.pt"] + [snapshot_path(checkpoint_dir, name, s) for s in snapshots if s <= steps]
    if not all(p.exists() for p in paths):
        return False
    return trained_step(paths[0]) == steps


def head_builder(kind, seed, device, out=CHECKPOINTS):
    """build() for train(): a FeatureDrafter on the frozen main + MTP model of the same seed (from
    `out` if a run was trained there, else the committed one)."""
    main_name = run_name(*RUNS[0], seed)
    main_path = out / f"{main_name}.pt"
    if not main_path.exists():
        main_path = CHECKPOINTS / f"{main_name}.pt"
    if not main_path.exists():
        raise UsageError(f"{main_path} not found: train the main model of seed {seed} first "
                         f"(python -m experiments.train --model main --seed {seed})")
    try:
        main = load_checkpoint(main_path, device)[0]
    except CheckpointError as err:  # it names the file
        raise UsageError(f"{err}: retrain it (python -m experiments.train --model main --seed {seed} "
                         f"--fresh --force)") from None
    return lambda: FeatureDrafter(main, HeadsConfig(kind, main=main_name))


def default_steps(model):
    return HEAD_STEPS if model in KINDS else 5000


def train_one(model, mtp, seed, args):
    name = run_name(model, mtp, seed)
    out = args.out
    if args.fresh:
        (out / f"{name}.opt.pt").unlink(missing_ok=True)
    steps = args.steps or default_steps(model)
    common = dict(device=args.device, checkpoint_dir=out, results_dir=RESULTS if out.resolve() == CHECKPOINTS else out,
                  force=args.force)
    if model in KINDS:
        result = train(None, name, 0.0, steps, args.batch, seed, args.lr or HEAD_LR,
                       build=head_builder(model, seed, args.device, out), **common)
    else:
        cfg = replace(MAIN, mtp=mtp > 0) if model == "main" else DRAFT
        lr = args.lr or (2e-3 if model == "main" else 3e-3)
        snapshots = DRAFT_SNAPSHOTS if model == "draft" else ()
        result = train(cfg, name, mtp, steps, args.batch, seed, lr, snapshots=snapshots, **common)
    print(f"[{name}] done in {result['wall_time_s'] / 60:.1f} min: val " +
          " ".join(f"{k} {v:.4f}" for k, v in result["final_val"].items()), flush=True)


def main(argv=None):
    return run_cli(run, arg_parser().parse_args(argv))


def arg_parser():
    parser = ArgumentParser(prog="python -m experiments.train", description=__doc__.split("\n")[0])
    parser.add_argument("--model", choices=["main", "draft", *KINDS, "heads", "all"], default="main",
                        help=f"{' / '.join(KINDS)}: a drafter trained on the frozen main + MTP model of --seed; "
                             "heads: every one of those; all: main + MTP, the control, the draft and the heads, "
                             "for every --seeds")
    parser.add_argument("--mtp", type=float, default=None,
                        help="MTP loss weight lambda (main only; default 0.3, 0 = control run)")
    parser.add_argument("--steps", type=int, default=None,
                        help=f"default 5000 ({HEAD_STEPS} for the drafters on the main model)")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seed", type=int, default=None, help="the run's seed (default 0)")
    parser.add_argument("--seeds", type=int, nargs="+", help="several seeds, one run each (instead of --seed)")
    parser.add_argument("--lr", type=float, default=None)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--fresh", action="store_true",
                        help="ignore saved states and train from scratch")
    parser.add_argument("--force", action="store_true",
                        help="train again a model whose finished checkpoint exists (replaced when the new run ends)")
    parser.add_argument("--out", type=Path, default=CHECKPOINTS,
                        help="where the checkpoints and training logs go (default experiments/checkpoints, the logs "
                             "to experiments/results): a trial run elsewhere leaves the committed files alone")
    return parser


def check_args(args):
    """Everything the user can get wrong, before any file is written."""
    if args.model not in ("main", "all") and args.mtp:
        raise UsageError(f"--model {args.model} has no MTP head: --mtp must be 0 for --model {args.model}")
    if args.mtp is not None and not 0 <= args.mtp < math.inf:
        raise UsageError(f"--mtp must be a finite weight >= 0, got {args.mtp}")
    if args.lr is not None and not 0 < args.lr < math.inf:
        raise UsageError(f"--lr must be a finite number > 0, got {args.lr}")
    if args.steps is not None and args.steps < 1:
        raise UsageError(f"--steps must be at least 1, got {args.steps}")
    if args.batch < 1:
        raise UsageError(f"--batch must be at least 1, got {args.batch}")
    if args.seed is not None and args.seeds:
        raise UsageError("give --seed or --seeds, not both")
    args.seeds = args.seeds or [0 if args.seed is None else args.seed]
    for seed in args.seeds:
        check_seed(seed, "--seeds" if len(args.seeds) > 1 else "--seed")
    check_threads(args.threads)
    args.device = check_device(args.device)
    if args.out.exists():  # created by the first run that ends
        check_folder(args.out, "--out", "checkpoints")
    find_data()  # a missing or corrupt data file is one line (DataError), not a traceback mid-run


def jobs_to_run(args):
    """(model, λ, seed) of every run the command asks for that is not already finished; a finished
    checkpoint of other steps is refused (before anything trains), one of these steps skipped."""
    runs = {"all": RUNS + HEAD_RUNS, "heads": HEAD_RUNS}.get(args.model, [(args.model, main_mtp(args))])
    jobs = []
    for seed in args.seeds:
        for model, mtp in runs:
            name = run_name(model, mtp, seed)
            snapshots = DRAFT_SNAPSHOTS if model == "draft" else ()
            resuming = (args.out / f"{name}.opt.pt").exists() and not args.fresh
            if not (args.force or resuming):
                if is_complete(name, args.steps or default_steps(model), snapshots, args.out):
                    print(f"{name}: checkpoint complete, skipped (--force trains it again)", flush=True)
                    continue
                refuse_finished(args.out / f"{name}.pt")
            jobs.append((model, mtp, seed))
    return jobs


def main_mtp(args):
    return (0.3 if args.mtp is None else args.mtp) if args.model == "main" else 0.0


def run(args):
    check_args(args)
    torch.set_num_threads(args.threads)
    jobs = jobs_to_run(args)
    for i, (model, mtp, seed) in enumerate(jobs, 1):
        print(f"[{i}/{len(jobs)}] training {run_name(model, mtp, seed)}", flush=True)
        train_one(model, mtp, seed, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
