// Section ⑥, the engine ladder: eager plain → compiled plain → the fastest compiled speculative
// row (and the fastest eager one beside it), each as eager plain decoding's time over its own, so
// a reader sees how much of the gain is engineering and how much is speculation. Then the
// engine's three targets, each measured, and for a missed one the cost to blame.
import { h } from "./dom.js";
import { fixed, percent } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { laneOf, ledgerSteps, ledgerVerdict, methodLabel } from "./ledger.js";

const ENGINE = { eager: { zh: "eager", en: "eager" }, compiled: { zh: "编译", en: "compiled" } };

// [{label, value, lo, hi, cls}] in the ladder's order; the eager speculative row comes last, apart.
export function ladderBars(ladder) {
  const bar = (step, cls) => ({
    label: { zh: `${ENGINE[step.engine].zh} · ${methodLabel(step).zh}`, en: `${ENGINE[step.engine].en} · ${methodLabel(step).en}` },
    value: step.over_eager_plain, lo: step.over_eager_plain_runs?.min, hi: step.over_eager_plain_runs?.max, cls,
  });
  return [...ladder.steps.map((step, i) => bar(step, i === 0 ? "rung base" : "rung")), bar(ladder.eager_best, "rung aside")];
}

// How the ladder's top splits: engineering (compiled plain over eager plain) times speculation
// (the fastest compiled row over compiled plain) makes the whole.
export function ladderSplit(ladder) {
  const [, plain, best] = ladder.steps;
  return { engineering: plain.over_eager_plain, speculation: best.over_eager_plain / plain.over_eager_plain, total: best.over_eager_plain };
}

const TARGET_TEXT = {
  compiled_plain_over_eager_plain: { zh: "编译的普通解码 ÷ eager 的普通解码（墙钟加速）", en: "compiled plain ÷ eager plain decoding (wall-clock speedup)" },
  best_compiled_draft_over_compiled_plain: { zh: "编译引擎里最快的草稿模型行 ÷ 编译的普通解码", en: "fastest compiled draft-model row ÷ compiled plain decoding" },
  compiled_verify4_over_main1: { zh: "编译引擎：4 个位置的验收 forward ÷ 1 个位置的 forward", en: "compiled engine: a 4-position verify forward ÷ a 1-position forward" },
};

// The verify target read from section ①'s curve (costs.json), the dedicated measurement the page
// draws; the ledger's own run measured the same ratio too, and both are shown: they differ by the
// timer noise of this machine.
export function pageTargets(targets, costs) {
  const curve = costs?.engines?.compiled?.over_main?.["4"];
  return targets.map((target) => (target.name === "compiled_verify4_over_main1" && curve !== undefined
    ? { ...target, value: curve, ledgerValue: target.value } : target));
}

export function targetMet(target) {
  return target.at_least ? target.value >= target.target : target.value <= target.target;
}

// For a missed target, the measured cost to blame, in one sentence.
export function targetBlame(target, compiled, eagerPlain) {
  if (targetMet(target)) return null;
  const rows = compiled.rows;
  const plain = rows.find((r) => r.method === "plain");
  if (target.name === "compiled_plain_over_eager_plain") {
    const perForward = (r) => r.parts_s.main_forwards / r.main_forwards;
    const perOther = (r) => r.parts_s.other / r.main_forwards;
    return {
      zh: `forward 本身快了 ${fixed(perForward(eagerPlain) / perForward(plain), 2)} 倍（运行中平均每次 ${fixed(1000 * perForward(eagerPlain), 3)} → ${fixed(1000 * perForward(plain), 3)} ms），但 forward 以外的开销（采样、Python 循环）每个字仍要 ${fixed(1000 * perOther(plain), 3)} ms（eager 是 ${fixed(1000 * perOther(eagerPlain), 3)} ms），占编译普通解码墙钟的 ${percent(plain.parts_share.other, 0)}：编译引擎没有碰这一块。`,
      en: `The forwards themselves got ${fixed(perForward(eagerPlain) / perForward(plain), 2)}× faster (${fixed(1000 * perForward(eagerPlain), 3)} → ${fixed(1000 * perForward(plain), 3)} ms each on average in the run), but the work outside them (sampling, the Python loop) still takes ${fixed(1000 * perOther(plain), 3)} ms per character (eager: ${fixed(1000 * perOther(eagerPlain), 3)} ms), ${percent(plain.parts_share.other, 0)} of compiled plain decoding's wall time: the compiled engine does not touch that part.`,
    };
  }
  if (target.name === "best_compiled_draft_over_compiled_plain") {
    const row = rows.find((r) => r.method === "draft" && r.gamma === target.gamma);
    const verdict = ledgerVerdict(row, plain, ledgerSteps(row, plain));
    return { zh: `${methodLabel(row).zh}这一行：${verdict.zh}`, en: `The ${methodLabel(row).en} row: ${verdict.en}` };
  }
  return {
    zh: `这就是成本本身：编译引擎里 4 个位置的 forward 是 1 个位置的 ${fixed(target.value, 2)} 倍（第 ① 节的曲线），每一轮验收都按这个价付钱。`,
    en: `This is the cost itself: in the compiled engine a 4-position forward costs ${fixed(target.value, 2)}× a 1-position one (the curve in section ①), and every verify pays that price.`,
  };
}

// A note under a target that was measured twice (section ①'s curve and the ledger's own run).
export function targetNote(target) {
  if (target.ledgerValue === undefined) return null;
  return {
    zh: `取自第 ① 节的曲线；账本自己那一轮测量里同一个比值是 ${fixed(target.ledgerValue, 2)}。两次之差就是这台机器的计时噪声。`,
    en: `From the curve in section ①; the ledger's own run measured the same ratio at ${fixed(target.ledgerValue, 2)}. The difference between the two is this machine's timer noise.`,
  };
}

// Sentences in both languages run together: no space between Chinese sentences.
const joinPair = (pairs) => ({ zh: pairs.map((x) => x.zh).join(""), en: pairs.map((x) => x.en).join(" ") });

function ladderNodes(ledger, costs) {
  const compiled = ledger.compiled;
  const bars = ladderBars(compiled.ladder);
  const top = Math.max(...bars.map((b) => b.hi ?? b.value));
  const split = ladderSplit(compiled.ladder);
  const eagerPlain = ledger.rows.find((r) => laneOf(r) === "kvcache" && r.method === "plain");
  return [
    h("div", { class: "tbars ladder" }, bars.map((b) => h("div", { class: `tbar ${b.cls}` },
      h("div", { class: "tname" }, t(b.label)),
      h("div", { class: "ttrack" }, h("span", { class: "t-verify", style: { width: `${(100 * b.value) / top}%` } })),
      h("div", { class: "tval" }, `${fixed(b.value, 2)}×`, b.lo === undefined || b.cls.includes("base") ? null
        : h("span", { class: "sub" }, `${fixed(b.lo, 2)}–${fixed(b.hi, 2)}`))))),
    h("div", { class: "readouts" },
      h("div", { class: "readout" }, h("div", { class: "v" }, `${fixed(split.engineering, 2)}×`), h("div", { class: "k" }, t({ zh: "工程：编译引擎本身", en: "engineering: the compiled engine alone" }))),
      h("div", { class: "readout" }, h("div", { class: "v" }, `${fixed(split.speculation, 2)}×`), h("div", { class: "k" }, t({ zh: "投机：在编译引擎之上再加的", en: "speculation: what it adds on top of the compiled engine" }))),
      h("div", { class: "readout" }, h("div", { class: "v" }, `${fixed(split.total, 2)}×`), h("div", { class: "k" }, t({ zh: "两者相乘：对 eager 普通解码", en: "both together, over eager plain decoding" })))),
    h("div", { class: "table-scroll", tabindex: 0, role: "group", "aria-label": t({ zh: "编译引擎的三个目标", en: "the compiled engine's three targets" }) }, h("table", { class: "calc targets" },
      h("caption", {}, t({ zh: "编译引擎的三个目标（只在这里测量，测试里不断言）", en: "The compiled engine's three targets (measured here, never asserted in a test)" })),
      h("thead", {}, h("tr", {}, [{ zh: "目标", en: "target" }, { zh: "要求", en: "aim" }, { zh: "实测", en: "measured" }, { zh: "结果", en: "result" }]
        .map((c) => h("th", { scope: "col" }, t(c))))),
      h("tbody", {}, pageTargets(compiled.targets, costs).flatMap((target) => {
        const met = targetMet(target);
        const blame = targetBlame(target, compiled, eagerPlain);
        const note = targetNote(target);
        return [h("tr", {},
          h("th", { scope: "row" }, t(TARGET_TEXT[target.name])),
          h("td", {}, `${target.at_least ? "≥" : "≤"} ${fixed(target.target, 2)}`),
          h("td", {}, `${fixed(target.value, 2)}`),
          h("td", { class: met ? "good" : "warn" }, met ? t({ zh: "✓ 达到", en: "✓ met" }) : t({ zh: "✗ 未达到", en: "✗ missed" }))),
        blame || note ? h("tr", { class: "blame" }, h("td", { colspan: 4 }, t(joinPair([blame, note].filter(Boolean))))) : null];
      })))),
  ];
}

export function initLadder(ledger, costs) {
  const box = document.getElementById("ladder-widget");
  const render = () => box.replaceChildren(...ladderNodes(ledger, costs));
  onLangChange(render);
  render();
}
