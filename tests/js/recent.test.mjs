// Section ⑤'s "what changed in 2025–26" charts (static/js/recent.js): the points come from
// families.json as measured (α by depth, drafting per round by γ), and their table prints them.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { familyClass, familyDash } from "../../static/js/labels.js";
import { costPoints, depthPoints, recentTable } from "../../static/js/recent.js";
import { registry } from "./registry.mjs";

const families = JSON.parse(readFileSync(new URL("../../experiments/results/families.json", import.meta.url)));

const fake = {
  alpha_by_depth: { depth: 3, T1: { eagle: [0.8, 0.6, 0.5], eagle3: [0.82, 0.75, 0.7], medusa: [0.4, 0.2], block: [0.7, 0.3, 0.2] } },
  summary: { recent: { drafting: { eagle: [{ size: 1, drafter_per_round: 0.5 }, { size: 2, drafter_per_round: 1.0 }],
    eagle3: [], block: [{ size: 1, drafter_per_round: 0.4 }, { size: 2, drafter_per_round: 0.41 }] } } },
};

test("the points are the measured lists, depth from 1 and γ as swept, in the registry's order; a family without rows is left out", () => {
  assert.deepEqual(depthPoints(fake).medusa, [[1, 0.4], [2, 0.2]]);
  assert.deepEqual(Object.keys(depthPoints(fake)), ["medusa", "block", "eagle", "eagle3"]);
  assert.deepEqual(costPoints(fake), { block: [[1, 0.4], [2, 0.41]], eagle: [[1, 0.5], [2, 1.0]] });
  assert.deepEqual(Object.keys(costPoints(fake)), ["block", "eagle"]);
  assert.deepEqual(costPoints({ summary: {} }), {});
});

test("the table has a column for every x any family has, and a dash where one has none", () => {
  const { xs, rows } = recentTable(depthPoints(fake), 3);
  assert.deepEqual(xs, [1, 2, 3]);
  assert.deepEqual(rows.find((r) => r.family === "medusa").cells, ["0.400", "0.200", "—"]);
});

test("on the committed measurements: every head's α by depth, every γ of the sweep's chains", () => {
  const depth = depthPoints(families);
  for (const f of ["eagle", "eagle3", "block", "medusa"]) {
    assert.ok(depth[f].length >= 1 && depth[f].every(([, a]) => a > 0 && a <= 1), f);
  }
  assert.equal(depth.eagle3.length, families.alpha_by_depth.depth);
  const cost = costPoints(families);
  for (const f of ["eagle", "eagle3", "block"]) assert.deepEqual(cost[f].map(([g]) => g), families.chain_gammas, f);
});

test("a family's line has its group's colour, and families of one group differ in their dash", () => {
  const groups = new Set(registry.families.map((f) => f.group).filter(Boolean));
  for (const group of groups) {
    const members = registry.families.filter((f) => f.group === group);
    for (const f of members) assert.equal(familyClass(f.name), `k-${group}`);
    assert.equal(new Set(members.map((f) => familyDash(f.name))).size, members.length, group);
  }
  assert.equal(familyClass("no-such-family"), "k-none");
});
