// Section ④: the MTP head. A clickable architecture diagram with the real parameter counts,
// the 240-char self-drafted trace (one step per main forward), and the MTP head against the
// small draft at γ = 1 from the ledger. Every top-level name starts with mtp / MTP_ because the
// bundler puts all modules into one scope.
import { h, readoutBox, s } from "./dom.js";
import { charLabel, escapeHTML, fixed, grouped, percent, textLabel } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { hashGet, hashSet, intInRange } from "./state.js";

// ---- the diagram ---------------------------------------------------------------------------

// viewBox 340 wide: at a 390 px phone the SVG is ~345 px wide, so 13-unit text stays ≥ 12 px.
const MTP_VIEW = { w: 340, h: 526, box: 28 };
const MTP_COL = { main: [6, 154], mtp: [180, 154], hid: [180, 74], emb: [260, 74] };

// role: "main" (the next-token model's own), "own" (new parameters of the MTP module),
// "shared" (the same tensor as a main-model part: counted once), "none" (no parameters).
// param(p) reads the count from mtp.json "params"; a shared part has none of its own and
// names its owner instead, whose count it reports.
const MTP_FINAL_NORM = { zh: "末层 RMSNorm", en: "Final RMSNorm" };
const MTP_HEAD = { zh: "输出头", en: "Output head" };
const MTP_PARTS = [
  { key: "emb", col: "main", y: 46, role: "main", label: { zh: "嵌入表", en: "Embedding" }, param: (p) => p.shared_embedding_head },
  ...[0, 1, 2, 3].map((i) => ({ key: `block${i + 1}`, col: "main", y: 92 + 40 * i, role: "main",
    label: { zh: `Transformer 块 ${i + 1}`, en: `Block ${i + 1}` }, param: (p) => p.main_blocks[i] })),
  { key: "ht", col: "ht", y: 258, role: "none", label: { zh: "hₜ", en: "hₜ" }, svg: ["h", "t"], param: () => 0 },
  { key: "final_norm", col: "main", y: 304, role: "main", label: MTP_FINAL_NORM, param: (p) => p.shared_final_norm },
  { key: "head", col: "main", y: 342, role: "shared", owner: "emb", label: MTP_HEAD },
  { key: "mtp_emb", col: "emb", y: 46, role: "shared", owner: "emb", label: { zh: "嵌入", en: "Emb" } },
  { key: "hidden_norm", col: "hid", y: 258, role: "own", label: { zh: "RMSNorm", en: "RMSNorm" }, param: (p) => p.hidden_norm },
  { key: "embed_norm", col: "emb", y: 258, role: "own", label: { zh: "RMSNorm", en: "RMSNorm" }, param: (p) => p.embed_norm },
  { key: "concat", col: "mtp", y: 304, role: "none", label: { zh: "拼接 [ · ; · ] → 2d", en: "Concat [ · ; · ] → 2d" }, param: () => 0 },
  { key: "proj", col: "mtp", y: 342, role: "own", label: { zh: "投影 W:2d → d", en: "Projection W: 2d → d" },
    short: { zh: "投影 W:2d → d", en: "Projection 2d → d" }, param: (p) => p.proj },
  { key: "mtp_block", col: "mtp", y: 380, role: "own", label: { zh: "MTP 的 Transformer 块", en: "MTP block" }, param: (p) => p.block },
  { key: "mtp_final_norm", col: "mtp", y: 418, role: "shared", owner: "final_norm", label: MTP_FINAL_NORM },
  { key: "mtp_head", col: "mtp", y: 456, role: "shared", owner: "emb", label: MTP_HEAD },
];

function mtpPart(key) {
  const part = MTP_PARTS.find((x) => x.key === key);
  if (!part) throw new Error(`unknown MTP diagram part ${key}`);
  return part;
}

export function mtpPartCount(key, params) {
  const part = mtpPart(key);
  return (part.owner ? mtpPart(part.owner) : part).param(params);
}

export function mtpPartKeys() {
  return MTP_PARTS.map((x) => x.key);
}

// A transformer block's parameters from the config: attention (q, k, v, o: 4·d²), SwiGLU (three
// d × hidden matrices) and two RMSNorm gains. Shown only when it matches the measured count.
export function mtpBlockBreakdown(cfg) {
  const d = cfg.n_embd;
  const attn = 4 * d * d, mlp = 3 * d * cfg.mlp_hidden, norms = 2 * d;
  return { d, hidden: cfg.mlp_hidden, attn, mlp, norms, total: attn + mlp + norms };
}

// The sums the readouts print: the MTP module's own parameters and the main model's.
export function mtpTotals(params) {
  const own = [params.hidden_norm, params.embed_norm, params.proj, params.block];
  const main = [params.shared_embedding_head, ...params.main_blocks, params.shared_final_norm];
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  return { own, ownSum: sum(own), main, mainSum: sum(main) };
}

function mtpPartText(part, ctx) {
  const { cfg, params } = ctx;
  const d = cfg.n_embd, V = cfg.vocab_size;
  const b = mtpBlockBreakdown(cfg);
  const blockMath = b.total === params.block
    ? { zh: `注意力 4·d² = ${grouped(b.attn)},SwiGLU 3·d·${b.hidden} = ${grouped(b.mlp)},两个 RMSNorm 2·d = ${grouped(b.norms)}`,
        en: `attention 4·d² = ${grouped(b.attn)}, SwiGLU 3·d·${b.hidden} = ${grouped(b.mlp)}, two RMSNorms 2·d = ${grouped(b.norms)}` }
    : null;
  const i = part.key.startsWith("block") ? part.key.slice(5) : "";
  const texts = {
    emb: { shape: `V × d = ${V} × ${d}`,
      zh: `每个字符查一行,得到一个 d = ${d} 维向量;${V} 种字符就是 ${V} 行。这张表身兼三职:主模型的输入嵌入、MTP 模块查 xₜ₊₁ 的嵌入,以及输出头(权重绑定)。`,
      en: `One row per character, each a vector of d = ${d} numbers; ${V} characters make ${V} rows. The table does three jobs: the main model's input embedding, the lookup of xₜ₊₁ inside the MTP module, and the output head (tied weights).` },
    block: { shape: blockMath,
      zh: `主模型的第 ${i} 个块:RMSNorm → 带 RoPE 的多头因果自注意力 → RMSNorm → SwiGLU MLP,两处都有残差连接。4 个块结构相同,参数一样多。`,
      en: `Block ${i} of the main model: RMSNorm → causal multi-head self-attention with RoPE → RMSNorm → SwiGLU MLP, with a residual connection around each half. All four blocks have the same shape and the same count.` },
    ht: { shape: `d = ${d}`,
      zh: `第 4 个块在位置 t 的输出,${d} 维,还没过末层 RMSNorm。它是激活值,不是一层,没有参数。主模型用它预测 xₜ₊₁;MTP 模块把它当作"到 t 为止的前文摘要"。`,
      en: `The output of block 4 at position t, ${d} numbers, before the final RMSNorm. It is an activation, not a layer, so it has no parameters. The main model predicts xₜ₊₁ from it; the MTP module reads it as a summary of the text up to t.` },
    final_norm: { shape: `d = ${d}`,
      zh: `输出头之前的归一化,可学的只有 ${d} 个缩放系数。`,
      en: `The normalisation before the output head; its only learned parameters are ${d} scale factors.` },
    head: { shape: `d → V = ${d} → ${V}`,
      zh: `把 ${d} 维向量乘以嵌入表的转置,得到 ${V} 个字符的 logits,softmax 之后就是 p(xₜ₊₁)。`,
      en: `Multiplies the ${d}-number vector by the transposed embedding table to get ${V} logits; their softmax is p(xₜ₊₁).` },
    mtp_emb: { shape: `V × d = ${V} × ${d}`,
      zh: `MTP 模块要知道 xₜ₊₁ 是哪个字,就到主模型的嵌入表里查它的向量。训练时 xₜ₊₁ 是语料里真实的下一个字;解码时是主模型刚采样出的字。`,
      en: `To know which character xₜ₊₁ is, the MTP module looks up its vector in the main model's embedding table. In training xₜ₊₁ is the true next character of the corpus; in decoding it is the character the main model has just sampled.` },
    hidden_norm: { shape: `d = ${d}`,
      zh: `先把 hₜ 单独归一化(${d} 个缩放系数),两路输入拼接前尺度才一致:残差流里的 hₜ 和一行嵌入向量,数值大小差得很远。`,
      en: `Normalises hₜ on its own (${d} scale factors) so that both inputs reach the concatenation at a similar scale: a residual-stream vector and an embedding row can differ a lot in size.` },
    embed_norm: { shape: `d = ${d}`,
      zh: `对 Emb(xₜ₊₁) 做同样的归一化,另有一套 ${d} 个缩放系数。`,
      en: `The same normalisation for Emb(xₜ₊₁), with its own ${d} scale factors.` },
    concat: { shape: `d + d = 2d = ${2 * d}`,
      zh: `把两个 ${d} 维向量首尾相接,得到 2d = ${2 * d} 维。只是摆放,没有参数。`,
      en: `Places the two ${d}-number vectors end to end: 2d = ${2 * d} numbers. Pure bookkeeping, no parameters.` },
    proj: { shape: `W: d × 2d = ${d} × ${2 * d}`,
      zh: `把 ${2 * d} 维压回 ${d} 维。"前文摘要"和"下一个字是谁"这两路信息在这里第一次混在一起。`,
      en: `Maps the ${2 * d} numbers back to ${d}. This is where "what came before" and "which character comes next" are first mixed.` },
    mtp_block: { shape: blockMath,
      zh: `MTP 模块自己的 Transformer 块,结构和主模型的块一模一样,参数也一样多。它的因果注意力在前面各位置的 h′ 上进行,所以看得到整段前文。`,
      en: `The MTP module's own transformer block, built exactly like a main-model block and just as large. Its causal attention runs over the h′ of earlier positions, so it sees the whole preceding text.` },
    mtp_final_norm: { shape: `d = ${d}`,
      zh: `直接用主模型的末层 RMSNorm,不另设参数。`,
      en: `The main model's final RMSNorm, reused without new parameters.` },
    mtp_head: { shape: `d → V = ${d} → ${V}`,
      zh: `直接用主模型的输出头,输出 xₜ₊₂ 的分布。投机解码时,它就是草稿分布 q。`,
      en: `The main model's output head, reused; it gives the distribution of xₜ₊₂. In speculative decoding this is the draft distribution q.` },
  };
  return texts[i ? "block" : part.key];
}

function mtpSharedNote(part, ctx) {
  if (part.role !== "shared") return null;
  const owner = mtpPart(part.owner);
  const n = grouped(ctx.params.main_total);
  return {
    zh: `共享:和主模型的"${owner.label.zh}"是同一组参数,已经算在主模型的 ${n} 个参数里,这里不再重复计算。`,
    en: `Shared: the very same parameters as the main model's ${owner.label.en.toLowerCase()}, already counted among its ${n}; they are not counted again here.`,
  };
}

function mtpRoleName(role) {
  return {
    main: { zh: "主模型自有", en: "main model" }, own: { zh: "MTP 模块新增", en: "new in the MTP module" },
    shared: { zh: "共享,只计一次", en: "shared, counted once" }, none: { zh: "没有参数", en: "no parameters" },
  }[role];
}

function mtpBox(part) {
  if (part.col === "ht") return { x: 44, w: 78 };
  const [x, w] = MTP_COL[part.col];
  return { x, w };
}

// Text with an optional subscript and a tail raised back to the baseline: "p(x" "t+1" ")".
function mtpLabel(x, y, base, sub, cls = "", tail = "") {
  return s("text", { x, y, "text-anchor": "middle", class: cls }, base,
    sub ? s("tspan", { dy: 4, "font-size": 12 }, sub) : null,
    tail ? s("tspan", { dy: -4 }, tail) : null);
}

function mtpArrow(x1, y1, x2, y2) {
  return s("line", { class: "mtp-arrow", x1, y1, x2, y2, "marker-end": "url(#mtp-arrowhead)" });
}

function mtpDiagramSVG() {
  const B = MTP_VIEW.box;
  const at = (key) => {
    const part = mtpPart(key);
    const { x, w } = mtpBox(part);
    return { x, w, cx: x + w / 2, top: part.y, bottom: part.y + B, mid: part.y + B / 2 };
  };
  const down = (a, b) => mtpArrow(at(a).cx, at(a).bottom, at(b).cx, at(b).top - 2);
  const parts = MTP_PARTS.map((part) => {
    const { x, w } = mtpBox(part);
    const label = t(part.short || part.label);
    const aria = `${t(part.label)}: ${t(mtpRoleName(part.role))}`;
    return s("g", { class: `mtp-part ${part.role}`, "data-part": part.key, tabindex: 0, role: "button", "aria-pressed": "false", "aria-label": aria },
      s("rect", { x, y: part.y, width: w, height: B, rx: part.col === "ht" ? 14 : 5 }),
      part.svg ? mtpLabel(x + w / 2, part.y + 18.5, ...part.svg) : mtpLabel(x + w / 2, part.y + 18.5, label));
  });
  const m = at("ht"), hid = at("hidden_norm");
  return s("svg", { viewBox: `0 0 ${MTP_VIEW.w} ${MTP_VIEW.h}`, class: "mtp-svg", role: "group",
    "aria-label": t({ zh: "MTP 架构图:点一个部件看它是什么、有多少参数", en: "MTP architecture: select a part to see what it is and how many parameters it has" }) },
  s("defs", {}, s("marker", { id: "mtp-arrowhead", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" },
    s("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "mtp-arrowhead" }))),
  s("text", { x: 83, y: 14, "text-anchor": "middle", class: "mtp-head-label" }, t({ zh: "主模型", en: "Main model" })),
  s("text", { x: 257, y: 14, "text-anchor": "middle", class: "mtp-head-label" }, t({ zh: "MTP 模块(深度 1)", en: "MTP module (depth 1)" })),
  mtpLabel(83, 38, "x₁ … x", "t", "mtp-io"),
  mtpLabel(297, 38, "x", "t+1", "mtp-io"),
  down("emb", "block1"), down("block1", "block2"), down("block2", "block3"), down("block3", "block4"),
  down("block4", "ht"), down("ht", "final_norm"), down("final_norm", "head"),
  mtpArrow(at("head").cx, at("head").bottom, at("head").cx, at("head").bottom + 12),
  mtpLabel(83, at("head").bottom + 28, "p(x", "t+1", "mtp-io", ")"),
  mtpArrow(m.x + m.w, m.mid, hid.x - 2, hid.mid),
  down("mtp_emb", "embed_norm"),
  mtpArrow(hid.cx, hid.bottom, hid.cx, at("concat").top - 2),
  mtpArrow(at("embed_norm").cx, at("embed_norm").bottom, at("embed_norm").cx, at("concat").top - 2),
  down("concat", "proj"), down("proj", "mtp_block"), down("mtp_block", "mtp_final_norm"), down("mtp_final_norm", "mtp_head"),
  mtpArrow(257, at("mtp_head").bottom, 257, at("mtp_head").bottom + 12),
  mtpLabel(257, at("mtp_head").bottom + 28, "q(x", "t+2", "mtp-io", ")"),
  parts);
}

// ---- the trace -----------------------------------------------------------------------------

export function mtpKindCounts(steps) {
  const counts = { draft: 0, main: 0, resample: 0 };
  for (const st of steps) for (const k of st.kinds) counts[k] += 1;
  return counts;
}

// min(1, p/q) of a step's draft; null on a step without a draft. q = 0 never accepts.
export function mtpRatio(step) {
  if (step.draft === null) return null;
  return step.q_draft > 0 ? Math.min(1, step.p_draft / step.q_draft) : 0;
}

// The step the trace opens on: the rejection with the smallest min(1, p/q), where the head was
// most confident about a char the main model did not want. No rejection: the first draft.
export function mtpDefaultStep(steps) {
  let best = -1;
  steps.forEach((st, i) => {
    if (st.draft !== null && !st.accepted && (best < 0 || mtpRatio(st) < mtpRatio(steps[best]))) best = i;
  });
  if (best >= 0) return best;
  const first = steps.findIndex((st) => st.draft !== null);
  return first >= 0 ? first : 0;
}

export function mtpRejections(steps) {
  return steps.flatMap((st, i) => (st.draft !== null && !st.accepted ? [i] : []));
}

function mtpCharHTML(c, cls) {
  return c === "\n" ? `<span class="${cls}">↵</span>\n` : `<span class="${cls}">${escapeHTML(c)}</span>`;
}

// The whole trace as one HTML string (fast to swap in): the prompt, then one group per main
// forward, each char classed by how it was made; the current step marked, later ones faded.
export function mtpTraceHTML(prompt, steps, cur) {
  const out = [`<span class="mtp-prompt">${Array.from(prompt, (c) => mtpCharHTML(c, "mtp-k-prompt")).join("")}</span>`];
  steps.forEach((st, i) => {
    const state = i === cur ? " mtp-cur" : i > cur ? " mtp-fut" : "";
    const chars = st.emitted.map((c, j) => mtpCharHTML(c, `mtp-k-${st.kinds[j]}`)).join("");
    out.push(`<span class="mtp-step${state}" data-s="${i}">${chars}</span>`);
  });
  return out.join("");
}

// ---- MTP head vs the small draft (ledger rows) ---------------------------------------------

export function mtpLedgerPair(ledger, mode) {
  const rows = ledger.rows.filter((r) => r.mode === mode);
  return {
    mtp: rows.find((r) => r.method === "mtp"),
    draft: rows.find((r) => r.method === "draft" && r.gamma === 1),
    plain: rows.find((r) => r.method === "plain"),
  };
}

function mtpOverlap(a, b) {
  return a.min <= b.max && b.min <= a.max;
}

// One comparison, worded from the numbers (which drafter wins is never assumed).
export function mtpCompareSentence(mtp, draft) {
  const higherAlpha = mtp.alpha > draft.alpha;
  const dearer = mtp.c_used > draft.c_used;
  const a = { zh: higherAlpha ? "更高" : "更低", en: higherAlpha ? "higher" : "lower" };
  const c = { zh: dearer ? "更贵" : "更便宜", en: dearer ? "more" : "less" };
  const tradeoff = higherAlpha === dearer;
  const sp = `${fixed(mtp.speedup, 2)}× vs ${fixed(draft.speedup, 2)}×`;
  const overlap = mtpOverlap(mtp.speedup_runs, draft.speedup_runs);
  const faster = mtp.speedup > draft.speedup;
  const wall = overlap
    ? { zh: `墙钟加速 ${sp},两者各 ${mtp.repeats} 次运行的范围相互重叠,分不出谁更快。`,
        en: `Wall-clock speedup ${sp}; the ranges over ${mtp.repeats} runs each overlap, so neither is measurably faster.` }
    : { zh: `墙钟加速 ${sp},各 ${mtp.repeats} 次运行的范围不重叠:${faster ? "MTP 头" : "小草稿"}确实更快。`,
        en: `Wall-clock speedup ${sp}; the ranges over ${mtp.repeats} runs do not overlap, so the ${faster ? "MTP head" : "small draft"} is really faster.` };
  return {
    zh: `MTP 头的接受率${a.zh}(α ${fixed(mtp.alpha, 3)} vs ${fixed(draft.alpha, 3)}),单次 forward 却${c.zh}(c ${fixed(mtp.c_used, 3)} vs ${fixed(draft.c_used, 3)})${tradeoff ? ",一得一失" : ""}。${wall.zh}`,
    en: `The MTP head's acceptance is ${a.en} (α ${fixed(mtp.alpha, 3)} vs ${fixed(draft.alpha, 3)}) and one of its forwards costs ${c.en} (c ${fixed(mtp.c_used, 3)} vs ${fixed(draft.c_used, 3)})${tradeoff ? ": a gain on one side, a cost on the other" : ""}. ${wall.en}`,
  };
}

// ---- the widget ----------------------------------------------------------------------------

export function initMtp(mtp, ledger, models) {
  const el = (id) => document.getElementById(id);
  const seed = mtp.seeds[0];
  const cfg = models.runs[`main_s${seed}`].config;
  const ctx = { cfg, params: mtp.params };
  const sample = mtp.sample;
  const steps = sample.steps;
  const rejections = mtpRejections(steps);
  const partKeys = mtpPartKeys();
  const state = {
    part: partKeys.includes(hashGet("mtppart")) ? hashGet("mtppart") : "proj",
    step: intInRange(hashGet("mtpstep"), 1, steps.length, mtpDefaultStep(steps) + 1) - 1,
    mode: hashGet("mtpmode") === "recompute" ? "recompute" : "kvcache",
  };

  // diagram
  function renderDiagram() {
    el("mtp-diagram").replaceChildren(mtpDiagramSVG());
    markPart();
  }

  function markPart() {
    for (const g of el("mtp-diagram").querySelectorAll(".mtp-part")) {
      g.setAttribute("aria-pressed", String(g.dataset.part === state.part));
    }
    const part = mtpPart(state.part);
    const text = mtpPartText(part, ctx);
    const shared = mtpSharedNote(part, ctx);
    const count = mtpPartCount(part.key, mtp.params);
    el("mtp-part-card").replaceChildren(h("div", {},
      h("h3", {}, t(part.label)),
      h("div", { class: "mtp-count-line" },
        h("span", { class: "mtp-count" }, grouped(count)), " ", t({ zh: "个参数", en: count === 1 ? "parameter" : "parameters" })),
      h("div", { class: `mtp-role ${part.role}` }, t(mtpRoleName(part.role))),
      text.shape ? h("div", { class: "mono mtp-shape" }, typeof text.shape === "string" ? text.shape : t(text.shape)) : null,
      h("p", {}, t(text)),
      shared ? h("p", { class: "mtp-shared-note" }, t(shared)) : null));
  }

  function renderTotals() {
    const tot = mtpTotals(mtp.params);
    const p = mtp.params;
    el("mtp-param-readouts").replaceChildren(
      readoutBox(grouped(p.mtp_head_total), t({ zh: `MTP 模块新增的参数:${tot.own.map(grouped).join(" + ")}`, en: `new parameters in the MTP module: ${tot.own.map(grouped).join(" + ")}` })),
      readoutBox(grouped(p.main_total), t({ zh: `主模型(含共享部分,只计一次):${grouped(p.shared_embedding_head)} + ${p.main_blocks.length} × ${grouped(p.main_blocks[0])} + ${grouped(p.shared_final_norm)}`, en: `main model, shared parts counted once: ${grouped(p.shared_embedding_head)} + ${p.main_blocks.length} × ${grouped(p.main_blocks[0])} + ${grouped(p.shared_final_norm)}` })),
      readoutBox(percent(p.mtp_head_total / p.main_total), t({ zh: "MTP 模块相当于主模型的多大", en: "size of the MTP module relative to the main model" })));
  }

  function selectPart(key, focus = false) {
    state.part = key;
    hashSet("mtppart", key);
    markPart();
    if (focus) el("mtp-diagram").querySelector(`[data-part="${key}"]`).focus();
  }

  el("mtp-diagram").addEventListener("click", (e) => {
    const g = e.target.closest(".mtp-part");
    if (!g) return;
    selectPart(g.dataset.part);
    // On a phone the card sits below the tall diagram: bring it on screen if it is entirely off.
    const box = el("mtp-part-card").getBoundingClientRect();
    if (box.top > window.innerHeight || box.bottom < 0) el("mtp-part-card").scrollIntoView({ block: "nearest" });
  });
  el("mtp-diagram").addEventListener("keydown", (e) => {
    const g = e.target.closest(".mtp-part");
    if (!g) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      selectPart(g.dataset.part);
    }
  });

  // trace
  const slider = el("mtp-step");
  slider.max = String(steps.length);

  function stepCard(i) {
    const st = steps[i];
    const c = (x) => `“${charLabel(x)}”`;
    const title = t({ zh: `第 ${i + 1} 次主模型 forward(共 ${steps.length} 次)`, en: `Main forward ${i + 1} of ${steps.length}` });
    if (st.draft === null) {
      const why = i === 0
        ? { zh: `这是第一次 forward:主模型读完提示 ${`“${textLabel(sample.prompt)}”`},还没有草稿可验,自己采样出 ${c(st.emitted[0])}。MTP 头随后用这次算出的 hₜ 和 ${c(st.emitted[0])} 的嵌入,为下一次 forward 打出第一个草稿。`,
            en: `The first forward: the main model reads the prompt ${`“${textLabel(sample.prompt)}”`}; there is no draft to check yet, so it samples ${c(st.emitted[0])} itself. The MTP head then uses this forward's hₜ and the embedding of ${c(st.emitted[0])} to draft for the next forward.` }
        : { zh: `只剩最后 1 个字要生成,草稿即使通过也用不上,所以 MTP 头这次没有打草稿;主模型直接采样出 ${c(st.emitted[0])}。`,
            en: `Only one character was left to generate, so a draft could not have been used and the MTP head proposed none; the main model sampled ${c(st.emitted[0])} directly.` };
      return [h("h3", {}, title), h("p", {}, t(why))];
    }
    const ratio = mtpRatio(st);
    const row = (label, value, cls) => h("tr", {}, h("td", {}, label), h("td", { class: cls }, value));
    const verdict = st.accepted
      ? { zh: `u < min(1, p/q) → 接受`, en: "u < min(1, p/q) → accepted" }
      : { zh: `u ≥ min(1, p/q) → 拒绝`, en: "u ≥ min(1, p/q) → rejected" };
    const emitted = st.accepted
      ? { zh: `吐出 ${c(st.emitted[0])}(草稿)和 ${c(st.emitted[1])}:草稿通过后,同一次 forward 已经算好了再下一个位置的 p,主模型从中采样,所以这次吐 2 个字。`,
          en: `Emits ${c(st.emitted[0])} (the draft) and ${c(st.emitted[1])}: once the draft passes, the same forward has already computed p for the following position, and the main model samples from it, so this forward yields 2 characters.` }
      : { zh: `吐出 ${c(st.emitted[0])}:草稿被拒,这个位置改从残差 max(0, p − q) 归一化后重抽;再下一个位置的 p 看到的是被拒的字,作废。这次只吐 1 个字。`,
          en: `Emits ${c(st.emitted[0])}: the draft is rejected, so this position is redrawn from the normalised residual max(0, p − q); p for the following position was computed after the rejected character and is thrown away. This forward yields 1 character.` };
    return [
      h("h3", {}, title),
      h("table", {}, h("tbody", {},
        row(t({ zh: "MTP 头的草稿 x", en: "the MTP head's draft x" }), c(st.draft)),
        row(t({ zh: "q(x):MTP 头给它的概率", en: "q(x): the head's probability for it" }), fixed(st.q_draft, 4)),
        row(t({ zh: "p(x):主模型给它的概率", en: "p(x): the main model's probability for it" }), fixed(st.p_draft, 4)),
        row(t({ zh: "接受概率 min(1, p/q)", en: "acceptance probability min(1, p/q)" }), fixed(ratio, 4)),
        row(t({ zh: "均匀随机数 u", en: "uniform draw u" }), fixed(st.u, 4)),
        row(t({ zh: "判决", en: "verdict" }), t(verdict), st.accepted ? "good" : "warn"))),
      h("p", {}, t(emitted)),
    ];
  }

  function renderStep() {
    const i = state.step;
    slider.value = String(i + 1);
    el("mtp-step-out").textContent = `${i + 1} / ${steps.length}`;
    el("mtp-text").innerHTML = mtpTraceHTML(sample.prompt, steps, i);
    el("mtp-step-card").replaceChildren(...stepCard(i));
    el("mtp-prev-rej").disabled = !rejections.some((r) => r < i);
    el("mtp-next-rej").disabled = !rejections.some((r) => r > i);
  }

  function goStep(i) {
    state.step = Math.max(0, Math.min(steps.length - 1, i));
    hashSet("mtpstep", state.step + 1);
    renderStep();
  }

  function renderTraceReadouts() {
    const counts = mtpKindCounts(steps);
    for (const kind of Object.keys(counts)) el(`mtp-n-${kind}`).textContent = grouped(counts[kind]);
    el("mtp-trace-readouts").replaceChildren(
      readoutBox(`${grouped(sample.n_chars)} / ${grouped(sample.main_forwards)} = ${fixed(sample.n_chars / sample.main_forwards, 2)}`,
        t({ zh: "生成的字数 / 主模型 forward 次数 = 每次 forward 吐出的字数", en: "characters / main forwards = characters per main forward" })),
      readoutBox(`${grouped(sample.accepted)} / ${grouped(sample.proposed)} = ${percent(sample.accepted / sample.proposed)}`,
        t({ zh: "被接受的草稿 / 打出的草稿(这一段样本的接受率)", en: "drafts accepted / drafts proposed (this sample's acceptance rate)" })),
      readoutBox(grouped(rejections.length),
        t({ zh: "被拒绝的草稿:每次拒绝都由残差重抽补上 1 个字", en: "rejected drafts: each one is replaced by a residual redraw" })));
  }

  slider.addEventListener("input", () => goStep(Number(slider.value) - 1));
  el("mtp-text").addEventListener("click", (e) => {
    const grp = e.target.closest("[data-s]");
    if (grp) goStep(Number(grp.dataset.s));
  });
  el("mtp-text").addEventListener("keydown", (e) => {
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1, PageUp: -10, PageDown: 10 };
    if (e.key === "Home") goStep(0);
    else if (e.key === "End") goStep(steps.length - 1);
    else if (e.key in moves) goStep(state.step + moves[e.key]);
    else return;
    e.preventDefault();
  });
  el("mtp-prev-rej").addEventListener("click", () => goStep(Math.max(...rejections.filter((r) => r < state.step))));
  el("mtp-next-rej").addEventListener("click", () => goStep(Math.min(...rejections.filter((r) => r > state.step))));

  // MTP head vs the small draft at γ = 1
  const draftParams = models.runs[`draft_s${seed}`].params;
  function renderCompare() {
    const pair = mtpLedgerPair(ledger, state.mode);
    for (const mode of ["kvcache", "recompute"]) el(`mtp-mode-${mode}`).setAttribute("aria-pressed", String(state.mode === mode));
    const cols = [pair.mtp, pair.draft, pair.plain];
    // A cell: the main figure, and below it a smaller note (a range, a theory value).
    const two = (main, note) => [main, note ? h("span", { class: "mtp-note" }, note) : null];
    // fs: one formatter per column, or a single one for all; null leaves the cell empty.
    const line = (label, fs) => h("tr", {}, h("th", { scope: "row" }, label), cols.map((r, j) => {
      const f = fs.length > 1 ? fs[j] : fs[0];
      return h("td", {}, r && f ? f(r) : "—");
    }));
    const theory = (x) => t({ zh: `理论 ${x}`, en: `theory ${x}` });
    const perMain = (r) => two(fixed(r.tokens_per_main, 3), r.tokens_per_main_expected ? theory(fixed(r.tokens_per_main_expected, 3)) : null);
    const speed = (r) => two(`${fixed(r.speedup, 2)}×`, r.speedup_theory ? theory(`${fixed(r.speedup_theory, 2)}×`) : null);
    el("mtp-vs-table").replaceChildren(h("table", { class: "mtp-vs" },
      h("thead", {}, h("tr", {}, h("th", {}), h("th", { scope: "col" }, t({ zh: "MTP 头", en: "MTP head" })),
        h("th", { scope: "col" }, t({ zh: "小草稿,γ = 1", en: "small draft, γ = 1" })), h("th", { scope: "col" }, t({ zh: "普通生成", en: "plain" })))),
      h("tbody", {},
        line(t({ zh: "草稿员的参数", en: "drafter parameters" }), [() => grouped(mtp.params.mtp_head_total), () => grouped(draftParams), null]),
        line(t({ zh: "草稿接受率 α", en: "draft acceptance α" }), [(r) => fixed(r.alpha, 3), (r) => fixed(r.alpha, 3), null]),
        line(t({ zh: "每次主模型 forward 吐出的字数(理论 1 + α)", en: "characters per main forward (theory: 1 + α)" }), [perMain]),
        line(t({ zh: `生成 ${ledger.n_chars} 字的主模型 forward 次数`, en: `main forwards for ${ledger.n_chars} characters` }), [(r) => fixed(r.main_forwards, 1)]),
        line(t({ zh: "c:草稿员一次 forward 的耗时 ÷ 主模型一次", en: "c: one drafter forward ÷ one main forward" }), [(r) => fixed(r.c_used, 3), (r) => fixed(r.c_used, 3), null]),
        line(t({ zh: `墙钟秒数:中位数,下面是 ${pair.mtp.repeats} 次中的最小–最大`, en: `wall-clock seconds: median, with min–max of ${pair.mtp.repeats} runs below` }),
          [(r) => two(fixed(r.wall_s.median, 3), `${fixed(r.wall_s.min, 3)}–${fixed(r.wall_s.max, 3)}`)]),
        line(t({ zh: "相对普通生成的加速(Theorem 3.8 的预测)", en: "speedup over plain (Theorem 3.8's prediction)" }), [speed]))));
    el("mtp-vs-summary").textContent = t(mtpCompareSentence(pair.mtp, pair.draft));
  }
  for (const mode of ["kvcache", "recompute"]) {
    el(`mtp-mode-${mode}`).addEventListener("click", () => { state.mode = mode; hashSet("mtpmode", mode); renderCompare(); });
  }

  function render() {
    renderDiagram();
    renderTotals();
    renderStep();
    renderTraceReadouts();
    renderCompare();
  }
  onLangChange(render);
  render();
}
