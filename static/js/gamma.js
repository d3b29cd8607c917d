// Section ③: how many drafts per round. The two formulas over γ = 1..8 at the sliders' α and c,
// the measured γ sweep with its spread, the best γ per α, and the two FAQ panels built on the runs
// (gains from one γ to the next, accepted-run lengths against the geometric law).
import { columnChart, h, readoutBox } from "./dom.js";
import { fixed, grouped, percent, sci } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { hashGet, hashSet } from "./state.js";

const GAMMA_MAX = 8;
const GAMMA_TABLE_ALPHAS = [0.5, 0.7, 0.85]; // design constants: the rows of the optimal-γ table
export const MODE_LABEL = {
  kvcache: { zh: "KV cache", en: "kv-cache" },
  recompute: { zh: "整窗重算", en: "recompute" },
};

// Expected characters per main forward when each of γ drafts passes independently with prob. α:
// 1 + α + … + α^γ = (1 − α^{γ+1}) / (1 − α)   (Leviathan et al. 2023, eq. 1)
export function expectedTokens(alpha, gamma) {
  if (alpha >= 1) return gamma + 1;
  return (1 - alpha ** (gamma + 1)) / (1 - alpha);
}

// Theorem 3.8: expected wall-clock improvement when a draft forward costs c main forwards.
export function speedupTheory(alpha, gamma, c) {
  return expectedTokens(alpha, gamma) / (gamma * c + 1);
}

// The best γ in 1..maxGamma; atEdge: a longer chain would do better still; pays: beats plain.
export function optimalGamma(alpha, c, maxGamma = GAMMA_MAX) {
  let best = 1;
  for (let g = 2; g <= maxGamma; g++) {
    if (speedupTheory(alpha, g, c) > speedupTheory(alpha, best, c)) best = g;
  }
  const speedup = speedupTheory(alpha, best, c);
  return {
    gamma: best, speedup, tokens: expectedTokens(alpha, best), pays: speedup > 1,
    atEdge: best === maxGamma && speedupTheory(alpha, maxGamma + 1, c) > speedup,
  };
}

// One row's run lengths against the geometric law, as measured (experiments/measure.py
// burst_check writes the expected counts and the chi-square); here only the ratios to read.
export function burstCheck(row) {
  const observed = row.run_lengths, { expected, chi2, dof, p } = row.burst;
  const gamma = observed.length - 1;
  const rounds = observed.reduce((a, b) => a + b, 0);
  const meanOf = (counts) => counts.reduce((s, n, k) => s + n * k, 0) / rounds;
  return {
    gamma, rounds, observed, expected, chi2, dof, p,
    ratioZero: observed[0] / expected[0], ratioAll: observed[gamma] / expected[gamma],
    meanObserved: meanOf(observed), meanLaw: meanOf(expected),
  };
}

// The measured pooled test of a mode's rows, plus how many of those rows show excess at each end.
export function pooledBurstCheck(checks, pooled) {
  const used = checks.filter((b) => b.dof > 0);
  return {
    ...pooled,
    moreZero: used.filter((b) => b.ratioZero > 1).length,
    moreAll: used.filter((b) => b.ratioAll > 1).length,
  };
}

// The α at which E(α, γ) equals `tokens` (E rises with α, so bisection is enough).
export function alphaForTokens(tokens, gamma) {
  let lo = 0, hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (expectedTokens(mid, gamma) < tokens) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

// Consecutive measured γs of one mode: what the longer chain gained, what it would have gained
// at the shorter chain's α, and how low its α could fall before it gained nothing at all.
export function gammaSteps(rows) {
  const sorted = [...rows].sort((a, b) => a.gamma - b.gamma);
  return sorted.slice(1).map((b, i) => {
    const a = sorted[i];
    return {
      from: a.gamma, to: b.gamma, alphaFrom: a.alpha, alphaTo: b.alpha,
      tokensFrom: a.tokens_per_main, tokensTo: b.tokens_per_main,
      gain: b.tokens_per_main - a.tokens_per_main,
      gainSameAlpha: expectedTokens(a.alpha, b.gamma) - expectedTokens(a.alpha, a.gamma),
      alphaBreakEven: alphaForTokens(expectedTokens(a.alpha, a.gamma), b.gamma),
    };
  });
}

// A readout box (value over its explanation), as sections ① and ② show them.
// One chart as an SVG string (cheap to rebuild on every slider step): formula curves over
// γ = 1..8, measured points with min–max whiskers, a level line, a ring on the best γ.
function gammaChartSvg({ curves, points, level, best, aria }) {
  const W = 360, H = 236, L = 42, R = 14, T = 12, B = 40;
  const values = [level ?? 0, ...curves.flatMap((c) => c.values), ...points.flatMap((p) => [p.value, p.max ?? p.value])];
  const top = Math.max(...values);
  const step = [0.25, 0.5, 1, 2, 5].find((s) => top / s <= 5) ?? 10;
  const ymax = Math.max(step, Math.ceil((top * 1.04) / step) * step);
  const x = (g) => L + ((g - 1) * (W - L - R)) / (GAMMA_MAX - 1);
  const y = (v) => T + (H - T - B) * (1 - v / ymax);
  const out = [`<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${aria}">`];
  for (let v = 0; v <= ymax + 1e-9; v += step) {
    out.push(`<line class="grid" x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}"/>`,
      `<text x="${L - 6}" y="${y(v) + 4}" text-anchor="end">${fixed(v, step < 0.5 ? 2 : step < 1 ? 1 : 0)}</text>`);
  }
  for (let g = 1; g <= GAMMA_MAX; g++) out.push(`<text x="${x(g)}" y="${H - B + 18}" text-anchor="middle">${g}</text>`);
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

export function initGamma(gammaSweep, ledger) {
  const el = (id) => document.getElementById(id);
  const modes = Object.keys(gammaSweep.c).filter((m) => gammaSweep.rows.some((r) => r.mode === m));
  const rowsOf = (mode) => gammaSweep.rows.filter((r) => r.mode === mode).sort((a, b) => a.gamma - b.gamma);
  const fastest = (mode) => rowsOf(mode).reduce((a, b) => (b.speedup > a.speedup ? b : a));
  const measured = (mode) => ({ alpha: fastest(mode).alpha, c: gammaSweep.c[mode] });
  const sliders = { alpha: el("gamma-alpha"), c: el("gamma-c") };
  const inRange = (text, input) => {
    const v = Number.parseFloat(text);
    return Number.isFinite(v) && v >= Number(input.min) && v <= Number(input.max) ? v : null;
  };
  const startMode = modes.includes(hashGet("gmode")) ? hashGet("gmode") : modes.includes("kvcache") ? "kvcache" : modes[0];
  const state = { mode: startMode, ...measured(startMode) };
  state.alpha = inRange(hashGet("galpha"), sliders.alpha) ?? state.alpha;
  state.c = inRange(hashGet("gc"), sliders.c) ?? state.c;
  const burst = { mode: state.mode, gamma: Math.max(...rowsOf(state.mode).map((r) => r.gamma)) };

  const verifyPrice = (mode, g) => ledger.forward_costs[mode]?.verify_over_main?.[String(g)];
  const gammas = Array.from({ length: GAMMA_MAX }, (_, i) => i + 1);

  function renderCharts() {
    const { alpha, c, mode } = state;
    const rows = rowsOf(mode);
    const best = optimalGamma(alpha, c);
    const modeName = t(MODE_LABEL[mode]);
    el("gamma-chart-tokens").innerHTML = gammaChartSvg({
      aria: t({ zh: `每次主 forward 的期望字数曲线(α = ${fixed(alpha, 2)})与 ${modeName} 模式的实测点`,
        en: `expected characters per main forward at α = ${fixed(alpha, 2)} with the measured ${modeName} points` }),
      curves: [{ cls: "curve", dots: true, values: gammas.map((g) => expectedTokens(alpha, g)) }],
      points: rows.map((r) => ({ gamma: r.gamma, value: r.tokens_per_main,
        title: `γ = ${r.gamma}: ${fixed(r.tokens_per_main, 3)} (α ${fixed(r.alpha, 3)} → ${fixed(r.tokens_per_main_expected, 3)})` })),
    });
    const priced = gammas.map((g) => verifyPrice(mode, g));
    el("gamma-chart-speed").innerHTML = gammaChartSvg({
      aria: t({ zh: `Theorem 3.8 的墙钟加速曲线(α = ${fixed(alpha, 2)},c = ${fixed(c, 2)})与 ${modeName} 模式的实测加速及其范围`,
        en: `Theorem 3.8 wall-clock speedup at α = ${fixed(alpha, 2)}, c = ${fixed(c, 2)}, with the measured ${modeName} speedups and their range` }),
      level: 1,
      best: { gamma: best.gamma, value: best.speedup },
      curves: [{ cls: "curve", dots: true, values: gammas.map((g) => speedupTheory(alpha, g, c)) },
        ...(priced.every((v) => v > 0) ? [{ cls: "curve2", values: gammas.map((g, i) => expectedTokens(alpha, g) / (g * c + priced[i])) }] : [])],
      points: rows.map((r) => ({ gamma: r.gamma, value: r.speedup, min: r.speedup_runs.min, max: r.speedup_runs.max,
        title: `γ = ${r.gamma}: ${fixed(r.speedup, 2)}× (${fixed(r.speedup_runs.min, 2)}–${fixed(r.speedup_runs.max, 2)}), Theorem 3.8 ${fixed(r.speedup_theory, 2)}×` })),
    });
    return best;
  }

  function renderReadouts(best) {
    const { alpha, c } = state;
    const readout = (value, key) => `<div class="readout"><div class="v">${value}</div><div class="k">${key}</div></div>`;
    const gammaText = best.atEdge ? `${best.gamma}+` : String(best.gamma);
    const pays = alpha > c;
    el("gamma-readouts").innerHTML = [
      readout(best.pays ? `γ* = ${gammaText} · ${fixed(best.speedup, 2)}×` : `${fixed(best.speedup, 2)}×`,
        t(best.pays
          ? { zh: `γ = 1..${GAMMA_MAX} 里 Theorem 3.8 给出的最快一档${best.atEdge ? "(再长还会更快)" : ""}`, en: `the fastest γ in 1..${GAMMA_MAX} by Theorem 3.8${best.atEdge ? " (longer chains would be faster still)" : ""}` }
          : { zh: `γ = 1..${GAMMA_MAX} 里最好的一档也不如普通解码:这个 α 和 c 下不值得猜`, en: `even the best γ in 1..${GAMMA_MAX} loses to plain decoding: at this α and c, guessing does not pay` })),
      readout(fixed(best.tokens, 2), t({ zh: `γ = ${best.gamma} 时每次主 forward 期望吐出的字数`, en: `expected characters per main forward at γ = ${best.gamma}` })),
      readout(`α ${pays ? ">" : "≤"} c`, t(pays
        ? { zh: `${fixed(alpha, 2)} > ${fixed(c, 2)}:γ = 1 就已经比普通解码快,(1 + α)/(1 + c) = ${fixed((1 + alpha) / (1 + c), 2)}×`, en: `${fixed(alpha, 2)} > ${fixed(c, 2)}: even γ = 1 beats plain decoding, (1 + α)/(1 + c) = ${fixed((1 + alpha) / (1 + c), 2)}×` }
        : { zh: `${fixed(alpha, 2)} ≤ ${fixed(c, 2)}:γ = 1 没有收益`, en: `${fixed(alpha, 2)} ≤ ${fixed(c, 2)}: γ = 1 gains nothing` })),
    ].join("");
  }

  function renderOptimal() {
    const { alpha, c } = state;
    const line = (a, label, cls) => {
      const o = optimalGamma(a, c);
      const g = o.pays ? (o.atEdge ? `${o.gamma}+` : String(o.gamma)) : "–";
      const note = o.pays ? "" : ` <span class="muted">${t({ zh: "不值得猜", en: "not worth it" })}</span>`;
      return `<tr class="${cls}"><td>${label}</td><td>${g}${note}</td><td>${fixed(o.speedup, 2)}×</td><td>${fixed(o.tokens, 2)}</td></tr>`;
    };
    el("gamma-optimal").innerHTML =
      `<thead><tr><th scope="col">α</th><th scope="col">${t({ zh: "最优 γ", en: "best γ" })}</th><th scope="col">${t({ zh: "加速", en: "speedup" })}</th><th scope="col">${t({ zh: "字 / 主 forward", en: "chars / main forward" })}</th></tr></thead><tbody>` +
      GAMMA_TABLE_ALPHAS.map((a) => line(a, fixed(a, 2), "")).join("") +
      line(alpha, `${fixed(alpha, 2)} <span class="muted">${t({ zh: "(滑块)", en: "(slider)" })}</span>`, "sel") + "</tbody>";
    el("gamma-optimal-c").textContent = fixed(c, 2);
  }

  function renderMeasured() {
    const rows = rowsOf(state.mode);
    const head = ["γ", t({ zh: "实测 α", en: "measured α" }), t({ zh: "字 / 主 forward", en: "chars / main forward" }),
      t({ zh: "公式(该行 α)", en: "formula at the row's α" }), t({ zh: "实测加速(最小–最大)", en: "measured speedup (min–max)" }),
      t({ zh: "Theorem 3.8(该行 α、c)", en: "Theorem 3.8 at the row's α, c" })];
    el("gamma-measured").innerHTML = `<thead><tr>${head.map((c) => `<th scope="col">${c}</th>`).join("")}</tr></thead><tbody>` +
      rows.map((r) => `<tr data-gamma="${r.gamma}"><td>${r.gamma}</td><td>${fixed(r.alpha, 3)}</td><td>${fixed(r.tokens_per_main, 3)}</td>` +
        `<td>${fixed(r.tokens_per_main_expected, 3)}</td><td>${fixed(r.speedup, 2)}× <span class="muted">(${fixed(r.speedup_runs.min, 2)}–${fixed(r.speedup_runs.max, 2)})</span></td>` +
        `<td>${fixed(r.speedup_theory, 2)}×</td></tr>`).join("") + "</tbody>";
  }

  function renderControls() {
    el("gamma-alpha-out").textContent = fixed(state.alpha, 3);
    el("gamma-c-out").textContent = fixed(state.c, 3);
    for (const m of modes) el(`gamma-mode-${m}`).setAttribute("aria-pressed", String(m === state.mode));
    const m = measured(state.mode);
    el("gamma-measured-note").textContent = t({
      zh: `${t(MODE_LABEL[state.mode])} 模式实测:最快一行(γ = ${fastest(state.mode).gamma})的 α = ${fixed(m.alpha, 3)},c = ${fixed(m.c, 3)}`,
      en: `measured in ${t(MODE_LABEL[state.mode])} mode: α = ${fixed(m.alpha, 3)} in the fastest row (γ = ${fastest(state.mode).gamma}), c = ${fixed(m.c, 3)}`,
    });
  }

  function render() {
    renderControls();
    renderReadouts(renderCharts());
    renderOptimal();
  }

  function setSliders() {
    sliders.alpha.value = state.alpha;
    sliders.c.value = state.c;
  }

  function renderSteps() {
    const blocks = modes.map((mode) => {
      const steps = gammaSteps(rowsOf(mode));
      const body = steps.map((s) => `<tr class="${s.gain <= 0 ? "warn" : ""}"><td>${s.from} → ${s.to}</td>` +
        `<td>${fixed(s.alphaFrom, 3)} → ${fixed(s.alphaTo, 3)}</td><td>${fixed(s.tokensFrom, 3)} → ${fixed(s.tokensTo, 3)}</td>` +
        `<td>${s.gain >= 0 ? "+" : "−"}${fixed(Math.abs(s.gain), 3)}</td><td>+${fixed(s.gainSameAlpha, 3)}</td><td>${fixed(s.alphaBreakEven, 3)}</td></tr>`).join("");
      return { mode, steps, html: `<tr class="group"><th colspan="6" scope="rowgroup">${t(MODE_LABEL[mode])}</th></tr>${body}` };
    });
    const head = ["γ", t({ zh: "两行的实测 α", en: "the two rows' α" }), t({ zh: "字 / 主 forward", en: "chars / main forward" }),
      t({ zh: "实测增量", en: "measured gain" }), t({ zh: "α 不变时的增量", en: "gain at the same α" }),
      t({ zh: "增量归零的 α", en: "break-even α" })];
    const all = blocks.flatMap((b) => b.steps.map((s) => ({ ...s, mode: b.mode })));
    const drops = all.filter((s) => s.gain <= 0);
    const alphas = gammaSweep.rows.map((r) => r.alpha);
    const spread = `${fixed(Math.min(...alphas), 3)}–${fixed(Math.max(...alphas), 3)}`;
    const smallest = all.reduce((a, b) => (b.gain / (b.to - b.from) < a.gain / (a.to - a.from) ? b : a));
    let verdict;
    if (drops.length) {
      verdict = drops.map((s) => t({
        zh: `${t(MODE_LABEL[s.mode])} 模式从 γ = ${s.from} 到 ${s.to},每次主 forward 的字数从 ${fixed(s.tokensFrom, 3)} 降到 ${fixed(s.tokensTo, 3)}:γ = ${s.to} 那一行的 α 只有 ${fixed(s.alphaTo, 3)},已低于让它白加的 ${fixed(s.alphaBreakEven, 3)}。`,
        en: `In ${t(MODE_LABEL[s.mode])} mode, going from γ = ${s.from} to ${s.to} lowered the characters per main forward from ${fixed(s.tokensFrom, 3)} to ${fixed(s.tokensTo, 3)}: the γ = ${s.to} row's α was only ${fixed(s.alphaTo, 3)}, below the ${fixed(s.alphaBreakEven, 3)} at which the longer chain gains nothing.`,
      })).join(" ");
    } else {
      const s = smallest;
      verdict = t({
        zh: `这次测量里没有哪一行比前一行吐得少。增长最小的是 ${t(MODE_LABEL[s.mode])} 模式从 γ = ${s.from} 到 ${s.to}:只多了 ${fixed(s.gain, 3)} 个字。只要 γ = ${s.to} 那一行的 α 从 ${fixed(s.alphaTo, 3)} 跌到 ${fixed(s.alphaBreakEven, 3)},这点增长就没了;而各行实测 α 本身就在 ${spread} 之间浮动。`,
        en: `In this run no row emits fewer than the one before it. The smallest gain is in ${t(MODE_LABEL[s.mode])} mode from γ = ${s.from} to ${s.to}: just ${fixed(s.gain, 3)} characters more. Had the γ = ${s.to} row's α fallen from ${fixed(s.alphaTo, 3)} to ${fixed(s.alphaBreakEven, 3)}, that gain would be gone, and the measured α of the rows already ranges over ${spread}.`,
      });
    }
    // what the longer chain of the step named above throws away per round
    const named = drops[0] ?? smallest;
    const long = rowsOf(named.mode).find((r) => r.gamma === named.to);
    const kept = burstCheck(long).meanObserved;
    verdict += " " + t({
      zh: `被拒绝的草稿是另一笔账:${t(MODE_LABEL[named.mode])} 模式 γ = ${named.to} 那一行,每个完整轮次的 ${named.to} 个草稿平均只留下 ${fixed(kept, 2)} 个,其余 ${fixed(named.to - kept, 2)} 个被拒绝或根本没轮到验收,草稿员在它们身上花的时间全部白费。`,
      en: `Rejected drafts are the other cost: in the ${t(MODE_LABEL[named.mode])} row with γ = ${named.to}, a full round keeps on average only ${fixed(kept, 2)} of its ${named.to} drafts; the other ${fixed(named.to - kept, 2)} are rejected or never even checked, and the drafter's time on them is wasted.`,
    });
    el("gamma-steps").replaceChildren(
      h("div", { class: "chart" }, Object.assign(h("table", { class: "calc numbers" }), {
        innerHTML: `<thead><tr>${head.map((c) => `<th scope="col">${c}</th>`).join("")}</tr></thead><tbody>${blocks.map((b) => b.html).join("")}</tbody>`,
      })),
      h("p", { id: "gamma-steps-verdict" }, verdict));
  }

  function renderBursts() {
    const rows = rowsOf(burst.mode).filter((r) => r.gamma >= 2);
    if (!rows.some((r) => r.gamma === burst.gamma)) burst.gamma = Math.max(...rows.map((r) => r.gamma));
    const row = rows.find((r) => r.gamma === burst.gamma);
    for (const m of modes) el(`bursts-mode-${m}`).setAttribute("aria-pressed", String(m === burst.mode));
    el("bursts-gamma").replaceChildren(...rows.map((r) => h("button", {
      type: "button", "data-gamma": r.gamma, "aria-pressed": String(r.gamma === burst.gamma),
      onclick: () => { burst.gamma = r.gamma; renderBursts(); el("bursts-gamma").querySelector(`[data-gamma="${r.gamma}"]`).focus(); },
    }, `γ = ${r.gamma}`)));
    const b = burstCheck(row);
    columnChart(el("bursts-chart"), b.observed.map((n, k) => ({
      key: k, label: String(k),
      title: t({ zh: `接受 ${k} 个:实测 ${grouped(n)} 轮,独立假设下 ${fixed(b.expected[k], 1)} 轮`, en: `${k} accepted: ${grouped(n)} rounds measured, ${fixed(b.expected[k], 1)} under independence` }),
      bars: [{ cls: "out", value: n / b.rounds }], tick: b.expected[k] / b.rounds,
    })));
    const pooled = pooledBurstCheck(rows.map(burstCheck), gammaSweep.burst_pooled[burst.mode]);
    const vs = (k) => `${grouped(b.observed[k])} vs ${fixed(b.expected[k], 0)}`;
    el("bursts-readouts").replaceChildren(
      readoutBox(grouped(b.rounds), t({ zh: `完整轮次(每轮 ${b.gamma} 个草稿,${gammaSweep.repeats} 次重复合计),α = ${fixed(row.alpha, 3)}`, en: `full rounds (${b.gamma} drafts each, ${gammaSweep.repeats} repeats pooled), α = ${fixed(row.alpha, 3)}` })),
      readoutBox(vs(0), t({ zh: `一个都没接受的轮次:实测 vs 几何分布(×${fixed(b.ratioZero, 2)})`, en: `rounds with none accepted: measured vs the geometric law (×${fixed(b.ratioZero, 2)})` })),
      readoutBox(vs(b.gamma), t({ zh: `${b.gamma} 个全部接受的轮次:实测 vs 几何分布(×${fixed(b.ratioAll, 2)})`, en: `rounds with all ${b.gamma} accepted: measured vs the geometric law (×${fixed(b.ratioAll, 2)})` })),
      readoutBox(`${fixed(b.meanObserved, 3)} vs ${fixed(b.meanLaw, 3)}`, t({ zh: "每轮平均接受几个:实测 vs 几何分布", en: "mean accepted per round: measured vs the geometric law" })),
      readoutBox(`χ² ${fixed(b.chi2, 1)} · p ${sci(b.p)}`, t({ zh: `这一行的卡方检验,自由度 ${b.dof}`, en: `chi-square test of this row, ${b.dof} degrees of freedom` })),
      readoutBox(`χ² ${fixed(pooled.chi2, 1)} · p ${sci(pooled.p)}`, t({ zh: `${t(MODE_LABEL[burst.mode])} 模式 γ ≥ 2 的 ${pooled.rows} 行合并,自由度 ${pooled.dof}`, en: `the ${pooled.rows} rows with γ ≥ 2 in ${t(MODE_LABEL[burst.mode])} mode together, ${pooled.dof} degrees of freedom` })));
    const both = pooled.moreZero === pooled.rows && pooled.moreAll === pooled.rows;
    const ends = t({
      zh: `${pooled.rows} 行里,"一个都没接受"比几何分布多的有 ${pooled.moreZero} 行,"全部接受"比几何分布多的有 ${pooled.moreAll} 行。`,
      en: `Of the ${pooled.rows} rows, ${pooled.moreZero} have more "none accepted" rounds than the geometric law and ${pooled.moreAll} have more "all accepted" rounds.`,
    });
    let verdict;
    if (pooled.p !== null && pooled.p < 0.01 && both) {
      verdict = t({
        zh: `${ends}合并检验的 p = ${sci(pooled.p)},偶然出现这种偏离的可能很小:两头多、中间少,说明接受与否确实会扎堆,容易的一段草稿连着被收,难的一段连着被拒。偏离的幅度不大,每轮平均接受 ${fixed(b.meanObserved, 2)} 个,公式给 ${fixed(b.meanLaw, 2)} 个。`,
        en: `${ends} Pooled, p = ${sci(pooled.p)}: chance alone rarely produces this. More rounds at both ends and fewer in the middle mean that acceptances do come in runs: easy stretches get accepted draft after draft, hard ones rejected. The effect is small: ${fixed(b.meanObserved, 2)} drafts accepted per round on average against the formula's ${fixed(b.meanLaw, 2)}.`,
      });
    } else if (pooled.p !== null && pooled.p < 0.01) {
      verdict = t({
        zh: `${ends}合并检验的 p = ${sci(pooled.p)}:数据和独立假设下的几何分布有可测的差别,但不是"两头都多"的扎堆形状。`,
        en: `${ends} Pooled, p = ${sci(pooled.p)}: the runs differ measurably from the geometric law of independent drafts, though not in the both-ends shape that bursts would leave.`,
      });
    } else {
      verdict = t({
        zh: `${ends}合并检验的 p = ${sci(pooled.p)}:在这个样本量下,看不出实测和独立假设下的几何分布有差别。`,
        en: `${ends} Pooled, p = ${sci(pooled.p)}: at this sample size the runs cannot be told apart from the geometric law of independent drafts.`,
      });
    }
    el("bursts-verdict").textContent = verdict;
  }

  sliders.alpha.addEventListener("input", () => { state.alpha = Number(sliders.alpha.value); render(); });
  sliders.c.addEventListener("input", () => { state.c = Number(sliders.c.value); render(); });
  // the hash is written when a drag ends, not on every step (browsers throttle history updates)
  sliders.alpha.addEventListener("change", () => hashSet("galpha", fixed(state.alpha, 2)));
  sliders.c.addEventListener("change", () => hashSet("gc", fixed(state.c, 2)));
  const loadMeasured = (mode) => {
    Object.assign(state, { mode }, measured(mode));
    setSliders();
    hashSet("gmode", mode);
    renderMeasured();
    render();
  };
  for (const m of modes) {
    el(`gamma-mode-${m}`).addEventListener("click", () => loadMeasured(m));
    el(`bursts-mode-${m}`).addEventListener("click", () => { burst.mode = m; renderBursts(); });
  }
  el("gamma-reset").addEventListener("click", () => loadMeasured(state.mode));
  // The two FAQ panels are drawn when their <details> opens, keeping the page's start-up short.
  const whenOpen = (id, draw) => {
    const box = el(id).closest("details");
    const run = () => { if (!box || box.open) draw(); };
    if (box) box.addEventListener("toggle", run);
    run();
    return run;
  };
  setSliders();
  renderMeasured();
  render();
  const redrawSteps = whenOpen("gamma-steps", renderSteps);
  const redrawBursts = whenOpen("bursts-chart", renderBursts);
  onLangChange(() => { renderMeasured(); render(); redrawSteps(); redrawBursts(); });
}
