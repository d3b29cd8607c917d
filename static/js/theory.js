// The formulas of section ③ (Leviathan et al. 2023), shared by the widgets that draw or word them,
// and the flatness rule: the twins of experiments/stats.py (tests/measure/test_theory_twin.py holds them equal).
import { FAMILY_LABEL } from "./labels.js";

// Expected characters per main forward when each of γ drafts passes independently with prob. α:
// 1 + α + … + α^γ = (1 − α^{γ+1}) / (1 − α)   (eq. 1)
export function expectedTokens(alpha, gamma) {
  if (alpha >= 1) return gamma + 1;
  return (1 - alpha ** (gamma + 1)) / (1 - alpha);
}

// Theorem 3.8: expected wall-clock improvement when a draft forward costs c main forwards and a
// verify r (the theorem's 1, or a measured r_{γ+1} where a verify does not cost one forward):
// E / (γc + r)   (stats.py theorem_3_8)
export function speedupTheory(alpha, gamma, c, r = 1) {
  return expectedTokens(alpha, gamma) / (gamma * c + r);
}

// The flatness rule: a forward of `price` one-position forwards is flat (extra positions nearly
// free, the verify Theorem 3.8 assumes) within FLAT_SLACK of one (stats.py FLAT_SLACK, is_flat).
export const FLAT_SLACK = 0.15;
export function isFlat(price, slack = FLAT_SLACK) {
  return price <= 1 + slack;
}

// The verdict rule: a timed row is faster (slower) than plain decoding only when every paired repeat
// lies above (below) 1×; otherwise, or with a single run, "unclear": the measurement cannot tell
// (stats.py paired_verdict). runs: a row's speedup_runs {min, max, n}.
export function pairedVerdict(runs) {
  if (runs.n < 2) return "unclear";
  return runs.min > 1 ? "faster" : runs.max < 1 ? "slower" : "unclear";
}

// The best γ in 1..maxGamma; atEdge: a longer chain would do better still; pays: beats plain.
export function optimalGamma(alpha, c, maxGamma) {
  let best = 1;
  for (let g = 2; g <= maxGamma; g++) {
    if (speedupTheory(alpha, g, c) > speedupTheory(alpha, best, c)) best = g;
  }
  const speedup = speedupTheory(alpha, best, c);
  return {
    gamma: best, speedup, tokens: expectedTokens(alpha, best), pays: speedup > 1,
    atEdge: best === maxGamma && speedupTheory(alpha, maxGamma + 1, c) > speedup,
  };
}

// The α at which E(α, γ) equals `tokens` (E rises with α, so bisection is enough).
export function alphaForTokens(tokens, gamma) {
  let lo = 0, hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (expectedTokens(mid, gamma) < tokens) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

// Mean accepted drafts per round from the counts of rounds with 0, 1, …, γ accepted.
export function meanAccepted(counts) {
  const rounds = counts.reduce((a, b) => a + b, 0);
  return counts.reduce((sum, n, k) => sum + n * k, 0) / rounds;
}
