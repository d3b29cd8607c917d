// Section ④: the MTP architecture as a clickable diagram with the real parameter counts, and a
// card for the selected part. The number of main-model blocks comes from the run's config.
import { h, readoutBox, s } from "./dom.js";
import { grouped, percent } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { hashGet, hashSet, onHashChange } from "./state.js";

// viewBox 340 wide: at a 390 px phone the SVG is ~345 px wide, so 13-unit text stays ≥ 12 px.
const VIEW_W = 340, BOX = 28;
const COLUMNS = { main: [6, 154], mtp: [180, 154], hid: [180, 74], emb: [260, 74], ht: [44, 78] };
const FINAL_NORM = { zh: "末层 RMSNorm", en: "Final RMSNorm" };
const OUTPUT_HEAD = { zh: "输出头", en: "Output head" };
const ROLE_NAME = {
  main: { zh: "主模型自有", en: "main model" }, own: { zh: "MTP 模块新增", en: "new in the MTP module" },
  shared: { zh: "共享，只计一次", en: "shared, counted once" }, none: { zh: "没有参数", en: "no parameters" },
};

// The parts, top to bottom. role: "main" (the next-token model's own), "own" (new parameters of
// the MTP module), "shared" (the same tensor as a main-model part: counted once), "none" (no
// parameters). param(p) reads the count from mtp.json "params"; a shared part has none of its
// own and names its owner, whose count it reports. `short` is the text drawn in the box when the
// full label does not fit.
export function diagramParts(nLayer) {
  const htY = 92 + 40 * nLayer + 6; // the hidden state sits under the last block
  const below = (k) => htY + 46 + 38 * k; // the rows under hₜ, in both columns
  return [
    { key: "emb", col: "main", y: 46, role: "main", label: { zh: "嵌入表", en: "Embedding" }, param: (p) => p.shared_embedding_head },
    ...Array.from({ length: nLayer }, (_, i) => ({ key: `block${i + 1}`, col: "main", y: 92 + 40 * i, role: "main",
      label: { zh: `Transformer 块 ${i + 1}`, en: `Block ${i + 1}` }, param: (p) => p.main_blocks[i] })),
    { key: "ht", col: "ht", y: htY, role: "none", label: { zh: "hₜ", en: "hₜ" }, param: () => 0 },
    { key: "final_norm", col: "main", y: below(0), role: "main", label: FINAL_NORM, param: (p) => p.shared_final_norm },
    { key: "head", col: "main", y: below(1), role: "shared", owner: "emb", label: OUTPUT_HEAD },
    { key: "mtp_emb", col: "emb", y: 46, role: "shared", owner: "emb", label: { zh: "嵌入", en: "Emb" } },
    { key: "hidden_norm", col: "hid", y: htY, role: "own", label: { zh: "RMSNorm", en: "RMSNorm" }, param: (p) => p.hidden_norm },
    { key: "embed_norm", col: "emb", y: htY, role: "own", label: { zh: "RMSNorm", en: "RMSNorm" }, param: (p) => p.embed_norm },
    { key: "concat", col: "mtp", y: below(0), role: "none", label: { zh: "拼接 [ · ; · ] → 2d", en: "Concat [ · ; · ] → 2d" }, param: () => 0 },
    { key: "proj", col: "mtp", y: below(1), role: "own", label: { zh: "投影 W：2d → d", en: "Projection W: 2d → d" },
      short: { zh: "投影 W：2d → d", en: "Projection 2d → d" }, param: (p) => p.proj },
    { key: "mtp_block", col: "mtp", y: below(2), role: "own", label: { zh: "MTP 的 Transformer 块", en: "MTP block" }, param: (p) => p.block },
    { key: "mtp_final_norm", col: "mtp", y: below(3), role: "shared", owner: "final_norm", label: FINAL_NORM },
    { key: "mtp_head", col: "mtp", y: below(4), role: "shared", owner: "emb", label: OUTPUT_HEAD },
  ];
}

function findPart(parts, key) {
  const part = parts.find((x) => x.key === key);
  if (!part) throw new Error(`unknown MTP diagram part ${key}`);
  return part;
}

export function partCount(parts, key, params) {
  const part = findPart(parts, key);
  return (part.owner ? findPart(parts, part.owner) : part).param(params);
}

// A transformer block's parameters from the config: attention (q, k, v, o: 4·d²), SwiGLU (three
// d × hidden matrices) and two RMSNorm gains. Shown only when it matches the measured count.
export function blockBreakdown(cfg) {
  const d = cfg.n_embd;
  const attn = 4 * d * d, mlp = 3 * d * cfg.mlp_hidden, norms = 2 * d;
  return { d, hidden: cfg.mlp_hidden, attn, mlp, norms, total: attn + mlp + norms };
}

// The sums the readouts print: the MTP module's own parameters and the main model's.
export function paramTotals(params) {
  const own = [params.hidden_norm, params.embed_norm, params.proj, params.block];
  const main = [params.shared_embedding_head, ...params.main_blocks, params.shared_final_norm];
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  return { own, ownSum: sum(own), main, mainSum: sum(main) };
}

// What the card says about a part: {shape, zh, en}; shape is a string or a {zh, en} pair or null.
export function partText(part, cfg, params) {
  const d = cfg.n_embd, V = cfg.vocab_size, n = cfg.n_layer;
  const b = blockBreakdown(cfg);
  const blockMath = b.total === params.block
    ? { zh: `注意力 4·d² = ${grouped(b.attn)}，SwiGLU 3·d·${b.hidden} = ${grouped(b.mlp)}，两个 RMSNorm 2·d = ${grouped(b.norms)}`,
        en: `attention 4·d² = ${grouped(b.attn)}, SwiGLU 3·d·${b.hidden} = ${grouped(b.mlp)}, two RMSNorms 2·d = ${grouped(b.norms)}` }
    : null;
  const i = part.key.startsWith("block") ? part.key.slice(5) : "";
  const texts = {
    emb: { shape: `V × d = ${V} × ${d}`,
      zh: `每个字符查一行，得到一个 d = ${d} 维向量；${V} 种字符就是 ${V} 行。这张表身兼三职：主模型的输入嵌入、MTP 模块查 xₜ₊₁ 的嵌入，以及输出头（权重绑定）。`,
      en: `One row per character, each a vector of d = ${d} numbers; ${V} characters make ${V} rows. The table does three jobs: the main model's input embedding, the lookup of xₜ₊₁ inside the MTP module, and the output head (tied weights).` },
    block: { shape: blockMath,
      zh: `主模型的第 ${i} 个块：RMSNorm → 带 RoPE 的多头因果自注意力 → RMSNorm → SwiGLU MLP，两处都有残差连接。${n} 个块结构相同，参数一样多。`,
      en: `Block ${i} of the main model: RMSNorm → causal multi-head self-attention with RoPE → RMSNorm → SwiGLU MLP, with a residual connection around each half. All ${n} blocks have the same shape and the same count.` },
    ht: { shape: `d = ${d}`,
      zh: `第 ${n} 个块在位置 t 的输出，${d} 维，还没过末层 RMSNorm。它是激活值，不是一层，没有参数。主模型用它预测 xₜ₊₁；MTP 模块把它当作“到 t 为止的前文摘要”。`,
      en: `The output of block ${n} at position t, ${d} numbers, before the final RMSNorm. It is an activation, not a layer, so it has no parameters. The main model predicts xₜ₊₁ from it; the MTP module reads it as a summary of the text up to t.` },
    final_norm: { shape: `d = ${d}`,
      zh: `输出头之前的归一化，可学的只有 ${d} 个缩放系数。`,
      en: `The normalisation before the output head; its only learned parameters are ${d} scale factors.` },
    head: { shape: `d → V = ${d} → ${V}`,
      zh: `把 ${d} 维向量乘以嵌入表的转置，得到 ${V} 个字符的 logits，softmax 之后就是 p(xₜ₊₁)。`,
      en: `Multiplies the ${d}-number vector by the transposed embedding table to get ${V} logits; their softmax is p(xₜ₊₁).` },
    mtp_emb: { shape: `V × d = ${V} × ${d}`,
      zh: `MTP 模块要知道 xₜ₊₁ 是哪个字，就到主模型的嵌入表里查它的向量。训练时 xₜ₊₁ 是语料里真实的下一个字；解码时是主模型刚采样出的字。`,
      en: `To know which character xₜ₊₁ is, the MTP module looks up its vector in the main model's embedding table. In training xₜ₊₁ is the true next character of the corpus; in decoding it is the character the main model has just sampled.` },
    hidden_norm: { shape: `d = ${d}`,
      zh: `先把 hₜ 单独归一化（${d} 个缩放系数），两路输入拼接前尺度才一致：残差流里的 hₜ 和一行嵌入向量，数值大小差得很远。`,
      en: `Normalises hₜ on its own (${d} scale factors) so that both inputs reach the concatenation at a similar scale: a residual-stream vector and an embedding row can differ a lot in size.` },
    embed_norm: { shape: `d = ${d}`,
      zh: `对 Emb(xₜ₊₁) 做同样的归一化，另有一套 ${d} 个缩放系数。`,
      en: `The same normalisation for Emb(xₜ₊₁), with its own ${d} scale factors.` },
    concat: { shape: `d + d = 2d = ${2 * d}`,
      zh: `把两个 ${d} 维向量首尾相接，得到 2d = ${2 * d} 维。只是摆放，没有参数。`,
      en: `Places the two ${d}-number vectors end to end: 2d = ${2 * d} numbers. Pure bookkeeping, no parameters.` },
    proj: { shape: `W: d × 2d = ${d} × ${2 * d}`,
      zh: `把 ${2 * d} 维压回 ${d} 维。“前文摘要”和“下一个字是谁”这两路信息在这里第一次混在一起。`,
      en: `Maps the ${2 * d} numbers back to ${d}. This is where "what came before" and "which character comes next" are first mixed.` },
    mtp_block: { shape: blockMath,
      zh: `MTP 模块自己的 Transformer 块，结构和主模型的块一模一样，参数也一样多。它在前面各位置的 h′ 上做因果注意力，所以看得到整段前文。`,
      en: `The MTP module's own transformer block, built exactly like a main-model block and just as large. Its causal attention runs over the h′ of earlier positions, so it sees the whole preceding text.` },
    mtp_final_norm: { shape: `d = ${d}`,
      zh: `直接用主模型的末层 RMSNorm，不另设参数。`,
      en: `The main model's final RMSNorm, reused without new parameters.` },
    mtp_head: { shape: `d → V = ${d} → ${V}`,
      zh: `直接用主模型的输出头，输出 xₜ₊₂ 的分布。投机解码时，它就是草稿分布 q。`,
      en: `The main model's output head, reused; it gives the distribution of xₜ₊₂. In speculative decoding this is the draft distribution q.` },
  };
  return texts[i ? "block" : part.key];
}

export function sharedNote(parts, part, params) {
  if (part.role !== "shared") return null;
  const owner = findPart(parts, part.owner);
  const n = grouped(params.main_total);
  return {
    zh: `共享：和主模型的“${owner.label.zh}”是同一组参数，已经算在主模型的 ${n} 个参数里，这里不再重复计算。`,
    en: `Shared: the very same parameters as the main model's ${owner.label.en.toLowerCase()}, already counted among its ${n}; they are not counted again here.`,
  };
}

// The accessible name of a part's box: the text drawn in it, then its role, so the name starts
// with what is seen (axe: label-content-name-mismatch).
export function partName(part) {
  const shown = part.short || part.label;
  return { zh: `${shown.zh}：${ROLE_NAME[part.role].zh}`, en: `${shown.en}: ${ROLE_NAME[part.role].en}` };
}

// Text with an optional subscript and a tail raised back to the baseline: "p(x" "t+1" ")".
function svgLabel(x, y, base, sub, cls = "", tail = "") {
  return s("text", { x, y, "text-anchor": "middle", class: cls }, base,
    sub ? s("tspan", { dy: 4, "font-size": 12 }, sub) : null,
    tail ? s("tspan", { dy: -4 }, tail) : null);
}

function arrow(x1, y1, x2, y2) {
  return s("line", { class: "mtp-arrow", x1, y1, x2, y2, "marker-end": "url(#mtp-arrowhead)" });
}

function diagramSvg(parts, depth) {
  const at = (key) => {
    const part = findPart(parts, key);
    const [x, w] = COLUMNS[part.col];
    return { x, w, cx: x + w / 2, top: part.y, bottom: part.y + BOX, mid: part.y + BOX / 2 };
  };
  const down = (a, b) => arrow(at(a).cx, at(a).bottom, at(b).cx, at(b).top - 2);
  const blocks = parts.filter((p) => p.key.startsWith("block")).map((p) => p.key);
  const chain = ["emb", ...blocks, "ht", "final_norm", "head"];
  const boxes = parts.map((part) => {
    const [x, w] = COLUMNS[part.col];
    return s("g", { class: `mtp-part ${part.role}`, "data-part": part.key, tabindex: 0, role: "button", "aria-pressed": "false", "aria-label": t(partName(part)) },
      s("rect", { x, y: part.y, width: w, height: BOX, rx: part.col === "ht" ? 14 : 5 }),
      svgLabel(x + w / 2, part.y + 18.5, t(part.short || part.label)));
  });
  const ht = at("ht"), hid = at("hidden_norm"), head = at("head"), mtpHead = at("mtp_head");
  return s("svg", { viewBox: `0 0 ${VIEW_W} ${mtpHead.bottom + 42}`, class: "mtp-svg", role: "group",
    "aria-label": t({ zh: "MTP 架构图：点一个部件看它是什么、有多少参数", en: "MTP architecture: select a part to see what it is and how many parameters it has" }) },
  s("defs", {}, s("marker", { id: "mtp-arrowhead", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" },
    s("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "mtp-arrowhead" }))),
  s("text", { x: 83, y: 14, "text-anchor": "middle", class: "mtp-head-label" }, t({ zh: "主模型", en: "Main model" })),
  s("text", { x: 257, y: 14, "text-anchor": "middle", class: "mtp-head-label" }, t({ zh: `MTP 模块（深度 ${depth}）`, en: `MTP module (depth ${depth})` })),
  svgLabel(83, 38, "x₁ … x", "t", "mtp-io"),
  svgLabel(297, 38, "x", "t+1", "mtp-io"),
  chain.slice(1).map((key, i) => down(chain[i], key)),
  arrow(head.cx, head.bottom, head.cx, head.bottom + 12),
  svgLabel(83, head.bottom + 28, "p(x", "t+1", "mtp-io", ")"),
  arrow(ht.x + ht.w, ht.mid, hid.x - 2, hid.mid),
  down("mtp_emb", "embed_norm"),
  arrow(hid.cx, hid.bottom, hid.cx, at("concat").top - 2),
  arrow(at("embed_norm").cx, at("embed_norm").bottom, at("embed_norm").cx, at("concat").top - 2),
  down("concat", "proj"), down("proj", "mtp_block"), down("mtp_block", "mtp_final_norm"), down("mtp_final_norm", "mtp_head"),
  arrow(mtpHead.cx, mtpHead.bottom, mtpHead.cx, mtpHead.bottom + 12),
  svgLabel(mtpHead.cx, mtpHead.bottom + 28, "q(x", "t+2", "mtp-io", ")"),
  boxes);
}

export function initMtpDiagram(mtp, models) {
  const el = (id) => document.getElementById(id);
  const cfg = models.runs[`main_s${mtp.seeds[0]}`].config;
  const params = mtp.params;
  const parts = diagramParts(cfg.n_layer);
  const keys = parts.map((p) => p.key);
  const partFromHash = (value) => (keys.includes(value) ? value : "proj");
  const state = { part: partFromHash(hashGet("mtppart")) };

  function renderCard() {
    for (const g of el("mtp-diagram").querySelectorAll(".mtp-part")) {
      g.setAttribute("aria-pressed", String(g.dataset.part === state.part));
    }
    const part = findPart(parts, state.part);
    const text = partText(part, cfg, params);
    const shared = sharedNote(parts, part, params);
    const count = partCount(parts, part.key, params);
    el("mtp-part-card").replaceChildren(h("div", {},
      h("h3", {}, t(part.label)),
      h("div", { class: "mtp-count-line" },
        h("span", { class: "mtp-count" }, grouped(count)), " ", t({ zh: "个参数", en: count === 1 ? "parameter" : "parameters" })),
      h("div", { class: `mtp-role ${part.role}` }, t(ROLE_NAME[part.role])),
      text.shape ? h("div", { class: "mono mtp-shape" }, typeof text.shape === "string" ? text.shape : t(text.shape)) : null,
      h("p", {}, t(text)),
      shared ? h("p", { class: "mtp-shared-note" }, t(shared)) : null));
  }

  function renderTotals() {
    const tot = paramTotals(params);
    const own = tot.own.map(grouped).join(" + ");
    const share = percent(params.mtp_head_total / params.main_total);
    const main = `${grouped(params.shared_embedding_head)} + ${params.main_blocks.length} × ${grouped(params.main_blocks[0])} + ${grouped(params.shared_final_norm)}`;
    el("mtp-param-readouts").replaceChildren(
      readoutBox(`${grouped(params.mtp_head_total)} (${share})`, t({ zh: `MTP 模块新增的参数：${own}；括号里是它相当于主模型的比例`, en: `new parameters in the MTP module: ${own}; in brackets, its size relative to the main model` })),
      readoutBox(grouped(params.main_total), t({ zh: `主模型（含共享部分，只计一次）：${main}`, en: `main model, shared parts counted once: ${main}` })));
  }

  function render() {
    el("mtp-diagram").replaceChildren(diagramSvg(parts, mtp.depth));
    renderCard();
    renderTotals();
  }

  function selectPart(key) {
    state.part = key;
    hashSet("mtppart", key);
    renderCard();
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
    if (g && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      selectPart(g.dataset.part);
    }
  });
  onHashChange((hash) => {
    const part = partFromHash(hash.mtppart);
    if (part !== state.part) { state.part = part; renderCard(); }
  });
  onLangChange(render);
  render();
}
