"""The statistics behind the results files: distances between distributions, chi-square tests,
the speedup formulas and the flatness rule, seed statistics. Pure functions of numbers; no models
here. The formulas and the rule have one twin, static/js/theory.js (tests/measure/test_theory_twin.py)."""
import math
import statistics

import torch
from scipy import stats as scipy_stats

LEVEL = 0.05  # significance level of every test whose verdict the page words


# Distances between next-char distributions [..., V], float64.

def tv(p, q):
    return 0.5 * (p - q).abs().sum(-1)


def kl(p, q):
    """KL(p || q) in nats; xlogy makes 0·log 0 = 0."""
    return (torch.xlogy(p, p) - torch.xlogy(p, q)).sum(-1)


def alpha(p, q):
    """Acceptance probability of one draft from q verified against p: Σ min(p, q)."""
    return torch.minimum(p, q).sum(-1)


def entropy(p):
    return -torch.xlogy(p, p).sum(-1)


# Chi-square tests.

def chi2_sf(stat, dof):
    """P(X ≥ stat) for X ~ χ²(dof)."""
    return float(scipy_stats.chi2.sf(stat, dof))


def chi_square(counts, law):
    """Pearson's chi-square of counts against law; chars expected < 5 times share one bin
    (dropped when it expects nothing). Returns (stat, dof, p-value)."""
    expected = law * counts.sum()
    rare = expected < 5
    observed = torch.cat([counts[~rare], counts[rare].sum()[None]]).double()
    expected = torch.cat([expected[~rare], expected[rare].sum()[None]])
    observed, expected = observed[expected > 0], expected[expected > 0]
    stat = float(((observed - expected) ** 2 / expected).sum())
    dof = len(expected) - 1
    return stat, dof, chi2_sf(stat, dof)


def burst_check(run_lengths, alpha):
    """Drafts accepted per full round against the geometric law at the row's α, which holds
    if acceptances are independent: P(n = k) = α^k (1 - α) for k < γ, P(n = γ) = α^γ.
    dof = (γ + 1 cells) - 1 (fixed total) - 1 (α fitted from the same rounds)."""
    gamma, rounds = len(run_lengths) - 1, sum(run_lengths)
    law = [alpha ** k * (1 - alpha) for k in range(gamma)] + [alpha ** gamma]
    expected = [p * rounds for p in law]
    chi2 = sum((o - e) ** 2 / e for o, e in zip(run_lengths, expected))
    dof = gamma - 1
    return {"expected": expected, "chi2": chi2, "dof": dof, "p": chi2_sf(chi2, dof) if dof > 0 else None}


def pooled_burst_check(rows, mode):
    """One test per mode: the burst chi-squares of the mode's draft rows that have degrees of
    freedom left, added up (independent chi-squares add, and so do their dofs). `ends` sums the
    rounds at both ends of the law (no draft accepted, all γ accepted) over the same rows: if hard
    characters cluster, both ends hold more rounds than the geometric law expects."""
    tested = [r for r in rows if r["mode"] == mode and r["method"] == "draft" and r["burst"]["dof"] > 0]
    chi2, dof = sum(r["burst"]["chi2"] for r in tested), sum(r["burst"]["dof"] for r in tested)
    p = chi2_sf(chi2, dof) if dof else None
    ends = {"zero": {"observed": sum(r["run_lengths"][0] for r in tested),
                     "expected": sum(r["burst"]["expected"][0] for r in tested)},
            "full": {"observed": sum(r["run_lengths"][-1] for r in tested),
                     "expected": sum(r["burst"]["expected"][-1] for r in tested)}}
    if p is None or p >= LEVEL:
        verdict = "geometric"
    elif all(end["observed"] > end["expected"] for end in ends.values()):
        verdict = "both_ends_high"
    else:
        verdict = "differs"
    return {"rows": len(tested), "chi2": chi2, "dof": dof, "p": p, "level": LEVEL, "ends": ends,
            "verdict": verdict}


# The speedup formulas (Leviathan et al. 2023): the only place they are written in Python; every
# measurement and exercise calls these (static/js/theory.js: expectedTokens, speedupTheory).

def expected_tokens(alpha, gamma):
    """Expected tokens per main forward, (1 - α^{γ+1}) / (1 - α) (Leviathan 2023, eq. 1); γ + 1
    when every draft passes (α = 1)."""
    if alpha >= 1:
        return gamma + 1
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)


def theorem_3_8(alpha, gamma, c, r=1.0):
    """Expected wall-clock improvement (Leviathan et al. 2023, Theorem 3.8): expected_tokens over
    the round's cost in main forwards, γc + r, where r is the verify's price: the theorem's 1, or
    what a verify of γ + 1 positions measured (r_{γ+1}) where it does not cost one forward."""
    return expected_tokens(alpha, gamma) / (gamma * c + r)


# The flatness rule: whether a forward that takes several positions costs (nearly) what a one-position
# forward does, the premise of speculation and the "+ 1" of Theorem 3.8. Every "flat" verdict (①'s
# price curve, the ledger's verify) asks this, and so does the ledger card's "close to the theorem's
# assumption" (static/js/theory.js: FLAT_SLACK, isFlat).
FLAT_SLACK = 0.15  # a forward within 15% of a one-position one counts as flat


def is_flat(price, slack=FLAT_SLACK):
    """Is a forward of price `price` in one-position forwards (r_k, or a verify over plain decoding's
    forward) within `slack` of one?"""
    return price <= 1 + slack


# The verdict rule: a timed row is called faster (or slower) than plain decoding only when every one
# of its paired repeats lies above (below) 1x; otherwise (or with a single run, which pairs nothing)
# this measurement cannot tell the two apart, and the page prints the range instead. Its twins: static/js/theory.js pairedVerdict (the widgets)
# and chapter/views/rows.py paired_verdict (the build, which checks every verdict the page prints).
def paired_verdict(runs):
    """"faster", "slower" or "unclear" for a row's paired speedups {"min", "max", "n"}."""
    if runs["n"] < 2:
        return "unclear"
    return "faster" if runs["min"] > 1 else "slower" if runs["max"] < 1 else "unclear"


# Seed statistics.

def mean_std(values):
    """Mean and sample standard deviation (n - 1); std is None for a single value."""
    return {"values": values, "mean": statistics.mean(values),
            "std": statistics.stdev(values) if len(values) > 1 else None}


PAIRED_T_TEST = ("paired t-test over seeds: t = mean of the per-seed differences / (their sample "
                 "standard deviation / √n), compared with Student's t with n − 1 degrees of freedom, "
                 "two-sided, 95%")


def paired_t_test(with_mtp, control):
    """Paired by seed: does the MTP loss move the main model's val loss beyond seed noise?
    With n seeds the mean difference over its standard error follows Student's t with n − 1
    degrees of freedom; 'beyond seed noise' means |t| exceeds the two-sided 95% critical value
    (4.30 for 3 seeds, not the normal 1.96 or 2), i.e. the 95% interval excludes 0."""
    diffs = [a - b for a, b in zip(with_mtp, control)]
    n, mean = len(diffs), statistics.mean(diffs)
    out = {"differences": diffs, "mean_difference": mean, "n_seeds": n, "test": PAIRED_T_TEST,
           "df": None, "standard_error": None, "t": None, "t_critical": None, "p": None,
           "ci95": None, "beyond_seed_noise": None}
    if n < 2:
        return out
    df, se = n - 1, statistics.stdev(diffs) / math.sqrt(n)
    t_critical = float(scipy_stats.t.ppf(1 - LEVEL / 2, df))
    out.update(df=df, standard_error=se, t_critical=t_critical,
               ci95=[mean - t_critical * se, mean + t_critical * se])
    if se > 0:
        t = mean / se
        out.update(t=t, p=float(2 * scipy_stats.t.sf(abs(t), df)), beyond_seed_noise=abs(t) > t_critical)
    else:  # every seed moved by exactly the same amount: no noise to compare with
        out.update(beyond_seed_noise=mean != 0)
    return out
