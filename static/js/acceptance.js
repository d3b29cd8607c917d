// Section ②: the acceptance rule on real val positions (p and q, the 200k-draw histogram, the
// calculation card) and "draw it yourself", which runs the same rule in the page on the same
// position. The two panels share the chosen position, so they live in one module.
import { columnChart, h, readoutBox } from "./dom.js";
import { charLabel, fixed, grouped, percent, sci } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { alphaOf, draftAndVerify, mulberry32, totalVariation } from "./rule.js";
import { hashGet, hashSet, intInRange, onHashChange } from "./state.js";

const KIND = {
  high: { zh: "高一致", en: "high agreement" },
  typical: { zh: "典型", en: "typical" },
  low: { zh: "低一致", en: "low agreement" },
  overweight: { zh: "草稿偏爱某字", en: "draft favours a char" },
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

// The char the card opens on. At the "draft favours a char" position, the char q over-weights (q > p:
// the rule's other case, all of it through route (1)). Elsewhere a char that reaches the output by
// both routes, accepted and redrawn (p > q > 0): the one whose smaller route is largest; failing
// that, the main model's favourite.
export function defaultChar(pos, vocab) {
  if (pos.overweight_char != null) return vocab.indexOf(pos.overweight_char);
  const both = pos.p.map((pi, i) => Math.min(pos.q[i], pi - pos.q[i]));
  const best = both.indexOf(Math.max(...both));
  return both[best] > 0 ? best : pos.p.indexOf(Math.max(...pos.p));
}

// A histogram of output chars against p, as columnChart columns: counts of n draws.
export function histColumns(vocab, ids, counts, n, p) {
  const total = Math.max(1, n);
  return ids.map((i) => ({
    key: i, label: charLabel(vocab[i]),
    title: `${charLabel(vocab[i])}: ${grouped(counts[i])} / ${grouped(n)} = ${fixed(counts[i] / total, 4)}, p ${fixed(p[i], 4)}`,
    cells: [grouped(counts[i]), fixed(counts[i] / total, 4), fixed(p[i], 4)],
    bars: [{ cls: "out", value: counts[i] / total }], tick: p[i],
  }));
}

const CONTEXT_SHOWN = 48;  // characters of a position's context the strip shows, its end
export const HIST_HEAD = [{ zh: "字符", en: "character" }, { zh: "次数", en: "count" }, { zh: "频率", en: "frequency" }, { zh: "p", en: "p" }];

// The calculation card for char x: [{label, value}], labels as {zh, en} or plain strings.
export function calcRows(pos, vocab, x, draws) {
  const r = routes(pos.p, pos.q, x);
  const c = `“${charLabel(vocab[x])}”`;
  return [
    { label: `q(${c})`, value: fixed(pos.q[x], 5) },
    { label: `p(${c})`, value: fixed(pos.p[x], 5) },
    { label: { zh: "接受概率 min(1, p/q)", en: "acceptance probability min(1, p/q)" }, value: fixed(r.acceptProb, 5) },
    { label: { zh: "(1) 抽中并接受：q·min(1, p/q) = min(p, q)", en: "(1) drafted and accepted: q·min(1, p/q) = min(p, q)" }, value: fixed(r.viaAccept, 5) },
    { label: { zh: "此位置的拒绝总概率 1 − α", en: "total rejection probability here, 1 − α" }, value: fixed(1 - r.alpha, 5) },
    { label: { zh: `残差分布给 ${c} 的概率 max(0, p−q)/(1−α)`, en: `residual probability of ${c}, max(0, p−q)/(1−α)` }, value: fixed(r.residualX, 5) },
    { label: { zh: "(2) 拒绝后重抽到它：(1−α)·残差 = max(0, p−q)", en: "(2) rejected, then redrawn: (1−α)·residual = max(0, p−q)" }, value: fixed(r.viaResidual, 5) },
    { label: "(1) + (2) = p", value: fixed(r.total, 5), strong: true },
    { label: { zh: `${grouped(draws)} 次实测频率`, en: `measured frequency in ${grouped(draws)} draws` }, value: fixed(pos.counts[x] / draws, 5) },
  ];
}

// The readouts of the measured draws at one position: [{value, key, cls}].
export function acceptReadouts(pos, draws) {
  const se = Math.sqrt((pos.alpha_theory * (1 - pos.alpha_theory)) / draws);
  const fine = pos.chi2_p > 0.01;
  return [
    { value: `${fixed(pos.accept_rate, 4)} vs ${fixed(pos.alpha_theory, 4)}`,
      key: { zh: `${grouped(draws)} 次里的接受率 vs 理论 Σmin(p,q)（标准误 ${fixed(se, 4)}）`, en: `acceptance rate in ${grouped(draws)} draws vs theory Σmin(p,q) (standard error ${fixed(se, 4)})` } },
    { value: `${fixed(pos.tv_out_p, 4)} vs ${fixed(pos.tv_q_p, 4)}`,
      key: { zh: "总变差距离：输出与 p 之间 vs 草稿 q 与 p 之间", en: "total variation: output from p vs the draft q from p" } },
    { value: { zh: `p 值 ${sci(pos.chi2_p)}`, en: `p-value ${sci(pos.chi2_p)}` }, cls: fine ? "good" : "warn",
      key: { zh: `卡方检验 χ² = ${fixed(pos.chi2_stat, 1)}，自由度 ${pos.chi2_dof}：${fine ? "看不出输出和 p 有差别" : "输出与 p 有显著差别"}`,
        en: `chi-square χ² = ${fixed(pos.chi2_stat, 1)}, ${pos.chi2_dof} degrees of freedom: ${fine ? "no detectable difference between the output and p" : "the output differs from p"}` } },
  ];
}

export function initAcceptance(acceptance) {
  const { vocab, positions, draws } = acceptance;
  const el = (id) => document.getElementById(id);
  const defaultPos = Math.max(0, positions.findIndex((x) => x.kind === "typical"));
  const posFromHash = (value) => intInRange(value, 0, positions.length - 1, defaultPos);
  const state = { pos: posFromHash(hashGet("pos")), all: false, char: null };
  const draw = { counts: null, n: 0, accepted: 0, rand: null, last: null };
  const current = () => positions[state.pos];
  const head = () => HIST_HEAD.map(t);

  function resetDraws() {
    draw.counts = new Array(vocab.length).fill(0);
    draw.n = 0;
    draw.accepted = 0;
    draw.last = null;
    draw.rand = mulberry32(1 + state.pos);
  }

  function renderPicker() {
    el("accept-positions").replaceChildren(...positions.map((pos, i) => h("button", {
      type: "button", "aria-pressed": String(i === state.pos), onclick: () => pick(i),
    }, `${t(KIND[pos.kind] || { zh: pos.kind, en: pos.kind })} · α ${fixed(pos.alpha_theory, 2)}`)));
    const ctx = current().context;
    // the strip shows the context's end; a leading ellipsis says the rest of the 64 characters is there
    const shown = ctx.length > CONTEXT_SHOWN ? `…${ctx.slice(-CONTEXT_SHOWN)}` : ctx;
    el("accept-context").replaceChildren(h("span", {}, shown.replace(/\n/g, "↵")),
      h("span", { class: "here", title: t({ zh: "要预测的位置", en: "the position being predicted" }) }, "?"));
  }

  function renderCharts() {
    const pos = current();
    const ids = shownChars(pos.p, pos.q, state.all);
    columnChart(el("accept-pq"), ids.map((i) => ({
      key: i, label: charLabel(vocab[i]), title: `${charLabel(vocab[i])}: p ${fixed(pos.p[i], 4)}, q ${fixed(pos.q[i], 4)}`,
      bars: [{ cls: "p", value: pos.p[i] }, { cls: "q", value: pos.q[i] }],
    })), { selected: state.char, onPick: (i) => { state.char = i; renderCharts(); renderCalc(); } });
    columnChart(el("accept-hist"), histColumns(vocab, ids, pos.counts, draws, pos.p), {
      selected: state.char, head: head(),
      caption: t({ zh: `${grouped(draws)} 次经过接受规则的输出：每个字符的次数、频率和 p`, en: `output of ${grouped(draws)} draws through the rule: each character's count, frequency and p` }),
    });
    renderDrawChart(ids);
  }

  function renderCalc() {
    const rows = calcRows(current(), vocab, state.char, draws);
    const text = (x) => (typeof x === "string" ? x : t(x));
    el("accept-calc").replaceChildren(
      h("h3", {}, t({ zh: `计算卡：字 “${charLabel(vocab[state.char])}”`, en: `Calculation card: “${charLabel(vocab[state.char])}”` })),
      h("table", {}, h("tbody", {}, rows.map((r) => h("tr", {}, h("td", {}, text(r.label)),
        h("td", {}, r.strong ? h("strong", {}, r.value) : r.value))))));
  }

  function renderDrawChart(ids) {
    const pos = current();
    const n = Math.max(1, draw.n);
    columnChart(el("draw-hist"), histColumns(vocab, ids, draw.counts, draw.n, pos.p), {
      selected: state.char, head: head(),
      max: Math.max(...ids.map((i) => Math.max(pos.p[i], draw.counts[i] / n))),
      caption: t({ zh: `你抽的 ${grouped(draw.n)} 次：每个字符的次数、频率和 p`, en: `your ${grouped(draw.n)} draws: each character's count, frequency and p` }),
    });
    const freq = draw.counts.map((cnt) => cnt / n);
    const last = draw.last ? t(draw.last.accepted
      ? { zh: `上一次：草稿 “${charLabel(vocab[draw.last.token])}” 被接受`, en: `last draw: draft “${charLabel(vocab[draw.last.token])}” accepted` }
      : { zh: `上一次：草稿被拒绝，从残差重抽出 “${charLabel(vocab[draw.last.token])}”`, en: `last draw: draft rejected, redrawn from the residual: “${charLabel(vocab[draw.last.token])}”` }) : "";
    el("draw-readouts").replaceChildren(
      readoutBox(grouped(draw.n), t({ zh: "已抽次数", en: "draws so far" })),
      readoutBox(draw.n ? `${percent(draw.accepted / draw.n)} vs ${percent(pos.alpha_theory)}` : "–",
        t({ zh: "接受率 vs 理论 α", en: "accepted vs theory α" })),
      readoutBox(draw.n ? fixed(totalVariation(freq, pos.p), 4) : "–", t({ zh: "你的频率与 p 的总变差 TV", en: "TV(your frequencies, p)" })),
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

  // A new position: its default char, and a first hundred draws already made to read.
  function load(i) {
    state.pos = i;
    state.char = defaultChar(positions[i], vocab);
    resetDraws();
    drawMany(100, false);
  }

  function pick(i) {
    load(i);
    hashSet("pos", i);
    render();
  }

  function render() {
    renderPicker();
    renderCharts();
    el("accept-readouts").replaceChildren(...acceptReadouts(current(), draws).map((r) =>
      readoutBox(typeof r.value === "string" ? r.value : t(r.value), t(r.key), r.cls)));
    renderCalc();
  }

  el("accept-all").addEventListener("change", (e) => { state.all = e.target.checked; renderCharts(); });
  for (const k of [1, 100, 10000]) el(`draw-${k}`).addEventListener("click", () => drawMany(k));
  el("draw-reset").addEventListener("click", () => { resetDraws(); renderCharts(); });
  onHashChange((hash) => {
    const i = posFromHash(hash.pos);
    if (i !== state.pos) { load(i); render(); }
  });
  onLangChange(render);
  load(state.pos);
  render();
}
