// Section ⑥: the ledger. Every method in one table (sortable, by mouse or keyboard), a mode switch,
// and a card that walks from the row's Theorem-3.8 prediction to its measured speedup, one
// measured cost at a time. Its arithmetic is ledger_math.js, its sentences ledger_text.js.
import { foldBox, h, readoutBox, verdictBadge } from "./dom.js";
import { figHTML, fixed } from "./format.js";
import { ALPHA_LABEL, FAMILY_LABEL, labelled } from "./labels.js";
import { lang, onLangChange, t } from "./i18n.js";
import { hashGet, hashSet, onHashChange } from "./state.js";
import { laneOf, ledgerSteps, sortFromHash, sortLedger, verdictClass, verdictOf } from "./ledger_math.js";
import { baselineText, cardSteps, draftingText, LANE_LABEL, ledgerSummary, ledgerVerdict, methodLabel, sizeNote,
  TIME_BARS_HOW } from "./ledger_text.js";

// The table's columns, left to right, and each row's cells as HTML (the method cell is the row's
// button; the small figures under a value are the spread over the repeats).
export const LEDGER_COLUMNS = [
  { key: "method", label: { zh: "方法", en: "method" } },
  { key: "speedup", label: { zh: "实测加速", en: "speedup" } },
  { key: "speedup_theory", label: { zh: "定理 3.8", en: "Theorem 3.8" } },
  { key: "tokens_per_main", label: { zh: "每次主模型 forward 的字数", en: "chars / main forward" } },
  { key: "alpha", label: ALPHA_LABEL.dec },
  { key: "main_forwards", label: { zh: "主模型 forward", en: "main forwards" } },
  { key: "draft_forwards", label: { zh: "草稿 forward", en: "draft forwards" } },
  { key: "wall", label: { zh: "墙钟（秒）", en: "wall (s)" } },
];

export function ledgerRowHTML(r, i, selected, lang) {
  const small = (text) => `<span class="sub">${text}</span>`;
  const cell = {
    method: () => `<button type="button" data-row="${i}" aria-pressed="${selected}">${methodLabel(r, true)[lang]}</button>`,
    main_forwards: () => fixed(r.main_forwards, 1),
    draft_forwards: () => fixed(r.draft_forwards, 1),
    tokens_per_main: () => fixed(r.tokens_per_main, 3),
    alpha: () => (r.alpha === null ? "–" : figHTML(fixed(r.alpha, 3), "alpha-dec", r.fig)),
    wall: () => `${fixed(r.wall_s.median, 3)}${small(`${fixed(r.wall_s.min, 3)}–${fixed(r.wall_s.max, 3)}`)}`,
    speedup: () => `${figHTML(fixed(r.speedup, 2), "speedup", r.fig)}×${r.method === "plain" ? "" : small(`${fixed(r.speedup_runs.min, 2)}–${fixed(r.speedup_runs.max, 2)}`)}`,
    speedup_theory: () => (r.speedup_theory == null ? "–" : `${fixed(r.speedup_theory, 2)}×`),
  };
  return `<tr data-row="${i}" class="${selected ? "sel" : ""} v-${verdictOf(r)}">` +
    LEDGER_COLUMNS.map((c, j) => (j === 0 ? `<th scope="row">${cell[c.key]()}</th>` : `<td>${cell[c.key]()}</td>`)).join("") + "</tr>";
}

// Two stacked bars on one time scale: where the plain run's and this row's seconds go.
// Returns {bars: [{name, wall, parts: [{cls, s, share, label}]}], legend}; the row's bar is left
// out when the row is the plain one. Each bar is the run with the median wall time, taken apart.
export function timeBars(row, plain, steps) {
  const parts = (r, verify, draft) => [
    { cls: "t-verify", s: verify, label: r.method === "plain"
      ? { zh: "主模型 forward", en: "main forwards" } : { zh: "验收 forward", en: "verify forwards" } },
    { cls: "t-draft", s: draft, label: { zh: "草稿 forward", en: "draft forwards" } },
    { cls: "t-other", s: r.parts_s.other, label: { zh: "其余开销", en: "everything else" } },
  ].filter((p) => p.s > 0);
  const scale = Math.max(plain.wall_s.median, row.wall_s.median);
  const bar = (name, r, list) => ({ name, wall: r.wall_s.median,
    parts: list.map((p) => ({ ...p, share: p.s / scale, title: labelled(p.label, `${fixed(p.s, 3)} s`) })) });
  const plainParts = parts(plain, plain.parts_s.main_forwards, 0);
  const rowParts = parts(row, steps.verifySeconds, steps.draftSeconds);
  const legend = [...rowParts, ...plainParts].filter((p, i, all) => all.findIndex((q) => q.cls === p.cls) === i);
  const bars = [bar(FAMILY_LABEL.plain, plain, plainParts)];
  if (row !== plain) bars.push(bar(methodLabel(row), row, rowParts));
  return { bars, legend };
}

function timeBarsNode({ bars, legend }) {
  return h("div", { class: "tbars" },
    bars.map((b) => h("div", { class: "tbar" },
      h("div", { class: "tname" }, t(b.name)),
      h("div", { class: "ttrack" }, b.parts.map((p) => h("span", {
        class: p.cls, style: { width: `${100 * p.share}%` }, title: t(p.title),
      }))),
      h("div", { class: "tval" }, `${fixed(b.wall, 3)} s`))),
    h("div", { class: "legend" }, legend.map((p) => h("span", {}, h("span", { class: `swatch ${p.cls}` }), t(p.label)))),
    h("p", { class: "caption" }, t(TIME_BARS_HOW)));
}

// The card under the table for one row, as nodes; fold.open: whether its steps are unfolded.
function cardNodes(row, plain, costs, paramShare, fold) {
  const st = ledgerSteps(row, plain);
  const title = h("h3", {}, `${t(methodLabel(row))} · ${t(LANE_LABEL[laneOf(row)])}`);
  if (row.method === "plain") return [title, h("p", {}, t(baselineText(row, costs))), timeBarsNode(timeBars(row, plain, st))];
  const spread = row.speedup_runs;
  const note = sizeNote(row, paramShare, costs.c); // one draft forward on its own, in either engine
  const drafting = draftingText(row, costs, st);
  return [title,
    h("div", { class: "readouts" },
      readoutBox(`${fixed(row.speedup, 2)}×`, t({ zh: `实测加速（${spread.n} 次重复逐次配对：${fixed(spread.min, 2)}–${fixed(spread.max, 2)}×）`, en: `measured speedup (${spread.n} paired repeats: ${fixed(spread.min, 2)}–${fixed(spread.max, 2)}×)` }), verdictClass(row)),
      readoutBox(`${fixed(row.speedup_theory, 2)}×`, t({ zh: `定理 3.8：α = ${fixed(row.alpha, 3)}，γ = ${row.gamma}，c = ${fixed(row.c_used, 3)}`, en: `Theorem 3.8 with α = ${fixed(row.alpha, 3)}, γ = ${row.gamma}, c = ${fixed(row.c_used, 3)}` }))),
    foldBox(fold, t({ zh: "从定理走到钟表：一步一步", en: "From the theorem to the clock, step by step" }),
      h("table", { class: "steps" }, h("tbody", {}, cardSteps(row, plain, costs, st).map((step) => h("tr", {},
        h("td", {}, h("strong", {}, t(step.label)), h("div", { class: "why" }, t(step.why))),
        h("td", {}, step.change ? h("span", { class: "sub" }, step.change) : null, `${fixed(step.value, 2)}×`))))),
      h("p", { class: "why" }, note ? t({ zh: note.zh + drafting.zh, en: `${note.en} ${drafting.en}` }) : t(drafting))),
    timeBarsNode(timeBars(row, plain, st)),
    h("p", { class: "verdict" }, t(ledgerVerdict(row, plain, st)))];
}

export function initLedger(ledger, models) {
  const el = (id) => document.getElementById(id);
  const rows = [...ledger.rows, ...(ledger.compiled?.rows ?? [])];
  const modes = Object.keys(LANE_LABEL).filter((m) => rows.some((r) => laneOf(r) === m));
  const costsOf = (lane) => (lane === "compiled" ? ledger.compiled.forward_costs : ledger.forward_costs[lane]);
  const plainOf = (mode) => rows.find((r) => laneOf(r) === mode && r.method === "plain");
  const fastestIn = (mode) => rows.filter((r) => laneOf(r) === mode && r.method !== "plain")
    .reduce((a, b) => (b.speedup > a.speedup ? b : a));
  const seed = models.meta.seeds[0];
  const paramShare = models.runs[`draft_s${seed}`].params / models.runs[`main_s${seed}`].params;
  const state = {};
  const stepsFold = { open: false }; // the card's steps stay as the reader left them from row to row

  function fromHash(hash) {
    const mode = modes.includes(hash.lmode) ? hash.lmode : modes.includes("kvcache") ? "kvcache" : modes[0];
    const row = Number.parseInt(hash.lrow, 10);
    Object.assign(state, {
      mode,
      ...sortFromHash(hash.lsort),
      row: rows[row] && laneOf(rows[row]) === mode ? row : rows.indexOf(fastestIn(mode)),
    });
  }

  function renderHead() {
    el("ledger-table").querySelector("thead").innerHTML = `<tr>${LEDGER_COLUMNS.map((c) =>
      `<th scope="col" data-key="${c.key}" aria-sort="none"><button type="button" data-key="${c.key}">${t(c.label)}<span class="arrow" aria-hidden="true"></span></button></th>`).join("")}</tr>`;
  }

  function renderBody() {
    for (const th of el("ledger-table").querySelectorAll("th[data-key]")) {
      const on = th.dataset.key === state.key;
      th.setAttribute("aria-sort", on ? (state.dir === "asc" ? "ascending" : "descending") : "none");
      th.querySelector(".arrow").textContent = on ? (state.dir === "asc" ? " ▲" : " ▼") : "";
    }
    const shown = sortLedger(rows.filter((r) => laneOf(r) === state.mode), state.key, state.dir);
    el("ledger-table").querySelector("tbody").innerHTML = shown.map((r) => {
      const i = rows.indexOf(r);
      return ledgerRowHTML(r, i, i === state.row, lang());
    }).join("");
  }

  function render() {
    for (const m of modes) el(`ledger-mode-${m}`).setAttribute("aria-pressed", String(m === state.mode));
    renderBody();
    el("ledger-readouts").replaceChildren(...ledgerSummary(rows, state.mode).map((r) => readoutBox(r.value, r.runs ? [t(r.key), verdictBadge(r.runs)] : t(r.key), r.cls)));
    const row = rows[state.row];
    el("ledger-card").replaceChildren(...cardNodes(row, plainOf(laneOf(row)), costsOf(laneOf(row)), paramShare, stepsFold));
  }

  function select(i, focus) {
    state.row = i;
    hashSet("lrow", i);
    render();
    if (focus) el("ledger-table").querySelector(`button[data-row="${i}"]`).focus();
  }

  el("ledger-table").addEventListener("click", (e) => {
    const head = e.target.closest("thead button[data-key]");
    if (head) {
      const key = head.dataset.key;
      state.dir = key === state.key && state.dir === "asc" ? "desc" : "asc";
      state.key = key;
      hashSet("lsort", `${state.key}-${state.dir}`);
      renderBody(); // the header buttons stay in place, so keyboard focus stays on them
      return;
    }
    const tr = e.target.closest("tbody tr[data-row]");
    if (tr) select(Number(tr.dataset.row), e.target.closest("button") !== null);
  });
  for (const m of modes) {
    el(`ledger-mode-${m}`).addEventListener("click", () => {
      if (m === state.mode) return;
      // keep the same method and γ when the other mode has it, so the two can be compared
      const current = rows[state.row];
      const twin = rows.findIndex((r) => laneOf(r) === m && r.method === current.method && r.gamma === current.gamma);
      state.mode = m;
      state.row = twin >= 0 ? twin : rows.indexOf(fastestIn(m));
      hashSet("lmode", m);
      hashSet("lrow", state.row);
      render();
    });
  }
  onHashChange((hash) => { fromHash(hash); render(); });
  onLangChange(() => { renderHead(); render(); });
  fromHash({ lmode: hashGet("lmode"), lsort: hashGet("lsort"), lrow: hashGet("lrow") });
  renderHead();
  render();
}
