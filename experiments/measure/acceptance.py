"""acceptance.json (section ②): the rule min(1, p/q) at five kinds of real val position, with
full p and q and many draws through accept_reject whose output is compared with p.

Its results are declared in experiments/records/models.py: AcceptanceFile (acceptance.json)."""
import time

import torch

from experiments.measure.common import main_and_draft
from experiments.probes import CONTEXT, SEED, draws_through_rule, next_char_probs, val_offsets
from experiments.stats import alpha, chi_square, entropy, tv


def pick_positions(p, q):
    """Row indices, distinct, for the five kinds of acceptance position."""
    a = alpha(p, q)
    overweight = torch.where(p < q / 4, q - p, torch.zeros_like(p))  # q likes what p dislikes
    closeness = {kind: -(a - a.quantile(level)).abs()
                 for kind, level in (("high", 0.9), ("typical", 0.5), ("low", 0.1))}
    scores = {**closeness, "overweight": overweight.max(-1).values, "uncertain": entropy(p)}
    chosen = {}
    for kind, score in scores.items():
        score = score.clone()
        score[list(chosen.values())] = -torch.inf
        chosen[kind] = int(score.argmax())
    return chosen, overweight


def measure(args, data, seeds, sizes):
    main, draft = main_and_draft(args, seeds[0])
    n_positions, draws = sizes.n_positions, sizes.draws
    offsets = val_offsets(data, n_positions)
    p_all = next_char_probs(main, data, offsets, args.device)
    q_all = next_char_probs(draft, data, offsets, args.device)
    chosen, overweight = pick_positions(p_all, q_all)
    generator = torch.Generator().manual_seed(SEED)
    positions = []
    for kind, row in chosen.items():
        p, q, offset = p_all[row], q_all[row], int(offsets[row])
        t0 = time.time()
        accepted, emitted = draws_through_rule(p, q, draws, generator)
        wall_s = time.time() - t0
        counts = torch.bincount(emitted, minlength=len(p))
        stat, dof, p_value = chi_square(counts, p)
        positions.append({
            "kind": kind, "val_offset": offset,
            "context": data.decode(data.val[offset:offset + CONTEXT].tolist()),
            "next_char": data.chars[int(data.val[offset + CONTEXT])],
            "p": p.tolist(), "q": q.tolist(), "alpha_theory": float(alpha(p, q)),
            "counts": counts.tolist(), "accept_rate": accepted / draws,
            "tv_out_p": float(tv(counts.double() / draws, p)), "tv_q_p": float(tv(q, p)),
            "chi2_stat": stat, "chi2_dof": dof, "chi2_p": p_value,
            "overweight_char": (data.chars[int(overweight[row].argmax())]
                                if kind == "overweight" else None),
            "draws_wall_s": round(wall_s, 2)})
        last = positions[-1]
        print(f"  {kind}: alpha {last['alpha_theory']:.4f}, accepted {last['accept_rate']:.4f}, "
              f"TV(out, p) {last['tv_out_p']:.4f}, chi2 p {p_value:.3f}, {wall_s:.1f} s", flush=True)
    return {"acceptance": {
        "vocab": data.chars, "draws": draws, "seed": SEED, "n_candidates": n_positions,
        "positions": positions,
        "selection": (f"{n_positions} random val positions (seed {SEED}, {CONTEXT}-char "
                      f"contexts); high, typical, low: alpha = Σmin(p, q) closest to its 90th, "
                      f"50th, 10th percentile; overweight: the largest q(x) - p(x) over chars "
                      f"with p(x) < q(x)/4; uncertain: the highest entropy of p; each position "
                      f"used once")}}
