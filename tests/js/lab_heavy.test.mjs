// The reader's own machine (lab_heavy.js): the heavy twins built in the page, the verify's price
// and the paired race, on the committed lab.json's models and the WebAssembly kernel (as the page
// runs them where the browser has SIMD). Timings are not checked here (make bench records them):
// only what must hold whatever the clock says.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { buildHeavyLab, pairedRace, verifyPrices } from "../../static/js/lab_heavy.js";
import { defaultScale, driftNote, heavyScales } from "../../static/js/lab_heavy_view.js";
import { loadLab } from "../../static/js/lab_model.js";
import "./registry.mjs";
import { newWasmKernel } from "./wasm_kernel.mjs";

const LAB = JSON.parse(readFileSync(new URL("../../experiments/results/lab.json", import.meta.url), "utf8"));
const gunzip = async (text) => new Uint8Array(gunzipSync(Buffer.from(text, "base64")));
const lab = await loadLab(LAB, gunzip, await newWasmKernel());
const prompt = Array.from("ROMEO:\n", (ch) => LAB.vocab.indexOf(ch));

test("a heavy twin is scale× the bytes of every network, on a memory of its own", async () => {
  const kernel = await newWasmKernel(), heavy = buildHeavyLab(lab, 4, kernel);
  assert.equal(heavy.lab.kernel, "wasm");
  assert.ok(Math.abs(heavy.bytes.main / (4 * lab.main.params()) - 4) < 0.02);
  assert.ok(Math.abs(heavy.bytes.draft / (4 * lab.draft.params()) - 4) < 0.02);
  assert.ok(Math.abs(heavy.bytes.mtp / (4 * lab.main.params(true)) - 4) < 0.02);
  assert.ok(heavy.bytes.memory >= heavy.bytes.main + heavy.bytes.draft + heavy.bytes.mtp);  // all of it in the module's memory
  assert.equal(heavy.lab.ngram, lab.ngram);
});

test("the WebAssembly kernel refuses a width it cannot read in fours, widened or not", async () => {
  const kernel = await newWasmKernel(), rows = 4, M = 8;
  const w13 = kernel.weight(new Float32Array(2 * M * rows), 2 * M, rows), w2 = kernel.weight(new Float32Array(rows * M), rows, M);
  assert.throws(() => kernel.widen(w13, w2, 2, () => 0.01), /in fours/);
  assert.throws(() => kernel.weight(new Float32Array(6), 1, 6), /in fours/);
  assert.equal(kernel.widen(w13, w2, 4, () => 0.01)[1].cols, M + 4);
});

test("greedy speculative text on the twin equals plain text, for every drafter, in every pair", async () => {
  const heavy = buildHeavyLab(lab, 3, await newWasmKernel()).lab;
  const race = await pairedRace(heavy, { configs: { ngram: 5, draft: 3, mtp: 1 }, prompt, n: 30, temperature: 0, pairs: 2 });
  assert.deepEqual(race.rows.map((r) => r.method), ["ngram", "draft", "mtp"]);
  for (const row of race.rows) {
    assert.ok(row.sameText, `${row.method}: the text differs from plain decoding's`);
    assert.equal(row.speedups.n, 2);
    assert.ok(row.speedups.min <= row.speedups.median && row.speedups.median <= row.speedups.max);
    assert.equal(row.verdict, row.speedups.min > 1 ? "faster" : row.speedups.max < 1 ? "slower" : "unclear");
    assert.ok(row.tokensPerMain >= 1 && row.tokensPerMain <= row.gamma + 1);
  }
  assert.ok(race.plainMsPerChar > 0);
});

test("the verify's price: r_1 is 1 by definition, and every size gets one ratio per repeat", async () => {
  const prices = await verifyPrices(lab, { positions: [2, 5], repeats: 2 });  // no k = 1: still a one-position time
  assert.deepEqual(Object.keys(prices.r), ["2", "5"]);
  assert.ok(Object.values(prices.r).every((r) => r.n === 2 && r.min <= r.median && r.median <= r.max));
  assert.deepEqual((await verifyPrices(lab, { positions: [1], repeats: 1 })).r[1], { median: 1, min: 1, max: 1, n: 1 });
});

test("the race offers the heaviest twin first, unless the device says its memory is small", async () => {
  const regime = JSON.parse(readFileSync(new URL("../../experiments/results/regime.json", import.meta.url), "utf8"));
  const scales = heavyScales(regime), heaviest = scales[scales.length - 1];
  assert.equal(defaultScale(scales, undefined), heaviest.scale);  // the browser does not say
  assert.equal(defaultScale(scales, 8 * heaviest.allBytes / 1e9), heaviest.scale);
  const small = defaultScale(scales, 4 * heaviest.allBytes / 1e9), chosen = scales.find((s) => s.scale === small);
  assert.ok(small < heaviest.scale && chosen.allBytes <= heaviest.allBytes / 2, `${small}`);
  assert.ok(scales.filter((s) => s.scale > small).every((s) => s.allBytes > heaviest.allBytes / 2));  // the heaviest that fits
  assert.equal(defaultScale(scales, 1e-6), scales[0].scale);  // nothing fits: the models as trained
});

test("plain decoding runs first in even pairs and last in odd ones; the drafters' order turns", async () => {
  const order = [];
  await pairedRace(lab, { configs: { ngram: 3, draft: 3 }, prompt, n: 4, temperature: 0, pairs: 3,
    onRun: (pair, method) => order.push(`${pair}:${method}`) });
  assert.deepEqual(order, ["0:plain", "0:ngram", "0:draft", "1:draft", "1:ngram", "1:plain", "2:plain", "2:ngram", "2:draft"]);
});

test("a speedup above the characters per main forward is named as the tab's drift, in both languages", async () => {
  const rows = [{ method: "ngram", speedup: 3.5, tokensPerMain: 3.2 }, { method: "draft", speedup: 1.5, tokensPerMain: 3.2 }];
  const note = driftNote(rows);
  assert.match(note.en, /n-gram.*3\.50× against 3\.20/);
  assert.doesNotMatch(note.en, /draft model/);
  assert.match(note.zh, /3\.50×/);
  assert.deepEqual(driftNote(rows.slice(1)), { zh: "", en: "" });
});
