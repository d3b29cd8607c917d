// Section ⑤'s token-tree widget (layout, the mask row, branches, what the main model drew) and
// the families' ledger lanes of section ⑥ (the address followed too), on small hand-made trees and
// on the committed JSON.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import "./registry.mjs";
import { configLabel, initFamilyLedger, laneFromHash, laneRows } from "../../static/js/family_ledger.js";
import { ENGINE_LABEL, FAMILY_LABEL } from "../../static/js/labels.js";
import { branchOf, drawnAt, layout, maskRow } from "../../static/js/token_tree.js";
import { editHash, FakeElement, installDom, textOf } from "./fake_dom.mjs";

const families = JSON.parse(readFileSync(new URL("../../experiments/results/families.json", import.meta.url)));

// root a; a -> b -> c; a -> d; b -> e
const PARENTS = [-1, 0, 1, 0, 1];
const TOKENS = ["a", "b", "c", "d", "e"];

test("layout: leaves take their own rows, a parent sits at its first child's row", () => {
  const { row, rows } = layout(PARENTS);
  assert.equal(rows, 3); // leaves c, e, d
  assert.deepEqual(row, [0, 0, 0, 2, 1]);
});

test("mask row: a node sees itself and its ancestors, nothing else", () => {
  assert.deepEqual(maskRow(PARENTS, 2), [true, true, true, false, false]);
  assert.deepEqual(maskRow(PARENTS, 3), [true, false, false, true, false]);
  assert.deepEqual(maskRow(PARENTS, 0), [true, false, false, false, false]);
});

test("branch: the characters below the root down to the node", () => {
  assert.equal(branchOf(TOKENS, PARENTS, 4), "be");
  assert.equal(branchOf(TOKENS, PARENTS, 0), "");
});

test("drawn: the accepted child along the path, then the emitted character where the walk stopped", () => {
  const round = { path: [1, 2], emitted: "bcx" };
  assert.equal(drawnAt(round, 0), "b");
  assert.equal(drawnAt(round, 1), "c");
  assert.equal(drawnAt(round, 2), "x");
  assert.equal(drawnAt(round, 3), null);
});

test("recorded rounds: a real tree, p rows that are distributions, a path that follows parent links", () => {
  for (const round of families.tree_rounds) {
    const n = Array.from(round.tokens).length;
    assert.ok(n <= round.nodes && round.parents.length === n && round.depths.length === n);
    round.parents.forEach((p, i) => { if (i) { assert.ok(p >= 0 && p < i); assert.equal(round.depths[i], round.depths[p] + 1); } });
    let at = 0;
    for (const node of round.path) { assert.equal(round.parents[node], at); at = node; }
    assert.equal(Array.from(round.emitted).length, round.path.length + 1);
    for (const top of round.p_top) {
      const sum = top.p.reduce((a, b) => a + b, 0);
      assert.ok(sum <= 1 + 1e-4 && top.p.every((v, k) => k === 0 || v <= top.p[k - 1]));
    }
    // the emitted character at each step along the path is the next node's char
    round.path.forEach((node, k) => assert.equal(Array.from(round.emitted)[k], Array.from(round.tokens)[node]));
  }
});

test("families' lanes: plain first, then fastest first; one row per family", () => {
  for (const engine of families.engines) {
    for (const temperature of families.temperatures) {
      const rows = laneRows(families.rows, engine, temperature);
      assert.equal(rows[0].family, "plain");
      for (let i = 2; i < rows.length; i++) assert.ok(rows[i - 1].speedup >= rows[i].speedup);
      assert.equal(new Set(rows.map((r) => r.family)).size, rows.length);
    }
  }
  assert.deepEqual(configLabel({ family: "ngram", shape: "tree", size: 8 }), { zh: "树 8 节点", en: "tree, 8 nodes" });
});

test("a row's round and plain decoding's cost per character give its speedup, as the caption says", () => {
  for (const r of families.rows.filter((row) => row.family !== "plain")) {
    const fromParts = r.tokens_per_main * r.plain_per_char / r.round_total;
    assert.ok(Math.abs(fromParts / r.speedup - 1) < 0.1, `${r.family}: ${fromParts} against ${r.speedup}`);
  }
});

test("one name per family: every family families.json measured has its label in both languages", () => {
  for (const family of new Set(families.rows.map((r) => r.family))) {
    assert.ok(FAMILY_LABEL[family]?.zh && FAMILY_LABEL[family]?.en, family);
  }
});

test("the lane from the hash: a measured engine and T = 0 or 1, else the lane given", () => {
  const current = { engine: families.summary.primary_engine, temperature: 1 };
  const get = (obj) => (key) => obj[key];
  const engine = families.engines[0];
  assert.deepEqual(laneFromHash(get({ feng: engine, ftemp: "0" }), families, current), { engine, temperature: 0 });
  assert.deepEqual(laneFromHash(get({}), families, current), current);
  assert.deepEqual(laneFromHash(get({ feng: "tpu", ftemp: "constructor" }), families, current), current);
  assert.deepEqual(laneFromHash(get({ ftemp: "1" }), families, { engine, temperature: 0 }), { engine, temperature: 1 });
});

test("the families' ledger follows the address: an edited #feng / #ftemp redraws its lane", () => {
  const buttons = [...families.engines.map((feng) => new FakeElement("button", { dataset: { feng } })),
    ...["1", "0"].map((ftemp) => new FakeElement("button", { dataset: { ftemp } }))];
  const table = new FakeElement("table");
  const remove = installDom({ byId: { "family-ledger": table },
    bySelector: { "#family-ledger-widget [data-feng], #family-ledger-widget [data-ftemp]": buttons } }, "#lang=zh");
  const pressed = () => buttons.filter((b) => b.getAttribute("aria-pressed") === "true").map((b) => b.dataset.feng ?? b.dataset.ftemp);
  const caption = () => textOf(table.childNodes[0]);
  try {
    initFamilyLedger(families);
    assert.deepEqual(pressed(), [families.summary.primary_engine, "1"]);
    const engine = families.engines.at(-1);
    editHash(`#feng=${engine}&ftemp=0`);
    assert.deepEqual(pressed(), [engine, "0"]);
    assert.ok(caption().startsWith(`${ENGINE_LABEL[engine].zh} · T = 0`), caption());
    editHash("#s-families");  // a link to a section leaves the lane as it is
    assert.deepEqual(pressed(), [engine, "0"]);
    buttons.at(-2).dispatchEvent(new Event("click"));  // T = 1, written to the address
    assert.match(location.hash, /ftemp=1/);
    assert.deepEqual(pressed(), [engine, "1"]);
  } finally {
    remove();
  }
});
