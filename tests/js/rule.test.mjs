import assert from "node:assert/strict";
import { test } from "node:test";
import { acceptReject, alphaOf, draftAndVerify, mulberry32, residual, sampleIndex, totalVariation } from "../../static/js/rule.js";
import { chiSquare, criticalValue } from "./stats.mjs";

const normalize = (v) => { const s = v.reduce((a, b) => a + b, 0); return v.map((x) => x / s); };
const P = normalize([0.30, 0.02, 0.25, 0.0, 0.18, 0.05, 0.2]);
const Q = normalize([0.05, 0.40, 0.20, 0.10, 0.0, 0.05, 0.2]);

test("mulberry32 is deterministic and uniform-looking", () => {
  const a = mulberry32(7), b = mulberry32(7);
  const xs = Array.from({ length: 1000 }, () => a());
  assert.deepEqual(xs.slice(0, 5), Array.from({ length: 5 }, () => b()));
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  assert.ok(Math.abs(mean - 0.5) < 0.03);
});

test("sampleIndex follows the distribution and never picks a zero", () => {
  const rand = mulberry32(1), counts = new Array(P.length).fill(0);
  for (let i = 0; i < 50000; i++) counts[sampleIndex(P, rand)] += 1;
  assert.equal(counts[3], 0);
  const { stat, dof } = chiSquare(counts, P);
  assert.ok(stat < criticalValue(dof), `chi2 ${stat} with ${dof} dof`);
});

test("one draft through the rule emits exactly p (chi-square, 100k draws)", () => {
  const rand = mulberry32(2), counts = new Array(P.length).fill(0);
  let accepted = 0;
  const draws = 100000;
  for (let i = 0; i < draws; i++) {
    const out = draftAndVerify(P, Q, rand);
    counts[out.token] += 1;
    accepted += out.accepted ? 1 : 0;
  }
  const { stat, dof } = chiSquare(counts, P);
  assert.ok(stat < criticalValue(dof), `chi2 ${stat} with ${dof} dof`);
  const alpha = alphaOf(P, Q), se = Math.sqrt(alpha * (1 - alpha) / draws);
  assert.ok(Math.abs(accepted / draws - alpha) < 5 * se);
});

test("the same check catches a wrong rule (always accepting emits q)", () => {
  const rand = mulberry32(3), counts = new Array(P.length).fill(0);
  for (let i = 0; i < 100000; i++) counts[sampleIndex(Q, rand)] += 1;
  const { stat, dof } = chiSquare(counts, P);
  assert.ok(stat > criticalValue(dof));
});

test("γ drafts: accepted length follows α products; p = q accepts everything", () => {
  const rand = mulberry32(4);
  const p = [P, Q, P], q = [Q, P];
  const lengths = [0, 0, 0];
  const draws = 60000;
  for (let i = 0; i < draws; i++) {
    const drafts = [sampleIndex(q[0], rand), sampleIndex(q[1], rand)];
    lengths[acceptReject(p, q, drafts, rand).nAccepted] += 1;
  }
  const a1 = alphaOf(P, Q), a2 = alphaOf(Q, P);
  const law = [1 - a1, a1 * (1 - a2), a1 * a2];
  const { stat, dof } = chiSquare(lengths, law);
  assert.ok(stat < criticalValue(dof));
  for (let i = 0; i < 100; i++) assert.equal(acceptReject([P, P], [P], [sampleIndex(P, rand)], rand).nAccepted, 1);
});

test("edge cases: q(d) = 0 rejects, residual falls back to p, greedy one-hots", () => {
  const rand = mulberry32(5);
  assert.equal(acceptReject([P, P], [Q], [4], rand).nAccepted, 0); // Q[4] = 0
  assert.deepEqual(residual(P, P.map((x) => x + 1e-18)), P);
  const pHot = [0, 1, 0], qHot = [0, 0, 1];
  const out = acceptReject([pHot, pHot], [qHot], [2], rand);
  assert.deepEqual([out.nAccepted, out.next], [0, 1]);
  assert.deepEqual(acceptReject([pHot, [1, 0, 0]], [pHot], [1], rand).nAccepted, 1);
});

test("alpha equals 1 - TV", () => {
  assert.ok(Math.abs(alphaOf(P, Q) - (1 - totalVariation(P, Q))) < 1e-12);
});
