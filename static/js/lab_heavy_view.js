// Section ⑧'s last part, drawn: the lab's networks as a heavy twin in this tab, the verify's price
// rₖ measured here beside the dial's (regime.json, the native engine on this chapter's CPU), and a
// paired race of plain decoding against three drafters at the configurations the dial chose at the
// same scale. The work is lab_heavy.js's; this file holds the controls, the tables and the words.
import { h, verdictBadge } from "./dom.js";
import { fixed } from "./format.js";
import { t } from "./i18n.js";
import { ALPHA_LABEL, ENGINE_LABEL, FAMILY_LABEL, joinZh } from "./labels.js";
import { buildHeavyLab, pairedRace, RACE_DRAFTERS, RK_POSITIONS, verifyPrices } from "./lab_heavy.js";

// Characters per decode of the race (the dial decodes 200; a tab has less patience). The models as
// trained write one in about 0.3 ms here, so they get more: with runs of 100 (30 ms) the n-gram
// table's pairs read 0.46–0.98× in one bench and 1.10–2.00× in the next (2026-12-06).
export const HEAVY_CHARS = { trained: 400, twin: 100 };
const raceChars = (scale) => (scale === 1 ? HEAVY_CHARS.trained : HEAVY_CHARS.twin);
export const HEAVY_PAIRS = 3;
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
const YIELD_MS = 30;

const mb = (bytes) => `${fixed(bytes / 1e6, bytes >= 1e8 ? 0 : 1)} MB`;

// The dial's scales, each with its main model's bytes (the twins this tab can build).
// On the JavaScript forward only the first (the models as trained).
export function heavyScales(regime, kernel = "wasm") {
  const points = kernel === "wasm" ? regime.points : regime.points.slice(0, 1);
  return points.map((p) => ({ scale: p.scale, mainBytes: p.main_bytes,
    allBytes: p.main_bytes + p.drafter_bytes.mtp + p.drafter_bytes.draft }));
}

// The scale offered first: the heaviest, unless the browser says its device has little memory
// (navigator.deviceMemory, in GB, where the browser tells it): then the heaviest whose three
// networks take at most an eighth of it (the tab holds them, and about as much again, here).
export function defaultScale(scales, deviceMemoryGB) {
  const room = deviceMemoryGB > 0 ? (deviceMemoryGB * 1e9) / 8 : Infinity;
  const fits = scales.filter((s) => s.allBytes <= room);
  return (fits.length ? fits[fits.length - 1] : scales[0]).scale;
}

// The dial's rows at `scale`, T = 1, for the race's drafters: the configuration the race runs
// (chain length) and what the native engine measured with it.
export function dialRows(regime, scale) {
  const point = regime.points.find((p) => p.scale === scale);
  return Object.fromEntries(RACE_DRAFTERS.map((family) => [family, point.best.T1.find((r) => r.family === family)]));
}

export const KERNEL_NOTE = {
  wasm: { zh: "这里的 forward 用 WebAssembly SIMD（128 位，float32，乘和加分开舍入）：一次验收的几个位置一起读每个权重。权重要从内存读进来时（加重版），这才省时间；权重在缓存里时（原样的模型），贵的是乘加本身。",
    en: "The forward here runs on WebAssembly SIMD (128-bit, float32, multiply and add rounded apart): a verify's positions read each weight together. That saves time where the weights must come from memory (a heavy twin); while they sit in cache (the models as trained), the multiply-adds themselves are the cost." },
  js: { zh: "这里的 forward 是 JavaScript 的（float32 的权重，float64 的算术）：这个浏览器没有 WebAssembly SIMD，或者网址里写了 lab-forward=js。加重版在它上面要跑太久，所以这里只让原样的模型赛跑。",
    en: "The forward here is JavaScript's (float32 weights, float64 arithmetic): this browser has no WebAssembly SIMD, or the address says lab-forward=js. A heavy twin would take far too long on it, so only the models as trained race here." },
};

// the main model's bytes, and all three networks' (what the tab's memory must hold)
const scaleLabel = ({ scale, mainBytes, allBytes }) => (scale === 1
  ? { zh: `模型原样（主模型 ${mb(mainBytes)}）`, en: `as trained (main model ${mb(mainBytes)})` }
  : { zh: `${scale}× 加重版：主模型 ${mb(mainBytes)}，共 ${mb(allBytes)}`,
    en: `${scale}× twin: main ${mb(mainBytes)}, ${mb(allBytes)} in all` });

const NOTE = {
  building: ({ scale }) => (scale === 1
    ? { zh: "正在把原样的模型放进一块新的内存……", en: "Loading the models as trained into a fresh memory…" }
    : { zh: `正在生成重 ${scale} 倍的加重版……`, en: `Building the twin ${scale}× heavier…` }),
  pricing: { zh: "正在测验收的开销 rₖ（每个 k 和 1 个位置交替计时）……", en: "Timing the verify's price rₖ (each k in turn with one position)…" },
  racing: (pair, method) => ({ zh: `赛跑：第 ${pair + 1} / ${HEAVY_PAIRS} 对，${FAMILY_LABEL[method].zh}……`,
    en: `Racing: pair ${pair + 1} of ${HEAVY_PAIRS}, ${FAMILY_LABEL[method].en}…` }),
  failed: (message) => ({ zh: `这个浏览器跑不完：${message}`, en: `This browser could not finish: ${message}` }),
};

// What was raced on: the scale, each network's bytes and, on the WebAssembly kernel, its memory.
function builtNote(built) {
  const { main, mtp, draft, memory } = built.bytes;
  const sizes = { zh: `主模型 ${mb(main)}，${FAMILY_LABEL.mtp.zh} ${mb(mtp)}，${FAMILY_LABEL.draft.zh} ${mb(draft)}`, en: `main model ${mb(main)}, ${FAMILY_LABEL.mtp.en} ${mb(mtp)}, ${FAMILY_LABEL.draft.en} ${mb(draft)}` };
  const held = memory ? { zh: `；这块 WebAssembly 内存共 ${mb(memory)}`, en: `; its WebAssembly memory holds ${mb(memory)} in all` } : { zh: "", en: "" };
  return built.scale === 1
    ? { zh: `模型原样：${sizes.zh}${held.zh}。`, en: `The models as trained: ${sizes.en}${held.en}.` }
    : { zh: `重 ${built.scale} 倍的加重版用 ${fixed(built.ms, 0)} 毫秒生成：${sizes.zh}${held.zh}。`,
      en: `The twin ${built.scale}× heavier took ${fixed(built.ms, 0)} ms to build: ${sizes.en}${held.en}.` };
}

// What the reader's machine showed, in one sentence per drafter, with the verify's price beside the dial's.
export function heavySays(result, regime) {
  const { race, prices, scale } = result, point = regime.points.find((p) => p.scale === scale);
  const dial = dialRows(regime, scale);
  const parts = race.rows.map((row) => {
    const name = FAMILY_LABEL[row.method];
    return { zh: `${name.zh}（γ = ${row.gamma}）${fixed(row.speedup, 2)}×（${joinZh("本章 CPU 上的", ENGINE_LABEL[regime.engine].zh)}：${fixed(dial[row.method].speedup, 2)}×）`,
      en: `${name.en} (γ = ${row.gamma}) ${fixed(row.speedup, 2)}× (the ${ENGINE_LABEL[regime.engine].en} on this chapter's CPU: ${fixed(dial[row.method].speedup, 2)}×)` };
  });
  const r5 = prices.r[5].median, dial5 = point.r["5"];
  const drift = driftNote(race.rows);
  return {
    zh: `在你的机器上：${parts.map((p) => p.zh).join("；")}。验收 5 个位置在这里是 1 个位置的 ${fixed(r5, 2)} 倍，${joinZh("本章 CPU 的", ENGINE_LABEL[regime.engine].zh)}上是 ${fixed(dial5, 2)} 倍。` +
      "一轮要划算，每次 forward 得到的字数得超过验收和起草的开销之和：验收越贵，加速比越低。" + drift.zh,
    en: `On your machine: ${parts.map((p) => p.en).join("; ")}. A verify of 5 positions cost ${fixed(r5, 2)}× one position here, and ${fixed(dial5, 2)}× on the ${ENGINE_LABEL[regime.engine].en} on this chapter's CPU. ` +
      "A round pays when its characters per forward outweigh the verify's price plus the drafting: the dearer the verify, the smaller the speedup." + drift.en,
  };
}

// A speedup above a drafter's characters per main forward: no verify is cheaper than one
// position's forward here, so the tab's own speed changed during the race.
export function driftNote(rows) {
  const over = rows.filter((row) => row.speedup > row.tokensPerMain);
  if (!over.length) return { zh: "", en: "" };
  return {
    zh: `注意：${over.map((row) => `${FAMILY_LABEL[row.method].zh}（${fixed(row.speedup, 2)}×，每次主模型 forward ${fixed(row.tokensPerMain, 2)} 个字）`).join("、")}的加速比高过了它每次主模型 forward 得到的字数，验收再便宜也做不到：赛跑期间这个标签页自己的速度变了，请再跑一次。`,
    en: ` Note: the speedup of ${over.map((row) => `the ${FAMILY_LABEL[row.method].en} (${fixed(row.speedup, 2)}× against ${fixed(row.tokensPerMain, 2)})`).join(" and ")} is above its characters per main forward, which no verify can give: this tab's own speed changed during the race, so run it again.`,
  };
}

function raceTable(result, regime) {
  const dial = dialRows(regime, result.scale), engine = ENGINE_LABEL[regime.engine];
  const head = [{ zh: "草稿员", en: "Drafter" }, { zh: "这里：加速比", en: "Here: speedup" }, { zh: "判断（成对测量的范围）", en: "Verdict (paired repeats)" },
    ALPHA_LABEL.dec, { zh: "每次 forward 的字数", en: "Chars per forward" },
    { zh: `表盘：${engine.zh}`, en: `The dial: ${engine.en}` }];
  return h("table", { class: "data cond-table lab-heavy-race" },
    h("caption", {}, t({ zh: `加速比，T = 1，每次 ${result.race.n} 个字`, en: `Speedup, T = 1, ${result.race.n} characters a run` })),
    h("thead", {}, h("tr", {}, head.map((x) => h("th", { scope: "col" }, t(x))))),
    h("tbody", {}, result.race.rows.map((row) => h("tr", { "data-family": row.method, "data-verdict": row.verdict },
      h("th", { scope: "row" }, `${t(FAMILY_LABEL[row.method])} γ = ${row.gamma}`),
      h("td", { class: "num" }, `${fixed(row.speedup, 2)}×`),
      h("td", { class: "num" }, verdictBadge(row.speedups)),
      h("td", { class: "num" }, row.alpha === null ? "—" : fixed(row.alpha, 3)),
      h("td", { class: "num" }, fixed(row.tokensPerMain, 2)),
      h("td", { class: "num" }, `${fixed(dial[row.method].speedup, 2)}×`)))));
}

// What the race table's columns mean, printed under it (a caption would scroll away with the table on a phone).
export function raceLegend(result, regime) {
  const engine = ENGINE_LABEL[regime.engine];
  return {
    zh: `加速比：${FAMILY_LABEL.plain.zh}的时间 ÷ 草稿员的时间（各 ${HEAVY_PAIRS} 次的中位数）。成对测量：每一对里两者之比；只有 ${HEAVY_PAIRS} 对都在 1× 同一侧才算更快或更慢，接近 1× 时重跑一次结论可能不同。` +
      `α：这几次解码里被接受的草稿 ÷ 被检查的草稿。表盘一列：${engine.zh}在本章 CPU 上、同一档规模、每次 ${regime.n_chars} 个字的加速比。`,
    en: `Speedup: ${FAMILY_LABEL.plain.en}'s time ÷ the drafter's (medians of ${HEAVY_PAIRS} runs each). Paired repeats: the same ratio within each pair; faster or slower only when all ${HEAVY_PAIRS} pairs lie on one side of 1×, and near 1× a rerun may say otherwise. ` +
      `α: drafts accepted ÷ drafts checked in these decodes. The dial's column: the ${engine.en}'s speedup on this chapter's CPU at the same scale, ${regime.n_chars} characters a run.`,
  };
}

function rkTable(result, regime) {
  const point = regime.points.find((p) => p.scale === result.scale), ks = RK_POSITIONS.filter((k) => k > 1);
  return h("table", { class: "data cond-table lab-heavy-rk", "aria-labelledby": "lab-heavy-rk-title" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, ""), ks.map((k) => h("th", { scope: "col" }, `k = ${k}`)))),
    h("tbody", {},
      h("tr", { "data-row": "browser" }, h("th", { scope: "row" }, t({ zh: "你的浏览器", en: "Your browser" })),
        ks.map((k) => h("td", { class: "num" }, fixed(result.prices.r[k].median, 2)))),
      h("tr", { "data-row": "dial" }, h("th", { scope: "row" }, t({ zh: `${ENGINE_LABEL[regime.engine].zh}（本章 CPU）`, en: `${ENGINE_LABEL[regime.engine].en} (this chapter's CPU)` })),
        ks.map((k) => h("td", { class: "num" }, fixed(point.r[String(k)], 2))))));
}

// The r_k table's title, printed above its scroll box (a caption would scroll away on a phone), with
// a word on the dial's r₂ where it is below 1.
export function rkTitle(result, regime) {
  const below = regime.points.find((p) => p.scale === result.scale).r["2"] < 1;
  return {
    zh: "验收的开销 rₖ：k 个位置的 forward ÷ 1 个位置的（这里是三次配对计时的中位数）。" +
      (below ? `${ENGINE_LABEL[regime.engine].zh}的 r₂ 低于 1：它的一行和两行走的是两段不同的内核代码（见 ⑥）。` : ""),
    en: "The verify's price rₖ: a forward of k positions ÷ one of a single position (here the median of 3 paired timings)." +
      (below ? ` The ${ENGINE_LABEL[regime.engine].en}'s r₂ is below 1: its kernel takes one row and two rows through different code (see ⑥).` : ""),
  };
}

// ui: {box, kernelNote, forwardNote, scale, go, note, race, legend, rk, rkTitle, says}; getLab() resolves to the page's lab; newKernel()
// to a fresh kernel; prompt() is the lab's prompt as ids.
export function initHeavyRace(ui, regime, { getLab, newKernel, prompt, say }) {
  const st = { kernel: null, result: null, busy: false };
  let scales = heavyScales(regime);

  function labelScales() {
    const chosen = ui.scale.value;
    ui.scale.replaceChildren(...scales.map((s) => h("option", { value: String(s.scale) }, t(scaleLabel(s)))));
    const kept = scales.some((s) => String(s.scale) === chosen);
    ui.scale.value = kept ? chosen : String(defaultScale(scales, globalThis.navigator?.deviceMemory));
  }

  function draw() {
    labelScales();
    if (st.kernel) say(ui.kernelNote, KERNEL_NOTE[st.kernel]);
    ui.forwardNote.hidden = st.kernel !== "js";  // without the WebAssembly kernel, said where it shows
    if (st.kernel === "js") say(ui.forwardNote, KERNEL_NOTE.js);
    ui.go.disabled = st.busy || !st.kernel;
    ui.go.textContent = t(ui.scale.value === "1" ? { zh: "让原样的模型赛跑", en: "Race the models as trained" }
      : { zh: "生成加重版，开始赛跑", en: "Build the twin and race" });
    const r = st.result;
    ui.race.replaceChildren(...(r ? [raceTable(r, regime)] : []));
    ui.legend.textContent = r ? t(raceLegend(r, regime)) : "";
    ui.rk.replaceChildren(...(r ? [rkTable(r, regime)] : []));
    ui.rkTitle.textContent = r ? t(rkTitle(r, regime)) : "";
    ui.rkTitle.hidden = !r;
    ui.says.textContent = r ? t(heavySays(r, regime)) : "";
  }

  async function run() {
    if (st.busy) return;
    st.busy = true;
    st.result = null;
    delete ui.box.dataset.result;
    ui.box.dataset.state = "running";
    draw();
    const scale = Number(ui.scale.value), which = scales.find((s) => s.scale === scale);
    let lastYield = performance.now();
    const after = async () => {
      if (performance.now() - lastYield > YIELD_MS) { await nextTask(); lastYield = performance.now(); }
    };
    try {
      const lab = await getLab();
      say(ui.note, NOTE.building(which));
      await nextTask();
      const built = buildHeavyLab(lab, scale, await newKernel());  // the twin lives until the race ends
      say(ui.note, NOTE.pricing);
      await nextTask();
      const prices = await verifyPrices(built.lab, { after: nextTask });
      const configs = Object.fromEntries(Object.entries(dialRows(regime, scale)).map(([family, row]) => [family, row.size]));
      const race = await pairedRace(built.lab, { configs, prompt: prompt(), n: raceChars(scale), pairs: HEAVY_PAIRS, after,
        onRun: (pair, method) => say(ui.note, NOTE.racing(pair, method)) });
      st.result = { scale, built: { ms: built.ms, bytes: built.bytes }, prices, race };
      say(ui.note, builtNote(built));
      ui.box.dataset.result = JSON.stringify(st.result);
      ui.box.dataset.state = "done";
    } catch (err) {
      say(ui.note, NOTE.failed(err && err.message ? err.message : String(err)));
      ui.box.dataset.state = "error";
    }
    st.busy = false;
    draw();
  }

  ui.go.addEventListener("click", run);
  // another scale: the result on show belongs to the old one
  ui.scale.addEventListener("change", () => {
    if (st.busy) return;
    if (st.result) {
      st.result = null;
      delete ui.box.dataset.result;
      ui.box.dataset.state = "idle";
      say(ui.note, null);
    }
    draw();  // the button names what it will build
  });
  return {
    ready(kernelName) {
      st.kernel = kernelName;
      scales = heavyScales(regime, kernelName);
      ui.scale.value = "";
      ui.box.dataset.state = "idle";
      ui.box.dataset.forward = kernelName;
      draw();
    },
    redraw: draw,
  };
}
