"""divergence_sweep.json (section ②): draft snapshots along training against the final main
model on the same val positions: mean Σmin(p, q), KL(p‖q), TV, the sampled acceptance rate and
the draft's loss. α = 1 − TV holds exactly at every position.

Its results are declared in experiments/records/models.py: DivergenceFile (divergence_sweep.json)."""
import torch

from experiments.measure.common import DRAFT, MAIN_MTP, checkpoint
from experiments.probes import CONTEXT, SEED, draws_through_rule, next_char_probs, val_offsets
from experiments.stats import alpha, kl, tv
from experiments.runs import DRAFT_SNAPSHOTS, run_name


def measure(args, data, seeds, sizes):
    seed, n_positions = seeds[0], sizes.n_positions
    offsets = val_offsets(data, n_positions)
    targets = data.val[offsets + CONTEXT]
    p = next_char_probs(checkpoint(args, run_name(*MAIN_MTP, seed)), data, offsets, args.device)
    generator = torch.Generator().manual_seed(SEED)
    rows = torch.arange(n_positions)
    snapshots, identity_gap = [], 0.0
    for step in DRAFT_SNAPSHOTS:
        draft = checkpoint(args, f"{run_name(*DRAFT, seed)}_step{step}")
        q = next_char_probs(draft, data, offsets, args.device)
        a, d = alpha(p, q), tv(p, q)
        accepted = sum(draws_through_rule(p[i], q[i], sizes.samples_per_position, generator)[0]
                       for i in range(n_positions))
        n_samples = n_positions * sizes.samples_per_position
        identity_gap = max(identity_gap, float((a - (1 - d)).abs().max()))
        snapshots.append({"step": step, "alpha_mean": float(a.mean()), "kl_mean": float(kl(p, q).mean()),
                          "tv_mean": float(d.mean()), "accept_rate_sampled": accepted / n_samples,
                          "n_samples": n_samples,
                          "draft_val_loss": float(-q[rows, targets].log().mean())})
        print(f"  step {step}: alpha {snapshots[-1]['alpha_mean']:.4f}, "
              f"KL {snapshots[-1]['kl_mean']:.4f}", flush=True)
    return {"divergence_sweep": {
        "n_positions": n_positions, "seed": SEED, "samples_per_position": sizes.samples_per_position,
        "context": CONTEXT, "main_val_loss": float(-p[rows, targets].log().mean()),
        "snapshots": snapshots, "max_abs_alpha_minus_one_minus_tv": identity_gap}}
