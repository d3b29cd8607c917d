// Section ④ logic on the real results: diagram counts, the trace, the MTP-vs-draft wording.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import "./registry.mjs";
import { closingVerdict } from "../../static/js/closing.js";
import { compareRows, compareSentence, ledgerPair } from "../../static/js/mtp_compare.js";
import { blockBreakdown, diagramParts, paramTotals, partCount, partName, partText } from "../../static/js/mtp_diagram.js";
import { defaultStep, draftRatio, kindCounts, stepKinds, rejections, stepView, traceHTML, traceReadouts } from "../../static/js/mtp_trace.js";

const load = (name) => JSON.parse(readFileSync(new URL(`../../experiments/results/${name}.json`, import.meta.url)));
const mtp = load("mtp");
const ledger = load("ledger");
const models = load("models");

const cfg = models.runs[`main_s${mtp.seeds[0]}`].config;
const parts = diagramParts(cfg.n_layer);
const mtpPartCount = (key, params) => partCount(parts, key, params);

test("diagram: every part's count comes from mtp.json, sums match the totals", () => {
  const p = mtp.params;
  const keys = parts.map((x) => x.key);
  assert.equal(new Set(keys).size, keys.length);
  for (const key of ["emb", "head", "mtp_emb", "mtp_head"]) assert.equal(mtpPartCount(key, p), p.shared_embedding_head);
  for (const key of ["final_norm", "mtp_final_norm"]) assert.equal(mtpPartCount(key, p), p.shared_final_norm);
  p.main_blocks.forEach((n, i) => assert.equal(mtpPartCount(`block${i + 1}`, p), n));
  assert.equal(mtpPartCount("hidden_norm", p), p.hidden_norm);
  assert.equal(mtpPartCount("embed_norm", p), p.embed_norm);
  assert.equal(mtpPartCount("proj", p), p.proj);
  assert.equal(mtpPartCount("mtp_block", p), p.block);
  assert.equal(mtpPartCount("ht", p), 0);
  assert.equal(mtpPartCount("concat", p), 0);
  assert.throws(() => mtpPartCount("nope", p));
  const tot = paramTotals(p);
  assert.equal(tot.ownSum, p.mtp_head_total);
  assert.equal(tot.mainSum, p.main_total);
});

test("diagram: a block's count from the config matches the checkpoint", () => {
  const b = blockBreakdown(cfg);
  assert.equal(b.total, mtp.params.block);
  assert.equal(b.attn + b.mlp + b.norms, b.total);
  assert.deepEqual(blockBreakdown({ n_embd: 2, mlp_hidden: 3 }), { d: 2, hidden: 3, attn: 16, mlp: 18, norms: 4, total: 38 });
});

test("trace: kinds, counts and the default step agree with the sample", () => {
  const { steps } = mtp.sample;
  const counts = kindCounts(steps);
  assert.equal(counts.draft, mtp.sample.accepted);
  assert.equal(counts.draft + counts.main + counts.resample, mtp.sample.n_chars);
  assert.equal(steps.length, mtp.sample.main_forwards);
  assert.equal(steps.map((s) => s.emitted.join("")).join(""), mtp.sample.text);
  const rej = rejections(steps);
  assert.equal(rej.length, counts.resample);
  assert.equal(mtp.sample.proposed - mtp.sample.accepted, rej.length);
  for (const i of rej) assert.ok(steps[i].u >= draftRatio(steps[i]));
  for (const s of steps) if (s.accepted) assert.ok(s.u < draftRatio(s));
  const d = defaultStep(steps);
  assert.ok(rej.includes(d), "the trace opens on a rejection");
  for (const i of rej) assert.ok(draftRatio(steps[d]) <= draftRatio(steps[i]));
});

test("trace: small cases", () => {
  const st = (draft, p, q, u, accepted, emitted, next_from) =>
    ({ draft, p_draft: p, q_draft: q, u, accepted, emitted, n_accepted: accepted ? 1 : 0, next_from });
  const steps = [st(null, null, null, null, false, ["a"], "main"), st("b", 0.5, 0.25, 0.9, true, ["b", "<"], "bonus"),
    st("c", 0.1, 0.5, 0.5, false, ["\n"], "residual")];
  assert.deepEqual(steps.map(stepKinds), [["main"], ["draft", "main"], ["resample"]]);
  assert.equal(draftRatio(steps[0]), null);
  assert.equal(draftRatio(steps[1]), 1);
  assert.equal(draftRatio({ draft: "x", p_draft: 0.3, q_draft: 0 }), 0);
  assert.deepEqual(kindCounts(steps), { draft: 1, main: 2, resample: 1 });
  assert.equal(defaultStep(steps), 2);
  assert.equal(defaultStep(steps.slice(0, 2)), 1); // no rejection: the first draft
  const html = traceHTML("P\n", steps, 1);
  assert.match(html, /<span class="mtp-step mtp-cur" data-s="1"><span class="mtp-k-draft">b<\/span><span class="mtp-k-main">&lt;<\/span><\/span>/);
  assert.match(html, /data-s="0"><span class="mtp-k-main">a/);
  assert.match(html, /class="mtp-step mtp-fut" data-s="2"><span class="mtp-k-resample">↵<\/span>\n/);
  assert.equal((html.match(/data-s=/g) || []).length, 3);
});

test("MTP vs draft: the ledger rows for both modes and a sentence chosen by the numbers", () => {
  for (const mode of ["kvcache", "recompute"]) {
    const pair = ledgerPair(ledger, mode);
    assert.equal(pair.mtp.method, "mtp");
    assert.equal(pair.draft.gamma, 1);
    assert.equal(pair.plain.method, "plain");
    for (const r of Object.values(pair)) assert.equal(r.mode, mode);
  }
  const row = (alpha, c, speedup, min, max) => ({ alpha, c_used: c, speedup, repeats: 5, speedup_runs: { min, max } });
  const a = compareSentence(row(0.9, 0.4, 1.2, 1.1, 1.3), row(0.7, 0.2, 1.0, 0.9, 1.05));
  assert.match(a.en, /higher/);
  assert.match(a.en, /costs more/);
  assert.match(a.en, /MTP head is really faster/);
  assert.match(a.zh, /MTP 头确实更快/);
  const b = compareSentence(row(0.6, 0.1, 1.0, 0.9, 1.2), row(0.7, 0.2, 1.1, 1.0, 1.2));
  assert.match(b.en, /lower/);
  assert.match(b.en, /overlap/);
});

test("diagram: one box per main-model block, laid out from the config's n_layer", () => {
  const blocks = (n) => diagramParts(n).filter((x) => x.key.startsWith("block"));
  assert.equal(blocks(cfg.n_layer).length, mtp.params.main_blocks.length);
  for (const n of [1, 4, 6]) {
    const ps = diagramParts(n);
    assert.equal(blocks(n).length, n);
    const y = (key) => ps.find((x) => x.key === key).y;
    assert.ok(y(`block${n}`) < y("ht") && y("ht") < y("final_norm") && y("final_norm") < y("head"));
    assert.equal(y("hidden_norm"), y("ht")); // the MTP inputs sit level with hₜ
    assert.equal(y("concat"), y("final_norm"));
  }
  const ht = partText(parts.find((x) => x.key === "ht"), { ...cfg, n_layer: 6 }, mtp.params);
  assert.match(ht.en, /block 6/);
  assert.match(partText(parts.find((x) => x.key === "block2"), { ...cfg, n_layer: 6 }, mtp.params).en, /All 6 blocks/);
});

test("diagram: each box's accessible name starts with the text drawn in it", () => {
  for (const part of parts) {
    const shown = part.short || part.label;
    const name = partName(part);
    for (const lang of ["zh", "en"]) assert.ok(name[lang].startsWith(shown[lang]), `${part.key}: ${name[lang]}`);
  }
  assert.equal(partName(parts.find((x) => x.key === "proj")).en, "Projection 2d → d: new in the MTP module");
});

test("trace: the step card's rows and words follow the step", () => {
  const { steps } = mtp.sample;
  const first = stepView(mtp.sample, 0);
  assert.equal(steps[0].draft, null);
  assert.deepEqual(first.rows, []);
  assert.match(first.text.en, /The first forward/);
  const rej = rejections(steps)[0];
  const view = stepView(mtp.sample, rej);
  assert.equal(view.rows.length, 6);
  assert.equal(view.rows[4].value, steps[rej].u.toFixed(4));
  assert.equal(view.rows[5].cls, "warn");
  assert.match(view.text.en, /yields 1 character/);
  const acc = steps.findIndex((st) => st.accepted);
  assert.equal(stepView(mtp.sample, acc).rows[5].cls, "good");
  assert.match(stepView(mtp.sample, acc).text.en, /yields 2 characters/);
  assert.deepEqual(view.title, { zh: `第 ${rej + 1} 次主模型 forward（共 ${steps.length} 次）`, en: `Main forward ${rej + 1} of ${steps.length}` });
  const readouts = traceReadouts(mtp.sample);
  assert.equal(readouts[2].value, String(rejections(steps).length));
});

test("MTP vs draft table: one cell per drafter, theory notes only where they apply", () => {
  const pair = ledgerPair(ledger, "kvcache");
  const rows = compareRows(pair, ledger, mtp.params, 1234);
  assert.equal(rows.length, 7);
  for (const row of rows) assert.equal(row.cells.length, 3);
  assert.deepEqual(rows[0].cells, [mtp.params.mtp_head_total.toLocaleString("en-US"), "1,234", null]);
  assert.equal(rows[1].cells[2], null); // plain decoding has no α
  assert.equal(`${rows[6].cells[0].main}${rows[6].cells[0].unit}`, `${pair.mtp.speedup.toFixed(2)}×`);
  assert.deepEqual(rows[1].cells[0].fig, ["alpha-dec", pair.mtp.fig]); // tagged like the ledger's own cells
  assert.equal(rows[6].cells[2].note, null); // plain: no theory value
});

test("closing quiz: the flag on the option decides", () => {
  assert.equal(closingVerdict({ dataset: { correct: "true" } }), "right");
  assert.equal(closingVerdict({ dataset: { correct: "false" } }), "wrong");
});
