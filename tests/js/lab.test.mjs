// The lab's JS forward against PyTorch (experiments/measure/lab.py wrote the inputs, the schedule of
// feeds and rollbacks, and PyTorch's logits on the same float16-rounded weights), a feed's
// positions against the same positions one token a call (bit for bit: greedy identity rests on
// it), the JS rule against Python's accept_reject on the same p, q, drafts and uniforms, and the
// n-gram table's q.
// The checks are a test fixture (tests/fixtures/lab_checks.json) for the committed lab.json.
// LAB_RESULTS names another folder holding lab.json and LAB_CHECKS another checks file
// (tests/test_lab.py points them at a tiny model's).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { jsKernel } from "../../static/js/lab_kernel.js";
import { loadLab } from "../../static/js/lab_model.js";
import { acceptReject } from "../../static/js/rule.js";
import { newWasmKernel } from "./wasm_kernel.mjs";

const DIR = process.env.LAB_RESULTS || new URL("../../experiments/results/", import.meta.url).pathname;
const CHECKS_FILE = process.env.LAB_CHECKS || new URL("../fixtures/lab_checks.json", import.meta.url).pathname;
const LAB = JSON.parse(readFileSync(`${DIR}/lab.json`, "utf8")), CHECKS = JSON.parse(readFileSync(CHECKS_FILE, "utf8"));
const gunzip = async (text) => new Uint8Array(gunzipSync(Buffer.from(text, "base64")));
// the same models on both kernels: JS in float64, WebAssembly SIMD in float32 (lab_kernel.js)
const LABS = { js: await loadLab(LAB, gunzip, jsKernel), wasm: await loadLab(LAB, gunzip, await newWasmKernel()) };
const lab = LABS.js;
const TOLERANCE = 1e-4;  // either kernel on float32 copies of the float16 weights vs PyTorch in float32

function maxDiff(rows, expected) {
  assert.equal(rows.length, expected.length);
  let worst = 0;
  rows.forEach((row, i) => row.forEach((x, j) => { worst = Math.max(worst, Math.abs(x - expected[i][j])); }));
  return worst;
}

function runSchedule(model, ops) {
  const cache = model.newCache(), rows = [];
  for (const op of ops) {
    if ("rollback" in op) cache.rollback(op.rollback);
    else rows.push(...model.forward(cache, op.feed).logits);
  }
  return rows;
}

for (const [kernel, lab] of Object.entries(LABS)) for (const name of ["main", "draft"]) {
  test(`${kernel} kernel, ${name}: logits through feeds, rollbacks and past the window equal PyTorch's`, () => {
    const { ops, logits } = CHECKS[name];
    assert.ok(ops.some((op) => "rollback" in op));
    assert.ok(ops.reduce((n, op) => n + (op.feed ? op.feed.length : 0), 0) > lab[name].cfg.block_size);
    const diff = maxDiff(runSchedule(lab[name], ops), logits);
    assert.ok(diff <= TOLERANCE, `max |Δlogit| ${diff}`);
  });
}

for (const [kernel, lab] of Object.entries(LABS)) test(`${kernel} kernel: the MTP head's logits, with a rollback, equal PyTorch's`, () => {
  const { text, ops, logits } = CHECKS.main.mtp;
  const main = lab.main, h = main.forward(main.newCache(), text).h;
  const cache = main.newMtpCache(), rows = [];
  for (const op of ops) {
    if ("rollback" in op) cache.rollback(op.rollback);
    else rows.push(...main.mtpForward(cache, h.slice(op.pairs[0], op.pairs[1]), op.next));
  }
  const diff = maxDiff(rows, logits);
  assert.ok(diff <= TOLERANCE, `max |Δlogit| ${diff}`);
});

// Rows equal bit for bit (Object.is: -0 is not 0), or the first place they differ.
function assertSameBits(rows, expected, what) {
  assert.equal(rows.length, expected.length, what);
  rows.forEach((row, i) => {
    assert.equal(row.length, expected[i].length, `${what}, row ${i}`);
    const j = row.findIndex((x, k) => !Object.is(x, expected[i][k]));
    assert.equal(j, -1, `${what}, row ${i}[${j}]: ${row[j]} vs ${expected[i][j]}`);
  });
}

// The schedule once as it is (a feed's positions in one call) and once one token a call.
function runScheduleBy(model, ops, oneByOne) {
  const cache = model.newCache(), out = { logits: [], h: [] };
  for (const op of ops) {
    if ("rollback" in op) { cache.rollback(op.rollback); continue; }
    for (const feed of oneByOne ? op.feed.map((token) => [token]) : [op.feed]) {
      const { logits, h } = model.forward(cache, feed);
      out.logits.push(...logits);
      out.h.push(...h);
    }
  }
  return out;
}

for (const [kernel, lab] of Object.entries(LABS)) for (const name of ["main", "draft"]) {
  test(`${kernel} kernel, ${name}: feeds of 5 give the same bits as one token at a time, through rollbacks and past the window`, () => {
    const { ops } = CHECKS[name], model = lab[name];
    assert.ok(ops.filter((op) => op.feed && op.feed.length === 5).length >= 10);
    assert.ok(ops.some((op) => "rollback" in op));
    const together = runScheduleBy(model, ops, false), alone = runScheduleBy(model, ops, true);
    assert.ok(together.logits.length > model.cfg.block_size);
    assertSameBits(together.logits, alone.logits, `${name} logits`);
    assertSameBits(together.h, alone.h, `${name} h`);
  });
}

for (const [kernel, lab] of Object.entries(LABS)) test(`${kernel} kernel: a position's logits and h are the same bits alone or inside a feed longer than the window`, () => {
  const main = lab.main, text = CHECKS.main.mtp.text.slice(0, main.cfg.block_size + 6);
  const together = main.forward(main.newCache(), text);
  const cache = main.newCache(), alone = text.map((token) => main.forward(cache, [token]));
  assertSameBits(together.logits, alone.map((out) => out.logits[0]), "logits");
  assertSameBits(together.h, alone.map((out) => out.h[0]), "h");
});

// every verify size the lab can ask for (γ + 1 ≤ 9), in feeds of k from one cache state
for (const [kernel, lab] of Object.entries(LABS)) test(`${kernel} kernel: feeds of 1 to 9 positions give the same bits`, () => {
  const main = lab.main, prefix = CHECKS.main.mtp.text.slice(0, 20), next = CHECKS.main.mtp.text.slice(20, 29);
  const cache = main.newCache();
  main.forward(cache, prefix);
  const alone = next.map((token) => main.forward(cache, [token]).logits[0]);
  for (let k = 1; k <= next.length; k++) {
    cache.rollback(prefix.length);
    assertSameBits(main.forward(cache, next.slice(0, k)).logits, alone.slice(0, k), `k = ${k}`);
  }
});

test("the two kernels' logits agree to float32's precision", () => {
  const text = CHECKS.main.mtp.text.slice(0, 40);
  const diff = maxDiff(LABS.wasm.main.forward(LABS.wasm.main.newCache(), text).logits,
    LABS.js.main.forward(LABS.js.main.newCache(), text).logits);
  assert.ok(diff > 0 && diff < 1e-4, `max |Δlogit| ${diff}`);  // float32 sums: close, and not the same code
});

// The heavy twin (model.py's heavy_twin): more weights to read, the same function, so the same bits
for (const [kernel, lab] of Object.entries(LABS)) test(`${kernel} kernel: a heavy twin's logits are the trained model's, bit for bit`, () => {
  const text = CHECKS.main.mtp.text.slice(0, 30);
  for (const name of ["main", "draft"]) {
    const model = lab[name], twin = model.heavyTwin(3, 7);
    // 3× the parameters, but for rounding each MLP's extra units to a multiple of 4 (2 units either way)
    const slack = (blocks) => 2 * 3 * model.cfg.n_embd * blocks;
    assert.ok(Math.abs(twin.params() - 3 * model.params()) <= slack(model.blocks.length), `${name}: ${twin.params()} vs ${model.params()}`);
    assert.ok(twin.cfg.mlp_hidden > model.cfg.mlp_hidden && twin.cfg.mlp_hidden % 4 === 0);
    const mine = twin.forward(twin.newCache(), text), theirs = model.forward(model.newCache(), text);
    assertSameBits(mine.logits, theirs.logits, `${name} logits`);
    if (name === "main") {
      assert.ok(Math.abs(twin.params(true) - 3 * model.params(true)) <= slack(1));
      const mtp = (m, h) => m.mtpForward(m.newMtpCache(), h.slice(0, 10), text.slice(1, 11));
      assertSameBits(mtp(twin, mine.h), mtp(model, theirs.h), "MTP logits");
    }
  }
  assert.equal(lab.main.heavyTwin(1), lab.main);
  assert.throws(() => lab.main.heavyTwin(0.5), /at least 1/);
});

test("the MTP head's logits are the same bits for pairs fed together or one at a time, with a rollback", () => {
  const { text, ops } = CHECKS.main.mtp;
  const main = lab.main, h = main.forward(main.newCache(), text).h;
  assert.ok(ops.some((op) => op.pairs && op.pairs[1] - op.pairs[0] > 1) && ops.some((op) => "rollback" in op));
  const run = (oneByOne) => {
    const cache = main.newMtpCache(), rows = [];
    for (const op of ops) {
      if ("rollback" in op) { cache.rollback(op.rollback); continue; }
      const [from, to] = op.pairs;
      const calls = oneByOne ? op.next.map((_, i) => [from + i, from + i + 1]) : [[from, to]];
      for (const [a, b] of calls) rows.push(...main.mtpForward(cache, h.slice(a, b), op.next.slice(a - from, b - from)));
    }
    return rows;
  };
  assertSameBits(run(false), run(true), "MTP logits");
});

test("acceptReject gives Python's verdicts on Python's p, q, drafts and uniforms", () => {
  assert.ok(CHECKS.rule.length >= 20);
  const kinds = new Set();
  for (const c of CHECKS.rule) {
    let i = 0;
    const rand = () => c.uniforms[i++];
    const out = acceptReject(c.p, c.q, c.drafts, rand);
    assert.equal(out.nAccepted, c.n_accepted);
    assert.equal(out.next, c.next);
    assert.equal(i, c.uniforms.length);  // γ uniforms, then one for the sampled token, as in Python
    kinds.add(c.n_accepted === c.drafts.length ? "all" : c.n_accepted === 0 ? "none" : "some");
  }
  assert.deepEqual([...kinds].sort(), ["all", "none", "some"]);
});

test("the n-gram table's q equals experiments/ngram.py's, back-off included", () => {
  for (const { context, q } of CHECKS.ngram) {
    const mine = lab.ngram.probs(context);
    q.forEach((x, j) => assert.ok(Math.abs(mine[j] - x) < 1e-7, `context ${context}: ${mine[j]} vs ${x}`));
  }
});
