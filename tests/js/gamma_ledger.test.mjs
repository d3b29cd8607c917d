import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  alphaForTokens, burstCheck, expectedTokens, gammaSteps, optimalGamma, pooledBurstCheck, speedupTheory,
} from "../../static/js/gamma.js";
import { LEDGER_SORT, ledgerSteps, methodLabel, sortLedger } from "../../static/js/ledger.js";

const results = (name) => JSON.parse(readFileSync(new URL(`../../experiments/results/${name}.json`, import.meta.url)));
const close = (a, b, tol = 1e-9) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${a} vs ${b}`);

test("expected tokens: the closed form equals the sum 1 + α + … + α^γ", () => {
  for (const alpha of [0.1, 0.5, 0.73, 0.99]) {
    for (let gamma = 0; gamma <= 8; gamma++) {
      let sum = 0;
      for (let k = 0; k <= gamma; k++) sum += alpha ** k;
      close(expectedTokens(alpha, gamma), sum);
    }
  }
  assert.equal(expectedTokens(1, 4), 5);
  close(expectedTokens(0.5, 2), 1.75);
});

test("Theorem 3.8: γ = 1 gives (1 + α)/(1 + c); beating plain at γ = 1 means α > c", () => {
  close(speedupTheory(0.7, 1, 0.2), 1.7 / 1.2);
  assert.ok(speedupTheory(0.3, 1, 0.29) > 1);
  assert.ok(speedupTheory(0.3, 1, 0.31) < 1);
  close(speedupTheory(0.6, 3, 0), expectedTokens(0.6, 3)); // free drafts: speedup = tokens per forward
});

test("JS formulas reproduce the Python numbers stored in ledger.json", () => {
  const ledger = results("ledger");
  for (const row of ledger.rows.filter((r) => r.method !== "plain")) {
    close(expectedTokens(row.alpha, row.gamma), row.tokens_per_main_expected, 1e-9);
    close(speedupTheory(row.alpha, row.gamma, row.c_used), row.speedup_theory, 1e-9);
  }
});

test("optimal γ is the argmax over 1..8, flags the edge and the hopeless case", () => {
  for (const [alpha, c] of [[0.5, 0.05], [0.7, 0.28], [0.85, 0.14], [0.9, 0.5]]) {
    const o = optimalGamma(alpha, c);
    for (let g = 1; g <= 8; g++) assert.ok(speedupTheory(alpha, g, c) <= o.speedup + 1e-12);
    close(o.speedup, speedupTheory(alpha, o.gamma, c));
    close(o.tokens, expectedTokens(alpha, o.gamma));
  }
  assert.equal(optimalGamma(0.5, 0.6).pays, false); // α < c: nothing pays
  const edge = optimalGamma(0.97, 0.01);
  assert.equal(edge.gamma, 8);
  assert.equal(edge.atEdge, true);
  assert.equal(optimalGamma(0.7, 0.28).atEdge, false);
});

test("burst readouts: ratios and means from a row's measured counts and law", () => {
  const expected = [30, 21, 14.7, 34.3], row = { run_lengths: [36, 18, 12, 34], burst: { expected, chi2: 2.1, dof: 2, p: 0.35 } };
  const b = burstCheck(row);
  assert.equal(b.gamma, 3);
  assert.equal(b.rounds, 100);
  close(b.ratioZero, 36 / 30);
  close(b.ratioAll, 34 / 34.3);
  close(b.meanObserved, (18 + 24 + 102) / 100);
  close(b.meanLaw, (21 + 29.4 + 102.9) / 100);
  const flat = burstCheck({ run_lengths: [30, 70], burst: { expected: [30, 70], chi2: 0, dof: 0, p: null } });
  const pooled = pooledBurstCheck([b, flat], { rows: 1, chi2: 2.1, dof: 2, p: 0.35 });
  assert.deepEqual([pooled.rows, pooled.dof, pooled.moreZero, pooled.moreAll], [1, 2, 1, 0]); // γ = 1 has no dof left
});

test("γ steps: gains between neighbouring γ and the α that would erase them", () => {
  for (const gamma of [2, 5, 8]) close(expectedTokens(alphaForTokens(2.5, gamma), gamma), 2.5, 1e-9);
  const rows = [
    { gamma: 4, alpha: 0.7, tokens_per_main: 2.7 },
    { gamma: 2, alpha: 0.72, tokens_per_main: 2.2 },
    { gamma: 8, alpha: 0.6, tokens_per_main: 2.4 },
  ];
  const steps = gammaSteps(rows);
  assert.deepEqual(steps.map((s) => [s.from, s.to]), [[2, 4], [4, 8]]);
  close(steps[0].gain, 0.5);
  assert.ok(steps[1].gain < 0); // a drop: the γ = 8 row's α is below the break-even α
  assert.ok(steps[1].alphaTo < steps[1].alphaBreakEven);
  close(steps[0].gainSameAlpha, 0.72 ** 3 + 0.72 ** 4);
});

test("ledger sort: both directions, nulls last, stable ties", () => {
  const rows = [
    { method: "plain", gamma: 0, speedup: 1, speedup_theory: null, alpha: null, wall_s: { median: 3 } },
    { method: "draft", gamma: 2, speedup: 1.5, speedup_theory: 1.8, alpha: 0.7, wall_s: { median: 2 } },
    { method: "mtp", gamma: 1, speedup: 1.5, speedup_theory: 1.4, alpha: 0.9, wall_s: { median: 2 } },
    { method: "draft", gamma: 1, speedup: 0.9, speedup_theory: 1.2, alpha: 0.72, wall_s: { median: 3.3 } },
  ];
  const order = (key, dir) => sortLedger(rows, key, dir).map((r) => rows.indexOf(r));
  assert.deepEqual(order("speedup", "desc"), [1, 2, 0, 3]);
  assert.deepEqual(order("speedup", "asc"), [3, 0, 1, 2]);
  assert.deepEqual(order("speedup_theory", "asc"), [3, 2, 1, 0]);
  assert.deepEqual(order("speedup_theory", "desc"), [1, 2, 3, 0]);
  assert.deepEqual(order("alpha", "desc"), [2, 3, 1, 0]);
  assert.deepEqual(order("method", "asc"), [0, 3, 1, 2]);
  assert.deepEqual(order("wall", "asc"), [1, 2, 0, 3]);
  assert.equal(Object.keys(LEDGER_SORT).length, 8);
  assert.deepEqual(methodLabel(rows[1], true), { zh: "草稿 γ = 2", en: "draft γ = 2" });
});

test("ledger card steps run from Theorem 3.8 to the measured speedup", () => {
  const ledger = results("ledger");
  for (const row of ledger.rows.filter((r) => r.method !== "plain")) {
    const plain = ledger.rows.find((r) => r.mode === row.mode && r.method === "plain");
    const st = ledgerSteps(row, plain, ledger.forward_costs[row.mode]);
    close(st.theory, row.speedup_theory);
    close(st.measured, row.speedup);
    close(st.priced, plain.forward_time_s / row.forward_time_s);
    close(st.verifySeconds + st.draftSeconds, row.forward_time_s, 1e-9);
  }
  // an idealized row: exactly E tokens per forward, γ drafts per round, verify at 1× → counted = theory
  const alpha = 0.75, gamma = 4, c = 0.2, n = 600;
  const main = n / expectedTokens(alpha, gamma);
  const costs = { seconds: { main: 1, draft: c, mtp_head: c, verify: { 4: 1 } } };
  const plain = { main_forwards: n, forward_time_s: n };
  const row = { method: "draft", gamma, alpha, c_used: c, main_forwards: main, draft_forwards: gamma * main,
    speedup_theory: speedupTheory(alpha, gamma, c), speedup: 1, overhead_s: 0, forward_time_s: main * (1 + gamma * c) };
  const st = ledgerSteps(row, plain, costs);
  close(st.counted, st.theory);
  close(st.priced, st.counted);
  close(st.draftsPerRound, gamma);
});
