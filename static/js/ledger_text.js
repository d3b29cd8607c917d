// Section ⑥'s ledger, its sentences: the lanes' names, a row's name, and the card's text (the
// baseline, the drafting, the steps from the theorem to the clock, the verdict), from the numbers
// ledger_math.js computes.
import { fixed, grouped, percent } from "./format.js";
import { FAMILY_LABEL, joinZh, MODE_LABEL, modePhrase, ENGINE_LABEL } from "./labels.js";
import { isFlat } from "./theory.js";
import { laneOf, slowerThanPlain, verdictClass } from "./ledger_math.js";

const ms = (s) => fixed(1000 * s, 3);

// The table's lanes: the two modes of the eager engine, and the compiled engine (kv-cache only).
// Every speedup divides plain decoding of the same lane.
export const LANE_LABEL = {
  ...MODE_LABEL,
  compiled: {  // getters: the engine's name is declared (main.js) after this module loads
    get zh() { return `${ENGINE_LABEL.compiled.zh}（KV cache）`; },
    get en() { return `${ENGINE_LABEL.compiled.en} (kv-cache)`; },
  },
};
export function methodLabel(row, short = false) {
  if (row.method !== "draft") return FAMILY_LABEL[row.method];
  return short ? { zh: `草稿 γ = ${row.gamma}`, en: `draft γ = ${row.gamma}` }
    : { zh: `${FAMILY_LABEL.draft.zh} γ = ${row.gamma}`, en: `${FAMILY_LABEL.draft.en} γ = ${row.gamma}` };
}

// The card of the plain row: the baseline every speedup in its mode divides.
export function baselineText(row, costs) {
  const w = row.wall_s;
  return {
    zh: `这是基准行：${grouped(row.main_forwards)} 次主模型 forward，每次吐 1 个字。在墙钟居中的那次运行里计时，forward 本身共 ${fixed(row.forward_time_s, 3)} s（平均每次 ${ms(row.forward_time_s / row.main_forwards)} ms；单独计时的一次是 ${ms(costs.seconds.main)} ms）；墙钟中位数 ${fixed(w.median, 3)} s（${w.n} 次重复，${fixed(w.min, 3)}–${fixed(w.max, 3)} s），其余 ${fixed(row.overhead_s, 3)} s 是采样、Python 循环等 forward 以外的开销，合每个字 ${ms(row.overhead_per_main_forward_s)} ms。本模式各行的加速，都是拿这一行的墙钟除以那一行的墙钟。`,
    en: `This is the baseline: ${grouped(row.main_forwards)} main forwards, one character each. Timed inside the run with the median wall time, the forwards themselves take ${fixed(row.forward_time_s, 3)} s (${ms(row.forward_time_s / row.main_forwards)} ms each on average; timed on its own, one takes ${ms(costs.seconds.main)} ms); the median wall time is ${fixed(w.median, 3)} s (${w.n} repeats, ${fixed(w.min, 3)}–${fixed(w.max, 3)} s), and the remaining ${fixed(row.overhead_s, 3)} s is sampling, the Python loop and other work outside the forwards, ${ms(row.overhead_per_main_forward_s)} ms per character. Every speedup in this mode is this row's wall time divided by that row's.`,
  };
}

// What the drafting costs, in words that fit the row: γ ≥ 2 drafts of a round run one after
// another (each is the input of the next); γ = 1 drafts once per round; the MTP head runs once
// after every main forward, on the hidden state that forward left behind.
export function draftingText(row, costs, steps) {
  const round = row.method === "draft" ? costs.c_round?.[String(row.gamma)] : undefined; // compiled engine
  const c = fixed(row.c_used, 3);
  // c is the median repeat's ratio (experiments/measure/costs.py median_pair): print that repeat's two times
  const pair = row.method === "mtp" ? { drafter: costs.c_mtp_pair.mtp_head, main: costs.c_mtp_pair.main }
    : { drafter: costs.c_pair.draft, main: costs.c_pair.main };
  const priced = {
    zh: `${ms(pair.drafter)} ms，和它挨着计时的主模型单字 forward 是 ${ms(pair.main)} ms（c = ${c}）`,
    en: `${ms(pair.drafter)} ms against ${ms(pair.main)} ms for a one-character main forward timed beside it (c = ${c})` };
  const how = round !== undefined
    ? { zh: `${ENGINE_LABEL.compiled.zh}把一轮的 ${row.gamma} 个草稿连同它们的采样编成一次调用；这次调用的耗时 ÷ ${row.gamma} ÷ 挨着计时的主模型单字 forward，得一轮里每个草稿的 c = ${c}`,
        en: `the ${ENGINE_LABEL.compiled.en} runs a round's ${row.gamma} draft${row.gamma > 1 ? "s" : ""} and their sampling as one call; that call's time ÷ ${row.gamma} ÷ a one-character main forward timed beside it gives c = ${c} per draft of a round` }
    : row.method === "mtp"
    ? { zh: `${FAMILY_LABEL.mtp.zh}每次 forward ${priced.zh}，它读的是主模型这次 forward 刚留下的隐状态，所以每次主 forward 之后只跑一次，打 1 个草稿`,
        en: `each MTP-head forward takes ${priced.en}; it reads the hidden state the main forward has just left behind, so it runs once after every main forward and drafts one character` }
    : row.gamma === 1
      ? { zh: `${FAMILY_LABEL.draft.zh}每次 forward ${priced.zh}，γ = 1 时每轮只打 1 个草稿，没有前后相接的草稿链要等`,
          en: `each draft-model forward takes ${priced.en}; at γ = 1 a round drafts a single character, so there is no chain of drafts to wait on` }
      : { zh: `${FAMILY_LABEL.draft.zh}每次 forward ${priced.zh}，一轮里的 ${row.gamma} 次必须一个接一个跑，因为下一个草稿要以上一个为输入`,
          en: `each draft-model forward takes ${priced.en}, and the ${row.gamma} of a round must run one after another, since each draft is the input of the next` };
  const spread = row.speedup_runs;
  const share = percent(steps.draftSeconds / row.forward_time_s, 0);
  const median = fixed(steps.draftSeconds, 3);
  return {
    zh: `草稿这部分定理已经算进去了，但它仍是省不掉的一笔：${how.zh}；墙钟居中的那次运行里，草稿 forward 合计 ${median} s，占 forward 时间的 ${share}。计时噪声：${spread.n} 次重复的加速在 ${fixed(spread.min, 2)}–${fixed(spread.max, 2)}× 之间。`,
    en: `The drafts are in the theorem already, but they are a cost that never goes away: ${how.en}; in the run with the median wall time the drafter's forwards take ${median} s, ${share} of the time spent in forwards. Timer noise: over ${spread.n} repeats the speedup ranges from ${fixed(spread.min, 2)}× to ${fixed(spread.max, 2)}×.`,
  };
}

// For the small draft only: its share of the parameters against its share of the time (c).
export function sizeNote(row, paramShare, c = row.c_used) {
  if (row.method !== "draft" || c < 2 * paramShare) return null;
  return {
    zh: `${FAMILY_LABEL.draft.zh}的参数量是主模型的 ${percent(paramShare)}，单独计时的一次 forward 却达到主模型单字 forward 的 ${percent(c, 0)}：调用一次的固定成本（调度、一层层的小矩阵运算）并不按参数量打折。`,
    en: `The ${FAMILY_LABEL.draft.en} has ${percent(paramShare)} of the main model's parameters, yet one of its forwards, timed on its own, takes ${percent(c, 0)} of the time of a one-character main forward: every call carries a fixed cost (dispatch, many small per-layer operations) that does not shrink with the model.`,
  };
}

// The four steps of the card's table: [{label, value, why, change}], labels and why in {zh, en}.
export function cardSteps(row, plain, costs, st) {
  const drafter = FAMILY_LABEL[row.method];
  const ratio = (a, b) => `×${fixed(b / a, 3)}`;
  // per-forward averages of the median run's timed parts, over that run's own count of forwards
  // (ledger.json measured before rows kept it: the mean count over the repeats)
  const perMain = row.parts_s.main_forwards / (row.parts_main_forwards ?? row.main_forwards);
  const plainPerMain = plain.parts_s.main_forwards / (plain.parts_main_forwards ?? plain.main_forwards);
  const perDraft = row.draft_forwards ? row.parts_s.draft_forwards / row.draft_forwards : 0;
  return [
    { label: { zh: "定理 3.8", en: "Theorem 3.8" }, value: st.theory, change: null, why: {
      zh: `假设每次主 forward 期望吐 ${fixed(row.tokens_per_main_expected, 3)} 个字，一轮花 γc + 1 = ${fixed(row.gamma * row.c_used + 1, 3)} 个主 forward 的时间。`,
      en: `assumes ${fixed(row.tokens_per_main_expected, 3)} characters per main forward on average and γc + 1 = ${fixed(row.gamma * row.c_used + 1, 3)} main forwards' worth of time per round.` } },
    { label: { zh: "换成实际次数", en: "Real forward counts" }, value: st.counted, change: ratio(st.theory, st.counted), why: {
      zh: `实测每次主 forward 吐 ${fixed(row.tokens_per_main, 3)} 个字（${fixed(row.main_forwards, 1)} 次主 forward），${drafter.zh}跑了 ${fixed(row.draft_forwards, 1)} 次，每轮 ${fixed(st.draftsPerRound, 2)} 次；价格仍按定理算。`,
      en: `measured: ${fixed(row.tokens_per_main, 3)} characters per main forward (${fixed(row.main_forwards, 1)} main forwards) and ${fixed(row.draft_forwards, 1)} ${drafter.en} forwards, ${fixed(st.draftsPerRound, 2)} per round; still at the theorem's prices.` } },
    { label: { zh: "forward 在运行中的真实耗时", en: "The forwards' real time in the run" }, value: st.priced, change: ratio(st.counted, st.priced), why: {
      zh: `在墙钟居中的那次运行里计时：这一行的主 forward 平均约 ${ms(perMain)} ms，${FAMILY_LABEL.plain.zh}的单字 forward 平均 ${ms(plainPerMain)} ms（${fixed(perMain / plainPerMain, 2)} 倍，定理按 1 倍算），${drafter.zh}每次约 ${ms(perDraft)} ms（定理按 c = ${fixed(row.c_used, 3)} 倍算）。单独计时时，${1 + row.gamma} 个位置的验收 forward 是挨着计时的单字 forward 的 ${fixed(row.verify_over_main, 2)} 倍（各次重复逐次配对后的中位数）。`,
      en: `timed inside the run with the median wall time: this row's main forwards average about ${ms(perMain)} ms against ${ms(plainPerMain)} ms for ${FAMILY_LABEL.plain.en}'s one-character forwards (${fixed(perMain / plainPerMain, 2)}×; the theorem counts 1×), and each ${drafter.en} forward about ${ms(perDraft)} ms (the theorem counts c = ${fixed(row.c_used, 3)}). Timed on its own, a verify forward over ${1 + row.gamma} positions costs ${fixed(row.verify_over_main, 2)}× a one-character forward timed beside it (the median of the paired repeats).` } },
    { label: { zh: "加上 forward 以外的开销 = 实测", en: "Plus everything outside the forwards = measured" }, value: st.measured, change: ratio(st.priced, st.measured), why: {
      zh: `采样、验收的簿记、Python 循环：这一行每次主 forward ${ms(row.overhead_per_main_forward_s)} ms（共 ${fixed(row.overhead_s, 3)} s），${FAMILY_LABEL.plain.zh}每个字 ${ms(plain.overhead_per_main_forward_s)} ms。`,
      en: `sampling, acceptance bookkeeping, the Python loop: ${ms(row.overhead_per_main_forward_s)} ms per main forward here (${fixed(row.overhead_s, 3)} s in all), against ${ms(plain.overhead_per_main_forward_s)} ms per character in ${FAMILY_LABEL.plain.en}.` } },
  ];
}

// The verdict at the bottom of the card: why the measurement lands above or below the theorem.
export function ledgerVerdict(row, plain, st) {
  const spread = row.speedup_runs;
  const v = row.verify_over_main;
  const theoryInSpread = row.speedup_theory >= spread.min && row.speedup_theory <= spread.max;
  const losses = [
    { f: st.counted / st.theory, name: { zh: "实际 forward 次数", en: "the real forward counts" } },
    { f: st.priced / st.counted, name: { zh: "forward 在运行中的真实耗时", en: "the forwards' real time in the run" } },
    { f: st.measured / st.priced, name: { zh: "forward 以外的开销", en: "the work outside the forwards" } },
  ];
  if (row.speedup < row.speedup_theory) {
    const worst = losses.reduce((a, b) => (b.f < a.f ? b : a));
    const short = percent(1 - row.speedup / row.speedup_theory, 0);
    return {
      zh: `实测比理论低 ${short}，${joinZh("损失最大的一步是", worst.name.zh)}（×${fixed(worst.f, 3)}）。${theoryInSpread ? "不过理论值仍落在各次重复的范围之内，单看这一行，差别和计时噪声分不开。" : `各次重复的加速在 ${fixed(spread.min, 2)}–${fixed(spread.max, 2)}× 之间，理论值在这个范围之外，差别不是噪声。`}`,
      en: `The measurement falls ${short} short of the theorem; the biggest loss is ${worst.name.en} (×${fixed(worst.f, 3)}). ${theoryInSpread ? "Still, the theorem lies inside the range of the repeats, so for this row alone the gap cannot be told apart from timer noise." : `The theorem lies outside the repeats' range, ${fixed(spread.min, 2)}–${fixed(spread.max, 2)}×: the gap is not noise.`}`,
    };
  }
  // say which of the three steps came out better than the theorem assumed, with their numbers
  const why = [];
  if (losses[2].f > 1) why.push({
    zh: `定理只数 forward。${FAMILY_LABEL.plain.zh}每个字都要付一次 forward 以外的开销（${ms(plain.overhead_per_main_forward_s)} ms，${grouped(plain.main_forwards)} 次），这一行只在 ${fixed(row.main_forwards, 0)} 次主 forward 上付（每次 ${ms(row.overhead_per_main_forward_s)} ms），省下的这部分定理里没有。`,
    en: `The theorem counts forwards only. Plain decoding pays its non-forward overhead for every character (${ms(plain.overhead_per_main_forward_s)} ms, ${grouped(plain.main_forwards)} times), this row only on its ${fixed(row.main_forwards, 0)} main forwards (${ms(row.overhead_per_main_forward_s)} ms each), and the theorem has no term for that saving.` });
  // the real counts beat the theorem: more characters per forward, or fewer drafts per round
  if (losses[0].f > 1) why.push(row.tokens_per_main > row.tokens_per_main_expected ? {
    zh: `这几次运行每次主 forward 吐了 ${fixed(row.tokens_per_main, 3)} 个字，比公式在这一行 α 下的期望 ${fixed(row.tokens_per_main_expected, 3)} 还多。`,
    en: `These runs emitted ${fixed(row.tokens_per_main, 3)} characters per main forward, more than the ${fixed(row.tokens_per_main_expected, 3)} the formula expects at this row's α.` } : {
    zh: `每轮平均只打了 ${fixed(st.draftsPerRound, 2)} 个草稿，少于 γ = ${row.gamma}（最后几轮只猜还差的那几个字），草稿花的时间比定理假设的少。`,
    en: `A round drafted ${fixed(st.draftsPerRound, 2)} characters on average, fewer than γ = ${row.gamma} (the last rounds only draft the few characters still missing), so drafting cost less than the theorem assumes.` });
  if (isFlat(v)) why.push(row.mode === "recompute"
    ? { zh: `验收 forward 只比单字 forward 贵 ${percent(v - 1)}：${modePhrase("recompute").zh}下每次 forward 本来就要重算整个窗口，多几个位置几乎不花钱，定理“验收按 1 倍算”的假设在这里几乎成立。`,
        en: `A verify forward costs only ${percent(v - 1)} more than a one-character forward: in ${modePhrase("recompute").en} every forward reruns the whole window anyway, so a few extra positions are nearly free and the theorem's "verify costs 1×" nearly holds.` }
    : { zh: `验收 forward 只比单字 forward 贵 ${percent(v - 1)}，和定理的假设相差无几。`,
        en: `A verify forward costs only ${percent(v - 1)} more than a one-character forward, close to the theorem's assumption.` });
  if (theoryInSpread) why.push({ zh: "另外，理论值落在各次重复的加速范围之内，两者的差别在计时噪声以内。",
    en: "Besides, the theorem lies inside the range of the repeats: the gap is within timer noise." });
  return {
    zh: `这一行实测（${fixed(row.speedup, 2)}×）不低于理论（${fixed(row.speedup_theory, 2)}×）。${why.map((w) => w.zh).join("")}`,
    en: [`Here the measurement (${fixed(row.speedup, 2)}×) is not below the theorem (${fixed(row.speedup_theory, 2)}×).`, ...why.map((w) => w.en)].join(" "),
  };
}

// The three readouts over the table for one lane: [{value, key: {zh, en}, runs?}] (runs: the
// paired speedups whose verdict badge follows the key).
export function ledgerSummary(rows, lane) {
  const inMode = rows.filter((r) => laneOf(r) === lane && r.method !== "plain");
  const plain = rows.find((r) => laneOf(r) === lane && r.method === "plain");
  const fewest = inMode.reduce((a, b) => (b.main_forwards < a.main_forwards ? b : a));
  const fastest = inMode.reduce((a, b) => (b.speedup > a.speedup ? b : a));
  const name = (r) => methodLabel(r);
  return [
    { value: `−${percent(1 - fewest.main_forwards / plain.main_forwards, 0)}`, key: {
      zh: `主模型 forward 最多省掉的比例（${name(fewest).zh}：${fixed(fewest.main_forwards, 0)} 次，${FAMILY_LABEL.plain.zh} ${grouped(plain.main_forwards)} 次）`,
      en: `the largest cut in main forwards (${name(fewest).en}: ${fixed(fewest.main_forwards, 0)} against ${FAMILY_LABEL.plain.en}'s ${grouped(plain.main_forwards)})` } },
    { value: `${fixed(fastest.speedup, 2)}×`, cls: verdictClass(fastest),
      key: { zh: `中位数最快的一行：${name(fastest).zh}`, en: `the fastest row by its median: ${name(fastest).en}` }, runs: fastest.speedup_runs },
    { value: `${inMode.filter(slowerThanPlain).length} / ${inMode.length}`, key: { zh: `每次成对测量都比${FAMILY_LABEL.plain.zh}慢的投机解码行`, en: `speculative rows slower than ${FAMILY_LABEL.plain.en} in every paired repeat` } },
  ];
}

// How the bars were measured (experiments/measure/ledger.py time_parts), in the page's words.
export const TIME_BARS_HOW = {
  zh: "每条都取墙钟居中的那次运行：主模型和草稿员的 forward 在运行中每调用一次就计一次时，各自累加；其余开销是这次运行的墙钟减去这两项。",
  en: "Each bar is the median-wall run: its main-model and drafter forward calls are timed as they run and summed per kind; the rest is the run's wall time minus both.",
};
