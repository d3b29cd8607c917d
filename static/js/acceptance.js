// Section ②: the acceptance rule on real val positions, "draw it yourself", and the α–KL sweep.
import { columnChart, h, readoutBox, s } from "./dom.js";
import { charLabel, fixed, grouped, percent, sci } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { alphaOf, draftAndVerify, mulberry32, totalVariation } from "./rule.js";
import { hashGet, hashSet, intInRange } from "./state.js";

const KIND = {
  high: { zh: "高一致", en: "high agreement" },
  typical: { zh: "典型", en: "typical" },
  low: { zh: "低一致", en: "low agreement" },
  overweight: { zh: "草稿偏爱某字", en: "draft over-weights a char" },
  uncertain: { zh: "主模型拿不准", en: "main model unsure" },
};
const TOP_K = 12;

// Columns to show: the TOP_K chars with the largest max(p, q), or every char in vocab order.
export function shownChars(p, q, all, k = TOP_K) {
  const ids = p.map((_, i) => i);
  if (all) return ids;
  return ids.sort((a, b) => Math.max(p[b], q[b]) - Math.max(p[a], q[a])).slice(0, k);
}

// The two routes by which char x is emitted (section ② calculation card).
export function routes(p, q, x) {
  const alpha = alphaOf(p, q);
  const acceptProb = q[x] > 0 ? Math.min(1, p[x] / q[x]) : 0;
  const viaAccept = q[x] * acceptProb;
  const residualX = alpha < 1 ? Math.max(0, p[x] - q[x]) / (1 - alpha) : 0;
  const viaResidual = (1 - alpha) * residualX;
  return { alpha, acceptProb, viaAccept, residualX, viaResidual, total: viaAccept + viaResidual };
}

export function initAcceptance(acceptance, sweep) {
  const { vocab, positions, draws } = acceptance;
  const el = (id) => document.getElementById(id);
  const defaultPos = Math.max(0, positions.findIndex((x) => x.kind === "typical"));
  const state = { pos: intInRange(hashGet("pos"), 0, positions.length - 1, defaultPos), all: false, char: null };
  const draw = { counts: null, n: 0, accepted: 0, rand: null, last: null };

  const current = () => positions[state.pos];
  // Start on the char the draft over-weights most (q > p: the interesting case), if any.
  const defaultChar = (pos) => {
    if (pos.overweight_char != null) return vocab.indexOf(pos.overweight_char);
    const excess = pos.q.map((qi, i) => qi - pos.p[i]);
    const worst = excess.indexOf(Math.max(...excess));
    return excess[worst] > 0 ? worst : pos.p.indexOf(Math.max(...pos.p));
  };

  function resetDraws() {
    draw.counts = new Array(vocab.length).fill(0);
    draw.n = 0;
    draw.accepted = 0;
    draw.last = null;
    draw.rand = mulberry32(1 + state.pos);
  }

  // The panel opens with a first hundred draws already made, so it shows something to read.
  function resetAndWarm() {
    resetDraws();
    drawMany(100, false);
  }

  function renderPicker() {
    el("accept-positions").replaceChildren(...positions.map((pos, i) => h("button", {
      type: "button", "aria-pressed": String(i === state.pos), onclick: () => pick(i),
    }, `${t(KIND[pos.kind] || { zh: pos.kind, en: pos.kind })} · α ${fixed(pos.alpha_theory, 2)}`)));
    const ctx = current().context;
    el("accept-context").replaceChildren(h("span", {}, ctx.slice(-48).replace(/\n/g, "↵")),
      h("span", { class: "here", title: t({ zh: "要预测的位置", en: "the position being predicted" }) }, "?"));
  }

  function renderCharts() {
    const pos = current();
    const ids = shownChars(pos.p, pos.q, state.all);
    const title = (i) => `${charLabel(vocab[i])}: p ${fixed(pos.p[i], 4)}, q ${fixed(pos.q[i], 4)}`;
    columnChart(el("accept-pq"), ids.map((i) => ({
      key: i, label: charLabel(vocab[i]), title: title(i),
      bars: [{ cls: "p", value: pos.p[i] }, { cls: "q", value: pos.q[i] }],
    })), { selected: state.char, onPick: (i) => { state.char = i; renderCharts(); renderCalc(); } });
    const freq = pos.counts.map((c) => c / draws);
    columnChart(el("accept-hist"), ids.map((i) => ({
      key: i, label: charLabel(vocab[i]), title: `${charLabel(vocab[i])}: ${grouped(pos.counts[i])} / ${grouped(draws)} = ${fixed(freq[i], 4)}, p ${fixed(pos.p[i], 4)}`,
      bars: [{ cls: "out", value: freq[i] }], tick: pos.p[i],
    })), { selected: state.char });
    renderDrawChart(ids);
  }

  function renderReadouts() {
    const pos = current();
    const se = Math.sqrt((pos.alpha_theory * (1 - pos.alpha_theory)) / draws);
    const fine = pos.chi2_p > 0.01;
    el("accept-readouts").replaceChildren(
      readoutBox(`${fixed(pos.accept_rate, 4)} vs ${fixed(pos.alpha_theory, 4)}`,
        t({ zh: `${grouped(draws)} 次里的接受率 vs 理论 Σmin(p,q)(标准误 ${fixed(se, 4)})`, en: `acceptance rate in ${grouped(draws)} draws vs theory Σmin(p,q) (standard error ${fixed(se, 4)})` })),
      readoutBox(`${fixed(pos.tv_out_p, 4)} vs ${fixed(pos.tv_q_p, 4)}`,
        t({ zh: "总变差距离:输出离 p vs 草稿 q 自己离 p", en: "total variation: output from p vs the draft q from p" })),
      readoutBox(`${t({ zh: "p 值", en: "p-value" })} ${sci(pos.chi2_p)}`,
        t({ zh: `卡方检验 χ² = ${fixed(pos.chi2_stat, 1)},自由度 ${pos.chi2_dof}:${fine ? "看不出输出和 p 有差别" : "输出与 p 有显著差别"}`, en: `chi-square χ² = ${fixed(pos.chi2_stat, 1)}, ${pos.chi2_dof} degrees of freedom: ${fine ? "no detectable difference between the output and p" : "the output differs from p"}` }),
        fine ? "good" : "warn"));
  }

  function renderCalc() {
    const pos = current();
    const x = state.char;
    const r = routes(pos.p, pos.q, x);
    const c = `“${charLabel(vocab[x])}”`;
    const row = (label, value) => h("tr", {}, h("td", {}, label), h("td", {}, value));
    el("accept-calc").replaceChildren(
      h("h3", {}, t({ zh: `计算卡:字 ${c}`, en: `Calculation card: ${c}` })),
      h("table", {}, h("tbody", {},
        row(`q(${c})`, fixed(pos.q[x], 5)),
        row(`p(${c})`, fixed(pos.p[x], 5)),
        row(t({ zh: "接受概率 min(1, p/q)", en: "acceptance probability min(1, p/q)" }), fixed(r.acceptProb, 5)),
        row(t({ zh: "① 抽中并接受:q·min(1, p/q) = min(p, q)", en: "① drafted and accepted: q·min(1, p/q) = min(p, q)" }), fixed(r.viaAccept, 5)),
        row(t({ zh: "此位置的拒绝总概率 1 − α", en: "total rejection probability here, 1 − α" }), fixed(1 - r.alpha, 5)),
        row(t({ zh: `残差分布给 ${c} 的概率 max(0, p−q)/(1−α)`, en: `residual probability of ${c}, max(0, p−q)/(1−α)` }), fixed(r.residualX, 5)),
        row(t({ zh: "② 拒绝后重抽到它:(1−α)·残差 = max(0, p−q)", en: "② rejected, then redrawn: (1−α)·residual = max(0, p−q)" }), fixed(r.viaResidual, 5)),
        row(t({ zh: "① + ② = p", en: "① + ② = p" }), h("strong", {}, fixed(r.total, 5))),
        row(t({ zh: `${grouped(draws)} 次实测频率`, en: `measured frequency in ${grouped(draws)} draws` }), fixed(pos.counts[x] / draws, 5)))));
  }

  function renderDrawChart(ids) {
    const pos = current();
    const n = Math.max(1, draw.n);
    columnChart(el("draw-hist"), ids.map((i) => ({
      key: i, label: charLabel(vocab[i]), title: `${charLabel(vocab[i])}: ${draw.counts[i]} / ${draw.n}, p ${fixed(pos.p[i], 4)}`,
      bars: [{ cls: "out", value: draw.counts[i] / n }], tick: pos.p[i],
    })), { selected: state.char, max: Math.max(...ids.map((i) => Math.max(pos.p[i], draw.counts[i] / n))) });
    const freq = draw.counts.map((cnt) => cnt / n);
    const last = draw.last ? t(draw.last.accepted
      ? { zh: `上一次:草稿 “${charLabel(vocab[draw.last.token])}” 被接受`, en: `last draw: draft “${charLabel(vocab[draw.last.token])}” accepted` }
      : { zh: `上一次:草稿被拒绝,从残差重抽出 “${charLabel(vocab[draw.last.token])}”`, en: `last draw: draft rejected, redrawn from the residual: “${charLabel(vocab[draw.last.token])}”` }) : "";
    el("draw-readouts").replaceChildren(
      readoutBox(grouped(draw.n), t({ zh: "已抽次数", en: "draws so far" })),
      readoutBox(draw.n ? `${percent(draw.accepted / draw.n)} vs ${percent(pos.alpha_theory)}` : "–",
        t({ zh: "接受率 vs 理论 α", en: "accepted vs theory α" })),
      readoutBox(draw.n ? fixed(totalVariation(freq, pos.p), 4) : "–", t({ zh: "TV(你的频率, p)", en: "TV(your frequencies, p)" })),
      ...(last ? [h("div", { class: "readout" }, h("div", { class: "k" }, last))] : []));
  }

  function drawMany(k, show = true) {
    const pos = current();
    for (let i = 0; i < k; i++) {
      draw.last = draftAndVerify(pos.p, pos.q, draw.rand);
      draw.counts[draw.last.token] += 1;
      draw.accepted += draw.last.accepted ? 1 : 0;
    }
    draw.n += k;
    if (show) renderDrawChart(shownChars(pos.p, pos.q, state.all));
  }

  function pick(i) {
    state.pos = i;
    state.char = defaultChar(positions[i]);
    hashSet("pos", i);
    resetAndWarm();
    render();
  }

  function render() {
    renderPicker();
    renderCharts();
    renderReadouts();
    renderCalc();
  }

  el("accept-all").addEventListener("change", (e) => { state.all = e.target.checked; renderCharts(); });
  for (const k of [1, 100, 10000]) el(`draw-${k}`).addEventListener("click", () => drawMany(k));
  el("draw-reset").addEventListener("click", () => { resetDraws(); renderCharts(); });
  state.char = defaultChar(current());
  resetAndWarm();
  onLangChange(() => { render(); renderSweep(sweep); });
  render();
  renderSweep(sweep);
}

// α against KL(p‖q) for the draft's training snapshots, plus a table of the same numbers.
function renderSweep(sweep) {
  const W = 440, H = 280, L = 64, R = 14, T = 14, B = 44;
  const pts = sweep.snapshots;
  // log-scaled KL axis: the later snapshots bunch up near small KL on a linear one
  const kls = pts.map((p) => p.kl_mean);
  const lo = Math.log10(Math.min(...kls) / 1.3), hi = Math.log10(Math.max(...kls) * 1.3);
  const x = (kl) => L + ((W - L - R) * (Math.log10(kl) - lo)) / (hi - lo);
  const y = (a) => T + (H - T - B) * (1 - a);
  const ticksX = [0.1, 0.2, 0.5, 1, 2, 5, 10].filter((v) => Math.log10(v) >= lo && Math.log10(v) <= hi);
  const ticksY = [0, 0.25, 0.5, 0.75, 1];
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": t({ zh: "草稿快照的平均接受率 α 与 KL(p‖q)", en: "mean acceptance α of the draft snapshots against KL(p‖q)" }) },
    s("line", { class: "axis", x1: L, y1: y(0), x2: W - R, y2: y(0) }),
    s("line", { class: "axis", x1: L, y1: T, x2: L, y2: y(0) }),
    ticksX.map((v) => s("text", { x: x(v), y: H - B + 18, "text-anchor": "middle" }, String(v))),
    ticksY.map((v) => s("text", { x: L - 8, y: y(v) + 4, "text-anchor": "end" }, fixed(v, 2))),
    s("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle" }, t({ zh: "平均 KL(p‖q),对数刻度(nats)", en: "mean KL(p‖q), log scale (nats)" })),
    s("text", { x: 14, y: (T + y(0)) / 2, transform: `rotate(-90 14 ${(T + y(0)) / 2})`, "text-anchor": "middle" }, t({ zh: "平均 α", en: "mean α" })),
    pts.map((p, i) => s("g", {},
      s("circle", { class: "pt", cx: x(p.kl_mean), cy: y(p.alpha_mean), r: 5 },
        s("title", {}, `step ${p.step}: α ${fixed(p.alpha_mean, 3)}, KL ${fixed(p.kl_mean, 3)}`)),
      s("text", { x: x(p.kl_mean), y: y(p.alpha_mean) + (i % 2 ? 20 : -10), "text-anchor": "middle" }, `${p.step}`))));
  const head = ["step", "α = Σmin(p,q)", t({ zh: "抽样接受率", en: "sampled acceptance" }), "1 − TV", "KL(p‖q)", t({ zh: "草稿 loss", en: "draft loss" })];
  const table = h("table", { class: "calc" },
    h("thead", {}, h("tr", {}, head.map((c) => h("th", {}, c)))),
    h("tbody", {}, pts.map((p) => h("tr", {},
      h("td", {}, String(p.step)), h("td", {}, fixed(p.alpha_mean, 4)), h("td", {}, fixed(p.accept_rate_sampled, 4)),
      h("td", {}, fixed(1 - p.tv_mean, 4)), h("td", {}, fixed(p.kl_mean, 3)), h("td", {}, fixed(p.draft_val_loss, 3))))));
  document.getElementById("sweep-widget").replaceChildren(svg,
    h("p", { class: "caption" }, t({ zh: "数字是草稿模型的训练步数;横轴越靠左、纵轴越靠上,草稿越像主模型。", en: "Numbers are the draft model's training steps; further left and higher up means a draft closer to the main model." })),
    h("div", { class: "chart" }, table));
}
