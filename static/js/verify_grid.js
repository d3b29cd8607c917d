// Section ①: the causal-mask grid over the real 8-char context and the draft's real proposals.
import { h, readoutBox } from "./dom.js";
import { charLabel, escapeHTML, fixed, textLabel } from "./format.js";
import { lang, onLangChange, t } from "./i18n.js";
import { hashGet, hashSet, intInRange, onHashChange, ownEntry } from "./state.js";

const SUB = "₀₁₂₃₄₅₆₇₈₉";
const sub = (n) => String(n).split("").map((d) => SUB[d]).join("");

// What happens to draft j (1-based) when the chain has gamma drafts and nAccepted of them passed.
export function draftStatus(j, gamma, nAccepted) {
  if (j > gamma) return "absent";
  if (j <= nAccepted) return "accepted";
  return j === nAccepted + 1 ? "rejected" : "discarded";
}

// Forwards and row-positions computed to get p_1..p_{γ+1} after a context of n chars.
export function verifyCost(contextLength, gamma, mode) {
  if (mode === "verify") return { forwards: 1, positions: contextLength + gamma };
  let positions = 0;
  for (let k = 0; k <= gamma; k++) positions += contextLength + k;
  return { forwards: gamma + 1, positions };
}

// What row i (0-based) of the grid yields, {zh, en}: row i gives the distribution of char i + 1.
export function rowMeaning(ex, gamma, i) {
  const n = ex.context.length;
  const chars = [...Array.from(ex.context), ...ex.drafts];
  const k = i - (n - 1); // the row yields p_{k+1} for k = 0..γ
  if (k < 0) return { zh: `预测上下文里的下一个字 “${charLabel(chars[i + 1])}”（验收用不到，但同一次 forward 里顺带算出）`,
    en: `predicts the next context character “${charLabel(chars[i + 1])}” (not needed for verification, computed anyway in the same pass)` };
  const idx = `p${sub(k + 1)}`;
  if (k === gamma) return { zh: `给出 ${idx}：如果 ${gamma} 个草稿全部通过，奖励字从这里抽`,
    en: `yields ${idx}: if all ${gamma} drafts pass, the bonus character is drawn from it` };
  const j = k + 1;
  const st = draftStatus(j, gamma, ex.n_accepted);
  const p = ex.p_draft[k], q = ex.q_draft[k], u = ex.u[k];
  const ratio = Math.min(1, p / q);
  const verdict = {
    accepted: { zh: "接受", en: "accepted" }, rejected: { zh: "拒绝，从残差重抽", en: "rejected; redraw from the residual" },
    discarded: { zh: "不再验收（前面已有拒绝）", en: "never checked (an earlier draft was rejected)" },
  }[st];
  const math = st === "discarded" ? "" : `u = ${fixed(u, 3)} ${u < ratio ? "<" : "≥"} min(1, ${fixed(p, 3)}/${fixed(q, 3)}) = ${fixed(ratio, 3)} `;
  return { zh: `给出 ${idx}，用来验收草稿 ${j} “${charLabel(chars[n + k])}”：p = ${fixed(p, 3)}，q = ${fixed(q, 3)}。${math}→ ${verdict.zh}`,
    en: `yields ${idx}, used to check draft ${j} “${charLabel(chars[n + k])}”: p = ${fixed(p, 3)}, q = ${fixed(q, 3)}. ${math}→ ${verdict.en}` };
}

// The grid as one HTML string: far cheaper than creating ~300 nodes one by one, which keeps a
// slider step well inside its 8 ms budget. view: {gamma, mode, row}; lang picks the row names.
export function gridHTML(ex, view, lang) {
  const n = ex.context.length;
  const chars = [...Array.from(ex.context), ...ex.drafts];
  const size = n + view.gamma;
  const esc = (c) => escapeHTML(charLabel(c));
  const head = chars.slice(0, size).map((c, j) => `<th scope="col" class="${j < n ? "ctx" : "draft"}">${esc(c)}</th>`).join("");
  const rows = [];
  for (let i = 0; i < size; i++) {
    const st = i >= n ? draftStatus(i - n + 1, view.gamma, ex.n_accepted) : "context";
    const k = i - (n - 1);
    // In separate mode pass m (m = 1..γ+1) reruns rows 1..n+m-1, so early rows are redone often.
    const passes = view.mode === "verify" ? 1 : view.gamma + 1 - Math.max(0, k);
    // the verdict sits beside the p that gave it: the row before a draft checks it (row k yields p_{k+1})
    const judged = k >= 0 && k < view.gamma ? draftStatus(k + 1, view.gamma, ex.n_accepted) : null;
    const mark = judged === "accepted" ? "✓" : judged === "rejected" ? "✗" : "";
    const checks = judged ? ` · ${esc(chars[n + k])}${mark}` : k === view.gamma && ex.n_accepted >= view.gamma ? { zh: " · 奖励字", en: " · bonus" }[lang] : "";
    const fw = (k >= 0 ? `→ p${sub(k + 1)}${checks}` : "") + (view.mode === "verify" ? "" : ` ×${passes}`);
    const label = { zh: `第 ${i + 1} 行 “${charLabel(chars[i])}”`, en: `row ${i + 1} “${charLabel(chars[i])}”` }[lang];
    const sel = i === view.row;
    const cls = `rowhead ${i < n ? "ctx" : "draft"}${st === "rejected" ? " rejected" : ""}${st === "discarded" ? " discarded" : ""}`;
    rows.push(`<tr data-row="${i}" tabindex="${sel ? 0 : -1}" class="${sel ? "sel" : ""}" aria-selected="${sel}" aria-label="${escapeHTML(label)}">` +
      `<th scope="row" class="${cls}">${esc(chars[i])}</th>` +
      "<td class=\"on\"></td>".repeat(i + 1) + "<td></td>".repeat(size - i - 1) + `<td class="fw">${fw}</td></tr>`);
  }
  // the two corner cells head no column of data, so they are <td>, not empty <th>
  return `<thead><tr><td></td>${head}<td></td></tr></thead><tbody>${rows.join("")}</tbody>`;
}

export function initVerifyGrid(causal) {
  const ex = causal.verify_example;
  const n = ex.context.length;
  const chars = [...Array.from(ex.context), ...ex.drafts];
  const el = (id) => document.getElementById(id);
  const slider = el("verify-gamma");
  const defaultGamma = Number(slider.value);
  const state = { gamma: intInRange(hashGet("gamma"), 1, ex.gamma, defaultGamma), mode: "verify", row: n - 1 };

  function renderInfo() {
    const i = state.row;
    el("verify-rowinfo").replaceChildren(
      h("div", {}, h("strong", {}, t({ zh: `第 ${i + 1} 行`, en: `Row ${i + 1}` })),
        t({ zh: "看得见：", en: " sees: " }), h("span", { class: "mono" }, textLabel(chars.slice(0, i + 1).join(""))),
        t({ zh: `（${i + 1} 个字）`, en: ` (${i + 1} characters)` })),
      h("div", {}, t(rowMeaning(ex, state.gamma, i))),
      h("div", { class: "top5" }, t({ zh: "主模型在这一行的前 5 名：", en: "Main model's top 5 here:" }),
        ex.rows[i].top.map(([c, p]) => h("span", {}, `${charLabel(c)} ${fixed(p, 3)}`))));
  }

  function renderReadouts() {
    const cost = verifyCost(n, state.gamma, state.mode);
    el("verify-readouts").replaceChildren(
      readoutBox(`${cost.forwards} · ${cost.positions}`, t({ zh: "forward 次数 · 算过的位置数（不用 KV cache）", en: "forwards · positions computed (no KV cache)" })),
      readoutBox(`${Math.min(ex.n_accepted, state.gamma)} / ${state.gamma}`, t({ zh: "被接受的草稿（主模型的真实判决）", en: "drafts accepted (the main model's verdict)" })));
  }

  function render() {
    slider.value = state.gamma;
    el("verify-gamma-out").textContent = String(state.gamma);
    el("verify-mode-separate").setAttribute("aria-pressed", String(state.mode === "separate"));
    el("verify-mode-verify").setAttribute("aria-pressed", String(state.mode === "verify"));
    const grid = el("verify-grid");
    grid.innerHTML = gridHTML(ex, state, lang());
    grid.setAttribute("role", "grid");
    renderInfo();
    renderReadouts();
  }

  function select(i, focus = false) {
    state.row = Math.max(0, Math.min(n + state.gamma - 1, i));
    render();
    if (focus) el("verify-grid").querySelector("tr[tabindex='0']").focus();
  }

  function setGamma(gamma) {
    state.gamma = gamma;
    state.row = Math.min(state.row, n + gamma - 1);
    render();
  }

  slider.addEventListener("input", () => { setGamma(Number(slider.value)); hashSet("gamma", state.gamma); });
  el("verify-mode-separate").addEventListener("click", () => { state.mode = "separate"; render(); });
  el("verify-mode-verify").addEventListener("click", () => { state.mode = "verify"; render(); });
  el("verify-grid").addEventListener("click", (e) => {
    const row = e.target.closest("tr[data-row]");
    if (row) select(Number(row.dataset.row), true);
  });
  el("verify-grid").addEventListener("keydown", (e) => {
    const moves = { ArrowUp: -1, ArrowDown: 1, Home: -Infinity, End: Infinity };
    const move = ownEntry(moves, e.key);
    if (move === undefined) return;
    e.preventDefault();
    select(Number.isFinite(move) ? state.row + move : move < 0 ? 0 : n + state.gamma - 1, true);
  });
  onHashChange((hash) => {
    const gamma = intInRange(hash.gamma, 1, ex.gamma, defaultGamma);
    if (gamma !== state.gamma) setGamma(gamma);
  });
  onLangChange(render);
  render();
}
