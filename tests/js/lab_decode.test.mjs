// The lab's decoders on the committed models: at T = 0 every method writes plain greedy's text
// past the 64-position window, the counters and kv-cache reports add up round by round, and
// prompts with characters outside the vocabulary are refused by name.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { loadLab } from "../../static/js/lab_model.js";
import { encodePrompt, METHODS, newDecoder, ngramQ } from "../../static/js/lab_decode.js";

const LAB = JSON.parse(readFileSync(new URL("../../experiments/results/lab.json", import.meta.url), "utf8"));
const lab = await loadLab(LAB, async (text) => new Uint8Array(gunzipSync(Buffer.from(text, "base64"))));
const PROMPT = encodePrompt(lab, "ROMEO:\n").ids;

function run(options) {
  const decoder = newDecoder(lab, { prompt: PROMPT, ...options }), rounds = [];
  for (let r = decoder.step(); r; r = decoder.step()) rounds.push(r);
  return { decoder, rounds };
}

test("at T = 0 every method writes plain greedy's text, character for character", () => {
  const plain = run({ method: "plain", temperature: 0, maxChars: 120 }).decoder.tokens;
  assert.equal(plain.length, 120);
  for (const method of METHODS.filter((m) => m !== "plain")) {
    for (const gamma of [1, 5]) {
      const { decoder } = run({ method, gamma, temperature: 0, maxChars: 120 });
      assert.deepEqual(decoder.tokens, plain, `${method} γ=${gamma}`);
    }
  }
});

test("rounds add up: emitted text, counters, verdicts and kv-cache rows", () => {
  for (const method of METHODS) {
    const { decoder, rounds } = run({ method, gamma: 4, temperature: 1, seed: 7, maxChars: 90 });
    const c = decoder.counters;
    assert.deepEqual(rounds.flatMap((r) => r.emitted), decoder.tokens, method);
    assert.equal(c.emitted, 90);
    assert.equal(c.rounds, rounds.length);
    assert.equal(c.mainForwards, rounds.length);  // one main forward per round
    assert.equal(c.accepted, rounds.reduce((n, r) => n + r.nAccepted, 0));
    assert.ok(c.checked <= c.proposed && c.accepted <= c.checked);
    for (const r of rounds) {
      assert.equal(r.verdicts.filter((v) => v === "accept").length, r.nAccepted);
      assert.equal(r.nextFrom, r.drafts.length === 0 ? "main" : r.nAccepted === r.drafts.length ? "bonus" : "residual");
      assert.ok(r.nextProb > 0 && r.nextProb <= 1 + 1e-12);
      const m = r.cache.main;
      assert.equal(m.kept, m.before + m.fed - m.rolledBack);
      assert.equal(m.rolledBack, r.drafts.length - r.nAccepted);  // the rejected drafts' rows
      if (method === "draft") assert.ok(r.cache.drafter.kept <= r.cache.drafter.before + r.cache.drafter.fed);
      else assert.equal(r.cache.drafter === null, method !== "mtp");
    }
    if (method !== "plain") assert.ok(c.accepted > 0 && c.accepted < c.proposed, method);
  }
});

test("the same seed replays the same text; another seed writes another", () => {
  const a = run({ method: "draft", gamma: 3, temperature: 1, seed: 1, maxChars: 40 }).decoder.tokens;
  const b = run({ method: "draft", gamma: 3, temperature: 1, seed: 1, maxChars: 40 }).decoder.tokens;
  const c = run({ method: "draft", gamma: 3, temperature: 1, seed: 2, maxChars: 40 }).decoder.tokens;
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});

test("a prompt with characters outside the vocabulary is refused by name", () => {
  const out = encodePrompt(lab, "Roméo é ü");
  assert.deepEqual(out.unknown, ["é", "ü"]);
  assert.deepEqual(out.ids, []);
  assert.equal(encodePrompt(lab, "ROMEO:\n").unknown.length, 0);
  assert.throws(() => newDecoder(lab, { method: "plain", prompt: [] }), /empty/);
});

test("the n-gram table's q is a distribution at any temperature, zeros kept (ngram.py's twin)", () => {
  const flat = new Float64Array(65).fill(1 / 65);  // (1/65)^(1/T) underflows to 0 at T = 0.001: 0/0
  assert.ok(ngramQ(flat, 0.001).every((x) => Math.abs(x - 1 / 65) < 1e-12));
  const probs = Float64Array.from([0.5, 0.3, 0.2, 0]);
  for (const T of [0.01, 0.5, 1.5]) {
    const q = ngramQ(probs, T);
    assert.ok(q.every(Number.isFinite), `T = ${T}: ${q}`);
    assert.ok(Math.abs(q.reduce((a, b) => a + b, 0) - 1) < 1e-12);
    assert.equal(q[3], 0);
    assert.ok(q[0] > q[1] && q[1] > q[2]);
  }
  const tempered = ngramQ(probs, 0.5), squared = [0.25, 0.09, 0.04].map((x) => x / 0.38);
  squared.forEach((x, i) => assert.ok(Math.abs(tempered[i] - x) < 1e-12));  // counts^(1/T), normalized
  assert.deepEqual(Array.from(ngramQ(probs, 0)), [1, 0, 0, 0]);
});
