"""Exercise 1: draw N tokens through the acceptance rule at one real position and test them
against the main model's p with Pearson's chi-square. The rule is lossless, so the test should
pass (p-value above 0.05 about 95% of the time); a broken rule fails it."""
import torch

from experiments.probes import draws_through_rule, next_char_probs, val_offsets
from experiments.stats import alpha, chi_square, tv
from experiments.rule import accept_reject

MIN_DRAWS = 100
MAX_DRAWS = 2_000_000  # about a minute on this machine's CPU (25 to 35 µs a draw)
PROGRESS_EVERY = 200_000  # draws between progress lines (5 to 7 s)


def accept_every_draft(p, q, drafts, generator=None):
    """A broken rule to test the test with: every draft passes, so the output follows q, not p."""
    return len(drafts), accept_reject(p, q, drafts, generator)[1]


def chi2_check(main, draft, data, n, position=0, seed=0, rule=accept_reject, log=lambda line: None):
    """n draws at the `position`-th random val position: a draft from q, then `rule`. Returns
    what the reader compares: acceptance, TV distances, and the chi-square test against p.
    A run longer than PROGRESS_EVERY draws logs its progress."""
    offset = val_offsets(data, position + 1)[position:position + 1]
    device = main.tok_emb.weight.device
    p = next_char_probs(main, data, offset, device)[0]
    q = next_char_probs(draft, data, offset, device)[0]
    generator = torch.Generator(device=device).manual_seed(seed)
    accepted, emitted = 0, []
    for done in range(0, n, PROGRESS_EVERY):  # the same draws as one call: the generator runs on
        chunk_accepted, chunk = draws_through_rule(p, q, min(PROGRESS_EVERY, n - done), generator, rule)
        accepted, emitted = accepted + chunk_accepted, emitted + [chunk]
        if n > PROGRESS_EVERY:
            log(f"{done + len(chunk):,} of {n:,} draws")
    emitted = torch.cat(emitted)
    counts = torch.bincount(emitted, minlength=p.shape[0]).to(device)
    stat, dof, p_value = chi_square(counts, p)
    return {"context": data.decode(data.val[offset[0]:offset[0] + 64].tolist()), "n": n,
            "alpha": alpha(p, q).item(), "accepted": accepted / n,
            "tv_output_p": tv(counts.double() / n, p).item(), "tv_q_p": tv(q, p).item(),
            "chi2": stat, "dof": dof, "p_value": p_value}


def verdict(p_value):
    if p_value > 0.05:
        return "the output is consistent with p"
    if p_value > 1e-6:
        return "rejected at 5% (a lossless rule does this in 1 run of 20: run it again with another --seed)"
    return "the output does not follow p"


def report(result):
    print(f"context (64 val chars): {result['context']!r}")
    print(f"Σmin(p, q) = {result['alpha']:.4f}; drafts accepted: {result['accepted']:.4f} of {result['n']:,}")
    print(f"TV(q, p) = {result['tv_q_p']:.4f}; TV(output, p) = {result['tv_output_p']:.4f}")
    print(f"chi-square = {result['chi2']:.1f} on {result['dof']} dof (chars expected < 5 times share one cell), "
          f"p-value = {result['p_value']:.3g}: " + verdict(result["p_value"]))
