// The acceptance rule, run in the page. It mirrors experiments/rule.py accept_reject:
// accept draft i when u_i < min(1, p_i(d_i) / q_i(d_i)); at the first rejection draw from
// normalize(max(0, p_i - q_i)); if all γ pass, draw a bonus token from p_γ.

// mulberry32: a small seeded generator, so "draw it yourself" can be replayed.
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function rand() {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

// One index drawn from a probability vector (its sum need not be 1), as rule.py sample():
// the first index whose running sum exceeds u times the total.
export function sampleIndex(probs, rand) {
  let total = 0;
  for (const x of probs) total += x;
  const target = rand() * total;
  let cum = 0;
  for (let i = 0; i < probs.length; i++) {
    cum += probs[i];
    if (cum > target) return i;
  }
  let last = probs.length - 1; // rounding put u at the very top: the last char with any mass
  while (last > 0 && !(probs[last] > 0)) last -= 1;
  return last;
}

export function residual(p, q) {
  const r = p.map((pi, i) => Math.max(0, pi - q[i]));
  const mass = r.reduce((a, b) => a + b, 0);
  return mass <= 1e-12 ? p.slice() : r.map((x) => x / mass);
}

// p: γ+1 rows, q: γ rows, drafts: γ indices. Returns {nAccepted, next, u}. Like the Python rule
// it draws the γ uniforms first, then one more for the token it samples, so the same uniforms
// give the same verdicts (tests/js/lab.test.mjs checks this on cases Python wrote).
export function acceptReject(p, q, drafts, rand) {
  const u = drafts.map(() => rand());
  let n = 0;
  while (n < drafts.length && q[n][drafts[n]] > 0 && u[n] * q[n][drafts[n]] < p[n][drafts[n]]) n += 1;
  const next = sampleIndex(n === drafts.length ? p[n] : residual(p[n], q[n]), rand);
  return { nAccepted: n, next, u };
}

// One draft from q, verified against p: the emitted char and whether the draft was kept.
export function draftAndVerify(p, q, rand) {
  const d = sampleIndex(q, rand);
  const { nAccepted, next } = acceptReject([p, p], [q], [d], rand);
  return { token: nAccepted === 1 ? d : next, accepted: nAccepted === 1 };
}

export function alphaOf(p, q) {
  return p.reduce((s, pi, i) => s + Math.min(pi, q[i]), 0);
}

export function totalVariation(a, b) {
  return 0.5 * a.reduce((s, ai, i) => s + Math.abs(ai - b[i]), 0);
}
