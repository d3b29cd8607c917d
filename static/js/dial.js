// The dial (regime.json): the trained models made S× heavier in weights (the same functions, more
// bytes to read per forward), on the native engine. ⑥ draws every family's speedup over plain
// decoding against the main model's bytes, the price of a verify (r_k) at every scale, and one
// scale's rows; ① draws the r_k curves alone.
import { h, s } from "./dom.js";
import { figHTML, fixed, verdictAria, verdictBadgeHTML } from "./format.js";
import { lang, onLangChange, t } from "./i18n.js";
import { configLabel } from "./family_ledger.js";
import { ALPHA_LABEL, ENGINE_LABEL, FAMILY_LABEL, familyClass, familyDash } from "./labels.js";
import { hashGet, hashSet, onHashChange, ownEntry } from "./state.js";
import { pairedVerdict } from "./theory.js";

const TEMPS = ["T1", "T0"];
const SUB = "₀₁₂₃₄₅₆₇₈₉";  // r₂, r₅, r₉

export const megabytes = (bytes) => (bytes >= 1e8 ? fixed(bytes / 1e6, 0) : fixed(bytes / 1e6, 1)) + " MB";

// Every family's fastest row per scale at one temperature: [{family, points: [{bytes, scale, row}]}],
// families in the order of their speedup at the heaviest scale (one it did not run there: last).
export function dialSeries(regime, key) {
  const byFamily = new Map();
  for (const point of regime.points) {
    for (const row of point.best[key] ?? []) {
      if (!byFamily.has(row.family)) byFamily.set(row.family, []);
      byFamily.get(row.family).push({ bytes: point.main_bytes, scale: point.scale, row });
    }
  }
  const heaviest = regime.points[regime.points.length - 1].scale;
  const atHeaviest = (points) => points.find((p) => p.scale === heaviest)?.row.speedup ?? -Infinity;
  return [...byFamily].map(([family, points]) => ({ family, points })).sort((a, b) => atHeaviest(b.points) - atHeaviest(a.points));
}

// The line drawn bold for each kind of drafter (registry.json's group, ⑤'s map): its fastest family at
// the heaviest scale, or the family named in `keep` (another temperature's lead, so that switching
// temperature keeps each kind's line) where it ran. The other families are drawn faint.
export function leadFamilies(series, keep = new Set()) {
  const kinds = new Set(), leads = new Set();
  // the kept families first, so that each claims its kind before the kind's fastest can
  for (const f of [...series.filter((g) => keep.has(g.family)), ...series]) {
    const kind = familyClass(f.family);
    if (!kinds.has(kind)) leads.add(f.family);
    kinds.add(kind);
  }
  return leads;
}

// The lines the chart draws: each kind's lead alone, or every family once the grid below it is open.
export const dialLines = (series, all, leads = leadFamilies(series)) => (all ? series : series.filter((f) => leads.has(f.family)));

// The dial as a grid: a row per family in the chart's order, a cell per scale (null where the family
// did not run), each with its row's verdict, so that where a family pays for good reads along its row.
export function dialGridRows(series, regime) {
  return series.map((f) => ({ family: f.family, cells: regime.points.map((p) => {
    const row = f.points.find((q) => q.scale === p.scale)?.row;
    return row ? { row, verdict: pairedVerdict(row.speedup_runs) } : null;
  }) }));
}

// The measured r_k of every scale: [{scale, bytes, fig, points: [{k, r}], predicted: [{k, r}]}]
export function rkSeries(regime) {
  return regime.points.map((p) => {
    const ks = Object.keys(p.r).map(Number).sort((a, b) => a - b);
    return { scale: p.scale, bytes: p.main_bytes, fig: p.fig_r, points: ks.map((k) => ({ k, r: p.r[String(k)] })),
      predicted: ks.map((k) => ({ k, r: p.roofline.r[String(k)] })) };
  });
}

// Labels at the right end of a chart's lines, pushed apart so that none overlaps another.
export function spreadLabels(ys, gap, lo, hi) {
  const order = ys.map((y, i) => ({ y, i })).sort((a, b) => a.y - b.y);
  for (let j = 1; j < order.length; j++) order[j].y = Math.max(order[j].y, order[j - 1].y + gap);
  const over = order.length ? order[order.length - 1].y - hi : 0;
  if (over > 0) order.forEach((o) => { o.y -= over; });
  for (let j = order.length - 2; j >= 0; j--) order[j].y = Math.min(order[j].y, order[j + 1].y - gap);
  const under = order.length ? lo - order[0].y : 0;
  if (under > 0) order.forEach((o) => { o.y += under; });
  const out = new Array(ys.length);
  order.forEach((o) => { out[o.i] = o.y; });
  return out;
}

function logAxis(lo, hi, from, to) {
  const a = Math.log10(lo), b = Math.log10(hi);
  return (v) => from + ((to - from) * (Math.log10(v) - a)) / (b - a);
}

const pointTitle = (family, p) => t({
  zh: `${FAMILY_LABEL[family].zh}，主模型 ${megabytes(p.bytes)}（${p.scale}×）：${fixed(p.row.speedup, 2)}×（${fixed(p.row.speedup_runs.min, 2)}–${fixed(p.row.speedup_runs.max, 2)}）`,
  en: `${FAMILY_LABEL[family].en}, main model ${megabytes(p.bytes)} (${p.scale}×): ${fixed(p.row.speedup, 2)}× (${fixed(p.row.speedup_runs.min, 2)}–${fixed(p.row.speedup_runs.max, 2)})`,
});

// The chart's frame: wide, with each family's label at the right end of its line; narrow (a phone),
// the lines alone across the width, named by a legend under it (dialLegend).
export const DIAL_FRAME = {
  wide: { W: 640, H: 310, L: 46, R: 210, T: 28, B: 40 },
  narrow: { W: 360, H: 290, L: 38, R: 14, T: 28, B: 40 },
};
export const NARROW = "(max-width: 37.5rem)";  // about 600 px: the width below which the chart is drawn narrow
const LABEL_GAP = 13;  // px between two labels' baselines (11 px text)

// Where each family's label sits: at its line's end point, pushed apart only where two would overlap.
export function labelHeights(series, y, frame) {
  return spreadLabels(series.map((f) => y(f.points[f.points.length - 1].row.speedup)), LABEL_GAP, frame.T + 4, frame.H - frame.B);
}

const lastSpeed = (f) => f.points[f.points.length - 1].row.speedup;
const sample = (family, x1, x2, y) => s("line", { class: "dial-sample", x1, x2, y1: y, y2: y, "stroke-dasharray": familyDash(family) });

// series: every family (it sets the axes); drawn: the lines shown (the leads alone while the grid is folded).
function dialSvg(series, drawn, leads, regime, chosen, shownScale, narrow) {
  const frame = narrow ? DIAL_FRAME.narrow : DIAL_FRAME.wide;
  const { W, H, L, R, T, B } = frame;
  const bytes = regime.points.map((p) => p.main_bytes);
  const edge = regime.summary.cache_edge_bytes;
  const lo = Math.min(...bytes) / 1.4, hi = Math.max(...bytes) * 1.4;
  const x = logAxis(lo, hi, L, W - R);
  const all = series.flatMap((f) => f.points.flatMap((p) => [p.row.speedup_runs.min, p.row.speedup_runs.max]));
  const top = Math.max(1.5, ...all) * 1.05, bottom = Math.min(0.5, ...all) * 0.95;
  const y = (v) => T + ((H - T - B) * (top - v)) / (top - bottom);
  const step = top - bottom > 2.5 ? 0.5 : 0.25;
  const ticks = [];
  for (let v = Math.ceil(bottom / step) * step; v <= top; v += step) ticks.push(Number(v.toFixed(2)));
  const ends = narrow ? [] : labelHeights(drawn, y, frame);
  const keyX = W - R + 14;
  return s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: `dial-chart${narrow ? " narrow" : ""}`,
    "aria-label": t({ zh: `每种草稿方法最快一行的加速比（相对同一档的${FAMILY_LABEL.plain.zh}）与主模型的字节数（对数刻度）；数字见下表`, en: `each family's fastest row's speedup (over ${FAMILY_LABEL.plain.en} at the same scale) against the main model's bytes (log scale); the numbers are in the table below` }) },
  edge > lo && edge < hi ? [
    s("rect", { class: "dial-cache", x: L, y: T, width: x(edge) - L, height: H - T - B }),
    s("text", { class: "dial-note", x: L + 4, y: T + 12 }, t({ zh: "装得进缓存", en: "fits in cache" })),
    s("line", { class: "axis dashed", x1: x(edge), x2: x(edge), y1: T - 4, y2: H - B }),
    // above the plot, at the top of the dashed line: nothing else is drawn there
    s("text", { class: "dial-note", x: x(edge), y: T - 8, "text-anchor": "middle" }, t({ zh: `缓存容量 ≈ ${megabytes(edge)}`, en: `cache edge ≈ ${megabytes(edge)}` })),
  ] : null,
  regime.points.filter((p) => p.scale === shownScale).map((p) =>
    s("line", { class: "dial-shown", x1: x(p.main_bytes), x2: x(p.main_bytes), y1: T, y2: H - B })),
  s("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B }),
  s("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B }),
  s("line", { class: "axis one", x1: L, y1: y(1), x2: W - R, y2: y(1) }),
  ticks.map((v) => s("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, `${v}×`)),
  regime.points.map((p) => s("text", { x: x(p.main_bytes), y: H - B + 16, "text-anchor": "middle" }, megabytes(p.main_bytes).replace(" MB", ""))),
  s("text", { x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle" }, t({ zh: "主模型的权重（MB，对数刻度）", en: "the main model's weights (MB, log scale)" })),
  drawn.map((f, i) => {
    const end = f.points[f.points.length - 1];
    return s("g", { class: `dial-line ${familyClass(f.family)}${f.family === chosen ? " on" : ""}${leads.has(f.family) ? "" : " faint"}` },
      s("polyline", { points: f.points.map((p) => `${x(p.bytes)},${y(p.row.speedup)}`).join(" "), "stroke-dasharray": familyDash(f.family) }),
      f.points.map((p) => s("g", {},
        s("line", { class: "whisker", x1: x(p.bytes), x2: x(p.bytes), y1: y(p.row.speedup_runs.min), y2: y(p.row.speedup_runs.max) }),
        s("circle", { cx: x(p.bytes), cy: y(p.row.speedup), r: f.family === chosen ? 4 : 3 }, s("title", {}, pointTitle(f.family, p))))),
      narrow ? null : s("g", { class: "dial-key" },
        // from the line's end point to its label: a thin lead where the label had to move
        s("line", { class: "dial-lead", x1: x(end.bytes) + 5, y1: y(end.row.speedup), x2: keyX - 3, y2: ends[i] }),
        sample(f.family, keyX, keyX + 20, ends[i]),
        s("text", { class: "dial-label", x: keyX + 25, y: ends[i] + 4 }, `${t(FAMILY_LABEL[f.family])} ${fixed(lastSpeed(f), 2)}×`)));
  }));
}

// On a phone, the legend under the narrow chart: each line's swatch, its family and its speedup at the
// heaviest scale, as the wide chart labels its line ends.
function dialLegend(series, chosen) {
  return series.map((f) => h("li", { class: f.family === chosen ? "on" : null },
    s("svg", { class: `dial-swatch ${familyClass(f.family)}`, viewBox: "0 0 24 10", width: 24, height: 10, "aria-hidden": "true" }, sample(f.family, 1, 23, 5)),
    ` ${t(FAMILY_LABEL[f.family])} ${fixed(lastSpeed(f), 2)}×`));
}

// The grid folded under the chart: a row per family (a swatch of its line, its name), a column per
// scale, each cell the speedup shaded by its verdict.
function dialGrid(series, regime, chosen, narrow) {
  const times = narrow ? "" : "×";  // a phone: every column on screen, the caption says the unit
  const plain = FAMILY_LABEL.plain;
  const cell = (c) => {
    if (!c) return h("td", {}, "—");
    const aria = verdictAria(c.row.speedup_runs, plain)[lang()];
    return Object.assign(h("td", { class: `v-${c.verdict}`, title: aria, "aria-label": `${fixed(c.row.speedup, 2)}×, ${aria}` }),
      { innerHTML: `${figHTML(fixed(c.row.speedup, 2), "speedup", c.row.fig)}${times}` });
  };
  return h("table", { class: "dial-grid" },
    h("caption", {}, t({ zh: `每种方法在每一档的加速比（×，相对同一档的${plain.zh}），每列是主模型的权重（MB）。绿色：每次成对测量都更快；红色：每次都更慢；不上色：分不出。`,
      en: `Each family's speedup (×, over ${plain.en} at that scale); each column is the main model's weights in MB. Green: faster in every paired repeat; red: slower in every one; uncoloured: can't tell.` })),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t({ zh: "方法", en: "Family" })),
      regime.points.map((p) => h("th", { scope: "col" }, megabytes(p.main_bytes).replace(" MB", ""))))),
    h("tbody", {}, dialGridRows(series, regime).map((r) => h("tr", { class: r.family === chosen ? "on" : null },
      h("th", { scope: "row" },
        s("svg", { class: `dial-swatch ${familyClass(r.family)}`, viewBox: "0 0 24 10", width: 24, height: 10, "aria-hidden": "true" }, sample(r.family, 1, 23, 5)),
        ` ${t(FAMILY_LABEL[r.family])}`),
      r.cells.map(cell)))));
}

// r_k against k, one curve per scale; the roofline's prediction for the heaviest scale dotted.
export function rkSvg(regime) {
  const series = rkSeries(regime);
  const W = 420, H = 280, L = 46, R = 92, T = 14, B = 46;
  const ks = series[0].points.map((p) => p.k);
  const x = (k) => L + ((W - L - R) * (k - ks[0])) / (ks[ks.length - 1] - ks[0]);
  const top = Math.max(1.5, ...series.flatMap((c) => c.points.map((p) => p.r))) * 1.05;
  const y = (v) => T + ((H - T - B) * (top - v)) / (top - 0.8);
  const step = top > 3 ? 0.5 : 0.25;
  const ticks = [];
  for (let v = 1; v <= top; v += step) ticks.push(Number(v.toFixed(2)));
  const edge = regime.summary.cache_edge_bytes;
  const heavy = series[series.length - 1];
  const ends = spreadLabels(series.map((c) => y(c.points[c.points.length - 1].r)), 13, T + 4, H - B);
  return s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "rk-chart",
    "aria-label": t({ zh: "验收 k 个位置的开销 rₖ（一次 forward 算 k 个新位置 ÷ 算 1 个），每个倍数一条；数字见下表", en: "the price of verifying k positions, rₖ (a forward over k new positions ÷ one over one), one curve per scale; the numbers are in the table below" }) },
  s("line", { class: "axis", x1: L, y1: H - B, x2: W - R, y2: H - B }),
  s("line", { class: "axis", x1: L, y1: T, x2: L, y2: H - B }),
  ticks.map((v) => s("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, `${v}×`)),
  ks.map((k) => s("text", { x: x(k), y: H - B + 16, "text-anchor": "middle" }, String(k))),
  s("text", { x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle" }, t({ zh: "一次 forward 的新位置数 k", en: "new positions in one forward, k" })),
  s("polyline", { class: "rk-roof", points: heavy.predicted.map((p) => `${x(p.k)},${y(p.r)}`).join(" ") },
    s("title", {}, t({ zh: `屋顶线对 ${megabytes(heavy.bytes)} 的预测`, en: `the roofline's prediction for ${megabytes(heavy.bytes)}` }))),
  series.map((c, i) => s("g", { class: `rk-line ${c.bytes > edge ? "heavy" : "light"}`, style: { opacity: String(0.6 + (0.4 * i) / Math.max(1, series.length - 1)) } },
    s("polyline", { points: c.points.map((p) => `${x(p.k)},${y(p.r)}`).join(" ") }),
    c.points.map((p) => s("circle", { cx: x(p.k), cy: y(p.r), r: 2.8 },
      s("title", {}, t({ zh: `主模型 ${megabytes(c.bytes)}，k = ${p.k}：${fixed(p.r, 2)}×`, en: `main model ${megabytes(c.bytes)}, k = ${p.k}: ${fixed(p.r, 2)}×` })))),
    s("text", { class: "dial-label", x: W - R + 8, y: ends[i] + 4 }, megabytes(c.bytes)))));
}

// r_k and main(1) per scale beside the roofline's prediction: the numbers of rkSvg.
export function rkTable(regime, ks = [2, 5, 9]) {
  const head = [{ zh: "主模型", en: "Main model" }, { zh: "1 个位置 (ms)", en: "One position (ms)" },
    ...ks.map((k) => ({ zh: `r${SUB[k]}`, en: `r${SUB[k]}` }))];
  return h("table", { class: "rk-table" },
    h("caption", {}, t({ zh: "每一档：单位置 forward 的毫秒数和 rₖ，实测在前，屋顶线的预测在后", en: "each scale: a one-position forward in ms and rₖ, measured first, the roofline's prediction second" })),
    h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, t(c))))),
    h("tbody", {}, regime.points.map((p) => h("tr", {},
      h("th", { scope: "row" }, `${megabytes(p.main_bytes)} (${p.scale}×)`),
      h("td", {}, `${fixed(1000 * p.main_s, 3)} / ${fixed(1000 * p.roofline.main_s, 3)}`),
      ks.map((k) => Object.assign(h("td"), {
        innerHTML: `${figHTML(fixed(p.r[String(k)], 2), "r", `${p.fig_r}|k${k}`)} / ${fixed(p.roofline.r[String(k)], 2)}` }))))));
}

const COLUMNS = [
  { label: { zh: "方法", en: "Family" }, cell: (r) => t(FAMILY_LABEL[r.family]) },
  { label: { zh: "配置", en: "Configuration" }, cell: (r) => t(configLabel(r)) },
  { label: { zh: "加速比，判断（成对测量）", en: "Speedup, verdict (paired repeats)" },
    cell: (r) => `${figHTML(fixed(r.speedup, 2), "speedup", r.fig)}× ${verdictBadgeHTML(r.speedup_runs, lang(), FAMILY_LABEL.plain)}` },
  { label: { zh: "定理 3.8", en: "Theorem 3.8" },
    cell: (r) => (r.theory ? `${fixed(r.theory.with_verify_price, 2)}×` : "—") },
  { label: ALPHA_LABEL.dec, cell: (r) => (r.alpha === undefined || r.alpha === null || r.shape === "tree" ? "—" : figHTML(fixed(r.alpha, 3), "alpha-dec", r.fig)) },
  { label: { zh: "字 / forward", en: "Chars / forward" }, cell: (r) => fixed(r.tokens_per_main, 2) },
  { label: { zh: "验收", en: "Verify" }, cell: (r) => figHTML(fixed(r.verify_over_main, 2), "verify-loop", r.fig) },
  { label: { zh: "起草", en: "Drafting" }, cell: (r) => fixed(r.drafter_per_round, 3) },
  { label: { zh: "其余", en: "Rest" }, cell: (r) => fixed(r.other_per_round, 2) },
];

// The state an address asks for (#dialT=0&dialx=40): a temperature and a scale the dial measured.
export function dialFromHash(get, regime, current) {
  const key = `T${get("dialT")}`, scale = Number(get("dialx"));
  return { key: TEMPS.includes(key) && regime.points.some((p) => key in p.best) ? key : current.key,
    scale: regime.points.some((p) => p.scale === scale) ? scale : current.scale };
}

export function initDial(regime) {
  const heaviest = regime.points[regime.points.length - 1];
  let state = dialFromHash(hashGet, regime, { key: "T1", scale: heaviest.scale });
  const root = document.getElementById("dial-widget");
  const chart = root.querySelector(".dial-figs"), grid = root.querySelector(".dial-grid-box"), table = root.querySelector(".dial-table");
  const legend = root.querySelector(".dial-legend"), gridFold = root.querySelector("#dial-grid-details");
  const temps = [...root.querySelectorAll("[data-dial-t]")], scales = root.querySelector(".dial-scales");
  const phone = window.matchMedia?.(NARROW);
  const keepT1 = leadFamilies(dialSeries(regime, "T1"));  // each kind's line at T = 1, kept at T = 0

  function draw() {
    for (const b of temps) b.setAttribute("aria-pressed", String(b.dataset.dialT === state.key));
    const series = dialSeries(regime, state.key);
    const point = regime.points.find((p) => p.scale === state.scale);
    scales.replaceChildren(...regime.points.map((p) => h("button", { type: "button", "aria-pressed": String(p.scale === state.scale),
      onclick: () => { state.scale = p.scale; hashSet("dialx", p.scale); draw(); } }, megabytes(p.main_bytes))));
    // on a phone the chart fits the width and a legend under it names its lines
    const narrow = Boolean(phone?.matches), chosen = series[0]?.family;
    // one line per kind of drafter until the reader opens the grid, which adds the other families, faint;
    // each kind keeps its T = 1 family at T = 0, so that the switch moves lines instead of swapping them
    const leads = leadFamilies(series, keepT1);
    const drawn = dialLines(series, gridFold.open, leads);
    chart.replaceChildren(h("figure", { class: "dial-fig", "aria-label": t({ zh: "表盘图", en: "the dial's chart" }) },
      dialSvg(series, drawn, leads, regime, chosen, state.scale, narrow)));
    legend.replaceChildren(...(narrow ? dialLegend(drawn, chosen) : []));
    legend.hidden = !narrow;
    grid.replaceChildren(dialGrid(series, regime, chosen, narrow));
    const rows = point.best[state.key] ?? [];
    const repeats = rows[0]?.repeats ?? regime.repeats;  // more at the model as trained (regime.trained_repeats)
    const engine = ENGINE_LABEL[regime.engine] ?? { zh: regime.engine, en: regime.engine };
    // plain decoding's own cost per character, in its forwards (the forward and its loop): the
    // yardstick a row's round is set against (speedup = chars / forward × this ÷ the round)
    const plainPerChar = fixed(point.plain[state.key].plain_per_char, 3);
    table.replaceChildren(h("table", { class: "ledger dial-rows" },
      h("caption", {}, t({ zh: `主模型 ${megabytes(point.main_bytes)}（${point.scale}×）· ${engine.zh} · ${state.key === "T1" ? "T = 1" : "T = 0"} · 各 ${repeats} 次成对测量 · ${FAMILY_LABEL.plain.zh}每字 ${plainPerChar} 次 forward`,
        en: `main model ${megabytes(point.main_bytes)} (${point.scale}×) · ${engine.en} · ${state.key === "T1" ? "T = 1" : "T = 0"} · ${repeats} paired repeats each · ${FAMILY_LABEL.plain.en} ${plainPerChar} forwards per character` })),
      h("thead", {}, h("tr", {}, COLUMNS.map((c) => h("th", { scope: "col" }, t(c.label))))),
      h("tbody", {}, rows.map((r) => h("tr", { class: `v-${r.verdict}` },
        COLUMNS.map((c, k) => Object.assign(h(k === 0 ? "th" : "td", k === 0 ? { scope: "row" } : {}), { innerHTML: c.cell(r) })))))));
  }

  // the temperature switch lives in the folds: an address that asks for T = 0 opens the grid, so that the
  // chart's temperature shows beside it
  const showTemperature = () => { if (state.key !== "T1") gridFold.open = true; };
  for (const b of temps) b.addEventListener("click", () => { state.key = b.dataset.dialT; hashSet("dialT", state.key.slice(1)); draw(); });
  onHashChange((hash) => {
    const next = dialFromHash((key) => ownEntry(hash, key), regime, state);
    if (next.key === state.key && next.scale === state.scale) return;
    state = next;
    showTemperature();
    draw();
  });
  onLangChange(draw);
  phone?.addEventListener?.("change", draw);
  gridFold.addEventListener("toggle", draw);
  showTemperature();
  draw();
}

// ①: the r_k curves alone, with their table.
export function initRkCurves(regime) {
  const root = document.getElementById("rk-widget");
  const draw = () => root.replaceChildren(h("figure", { class: "dial-fig" }, rkSvg(regime)), h("div", { class: "table-scroll", tabindex: "0", role: "group",
    "aria-label": t({ zh: "每一档的 rₖ 和屋顶线的预测", en: "each scale's rₖ beside the roofline's" }) }, rkTable(regime)));
  onLangChange(draw);
  draw();
}
