// Section ①, second part: why checking γ drafts costs about as much as making one. First the
// accelerator argument as arithmetic from vendors' datasheets (a roofline at batch 1, labelled as
// such), then this chapter's own measured price of a forward against its number of new positions.
import { dataTable, foldBox, h, s } from "./dom.js";
import { fixed } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { ENGINE_LABEL, labelled } from "./labels.js";
import { verifyCostRatio } from "./lab_decode.js";
import { pageLab } from "./lab_load.js";
import { BYTES_PER_PARAM, DEVICES, MAIN_PRESETS, MODEL_SIZES, ridge, roofline } from "./roofline.js";
import { fitNote } from "./roofline_fit.js";

// The measured curve of one engine: [{n, ratio, lo, hi, ms}]: ratio to one position (the median
// of the repeats, each paired with the one-position forward of the same repeat), lo/hi the
// smallest and largest of those paired ratios.
export function costCurve(engine, positions) {
  return positions.map((n) => {
    const key = String(n);
    const spread = engine.over_main_spread[key];
    return { n, ratio: engine.over_main[key], lo: spread.min, hi: spread.max, ms: 1000 * engine.seconds.positions[key] };
  });
}

// A measured point's <title>: "编译引擎，16 个位置：2.60×" / "compiled engine, 16 positions: 2.60×".
export function pointTitle(engine, point, label = ENGINE_LABEL[engine]) {
  const e = label;
  return labelled({ zh: `${e.zh}，${point.n} 个位置`, en: `${e.en}, ${point.n} position${point.n === 1 ? "" : "s"}` },
    `${fixed(point.ratio, 2)}×`);
}

const flatKey = (engine, slack) => ({
  zh: `${ENGINE_LABEL[engine].zh}：一次 forward 最多喂几个新位置，耗时仍不超过 1 个位置的 ${fixed(1 + slack, 2)} 倍`,
  en: `${ENGINE_LABEL[engine].en}: the most new positions one forward takes while costing at most ${fixed(1 + slack, 2)}× one position`,
});
const us = (seconds) => (seconds < 1e-3 ? `${fixed(seconds * 1e6, 2)} µs` : `${fixed(seconds * 1e3, 2)} ms`);
// a GPU-sized model by its name and size (roofline.js MAIN_PRESETS, the models ⑧'s clock runs too)
const sizeLabel = (params) => {
  const preset = MAIN_PRESETS.find((m) => m.params === params);
  return preset ? `${preset.name} (${Number((params / 1e9).toPrecision(3))}B)` : `${fixed(params / 1e6, 2)}M`;
};

function rooflineNodes(state, sizes) {
  const device = DEVICES.find((d) => d.id === state.device);
  const params = sizes[state.size];
  const r = roofline(device, params, state.k);
  const top = Math.max(r.memory, r.compute);
  const bar = (cls, value, label) => h("div", { class: "tbar" },
    h("div", { class: "tname" }, t(label)),
    h("div", { class: "ttrack" }, h("span", { class: cls, style: { width: `${(100 * value) / top}%` } })),
    h("div", { class: "tval" }, us(value)));
  const knee = ridge(device);
  const tiny = r.memory < 1e-6;
  const note = fitNote(device, params, BYTES_PER_PARAM);
  return [
    h("div", { class: "tbars" },
      bar("t-verify", r.memory, { zh: "读一遍权重（字节 ÷ 带宽）", en: "reading the weights (bytes ÷ bandwidth)" }),
      bar("t-draft", r.compute, { zh: `${state.k} 个位置的算术（FLOPs ÷ 峰值）`, en: `arithmetic for ${state.k} positions (FLOPs ÷ peak)` })),
    h("div", { class: "readouts" },
      h("div", { class: "readout" }, h("div", { class: "v" }, `${fixed(r.overOne, 2)}×`),
        h("div", { class: "k" }, t({ zh: `${state.k} 个位置一步的时间 ÷ 1 个位置`, en: `a step over ${state.k} positions ÷ one position` }))),
      h("div", { class: "readout" }, h("div", { class: "v" }, `≈ ${Math.round(knee)}`),
        h("div", { class: "k" }, t({ zh: `${device.name} 的拐点：算术追上读权重之前能塞进的位置数（与模型大小无关）`, en: `the ${device.name}'s ridge point: positions before arithmetic catches up (any model size)` })))),
    ...(note ? [h("p", { class: "warn roof-fit" }, t(note))] : []),
    h("p", { class: "caption" }, t(tiny
      ? { zh: `这是按规格书算的，不是测量。${sizeLabel(params)} 参数的模型读一遍权重只要 ${us(r.memory)}，比一次 forward 发起几十个 kernel 的开销还短，所以这套算术描述不了它：和本章的 CPU 一样，它卡在调度上。`,
          en: `Arithmetic from the datasheet, not a measurement. Reading the weights of a ${sizeLabel(params)}-parameter model takes only ${us(r.memory)}, less than launching the dozens of kernels of one forward, so this arithmetic does not describe it: like this chapter's CPU, it is bound by dispatch.` }
      : { zh: "这是按规格书算的，不是测量：batch 1、16 位权重，不算读写 KV cache 和启动 kernel 的时间，峰值在实际中也达不到。",
          en: "Datasheet arithmetic, not measured: batch 1, 16-bit weights, no KV-cache traffic or kernel launches, unreachable peak rates." }),
    t({ zh: "来源：", en: " Source: " }), h("a", { href: device.url }, t(device.source)), t({ zh: "。", en: "." })),
  ];
}

function curveSvg(curves, positions) {
  const W = 460, H = 224, L = 62, R = 14, T = 12, B = 42;
  const lx = (n) => Math.log2(n);
  const x = (n) => L + ((W - L - R) * lx(n)) / lx(positions[positions.length - 1]);
  // log scale up the side too: the flat stretch the text quotes (within 1.15×) stays readable beside a
  // curve that reaches 10× at 64 positions
  const top = Math.max(...curves.flatMap((c) => c.points.map((p) => p.hi)), 1.5) * 1.05;
  const bottom = Math.min(...curves.flatMap((c) => c.points.map((p) => p.lo)), 1) / 1.05;
  const y = (v) => T + (H - T - B) * (Math.log(top) - Math.log(v)) / (Math.log(top) - Math.log(bottom));
  const ticksY = [1, 1.5, 2, 3, 5, 10, 20, 50].filter((v) => v <= top);
  return s("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": t({ zh: "一次 forward 的耗时（相对 1 个位置）与新位置数，每种测过的引擎一条；数字见下表", en: "the time of one forward (relative to one position) against the number of new positions, one curve per engine measured; the numbers are in the table below" }) },
  s("line", { class: "axis", x1: L, y1: y(bottom), x2: W - R, y2: y(bottom) }),
  s("line", { class: "axis", x1: L, y1: T, x2: L, y2: y(bottom) }),
  s("line", { class: "axis dashed", x1: L, y1: y(1), x2: W - R, y2: y(1) }),
  positions.map((n) => s("text", { x: x(n), y: H - B + 18, "text-anchor": "middle" }, String(n))),
  ticksY.map((v) => s("text", { x: L - 8, y: y(v) + 4, "text-anchor": "end" }, `${v}×`)),
  s("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle" }, t({ zh: "一次 forward 的新位置数（对数刻度）", en: "new positions in one forward (log scale)" })),
  s("text", { x: 12, y: (T + y(bottom)) / 2, transform: `rotate(-90 12 ${(T + y(bottom)) / 2})`, "text-anchor": "middle" }, t({ zh: "÷ 1 个位置的耗时（对数）", en: "÷ one position's time (log)" })),
  curves.map((c) => s("g", { class: `curve ${c.engine}${c.faint ? " faint" : ""}` },
    s("polyline", { points: c.points.map((p) => `${x(p.n)},${y(p.ratio)}`).join(" ") }),
    c.points.map((p) => s("g", {},
      s("line", { class: "whisker", x1: x(p.n), x2: x(p.n), y1: y(p.lo), y2: y(p.hi) }),
      s("circle", { cx: x(p.n), cy: y(p.ratio), r: 3.5 }, s("title", {}, t(pointTitle(c.engine, p, c.label)))))))));
}

// The roofline's controls: device, model size (this chapter's main model first), positions.
function rooflineControls(state, sizes, render) {
  const seg = (label, items) => h("div", { class: "seg", role: "group", "aria-label": t(label) },
    items.map((item) => h("button", { type: "button", "aria-pressed": String(item.on()), onclick: () => { item.pick(); render(); } }, item.text)));
  const slider = h("input", { type: "range", id: "roof-k", min: 0, max: 10, step: 1, value: Math.log2(state.k),
    "aria-label": t({ zh: "一步里的位置数（2 的幂）", en: "positions in one step (powers of 2)" }),
    oninput: (e) => { state.k = 2 ** Number(e.target.value); render(); } });
  return [
    seg({ zh: "设备", en: "device" }, DEVICES.map((d) => ({ text: d.name, on: () => d.id === state.device, pick: () => { state.device = d.id; } }))),
    seg({ zh: "模型大小", en: "model size" }, sizes.map((size, i) => ({
      text: i === 0 ? t({ zh: `本章主模型 ${sizeLabel(size)}`, en: `this chapter's ${sizeLabel(size)}` }) : sizeLabel(size),
      on: () => i === state.size, pick: () => { state.size = i; } }))),
    h("label", {}, t({ zh: "位置数", en: "positions" }), " ", slider, " ", h("output", { class: "mono" }, String(state.k))),
  ];
}

// The browser's curve stops at a verify of 8 drafts: past that the page's forward is so dear
// that its curve would flatten PyTorch's.
export const BROWSER_MAX_POSITIONS = 9;

// the page's forward by its kernel (lab_kernel.js): WebAssembly SIMD, or JavaScript without it
const FORWARD = { wasm: { zh: "WebAssembly", en: "WebAssembly" }, js: { zh: "JavaScript", en: "JavaScript" } };

function browserNote(browser) {
  if (browser.busy) return { zh: "正在计时……（每个位置数成批计时，每批至少 20 毫秒）", en: "Timing… (each size in batches of at least 20 ms)" };
  if (browser.points?.length) {
    const f = FORWARD[browser.kernel];
    return { zh: `刚在你的浏览器里测的：实验台同一个模型的 forward（${f.zh}），验收 k 个位置 ÷ 1 个位置（每个比值里两边交替计时）。它不是本章用 PyTorch 测的数字，重测会变。`,
      en: `Measured just now in your browser: the lab's model (its ${f.en} forward), a verify of k positions ÷ one position (both sides of each ratio timed in turn). Not one of the chapter's PyTorch figures; it changes when you time it again.` };
  }
  return { zh: "测出的曲线画在 PyTorch 的曲线旁边。", en: "Its curve is drawn beside PyTorch's." };
}

function browserError(message) {
  return { zh: `这个浏览器测不了：${message}`, en: `This browser cannot time it: ${message}` };
}

// answer: the engine ⑤–⑦ rank on (regime.json's), drawn alone on the main path; opening the numbers'
// fold adds the other engines' curves, faint, and the browser's once timed
export function initVerifyCost(costs, models, answer) {
  const seed = models.meta.seeds[0];
  const sizes = [models.runs[`main_s${seed}`].params, ...MODEL_SIZES];
  const state = { device: "h100", size: 2, k: 4 };
  const engines = Object.keys(ENGINE_LABEL).filter((engine) => engine in costs.engines); // from the most overhead to the least
  const answerMeasured = engines.includes(answer);
  const curves = engines.map((engine) => ({ engine, points: costCurve(costs.engines[engine], costs.positions),
    faint: engine !== answer && answerMeasured }));
  const el = (id) => document.getElementById(id);
  // the lab's forward (WebAssembly or JavaScript), timed in this browser when the reader asks (null: not yet)
  const browser = { points: null, busy: false, error: null, kernel: "js" };
  const browserLabel = () => ({ zh: `这个浏览器里的 ${FORWARD[browser.kernel].zh}（实验台的模型）`, en: `${FORWARD[browser.kernel].en} in this browser (the lab's model)` });

  async function measureBrowser() {
    if (browser.busy) return;
    Object.assign(browser, { busy: true, error: null, points: [] });
    renderCurve();
    try {
      const lab = await pageLab();
      browser.kernel = lab.kernel;
      for (const n of costs.positions.filter((k) => k <= BROWSER_MAX_POSITIONS)) {
        await new Promise((resolve) => setTimeout(resolve, 0));  // let the page draw between sizes
        const ratio = n === 1 ? 1 : verifyCostRatio(lab, n - 1);
        browser.points.push({ n, ratio, lo: ratio, hi: ratio });
        renderCurve();
      }
    } catch (err) {
      browser.error = err && err.message ? err.message : String(err);
    }
    browser.busy = false;
    renderCurve();
  }

  function renderRoofline() {
    const focused = document.activeElement?.id === "roof-k";
    el("roof-controls").replaceChildren(...rooflineControls(state, sizes, renderRoofline));
    if (focused) el("roof-k").focus();
    el("roof-out").replaceChildren(...rooflineNodes(state, sizes));
  }

  const numbersFold = { open: false }; // the table under the curve, closed until the reader opens it
  const chart = h("div"), legend = h("div", { class: "legend" });
  const measuredCurves = () => (browser.points?.length ? [...curves, { engine: "browser", label: browserLabel(), points: browser.points }] : curves);
  // the chart and its legend: the answer engine alone while the fold is closed (where it was measured)
  function renderChart() {
    const all = measuredCurves();
    const drawn = numbersFold.open || !answerMeasured ? all : all.filter((c) => c.engine === answer);
    chart.replaceChildren(curveSvg(drawn, costs.positions));
    legend.replaceChildren(...drawn.map((c) => h("span", { class: c.engine === answer ? "lead" : null }, h("span", { class: `swatch line-${c.engine}` }),
      t(c.label ?? ENGINE_LABEL[c.engine]), c.engine === answer ? t({ zh: "（⑤–⑦ 用它排名）", en: " (⑤–⑦ rank on it)" }) : null)));
  }
  function renderCurve() {
    const shown = measuredCurves();
    // one column per engine: the ratio to one position, and under it the milliseconds
    const head = [t({ zh: "新位置数", en: "new positions" }), ...shown.map((c) => t(c.label ?? ENGINE_LABEL[c.engine]))];
    const rows = costs.positions.map((n, i) => ({ label: String(n),
      cells: shown.map((c) => {
        const p = c.points.find((q) => q.n === n);
        return !p ? "—" : p.ms === undefined ? `${fixed(p.ratio, 2)}×` : [`${fixed(p.ratio, 2)}×`, h("span", { class: "sub" }, `${fixed(p.ms, 3)} ms`)];
      }) }));
    const note = browser.error ? t(browserError(browser.error)) : t(browserNote(browser));
    const focused = document.activeElement?.id === "cost-browser-go";
    renderChart();
    const fold = foldBox(numbersFold, t({ zh: "每种引擎的曲线和数字，以及你的浏览器", en: "Every engine's curve and numbers, and your browser's" }),
        h("div", { class: "controls" }, h("button", { type: "button", id: "cost-browser-go", disabled: browser.busy ? "" : null, onclick: measureBrowser },
          t({ zh: "在这个浏览器里测实验台（⑧）的 forward", en: "Time the lab's (⑧) forward in this browser" })),
        h("span", { class: "caption", id: "cost-browser-note", "aria-live": "polite" }, note)),
        h("div", { class: "readouts" }, curves.map((c) => h("div", { class: "readout" },
          h("div", { class: "v" }, `${costs.summary[c.engine].flat_until}`),
          h("div", { class: "k" }, t(flatKey(c.engine, costs.summary[c.engine].flat_slack)))))),
        h("div", { class: "table-scroll", tabindex: 0, role: "group", "aria-label": t({ zh: "实测耗时的数字", en: "the measured times" }) },
          dataTable({ caption: t({ zh: "实测：一次 forward 的耗时", en: "measured: the time of one forward" }), head, rows }, { class: "calc numbers" })),
        h("p", { class: "caption" }, t({
        zh: `每格上面是这次 forward 的耗时除以 1 个位置的耗时，下面是耗时本身。耗时是 ${costs.repeats} 次交替重复的中位数（每次重复取 ${costs.calls_per_repeat} 次调用的中位数）；比值先在每次重复里除以同一次重复的 1 个位置，再取中位数，所以不一定等于两个耗时相除：机器的速度在重复之间漂移得比在一次重复之内厉害。`,
        en: `Each cell gives the forward's time over one position's, and under it the time itself. The times are medians of ${costs.repeats} interleaved repeats (each the median of ${costs.calls_per_repeat} calls); the ratios divide by one position within each repeat first and then take the median, so they need not equal one time over the other: the machine's speed drifts more between repeats than within one.` })));
    fold.addEventListener("toggle", renderChart);  // after foldBox's own listener has noted the state
    el("cost-curve").replaceChildren(chart, legend, fold);
    if (focused) el("cost-browser-go").focus();
  }

  onLangChange(() => { renderRoofline(); renderCurve(); });
  renderRoofline();
  renderCurve();
}
