// Section ④ logic on the real results: diagram counts, the trace, the MTP-vs-draft wording.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { closingVerdict } from "../../static/js/closing.js";
import {
  mtpBlockBreakdown, mtpCompareSentence, mtpDefaultStep, mtpKindCounts, mtpLedgerPair, mtpPartCount,
  mtpPartKeys, mtpRatio, mtpRejections, mtpTotals, mtpTraceHTML,
} from "../../static/js/mtp.js";

const load = (name) => JSON.parse(readFileSync(new URL(`../../experiments/results/${name}.json`, import.meta.url)));
const mtp = load("mtp");
const ledger = load("ledger");
const models = load("models");

test("diagram: every part's count comes from mtp.json, sums match the totals", () => {
  const p = mtp.params;
  const keys = mtpPartKeys();
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
  const tot = mtpTotals(p);
  assert.equal(tot.ownSum, p.mtp_head_total);
  assert.equal(tot.mainSum, p.main_total);
});

test("diagram: a block's count from the config matches the checkpoint", () => {
  const cfg = models.runs[`main_s${mtp.seeds[0]}`].config;
  const b = mtpBlockBreakdown(cfg);
  assert.equal(b.total, mtp.params.block);
  assert.equal(b.attn + b.mlp + b.norms, b.total);
  assert.deepEqual(mtpBlockBreakdown({ n_embd: 2, mlp_hidden: 3 }), { d: 2, hidden: 3, attn: 16, mlp: 18, norms: 4, total: 38 });
});

test("trace: kinds, counts and the default step agree with the sample", () => {
  const { steps } = mtp.sample;
  const counts = mtpKindCounts(steps);
  assert.equal(counts.draft, mtp.sample.accepted);
  assert.equal(counts.draft + counts.main + counts.resample, mtp.sample.n_chars);
  assert.equal(steps.length, mtp.sample.main_forwards);
  assert.equal(steps.map((s) => s.emitted.join("")).join(""), mtp.sample.text);
  const rej = mtpRejections(steps);
  assert.equal(rej.length, counts.resample);
  assert.equal(mtp.sample.proposed - mtp.sample.accepted, rej.length);
  for (const i of rej) assert.ok(steps[i].u >= mtpRatio(steps[i]));
  for (const s of steps) if (s.accepted) assert.ok(s.u < mtpRatio(s));
  const d = mtpDefaultStep(steps);
  assert.ok(rej.includes(d), "the trace opens on a rejection");
  for (const i of rej) assert.ok(mtpRatio(steps[d]) <= mtpRatio(steps[i]));
});

test("trace: small cases", () => {
  const st = (draft, p, q, u, accepted, emitted, kinds) => ({ draft, p_draft: p, q_draft: q, u, accepted, emitted, kinds });
  const steps = [st(null, null, null, null, false, ["a"], ["main"]), st("b", 0.5, 0.25, 0.9, true, ["b", "<"], ["draft", "main"]),
    st("c", 0.1, 0.5, 0.5, false, ["\n"], ["resample"])];
  assert.equal(mtpRatio(steps[0]), null);
  assert.equal(mtpRatio(steps[1]), 1);
  assert.equal(mtpRatio({ draft: "x", p_draft: 0.3, q_draft: 0 }), 0);
  assert.deepEqual(mtpKindCounts(steps), { draft: 1, main: 2, resample: 1 });
  assert.equal(mtpDefaultStep(steps), 2);
  assert.equal(mtpDefaultStep(steps.slice(0, 2)), 1); // no rejection: the first draft
  const html = mtpTraceHTML("P\n", steps, 1);
  assert.match(html, /<span class="mtp-step mtp-cur" data-s="1"><span class="mtp-k-draft">b<\/span><span class="mtp-k-main">&lt;<\/span><\/span>/);
  assert.match(html, /data-s="0"><span class="mtp-k-main">a/);
  assert.match(html, /class="mtp-step mtp-fut" data-s="2"><span class="mtp-k-resample">↵<\/span>\n/);
  assert.equal((html.match(/data-s=/g) || []).length, 3);
});

test("MTP vs draft: the ledger rows for both modes and a sentence chosen by the numbers", () => {
  for (const mode of ["kvcache", "recompute"]) {
    const pair = mtpLedgerPair(ledger, mode);
    assert.equal(pair.mtp.method, "mtp");
    assert.equal(pair.draft.gamma, 1);
    assert.equal(pair.plain.method, "plain");
    for (const r of Object.values(pair)) assert.equal(r.mode, mode);
  }
  const row = (alpha, c, speedup, min, max) => ({ alpha, c_used: c, speedup, repeats: 5, speedup_runs: { min, max } });
  const a = mtpCompareSentence(row(0.9, 0.4, 1.2, 1.1, 1.3), row(0.7, 0.2, 1.0, 0.9, 1.05));
  assert.match(a.en, /higher/);
  assert.match(a.en, /costs more/);
  assert.match(a.en, /MTP head is really faster/);
  assert.match(a.zh, /MTP 头确实更快/);
  const b = mtpCompareSentence(row(0.6, 0.1, 1.0, 0.9, 1.2), row(0.7, 0.2, 1.1, 1.0, 1.2));
  assert.match(b.en, /lower/);
  assert.match(b.en, /overlap/);
});

test("closing quiz: the flag on the option decides", () => {
  assert.equal(closingVerdict({ dataset: { correct: "true" } }), "right");
  assert.equal(closingVerdict({ dataset: { correct: "false" } }), "wrong");
});
