// Section ③ FAQ "do hard characters come in bursts": one row's accepted-run lengths against the
// geometric law of independent drafts, and the verdict of the pooled test per mode. Every test
// statistic is computed in Python (experiments/stats.py); this module only words it.
import { columnChart, drawWhenOpen, h, readoutBox } from "./dom.js";
import { fixed, grouped, sci } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { modePhrase } from "./labels.js";
import { ownEntry } from "./state.js";
import { meanAccepted } from "./theory.js";

// One row's counts against the law it was tested on, as ratios and means to read.
export function burstCheck(row) {
  const observed = row.run_lengths, { expected, chi2, dof, p } = row.burst;
  const gamma = observed.length - 1;
  return {
    gamma, rounds: observed.reduce((a, b) => a + b, 0), observed, expected, chi2, dof, p,
    ratioZero: observed[0] / expected[0], ratioAll: observed[gamma] / expected[gamma],
    meanObserved: meanAccepted(observed), meanLaw: meanAccepted(expected),
  };
}

// The chart's columns: one per number of drafts accepted, the measured share against the law.
export function burstColumns(b) {
  return b.observed.map((n, k) => ({
    key: k, label: String(k),
    title: { zh: `接受 ${k} 个：实测 ${grouped(n)} 轮，独立假设下 ${fixed(b.expected[k], 1)} 轮`,
      en: `${k} accepted: ${grouped(n)} rounds measured, ${fixed(b.expected[k], 1)} under independence` },
    cells: [grouped(n), fixed(b.expected[k], 1)],
    bars: [{ cls: "out", value: n / b.rounds }], tick: b.expected[k] / b.rounds,
  }));
}

// The verdict of the pooled test of one mode (burst_pooled.<mode> in gamma_sweep.json), {zh, en}.
export function burstVerdict(pooled, mode) {
  const m = modePhrase(mode);
  const { zero, full } = pooled.ends;
  const vs = (end) => `${grouped(end.observed)} vs ${grouped(end.expected)}`;
  const level = fixed(pooled.level, 2);
  const test = {
    zh: `${m.zh}里 γ ≥ 2 的 ${pooled.rows} 行合并检验，χ² = ${fixed(pooled.chi2, 1)}，自由度 ${pooled.dof}，p = ${pooled.p === null ? "–" : sci(pooled.p)}`,
    en: `Pooling the ${pooled.rows} rows with γ ≥ 2 in ${m.en} gives χ² = ${fixed(pooled.chi2, 1)} with ${pooled.dof} degrees of freedom, p = ${pooled.p === null ? "–" : sci(pooled.p)}`,
  };
  const ends = {
    zh: `一个都没接受的轮次实测 vs 几何分布为 ${vs(zero)}，全部接受的为 ${vs(full)}`,
    en: `rounds with none accepted, measured vs the geometric distribution: ${vs(zero)}; with all accepted: ${vs(full)}`,
  };
  const verdicts = {
    geometric: {
      zh: `${test.zh}，不低于 ${level}：在这个样本量下，看不出实测和独立假设下的几何分布有差别（${ends.zh}）。`,
      en: `${test.en}, not below ${level}: at this sample size the runs cannot be told apart from the geometric distribution of independent drafts (${ends.en}).`,
    },
    both_ends_high: {
      zh: `${test.zh}，低于 ${level}，而且两头都比几何分布多：${ends.zh}。接受与否确实会扎堆：容易的一段草稿连着被收，难的一段连着被拒。`,
      en: `${test.en}, below ${level}, and both ends hold more rounds than the geometric distribution: ${ends.en}. Acceptances do come in runs: easy stretches are accepted draft after draft, hard ones rejected.`,
    },
    differs: {
      zh: `${test.zh}，低于 ${level}：实测和几何分布有可测的差别，但不是“两头都多”的扎堆形状（${ends.zh}）。`,
      en: `${test.en}, below ${level}: the runs differ measurably from the geometric distribution, though not in the both-ends shape that bursts would leave (${ends.en}).`,
    },
  };
  const verdict = ownEntry(verdicts, pooled.verdict);
  if (!verdict) throw new Error(`unknown burst verdict ${pooled.verdict}`);
  return verdict;
}

// The readouts of one row: [{value, key: {zh, en}}].
export function burstReadouts(row, repeats) {
  const b = burstCheck(row);
  const vs = (k) => `${grouped(b.observed[k])} vs ${fixed(b.expected[k], 0)}`;
  return [
    { value: grouped(b.rounds), key: { zh: `完整轮次（每轮 ${b.gamma} 个草稿，${repeats} 次重复合计），α = ${fixed(row.alpha, 3)}`, en: `full rounds (${b.gamma} drafts each, ${repeats} repeats pooled), α = ${fixed(row.alpha, 3)}` } },
    { value: vs(0), key: { zh: `一个都没接受的轮次：实测 vs 几何分布（×${fixed(b.ratioZero, 2)}）`, en: `rounds with none accepted: measured vs the geometric distribution (×${fixed(b.ratioZero, 2)})` } },
    { value: vs(b.gamma), key: { zh: `${b.gamma} 个全部接受的轮次：实测 vs 几何分布（×${fixed(b.ratioAll, 2)}）`, en: `rounds with all ${b.gamma} accepted: measured vs the geometric distribution (×${fixed(b.ratioAll, 2)})` } },
    { value: `${fixed(b.meanObserved, 3)} vs ${fixed(b.meanLaw, 3)}`, key: { zh: "每轮平均接受几个：实测 vs 几何分布", en: "mean accepted per round: measured vs the geometric distribution" } },
    { value: `χ² ${fixed(b.chi2, 1)} · p ${b.p === null ? "–" : sci(b.p)}`, key: { zh: `这一行的卡方检验，自由度 ${b.dof}`, en: `chi-square test of this row, ${b.dof} degrees of freedom` } },
  ];
}

export function initBursts(gammaSweep) {
  const el = (id) => document.getElementById(id);
  const modes = Object.keys(gammaSweep.burst_pooled).filter((m) => gammaSweep.rows.some((r) => r.mode === m));
  const rowsOf = (mode) => gammaSweep.rows.filter((r) => r.mode === mode && r.gamma >= 2).sort((a, b) => a.gamma - b.gamma);
  const state = { mode: modes.includes("kvcache") ? "kvcache" : modes[0], gamma: null };

  function render() {
    const rows = rowsOf(state.mode);
    if (!rows.some((r) => r.gamma === state.gamma)) state.gamma = rows.at(-1).gamma;
    const row = rows.find((r) => r.gamma === state.gamma);
    for (const m of modes) el(`bursts-mode-${m}`).setAttribute("aria-pressed", String(m === state.mode));
    el("bursts-gamma").replaceChildren(...rows.map((r) => h("button", {
      type: "button", "data-gamma": r.gamma, "aria-pressed": String(r.gamma === state.gamma),
      onclick: () => { state.gamma = r.gamma; render(); el("bursts-gamma").querySelector(`[data-gamma="${r.gamma}"]`).focus(); },
    }, `γ = ${r.gamma}`)));
    const cols = burstColumns(burstCheck(row)).map((c) => ({ ...c, title: t(c.title) }));
    columnChart(el("bursts-chart"), cols, {
      caption: t({ zh: `${modePhrase(state.mode).zh} γ = ${row.gamma}：每轮接受的草稿个数，实测轮次与几何分布`,
        en: `${modePhrase(state.mode).en}, γ = ${row.gamma}: drafts accepted per round, measured rounds against the geometric distribution` }),
      head: [t({ zh: "接受个数", en: "accepted" }), t({ zh: "实测轮次", en: "rounds measured" }), t({ zh: "几何分布", en: "geometric distribution" })],
    });
    const pooled = gammaSweep.burst_pooled[state.mode];
    el("bursts-readouts").replaceChildren(
      ...burstReadouts(row, row.repeats).map((r) => readoutBox(r.value, t(r.key))),
      readoutBox(`χ² ${fixed(pooled.chi2, 1)} · p ${pooled.p === null ? "–" : sci(pooled.p)}`,
        t({ zh: `${modePhrase(state.mode).zh} γ ≥ 2 的 ${pooled.rows} 行合并，自由度 ${pooled.dof}`,
          en: `the ${pooled.rows} rows with γ ≥ 2 in ${modePhrase(state.mode).en} together, ${pooled.dof} degrees of freedom` })));
    el("bursts-verdict").textContent = t(burstVerdict(pooled, state.mode));
  }

  const draw = drawWhenOpen(el("bursts-chart"), render);
  for (const m of modes) el(`bursts-mode-${m}`).addEventListener("click", () => { state.mode = m; draw(); });
  onLangChange(draw);
}
