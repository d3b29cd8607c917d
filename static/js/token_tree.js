// Section ⑤: one recorded round of token-tree decoding (families.json tree_rounds). The tree is
// drawn by depth; a node's card shows its branch, its row of the tree mask and the main model's p
// there; the slider switches to a tree of another size, with that size's measured yield.
import { h, readoutBox, s } from "./dom.js";
import { charLabel, fixed, textLabel } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { hashGet, hashSet, intInRange, onHashChange } from "./state.js";

const COL_W = 66, ROW_H = 30, PAD = 20, R = 12;

// Each node's row in the drawing: leaves take the next free row, a parent sits at its first
// child's row (so a chain is a straight line). Children are taken in the order they were added.
export function layout(parents) {
  const children = parents.map(() => []);
  parents.forEach((p, i) => { if (p >= 0) children[p].push(i); });
  const row = new Array(parents.length).fill(0);
  let next = 0;
  const place = (i) => {
    if (!children[i].length) { row[i] = next++; return; }
    children[i].forEach(place);
    row[i] = row[children[i][0]];
  };
  place(0);
  return { row, rows: next, children };
}

// Row i of the tree mask: node j is visible to node i when j is i or one of its ancestors.
export function maskRow(parents, i) {
  const seen = new Array(parents.length).fill(false);
  for (let j = i; j >= 0; j = parents[j]) seen[j] = true;
  return seen;
}

// The characters from the root's first child down to node i.
export function branchOf(tokens, parents, i) {
  const out = [];
  for (let j = i; j > 0; j = parents[j]) out.push(tokens[j]);
  return out.reverse().join("");
}

// What the main model drew at node i in this round: the accepted child on the path, or the
// emitted character where the walk stopped; null for a node off the path.
export function drawnAt(round, i) {
  const nodes = [0, ...round.path];
  const k = nodes.indexOf(i);
  if (k < 0) return null;
  return Array.from(round.emitted)[k];
}

export function initTokenTree(families) {
  const rounds = families.tree_rounds;
  const eng = families.summary.primary_engine;  // the engine the page's sentences are about
  const sweep = families.sweep.filter((r) => r.family === "ngram" && r.engine === eng && r.temperature === 1);
  const slider = document.getElementById("tree-size");
  const out = document.getElementById("tree-size-out");
  const box = document.getElementById("tree-svg");
  const card = document.getElementById("tree-card");
  const readouts = document.getElementById("tree-readouts");
  let size = intInRange(hashGet("tree"), 0, rounds.length - 1, Number(slider.value));
  let node = null;

  function draw() {
    const round = rounds[size];
    const tokens = Array.from(round.tokens);
    const { row, rows } = layout(round.parents);
    const onPath = new Set([0, ...round.path]);
    if (node === null || node >= tokens.length) node = round.path.length ? round.path[round.path.length - 1] : 0;
    const width = PAD * 2 + COL_W * Math.max(...round.depths), height = PAD * 2 + ROW_H * (rows - 1);
    const xy = (i) => [PAD + COL_W * round.depths[i], PAD + ROW_H * row[i]];
    const edges = round.parents.slice(1).map((p, k) => {
      const i = k + 1, [x1, y1] = xy(p), [x2, y2] = xy(i);
      return s("path", { d: `M${x1 + R} ${y1} C${x1 + COL_W / 2} ${y1} ${x1 + COL_W / 2} ${y2} ${x2 - R} ${y2}`,
        class: onPath.has(i) && onPath.has(p) ? "tree-edge acc" : "tree-edge" });
    });
    const nodes = tokens.map((ch, i) => {
      const [x, y] = xy(i);
      const cls = ["tree-node", i === 0 ? "root" : "", onPath.has(i) ? "acc" : "", i === node ? "sel" : ""].join(" ");
      const label = i === 0 ? t({ zh: `根：待验收的字 ${charLabel(ch)}`, en: `root: the pending character ${charLabel(ch)}` })
        : t({ zh: `节点 ${i}：${charLabel(ch)}，深度 ${round.depths[i]}`, en: `node ${i}: ${charLabel(ch)}, depth ${round.depths[i]}` });
      const pick = () => { node = i; draw(); };
      return s("g", { class: cls, tabindex: "0", role: "button", "aria-label": label, "aria-pressed": String(i === node),
        onclick: pick, onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(); } } },
        s("circle", { cx: x, cy: y, r: R }), s("text", { x, y: y + 4, "text-anchor": "middle" }, charLabel(ch)));
    });
    box.replaceChildren(s("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "group",
      "aria-label": t({ zh: "候选树", en: "the candidate tree" }) }, edges, nodes));
    out.textContent = t({ zh: `${round.nodes} 个节点`, en: `${round.nodes} nodes` });
    drawCard(round, tokens);
    drawReadouts(round);
  }

  function drawCard(round, tokens) {
    const seen = maskRow(round.parents, node);
    const top = round.p_top[node];
    const children = new Set(round.parents.map((p, j) => (p === node ? tokens[j] : null)).filter((c) => c !== null));
    const drawn = drawnAt(round, node);
    const branch = branchOf(tokens, round.parents, node);
    card.replaceChildren(
      h("p", {}, h("strong", {}, t({ zh: "分支：", en: "Branch: " })),
        h("span", { class: "mono tree-ctx" }, textLabel(round.context)),
        h("span", { class: "mono tree-root" }, charLabel(tokens[0])),
        h("span", { class: "mono tree-branch" }, textLabel(branch))),
      h("p", {}, t({ zh: `位置 ${round.root_position + round.depths[node]}（根的位置 + 深度 ${round.depths[node]}）。`,
        en: `Position ${round.root_position + round.depths[node]} (the root's position + depth ${round.depths[node]}).` }),
        node > 0 ? t({ zh: `这个字在父节点处的 p = ${fixed(round.p_at_parent[node], 3)}。`,
          en: ` p of this character at its parent = ${fixed(round.p_at_parent[node], 3)}.` }) : ""),
      h("p", { class: "tree-mask-title" }, t({ zh: "它在树掩码里的那一行（蓝色：看得见）：", en: "Its row of the tree mask (blue: visible):" })),
      h("div", { class: "tree-mask", role: "img", "aria-label": t({ zh: `看得见 ${seen.filter(Boolean).length} 个节点：它自己和它的祖先`,
        en: `sees ${seen.filter(Boolean).length} nodes: itself and its ancestors` }) },
        tokens.map((ch, j) => h("span", { class: seen[j] ? "on" : "" }, charLabel(ch)))),
      h("p", { class: "tree-mask-title" }, t({ zh: "主模型在这个节点的 p（前几名；框出的是它的孩子）：", en: "The main model's p at this node (top chars; boxed: its children):" })),
      h("div", { class: "tree-p" }, Array.from(top.chars).map((ch, k) => h("div", { class: children.has(ch) ? "row child" : "row" },
        h("span", { class: "mono" }, charLabel(ch)),
        h("span", { class: "pbar" }, h("span", { style: { width: `${100 * top.p[k]}%` } })),
        h("span", { class: "mono" }, fixed(top.p[k], 3))))),
      h("p", {}, drawn === null ? t({ zh: "这一轮主模型没有走到这个节点。", en: "The main model's walk did not reach this node in this round." })
        : children.has(drawn) ? t({ zh: `主模型在这里抽到「${charLabel(drawn)}」，是它的孩子：往下走。`, en: `The main model drew “${charLabel(drawn)}” here, one of its children: move down.` })
          : t({ zh: `主模型在这里抽到「${charLabel(drawn)}」，不是它的孩子：输出它，这一轮结束。`, en: `The main model drew “${charLabel(drawn)}” here, not a child: emit it and end the round.` })));
  }

  function drawReadouts(round) {
    const measured = sweep.find((r) => r.shape === "tree" && r.size === round.nodes);
    const chain = sweep.filter((r) => r.shape === "chain").sort((a, b) => b.tokens_per_main - a.tokens_per_main)[0];
    readouts.replaceChildren(...[
      readoutBox(String(round.path.length), t({ zh: "这一轮接受的候选", en: "candidates accepted this round" })),
      readoutBox(textLabel(round.emitted), t({ zh: "这一轮输出的字", en: "characters emitted this round" }), "mono"),
      measured ? readoutBox(fixed(measured.tokens_per_main, 2), t({ zh: `这个大小：每次 forward 得的字（实测，T = 1）`, en: "this size: characters per forward (measured, T = 1)" })) : null,
      chain ? readoutBox(fixed(chain.tokens_per_main, 2), t({ zh: `对照：抽样链 γ = ${chain.size}`, en: `compare: sampled chain γ = ${chain.size}` })) : null,
    ].filter(Boolean));
  }

  slider.value = String(size);
  slider.addEventListener("input", () => { size = Number(slider.value); node = null; hashSet("tree", size); draw(); });
  onHashChange((hash) => {
    const next = intInRange(hash.tree, 0, rounds.length - 1, size);
    if (next !== size) { size = next; node = null; slider.value = String(size); draw(); }
  });
  onLangChange(draw);
  draw();
}
