// Section ③ FAQ "why can a larger γ emit fewer characters per forward": each pair of neighbouring
// measured γ, what the longer chain gained, and a verdict worded from the numbers.
import { drawWhenOpen, h } from "./dom.js";
import { fixed } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { MODE_LABEL, modePhrase } from "./labels.js";
import { alphaForTokens, expectedTokens, meanAccepted } from "./theory.js";

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

// The verdict under the table, {zh, en}: every drop if there is one, else the smallest gain per
// added draft; then what the longer chain of the step named first throws away per round.
export function stepsVerdict(rows) {
  const modes = [...new Set(rows.map((r) => r.mode))];
  const rowsOf = (mode) => rows.filter((r) => r.mode === mode);
  const all = modes.flatMap((mode) => gammaSteps(rowsOf(mode)).map((s) => ({ ...s, mode })));
  const drops = all.filter((s) => s.gain <= 0);
  const alphas = rows.map((r) => r.alpha);
  const spread = `${fixed(Math.min(...alphas), 3)}–${fixed(Math.max(...alphas), 3)}`;
  const perDraft = (s) => s.gain / (s.to - s.from);
  const smallest = all.reduce((a, b) => (perDraft(b) < perDraft(a) ? b : a));
  const sentences = drops.length
    ? drops.map((s) => ({
      zh: `${modePhrase(s.mode).zh}从 γ = ${s.from} 到 ${s.to}，每次主 forward 的字数从 ${fixed(s.tokensFrom, 3)} 降到 ${fixed(s.tokensTo, 3)}：γ = ${s.to} 那一行的 α 只有 ${fixed(s.alphaTo, 3)}，已低于让它白加的 ${fixed(s.alphaBreakEven, 3)}。`,
      en: `In ${modePhrase(s.mode).en}, going from γ = ${s.from} to ${s.to} lowered the characters per main forward from ${fixed(s.tokensFrom, 3)} to ${fixed(s.tokensTo, 3)}: the γ = ${s.to} row's α was only ${fixed(s.alphaTo, 3)}, below the ${fixed(s.alphaBreakEven, 3)} at which the longer chain gains nothing.`,
    }))
    : [{
      zh: `这次测量里没有哪一行比前一行吐得少。按每多猜一个草稿算，增长最小的是${modePhrase(smallest.mode).zh}从 γ = ${smallest.from} 到 ${smallest.to}：多了 ${fixed(smallest.gain, 3)} 个字，每个新增草稿只合 ${fixed(perDraft(smallest), 3)} 个。只要 γ = ${smallest.to} 那一行的 α 从 ${fixed(smallest.alphaTo, 3)} 跌到 ${fixed(smallest.alphaBreakEven, 3)}，这点增长就没了；而各行实测 α 本身就在 ${spread} 之间浮动。`,
      en: `In this run no row emits fewer than the one before it. Per added draft, the smallest gain is in ${modePhrase(smallest.mode).en} from γ = ${smallest.from} to ${smallest.to}: ${fixed(smallest.gain, 3)} characters more, just ${fixed(perDraft(smallest), 3)} per added draft. Had the γ = ${smallest.to} row's α fallen from ${fixed(smallest.alphaTo, 3)} to ${fixed(smallest.alphaBreakEven, 3)}, that gain would be gone, and the measured α of the rows already ranges over ${spread}.`,
    }];
  const named = drops[0] ?? smallest;
  const kept = meanAccepted(rowsOf(named.mode).find((r) => r.gamma === named.to).run_lengths);
  sentences.push({
    zh: `被拒绝的草稿是另一笔账：${modePhrase(named.mode).zh} γ = ${named.to} 那一行，每个完整轮次的 ${named.to} 个草稿平均只留下 ${fixed(kept, 2)} 个，其余 ${fixed(named.to - kept, 2)} 个被拒绝或根本没轮到验收，草稿员在它们身上花的时间全部白费。`,
    en: `Rejected drafts are the other cost: in the ${MODE_LABEL[named.mode].en} row with γ = ${named.to}, a full round keeps on average only ${fixed(kept, 2)} of its ${named.to} drafts; the other ${fixed(named.to - kept, 2)} are rejected or never even checked, and the drafter's time on them is wasted.`,
  });
  return { zh: sentences.map((x) => x.zh).join(""), en: sentences.map((x) => x.en).join(" ") };
}

export function initGammaSteps(gammaSweep) {
  const box = document.getElementById("gamma-steps");
  const modes = Object.keys(gammaSweep.c).filter((m) => gammaSweep.rows.some((r) => r.mode === m));

  function render() {
    const head = ["γ", t({ zh: "两行的实测 α", en: "the two rows' α" }), t({ zh: "每次主模型 forward 的字数", en: "chars / main forward" }),
      t({ zh: "实测增量", en: "measured gain" }), t({ zh: "α 不变时的增量", en: "gain at the same α" }),
      t({ zh: "增量归零的 α", en: "break-even α" })];
    const groups = modes.map((mode) => {
      const body = gammaSteps(gammaSweep.rows.filter((r) => r.mode === mode)).map((s) => `<tr class="${s.gain <= 0 ? "warn" : ""}"><td>${s.from} → ${s.to}</td>` +
        `<td>${fixed(s.alphaFrom, 3)} → ${fixed(s.alphaTo, 3)}</td><td>${fixed(s.tokensFrom, 3)} → ${fixed(s.tokensTo, 3)}</td>` +
        `<td>${s.gain >= 0 ? "+" : "−"}${fixed(Math.abs(s.gain), 3)}</td><td>+${fixed(s.gainSameAlpha, 3)}</td><td>${fixed(s.alphaBreakEven, 3)}</td></tr>`).join("");
      return `<tr class="group"><th colspan="6" scope="rowgroup">${t(MODE_LABEL[mode])}</th></tr>${body}`;
    });
    box.replaceChildren(
      h("div", { class: "chart", tabindex: 0, role: "group", "aria-label": t({ zh: "相邻两档 γ 的对比", en: "neighbouring values of γ compared" }) }, Object.assign(h("table", { class: "calc numbers" }), {
        innerHTML: `<thead><tr>${head.map((c) => `<th scope="col">${c}</th>`).join("")}</tr></thead><tbody>${groups.join("")}</tbody>`,
      })),
      h("p", { id: "gamma-steps-verdict" }, t(stepsVerdict(gammaSweep.rows))));
  }

  onLangChange(drawWhenOpen(box, render));
}
