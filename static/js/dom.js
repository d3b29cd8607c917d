// Tiny DOM helpers: build HTML and SVG elements, and a column chart made of plain elements
// (text stays readable at any width; the chart scrolls sideways when it has many columns).
import { BADGE_SEP, badgeParts, verdictBadgeParts } from "./format.js";
import { lang } from "./i18n.js";
import { FAMILY_LABEL } from "./labels.js";

const SVG_NS = "http://www.w3.org/2000/svg";

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else el.setAttribute(key, value === true ? "" : value);
  }
}

// A timed row's verdict badge as an element (format.js verdictBadgeParts, the twin of macros.verdict),
// its aria-label in the page's language now. runs: the row's paired speedups {min, max, n}.
export function verdictBadge(runs) {
  const { attrs, text } = verdictBadgeParts(runs, lang(), FAMILY_LABEL.plain);
  const words = (l) => h("span", { lang: l }, badgeParts(text[l]).flatMap((p, i) => [i ? BADGE_SEP : null, h("span", { class: "nowrap" }, p)]));
  return h("a", attrs, words("zh"), words("en"));
}

// Present for screen readers, invisible on screen (the usual clip pattern).
export const VISUALLY_HIDDEN = {
  position: "absolute", width: "1px", height: "1px", margin: "-1px", padding: "0", border: "0",
  overflow: "hidden", clip: "rect(0 0 0 0)", clipPath: "inset(50%)", whiteSpace: "nowrap",
};

// A widget's own table or steps, folded under a summary. `fold` ({open}) keeps the reader's choice
// across the widget's re-renders, which rebuild the box.
export function foldBox(fold, summary, ...children) {
  return h("details", { class: "numbers-box", open: fold.open, ontoggle: (e) => { fold.open = e.currentTarget.open; } },
    h("summary", {}, summary), ...children);
}

// A chart's numbers as a table: caption, column heads, one row per bar group.
// rows: [{label, cells: [string]}]
export function dataTable({ caption, head, rows }, attrs = {}) {
  return h("table", attrs,
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, head.map((text) => h("th", { scope: "col" }, text)))),
    h("tbody", {}, rows.map((r) => h("tr", {}, h("th", { scope: "row" }, r.label), r.cells.map((c) => h("td", {}, c))))));
}

// cols: [{key, label, title, cells, bars: [{cls, value}], tick}] ; values in [0, max]
// With onPick each column is a button named by its title. Without, the bars are hidden from
// screen readers and a visually hidden table (caption, head, each column's cells) reads instead.
export function columnChart(container, cols, { max, selected, onPick, caption, head } = {}) {
  const top = max || Math.max(1e-9, ...cols.flatMap((c) => [...c.bars.map((b) => b.value), c.tick ?? 0]));
  const pct = (v) => `${Math.min(100, (100 * v) / top)}%`;
  const items = cols.map((col) => {
    const plot = h("div", { class: "plot" },
      col.bars.map((b) => h("div", { class: `b ${b.cls}`, style: { height: pct(b.value) } })),
      col.tick === undefined ? null : h("div", { class: "tick", style: { bottom: pct(col.tick) } }));
    const label = h("span", { class: "lab" }, col.label);
    const body = onPick
      ? h("button", { type: "button", title: col.title, "aria-label": col.title,
          "aria-pressed": String(col.key === selected), onclick: () => onPick(col.key) }, plot, label)
      : h("div", { title: col.title, style: { width: "100%" } }, plot, label);
    return h("div", { class: col.key === selected ? "col sel" : "col" }, body);
  });
  const visual = h("div", { class: "cols", "aria-hidden": onPick ? null : "true" }, items);
  // the hidden box is a <div>: a table does not shrink to 1 px, and would widen the page
  if (onPick) return container.replaceChildren(visual);
  const table = h("div", { class: "chart-data", style: VISUALLY_HIDDEN },
    dataTable({ caption, head, rows: cols.map((c) => ({ label: c.label, cells: c.cells })) }));
  container.replaceChildren(visual, table);
}

// A measured figure with its caption: the .readout box every widget uses.
export function readoutBox(value, key, cls = "") {
  return h("div", { class: "readout" }, h("div", { class: `v ${cls}` }, value), h("div", { class: "k" }, key));
}

// A panel inside a <details> is drawn only while it is open (again on every opening), keeping the
// page's start-up short. Returns the guarded draw, for redrawing on a language change.
export function drawWhenOpen(el, draw) {
  const details = el.closest("details");
  const guarded = () => { if (!details || details.open) draw(); };
  if (details) details.addEventListener("toggle", guarded);
  guarded();
  return guarded;
}
