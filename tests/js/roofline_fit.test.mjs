// Section ①'s roofline tool says when a model's weights do not fit in the chosen accelerator's
// memory, and how many such accelerators would hold them (issue 18, item 11).
import assert from "node:assert/strict";
import { test } from "node:test";
import { fitNote, weightsFit } from "../../static/js/roofline_fit.js";
import { BYTES_PER_PARAM, DEVICES, MODEL_SIZES } from "../../static/js/roofline.js";

const device = (id) => DEVICES.find((d) => d.id === id);

test("every preset has its memory from the same datasheet as its bandwidth", () => {
  for (const d of DEVICES) {
    assert.ok(d.memory > 1e9, `${d.name}: ${d.memory}`);
    const gb = `${d.memory / 1e9} GB`;
    assert.ok(d.source.zh.includes(gb) && d.source.en.includes(gb), `${d.name}: its source names ${gb}`);
  }
});

test("weights fit: bytes against memory, and the fewest devices that hold them by memory", () => {
  const params = 70e9;
  const weights = params * BYTES_PER_PARAM;
  for (const d of DEVICES) {
    const f = weightsFit(d, params, BYTES_PER_PARAM);
    assert.equal(f.weights, weights);
    assert.equal(f.memory, d.memory);
    assert.equal(f.fits, weights <= d.memory);
    assert.ok(f.minDevices * d.memory >= weights && (f.minDevices - 1) * d.memory < weights, `${d.name}: ${f.minDevices}`);
  }
  // 140 GB of 16-bit weights: 6 RTX 4090s of 24 GB, 2 A100s or H100s of 80 GB
  assert.equal(weightsFit(device("rtx4090"), params, 2).minDevices, 6);
  assert.equal(weightsFit(device("a100"), params, 2).minDevices, 2);
  assert.equal(weightsFit(device("h100"), params, 2).minDevices, 2);
  assert.equal(weightsFit(device("rtx4090"), 7e9, 2).fits, true);  // 14 GB in 24 GB
  assert.equal(weightsFit(device("rtx4090"), 12e9, 2).fits, true);  // 24 GB exactly
  assert.equal(weightsFit(device("rtx4090"), 12.5e9, 2).fits, false);
});

test("the note: none when the weights fit; otherwise both languages give the sizes and the count", () => {
  for (const d of DEVICES) {
    for (const params of MODEL_SIZES) {
      const f = weightsFit(d, params, BYTES_PER_PARAM);
      const note = fitNote(d, params, BYTES_PER_PARAM);
      if (f.fits) {
        assert.equal(note, null, `${d.name}, ${params}`);
        continue;
      }
      for (const lang of ["zh", "en"]) {
        const text = note[lang];
        assert.ok(text.includes(d.name), text);
        assert.ok(text.includes(`${Math.round(f.weights / 1e9)} GB`), text);
        assert.ok(text.includes(`${d.memory / 1e9} GB`), text);
        assert.ok(text.includes(`${f.minDevices} `), text);
        assert.ok(/KV cache|kv cache/.test(text), text);  // the cache needs room on top of the weights
      }
      assert.match(note.en, /does not fit/);
      assert.match(note.en, /does not count/);  // splitting adds communication the arithmetic leaves out
      assert.match(note.zh, /放不进/);
      assert.match(note.zh, /通信/);
    }
  }
  // the page's 70B model on one RTX 4090 or one A100 says so
  assert.ok(fitNote(device("rtx4090"), 70e9, 2).en.includes("at least 6 such GPUs"));
  assert.ok(fitNote(device("a100"), 70e9, 2).zh.includes("至少要 2 块"));
});
