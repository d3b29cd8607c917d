"""The training runs and the names of their checkpoints, in one place (experiments/train.py
writes them; generate and the measurements read them)."""
from pathlib import Path

CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
RUNS = (("main", 0.3), ("main", 0.0), ("draft", 0.0))  # (model, λ): main + MTP, the control, the draft
DRAFT_SNAPSHOTS = (0, 100, 250, 500, 1000, 2500, 5000)  # the draft model's steps kept for section ②


def run_name(model, mtp, seed):
    """main_s0 (main + MTP), control_s0 (λ = 0), draft_s0, medusa_s0, eagle_s0, block_s0, eagle3_s0."""
    if model != "main":  # the draft model and every trained head kind (heads.KINDS)
        return f"{model}_s{seed}"
    return f"{'main' if mtp > 0 else 'control'}_s{seed}"


def snapshot_path(checkpoint_dir, name, step):
    return Path(checkpoint_dir) / f"{name}_step{step}.pt"
