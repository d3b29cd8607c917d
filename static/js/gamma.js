// Section ③: how many drafts per round. The two formulas over γ = 1..γmax at the sliders' α and c,
// the measured γ sweep with its spread, and the best γ per α. γmax is the longest measured chain.
import { fixed } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { ALPHA_LABEL, MODE_LABEL, modePhrase } from "./labels.js";
import { hashGet, hashSet, onHashChange } from "./state.js";
import { expectedTokens, optimalGamma, speedupTheory } from "./theory.js";

const GAMMA_TABLE_ALPHAS = [0.5, 0.7, 0.85]; // design constants: the rows of the optimal-γ table

// One chart as an SVG string (cheap to rebuild on every slider step): formula curves over
// γ = 1..gammaMax, measured points with min–max whiskers, a level line, a ring on the best γ.
export function gammaChartSvg({ gammaMax, curves, points, level, best, aria }) {
  const W = 360, H = 236, L = 42, R = 14, T = 12, B = 40;
  const values = [level ?? 0, ...curves.flatMap((c) => c.values), ...points.flatMap((p) => [p.value, p.max ?? p.value])];
  const top = Math.max(...values);
  const step = [0.25, 0.5, 1, 2, 5].find((s) => top / s <= 5) ?? 10;
  const ymax = Math.max(step, Math.ceil((top * 1.04) / step) * step);
  const x = (g) => L + ((g - 1) * (W - L - R)) / (gammaMax - 1);
  const y = (v) => T + (H - T - B) * (1 - v / ymax);
  const out = [`<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${aria}">`];
  for (let v = 0; v <= ymax + 1e-9; v += step) {
    out.push(`<line class="grid" x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}"/>`,
      `<text x="${L - 6}" y="${y(v) + 4}" text-anchor="end">${fixed(v, step < 0.5 ? 2 : step < 1 ? 1 : 0)}</text>`);
  }
  for (let g = 1; g <= gammaMax; g++) out.push(`<text x="${x(g)}" y="${H - B + 18}" text-anchor="middle">${g}</text>`);
  out.push(`<text x="${(L + W - R) / 2}" y="${H - 4}" text-anchor="middle">γ</text>`,
    `<line class="axis" x1="${L}" x2="${W - R}" y1="${y(0)}" y2="${y(0)}"/>`);
  if (level !== undefined) out.push(`<line class="level" x1="${L}" x2="${W - R}" y1="${y(level)}" y2="${y(level)}"/>`);
  for (const c of curves) {
    const pts = c.values.map((v, i) => `${x(i + 1).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    out.push(`<polyline class="${c.cls}" points="${pts}"/>`);
    if (c.dots) out.push(c.values.map((v, i) => `<circle class="dot" cx="${x(i + 1)}" cy="${y(v)}" r="3"/>`).join(""));
  }
  if (best) out.push(`<circle class="best" cx="${x(best.gamma)}" cy="${y(best.value)}" r="8"/>`);
  for (const p of points) {
    if (p.min !== undefined) {
      out.push(`<line class="whisker" x1="${x(p.gamma)}" x2="${x(p.gamma)}" y1="${y(p.min)}" y2="${y(p.max)}"/>`,
        `<line class="whisker" x1="${x(p.gamma) - 4}" x2="${x(p.gamma) + 4}" y1="${y(p.min)}" y2="${y(p.min)}"/>`,
        `<line class="whisker" x1="${x(p.gamma) - 4}" x2="${x(p.gamma) + 4}" y1="${y(p.max)}" y2="${y(p.max)}"/>`);
    }
    out.push(`<rect class="pt" x="${x(p.gamma) - 4.5}" y="${y(p.value) - 4.5}" width="9" height="9"><title>${p.title}</title></rect>`);
  }
  out.push("</svg>");
  return out.join("");
}

// The optimal-γ table: one row per design α, then the slider's α (printed as its output prints it).
// Cells are strings; `note` is a muted remark after the γ cell. Where no γ pays, the best is not to
// guess: plain decoding's 1× and one character a forward (readers took γ = 1's figures for the row's).
export function optimalRows(sliderAlpha, c, gammaMax) {
  const row = (alpha, slider) => {
    const o = optimalGamma(alpha, c, gammaMax);
    return {
      alpha: fixed(alpha, slider ? 3 : 2), slider,
      gamma: o.pays ? (o.atEdge ? `${o.gamma}+` : String(o.gamma)) : "–",
      note: o.pays ? null : { zh: "不值得猜", en: "not worth it" },
      speedup: `${fixed(o.pays ? o.speedup : 1, 2)}×`, tokens: fixed(o.pays ? o.tokens : 1, 2),
    };
  };
  return [...GAMMA_TABLE_ALPHAS.map((a) => row(a, false)), row(sliderAlpha, true)];
}

// The two charts of one mode at the sliders' α and c: chart specs for gammaChartSvg, with the
// aria text as a {zh, en} pair. verifyPrices[γ−1]: a verify forward's measured price in main
// forwards (the dashed curve is drawn only when every γ has one; null: not drawn).
export function gammaCharts(rows, { alpha, c, mode }, gammaMax, verifyPrices) {
  const gammas = Array.from({ length: gammaMax }, (_, i) => i + 1);
  const best = optimalGamma(alpha, c, gammaMax);
  const m = modePhrase(mode), a = fixed(alpha, 2), cc = fixed(c, 2);
  return {
    tokens: {
      gammaMax,
      aria: { zh: `每次主 forward 的期望字数曲线（α = ${a}）与${m.zh}的实测点`, en: `expected characters per main forward at α = ${a} with the measured ${m.en} points` },
      curves: [{ cls: "curve", dots: true, values: gammas.map((g) => expectedTokens(alpha, g)) }],
      points: rows.map((r) => ({ gamma: r.gamma, value: r.tokens_per_main,
        title: `γ = ${r.gamma}: ${fixed(r.tokens_per_main, 3)} (α ${fixed(r.alpha, 3)} → ${fixed(r.tokens_per_main_expected, 3)})` })),
    },
    speed: {
      gammaMax,
      aria: { zh: `定理 3.8 的墙钟加速曲线（α = ${a}，c = ${cc}）与${m.zh}的实测加速及其范围`,
        en: `Theorem 3.8 wall-clock speedup at α = ${a}, c = ${cc}, with the measured ${m.en} speedups and their range` },
      level: 1,
      best: best.pays ? { gamma: best.gamma, value: best.speedup } : null, // no ring when no γ pays
      curves: [{ cls: "curve", dots: true, values: gammas.map((g) => speedupTheory(alpha, g, c)) },
        ...(verifyPrices?.every((v) => v > 0) ? [{ cls: "curve2", values: gammas.map((g, i) => speedupTheory(alpha, g, c, verifyPrices[i])) }] : [])],
      points: rows.map((r) => ({ gamma: r.gamma, value: r.speedup, min: r.speedup_runs.min, max: r.speedup_runs.max,
        title: `γ = ${r.gamma}: ${fixed(r.speedup, 2)}× (${fixed(r.speedup_runs.min, 2)}–${fixed(r.speedup_runs.max, 2)}), Theorem 3.8 ${fixed(r.speedup_theory, 2)}×` })),
    },
  };
}

const MEASURED_HEAD = ["γ", ALPHA_LABEL.dec, { zh: "每次主模型 forward 的字数", en: "chars / main forward" },
  { zh: "公式（该行 α）", en: "formula at the row's α" }, { zh: "实测加速（最小–最大）", en: "measured speedup (min–max)" },
  { zh: "定理 3.8（该行 α、c）", en: "Theorem 3.8 at the row's α, c" }];

export function measuredRowHTML(r) {
  return `<tr data-gamma="${r.gamma}"><td>${r.gamma}</td><td>${fixed(r.alpha, 3)}</td><td>${fixed(r.tokens_per_main, 3)}</td>` +
    `<td>${fixed(r.tokens_per_main_expected, 3)}</td><td>${fixed(r.speedup, 2)}× <span class="muted">(${fixed(r.speedup_runs.min, 2)}–${fixed(r.speedup_runs.max, 2)})</span></td>` +
    `<td>${fixed(r.speedup_theory, 2)}×</td></tr>`;
}

export function initGamma(gammaSweep) {
  const el = (id) => document.getElementById(id);
  const gammaMax = Math.max(...gammaSweep.gammas);
  const gammas = Array.from({ length: gammaMax }, (_, i) => i + 1);
  const modes = Object.keys(gammaSweep.c).filter((m) => gammaSweep.rows.some((r) => r.mode === m));
  const rowsOf = (mode) => gammaSweep.rows.filter((r) => r.mode === mode).sort((a, b) => a.gamma - b.gamma);
  const fastest = (mode) => rowsOf(mode).reduce((a, b) => (b.speedup > a.speedup ? b : a));
  const measured = (mode) => ({ alpha: fastest(mode).alpha, c: gammaSweep.c[mode] });
  // the verify's price on each mode's lane (the engine its squares ran on); views/gamma.recompute_verify reads recompute's
  const verifyPrice = (mode, g) => gammaSweep.lane_costs[mode]?.verify_over_main?.[String(g)];
  const sliders = { alpha: el("gamma-alpha"), c: el("gamma-c") };
  const inRange = (text, input) => {
    const v = Number.parseFloat(text);
    return Number.isFinite(v) && v >= Number(input.min) && v <= Number(input.max) ? v : null;
  };
  const defaultMode = modes.includes("kvcache") ? "kvcache" : modes[0];
  const state = {};

  // The widget's state from the hash: the mode's measured values unless α or c are given.
  function fromHash(hash) {
    const mode = modes.includes(hash.gmode) ? hash.gmode : defaultMode;
    Object.assign(state, { mode }, measured(mode));
    state.alpha = inRange(hash.galpha, sliders.alpha) ?? state.alpha;
    state.c = inRange(hash.gc, sliders.c) ?? state.c;
  }

  function renderCharts() {
    // the verify-priced curve belongs to the folded box under the charts: drawn only while it is open
    const priced = el("gamma-numbers").open ? gammas.map((g) => verifyPrice(state.mode, g)) : null;
    const specs = gammaCharts(rowsOf(state.mode), state, gammaMax, priced);
    el("gamma-chart-tokens").innerHTML = gammaChartSvg({ ...specs.tokens, aria: t(specs.tokens.aria) });
    el("gamma-chart-speed").innerHTML = gammaChartSvg({ ...specs.speed, aria: t(specs.speed.aria) });
  }

  function renderOptimal() {
    const rows = optimalRows(state.alpha, state.c, gammaMax).map((r) =>
      `<tr class="${r.slider ? "sel" : ""}"><td>${r.alpha}${r.slider ? `<span class="muted">${t({ zh: "（滑块）", en: " (slider)" })}</span>` : ""}</td>` +
      `<td>${r.gamma}${r.note ? ` <span class="muted">${t(r.note)}</span>` : ""}</td><td>${r.speedup}</td><td>${r.tokens}</td></tr>`);
    el("gamma-optimal").innerHTML =
      `<thead><tr><th scope="col">α</th><th scope="col">${t({ zh: "最优 γ", en: "best γ" })}</th><th scope="col">${t({ zh: "加速", en: "speedup" })}</th><th scope="col">${t({ zh: "每次主模型 forward 的字数", en: "chars / main forward" })}</th></tr></thead><tbody>` +
      rows.join("") + "</tbody>";
    el("gamma-optimal-c").textContent = fixed(state.c, 3);  // as the c slider prints it: the measured c has three decimals
  }

  function renderMeasured() {
    const head = MEASURED_HEAD.map((c) => (typeof c === "string" ? c : t(c)));
    el("gamma-measured").innerHTML = `<thead><tr>${head.map((c) => `<th scope="col">${c}</th>`).join("")}</tr></thead>` +
      `<tbody>${rowsOf(state.mode).map(measuredRowHTML).join("")}</tbody>`;
  }

  function renderControls() {
    sliders.alpha.value = state.alpha;
    sliders.c.value = state.c;
    el("gamma-alpha-out").textContent = fixed(state.alpha, 3);
    el("gamma-c-out").textContent = fixed(state.c, 3);
    for (const m of modes) el(`gamma-mode-${m}`).setAttribute("aria-pressed", String(m === state.mode));
    if (state.mode !== defaultMode) el("gamma-numbers").open = true;  // the switch lives in the folded box: show it when a link picks the other mode
    const m = measured(state.mode), g = fastest(state.mode).gamma;
    // where a verify costs far more than the one forward the formula counts (recompute mode reruns a
    // window per checked position), the note says so: it is why the squares fall below 1× there
    const lo = verifyPrice(state.mode, gammas[0]), hi = verifyPrice(state.mode, gammaMax);
    const dear = state.mode === "recompute" && lo !== undefined && hi !== undefined ? {
      zh: `；这种模式下每个被验收的位置都重算自己的整个窗口，所以验收一次要 ${fixed(lo, 1)}（γ = ${gammas[0]}）到 ${fixed(hi, 1)}（γ = ${gammaMax}）次主模型 forward，公式只算 1 次`,
      en: `; in this mode each checked position reruns its whole window, so a verify costs ${fixed(lo, 1)} (γ = ${gammas[0]}) to ${fixed(hi, 1)} (γ = ${gammaMax}) main forwards, where the formula counts one`,
    } : { zh: "", en: "" };
    el("gamma-measured-note").textContent = t({
      zh: `${modePhrase(state.mode).zh}实测：最快一行（γ = ${g}）解码实测的 α = ${fixed(m.alpha, 3)}，c = ${fixed(m.c, 3)}${dear.zh}`,
      en: `measured in ${modePhrase(state.mode).en}: α while decoding = ${fixed(m.alpha, 3)} in the fastest row (γ = ${g}), c = ${fixed(m.c, 3)}${dear.en}`,
    });
  }

  // A slider step redraws only what depends on α and c (the 8 ms budget); the rest on a mode change.
  function renderCurves() {
    el("gamma-alpha-out").textContent = fixed(state.alpha, 3);
    el("gamma-c-out").textContent = fixed(state.c, 3);
    renderCharts();
    renderOptimal();
  }

  function render() {
    renderControls();
    renderMeasured();
    renderCurves();
  }

  sliders.alpha.addEventListener("input", () => { state.alpha = Number(sliders.alpha.value); renderCurves(); });
  sliders.c.addEventListener("input", () => { state.c = Number(sliders.c.value); renderCurves(); });
  // the hash is written when a drag ends, not on every step (browsers throttle history updates)
  sliders.alpha.addEventListener("change", () => hashSet("galpha", fixed(state.alpha, 2)));
  sliders.c.addEventListener("change", () => hashSet("gc", fixed(state.c, 2)));
  const loadMeasured = (mode) => {
    Object.assign(state, { mode }, measured(mode));
    hashSet("gmode", mode);
    render();
  };
  for (const m of modes) el(`gamma-mode-${m}`).addEventListener("click", () => loadMeasured(m));
  el("gamma-reset").addEventListener("click", () => loadMeasured(state.mode));
  el("gamma-numbers").addEventListener("toggle", renderCharts);  // the dashed curve comes and goes with the box
  onHashChange((hash) => { fromHash(hash); render(); });
  onLangChange(render);
  fromHash({ gmode: hashGet("gmode"), galpha: hashGet("galpha"), gc: hashGet("gc") });
  render();
}
