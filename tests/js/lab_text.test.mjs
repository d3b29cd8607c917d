// The lab's pure parts beyond its sentences about rounds (page_lab.test.mjs): the controls' labels,
// the counters, a round's drafts table and kv-cache notes, the race's lanes, result and readouts,
// the comparison rows (the chapter data's lab_compare), which buttons a state allows, and the widget
// following the address before its models load. Hand-made rounds and counters pin the rules; one
// real race on the committed models checks the result.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import "./registry.mjs";
import { canStep, disabledButtons, initLab, newLabState } from "../../static/js/lab.js";
import { encodePrompt, newDecoder } from "../../static/js/lab_decode.js";
import { loadLab } from "../../static/js/lab_model.js";
import { compareRuns, firstMismatch, raceResult } from "../../static/js/lab_race.js";
import {
  cacheNote, charTitle, compareDone, compareProgress, counterReadouts, DRAFTS_HEAD, draftCells, draftsCaption, gammaOut,
  identicalText, LAB_DEFAULTS, LAB_METHODS, laneName, laneStats, methodLabel, roundSummary, noCacheNote, prob, promptProblem, raceButton,
  raceReadouts, roundTitle, sameSettings, temperatureOut,
} from "../../static/js/lab_text.js";
import { FAMILY_LABEL } from "../../static/js/labels.js";
import { editHash, fakeSelect, installDom } from "./fake_dom.mjs";

const CLEAN = /undefined|NaN|null|\[object/;
const both = (pair) => [pair.zh, pair.en];
const ROUND = {  // three drafts: the first accepted, the second rejected, the third never checked
  index: 2, drafts: [0, 1, 2], q: [0.5, 0.4, 0.2], p: [0.6, 0.1, 0.0004], u: [0.3, 0.9, 0.5],
  verdicts: ["accept", "reject", "unchecked"], nAccepted: 1, next: 3, nextFrom: "residual", nextProb: 0.25, emitted: [0, 3],
};
const VOCAB = ["a", "b", "\n", "d"];

test("the method options and the lanes name each family as every widget does", () => {
  for (const method of LAB_METHODS) {
    for (const lang of ["zh", "en"]) assert.ok(methodLabel(method)[lang].startsWith(FAMILY_LABEL[method][lang]), method);
  }
  assert.deepEqual(methodLabel("mtp"), { zh: "MTP 头（γ = 1）", en: "MTP head (γ = 1)" });
  assert.deepEqual(laneName("plain", 5), FAMILY_LABEL.plain);
  assert.deepEqual(laneName("mtp", 5), { zh: "MTP 头 · γ = 1", en: "MTP head · γ = 1" });
  assert.deepEqual(laneName("draft", 5).en, "draft model · γ = 5");
});

test("the controls: γ's readout, the temperature's, the race button", () => {
  assert.equal(gammaOut({ method: "plain", gamma: 4 }), "—");
  assert.equal(gammaOut({ method: "mtp", gamma: 4 }), "1");
  assert.equal(gammaOut({ method: "ngram", gamma: 6 }), "6");
  assert.deepEqual(temperatureOut(0), { zh: "0（贪心）", en: "0 (greedy)" });
  assert.deepEqual(temperatureOut(1), { zh: "1.0", en: "1.0" });
  assert.equal(raceButton("ngram").zh, "开始赛跑：普通解码对 n-gram 表");  // a space before Latin
  assert.equal(raceButton("draft").zh, "开始赛跑：普通解码对草稿模型");
  assert.equal(raceButton("mtp").en, "Start the race: plain decoding against the MTP head");
  assert.match(raceButton("plain").en, /choose a speculative method first/);
});

test("the prompt: characters outside the vocabulary first, then an empty prompt, else nothing", () => {
  assert.match(promptProblem("é", ["é"]).en, /U\+00E9/);
  assert.match(promptProblem("", []).en, /empty/);
  assert.equal(promptProblem("ROMEO", []), null);
  assert.ok(sameSettings(LAB_DEFAULTS, { ...LAB_DEFAULTS }));
  assert.ok(!sameSettings(LAB_DEFAULTS, { ...LAB_DEFAULTS, seed: 1 }));
});

test("the counters: dashes before the models load, α from accepted ÷ checked, look-ups for the table", () => {
  const before = counterReadouts(null, LAB_DEFAULTS);
  assert.deepEqual(before.map(([value]) => value), ["—", "—", "—", "—", "—"]);
  const c = { emitted: 30, mainForwards: 12, drafterForwards: 40, accepted: 18, checked: 24, mainMs: 51.4, drafterMs: 7.6 };
  const shown = counterReadouts(c, { ...LAB_DEFAULTS, method: "ngram" });
  assert.deepEqual(shown.map(([value]) => value), ["30 / 200", "12", "40", "2.50", "0.750"]);
  assert.equal(shown[2][1].en, "table look-ups");
  assert.equal(shown[4][1].en, "measured α = 18 accepted ÷ 24 checked");
  const plain = counterReadouts({ ...c, accepted: 0, checked: 0 }, { ...LAB_DEFAULTS, method: "plain" });
  assert.equal(plain[4][0], "—");
  assert.match(plain[4][1].en, /plain decoding has no drafts/);
  for (const [, key] of [...before, ...shown]) for (const s of both(key)) assert.ok(!CLEAN.test(s), s);
});

test("a round's drafts: u and min(1, p/q) only where a draft was checked, tiny p in scientific notation", () => {
  assert.equal(DRAFTS_HEAD.length, 7);
  assert.deepEqual(draftCells(ROUND, 0, VOCAB), { verdict: "accept", cells: ["1", "“a”", "0.500", "0.600", "0.300", "1.000"] });
  assert.deepEqual(draftCells(ROUND, 1, VOCAB), { verdict: "reject", cells: ["2", "“b”", "0.400", "0.100", "0.900", "0.250"] });
  const unchecked = draftCells(ROUND, 2, VOCAB);
  assert.equal(unchecked.verdict, "unchecked");
  assert.deepEqual(unchecked.cells.slice(4), ["—", "—"]);
  assert.notEqual(unchecked.cells[3], "0.000");  // 0.0004 keeps its digits
  assert.equal(draftsCaption(1).en, "1 draft: accepted while u < min(1, p/q), stopping at the first rejection");
  assert.equal(draftsCaption(3).en.slice(0, 9), "3 drafts:");
  assert.equal(draftsCaption(0).en, "No drafts this round");
  assert.deepEqual(roundTitle(ROUND, 5), { zh: "第 2 轮，共 5 轮", en: "Round 2 of 5" });
  assert.equal(roundTitle(null, 0).en, "No round yet");
  assert.deepEqual(charTitle(ROUND, "residual"), { zh: "第 2 轮 · 拒绝后从残差重抽", en: "round 2 · redrawn from the residual" });
});

test("the kv-cache notes: rows held, written and rolled back; why the table and plain keep none", () => {
  const note = cacheNote({ before: 7, fed: 4, kept: 9, rolledBack: 2 });
  assert.equal(note.en, "held 7 rows, wrote 4 this round and rolled back 2 of them: 9 rows now");
  assert.equal(note.zh, "原有 7 行，这一轮写入 4 行、回滚其中 2 行，现在共 9 行");
  assert.match(noCacheNote("ngram", 5).en, /looks up the last 4 characters/);
  assert.match(noCacheNote("plain", 5).en, /never rolls back/);
});

test("the race: lane figures, the identical-text verdict at T = 0 and above, the readouts", () => {
  const stats = laneStats({ emitted: 120, mainForwards: 48 }, 600);
  assert.equal(stats.en, "120\u00a0chars · 48 main forwards · 600\u00a0ms · 200\u00a0chars/s");
  assert.match(laneStats({ emitted: 0, mainForwards: 0 }, 0).en, /0\u00a0chars\/s$/);
  assert.match(laneStats({ emitted: 2, mainForwards: 1 }, 5).en, / 1 main forward · /);  // one forward, singular
  assert.match(identicalText({ temperature: 0, identical: true, n: 60 }).en, /identical, all 60 characters/);
  assert.match(identicalText({ temperature: 0, identical: false, mismatch: 9 }).en, /differ at character 10/);
  assert.match(identicalText({ temperature: 0.7, identical: false }).en, /^T = 0\.7: the texts differ/);
  assert.match(identicalText({ temperature: 1, identical: true }).en, /happen to be the same/);
  const r = { speedup: 0.8, plainMs: 400, specMs: 500, alpha: 0.6, tokens: 2.1, c: 0.12, verify: 4.2, gamma: 4,
    resolution: 0.1, theory: 1.7, withVerify: 0.5 };
  const boxes = raceReadouts(r, 1.37);
  assert.deepEqual(boxes.map((b) => b.value), ["0.80×", "0.600", "0.120", "4.20", "1.70×", "0.50×"]);
  assert.equal(boxes[0].cls, "warn");
  assert.match(boxes[3].key.en, /verifying 5 positions .* PyTorch on this chapter's CPU: 1\.37\)$/);
  assert.deepEqual(raceReadouts({ ...r, alpha: null, theory: null, withVerify: null, speedup: 1.2 }, 1.37)
    .map((b) => b.value), ["1.20×", "—", "0.120", "4.20", "—", "—"]);
  for (const b of boxes) for (const s of both(b.key)) assert.ok(!CLEAN.test(s), s);
});

test("a real race: the result's speedup, α and Theorem 3.8; identical greedy texts", async () => {
  const LAB = JSON.parse(readFileSync(new URL("../../experiments/results/lab.json", import.meta.url), "utf8"));
  const lab = await loadLab(LAB, async (text) => new Uint8Array(gunzipSync(Buffer.from(text, "base64"))));
  const prompt = encodePrompt(lab, "ROMEO:\n").ids;
  const settings = { ...LAB_DEFAULTS, temperature: 0 };
  const lane = (method) => {
    const dec = newDecoder(lab, { method, gamma: 4, temperature: 0, seed: 0, prompt, maxChars: 40 });
    while (dec.step());
    return { dec, ms: method === "plain" ? 30 : 20 };
  };
  const r = raceResult({ settings, n: 40, plainLane: lane("plain"), specLane: lane("draft"), c: 0.1, verify: 3, resolution: 0.1 });
  assert.equal(r.identical, true);
  assert.equal(r.mismatch, -1);
  assert.equal(r.speedup, 1.5);
  assert.equal(r.gamma, 4);
  assert.ok(r.alpha > 0 && r.alpha <= 1 && r.tokens > 1);
  assert.ok(r.theory > r.withVerify, "a verify priced at 3 forwards predicts less than one priced at 1");
  assert.equal(firstMismatch([1, 2, 3], [1, 2, 4]), 2);
  assert.equal(firstMismatch([1, 2], [1, 2, 3]), 2);
  assert.equal(firstMismatch([], []), -1);
});

test("the comparison: every row but plain runs, each keeping its row of the table", () => {
  const rows = [{ method: "plain", gamma: 0 }, { method: "draft", gamma: 4 }, { method: "mtp", gamma: 1 }];
  assert.deepEqual(compareRuns(rows), [{ method: "draft", gamma: 4, index: 1 }, { method: "mtp", gamma: 1, index: 2 }]);
  assert.deepEqual(compareProgress(0, 3), { zh: "正在跑第 1 行，共 3 行……", en: "Running row 1 of 3…" });
  assert.equal(compareDone(600, 7).en, "Done: 600 characters per row, seed 7.");
});

test("the buttons a state allows: nothing before the models, stepping while the decoder runs, not while busy", () => {
  const st = newLabState({ ...LAB_DEFAULTS }, {});
  assert.equal(canStep(st), false);
  assert.deepEqual(disabledButtons(st), { step: true, play: true, pause: true, reset: false, raceGo: true, compareGo: true,
    prev: true, next: true });
  Object.assign(st, { lab: {}, decoder: { done: false }, rounds: [{}, {}, {}], shown: 1 });
  assert.equal(canStep(st), true);
  assert.deepEqual(disabledButtons(st), { step: false, play: false, pause: true, reset: false, raceGo: false,
    compareGo: false, prev: false, next: false });
  st.playTimer = 1;
  assert.deepEqual([disabledButtons(st).play, disabledButtons(st).pause], [true, false]);
  Object.assign(st, { playTimer: null, busy: true });
  const busy = disabledButtons(st);
  assert.ok(busy.step && busy.play && busy.reset && busy.raceGo && busy.compareGo);
  Object.assign(st, { busy: false, settings: { ...LAB_DEFAULTS, method: "plain" }, shown: 2 });
  assert.deepEqual([disabledButtons(st).raceGo, disabledButtons(st).next, disabledButtons(st).prev], [true, true, false]);
  st.decoder.done = true;
  assert.equal(canStep(st), false);
});

test("the lab follows the address before its models load: an edited hash sets its controls", () => {
  const method = fakeSelect(LAB_METHODS);
  const remove = installDom({ byId: { "lab-method": method }, anyId: true }, "#lang=en&lab-m=ngram&lab-g=6&lab-t=0");
  const el = (id) => document.getElementById(id);
  try {
    initLab({ lab_meta: { ngram: { order: 5 } }, ledger: {}, lab_compare: [],
      regime: { engine: "native", points: [{ scale: 1, main_bytes: 2954240, drafter_bytes: { mtp: 862208, draft: 218112 } }] } });
    assert.equal(el("lab-widget").dataset.state, undefined);  // nothing loaded until it is seen
    assert.deepEqual([method.value, el("lab-gamma").value, el("lab-gamma-out").textContent], ["ngram", "6", "6"]);
    assert.equal(el("lab-temp-out").textContent, "0（贪心）");
    assert.equal(el("lab-race-go").textContent, "开始赛跑：普通解码对 n-gram 表");
    assert.equal(method.options[0].textContent, methodLabel("plain").zh);
    editHash("#lang=en&lab-m=mtp&lab-t=0.3&lab-p=KING");
    assert.deepEqual([method.value, el("lab-gamma").disabled, el("lab-gamma-out").textContent], ["mtp", true, "1"]);
    assert.deepEqual([el("lab-temp").value, el("lab-prompt-text").value, el("lab-seed").value], ["0.3", "KING", "0"]);
    el("lab-gamma").value = "3";  // the reader moves γ: the address says so, with no hashchange of its own
    el("lab-gamma").dispatchEvent(new Event("input"));
    assert.match(location.hash, /lab-g=3/);
  } finally {
    remove();
  }
});

test("a round's summary says one draft in the singular", () => {
  const vocab = ["a", "b", "c"];
  const round = (drafts, nAccepted, nextFrom) => ({ index: 1, drafts, nAccepted, nextFrom, next: 2, emitted: [0, 2] });
  assert.match(roundSummary(round([0], 1, "bonus"), vocab).en, /: the draft passed, plus the bonus/);
  assert.match(roundSummary(round([0], 0, "residual"), vocab).en, /: the draft rejected, /);
  assert.match(roundSummary(round([0, 1], 2, "bonus"), vocab).en, /: all 2 drafts passed/);
  assert.match(roundSummary(round([0, 1], 1, "residual"), vocab).en, /: 1 of 2 drafts accepted, draft 2 rejected/);
});

test("a round's probabilities print to three significant figures, so their quotient can be checked", () => {
  assert.equal(prob(0.5), "0.500");
  assert.equal(prob(0.0123456), "0.0123");
  assert.equal(prob(7.034e-5), "7.03×10⁻⁵");
  assert.equal(prob(0), "0.000");
  // the first round a reader saw: p 7.03e-5, q 1.155e-4 printed 7.0×10⁻⁵ and 1.2×10⁻⁴, whose quotient is 0.58, not 0.609
  const p = 7.034e-5, q = 1.155e-4;
  const printed = Number(prob(p).replace("×10⁻⁵", "e-5")) / Number(prob(q).replace("×10⁻⁴", "e-4"));
  assert.ok(Math.abs(printed - p / q) < 0.005, printed);
});
