// Section ④: the MTP head against the small draft model at γ = 1, both from the ledger's rows,
// in either execution mode, with a sentence worded from the numbers.
import { h } from "./dom.js";
import { figHTML, fixed, grouped } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { ALPHA_LABEL, FAMILY_LABEL } from "./labels.js";
import { hashGet, hashSet, onHashChange } from "./state.js";

const MODES = ["kvcache", "recompute"];

export function ledgerPair(ledger, mode) {
  const rows = ledger.rows.filter((r) => r.mode === mode);
  return {
    mtp: rows.find((r) => r.method === "mtp"),
    draft: rows.find((r) => r.method === "draft" && r.gamma === 1),
    plain: rows.find((r) => r.method === "plain"),
  };
}

function overlap(a, b) {
  return a.min <= b.max && b.min <= a.max;
}

// One comparison, worded from the numbers (which drafter wins is never assumed).
export function compareSentence(mtp, draft) {
  const higherAlpha = mtp.alpha > draft.alpha;
  const dearer = mtp.c_used > draft.c_used;
  const a = { zh: higherAlpha ? "更高" : "更低", en: higherAlpha ? "higher" : "lower" };
  const c = { zh: dearer ? "更贵" : "更便宜", en: dearer ? "more" : "less" };
  const tradeoff = higherAlpha === dearer;
  const sp = `${fixed(mtp.speedup, 2)}× vs ${fixed(draft.speedup, 2)}×`;
  const faster = mtp.speedup > draft.speedup;
  const wall = overlap(mtp.speedup_runs, draft.speedup_runs)
    ? { zh: `墙钟加速 ${sp}，两者各 ${mtp.repeats} 次运行的范围相互重叠，分不出谁更快。`,
        en: `Wall-clock speedup ${sp}; the ranges over ${mtp.repeats} runs each overlap, so neither is measurably faster.` }
    : { zh: `墙钟加速 ${sp}，各 ${mtp.repeats} 次运行的范围不重叠：${faster ? FAMILY_LABEL.mtp.zh : "小草稿"}确实更快。`,
        en: `Wall-clock speedup ${sp}; the ranges over ${mtp.repeats} runs do not overlap, so the ${faster ? FAMILY_LABEL.mtp.en : "small draft"} is really faster.` };
  return {
    zh: `${FAMILY_LABEL.mtp.zh}的接受率${a.zh}（α ${fixed(mtp.alpha, 3)} vs ${fixed(draft.alpha, 3)}），单次 forward 却${c.zh}（c ${fixed(mtp.c_used, 3)} vs ${fixed(draft.c_used, 3)}）${tradeoff ? "，一得一失" : ""}。${wall.zh}`,
    en: `The ${FAMILY_LABEL.mtp.en}'s acceptance is ${a.en} (α ${fixed(mtp.alpha, 3)} vs ${fixed(draft.alpha, 3)}) and one of its forwards costs ${c.en} (c ${fixed(mtp.c_used, 3)} vs ${fixed(draft.c_used, 3)})${tradeoff ? ": a gain on one side, a cost on the other" : ""}. ${wall.en}`,
  };
}

// The comparison table: columns MTP head, small draft, plain; rows [{label, cells}], where a
// cell is null (not applicable), a string, or {main, unit, note, fig} (note: a range or a theory
// value; fig: [quantity, condition] when main is a figure the page checks, format.js figHTML).
// Labels and notes are {zh, en} pairs.
export function compareRows(pair, ledger, mtpParams, draftParams) {
  const cols = [pair.mtp, pair.draft, pair.plain];
  const theory = (x) => ({ zh: `理论 ${x}`, en: `theory ${x}` });
  // fs: one formatter per column, or a single one for all; null: the cell does not apply
  const line = (label, fs) => ({ label, cells: cols.map((r, j) => {
    const f = fs.length > 1 ? fs[j] : fs[0];
    return r && f ? f(r) : null;
  }) });
  return [
    line({ zh: "草稿员的参数", en: "drafter parameters" }, [() => grouped(mtpParams.mtp_head_total), () => grouped(draftParams), null]),
    line({ zh: `草稿接受率 ${ALPHA_LABEL.dec.zh}`, en: `draft acceptance ${ALPHA_LABEL.dec.en}` }, [(r) => ({ main: fixed(r.alpha, 3), fig: ["alpha-dec", r.fig] }), (r) => ({ main: fixed(r.alpha, 3), fig: ["alpha-dec", r.fig] }), null]),
    line({ zh: "每次主模型 forward 吐出的字数（理论 1 + α）", en: "characters per main forward (theory: 1 + α)" },
      [(r) => ({ main: fixed(r.tokens_per_main, 3), note: r.tokens_per_main_expected ? theory(fixed(r.tokens_per_main_expected, 3)) : null })]),
    line({ zh: `生成 ${ledger.n_chars} 字的主模型 forward 次数`, en: `main forwards for ${ledger.n_chars} characters` }, [(r) => fixed(r.main_forwards, 1)]),
    line({ zh: "c：草稿员一次 forward 的耗时 ÷ 主模型一次", en: "c: one drafter forward ÷ one main forward" }, [(r) => fixed(r.c_used, 3), (r) => fixed(r.c_used, 3), null]),
    line({ zh: `墙钟秒数：中位数，下面是 ${pair.mtp.repeats} 次中的最小–最大`, en: `wall-clock seconds: median, with min–max of ${pair.mtp.repeats} runs below` },
      [(r) => ({ main: fixed(r.wall_s.median, 3), note: `${fixed(r.wall_s.min, 3)}–${fixed(r.wall_s.max, 3)}` })]),
    line({ zh: `相对${FAMILY_LABEL.plain.zh}的加速（定理 3.8 的预测）`, en: `speedup over ${FAMILY_LABEL.plain.en} (Theorem 3.8's prediction)` },
      [(r) => ({ main: fixed(r.speedup, 2), unit: "×", fig: ["speedup", r.fig], note: r.speedup_theory ? theory(`${fixed(r.speedup_theory, 2)}×`) : null })]),
  ];
}

export function initMtpCompare(mtp, ledger, models) {
  const el = (id) => document.getElementById(id);
  const draftParams = models.runs[`draft_s${mtp.seeds[0]}`].params;
  const modeFromHash = (value) => (MODES.includes(value) ? value : "kvcache");
  const state = { mode: modeFromHash(hashGet("mtpmode")) };
  const text = (x) => (x === null || typeof x === "string" ? x : t(x));

  function render() {
    const pair = ledgerPair(ledger, state.mode);
    for (const mode of MODES) el(`mtp-mode-${mode}`).setAttribute("aria-pressed", String(state.mode === mode));
    const figure = (c) => {
      if (!c.fig) return c.main;
      const holder = h("span");
      holder.innerHTML = figHTML(c.main, ...c.fig); // the one tag format.js gives every checked figure
      return holder.firstChild;
    };
    const cell = (c) => h("td", {}, c === null ? "—" : typeof c === "string" ? c
      : [figure(c), c.unit ?? null, c.note ? h("span", { class: "mtp-note" }, text(c.note)) : null]);
    el("mtp-vs-table").replaceChildren(h("table", { class: "mtp-vs" },
      h("thead", {}, h("tr", {}, h("td", {}),
        h("th", { scope: "col" }, t(FAMILY_LABEL.mtp)),
        h("th", { scope: "col" }, t({ zh: "小草稿，γ = 1", en: "small draft, γ = 1" })),
        h("th", { scope: "col" }, t(FAMILY_LABEL.plain)))),
      h("tbody", {}, compareRows(pair, ledger, mtp.params, draftParams).map((row) =>
        h("tr", {}, h("th", { scope: "row" }, t(row.label)), row.cells.map(cell))))));
    el("mtp-vs-summary").textContent = t(compareSentence(pair.mtp, pair.draft));
  }

  for (const mode of MODES) {
    el(`mtp-mode-${mode}`).addEventListener("click", () => { state.mode = mode; hashSet("mtpmode", mode); render(); });
  }
  onHashChange((hash) => { state.mode = modeFromHash(hash.mtpmode); render(); });
  onLangChange(render);
  render();
}
