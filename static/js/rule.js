// The acceptance rule, run in the page. It mirrors experiments/speculative.py accept_reject:
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

export function sampleIndex(probs, rand) {
  let total = 0;
  for (const x of probs) total += x;
  let u = rand() * total;
  let last = 0;
  for (let i = 0; i < probs.length; i++) {
    if (probs[i] <= 0) continue;
    last = i;
    u -= probs[i];
    if (u < 0) return i;
  }
  return last; // rounding left u a hair above zero: the last char with mass
}

export function residual(p, q) {
  const r = p.map((pi, i) => Math.max(0, pi - q[i]));
  const mass = r.reduce((a, b) => a + b, 0);
  return mass <= 1e-12 ? p.slice() : r.map((x) => x / mass);
}

// p: γ+1 rows, q: γ rows, drafts: γ indices. Returns {nAccepted, next, u}.
export function acceptReject(p, q, drafts, rand) {
  const u = [];
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i];
    u.push(rand());
    const accepted = q[i][d] > 0 && u[i] * q[i][d] < p[i][d];
    if (!accepted) return { nAccepted: i, next: sampleIndex(residual(p[i], q[i]), rand), u };
  }
  return { nAccepted: drafts.length, next: sampleIndex(p[drafts.length], rand), u };
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
