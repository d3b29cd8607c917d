"""Every measurement the page reads, rerun from the committed checkpoints (no training).

    python -m experiments.measure --device cpu --seeds 0       # what `make measure` runs
    python -m experiments.measure --only models

Each measurement writes one experiments/results/<name>.json with a `meta` block.
"""
import argparse
import sys
import time
from pathlib import Path

import torch

from experiments.data import SHA256, CharData
from experiments.jsonio import RESULTS, meta, read_json, write_json
from experiments.model import load_checkpoint
from experiments.train import CHECKPOINTS, RUNS, run_name


def require(path):
    if not Path(path).exists():
        raise SystemExit(f"error: {path} not found: run `make data` to train it")
    return path


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


def measure_models(args, data):
    """Sizes, configs and val losses of every trained model; per-part counts of the MTP head."""
    runs = {}
    for seed in args.seeds:
        for model_kind, mtp in RUNS:
            name = run_name(model_kind, mtp, seed)
            model, payload = load_checkpoint(require(CHECKPOINTS / f"{name}.pt"), args.device)
            log = read_json(require(RESULTS / f"train_{name}.json"))
            runs[name] = {
                "kind": "draft" if model_kind == "draft" else ("main_mtp" if mtp else "control"),
                "seed": seed, "mtp_weight": mtp, "steps": payload["step"],
                "config": payload["config"], "params": model.n_params_main(),
                "params_total": model.n_params(),
                "val_loss_train_log": log["final_val"],
                "val_loss_full": full_val_loss(model, data, args.device),
                "train_wall_s": log["wall_time_s"], "train_device": log["meta"]["device"],
                "train_threads": log["meta"]["threads"],
                "batch_size": log["config"]["batch_size"]}
    main, _ = load_checkpoint(CHECKPOINTS / f"{run_name('main', 0.3, args.seeds[0])}.pt")
    head = main.mtp
    mtp_parts = {
        "hidden_norm": main.n_params(head.hidden_norm),
        "embed_norm": main.n_params(head.embed_norm),
        "proj": main.n_params(head.proj),
        "block": main.n_params(head.block),
        "shared_embedding_head": main.n_params(main.tok_emb),
        "shared_final_norm": main.n_params(main.norm),
    }
    return {"data": {"name": "tiny shakespeare", "file": data.path.name, "chars": data.n_chars,
                     "vocab_size": data.vocab_size, "sha256": SHA256,
                     "train_chars": len(data.train), "val_chars": len(data.val)},
            "runs": runs, "mtp_parts": mtp_parts,
            "mtp_head_params": main.n_params(head)}


MEASUREMENTS = {"models": measure_models}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--only", choices=sorted(MEASUREMENTS), nargs="+")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    data = CharData()
    names = args.only or list(MEASUREMENTS)
    for i, name in enumerate(names, 1):
        t0 = time.time()
        print(f"[measure {i}/{len(names)}] {name} ...", flush=True)
        result = MEASUREMENTS[name](args, data)
        write_json(RESULTS / f"{name}.json", {"meta": meta(args.seeds, args.device), **result})
        print(f"[measure {i}/{len(names)}] {name}: wrote experiments/results/{name}.json "
              f"in {time.time() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
