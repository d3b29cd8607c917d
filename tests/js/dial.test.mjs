// ⑥'s dial and ①'s r_k curves (static/js/dial.js): the series it draws from regime.json, the
// labels pushed apart at the lines' ends, the state an address asks for.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import "./registry.mjs";
import { DIAL_FRAME, dialFromHash, dialGridRows, dialLines, dialSeries, labelHeights, leadFamilies, megabytes, rkSeries, spreadLabels } from "../../static/js/dial.js";
import { familyClass } from "../../static/js/labels.js";

const lastSpeedup = (f) => f.points.at(-1).row.speedup;
const regime = JSON.parse(readFileSync(new URL("../../experiments/results/regime.json", import.meta.url)));

test("dial series: one line per family with a point at every scale it was measured, fastest at the heaviest first", () => {
  for (const key of ["T1", "T0"]) {
    const series = dialSeries(regime, key);
    const families = new Set(regime.points.flatMap((p) => p.best[key].map((r) => r.family)));
    assert.deepEqual(new Set(series.map((f) => f.family)), families);
    for (const f of series) {
      assert.deepEqual(f.points.map((p) => p.bytes), regime.points.filter((p) => p.best[key].some((r) => r.family === f.family)).map((p) => p.main_bytes));
      assert.ok(f.points.every((p) => p.row.family === f.family));
    }
    const last = series.map((f) => f.points.at(-1).row.speedup);
    assert.deepEqual(last, [...last].sort((a, b) => b - a));
  }
});

test("r_k series: every scale's measured r_k from k = 1, where it is 1, beside the roofline's", () => {
  const series = rkSeries({ points: regime.points.map((p) => ({ ...p, fig_r: `regime|x${p.scale}` })) });
  assert.equal(series.length, regime.points.length);
  for (const [i, c] of series.entries()) {
    assert.deepEqual(c.points.map((p) => p.k), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(c.points[0].r, 1);
    assert.equal(c.points[4].r, regime.points[i].r["5"]);
    assert.equal(c.predicted[4].r, regime.points[i].roofline.r["5"]);
  }
});

test("labels at the lines' ends: at least a gap apart, inside the chart, in the lines' order", () => {
  for (const ys of [[50, 51, 52, 53, 200], [10, 10, 10], [295, 299, 300], [120, 40, 80]]) {
    const out = spreadLabels(ys, 12, 14, 300);
    const order = ys.map((_, i) => i).sort((a, b) => ys[a] - ys[b] || a - b);
    for (let j = 1; j < order.length; j++) assert.ok(out[order[j]] - out[order[j - 1]] >= 12 - 1e-9);
    assert.ok(out.every((y) => y >= 14 - 1e-9 && y <= 300 + 1e-9));
  }
  assert.deepEqual(spreadLabels([40, 120, 80], 12, 0, 300), [40, 120, 80]);  // already apart: unmoved
});

test("the dial's address: a temperature and a scale it measured, or the current state", () => {
  const current = { key: "T1", scale: regime.points.at(-1).scale };
  const get = (table) => (key) => table[key];
  assert.deepEqual(dialFromHash(get({ dialT: "0", dialx: String(regime.points[0].scale) }), regime, current), { key: "T0", scale: regime.points[0].scale });
  assert.deepEqual(dialFromHash(get({ dialT: "7", dialx: "3.5" }), regime, current), current);
  assert.deepEqual(dialFromHash(get({}), regime, current), current);
});

test("megabytes: one decimal below 100 MB, none above", () => {
  assert.equal(megabytes(2954240), "3.0 MB");
  assert.equal(megabytes(413594624), "414 MB");
});

test("the dial's labels: at their lines' end points where there is room, moved only as much as a gap asks, in order", () => {
  const frame = DIAL_FRAME.wide;
  const y = (v) => frame.T + (frame.H - frame.T - frame.B) * (4 - v) / 3.5;  // 0.5× to 4× down the plot
  const line = (family, speedup) => ({ family, points: [{ row: { speedup: 1 } }, { row: { speedup } }] });
  // far apart: each label exactly at its end point's height
  const apart = [line("a", 3), line("b", 2), line("c", 1)];
  assert.deepEqual(labelHeights(apart, y, frame), apart.map((f) => y(f.points[1].row.speedup)));
  // crowded (as the real dial at its heaviest scale): a gap apart, in the lines' order, near their ends
  for (const key of ["T1", "T0"]) {
    const series = dialSeries(regime, key);
    const ys = series.map((f) => y(f.points.at(-1).row.speedup));
    const out = labelHeights(series, y, frame);
    for (let j = 1; j < out.length; j++) assert.ok(out[j] - out[j - 1] >= 13 - 1e-9, `${key}: labels ${j - 1} and ${j} overlap`);
    // no label further from its end point than the crowd it sits in needs: n labels span (n - 1) gaps
    assert.ok(out.every((v, i) => Math.abs(v - ys[i]) <= 13 * (out.length - 1)));
    assert.ok(out.every((v) => v >= frame.T && v <= frame.H - frame.B));
  }
});

test("one bold line per kind of drafter: the kind's fastest family at the heaviest scale", () => {
  for (const key of ["T1", "T0"]) {
    const series = dialSeries(regime, key);
    const leads = leadFamilies(series);
    const kinds = new Set(series.map((f) => familyClass(f.family)));
    assert.equal(leads.size, kinds.size);
    for (const f of series) {
      const lead = series.find((g) => familyClass(g.family) === familyClass(f.family) && leads.has(g.family));
      assert.ok(lastSpeedup(lead) >= lastSpeedup(f));
    }
  }
  // made up: two kinds, the slower family of a kind listed first is not its lead
  const fake = [{ family: "ngram", points: [{ row: { speedup: 2 } }] }, { family: "lookup", points: [{ row: { speedup: 1 } }] },
    { family: "draft", points: [{ row: { speedup: 1.5 } }] }];
  assert.deepEqual([...leadFamilies(fake)], ["ngram", "draft"]);
  // another temperature's lead keeps its kind's line where it ran; a kind without one falls back to its fastest
  assert.deepEqual([...leadFamilies(fake, new Set(["lookup", "eagle"]))].sort(), ["draft", "lookup"]);
  // the chart draws the leads alone while the grid is folded, every family once it is open, in the same order
  assert.deepEqual(dialLines(fake, false).map((f) => f.family), ["ngram", "draft"]);
  assert.deepEqual(dialLines(fake, true), fake);
});

test("the dial's grid: a cell per scale in the chart's order, its verdict by the paired rule, null where a family did not run", () => {
  const series = dialSeries(regime, "T1");
  const rows = dialGridRows(series, regime);
  assert.deepEqual(rows.map((r) => r.family), series.map((f) => f.family));
  for (const r of rows) {
    assert.equal(r.cells.length, regime.points.length);
    r.cells.forEach((c, i) => {
      const row = regime.points[i].best.T1.find((x) => x.family === r.family);
      if (!row) return assert.equal(c, null);
      assert.equal(c.row, row);
      const { min, max } = row.speedup_runs;
      assert.equal(c.verdict, min > 1 ? "faster" : max < 1 ? "slower" : "unclear");
      assert.equal(c.verdict, row.verdict);  // the page's rule agrees with the one the results carry
    });
  }
  // a family missing at one scale leaves that cell empty
  const cut = { points: regime.points.map((p, i) => ({ ...p, best: { T1: i === 0 ? p.best.T1.filter((x) => x.family !== series[0].family) : p.best.T1 } })) };
  assert.equal(dialGridRows(dialSeries(cut, "T1"), cut).find((r) => r.family === series[0].family).cells[0], null);
});
