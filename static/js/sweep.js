// Section ②: mean acceptance α against KL(p‖q) for the draft's training snapshots, as a
// scatter on a log KL axis, with a table of the same numbers.
import { h, s } from "./dom.js";
import { fixed } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { labelled, FAMILY_LABEL } from "./labels.js";

// A snapshot's <title>: "第 500 步：α 0.619，KL 0.686" / "step 500: α 0.619, KL 0.686".
export function snapshotTitle(p) {
  const a = fixed(p.alpha_mean, 3), kl = fixed(p.kl_mean, 3);
  return labelled({ zh: `第 ${p.step} 步`, en: `step ${p.step}` }, { zh: `α ${a}，KL ${kl}`, en: `α ${a}, KL ${kl}` });
}

function sweepSvg(snapshots) {
  const W = 440, H = 280, L = 64, R = 14, T = 14, B = 44;
  // log-scaled KL axis: the later snapshots bunch up near small KL on a linear one
  const kls = snapshots.map((p) => p.kl_mean);
  const lo = Math.log10(Math.min(...kls) / 1.3), hi = Math.log10(Math.max(...kls) * 1.3);
  const x = (kl) => L + ((W - L - R) * (Math.log10(kl) - lo)) / (hi - lo);
  const y = (a) => T + (H - T - B) * (1 - a);
  const ticksX = [0.1, 0.2, 0.5, 1, 2, 5, 10].filter((v) => Math.log10(v) >= lo && Math.log10(v) <= hi);
  const ticksY = [0, 0.25, 0.5, 0.75, 1];
  return s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": t({ zh: "草稿快照的平均接受率 α 与 KL(p‖q)，数字见下表", en: "mean acceptance α of the draft snapshots against KL(p‖q); the numbers are in the table below" }) },
  s("line", { class: "axis", x1: L, y1: y(0), x2: W - R, y2: y(0) }),
  s("line", { class: "axis", x1: L, y1: T, x2: L, y2: y(0) }),
  ticksX.map((v) => s("text", { x: x(v), y: H - B + 18, "text-anchor": "middle" }, String(v))),
  ticksY.map((v) => s("text", { x: L - 8, y: y(v) + 4, "text-anchor": "end" }, fixed(v, 2))),
  s("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle" }, t({ zh: "平均 KL(p‖q)，对数刻度（nats）", en: "mean KL(p‖q), log scale (nats)" })),
  s("text", { x: 14, y: (T + y(0)) / 2, transform: `rotate(-90 14 ${(T + y(0)) / 2})`, "text-anchor": "middle" }, t({ zh: "平均 α", en: "mean α" })),
  snapshots.map((p, i) => s("g", {},
    s("circle", { class: "pt", cx: x(p.kl_mean), cy: y(p.alpha_mean), r: 5 },
      s("title", {}, t(snapshotTitle(p)))),
    s("text", { x: x(p.kl_mean), y: y(p.alpha_mean) + (i % 2 ? 20 : -10), "text-anchor": "middle" }, `${p.step}`))));
}

// The table under the scatter: head and one row of strings per snapshot.
export function sweepTable(snapshots) {
  return {
    head: [{ zh: "训练步数", en: "step" }, "α = Σmin(p,q)", { zh: "抽样接受率", en: "sampled acceptance" }, "1 − TV", "KL(p‖q)", { zh: "草稿 loss", en: "draft loss" }],
    rows: snapshots.map((p) => [String(p.step), fixed(p.alpha_mean, 4), fixed(p.accept_rate_sampled, 4),
      fixed(1 - p.tv_mean, 4), fixed(p.kl_mean, 3), fixed(p.draft_val_loss, 3)]),
  };
}

export function initSweep(sweep) {
  function render() {
    const table = sweepTable(sweep.snapshots);
    const text = (x) => (typeof x === "string" ? x : t(x));
    document.getElementById("sweep-widget").replaceChildren(sweepSvg(sweep.snapshots),
      h("p", { class: "caption" }, t({ zh: `数字是${FAMILY_LABEL.draft.zh}的训练步数；横轴越靠左、纵轴越靠上，草稿越像主模型。`, en: `Numbers are the ${FAMILY_LABEL.draft.en}'s training steps; further left and higher up means a draft closer to the main model.` })),
      h("div", { class: "chart", tabindex: 0, role: "group", "aria-label": t({ zh: "草稿快照的数字", en: "the numbers of the draft snapshots" }) }, h("table", { class: "calc" },
        h("thead", {}, h("tr", {}, table.head.map((c) => h("th", { scope: "col" }, text(c))))),
        h("tbody", {}, table.rows.map((r) => h("tr", {}, r.map((c) => h("td", {}, c))))))));
  }
  onLangChange(render);
  render();
}
