// Section ⑥, every family: the best configuration of each drafter family (families.json rows: the
// answer run at the model as trained) per temperature, fastest first, with where its time went.
import { h } from "./dom.js";
import { figHTML, fixed } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { ALPHA_LABEL, ENGINE_LABEL, FAMILY_LABEL } from "./labels.js";
import { hashGet, hashSet, onHashChange, ownEntry } from "./state.js";
import { pairedVerdict } from "./theory.js";

export function configLabel(row) {
  if (row.family === "plain") return { zh: "—", en: "—" };
  return row.shape === "tree" ? { zh: `树 ${row.size} 节点`, en: `tree, ${row.size} nodes` }
    : { zh: `链 γ = ${row.size}`, en: `chain γ = ${row.size}` };
}

// The rows of one engine and temperature, plain first, then fastest first.
export function laneRows(rows, engine, temperature) {
  const lane = rows.filter((r) => r.engine === engine && r.temperature === temperature);
  return [...lane.filter((r) => r.family === "plain"), ...lane.filter((r) => r.family !== "plain").sort((a, b) => b.speedup - a.speedup)];
}

const COLUMNS = [
  { label: { zh: "方法", en: "Family" }, cell: (r) => t(FAMILY_LABEL[r.family]) },
  { label: { zh: "配置", en: "Configuration" }, cell: (r) => t(configLabel(r)) },
  { label: { zh: "加速比（最小–最大）", en: "Speedup (min–max)" },
    cell: (r) => `${figHTML(fixed(r.speedup, 2), "speedup", r.fig)}× (${fixed(r.speedup_runs.min, 2)}–${fixed(r.speedup_runs.max, 2)})` },
  { label: { zh: "定理 3.8", en: "Theorem 3.8" }, cell: (r) => (r.speedup_theory ? `${fixed(r.speedup_theory, 2)}×` : "—") },
  { label: { zh: "字 / forward", en: "Chars / forward" }, cell: (r) => fixed(r.tokens_per_main, 2) },
  { label: ALPHA_LABEL.dec, cell: (r) => (r.alpha === undefined || r.alpha === null || r.shape === "tree" ? "—" : figHTML(fixed(r.alpha, 3), "alpha-dec", r.fig)) },
  { label: { zh: "验收", en: "Verify" }, cell: (r) => figHTML(fixed(r.verify_over_main, 2), "verify-loop", r.fig) },
  { label: { zh: "起草", en: "Drafting" }, cell: (r) => fixed(r.drafter_per_round, 3) },
  { label: { zh: "其余", en: "Rest" },
    cell: (r) => (r.other_per_round === undefined || r.other_per_round === null ? "—" : fixed(r.other_per_round, 2)) },
  { label: { zh: "一轮", en: "Round" }, cell: (r) => fixed(r.round_total, 2) },
  { label: { zh: "普通 / 字", en: "Plain / char" }, cell: (r) => fixed(r.plain_per_char, 2) },
];

// The lane an address asks for (#feng=eager&ftemp=0): an engine families.json measured and T = 0
// or 1; where it asks for none of these, the lane of `current`.
export function laneFromHash(get, families, current) {
  const engine = get("feng"), temperature = get("ftemp");
  return {
    engine: families.engines.includes(engine) ? engine : current.engine,
    temperature: temperature === "0" ? 0 : temperature === "1" ? 1 : current.temperature,
  };
}

export function initFamilyLedger(families) {
  // by default the engine the page's sentences are about (families.json summary.primary_engine), T = 1
  let state = laneFromHash(hashGet, families, { engine: families.summary.primary_engine, temperature: 1 });
  const table = document.getElementById("family-ledger");
  const buttons = [...document.querySelectorAll("#family-ledger-widget [data-feng], #family-ledger-widget [data-ftemp]")];

  function draw() {
    for (const b of buttons) {
      const on = b.dataset.feng ? b.dataset.feng === state.engine : Number(b.dataset.ftemp) === state.temperature;
      b.setAttribute("aria-pressed", String(on));
    }
    const rows = laneRows(families.rows, state.engine, state.temperature);
    table.replaceChildren(
      h("caption", {}, t({ zh: `${ENGINE_LABEL[state.engine].zh} · T = ${state.temperature} · 各 ${families.repeats} 次`,
        en: `${ENGINE_LABEL[state.engine].en} · T = ${state.temperature} · ${families.repeats} repeats each` })),
      h("thead", {}, h("tr", {}, COLUMNS.map((c) => h("th", { scope: "col" }, t(c.label))))),
      h("tbody", {}, rows.map((r) => h("tr", { class: r.family === "plain" ? "" : `v-${pairedVerdict(r.speedup_runs)}` },
        COLUMNS.map((c, k) => Object.assign(h(k === 0 ? "th" : "td", k === 0 ? { scope: "row" } : {}), { innerHTML: c.cell(r) }))))));
  }

  for (const b of buttons) {
    b.addEventListener("click", () => {
      if (b.dataset.feng) { state.engine = b.dataset.feng; hashSet("feng", state.engine); }
      else { state.temperature = Number(b.dataset.ftemp); hashSet("ftemp", state.temperature); }
      draw();
    });
  }
  // an address edited by hand (or a followed #link) applies at once; hashSet fires no hashchange
  onHashChange((hash) => {
    const next = laneFromHash((key) => ownEntry(hash, key), families, state);
    if (next.engine === state.engine && next.temperature === state.temperature) return;
    state = next;
    draw();
  });
  onLangChange(draw);
  draw();
}
