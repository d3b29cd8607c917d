// The verify-cost part of section ① (roofline arithmetic, the measured curve) and the engine
// ladder of section ⑤ (the split, the targets and what to blame for a missed one).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ladderBars, ladderSplit, pageTargets, targetBlame, targetMet, targetNote } from "../../static/js/ladder.js";
import { laneOf, ledgerSummary } from "../../static/js/ledger.js";
import { BYTES_PER_PARAM, costCurve, DEVICES, ridge, roofline } from "../../static/js/verify_cost.js";

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

test("engine ladder: engineering × speculation = the whole, every rung over eager plain", () => {
  const ledger = results("ledger");
  if (!ledger.compiled) return; // measured without the compiled engine: the page leaves the ladder out
  const split = ladderSplit(ledger.compiled.ladder);
  close(split.engineering * split.speculation, split.total);
  const bars = ladderBars(ledger.compiled.ladder);
  assert.equal(bars.length, 4);
  close(bars[0].value, 1);
  const fastest = ledger.compiled.rows.find((r) => r.method === ledger.compiled.fastest.method && r.gamma === ledger.compiled.fastest.gamma);
  close(split.speculation, fastest.speedup, 1e-9);
});

test("targets: met means ≥ or ≤ the aim; a missed one names a measured cost", () => {
  const ledger = results("ledger");
  if (!ledger.compiled) return;
  const eagerPlain = ledger.rows.find((r) => laneOf(r) === "kvcache" && r.method === "plain");
  for (const target of ledger.compiled.targets) {
    const blame = targetBlame(target, ledger.compiled, eagerPlain);
    assert.equal(blame === null, targetMet(target));
    if (blame) for (const lang of ["zh", "en"]) assert.ok(blame[lang].length > 20 && !blame[lang].includes("NaN"), blame[lang]);
  }
  const made = { name: "compiled_verify4_over_main1", at_least: false, target: 1.15 };
  assert.equal(targetMet({ ...made, value: 1.1 }), true);
  assert.equal(targetMet({ ...made, value: 1.2 }), false);
  assert.match(targetBlame({ ...made, value: 1.2 }, ledger.compiled, eagerPlain).en, /1\.20×/);
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

test("the page's verify target comes from the curve in section ①, and says what the ledger's run measured", () => {
  const ledger = results("ledger");
  const costs = results("costs");
  if (!ledger.compiled || !costs.engines.compiled) return;
  const shown = pageTargets(ledger.compiled.targets, costs);
  const verify = shown.find((x) => x.name === "compiled_verify4_over_main1");
  assert.equal(verify.value, costs.engines.compiled.over_main["4"]);
  assert.equal(verify.ledgerValue, ledger.compiled.targets.find((x) => x.name === verify.name).value);
  assert.match(targetNote(verify).en, new RegExp(verify.ledgerValue.toFixed(2)));
  for (const other of shown.filter((x) => x.name !== verify.name)) assert.equal(targetNote(other), null);
  assert.deepEqual(pageTargets(ledger.compiled.targets, undefined), ledger.compiled.targets);
});
