// The race's modelled clock (static/js/lab_clock.js): its prices are section ①'s roofline, it
// knows what fits in a device's memory, the lesson's kind of budget comes out of its arithmetic,
// and over 600 characters of real decoding in the lab it agrees with Theorem 3.8 at its own costs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { callMs, drafterParams, laneMs, makeClock, modelledRace } from "../../static/js/lab_clock.js";
import { MAIN_PRESETS } from "../../static/js/roofline.js";
import { encodePrompt, newDecoder } from "../../static/js/lab_decode.js";
import { loadLab } from "../../static/js/lab_model.js";
import { GPU_DEFAULTS, GPU_HASH, gpuBudget, readGpu } from "../../static/js/lab_text.js";
import { DEVICES, roofline } from "../../static/js/roofline.js";

const device = (id) => DEVICES.find((d) => d.id === id);
const preset = (id) => MAIN_PRESETS.find((m) => m.id === id);

test("a call costs the roofline's step, a lookup nothing; a lane is the sum of its calls", () => {
  const h100 = device("h100"), seven = preset("7b");
  assert.equal(callMs(h100, seven.params, 5), 1e3 * roofline(h100, seven.params, 5).step);
  assert.equal(callMs(h100, 0, 5), 0);
  const clock = makeClock({ deviceId: "h100", mainId: "7b", method: "draft", draftSize: 1e9 });
  const calls = { main: [7, 1, 5, 5], drafter: [1, 1, 2, 1] };
  const expected = [7, 1, 5, 5].reduce((t, k) => t + callMs(h100, seven.params, k), 0)
    + [1, 1, 2, 1].reduce((t, k) => t + callMs(h100, 1e9, k), 0);
  assert.ok(Math.abs(laneMs(calls, clock) - expected) < 1e-9);
});

test("what fits: 70B in 16 bits fits on no single device here, 7B with a 0.5B draft fits on a 4090", () => {
  for (const d of DEVICES) assert.equal(makeClock({ deviceId: d.id, mainId: "70b", method: "ngram" }).fits, false, d.id);
  assert.ok(makeClock({ deviceId: "rtx4090", mainId: "7b", method: "draft", draftSize: 0.5e9 }).fits);
  assert.equal(makeClock({ deviceId: "rtx4090", mainId: "7b", method: "draft", draftSize: 3e9 }).fits, true);
});

test("the lesson's kind of budget: 5 drafts and one verify of 6 cost far less than 5 plain forwards", () => {
  const clock = makeClock({ deviceId: "rtx4090", mainId: "7b", method: "draft", draftSize: 0.5e9 });
  const main1 = callMs(clock.device, clock.main.params, 1), verify6 = callMs(clock.device, clock.main.params, 6);
  const draft1 = callMs(clock.device, clock.drafter, 1);
  assert.equal(verify6, main1);  // memory-bound: 6 positions read the weights once, like 1
  assert.ok(5 * draft1 + verify6 < 0.4 * (5 * main1));
  assert.ok(Math.abs(draft1 / main1 - 0.5e9 / clock.main.params) < 1e-12);  // c is the size ratio
});

test("the lesson's budget, as this clock prices it: a 70B model with a 3B drafter on an H100", () => {
  // (it does not fit on one H100; the arithmetic is the lesson's all the same)
  const clock = makeClock({ deviceId: "h100", mainId: "70b", method: "draft", draftSize: 3e9 });
  const race = modelledRace({ main: [1], drafter: [] }, { main: [6], drafter: [1, 1, 1, 1, 1] }, clock, 0.8, 5);
  const b = gpuBudget(race, 5);
  assert.equal(b.chars, 6);
  assert.ok(Math.abs(b.round - (5 * b.draft + b.verify)) < 1e-9 && Math.abs(b.plain - 6 * b.forward) < 1e-9);
  assert.ok(b.forward > 35 && b.forward < 45, b.forward);  // 138 GB read at 3.35 TB/s: the lesson's ~30 ms order
  assert.ok(b.round < b.plain / 2.5);                      // 5 × 1.8 + 41 against 6 × 41 ms
});

test("the MTP head reads about one layer and the output head", () => {
  const seven = preset("7b"), p = drafterParams("mtp", seven);
  assert.ok(p > seven.params / seven.layers && p < seven.params / 10);
  assert.equal(drafterParams("ngram", seven, 1e9), 0);
  assert.equal(drafterParams("draft", seven, 1e9), 1e9);
});

const LAB = JSON.parse(readFileSync(new URL("../../experiments/results/lab.json", import.meta.url), "utf8"));
const lab = await loadLab(LAB, async (text) => new Uint8Array(gunzipSync(Buffer.from(text, "base64"))));

function decode(method, gamma, seed) {
  const decoder = newDecoder(lab, { method, gamma, temperature: 1, seed, prompt: encodePrompt(lab, "ROMEO:\n").ids, maxChars: 600 });
  while (decoder.step());
  return decoder;
}

test("over 4 × 600 characters of real decoding, the modelled speedup is Theorem 3.8 at the clock's costs within 2 %", () => {
  // one race of 600 characters strays from the theorem by up to about 2.5 % (acceptances are not
  // independent, and α is estimated from the same race): four races, pooled, stay within 2 %
  const seeds = [0, 1, 2, 3], plain = seeds.map((seed) => decode("plain", 1, seed));
  for (const [method, gamma] of [["draft", 4], ["ngram", 3], ["mtp", 1]]) {
    const clock = makeClock({ deviceId: "h100", mainId: "7b", method, draftSize: 0.5e9 });
    let plainMs = 0, specMs = 0, accepted = 0, checked = 0;
    seeds.forEach((seed, i) => {
      const spec = decode(method, gamma, seed);
      // the prompt's forward is the same in both lanes: price the decoding that follows it
      const race = modelledRace({ main: plain[i].calls.main.slice(1), drafter: [] },
        { main: spec.calls.main.slice(1), drafter: spec.calls.drafter }, clock, null, gamma);
      plainMs += race.plainMs;
      specMs += race.specMs;
      accepted += spec.counters.accepted;
      checked += spec.counters.checked;
    });
    const theory = modelledRace({ main: [1], drafter: [] }, { main: [1], drafter: [] }, clock, accepted / checked, gamma).theory;
    const speedup = plainMs / specMs;
    assert.ok(speedup > 1.5, `${method}: ${speedup}`);
    assert.ok(Math.abs(speedup / theory - 1) < 0.02, `${method}: ${speedup} against ${theory}`);
  }
});

test("the clock's settings come from the address, each checked, with defaults", () => {
  const get = (entries) => (key) => entries[key];
  assert.deepEqual(readGpu(get({})), GPU_DEFAULTS);
  assert.deepEqual(readGpu(get({ [GPU_HASH.device]: "h100", [GPU_HASH.main]: "70b", [GPU_HASH.draft]: "3000000000" })),
    { device: "h100", main: "70b", draft: 3e9 });
  // an unknown device, a size that is not offered, a draft size that is not one of the choices
  assert.deepEqual(readGpu(get({ [GPU_HASH.device]: "tpu", [GPU_HASH.main]: "13b", [GPU_HASH.draft]: "12345" })), GPU_DEFAULTS);
});
