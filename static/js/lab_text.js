// Section ⑧, the lab: its settings and every sentence and label it writes, as pure functions of
// the settings, a round, the counters or a race. Each returns {zh, en} (t() picks the language)
// or plain values; nothing here touches the page, so tests/js/page_lab.test.mjs runs it in node.
import { charLabel, fixed, grouped, sci } from "./format.js";
import { TIMING } from "./lab_decode.js";
import { FAMILY_LABEL } from "./labels.js";
import { DRAFT_SIZES } from "./lab_clock.js";
import { intInRange } from "./state.js";
import { BYTES_PER_PARAM, DEVICES, MAIN_PRESETS } from "./roofline.js";

export const LAB_METHODS = ["plain", "draft", "mtp", "ngram"];
export const LAB_DEFAULTS = { method: "draft", gamma: 4, temperature: 1, seed: 0, prompt: "ROMEO:\n", chars: 200 };
export const LAB_HASH = { method: "lab-m", gamma: "lab-g", temperature: "lab-t", seed: "lab-s", prompt: "lab-p", chars: "lab-n" };
export const MAX_SEED = 2147483647;

// The method select's options: the family's name, with what it means for the lab's γ.
const METHOD_NOTE = { plain: { zh: "（没有草稿）", en: " (no drafts)" }, mtp: { zh: "（γ = 1）", en: " (γ = 1)" } };

export function methodLabel(method) {
  const name = FAMILY_LABEL[method], note = METHOD_NOTE[method];
  return note ? { zh: name.zh + note.zh, en: name.en + note.en } : name;
}

// Settings from the URL hash ({key: string} as state.js parses it), each checked, with defaults.
export function readSettings(get) {
  const method = LAB_METHODS.includes(get(LAB_HASH.method)) ? get(LAB_HASH.method) : LAB_DEFAULTS.method;
  const tText = get(LAB_HASH.temperature);
  const tNum = tText === undefined || tText === "" ? NaN : Number(tText);
  const temperature = Number.isFinite(tNum) && tNum >= 0 && tNum <= 1.5 ? Math.round(tNum * 10) / 10 : LAB_DEFAULTS.temperature;
  const prompt = get(LAB_HASH.prompt);
  return {
    method,
    gamma: intInRange(get(LAB_HASH.gamma), 1, 8, LAB_DEFAULTS.gamma),
    temperature,
    seed: intInRange(get(LAB_HASH.seed), 0, MAX_SEED, LAB_DEFAULTS.seed),
    prompt: typeof prompt === "string" && prompt.length ? prompt.slice(0, 400) : LAB_DEFAULTS.prompt,
    chars: intInRange(get(LAB_HASH.chars), 10, 1000, LAB_DEFAULTS.chars),
  };
}

export function sameSettings(a, b) {
  return Object.keys(a).every((key) => a[key] === b[key]);
}

// γ as the decoder uses it: none for plain, always 1 for the MTP head.
export function effectiveGamma(method, gamma) {
  return method === "plain" ? 0 : method === "mtp" ? 1 : gamma;
}

// ---- the controls ----

export function gammaOut(settings) {
  return settings.method === "plain" ? "—" : String(effectiveGamma(settings.method, settings.gamma));
}

export function temperatureOut(temperature) {
  return temperature === 0 ? { zh: "0（贪心）", en: "0 (greedy)" } : { zh: fixed(temperature, 1), en: fixed(temperature, 1) };
}

export function raceButton(method) {
  const name = FAMILY_LABEL[method];
  return method === "plain"
    ? { zh: "赛跑：先选一种投机方法", en: "Race: choose a speculative method first" }
    : { zh: `开始赛跑：${FAMILY_LABEL.plain.zh}对${/^[A-Za-z]/.test(name.zh) ? " " : ""}${name.zh}`, en: `Start the race: ${FAMILY_LABEL.plain.en} against the ${name.en}` };
}

// ---- loading and the prompt ----

export const UNPACKING = { zh: "正在解开模型权重……", en: "Unpacking the model weights…" };

export function loadError(why) {
  return {
    zh: `实验台无法在这个浏览器里运行（${why}）。它需要浏览器自带的 DecompressionStream：Chromium 80、Firefox 113、Safari 16.4 或更新的版本。页面的其他部分不受影响。`,
    en: `The lab cannot run in this browser (${why}). It needs the browser's own DecompressionStream: Chromium 80, Firefox 113, Safari 16.4 or later. The rest of the page is not affected.`,
  };
}

export function readyNote(ms, meta) {
  return {
    zh: `模型已在你的浏览器里就绪（用了 ${ms} 毫秒）：主模型和 ${FAMILY_LABEL.mtp.zh} ${grouped(meta.main_params)} 个参数，${FAMILY_LABEL.draft.zh} ${grouped(meta.draft_params)} 个，${FAMILY_LABEL.ngram.zh} ${grouped(meta.ngram.contexts)} 个上下文、${grouped(meta.ngram.pairs)} 条（⑤ 的地图按条数计）。`,
    en: `The models are ready in your browser (took ${ms} ms): main model and ${FAMILY_LABEL.mtp.en} ${grouped(meta.main_params)} parameters, ${FAMILY_LABEL.draft.en} ${grouped(meta.draft_params)}, ${FAMILY_LABEL.ngram.en} ${grouped(meta.ngram.contexts)} contexts holding ${grouped(meta.ngram.pairs)} entries (⑤'s map counts entries).`,
  };
}

// A character as a reader can see it, in curly quotes; a character outside the vocabulary also
// gets its code point (a tab or an accented letter may look like something else).
export function quoted(ch) {
  return `“${charLabel(ch)}”`;
}

export function unknownNote(unknown) {
  const list = unknown.map((ch) => {
    const code = ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
    return `“${ch === "\t" ? "⇥" : ch === "\r" ? "␍" : ch}” U+${code}`;
  });
  return {
    zh: `提示里有词表之外的字符：${list.join("、")}。模型只认识 65 个字符（英文字母、数字 3、空格、换行和 !$&',-.:;?），请删掉或换掉它们；在那之前不能生成。`,
    en: `The prompt has characters outside the vocabulary: ${list.join(", ")}. The models know only 65 characters (English letters, the digit 3, space, newline and !$&',-.:;?); remove or replace them. Until then nothing can be generated.`,
  };
}

export const EMPTY_NOTE = { zh: "提示是空的：至少写一个字。", en: "The prompt is empty: write at least one character." };

// What stops the prompt from being decoded, or null.
export function promptProblem(prompt, unknown) {
  return unknown.length ? unknownNote(unknown) : !prompt.length ? EMPTY_NOTE : null;
}

// ---- the text and the counters ----

// Where a round's last character came from, as the text's colours name it.
export function kindOf(round, i) {
  if (i < round.nAccepted) return "accept";
  return round.nextFrom;  // bonus | residual | main
}

const KIND_TITLE = {
  accept: { zh: "被接受的草稿", en: "accepted draft" }, residual: { zh: "拒绝后从残差重抽", en: "redrawn from the residual" },
  bonus: { zh: "奖励字", en: "bonus" }, main: { zh: "主模型直接采样", en: "plain sample" },
};

// A generated character's tooltip: its round and how it came about.
export function charTitle(round, kind) {
  return { zh: `第 ${round.index} 轮 · ${KIND_TITLE[kind].zh}`, en: `round ${round.index} · ${KIND_TITLE[kind].en}` };
}

export function alphaOf(c) {
  return c.checked ? c.accepted / c.checked : null;
}

// The running counters under the text: [value, caption] pairs; c is null before the models load.
export function counterReadouts(c, settings) {
  const alpha = c ? alphaOf(c) : null;
  const plain = settings.method === "plain";
  return [
    [c ? grouped(c.emitted) + " / " + grouped(settings.chars) : "—", { zh: "已生成的字", en: "characters written" }],
    [c ? grouped(c.mainForwards) : "—", { zh: "主模型 forward（每轮一次）", en: "main forwards (one per round)" }],
    [c ? grouped(c.drafterForwards) : "—", settings.method === "ngram" ? { zh: "查表次数", en: "table look-ups" } : { zh: "草稿员 forward 次数", en: "drafter forwards" }],
    [c && c.mainForwards ? fixed(c.emitted / c.mainForwards, 2) : "—", { zh: "每次主模型 forward 的字数", en: "characters per main forward" }],
    [plain ? "—" : alpha === null ? "—" : fixed(alpha, 3), plain ? { zh: `实测 α：${FAMILY_LABEL.plain.zh}没有草稿`, en: `measured α: ${FAMILY_LABEL.plain.en} has no drafts` }
      : { zh: `实测 α = 接受 ${c ? c.accepted : 0} ÷ 检查 ${c ? c.checked : 0}`, en: `measured α = ${c ? c.accepted : 0} accepted ÷ ${c ? c.checked : 0} checked` }],
  ];
}

// ---- one round ----

// A probability to three significant figures below 0.1 (0.0123, 7.03×10⁻⁵), so that a printed
// min(1, p/q) is what the printed p and q divide to, to the rounding of their last digit.
export function prob(x) {
  return x >= 0.1 || x === 0 ? fixed(x, 3) : sci(x, 3);
}

function sub(n) {
  return String(n).replace(/\d/g, (d) => "₀₁₂₃₄₅₆₇₈₉"[d]);
}

export function roundTitle(round, count) {
  return round ? { zh: `第 ${round.index} 轮，共 ${count} 轮`, en: `Round ${round.index} of ${count}` }
    : { zh: "还没有走任何一轮", en: "No round yet" };
}

export const PRESS_STEP = { zh: "按“走一轮”开始。", en: "Press “Step” to begin." };

// One line for screen readers and the eye: what happened in this round.
export function roundSummary(round, vocab) {
  const ch = quoted(vocab[round.next]);
  const n = round.drafts.length, k = round.nAccepted;
  const tail = round.nextFrom === "main"
    ? { zh: `没有草稿，主模型直接抽出 ${ch}`, en: `no drafts; the main model sampled ${ch}` }
    : round.nextFrom === "bonus"
      ? { zh: `${n} 个草稿全部通过，再加奖励字 ${ch}`, en: `${n === 1 ? "the draft" : `all ${n} drafts`} passed, plus the bonus ${ch}` }
      : { zh: `${n} 个草稿接受了 ${k} 个，第 ${k + 1} 个被拒，从残差重抽出 ${ch}`,
        en: `${n === 1 ? "the draft" : `${k} of ${n} drafts accepted, draft ${k + 1}`} rejected, ${ch} redrawn from the residual` };
  const out = round.emitted.length;
  return { zh: `第 ${round.index} 轮：${tail.zh}。这一轮写出 ${out} 个字。`, en: `Round ${round.index}: ${tail.en}. This round wrote ${out} character${out === 1 ? "" : "s"}.` };
}

export function draftsCaption(n) {
  return n ? { zh: `${n} 个草稿：u < min(1, p/q) 就接受，遇到第一个拒绝就停下`, en: `${n} draft${n === 1 ? "" : "s"}: accepted while u < min(1, p/q), stopping at the first rejection` }
    : { zh: "这一轮没有草稿", en: "No drafts this round" };
}

// The drafts table: its head, and the cells of draft i with its verdict.
export const DRAFTS_HEAD = ["#", { zh: "草稿 d", en: "draft d" }, "q(d)", "p(d)", "u", "min(1, p/q)", { zh: "判决", en: "verdict" }];

export const VERDICT = {
  accept: { zh: "✓ 接受", en: "✓ accepted" },
  reject: { zh: "✗ 拒绝", en: "✗ rejected" },
  unchecked: { zh: "没有检查", en: "not checked" },
};

export function draftCells(round, i, vocab) {
  const ratio = Math.min(1, round.p[i] / round.q[i]);
  const verdict = round.verdicts[i];
  // after the first rejection nothing is compared: u was drawn (as in Python) but not used
  const unchecked = verdict === "unchecked";
  return { verdict, cells: [String(i + 1), quoted(vocab[round.drafts[i]]), prob(round.q[i]), prob(round.p[i]),
    unchecked ? "—" : fixed(round.u[i], 3), unchecked ? "—" : prob(ratio)] };
}

// The sentence under the drafts table: which distribution the round's last character came from.
export function nextLine(round, vocab, temperature) {
  const ch = quoted(vocab[round.next]), p = prob(round.nextProb), k = round.nAccepted;
  const greedy = temperature === 0 ? { zh: "（T = 0：分布是独热的，这就是主模型概率最大的那个字）", en: " (T = 0: the distribution is one-hot, so this is the main model's argmax)" } : { zh: "", en: "" };
  if (round.nextFrom === "main") {
    return { zh: `主模型从 p 抽出 ${ch}，概率 ${p}${greedy.zh}。`, en: `The main model drew ${ch} from p, probability ${p}${greedy.en}.` };
  }
  if (round.nextFrom === "bonus") {
    return { zh: `全部通过：奖励字 ${ch} 从验收 forward 的最后一行 p${sub(k + 1)} 抽出，概率 ${p}${greedy.zh}。`,
      en: `Every draft passed: the bonus ${ch} was drawn from the verify forward's last row p${sub(k + 1)}, probability ${p}${greedy.en}.` };
  }
  return { zh: `草稿 ${k + 1} 被拒：${ch} 从残差 normalize(max(0, p${sub(k + 1)} − q${sub(k + 1)})) 抽出，概率 ${p}${greedy.zh}。`,
    en: `Draft ${k + 1} was rejected: ${ch} was drawn from the residual normalize(max(0, p${sub(k + 1)} − q${sub(k + 1)})), probability ${p}${greedy.en}.` };
}

// ---- the kv caches of one round ----

export const MAIN_CACHE = { zh: "主模型", en: "main model" };
export const CACHE_TITLE = { zh: "KV cache 的行（每个位置一行）", en: "kv-cache rows (one per position)" };
export const CACHE_LEGEND = {
  old: { zh: "之前就在缓存里的行", en: "rows held before" },
  kept: { zh: "这一轮写入、留下", en: "written this round, kept" },
  gone: { zh: "这一轮写入、回滚", en: "written this round, rolled back" },
};

export function cacheNote(view) {
  return {
    zh: `原有 ${view.before} 行，这一轮写入 ${view.fed} 行、回滚其中 ${view.rolledBack} 行，现在共 ${view.kept} 行`,
    en: `held ${view.before} rows, wrote ${view.fed} this round and rolled back ${view.rolledBack} of them: ${view.kept} rows now`,
  };
}

// Methods without a drafter cache: why there is nothing to roll back.
export function noCacheNote(method, ngramOrder) {
  return method === "ngram"
    ? { zh: `${FAMILY_LABEL.ngram.zh}没有 KV cache：它每次只查最后 ${ngramOrder - 1} 个字，被拒的草稿不留下任何要回滚的东西。`, en: `The ${FAMILY_LABEL.ngram.en} has no kv cache: it looks up the last ${ngramOrder - 1} characters each time, and a rejected draft leaves nothing to roll back.` }
    : { zh: `${FAMILY_LABEL.plain.zh}没有草稿员，主模型的缓存也从不回滚。`, en: "Plain decoding has no drafter, and the main model's cache never rolls back." };
}

// ---- the race ----

export function laneName(method, gamma) {
  return method === "plain" ? FAMILY_LABEL.plain
    : { zh: `${FAMILY_LABEL[method].zh} · γ = ${effectiveGamma(method, gamma)}`, en: `${FAMILY_LABEL[method].en} · γ = ${effectiveGamma(method, gamma)}` };
}

// A lane's running figures: its counters and the computing time it has used.
export function laneStats(c, ms) {
  const cps = ms > 0 ? c.emitted / (ms / 1000) : 0;
  // no-break spaces: a number never wraps away from its unit
  return { zh: `${c.emitted}\u00a0字 · ${c.mainForwards}\u00a0次主模型 forward · ${fixed(ms, 0)}\u00a0毫秒 · 每秒\u00a0${fixed(cps, 0)}\u00a0字`,
    en: `${c.emitted}\u00a0chars · ${c.mainForwards} main forward${c.mainForwards === 1 ? "" : "s"} · ${fixed(ms, 0)}\u00a0ms · ${fixed(cps, 0)}\u00a0chars/s` };
}

export const RACE_NOTE = {
  racing: { zh: "赛跑中……", en: "Racing…" },
  stopped: { zh: "设置变了，赛跑已停止。", en: "The settings changed; the race stopped." },
  costs: { zh: "正在测这个浏览器里的 c 和验收代价……", en: "Measuring c and the verify's price in this browser…" },
};

// Whether the two texts are the same, and what that means at this temperature.
export function identicalText(r) {
  return r.temperature === 0
    ? r.identical
      ? { zh: `T = 0：两边的 ${r.n} 个字逐字相同。投机解码写出的正是主模型的贪心文本。`, en: `T = 0: the two texts are identical, all ${r.n} characters. Speculative decoding wrote exactly the main model's greedy text.` }
      : { zh: `T = 0：两边在第 ${r.mismatch + 1} 个字处不同。这不应该发生，请报告这个网址。`, en: `T = 0: the two texts differ at character ${r.mismatch + 1}. That should never happen; please report this address.` }
    : r.identical
      ? { zh: "T > 0：这一次两边的文字碰巧相同。", en: "T > 0: this time the two texts happen to be the same." }
      : { zh: `T = ${fixed(r.temperature, 1)}：两边的文字不同，这是正常的。两边都服从主模型的分布，但抽随机数的方式不同；把 T 调到 0，两边就逐字相同。`, en: `T = ${fixed(r.temperature, 1)}: the texts differ, as they should. Both follow the main model's distribution but draw their random numbers differently; set T to 0 and they match character for character.` };
}

// How c and r were timed, beside them: the clock's resolution on this page and the batching.
export function timingNote(resolutionMs) {
  const fine = resolutionMs < 0.01;  // a cross-origin-isolated page reads µs
  const res = fine ? fixed(1000 * resolutionMs, 1) : String(Number(resolutionMs.toPrecision(2)));
  const { minMs, samples } = TIMING;
  return {
    zh: `这个页面的计时器精度是 ${res}\u00a0${fine ? "微秒" : "毫秒"}，所以成批计时：每批连续调用至少 ${minMs}\u00a0毫秒，按调用次数平均，取 ${samples} 批的中位数`,
    en: `this page's timer reads to ${res}\u00a0${fine ? "µs" : "ms"}, so calls are timed in batches: each lasts at least ${minMs}\u00a0ms and is divided by its calls, and the figure is the median of ${samples} batches`,
  };
}

// The race's readouts: {value, key, cls}; pytorchVerify: r at this γ on this chapter's CPU (ledger.json).
export function raceReadouts(r, pytorchVerify) {
  const x = (v) => (v === null ? "—" : `${fixed(v, 2)}×`);
  const timing = timingNote(r.resolution);
  return [
    { value: x(r.speedup), key: { zh: `实测加速（普通 ${fixed(r.plainMs, 0)} 毫秒 ÷ 投机 ${fixed(r.specMs, 0)} 毫秒）`, en: `measured speedup (plain ${fixed(r.plainMs, 0)} ms ÷ speculative ${fixed(r.specMs, 0)} ms)` }, cls: r.speedup >= 1 ? "good" : "warn" },
    { value: r.alpha === null ? "—" : fixed(r.alpha, 3), key: { zh: `实测 α；每次主模型 forward 得到 ${fixed(r.tokens, 2)} 个字`, en: `measured α; ${fixed(r.tokens, 2)} characters per main forward` } },
    { value: fixed(r.c, 3), key: { zh: `c：起草一步 ÷ 一次单个位置的主模型 forward（这个浏览器；${timing.zh}）`, en: `c: one drafting step ÷ one single-position main forward (this browser; ${timing.en})` } },
    { value: fixed(r.verify, 2), key: { zh: `r：验收 ${r.gamma + 1} 个位置 ÷ 1 个位置的 forward（这个浏览器，计时同 c；PyTorch 在本章 CPU 上约 ${fixed(pytorchVerify, 2)}）`, en: `r: verifying ${r.gamma + 1} positions ÷ a 1-position forward (this browser, timed as c is; PyTorch on this chapter's CPU: ${fixed(pytorchVerify, 2)})` } },
    { value: x(r.theory), key: { zh: "定理 3.8 的预测（验收算 1 次 forward）", en: "Theorem 3.8's prediction (a verify priced at 1 forward)" } },
    { value: x(r.withVerify), key: { zh: "把验收的开销换成实测的 r 之后的预测", en: "the prediction with the verify priced at the measured r" } },
  ];
}

// The race's sentence: its measured speedup beside the theorem's two predictions. One race is one
// pair of runs, not paired repeats, so it calls neither side faster (the chapter's verdict rule,
// theory.js pairedVerdict): it gives the ratio and asks for another race.
export function raceVerdict(r) {
  const x = (v) => `${fixed(v, 2)}×`;
  const name = FAMILY_LABEL[r.method];
  const head = {
    zh: `在你的浏览器里，这一场${/^[A-Za-z]/.test(name.zh) ? " " : ""}${name.zh}${/[A-Za-z]$/.test(name.zh) ? " " : ""}跑出${FAMILY_LABEL.plain.zh} ${x(r.speedup)} 的速度（只有一场，不是成对测量：再跑几场，看看它变动多少）。`,
    en: `In your browser, this race ran the ${name.en} at ${x(r.speedup)} the speed of ${FAMILY_LABEL.plain.en} (one race, not paired repeats: race again to see how much it moves).`,
  };
  if (r.theory === null) return head;
  return {
    zh: `${head.zh}定理 3.8 按“一次验收只花一次 forward”预测 ${x(r.theory)}；这里一次验收实测要 ${fixed(r.verify, 1)} 次 forward，把它代进去，预测变成 ${x(r.withVerify)}。`,
    en: `${head.en} Theorem 3.8, pricing a verify at one forward, predicts ${x(r.theory)}; a verify here measured ${fixed(r.verify, 1)} forwards, and with that price the prediction becomes ${x(r.withVerify)}.`,
  };
}

// ---- the ledger's settings, run here ----

export function compareProgress(i, n) {
  return { zh: `正在跑第 ${i + 1} 行，共 ${n} 行……`, en: `Running row ${i + 1} of ${n}…` };
}

export function compareDone(chars, seed) {
  return { zh: `完成：每行 ${chars} 个字，种子 ${seed}。`, en: `Done: ${chars} characters per row, seed ${seed}.` };
}

// ---- the race's second clock: a GPU reading the weights (lab_clock.js) ----

export const GPU_HASH = { device: "lab-gd", main: "lab-gm", draft: "lab-gs" };
export const GPU_DEFAULTS = { device: "rtx4090", main: "7b", draft: 0.5e9 };

export function readGpu(get) {
  const device = DEVICES.some((d) => d.id === get(GPU_HASH.device)) ? get(GPU_HASH.device) : GPU_DEFAULTS.device;
  const main = MAIN_PRESETS.some((m) => m.id === get(GPU_HASH.main)) ? get(GPU_HASH.main) : GPU_DEFAULTS.main;
  const draft = DRAFT_SIZES.find((size) => String(size) === get(GPU_HASH.draft)) ?? GPU_DEFAULTS.draft;
  return { device, main, draft };
}

export const paramsLabel = (params) => (params >= 1e9 ? `${Number((params / 1e9).toPrecision(3))}B` : `${Math.round(params / 1e6)}M`);

export const GPU_LABELS = {
  device: { zh: "GPU", en: "GPU" },
  main: { zh: "主模型", en: "main model" },
  get draft() { return FAMILY_LABEL.draft; },  // declared by main.js before any widget reads it
};

export function mainPresetLabel(preset) {
  return `${preset.name} (${paramsLabel(preset.params)})`;
}

const ms = (v) => (v >= 100 ? fixed(v, 0) : fixed(v, 1));

// The modelled clock's figures; `m`: lab_clock.modelledRace, `clock`: makeClock.
export function gpuReadouts(m, clock, gamma) {
  const x = (v) => (v === null ? "—" : `${fixed(v, 2)}×`);
  const drafterKey = clock.drafter
    ? { zh: `c：一次起草 forward（读 ${paramsLabel(clock.drafter)} 参数）÷ 一次主模型 forward`, en: `c: one drafting forward (reading ${paramsLabel(clock.drafter)} parameters) ÷ one main forward` }
    : { zh: "c：查一次表，在 GPU 上不算时间", en: "c: a table lookup, priced at nothing on the GPU" };
  return [
    { value: x(m.speedup), key: { zh: `按模型算的加速（普通 ${ms(m.plainMs)} 毫秒 ÷ 投机 ${ms(m.specMs)} 毫秒；读提示的那次 forward 两边一样，不计）`, en: `modelled speedup (plain ${ms(m.plainMs)} ms ÷ speculative ${ms(m.specMs)} ms; the prompt's forward, the same on both sides, is left out)` }, cls: m.speedup >= 1 ? "good" : "warn" },
    { value: { zh: `${fixed(m.forwardMs, 2)} 毫秒`, en: `${fixed(m.forwardMs, 2)} ms` }, key: { zh: `一次主模型 forward：把 ${paramsLabel(clock.main.params)} 个 16 位参数从显存读一遍`, en: `one main forward: reading ${paramsLabel(clock.main.params)} 16-bit parameters from memory once` } },
    { value: fixed(m.c, 3), key: drafterKey },
    { value: fixed(m.r, 2), key: { zh: `r：验收 ${gamma + 1} 个位置 ÷ 1 个位置（读权重的时间不变）`, en: `r: verifying ${gamma + 1} positions ÷ one (reading the weights takes as long)` } },
    { value: x(m.theory), key: { zh: "定理 3.8 在这只钟的 c 和 r 下的预测", en: "Theorem 3.8 at this clock's c and r" } },
  ];
}

// One round's budget on the modelled clock, from the printed (rounded) milliseconds: γ drafts and
// one verify against plain decoding writing γ + 1 characters (the lesson's 5 × 3 + 30 = 45 ms
// against 150 ms, for a 70B model and a 3B drafter on an H100).
export function gpuBudget(m, gamma) {
  const r2 = (v) => Math.round(v * 100) / 100;
  const f = r2(m.forwardMs), d = r2(m.c * m.forwardMs), v = r2(m.r * m.forwardMs), n = gamma + 1;
  return { forward: f, draft: d, verify: v, round: r2(gamma * d + v), plain: r2(n * f), chars: n };
}

export function gpuVerdict(m, measured, clock, gamma) {
  const x = (v) => `${fixed(v, 2)}×`, b = gpuBudget(m, gamma), ms2 = (v) => fixed(v, 2);
  return {
    zh: `同一场赛跑（同样的草稿、同样的接受和拒绝），按 ${clock.device.name} 跑 ${clock.main.name} 的规格算下来是 ${x(m.speedup)}，在你的浏览器里实测是 ${x(measured)}。差别全在开销上：这里一次 forward 读一遍权重，验收多几个位置几乎不多花时间（r = ${fixed(m.r, 2)}）。一轮的账：${gamma} × ${ms2(b.draft)} + ${ms2(b.verify)} = ${ms2(b.round)} 毫秒，最多得 ${b.chars} 个字；${FAMILY_LABEL.plain.zh}写 ${b.chars} 个字要 ${b.chars} × ${ms2(b.forward)} = ${ms2(b.plain)} 毫秒。这是按规格书算的，不是测量。`,
    en: `The same race (the same drafts, the same acceptances and rejections) comes out at ${x(m.speedup)} in the arithmetic of a ${clock.main.name} on an ${clock.device.name}, against ${x(measured)} measured in your browser. The whole difference is the prices: here a forward reads the weights once, and a verify's extra positions cost next to nothing (r = ${fixed(m.r, 2)}). One round's budget: ${gamma} × ${ms2(b.draft)} + ${ms2(b.verify)} = ${ms2(b.round)} ms for up to ${b.chars} characters, against ${b.chars} × ${ms2(b.forward)} = ${ms2(b.plain)} ms for ${FAMILY_LABEL.plain.en} to write as many. Arithmetic from datasheets, not a measurement.`,
  };
}

export function gpuDoesNotFit(clock) {
  const params = clock.main.params + clock.drafter;
  const need = paramsLabel(params), gb = fixed((params * BYTES_PER_PARAM) / 1e9, 0);
  return {
    zh: `${clock.main.name} 加上草稿员共 ${need} 个 16 位参数，也就是 ${gb} GB，装不进一块 ${clock.device.name} 的 ${fixed(clock.device.memory / 1e9, 0)} GB 显存：换一块更大的卡或更小的模型。`,
    en: `${clock.main.name} and its drafter hold ${need} 16-bit parameters, ${gb} GB, more than the ${fixed(clock.device.memory / 1e9, 0)} GB of one ${clock.device.name}: pick a larger device or a smaller model.`,
  };
}
