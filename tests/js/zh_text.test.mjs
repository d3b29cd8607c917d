// Chinese typesetting in every string the scripts make: full-width ，：；？（） between Chinese
// characters, no space between two Chinese characters, one name per execution mode.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import "./registry.mjs";
import { burstReadouts, burstVerdict } from "../../static/js/bursts.js";
import { optimalRows } from "../../static/js/gamma.js";
import { stepsVerdict } from "../../static/js/gamma_steps.js";
import { joinZh, labelled, MODE_LABEL, modePhrase } from "../../static/js/labels.js";
import { timeBars } from "../../static/js/ledger.js";
import { ledgerSteps } from "../../static/js/ledger_math.js";
import { baselineText, cardSteps, draftingText, ledgerSummary, ledgerVerdict, sizeNote } from "../../static/js/ledger_text.js";
import { compareRows, compareSentence, ledgerPair } from "../../static/js/mtp_compare.js";
import { diagramParts, partName, partText, sharedNote } from "../../static/js/mtp_diagram.js";
import { stepView, traceReadouts } from "../../static/js/mtp_trace.js";
import { rowMeaning } from "../../static/js/verify_grid.js";
import { calcRows, acceptReadouts } from "../../static/js/acceptance.js";
import { snapshotTitle } from "../../static/js/sweep.js";
import { costCurve, pointTitle } from "../../static/js/verify_cost.js";

const JS_DIR = new URL("../../static/js/", import.meta.url);
const load = (name) => JSON.parse(readFileSync(new URL(`../../experiments/results/${name}.json`, import.meta.url)));
const HAN = "\\u3400-\\u9fff";
const HALF_BETWEEN_HAN = new RegExp(`[${HAN}][,:;?()][${HAN}]`, "u");
const HALF_NEXT_TO_HAN = new RegExp(`[${HAN}][,:;?()]|[,:;?()][${HAN}]`, "u");
const SPACE_BETWEEN_HAN = new RegExp(`[${HAN}] +[${HAN}]|[，。：；？！（）、] +| +[，。：；？！（）、]`, "u");
// a Latin word, number or Greek letter next to a Chinese character is set off by a space
const LATIN_TOUCHING_HAN = new RegExp(`[${HAN}][A-Za-z0-9α-ω]|[A-Za-z0-9α-ω][${HAN}]`, "u");

// Every line of static/js with ${…} replaced by a neutral placeholder, so `${a},${b}` is not
// read as punctuation between the characters around the placeholders.
function sourceLines() {
  return readdirSync(JS_DIR).filter((f) => f.endsWith(".js")).flatMap((file) =>
    readFileSync(new URL(file, JS_DIR), "utf8").split("\n").map((line, i) => ({
      where: `static/js/${file}:${i + 1}`, text: line.replace(/\$\{[^{}]*\}/g, "X"),
    })));
}

test("source: no half-width , : ; ? ( ) between two Chinese characters", () => {
  const bad = sourceLines().filter((l) => HALF_BETWEEN_HAN.test(l.text)).map((l) => `${l.where}: ${l.text.trim().slice(0, 120)}`);
  assert.deepEqual(bad, []);
});

test("the scan catches what it is meant to catch", () => {
  assert.ok(HALF_BETWEEN_HAN.test("每个字符查一行,得到一个"));
  assert.ok(HALF_BETWEEN_HAN.test("最快一档(再长"));
  assert.ok(!HALF_BETWEEN_HAN.test("每个字符查一行，得到一个 min(1, p/q)"));
  assert.ok(SPACE_BETWEEN_HAN.test("整窗重算 模式"));
  assert.ok(HALF_NEXT_TO_HAN.test("forward(共"));
});

test("mode names: one per language, and joined without a space between Chinese characters", () => {
  assert.deepEqual(modePhrase("recompute"), { zh: "整窗重算模式", en: "recompute mode" });
  assert.deepEqual(modePhrase("kvcache"), { zh: "KV cache 模式", en: "kv-cache mode" });
  assert.equal(joinZh("MTP", "头"), "MTP 头");
  // no other Chinese name for a mode anywhere in the scripts
  const others = sourceLines().filter((l) => /每次重算|重算模式|KV 缓存|kv 缓存/.test(l.text) && !l.where.startsWith("static/js/labels.js"));
  assert.deepEqual(others.map((l) => l.where), []);
  assert.deepEqual(Object.keys(MODE_LABEL), ["kvcache", "recompute"]);
});

// Every {zh, en} pair (or list of them, or object holding them) a view function returns.
function zhStrings(x, out = []) {
  if (x === null || x === undefined) return out;
  if (Array.isArray(x)) { for (const v of x) zhStrings(v, out); return out; }
  if (typeof x === "object") {
    if (typeof x.zh === "string") out.push(x.zh);
    for (const [k, v] of Object.entries(x)) if (k !== "zh" && k !== "en") zhStrings(v, out);
  }
  return out;
}

test("generated Chinese: full-width punctuation next to Chinese, no space between Chinese characters", () => {
  const gamma = load("gamma_sweep"), ledger = load("ledger"), mtp = load("mtp"), models = load("models");
  const causal = load("causal"), acceptance = load("acceptance");
  const outputs = [];
  for (const [alpha, c] of [[0.7, 0.2], [0.97, 0.01], [0.3, 0.6]]) outputs.push(optimalRows(alpha, c, 8));
  outputs.push(stepsVerdict(gamma.rows));
  for (const verdict of ["geometric", "both_ends_high", "differs"]) {
    for (const mode of ["kvcache", "recompute"]) {
      const pooled = { rows: 5, chi2: 30.1, dof: 18, p: 0.04, level: 0.05, verdict,
        ends: { zero: { observed: 100, expected: 90.5 }, full: { observed: 80, expected: 70.2 } } };
      outputs.push(burstVerdict(pooled, mode));
    }
  }
  for (const row of gamma.rows.filter((r) => r.gamma >= 2)) outputs.push(burstReadouts(row, row.repeats));
  for (const row of ledger.rows) {
    const plain = ledger.rows.find((r) => r.mode === row.mode && r.method === "plain");
    const costs = ledger.forward_costs[row.mode];
    const st = ledgerSteps(row, plain);
    if (row.method === "plain") { outputs.push(baselineText(row, costs)); continue; }
    outputs.push(draftingText(row, costs, st), cardSteps(row, plain, costs, st), ledgerVerdict(row, plain, st), sizeNote(row, 0.07),
      timeBars(row, plain, st));
  }
  for (const mode of ["kvcache", "recompute"]) {
    outputs.push(ledgerSummary(ledger.rows, mode));
    const pair = ledgerPair(ledger, mode);
    outputs.push(compareSentence(pair.mtp, pair.draft), compareRows(pair, ledger, mtp.params, 1000));
  }
  const cfg = models.runs[`main_s${mtp.seeds[0]}`].config;
  const parts = diagramParts(cfg.n_layer);
  for (const part of parts) outputs.push(partText(part, cfg, mtp.params), sharedNote(parts, part, mtp.params), partName(part));
  mtp.sample.steps.forEach((_, i) => outputs.push(stepView(mtp.sample, i)));
  outputs.push(traceReadouts(mtp.sample));
  const ex = causal.verify_example;
  for (let g = 1; g <= ex.gamma; g++) for (let i = 0; i < ex.context.length + g; i++) outputs.push(rowMeaning(ex, g, i));
  for (const pos of acceptance.positions) outputs.push(calcRows(pos, acceptance.vocab, 0, acceptance.draws), acceptReadouts(pos, acceptance.draws));
  const costs = load("costs");
  for (const [engine, measured] of Object.entries(costs.engines)) {
    for (const point of costCurve(measured, costs.positions)) outputs.push(pointTitle(engine, point));
  }
  for (const snapshot of load("divergence_sweep").snapshots) outputs.push(snapshotTitle(snapshot));
  const texts = zhStrings(outputs);
  assert.ok(texts.length > 500, `only ${texts.length} strings checked`);
  const bad = texts.filter((s) => HALF_NEXT_TO_HAN.test(s) || SPACE_BETWEEN_HAN.test(s) || LATIN_TOUCHING_HAN.test(s) || /undefined|NaN|null/.test(s));
  assert.deepEqual(bad.slice(0, 8), []);
});

test("chart titles and tooltips: a full-width comma and colon after a Chinese name", () => {
  assert.deepEqual(labelled({ zh: "其余开销", en: "everything else" }, "0.114 s"), { zh: "其余开销：0.114 s", en: "everything else: 0.114 s" });
  assert.deepEqual(pointTitle("compiled", { n: 1, ratio: 1 }), { zh: "编译引擎，1 个位置：1.00×", en: "compiled engine, 1 position: 1.00×" });
  assert.deepEqual(pointTitle("eager", { n: 16, ratio: 2.6 }), { zh: "eager 引擎，16 个位置：2.60×", en: "eager engine, 16 positions: 2.60×" });
  assert.deepEqual(snapshotTitle({ step: 500, alpha_mean: 0.619, kl_mean: 0.6861 }), { zh: "第 500 步：α 0.619，KL 0.686", en: "step 500: α 0.619, KL 0.686" });
  const ledger = load("ledger");
  const plain = ledger.rows.find((r) => r.method === "plain"), row = ledger.rows.find((r) => r.method === "draft" && r.mode === plain.mode);
  const titles = timeBars(row, plain, ledgerSteps(row, plain)).bars.flatMap((b) => b.parts.map((p) => p.title.zh));
  assert.ok(titles.length >= 4 && titles.every((x) => /^[\u3400-\u9fff A-Za-z]+：\d+\.\d{3} s$/u.test(x)), titles.join(" | "));
});
