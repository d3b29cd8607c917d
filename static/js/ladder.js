// Section ⑥, the engine ladder (ladder.json): the same decoders on every engine measured, from the
// most per-call overhead to the least. One group per rung: plain decoding's characters per second
// and the fastest speculative row's on one shared scale, that row's configuration and its speedup
// over plain decoding on the same engine (min–max over the paired repeats), and r, the price of a
// verify at the summary's verify_at positions on that engine. T = 1 / T = 0 is kept in the
// address (#ladder=0); the sentences under the chart (the template's, from ladder.summary) follow it.
import { h } from "./dom.js";
import { configLabel } from "./family_ledger.js";
import { fixed, grouped } from "./format.js";
import { lang, onLangChange, t } from "./i18n.js";
import { ENGINE_LABEL, FAMILY_LABEL } from "./labels.js";
import { hashGet, hashSet, onHashChange, ownEntry } from "./state.js";

export const HASH_KEY = "ladder";

// The key of a temperature in ladder.json's rungs and summary, as ladder.py writes it: 1 → "T1".
export function tempKey(temperature) {
  return `T${temperature}`;
}

// The temperature an address asks for (#ladder=0 or 1) where ladder.json measured it; else `current`.
export function tempFromHash(text, temperatures, current) {
  if (text === undefined || text === null || text.trim() === "") return current;
  const n = Number(text);
  return temperatures.includes(n) ? n : current;
}

const named = (table, key) => ownEntry(table, key) ?? { zh: key, en: key };

export function engineLabel(engine) {
  return named(ENGINE_LABEL, engine);
}

// The fastest speculative row's configuration in two parts, family and shape: "n-gram 表", "链 γ = 3".
export function bestParts(best) {
  return { family: named(FAMILY_LABEL, best.family), config: configLabel(best) };
}

// ... and in one: "n-gram 表 · 链 γ = 3" / "n-gram table · chain γ = 3".
export function bestLabel(best) {
  const { family, config } = bestParts(best);
  return { zh: `${family.zh} · ${config.zh}`, en: `${family.en} · ${config.en}` };
}

const SUBSCRIPT = "₀₁₂₃₄₅₆₇₈₉";
const sub = (k) => Array.from(String(k), (d) => SUBSCRIPT[Number(d)]).join("");

// "r₅ = 1.82": what a verify over k new positions costs in one-position forwards, on one rung.
export function verifyText(k, r) {
  const text = `r${sub(k)} = ${fixed(r, 2)}`;
  return { zh: text, en: text };
}

// One group per rung, in the file's order, and the scale all their bars share (the largest chars/s).
export function ladderGroups(rungs, verifyAt) {
  const top = Math.max(...rungs.flatMap((r) => [r.plain.chars_per_s, r.best.chars_per_s]));
  const groups = rungs.map((r) => ({
    engine: r.engine,
    name: engineLabel(r.engine),
    plain: { value: r.plain.chars_per_s, width: r.plain.chars_per_s / top },
    best: { value: r.best.chars_per_s, width: r.best.chars_per_s / top, label: bestLabel(r.best), ...bestParts(r.best) },
    speedup: r.best.speedup, lo: r.best.speedup_runs.min, hi: r.best.speedup_runs.max,
    verify: r.verify_price[String(verifyAt)],
  }));
  return { top, groups };
}

// The line under a rung, its fastest row against plain decoding on the same engine, in two parts
// (the bracket is kept on one line): "speedup over plain decoding on the same engine: 1.23×" and
// "(min–max 1.17–1.31)".
export function gainParts(group) {
  const [v, lo, hi] = [group.speedup, group.lo, group.hi].map((x) => fixed(x, 2));
  return {
    lead: { zh: `对同一引擎上${FAMILY_LABEL.plain.zh}的加速：${v}×`, en: `speedup over ${FAMILY_LABEL.plain.en} on the same engine: ${v}×` },
    range: { zh: `（最小–最大 ${lo}–${hi}）`, en: `(min–max ${lo}–${hi})` },
  };
}

export function gainText(group) {
  const { lead, range } = gainParts(group);
  return { zh: lead.zh + range.zh, en: `${lead.en} ${range.en}` };
}

const promptShown = (prompt) => prompt.replace(/\n/g, "\\n");

// What the bars measure, above them: the unit, the temperature, the text and the machine.
export function chartTitle(ladder, temperature) {
  const { n_chars: n, threads, meta } = ladder, prompt = promptShown(ladder.prompt);
  return {
    zh: `每秒字数 · T = ${temperature} · 从 ${prompt} 起写 ${n} 个字 · 这台 CPU（${meta.device}，${threads} 个线程）`,
    en: `chars/s · T = ${temperature} · ${n} characters from ${prompt} · this CPU (${meta.device}, ${threads} thread${threads === 1 ? "" : "s"})`,
  };
}

// What r and the brackets are, under the bars.
export function chartNote(ladder, verifyAt) {
  const r = `r${sub(verifyAt)}`;
  return {
    zh: `${r}：同一引擎上 ${verifyAt} 个新位置的 forward ÷ 1 个位置的 forward，两者紧挨着计时。括号里是 ${ladder.repeats} 次成对测量（同一个采样种子的${FAMILY_LABEL.plain.zh} ÷ 这一行）的最小值和最大值。`,
    en: `${r}: a forward over ${verifyAt} new positions ÷ one over 1 position on that engine, timed back to back. In brackets: the smallest and largest of ${ladder.repeats} paired repeats (${FAMILY_LABEL.plain.en} ÷ the row, same sampling seed).`,
  };
}

const legend = () => [
  { cls: "t-plain", label: FAMILY_LABEL.plain },
  { cls: "t-spec", label: { zh: "这一级最快的投机解码", en: "the fastest speculative row on that engine" } },
];

function bar(name, b, cls) {
  return h("div", { class: "tbar" },
    h("div", { class: "tname" }, name),
    h("div", { class: "ttrack" }, h("span", { class: cls, style: { width: `${100 * b.width}%` } })),
    h("div", { class: "tval" }, grouped(b.value)));
}

function groupNodes(group, verifyAt) {
  const gain = gainParts(group);
  return h("div", { class: "lrung", role: "group", "aria-label": t(group.name), "data-engine": group.engine },
    h("div", { class: "lrung-head" }, h("strong", {}, t(group.name)),
      h("span", { class: "lrung-r" }, t(verifyText(verifyAt, group.verify)))),
    bar(t(FAMILY_LABEL.plain), group.plain, "t-plain"),
    bar([t(group.best.family), " · ", h("span", { class: "nowrap" }, t(group.best.config))], group.best, "t-spec"),
    h("div", { class: "lrung-gain" }, t(gain.lead), lang() === "zh" ? "" : " ", h("span", { class: "nowrap" }, t(gain.range))));
}

export function ladderNodes(ladder, temperature) {
  const key = tempKey(temperature);
  const verifyAt = ladder.summary[key].verify_at;
  const { groups } = ladderGroups(ladder.rungs[key], verifyAt);
  return [
    h("p", { class: "ladder-axis" }, t(chartTitle(ladder, temperature))),
    h("div", { class: "legend" }, legend().map((item) => h("span", {}, h("span", { class: `swatch ${item.cls}` }), t(item.label)))),
    h("div", { class: "lrungs" }, groups.map((group) => groupNodes(group, verifyAt))),
    h("p", { class: "caption" }, t(chartNote(ladder, verifyAt))),
  ];
}

export function initLadder(ladder) {
  const chart = document.getElementById("ladder-chart");
  const buttons = [...document.querySelectorAll("#ladder-widget [data-ltemp]")];
  const says = [...document.querySelectorAll("#ladder-widget [data-ladder-says]")];
  let temperature = tempFromHash(hashGet(HASH_KEY), ladder.temperatures, ladder.temperatures[0]);

  function draw() {
    for (const b of buttons) b.setAttribute("aria-pressed", String(Number(b.dataset.ltemp) === temperature));
    for (const p of says) p.hidden = p.dataset.ladderSays !== tempKey(temperature);
    chart.replaceChildren(...ladderNodes(ladder, temperature));
  }

  for (const b of buttons) {
    b.addEventListener("click", () => {
      temperature = Number(b.dataset.ltemp);
      hashSet(HASH_KEY, temperature);
      draw();
    });
  }
  // an address edited by hand (or a followed #link) applies at once; hashSet fires no hashchange
  onHashChange((hash) => {
    const next = tempFromHash(ownEntry(hash, HASH_KEY), ladder.temperatures, temperature);
    if (next !== temperature) {
      temperature = next;
      draw();
    }
  });
  onLangChange(draw);
  draw();
}
