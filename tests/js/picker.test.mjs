// Section ⑦'s method picker: the ranking logic on hand-made measurements (so the tests pin the
// rules, not today's numbers), the preset situations on the committed JSON, and the URL state.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { decodeSituation, encodeSituation, INPUTS, PRESETS, PUBLISHED, recommend } from "../../static/js/picker.js";

const read = (name) => JSON.parse(readFileSync(new URL(`../../experiments/results/${name}.json`, import.meta.url)));
const families = read("families");
const conditions = read("conditions");

// measured rows for one engine: the given speedup per family at T = 1, and 1.1× for all at T = 0
function fakeFamilies(speedups) {
  const rows = [];
  for (const [family, speedup] of Object.entries(speedups)) {
    for (const temperature of [1, 0]) {
      rows.push({ family, engine: "compiled", temperature, shape: "chain", size: 4, speedup: temperature ? speedup : 1.1, tokens_per_main: 2, drafter_per_round: 0.1 });
    }
  }
  return { engines: ["eager", "compiled"], rows };
}

const ALL = { draft: 1.3, mtp: 0.9, ngram: 1.8, lookup: 0.8, medusa: 1.2, eagle: 1.5, lookahead: 0.6 };
const CPU = PRESETS.chapter;
const methods = (ranked) => ranked.map((r) => (r.dont ? "dont" : r.method));

test("CPU: the measured rows, fastest first, plain decoding placed at 1×", () => {
  assert.deepEqual(methods(recommend(CPU, fakeFamilies(ALL), conditions)),
    ["ngram", "eagle", "draft", "medusa", "plain", "mtp", "lookup", "lookahead"]);
  const top = recommend(CPU, fakeFamilies(ALL), conditions)[0];
  assert.equal(top.source, "measured");
  assert.match(top.label.en, /^1\.80× \(measured here: chain γ = 4, compiled engine, T = 1, the main model's own text\)/);
});

test("CPU: greedy reads the T = 0 rows", () => {
  const ranked = recommend({ ...CPU, temperature: "0" }, fakeFamilies(ALL), conditions);
  assert.ok(ranked.filter((r) => r.method !== "plain").every((r) => r.speedup === 1.1));
});

test("no training drops the learned drafters, no memory drops the draft model and the table", () => {
  const noTraining = methods(recommend({ ...CPU, training: "no" }, fakeFamilies(ALL), conditions));
  for (const f of ["mtp", "medusa", "eagle"]) assert.ok(!noTraining.includes(f), f);
  assert.ok(noTraining.includes("draft") && noTraining.includes("ngram"));
  const noMemory = methods(recommend({ ...CPU, memory: "no" }, fakeFamilies(ALL), conditions));
  for (const f of ["draft", "ngram"]) assert.ok(!noMemory.includes(f), f);
  assert.ok(noMemory.includes("eagle") && noMemory.includes("lookup"));
});

test("CPU: when every remaining method measured slower than plain, the answer is don't", () => {
  const ranked = recommend({ ...CPU, training: "no", memory: "no" }, fakeFamilies(ALL), conditions);
  assert.deepEqual(methods(ranked), ["dont", "lookup", "lookahead"]);
  assert.match(ranked[0].reasons[0].en, /slower than plain/);
});

test("short outputs and a compute-bound batch: don't speculate, whatever the drafters", () => {
  for (const regime of INPUTS.regime) {
    const ranked = recommend({ ...CPU, regime, length: "short" }, fakeFamilies(ALL), conditions);
    assert.equal(methods(ranked)[0], "dont", regime);
    // this chapter's start-up numbers on its CPU only; a GPU answer never quotes them
    assert.match(ranked[0].reasons[0].en, regime === "cpu" ? /measured here: a fresh process/ : /prefill/);
  }
  const batch = recommend({ ...CPU, regime: "batch" }, fakeFamilies(ALL), conditions);
  assert.equal(methods(batch)[0], "dont");
  assert.equal(batch[0].source, "published");
  assert.match(batch[0].reasons[0].en, /2406\.14066/);
});

test("GPU: published figures only, each with its paper; retrieval first for text that repeats", () => {
  const open = recommend({ ...CPU, regime: "gpu" }, fakeFamilies(ALL), conditions);
  assert.equal(open[0].method, "eagle");
  for (const r of open) {
    assert.notEqual(r.source, "measured", r.method);
    if (PUBLISHED[r.method]) assert.ok(r.label.en.includes(PUBLISHED[r.method].source), r.method);
  }
  const quoting = recommend({ ...CPU, regime: "gpu", text: "quote", training: "no", memory: "no" }, fakeFamilies(ALL), conditions);
  assert.deepEqual(methods(quoting), ["lookup", "lookahead"]);
});

test("the preset situations on the committed measurements", () => {
  const top = (name) => recommend(PRESETS[name], families, conditions)[0];
  const engine = families.engines.includes("compiled") ? "compiled" : "eager";
  const fastest = (temperature) => families.rows.filter((r) => r.engine === engine && r.temperature === temperature && r.family !== "plain")
    .sort((a, b) => b.speedup - a.speedup)[0];
  // this chapter's setup: its fastest measured family (or don't, if even that one is slower)
  assert.equal(top("chapter").dont ? "dont" : top("chapter").method, fastest(1).speedup >= 1 ? fastest(1).family : "dont");
  assert.equal(top("cpuGreedyRepeat").dont ? "dont" : top("cpuGreedyRepeat").method, fastest(0).speedup >= 1 ? fastest(0).family : "dont");
  assert.equal(top("gpuChat").method, "eagle");
  assert.equal(top("gpuEditing").method, "lookup");
  for (const name of ["serving", "shortReply"]) assert.ok(top(name).dont, name);
  // no training, no memory, T = 1.3 on this CPU: only drafter-free methods are left
  const bare = recommend(PRESETS.cpuBare, families, conditions);
  assert.ok(bare.every((r) => r.dont || ["lookup", "lookahead"].includes(r.method)));
});

test("the situation round-trips through the URL hash; a bad one is refused", () => {
  for (const situation of Object.values(PRESETS)) assert.deepEqual(decodeSituation(encodeSituation(situation)), situation);
  assert.equal(decodeSituation("cpu-7-open-yes-yes-long"), null);
  assert.equal(decodeSituation("cpu-1-open"), null);
  assert.equal(decodeSituation(undefined), null);
});
