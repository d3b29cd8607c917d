// The verify-cost part of section ① (roofline arithmetic, the measured curve) and the compiled
// lane of section ⑥'s ledger (the engine ladder has its own tests, ladder.test.mjs).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import "./registry.mjs";
import { laneOf } from "../../static/js/ledger_math.js";
import { ledgerSummary } from "../../static/js/ledger_text.js";
import { BYTES_PER_PARAM, DEVICES, ridge, roofline } from "../../static/js/roofline.js";
import { costCurve } from "../../static/js/verify_cost.js";

const results = (name) => JSON.parse(readFileSync(new URL(`../../experiments/results/${name}.json`, import.meta.url)));
const close = (a, b, tol = 1e-9) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${a} vs ${b}`);

test("roofline: flat until the ridge, then linear in the positions; the ridge is FLOP/s per byte/s", () => {
  for (const device of DEVICES) {
    const params = 7e9;
    const k = ridge(device);
    close(roofline(device, params, 1).overOne, 1);
    close(roofline(device, params, Math.floor(k)).overOne, 1); // below the ridge reading the weights dominates
    close(roofline(device, params, 2 * k).overOne, 2); // above it, twice the positions, twice the time
    close(k, (device.flops * BYTES_PER_PARAM) / (2 * device.bandwidth));
    close(roofline(device, params, 1).memory, (params * BYTES_PER_PARAM) / device.bandwidth);
    assert.ok(k > 100 && k < 1000, `${device.name}: ${k}`); // datasheet ratios of these GPUs
  }
});

test("measured curve: one point per position, ratio 1 at one position, the repeats' range around it", () => {
  const costs = results("costs");
  for (const engine of Object.values(costs.engines)) {
    const curve = costCurve(engine, costs.positions);
    assert.deepEqual(curve.map((p) => p.n), costs.positions);
    close(curve[0].ratio, 1);
    for (const p of curve) assert.ok(p.lo <= p.ratio + 1e-12 && p.ratio <= p.hi + 1e-12, JSON.stringify(p));
  }
  for (const engine of Object.keys(costs.engines)) {  // summary also holds conclusions across engines
    const s = costs.summary[engine], over = costs.engines[engine].over_main;
    assert.ok(over[String(s.flat_until)] <= 1 + s.flat_slack);
  }
});

test("ledger lanes: compiled rows form their own lane with their own plain baseline", () => {
  const ledger = results("ledger");
  if (!ledger.compiled) return;
  const rows = [...ledger.rows, ...ledger.compiled.rows];
  assert.deepEqual([...new Set(rows.map(laneOf))].sort(), ["compiled", "kvcache", "recompute"]);
  const summary = ledgerSummary(rows, "compiled");
  const fastest = ledger.compiled.rows.filter((r) => r.method !== "plain").reduce((a, b) => (b.speedup > a.speedup ? b : a));
  assert.equal(summary[1].value, `${fastest.speedup.toFixed(2)}×`);
});
