import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import "./registry.mjs";
import { sci } from "../../static/js/format.js";
import { test } from "node:test";
import { burstCheck, burstColumns, burstVerdict } from "../../static/js/bursts.js";
import { gammaCharts, gammaChartSvg, measuredRowHTML, optimalRows } from "../../static/js/gamma.js";
import { gammaSteps, stepsVerdict } from "../../static/js/gamma_steps.js";
import { LEDGER_COLUMNS, ledgerRowHTML, timeBars } from "../../static/js/ledger.js";
import { LEDGER_SORT, ledgerSteps, sortFromHash, sortLedger } from "../../static/js/ledger_math.js";
import { cardSteps, draftingText, ledgerSummary, ledgerVerdict, methodLabel, sizeNote } from "../../static/js/ledger_text.js";
import { alphaForTokens, expectedTokens, meanAccepted, optimalGamma, speedupTheory } from "../../static/js/theory.js";

const results = (name) => JSON.parse(readFileSync(new URL(`../../experiments/results/${name}.json`, import.meta.url)));
const close = (a, b, tol = 1e-9) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${a} vs ${b}`);

test("expected tokens: the closed form equals the sum 1 + α + … + α^γ", () => {
  for (const alpha of [0.1, 0.5, 0.73, 0.99]) {
    for (let gamma = 0; gamma <= 8; gamma++) {
      let sum = 0;
      for (let k = 0; k <= gamma; k++) sum += alpha ** k;
      close(expectedTokens(alpha, gamma), sum);
    }
  }
  assert.equal(expectedTokens(1, 4), 5);
  close(expectedTokens(0.5, 2), 1.75);
});

test("Theorem 3.8: γ = 1 gives (1 + α)/(1 + c); beating plain at γ = 1 means α > c", () => {
  close(speedupTheory(0.7, 1, 0.2), 1.7 / 1.2);
  assert.ok(speedupTheory(0.3, 1, 0.29) > 1);
  assert.ok(speedupTheory(0.3, 1, 0.31) < 1);
  close(speedupTheory(0.6, 3, 0), expectedTokens(0.6, 3)); // free drafts: speedup = tokens per forward
});

test("JS formulas reproduce the Python numbers stored in ledger.json", () => {
  const ledger = results("ledger");
  for (const row of ledger.rows.filter((r) => r.method !== "plain")) {
    close(expectedTokens(row.alpha, row.gamma), row.tokens_per_main_expected, 1e-9);
    close(speedupTheory(row.alpha, row.gamma, row.c_used), row.speedup_theory, 1e-9);
  }
});

test("optimal γ is the argmax over 1..8, flags the edge and the hopeless case", () => {
  for (const [alpha, c] of [[0.5, 0.05], [0.7, 0.28], [0.85, 0.14], [0.9, 0.5]]) {
    const o = optimalGamma(alpha, c, 8);
    for (let g = 1; g <= 8; g++) assert.ok(speedupTheory(alpha, g, c) <= o.speedup + 1e-12);
    close(o.speedup, speedupTheory(alpha, o.gamma, c));
    close(o.tokens, expectedTokens(alpha, o.gamma));
  }
  assert.equal(optimalGamma(0.5, 0.6, 8).pays, false); // α < c: nothing pays
  const edge = optimalGamma(0.97, 0.01, 8);
  assert.equal(edge.gamma, 8);
  assert.equal(edge.atEdge, true);
  assert.equal(optimalGamma(0.7, 0.28, 8).atEdge, false);
  assert.equal(optimalGamma(0.97, 0.01, 12).gamma, 12); // the range is an argument, not a constant
});

test("burst readouts: ratios and means from a row's measured counts and law", () => {
  const expected = [30, 21, 14.7, 34.3], row = { run_lengths: [36, 18, 12, 34], burst: { expected, chi2: 2.1, dof: 2, p: 0.35 } };
  const b = burstCheck(row);
  assert.equal(b.gamma, 3);
  assert.equal(b.rounds, 100);
  close(b.ratioZero, 36 / 30);
  close(b.ratioAll, 34 / 34.3);
  close(b.meanObserved, (18 + 24 + 102) / 100);
  close(b.meanLaw, (21 + 29.4 + 102.9) / 100);
  close(meanAccepted([1, 1, 2]), 5 / 4);
  const cols = burstColumns(b);
  assert.deepEqual(cols.map((c) => c.label), ["0", "1", "2", "3"]);
  assert.deepEqual(cols[0].cells, ["36", "30.0"]); // the chart's table: measured rounds, the law
  close(cols[3].tick, 0.343);
});

test("burst verdict: one sentence per pooled verdict, quoting p, in both modes", () => {
  const pooled = (verdict, p) => ({ rows: 5, chi2: 57.6, dof: 18, p, level: 0.05, verdict,
    ends: { zero: { observed: 3104, expected: 2950.2 }, full: { observed: 1200, expected: 1100.4 } } });
  const said = {};
  for (const [verdict, p] of [["geometric", 0.31], ["both_ends_high", 5.01e-6], ["differs", 0.002]]) {
    for (const mode of ["kvcache", "recompute"]) {
      const v = burstVerdict(pooled(verdict, p), mode);
      for (const lang of ["zh", "en"]) {
        assert.ok(v[lang].includes(`p = ${sci(p)}`), v[lang]);
        assert.match(v[lang], /3,104 vs 2,950/);
        assert.match(v[lang], mode === "kvcache" ? /KV cache|kv-cache/ : /整窗重算|recompute/);
      }
      said[verdict] = v.en;
    }
  }
  assert.match(said.geometric, /cannot be told apart/);
  assert.match(said.both_ends_high, /both ends hold more/);
  assert.match(said.differs, /not in the both-ends shape/);
  assert.equal(new Set(Object.values(said)).size, 3);
  assert.match(burstVerdict({ ...pooled("geometric", null), dof: 0 }, "kvcache").en, /p = –/);
  assert.throws(() => burstVerdict(pooled("maybe", 0.5), "kvcache"), /unknown burst verdict/);
});

test("burst verdicts of the measured runs come from the JSON, not from a rule over rows", () => {
  const gamma = results("gamma_sweep");
  for (const [mode, pooled] of Object.entries(gamma.burst_pooled)) {
    if (!("verdict" in pooled)) continue; // written by `make measure` (experiments/stats.py)
    const text = burstVerdict(pooled, mode).en;
    assert.ok(text.includes(`χ² = ${pooled.chi2.toFixed(1)}`));
  }
});

test("γ steps: gains between neighbouring γ and the α that would erase them", () => {
  for (const gamma of [2, 5, 8]) close(expectedTokens(alphaForTokens(2.5, gamma), gamma), 2.5, 1e-9);
  const rows = [
    { gamma: 4, alpha: 0.7, tokens_per_main: 2.7 },
    { gamma: 2, alpha: 0.72, tokens_per_main: 2.2 },
    { gamma: 8, alpha: 0.6, tokens_per_main: 2.4 },
  ];
  const steps = gammaSteps(rows);
  assert.deepEqual(steps.map((s) => [s.from, s.to]), [[2, 4], [4, 8]]);
  close(steps[0].gain, 0.5);
  assert.ok(steps[1].gain < 0); // a drop: the γ = 8 row's α is below the break-even α
  assert.ok(steps[1].alphaTo < steps[1].alphaBreakEven);
  close(steps[0].gainSameAlpha, 0.72 ** 3 + 0.72 ** 4);
});

test("ledger sort: both directions, nulls last, stable ties", () => {
  const rows = [
    { method: "plain", gamma: 0, speedup: 1, speedup_theory: null, alpha: null, wall_s: { median: 3 } },
    { method: "draft", gamma: 2, speedup: 1.5, speedup_theory: 1.8, alpha: 0.7, wall_s: { median: 2 } },
    { method: "mtp", gamma: 1, speedup: 1.5, speedup_theory: 1.4, alpha: 0.9, wall_s: { median: 2 } },
    { method: "draft", gamma: 1, speedup: 0.9, speedup_theory: 1.2, alpha: 0.72, wall_s: { median: 3.3 } },
  ];
  const order = (key, dir) => sortLedger(rows, key, dir).map((r) => rows.indexOf(r));
  assert.deepEqual(order("speedup", "desc"), [1, 2, 0, 3]);
  assert.deepEqual(order("speedup", "asc"), [3, 0, 1, 2]);
  assert.deepEqual(order("speedup_theory", "asc"), [3, 2, 1, 0]);
  assert.deepEqual(order("speedup_theory", "desc"), [1, 2, 3, 0]);
  assert.deepEqual(order("alpha", "desc"), [2, 3, 1, 0]);
  assert.deepEqual(order("method", "asc"), [0, 3, 1, 2]);
  assert.deepEqual(order("wall", "asc"), [1, 2, 0, 3]);
  assert.equal(Object.keys(LEDGER_SORT).length, 8);
  assert.deepEqual(methodLabel(rows[1], true), { zh: "草稿 γ = 2", en: "draft γ = 2" });
});

test("ledger card steps run from Theorem 3.8 to the measured speedup", () => {
  const ledger = results("ledger");
  for (const row of ledger.rows.filter((r) => r.method !== "plain")) {
    const plain = ledger.rows.find((r) => r.mode === row.mode && r.method === "plain");
    const st = ledgerSteps(row, plain);
    close(st.theory, row.speedup_theory);
    close(st.measured, row.speedup);
    close(st.priced, plain.forward_time_s / row.forward_time_s);
    close(st.verifySeconds + st.draftSeconds, row.forward_time_s, 1e-9);
    // the parts are timed inside one run, so none is negative and they add up to its wall time
    assert.ok(st.verifySeconds > 0 && st.draftSeconds > 0 && st.otherSeconds >= 0);
    close(st.verifySeconds + st.draftSeconds + st.otherSeconds, row.wall_s_runs[row.parts_repeat], 1e-9);
  }
  // an idealized row: exactly E tokens per forward, γ drafts per round, verify at 1× → counted = theory
  const alpha = 0.75, gamma = 4, c = 0.2, n = 600;
  const main = n / expectedTokens(alpha, gamma);
  const costs = { seconds: { main: 1, draft: c, mtp_head: c, verify: { 4: 1 } } };
  const plain = { main_forwards: n, forward_time_s: n };
  const row = { method: "draft", gamma, alpha, c_used: c, main_forwards: main, draft_forwards: gamma * main,
    speedup_theory: speedupTheory(alpha, gamma, c), speedup: 1, overhead_s: 0, forward_time_s: main * (1 + gamma * c),
    parts_s: { main_forwards: main, draft_forwards: main * gamma * c, other: 0 } };
  const st = ledgerSteps(row, plain);
  close(st.counted, st.theory);
  close(st.priced, st.counted);
  close(st.draftsPerRound, gamma);
});

test("γ widget views: the range comes from the data, the table of the best γ follows α and c", () => {
  const svg = gammaChartSvg({ gammaMax: 12, curves: [{ cls: "curve", values: Array(12).fill(1) }], points: [], aria: "x" });
  assert.equal((svg.match(/text-anchor="middle">\d+<\/text>/g) || []).length, 12); // one tick per γ
  assert.equal(optimalRows(0.97, 0.01, 8)[3].gamma, "8+"); // the best lies past the longest chain
  const rows = optimalRows(0.62, 0.2, 8);
  assert.deepEqual(rows.map((x) => [x.alpha, x.slider]), [["0.50", false], ["0.70", false], ["0.85", false], ["0.620", true]]);
  assert.equal(optimalRows(0.746, 0.2, 8)[3].alpha, "0.746"); // the slider's α as its output prints it
  const none = optimalRows(0.3, 0.6, 8)[3];
  assert.equal(none.gamma, "–");
  assert.equal(none.note.en, "not worth it");
  assert.deepEqual([none.speedup, none.tokens], ["1.00×", "1.00"]); // not guessing: plain decoding's figures
  assert.notEqual(rows[0].speedup, "1.00×"); // α 0.5 at c 0.2 pays: its own best γ's figures
});

test("γ steps verdict names every drop, or else the smallest gain, from the rows given", () => {
  const row = (mode, gamma, alpha, tokens) => ({ mode, gamma, alpha, tokens_per_main: tokens, run_lengths: [1, ...Array(gamma).fill(1)] });
  const drop = stepsVerdict([row("kvcache", 2, 0.72, 2.2), row("kvcache", 4, 0.7, 2.7), row("kvcache", 8, 0.6, 2.4)]);
  assert.match(drop.en, /from γ = 4 to 8 lowered/);
  assert.match(drop.zh, /^KV cache 模式从 γ = 4 到 8/);
  const rise = stepsVerdict([row("recompute", 2, 0.72, 2.2), row("recompute", 4, 0.7, 2.7)]);
  assert.match(rise.en, /no row emits fewer/);
  assert.match(rise.zh, /整窗重算模式从 γ = 2 到 4/);
  assert.match(rise.en, /keeps on average only 2\.00 of its 4 drafts/); // counts [1,1,1,1,1]: mean 2
});

test("ledger card: the drafting sentence fits the row (γ ≥ 2, γ = 1, MTP head)", () => {
  const ledger = results("ledger");
  const said = new Set();
  for (const row of ledger.rows.filter((r) => r.method !== "plain")) {
    const plain = ledger.rows.find((r) => r.mode === row.mode && r.method === "plain");
    const costs = ledger.forward_costs[row.mode];
    const text = draftingText(row, costs, ledgerSteps(row, plain));
    const chain = /one after another, since each draft is the input of the next/.test(text.en);
    assert.equal(chain, row.method === "draft" && row.gamma >= 2, `${row.method} γ = ${row.gamma}`);
    assert.equal(/一个接一个跑/.test(text.zh), chain);
    if (row.method === "mtp") assert.match(text.en, /runs once after every main forward/);
    if (row.method === "draft" && row.gamma === 1) assert.match(text.en, /no chain of drafts to wait on/);
    assert.ok(text.en.includes(`c = ${row.c_used.toFixed(3)}`));
    said.add(text.en.split(";")[0].replace(/[\d.]+/g, "#"));
  }
  assert.ok(said.size >= 3);
});

test("ledger card: steps, verdict and notes read their numbers from the row", () => {
  const ledger = results("ledger");
  for (const row of ledger.rows.filter((r) => r.method !== "plain")) {
    const plain = ledger.rows.find((r) => r.mode === row.mode && r.method === "plain");
    const costs = ledger.forward_costs[row.mode];
    const st = ledgerSteps(row, plain);
    const steps = cardSteps(row, plain, costs, st);
    assert.deepEqual(steps.map((x) => x.value), [st.theory, st.counted, st.priced, st.measured]);
    assert.equal(steps[0].change, null);
    assert.ok(steps[2].why.en.includes(`${row.verify_over_main.toFixed(2)}×`));
    const verdict = ledgerVerdict(row, plain, st);
    assert.match(verdict.en, row.speedup < row.speedup_theory ? /short of the theorem/ : /not below the theorem/);
  }
  const draft = { method: "draft", c_used: 0.3 }, mtp = { method: "mtp", c_used: 0.3 };
  assert.match(sizeNote(draft, 0.07).en, /7\.0% of the main model's parameters/);
  assert.equal(sizeNote(mtp, 0.07), null);
  assert.equal(sizeNote({ method: "draft", c_used: 0.1 }, 0.07), null); // c below twice the size share
  const summary = ledgerSummary(ledger.rows, "kvcache");
  const spec = ledger.rows.filter((r) => r.mode === "kvcache" && r.method !== "plain");
  assert.equal(summary[1].value, `${Math.max(...spec.map((r) => r.speedup)).toFixed(2)}×`);
  // slower by the verdict rule: every paired repeat below 1×, whatever the median
  assert.equal(summary[2].value, `${spec.filter((r) => r.speedup_runs.max < 1).length} / ${spec.length}`);
  const fastest = spec.reduce((a, b) => (b.speedup > a.speedup ? b : a));
  // the fastest row's verdict is a badge after its key (dom.js verdictBadge), judged on its own paired repeats
  assert.equal(summary[1].runs, fastest.speedup_runs);
  assert.ok(!/paired repeat/.test(summary[1].key.en), summary[1].key.en);
  const straddling = { ...fastest, speedup: 1.3, speedup_runs: { min: 0.9, max: 1.6, median: 1.3, n: 7 } };
  const one = ledgerSummary([...ledger.rows.filter((r) => r.mode === "kvcache" && r.method === "plain"), straddling], "kvcache");
  assert.deepEqual(one[1].runs, straddling.speedup_runs);
  assert.equal(one[1].cls, "");
});

test("γ charts: curves over 1..γmax, measured points of the mode, the dashed curve only when priced", () => {
  const gamma = results("gamma_sweep");
  const rows = gamma.rows.filter((r) => r.mode === "kvcache");
  const state = { alpha: 0.7, c: 0.2, mode: "kvcache" };
  const specs = gammaCharts(rows, state, 8, Array(8).fill(1.2));
  assert.equal(specs.tokens.curves[0].values.length, 8);
  close(specs.tokens.curves[0].values[3], expectedTokens(0.7, 4));
  assert.deepEqual(specs.speed.points.map((p) => p.gamma), rows.map((r) => r.gamma));
  assert.equal(specs.speed.curves.length, 2);
  close(specs.speed.curves[1].values[0], expectedTokens(0.7, 1) / (0.2 + 1.2));
  assert.equal(gammaCharts(rows, state, 8, [1.2, undefined, 1, 1, 1, 1, 1, 1]).speed.curves.length, 1);
  assert.equal(gammaCharts(rows, state, 8, null).speed.curves.length, 1);  // the box under the charts is closed
  assert.equal(specs.speed.best.gamma, optimalGamma(0.7, 0.2, 8).gamma);
  // when no γ beats plain decoding the chart marks none, as the readout says
  assert.equal(gammaCharts(rows, { alpha: 0.05, c: 1, mode: "kvcache" }, 8, rows.map(() => 1)).speed.best, null);
  assert.match(specs.speed.aria.zh, /KV cache 模式的实测加速/);
  const html = measuredRowHTML(rows[0]);
  assert.ok(html.includes(`<td>${rows[0].alpha.toFixed(3)}</td>`) && html.startsWith(`<tr data-gamma="${rows[0].gamma}">`));
});

test("ledger table row: one cell per column, the method as the row's button, spread under the values", () => {
  const ledger = results("ledger");
  const i = ledger.rows.findIndex((r) => r.method === "draft");
  const r = ledger.rows[i];
  const html = ledgerRowHTML(r, i, true, "en");
  assert.equal((html.match(/<t[hd][ >]/g) || []).length, LEDGER_COLUMNS.length);
  assert.match(html, new RegExp(`^<tr data-row="${i}" class="sel`));
  assert.ok(html.includes(`<th scope="row"><button type="button" data-row="${i}" aria-pressed="true">draft γ = ${r.gamma}</button></th>`));
  assert.ok(!/aria-label/.test(html)); // the button is named by its visible text
  assert.ok(html.includes(`${r.speedup_runs.min.toFixed(2)}–${r.speedup_runs.max.toFixed(2)}`));
  const plainIndex = ledger.rows.findIndex((x) => x.method === "plain");
  assert.match(ledgerRowHTML(ledger.rows[plainIndex], plainIndex, false, "zh"), />普通解码</);
});

test("time bars: the median run's measured parts on one scale, no second bar for the plain row", () => {
  const plain = { method: "plain", main_forwards: 10, wall_s: { median: 2 }, forward_time_s: 1.5, parts_s: { main_forwards: 1.5, draft_forwards: 0, other: 0.5 } };
  const row = { method: "draft", gamma: 2, main_forwards: 4, draft_forwards: 8, wall_s: { median: 1 }, forward_time_s: 1, parts_s: { main_forwards: 0.6, draft_forwards: 0.4, other: 0 } };
  const model = timeBars(row, plain, ledgerSteps(row, plain));
  assert.equal(model.bars.length, 2);
  assert.deepEqual(model.bars[0].parts.map((p) => [p.cls, p.share]), [["t-verify", 0.75], ["t-other", 0.25]]);
  assert.deepEqual(model.bars[1].parts.map((p) => p.cls), ["t-verify", "t-draft"]); // an empty part is left out
  assert.deepEqual(model.legend.map((p) => p.cls), ["t-verify", "t-draft", "t-other"]);
  assert.equal(timeBars(plain, plain, ledgerSteps(plain, plain)).bars.length, 1);
});

test("ledger verdict says why the counts beat the theorem only with the reason that holds", () => {
  // fewer characters per forward than expected, but fewer drafts per round than γ too
  const row = { method: "draft", mode: "kvcache", gamma: 3, alpha: 0.74, c_used: 0.3, speedup: 1.5, speedup_theory: 1.4,
    speedup_runs: { min: 1.45, max: 1.55, n: 7 }, tokens_per_main: 2.687, tokens_per_main_expected: 2.69,
    main_forwards: 223.3, draft_forwards: 667.4, verify_over_main: 1.3, overhead_per_main_forward_s: 1e-4, forward_time_s: 1,
    parts_s: { main_forwards: 0.6, draft_forwards: 0.4, other: 0.1 } };
  const plain = { main_forwards: 600, forward_time_s: 1.2, overhead_per_main_forward_s: 1e-4 };
  const st = ledgerSteps(row, plain);
  assert.ok(st.counted > st.theory);
  const v = ledgerVerdict(row, plain, st);
  assert.doesNotMatch(v.en, /more than the 2\.690/);
  assert.match(v.en, /drafted 2\.99 characters on average, fewer than γ = 3/);
  const richer = { ...row, tokens_per_main: 2.75, main_forwards: 218 };
  assert.match(ledgerVerdict(richer, plain, ledgerSteps(richer, plain)).en, /emitted 2\.750 characters per main forward, more than/);
});

test("the ledger's sort from the address: a column, or the speedup; never a name every object inherits", () => {
  const rows = results("ledger").rows;
  assert.deepEqual(sortFromHash("alpha-asc"), { key: "alpha", dir: "asc" });
  assert.deepEqual(sortFromHash("speedup_theory"), { key: "speedup_theory", dir: "desc" });
  assert.deepEqual(sortFromHash(undefined), { key: "speedup", dir: "desc" });
  assert.deepEqual(sortFromHash("nonsense-up"), { key: "speedup", dir: "desc" });
  for (const name of ["__proto__", "constructor", "valueOf", "hasOwnProperty", "toString"]) {
    for (const text of [name, `${name}-asc`, `${name}-desc`]) {
      const sort = sortFromHash(text);
      assert.equal(sort.key, "speedup", text);
      assert.equal(sortLedger(rows, sort.key, sort.dir).length, rows.length, text);
    }
    assert.throws(() => sortLedger(rows, name, "asc"), /unknown ledger column/);
  }
});
