"""Exercise 2: the best chain length γ for α = 0.5, 0.7 and 0.85 at a drafting cost c, from
Theorem 3.8 (Leviathan et al. 2023, arXiv 2211.17192), then checked against this chapter's
measured γ sweep (experiments/results/gamma_sweep.json: the draft model, eager kv-cache decoding)."""
from experiments.jsonio import RESULTS, read_json
from experiments.stats import expected_tokens, theorem_3_8

ALPHAS = (0.5, 0.7, 0.85)
GAMMAS = range(1, 21)


def best_gamma(alpha, c, gammas=GAMMAS):
    """(γ, speedup): the chain length with the highest Theorem-3.8 speedup at α and c."""
    return max(((gamma, theorem_3_8(alpha, gamma, c)) for gamma in gammas), key=lambda best: best[1])


def optimal_gammas(c, alphas=ALPHAS):
    return [{"alpha": alpha, "gamma": gamma, "tokens_per_main": expected_tokens(alpha, gamma), "speedup": speedup}
            for alpha in alphas for gamma, speedup in [best_gamma(alpha, c)]]


def measured_check(results=RESULTS, mode="kvcache"):
    """The sweep's measured α and c, the γ the theorem picks for them, and the γ that was fastest."""
    sweep = read_json(results / "gamma_sweep.json")
    rows = [r for r in sweep["rows"] if r["mode"] == mode]
    alpha = sum(r["alpha"] for r in rows) / len(rows)
    c = sweep["c"][mode]
    fastest = max(rows, key=lambda r: r["speedup"])
    gamma, speedup = best_gamma(alpha, c, sweep["gammas"])
    return {"alpha": alpha, "c": c, "theory_gamma": gamma, "theory_speedup": speedup,
            "measured_gamma": fastest["gamma"], "measured_speedup": fastest["speedup"],
            "measured_speedup_at_theory_gamma": next(r["speedup"] for r in rows if r["gamma"] == gamma)}


def report(c, rows, check):
    print(f"Theorem 3.8 at c = {c:g}: speedup(γ) = (1 − α^(γ+1)) / ((1 − α)(γc + 1))")
    for row in rows:
        if row["speedup"] < 1:  # even the best chain loses to plain decoding at this cost
            print(f"  α = {row['alpha']:.2f}: don't speculate (the best, γ = {row['gamma']}, predicts "
                  f"{row['speedup']:.2f}×)")
            continue
        print(f"  α = {row['alpha']:.2f}: best γ = {row['gamma']:2d}, {row['tokens_per_main']:.2f} tokens per main "
              f"forward, {row['speedup']:.2f}× predicted")
    print(f"measured (gamma_sweep.json, kv cache): α = {check['alpha']:.3f}, c = {check['c']:.3f} -> the theorem "
          f"picks γ = {check['theory_gamma']} ({check['theory_speedup']:.2f}×); fastest measured γ = "
          f"{check['measured_gamma']} ({check['measured_speedup']:.2f}×), measured at γ = {check['theory_gamma']}: "
          f"{check['measured_speedup_at_theory_gamma']:.2f}×")
