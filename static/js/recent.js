// Section ⑤'s "what changed in 2025–26": two small line charts from families.json, with their
// numbers in a table. Left: teacher-forced α of the j-th draft of a chain (alpha_by_depth, T = 1)
// for every trained drafter the probe scored (EAGLE, EAGLE-3, Medusa, the block drafter). Right: what
// drafting costs per round against γ (the sweep's chains on the primary engine, T = 1) for the
// drafters that can draft every γ of the sweep. The families are the data's, in the registry's order; each line is drawn in
// its family's colour and dash (labels.js familyClass, familyDash), as on ⑥'s dial.
import { h, s } from "./dom.js";
import { fixed } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { FAMILY, FAMILY_LABEL, familyClass, familyDash, labelled } from "./labels.js";

// the families of `byFamily` that have points, in the registry's order
const inRegistryOrder = (byFamily) => Object.keys(FAMILY).filter((f) => byFamily[f]?.length);

// {family: [[x, y], ...]}: α by depth (x = 1, 2, ...) and drafting per round by γ
export function depthPoints(families) {
  const byDepth = families.alpha_by_depth.T1;
  return Object.fromEntries(inRegistryOrder(byDepth).map((f) => [f, byDepth[f].map((a, i) => [i + 1, a])]));
}

export function costPoints(families) {
  const drafting = families.summary.recent?.drafting ?? {};
  return Object.fromEntries(inRegistryOrder(drafting).map((f) => [f, drafting[f].map((r) => [r.size, r.drafter_per_round])]));
}

function lineChart(series, { xLabel, yLabel, yMax, yTicks, yDigits, aria }) {
  const W = 360, H = 240, L = 66, R = 12, T = 12, B = 42;
  const xs = Object.values(series).flat().map(([x]) => x);
  const x0 = Math.min(...xs), x1 = Math.max(...xs);
  const x = (v) => L + ((W - L - R) * (v - x0)) / Math.max(1, x1 - x0);
  const y = (v) => T + (H - T - B) * (1 - v / yMax);
  const ticksX = [...new Set(xs)].sort((a, b) => a - b);
  return s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": aria, class: "recent-chart" },
    s("line", { class: "axis", x1: L, y1: y(0), x2: W - R, y2: y(0) }),
    s("line", { class: "axis", x1: L, y1: T, x2: L, y2: y(0) }),
    ticksX.map((v) => s("text", { x: x(v), y: H - B + 16, "text-anchor": "middle" }, String(v))),
    yTicks.map((v) => s("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, fixed(v, yDigits))),
    s("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle" }, xLabel),
    s("text", { x: 12, y: (T + y(0)) / 2, transform: `rotate(-90 12 ${(T + y(0)) / 2})`, "text-anchor": "middle" }, yLabel),
    Object.entries(series).map(([family, points]) => s("g", { class: `series ${familyClass(family)}` },
      s("polyline", { points: points.map(([a, b]) => `${x(a)},${y(b)}`).join(" "), "stroke-dasharray": familyDash(family) }),
      points.map(([a, b]) => s("circle", { cx: x(a), cy: y(b), r: 3.5 },
        s("title", {}, t(labelled(FAMILY_LABEL[family], `${a} → ${fixed(b, 2)}`))))))));
}

function legend(families) {
  return h("p", { class: "legend" }, families.map((f) => h("span", { class: "key" },
    s("svg", { class: "swatch-line", viewBox: "0 0 22 8", "aria-hidden": "true" },
      s("line", { class: familyClass(f), x1: 0, y1: 4, x2: 22, y2: 4, "stroke-dasharray": familyDash(f) })),
    ` ${t(FAMILY_LABEL[f])} `)));
}

// the numbers of both charts: one row per family, one column per depth or γ
export function recentTable(points, digits) {
  const xs = [...new Set(Object.values(points).flat().map(([x]) => x))].sort((a, b) => a - b);
  return { xs, rows: Object.entries(points).map(([f, pts]) => ({ family: f,
    cells: xs.map((x) => { const p = pts.find(([a]) => a === x); return p ? fixed(p[1], digits) : "—"; }) })) };
}

function numbers(points, caption, xName, digits) {
  const { xs, rows } = recentTable(points, digits);
  return h("div", { class: "table-scroll", tabindex: 0, role: "group", "aria-label": caption },
    h("table", { class: "numbers recent-numbers" }, h("caption", {}, caption),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, xName), xs.map((x) => h("th", { scope: "col" }, String(x))))),
      h("tbody", {}, rows.map((r) => h("tr", {}, h("th", { scope: "row" }, t(FAMILY_LABEL[r.family])),
        r.cells.map((c) => h("td", { class: "num" }, c)))))));
}

export function initRecent(families) {
  const box = document.getElementById("recent-widget");
  const depth = depthPoints(families), cost = costPoints(families);
  const costMax = Math.max(1, ...Object.values(cost).flat().map(([, v]) => v));
  const costTop = 2 * Math.ceil(costMax / 2); // an even number of forwards: whole ticks at 0, half and top
  function render() {
    // no break inside "T = 1": a caption that wraps there reads as two figures
    const depthCaption = t({ zh: "第 j 个草稿的 α（喂真实前文，T\u00a0=\u00a01）", en: "α of the j-th draft (teacher-forced, T\u00a0=\u00a01)" });
    const costCaption = t({ zh: "起草一轮的开销（普通 forward 的倍数，T\u00a0=\u00a01）", en: "drafting per round (plain forwards, T\u00a0=\u00a01)" });
    box.replaceChildren(
      h("div", { class: "recent-charts" },
        h("figure", {}, lineChart(depth, { xLabel: t({ zh: "链上的位置 j", en: "position j in the chain" }), yLabel: "α",
          yMax: 1, yTicks: [0, 0.25, 0.5, 0.75, 1], yDigits: 2, aria: depthCaption }), h("figcaption", {}, depthCaption), legend(Object.keys(depth))),
        h("figure", {}, lineChart(cost, { xLabel: "γ", yLabel: t({ zh: "forward 数", en: "forwards" }),
          yMax: costTop, yTicks: [0, costTop / 2, costTop], yDigits: 0, aria: costCaption }), h("figcaption", {}, costCaption), legend(Object.keys(cost)))),
      numbers(depth, depthCaption, "j", 2),
      numbers(cost, costCaption, "γ", 2));
  }
  onLangChange(render);
  render();
}
