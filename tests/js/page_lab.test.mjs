// The lab widget's pure parts (static/js/lab_text.js): settings read from the URL hash with defaults,
// the message naming characters outside the vocabulary, and the sentences it writes about real
// rounds and races, in both languages with Chinese typesetting.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import {
  effectiveGamma, kindOf, LAB_DEFAULTS, LAB_HASH, nextLine, raceVerdict, readSettings, roundSummary, unknownNote,
} from "../../static/js/lab_text.js";
import "./registry.mjs";
import { encodePrompt, METHODS, newDecoder } from "../../static/js/lab_decode.js";
import { loadLab } from "../../static/js/lab_model.js";

const HAN = "\\u3400-\\u9fff";
const BAD_ZH = [
  new RegExp(`[${HAN}][,:;?()]|[,:;?()][${HAN}]`, "u"),                          // half-width next to Chinese
  new RegExp(`[${HAN}] +[${HAN}]|[，。：；？！（）、] +| +[，。：；？！（）、]`, "u"),  // stray spaces
  new RegExp(`[${HAN}][A-Za-z0-9α-ω]|[A-Za-z0-9α-ω][${HAN}]`, "u"),              // Latin touching Chinese
  /undefined|NaN|null/,
];
const badZh = (s) => BAD_ZH.some((re) => re.test(s));
const getter = (obj) => (key) => obj[key];

test("settings from the hash: valid values kept, anything else falls back to the defaults", () => {
  assert.deepEqual(readSettings(getter({})), LAB_DEFAULTS);
  const good = readSettings(getter({ [LAB_HASH.method]: "ngram", [LAB_HASH.gamma]: "7", [LAB_HASH.temperature]: "0",
    [LAB_HASH.seed]: "42", [LAB_HASH.prompt]: "KING:\n", [LAB_HASH.chars]: "60" }));
  assert.deepEqual(good, { method: "ngram", gamma: 7, temperature: 0, seed: 42, prompt: "KING:\n", chars: 60 });
  const bad = readSettings(getter({ [LAB_HASH.method]: "beam", [LAB_HASH.gamma]: "9", [LAB_HASH.temperature]: "2",
    [LAB_HASH.seed]: "-1", [LAB_HASH.prompt]: "", [LAB_HASH.chars]: "5" }));
  assert.deepEqual(bad, LAB_DEFAULTS);
  assert.equal(readSettings(getter({ [LAB_HASH.temperature]: "0.73" })).temperature, 0.7);  // the slider's steps
  assert.equal(effectiveGamma("mtp", 6), 1);
  assert.equal(effectiveGamma("plain", 6), 0);
  assert.equal(effectiveGamma("draft", 6), 6);
});

test("characters outside the vocabulary are named with their code points", () => {
  const note = unknownNote(["é", "\t"]);
  assert.match(note.en, /“é” U\+00E9, “⇥” U\+0009/);
  assert.match(note.zh, /“é” U\+00E9、“⇥” U\+0009/);
  assert.ok(!badZh(note.zh), note.zh);
});

test("sentences about real rounds and races: both languages, Chinese typesetting", async () => {
  const LAB = JSON.parse(readFileSync(new URL("../../experiments/results/lab.json", import.meta.url), "utf8"));
  const lab = await loadLab(LAB, async (text) => new Uint8Array(gunzipSync(Buffer.from(text, "base64"))));
  const prompt = encodePrompt(lab, "ROMEO:\n").ids;
  const kinds = new Set(), texts = [];
  for (const method of METHODS) {
    for (const temperature of [0, 1]) {
      const decoder = newDecoder(lab, { method, gamma: 3, temperature, seed: 3, prompt, maxChars: 40 });
      for (let round = decoder.step(); round; round = decoder.step()) {
        round.emitted.forEach((_, i) => kinds.add(kindOf(round, i)));
        texts.push(roundSummary(round, lab.vocab), nextLine(round, lab.vocab, temperature));
      }
    }
    if (method !== "plain") {
      for (const speedup of [0.55, 1.3]) {
        texts.push(raceVerdict({ method, speedup, theory: 1.9, verify: 4.7, withVerify: 0.53 }));
      }
    }
  }
  assert.deepEqual([...kinds].sort(), ["accept", "bonus", "main", "residual"]);
  // one race is no paired repeat: its sentence gives the ratio and calls neither side faster
  for (const speedup of [0.55, 1.3]) {
    const { zh, en } = raceVerdict({ method: "draft", speedup, theory: null });
    assert.match(en, new RegExp(`at ${speedup.toFixed(2)}× the speed of plain decoding \\(one race, not paired repeats`));
    assert.ok(!/faster|slower|beat/.test(en) && !/比普通解码[快慢]/.test(zh), en);
  }
  for (const { zh, en } of texts) {
    assert.ok(zh && en, "both languages");
    assert.ok(!badZh(zh), zh);
    assert.ok(!/undefined|NaN|null/.test(en), en);
  }
});
