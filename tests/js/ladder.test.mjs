// Section ⑥'s engine ladder (static/js/ladder.js): the groups drawn from a rung list (hand-made,
// with 3 and with 4 rungs, and the committed ladder.json), their labels in both languages, the
// T = 1 / T = 0 toggle and the address it lives in.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import "./registry.mjs";
import {
  bestLabel, chartNote, chartTitle, engineLabel, gainText, HASH_KEY, initLadder, ladderGroups, ladderNodes,
  tempFromHash, tempKey, verifyText,
} from "../../static/js/ladder.js";
import { editHash, FakeElement, installDom, textOf } from "./fake_dom.mjs";

const ladder = JSON.parse(readFileSync(new URL("../../experiments/results/ladder.json", import.meta.url)));

// One rung as ladder.py writes it, with the fields the page reads.
function rung(engine, plain, best, { family = "ngram", size = 3, speedup = best / plain, lo = 0.9, hi = 1.1, r5 = 1.5 } = {}) {
  return {
    engine, verify_price: { 1: 1, 5: r5 },
    plain: { chars_per_s: plain },
    best: { family, shape: "chain", size, chars_per_s: best, speedup, speedup_runs: { min: speedup * lo, max: speedup * hi } },
  };
}

const THREE = [rung("eager", 2000, 4000, { size: 5, r5: 1.4 }), rung("compiled", 5000, 8000, { r5: 1.6 }),
  rung("native", 25000, 30000, { family: "match", size: 4, r5: 1.8 })];
const FOUR = [THREE[0], THREE[1], rung("aot", 12000, 17000, { r5: 1.7 }), THREE[2]];

test("groups: one per rung in the file's order, every bar on the scale of the fastest", () => {
  for (const rungs of [THREE, FOUR]) {
    const { top, groups } = ladderGroups(rungs, 5);
    assert.equal(top, 30000);
    assert.deepEqual(groups.map((g) => g.engine), rungs.map((r) => r.engine));
    for (const [g, r] of groups.map((g, i) => [g, rungs[i]])) {
      assert.equal(g.plain.value, r.plain.chars_per_s);
      assert.equal(g.best.value, r.best.chars_per_s);
      assert.equal(g.plain.width, r.plain.chars_per_s / 30000);
      assert.equal(g.best.width, r.best.chars_per_s / 30000);
      assert.equal(g.verify, r.verify_price[5]);
      assert.deepEqual([g.speedup, g.lo, g.hi], [r.best.speedup, r.best.speedup_runs.min, r.best.speedup_runs.max]);
    }
    assert.equal(Math.max(...groups.flatMap((g) => [g.plain.width, g.best.width])), 1);
  }
  // the fastest bar may be a plain one: it still sets the scale
  const { groups } = ladderGroups([rung("eager", 100, 50), rung("native", 400, 200)], 5);
  assert.deepEqual(groups.map((g) => [g.plain.width, g.best.width]), [[0.25, 0.125], [1, 0.5]]);
});

test("labels: engines, the fastest row's configuration, r at k positions, the speedup line", () => {
  assert.deepEqual(["eager", "compiled", "aot", "native"].map((e) => engineLabel(e).en),
    ["eager engine", "compiled engine", "AOT engine", "native C++ engine"]);
  assert.deepEqual(engineLabel("native"), { zh: "原生 C++ 引擎", en: "native C++ engine" });
  assert.deepEqual(engineLabel("tpu"), { zh: "tpu", en: "tpu" });  // a rung the page has no name for yet
  assert.deepEqual(engineLabel("constructor"), { zh: "constructor", en: "constructor" });
  assert.deepEqual(bestLabel(THREE[1].best), { zh: "n-gram 表 · 链 γ = 3", en: "n-gram table · chain γ = 3" });
  assert.deepEqual(bestLabel(THREE[2].best), { zh: "最长匹配 + n-gram · 链 γ = 4", en: "longest match + n-gram · chain γ = 4" });
  assert.deepEqual(verifyText(5, 1.8183), { zh: "r₅ = 1.82", en: "r₅ = 1.82" });
  assert.equal(verifyText(12, 3).en, "r₁₂ = 3.00");
  const gain = gainText({ speedup: 1.2256, lo: 1.1686, hi: 1.3051 });
  assert.equal(gain.en, "speedup over plain decoding on the same engine: 1.23× (min–max 1.17–1.31)");
  assert.equal(gain.zh, "对同一引擎上普通解码的加速：1.23×（最小–最大 1.17–1.31）");
});

test("the chart says what it measures: chars/s, T, the text, this CPU", () => {
  const setup = { n_chars: 600, prompt: "ROMEO:\n", threads: 1, repeats: 9, meta: { device: "AMD EPYC" } };
  assert.deepEqual(chartTitle(setup, 1), {
    zh: "每秒字数 · T = 1 · 从 ROMEO:\\n 起写 600 个字 · 这台 CPU（AMD EPYC，1 个线程）",
    en: "chars/s · T = 1 · 600 characters from ROMEO:\\n · this CPU (AMD EPYC, 1 thread)",
  });
  assert.match(chartTitle({ ...setup, threads: 2 }, 0).en, /T = 0 .*2 threads\)$/);
  const note = chartNote(setup, 5);
  assert.match(note.en, /^r₅: a forward over 5 new positions ÷ one over 1 position/);
  assert.match(note.en, /of 9 paired repeats/);
  assert.match(note.zh, /^r₅：同一引擎上 5 个新位置的 forward/);
});

test("temperature: its key in the file, and what an address may ask for", () => {
  assert.equal(tempKey(1), "T1");
  assert.equal(tempKey(0), "T0");
  const temps = [1, 0];
  assert.equal(tempFromHash("0", temps, 1), 0);
  assert.equal(tempFromHash("1", temps, 0), 1);
  for (const bad of [undefined, null, "", " ", "2", "0.5x", "__proto__", "constructor"]) assert.equal(tempFromHash(bad, temps, 1), 1);
});

test("the committed ladder.json: a group per engine at both temperatures, r as the summary quotes it, no NaN", () => {
  const HAN = "\\u3400-\\u9fff";
  const typeset = new RegExp(`[${HAN}][,:;?()]|[,:;?()][${HAN}]|[${HAN}] +[${HAN}]|[${HAN}][A-Za-z0-9α-ω]|[A-Za-z0-9α-ω][${HAN}]`, "u");
  for (const t of ladder.temperatures) {
    const key = tempKey(t), summary = ladder.summary[key];
    assert.ok(ladder.rungs[key], key);
    const { groups } = ladderGroups(ladder.rungs[key], summary.verify_at);
    assert.deepEqual(groups.map((g) => g.engine), ladder.engines);
    for (const g of groups) {
      assert.equal(g.verify, summary.verify_prices[g.engine]);
      assert.ok(g.lo <= g.speedup + 1e-12 && g.speedup <= g.hi + 1e-12, JSON.stringify(g));
      for (const pair of [g.name, g.best.label, gainText(g), verifyText(summary.verify_at, g.verify)]) {
        for (const lang of ["zh", "en"]) assert.ok(!/NaN|undefined|null/.test(pair[lang]), pair[lang]);
        assert.ok(!typeset.test(pair.zh), pair.zh);
      }
    }
    for (const pair of [chartTitle(ladder, t), chartNote(ladder, summary.verify_at)]) {
      assert.ok(!/NaN|undefined|null/.test(pair.en + pair.zh), pair.en);
      assert.ok(!typeset.test(pair.zh.replace("ROMEO:\\n", "ROMEO")), pair.zh);
    }
  }
});

test("the widget draws one group per rung, and the toggle and the address switch its temperature", () => {
  const buttons = ladder.temperatures.map((t) => new FakeElement("button", { dataset: { ltemp: String(t) } }));
  const says = ladder.temperatures.map((t) => new FakeElement("div", { dataset: { ladderSays: tempKey(t) } }));
  const chart = new FakeElement("div");
  const remove = installDom({ byId: { "ladder-chart": chart },
    bySelector: { "#ladder-widget [data-ltemp]": buttons, "#ladder-widget [data-ladder-says]": says } }, "#lang=zh&ladder=0");
  const pressed = () => buttons.filter((b) => b.getAttribute("aria-pressed") === "true").map((b) => b.dataset.ltemp);
  const shown = () => says.filter((d) => !d.hidden).map((d) => d.dataset.ladderSays);
  const rungsDrawn = () => chart.childNodes[2].childNodes.map((g) => g.getAttribute("data-engine"));
  try {
    initLadder(ladder);  // the address asks for T = 0
    assert.deepEqual([pressed(), shown()], [["0"], ["T0"]]);
    assert.deepEqual(rungsDrawn(), ladder.engines);
    assert.match(textOf(chart), /^每秒字数 · T = 0 · /);
    buttons[0].dispatchEvent(new Event("click"));  // T = 1, written to the address
    assert.match(location.hash, new RegExp(`${HASH_KEY}=1`));
    assert.deepEqual([pressed(), shown()], [["1"], ["T1"]]);
    assert.match(textOf(chart), /^每秒字数 · T = 1 · /);
    editHash("#lang=zh&ladder=0");
    assert.deepEqual(shown(), ["T0"]);
    editHash("#s-ledger");  // a link to a section leaves the temperature as it is
    assert.deepEqual(shown(), ["T0"]);
    const text = textOf(chart);
    assert.ok(!/NaN|undefined/.test(text), text);
    assert.equal(ladderNodes(ladder, 1).length, 4);
  } finally {
    remove();
  }
});
