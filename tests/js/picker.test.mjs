// Section ⑦'s method picker: the ranking logic on hand-made measurements (so the tests pin the
// rules, not today's numbers), the preset situations on the committed JSON, the published figures
// (static/data/published.json) with their citations, and the URL state, the hash followed too.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import "./registry.mjs";
import {
  citation, decodeSituation, encodeSituation, initPicker, INPUTS, PRESETS, recommend, scopeNote, situationFromHash,
} from "../../static/js/picker.js";
import { verdictBadgeText } from "../../static/js/format.js";
import { editHash, fakeSelect, FakeElement, installDom } from "./fake_dom.mjs";

const read = (name) => JSON.parse(readFileSync(new URL(`../../experiments/results/${name}.json`, import.meta.url)));
const families = read("families");
const conditions = read("conditions");
const regime = read("regime");
const published = JSON.parse(readFileSync(new URL("../../static/data/published.json", import.meta.url)));
const ranking = (situation, fams, dial = regime) => recommend(situation, fams, conditions, published, dial);

// measured rows for one engine: the given speedup per family at T = 1, and 1.1× for all at T = 0
function fakeFamilies(speedups) {
  const rows = [];
  for (const [family, speedup] of Object.entries(speedups)) {
    for (const temperature of [1, 0]) {
      const median = temperature ? speedup : 1.1;  // paired repeats ±5% around it: on one side of 1× unless it is within 5%
      rows.push({ family, engine: "compiled", temperature, shape: "chain", size: 4, speedup: median, tokens_per_main: 2, drafter_per_round: 0.1,
        speedup_runs: { min: 0.95 * median, max: 1.05 * median, median, n: 5 } });
    }
  }
  return { engines: ["eager", "compiled"], summary: { primary_engine: "compiled" }, rows };
}

// the dial with its heaviest scale's rows: the given speedups doubled at T = 1
function fakeDial(speedups) {
  const best = (temperature) => fakeFamilies(speedups).rows.filter((r) => r.temperature === temperature)
    .map((r) => ({ ...r, engine: "native", speedup: 2 * r.speedup, speedup_runs: { ...r.speedup_runs, min: 1.9 * r.speedup, max: 2.1 * r.speedup } }));
  return { engine: "native", points: [{ main_bytes: 3e6, best: {} }, { main_bytes: 414e6, best: { T1: best(1), T0: best(0) } }] };
}

const ALL = { draft: 1.3, mtp: 0.9, ngram: 1.8, lookup: 0.8, medusa: 1.2, eagle: 1.5, lookahead: 0.6 };
const CPU = PRESETS.chapter;
const methods = (ranked) => ranked.map((r) => (r.dont ? "dont" : r.method));

test("CPU: the measured rows, fastest first, plain decoding placed at 1×", () => {
  assert.deepEqual(methods(ranking(CPU, fakeFamilies(ALL))),
    ["ngram", "eagle", "draft", "medusa", "plain", "mtp", "lookup", "lookahead"]);
  const top = ranking(CPU, fakeFamilies(ALL))[0];
  assert.equal(top.source, "measured");
  assert.equal(top.label.en, "1.80× (chain γ = 4)");
  // where the figures come from is said once, above the list
  assert.match(scopeNote(CPU, fakeFamilies(ALL)).en, /^Measured here, over plain decoding on the same engine: the model as trained, compiled engine, T = 1, the main model's own text/);
  assert.match(scopeNote({ ...CPU, temperature: "0" }, fakeFamilies(ALL)).en, /compiled engine, T = 0,/);
  // a hotter situation than any timed one is ranked by T = 1's rows, and the note says so
  assert.match(scopeNote({ ...CPU, temperature: "1.3" }, fakeFamilies(ALL)).en, /T = 1 \(speedups were measured at T = 0 and 1 only, so these are T = 1's; α is at T = 1.3\)/);
  assert.doesNotMatch(scopeNote(CPU, fakeFamilies(ALL)).en, /measured at T = 0 and 1 only/);
  // another kind of text: the speedups are still the main model's own text's, and the note says so
  assert.match(scopeNote({ ...CPU, text: "repeat" }, fakeFamilies(ALL)).en, /the main model's own text \(speedups were timed on this text only; α is on the text chosen\);/);
  assert.doesNotMatch(scopeNote(CPU, fakeFamilies(ALL)).en, /timed on this text only/);
  assert.match(scopeNote(PRESETS.gpuChat, fakeFamilies(ALL)).en, /the papers', not measured here/);
});

test("CPU, a model past the cache: the dial's heaviest rows, with its engine and size said above them", () => {
  const twin = { ...CPU, regime: "twin" };
  const ranked = ranking(twin, fakeFamilies(ALL), fakeDial(ALL));
  assert.deepEqual(methods(ranked), ["ngram", "eagle", "draft", "medusa", "mtp", "lookup", "lookahead", "plain"]);
  assert.equal(ranked[0].label.en, "3.60× (chain γ = 4)");
  assert.match(scopeNote(twin, fakeFamilies(ALL), fakeDial(ALL)).en, /⑥'s heaviest twin \(a 414 MB main model\), native C\+\+ engine, T = 1/);
  assert.match(scopeNote(CPU, fakeFamilies(ALL), fakeDial(ALL)).en, /the model as trained, compiled engine, T = 1/);
  // on the committed dial: its heaviest rows, every one of them
  const heavy = ranking(twin, families).filter((r) => !r.dont && r.method !== "plain");
  const speedups = (list) => list.map((r) => r.speedup).sort((a, b) => b - a);
  assert.deepEqual(speedups(heavy), speedups(regime.points.at(-1).best.T1));
});

test("CPU: greedy reads the T = 0 rows", () => {
  const ranked = ranking({ ...CPU, temperature: "0" }, fakeFamilies(ALL));
  assert.ok(ranked.filter((r) => r.method !== "plain").every((r) => r.speedup === 1.1));
});

test("no training drops the learned drafters, no memory drops the draft model and the table", () => {
  const noTraining = methods(ranking({ ...CPU, training: "no" }, fakeFamilies(ALL)));
  for (const f of ["mtp", "medusa", "eagle"]) assert.ok(!noTraining.includes(f), f);
  assert.ok(noTraining.includes("draft") && noTraining.includes("ngram"));
  const noMemory = methods(ranking({ ...CPU, memory: "no" }, fakeFamilies(ALL)));
  for (const f of ["draft", "ngram"]) assert.ok(!noMemory.includes(f), f);
  assert.ok(noMemory.includes("eagle") && noMemory.includes("lookup"));
});

test("CPU: when every remaining method measured slower than plain, the answer is don't", () => {
  const ranked = ranking({ ...CPU, training: "no", memory: "no" }, fakeFamilies(ALL));
  assert.deepEqual(methods(ranked), ["dont", "lookup", "lookahead"]);
  assert.match(ranked[0].reasons[0].en, /faster than plain decoding in every paired repeat/);
});

test("short outputs and a compute-bound batch: don't speculate, whatever the drafters", () => {
  for (const regime of INPUTS.regime) {
    const ranked = ranking({ ...CPU, regime, length: "short" }, fakeFamilies(ALL), fakeDial(ALL));
    assert.equal(methods(ranked)[0], "dont", regime);
    // this chapter's start-up numbers on its CPU only; a GPU answer never quotes them
    assert.match(ranked[0].reasons[0].en, ["cpu", "twin"].includes(regime) ? /measured here: a fresh process/ : /prefill/);
  }
  const batch = ranking({ ...CPU, regime: "batch" }, fakeFamilies(ALL));
  assert.equal(methods(batch)[0], "dont");
  assert.equal(batch[0].source, "published");
  assert.match(batch[0].reasons[0].en, /2406\.14066/);
});

test("GPU: published figures only, each with its paper; retrieval first for text that repeats", () => {
  const open = ranking({ ...CPU, regime: "gpu" }, fakeFamilies(ALL));
  assert.equal(open[0].method, "eagle3"); // the highest published figure (EAGLE-3, up to 6.5×)
  for (const r of open) {
    assert.notEqual(r.source, "measured", r.method);
    const fig = published.gpu[r.method];
    if (fig) assert.ok(r.label.en.includes(`(published: ${citation(fig)})`), r.method);
  }
  const quoting = ranking({ ...CPU, regime: "gpu", text: "quote", training: "no", memory: "no" }, fakeFamilies(ALL));
  assert.deepEqual(methods(quoting), ["lookup", "lookahead"]);
});

test("the preset situations on the committed measurements", () => {
  const top = (name) => ranking(PRESETS[name], families)[0];
  const engine = families.summary.primary_engine;
  const fastest = (temperature) => families.rows.filter((r) => r.engine === engine && r.temperature === temperature && r.family !== "plain")
    .sort((a, b) => b.speedup - a.speedup)[0];
  // this chapter's setup: its fastest measured family (or don't, if even that one is slower)
  assert.equal(top("chapter").dont ? "dont" : top("chapter").method, fastest(1).speedup >= 1 ? fastest(1).family : "dont");
  const greedy = ranking({ ...PRESETS.chapter, temperature: "0", text: "repeat" }, families)[0];  // greedy, repetitive text
  assert.equal(greedy.dont ? "dont" : greedy.method, fastest(0).speedup >= 1 ? fastest(0).family : "dont");
  assert.equal(top("gpuChat").method, "eagle3");
  assert.ok(top("serving").dont);
  // summaries on a GPU with no training or memory: copy the input; a reply of a few tokens: don't
  const editing = { regime: "gpu", temperature: "0", text: "quote", memory: "no", training: "no", length: "long" };
  assert.equal(ranking(editing, families)[0].method, "lookup");
  assert.ok(ranking({ ...PRESETS.gpuChat, length: "short" }, families)[0].dont);
  // no training, no memory, T = 1.3 on this CPU: only drafter-free methods are left
  const bare = ranking({ ...PRESETS.chapter, temperature: "1.3", memory: "no", training: "no" }, families);
  assert.ok(bare.every((r) => r.dont || ["lookup", "lookahead"].includes(r.method)));
});

test("the situation round-trips through the URL hash; a bad one is refused", () => {
  for (const situation of Object.values(PRESETS)) assert.deepEqual(decodeSituation(encodeSituation(situation)), situation);
  assert.equal(decodeSituation("cpu-7-open-yes-yes-long"), null);
  assert.equal(decodeSituation("cpu-1-open"), null);
  assert.equal(decodeSituation(undefined), null);
});

test("every published figure names its paper and arXiv id; the batch findings cite theirs", () => {
  const ARXIV = /^\d{4}\.\d{5}$/;
  for (const [family, fig] of Object.entries(published.gpu)) {
    if (fig === null) continue;  // no paper figure (prompt lookup)
    assert.match(fig.arxiv, ARXIV, family);
    assert.ok(fig.paper && fig.figure.zh && fig.figure.en && fig.setting.zh && fig.setting.en, family);
    assert.equal(typeof fig.rank, "number", family);
  }
  assert.equal(citation(published.gpu.eagle), "EAGLE-2, arXiv 2406.16858");
  assert.equal(citation(published.gpu.mtp), "DeepSeek-V3, arXiv 2412.19437 §5.4.3");
  for (const finding of Object.values(published.batch)) {
    for (const id of finding.arxiv) {
      assert.match(id, ARXIV);
      for (const lang of ["zh", "en"]) assert.ok(finding.text[lang].includes(`arXiv ${id}`), `${id} ${lang}`);
    }
  }
});

// The widget on a fake page: its selects, one preset button and the result list.
function pickerPage(hash) {
  const selects = Object.fromEntries(Object.keys(INPUTS).map((key) =>
    [key, fakeSelect(key === "temperature" ? conditions.temperatures.map(String) : INPUTS[key])]));
  const preset = new FakeElement("button", { dataset: { preset: "gpuChat" } });
  const box = new FakeElement("div", {
    querySelector: (selector) => selects[selector.match(/data-input="(\w+)"/)[1]],
    querySelectorAll: () => [preset],
  });
  const list = new FakeElement("ol");
  const remove = installDom({ byId: { "picker-widget": box, "picker-result": list } }, hash);
  return { selects, preset, list, remove };
}

test("the picker follows the address: an edited #pick applies, a #link without one changes nothing", () => {
  const page = pickerPage("#lang=en");
  try {
    initPicker(families, conditions, published);
    assert.equal(page.selects.regime.value, "cpu");
    assert.equal(page.preset.getAttribute("aria-pressed"), "false");
    editHash(`#lang=en&pick=${encodeSituation(PRESETS.gpuChat)}`);
    assert.equal(page.selects.regime.value, "gpu");
    assert.equal(page.selects.temperature.value, PRESETS.gpuChat.temperature);
    assert.equal(page.list.dataset.top, "eagle3");
    assert.equal(page.preset.getAttribute("aria-pressed"), "true");
    for (const hash of ["#s-choosing", "#pick=__proto__", "#pick=cpu-7-open-yes-yes-long"]) {
      editHash(hash);  // nothing the picker knows: it keeps what it shows
      assert.equal(page.list.dataset.top, "eagle3", hash);
    }
    editHash(`#pick=${encodeSituation(PRESETS.serving)}`);
    assert.equal(page.list.dataset.dont, "true");
    // its own writes go to the address without an event, and read back as the same situation
    page.selects.memory.value = "no";
    page.selects.memory.dispatchEvent(new Event("change"));
    assert.match(location.hash, /pick=batch-1-open-no-yes-long/);
  } finally {
    page.remove();
  }
});

test("the situation from the hash: a known one, else the one given", () => {
  const get = (pick) => (key) => (key === "pick" ? pick : undefined);
  const current = PRESETS.chapter;
  assert.deepEqual(situationFromHash(get(encodeSituation(PRESETS.serving)), INPUTS, current), PRESETS.serving);
  assert.equal(situationFromHash(get(undefined), INPUTS, current), current);
  assert.equal(situationFromHash(get("constructor"), INPUTS, current), current);
});

test("CPU: a method whose paired repeats straddle 1× is not called faster: it goes below plain decoding, with its range", () => {
  const ranked = ranking(CPU, fakeFamilies({ ngram: 1.8, draft: 1.02 }));
  assert.deepEqual(methods(ranked), ["ngram", "plain", "draft"]);
  const draft = ranked.find((r) => r.method === "draft");
  assert.equal(draft.verdict, "unclear");
  // its verdict badge reads the row's own paired repeats (format.js verdictBadgeText)
  assert.deepEqual(verdictBadgeText(draft.runs), { zh: "分不出 · 0.97–1.07× · 5 对", en: "can't tell · 0.97–1.07× · 5 pairs" });
  // only straddling rows left: the answer is don't
  assert.equal(methods(ranking(CPU, fakeFamilies({ draft: 1.02, mtp: 0.99 })))[0], "dont");
});
