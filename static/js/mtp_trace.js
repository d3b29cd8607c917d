// Section ④: the MTP head's self-drafted sample replayed one main forward at a time: the text
// coloured by how each character was made, and a card with the numbers of the current step.
import { h, readoutBox } from "./dom.js";
import { charLabel, escapeHTML, fixed, grouped, percent, textLabel } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { hashGet, hashSet, intInRange, onHashChange, ownEntry } from "./state.js";
import { FAMILY_LABEL } from "./labels.js";

// How each emitted char of a step was made, in this widget's three colours: the accepted draft,
// the residual's redraw after a rejection, and the main model's own sample (a bonus after an
// accepted draft counts as one: with γ = 1 it is the main model's next char as in plain decoding).
export function stepKinds(step) {
  return step.emitted.map((_, j) => (j < step.n_accepted ? "draft" : step.next_from === "residual" ? "resample" : "main"));
}

export function kindCounts(steps) {
  const counts = { draft: 0, main: 0, resample: 0 };
  for (const st of steps) for (const k of stepKinds(st)) counts[k] += 1;
  return counts;
}

// min(1, p/q) of a step's draft; null on a step without a draft. q = 0 never accepts.
export function draftRatio(step) {
  if (step.draft === null) return null;
  return step.q_draft > 0 ? Math.min(1, step.p_draft / step.q_draft) : 0;
}

// The step the trace opens on: the rejection with the smallest min(1, p/q), where the head was
// most confident about a char the main model did not want. No rejection: the first draft.
export function defaultStep(steps) {
  let best = -1;
  steps.forEach((st, i) => {
    if (st.draft !== null && !st.accepted && (best < 0 || draftRatio(st) < draftRatio(steps[best]))) best = i;
  });
  if (best >= 0) return best;
  const first = steps.findIndex((st) => st.draft !== null);
  return first >= 0 ? first : 0;
}

export function rejections(steps) {
  return steps.flatMap((st, i) => (st.draft !== null && !st.accepted ? [i] : []));
}

function charHTML(c, cls) {
  return c === "\n" ? `<span class="${cls}">↵</span>\n` : `<span class="${cls}">${escapeHTML(c)}</span>`;
}

// The whole trace as one HTML string (fast to swap in): the prompt, then one group per main
// forward, each char classed by how it was made; the current step marked, later ones faded.
export function traceHTML(prompt, steps, cur) {
  const out = [`<span class="mtp-prompt">${Array.from(prompt, (c) => charHTML(c, "mtp-k-prompt")).join("")}</span>`];
  steps.forEach((st, i) => {
    const state = i === cur ? " mtp-cur" : i > cur ? " mtp-fut" : "";
    const kinds = stepKinds(st);
    const chars = st.emitted.map((c, j) => charHTML(c, `mtp-k-${kinds[j]}`)).join("");
    out.push(`<span class="mtp-step${state}" data-s="${i}">${chars}</span>`);
  });
  return out.join("");
}

// The card for step i: {title, rows: [{label, value, cls}] (the figures' tiles; empty without a draft), text};
// titles, labels and text are {zh, en} pairs.
export function stepView(sample, i) {
  const steps = sample.steps, st = steps[i];
  const c = (x) => `“${charLabel(x)}”`;
  const title = { zh: `第 ${i + 1} 次主模型 forward（共 ${steps.length} 次）`, en: `Main forward ${i + 1} of ${steps.length}` };
  if (st.draft === null) {
    const prompt = `“${textLabel(sample.prompt)}”`;
    const text = i === 0
      ? { zh: `这是第一次 forward：主模型读完提示 ${prompt}，还没有草稿可验，自己采样出 ${c(st.emitted[0])}。${FAMILY_LABEL.mtp.zh}随后用这次算出的 hₜ 和 ${c(st.emitted[0])} 的嵌入，为下一次 forward 打出第一个草稿。`,
          en: `The first forward: the main model reads the prompt ${prompt}; there is no draft to check yet, so it samples ${c(st.emitted[0])} itself. The ${FAMILY_LABEL.mtp.en} then uses this forward's hₜ and the embedding of ${c(st.emitted[0])} to draft for the next forward.` }
      : { zh: `只剩最后 1 个字要生成，草稿即使通过也用不上，所以 ${FAMILY_LABEL.mtp.zh}这次没有打草稿；主模型直接采样出 ${c(st.emitted[0])}。`,
          en: `Only one character was left to generate, so a draft could not have been used and the ${FAMILY_LABEL.mtp.en} proposed none; the main model sampled ${c(st.emitted[0])} directly.` };
    return { title, rows: [], text };
  }
  const rows = [
    { label: { zh: `${FAMILY_LABEL.mtp.zh}的草稿 x`, en: `the ${FAMILY_LABEL.mtp.en}'s draft x` }, value: c(st.draft) },
    { label: { zh: `q(x)：${FAMILY_LABEL.mtp.zh}给它的概率`, en: "q(x): the head's probability" }, value: fixed(st.q_draft, 4) },
    { label: { zh: "p(x)：主模型给它的概率", en: "p(x): the main model's probability" }, value: fixed(st.p_draft, 4) },
    { label: { zh: "接受概率 min(1, p/q)", en: "acceptance chance min(1, p/q)" }, value: fixed(draftRatio(st), 4) },
    { label: { zh: "均匀随机数 u", en: "uniform draw u" }, value: fixed(st.u, 4) },
    { label: { zh: "判决", en: "verdict" }, cls: st.accepted ? "good" : "warn",
      value: st.accepted ? { zh: "u < min(1, p/q) → 接受", en: "u < min(1, p/q) → accepted" }
        : { zh: "u ≥ min(1, p/q) → 拒绝", en: "u ≥ min(1, p/q) → rejected" } },
  ];
  const text = st.accepted
    ? { zh: `吐出 ${c(st.emitted[0])}（草稿）和 ${c(st.emitted[1])}：草稿通过后，同一次 forward 已经算好了再下一个位置的 p，主模型从中采样，所以这次吐 2 个字。`,
        en: `Emits ${c(st.emitted[0])} (the draft) and ${c(st.emitted[1])}: once the draft passes, the same forward has already computed p for the following position, and the main model samples from it, so this forward yields 2 characters.` }
    : { zh: `吐出 ${c(st.emitted[0])}：草稿被拒，这个位置改从残差 max(0, p − q) 归一化后重抽；再下一个位置的 p 看到的是被拒的字，作废。这次只吐 1 个字。`,
        en: `Emits ${c(st.emitted[0])}: the draft is rejected, so this position is redrawn from the normalised residual max(0, p − q); p for the following position was computed after the rejected character and is thrown away. This forward yields 1 character.` };
  return { title, rows, text };
}

// The readouts under the trace: [{value, key: {zh, en}}].
export function traceReadouts(sample) {
  const nRejected = rejections(sample.steps).length;
  return [
    { value: `${grouped(sample.n_chars)} / ${grouped(sample.main_forwards)} = ${fixed(sample.n_chars / sample.main_forwards, 2)}`,
      key: { zh: "生成的字数 / 主模型 forward 次数 = 每次 forward 吐出的字数", en: "characters / main forwards = characters per main forward" } },
    { value: `${grouped(sample.accepted)} / ${grouped(sample.proposed)} = ${percent(sample.accepted / sample.proposed)}`,
      key: { zh: "被接受的草稿 / 打出的草稿（这一段样本的接受率）", en: "drafts accepted / drafts proposed (this sample's acceptance rate)" } },
    { value: grouped(nRejected),
      key: { zh: "被拒绝的草稿：每次拒绝都由残差重抽补上 1 个字", en: "rejected drafts: each one is replaced by a residual redraw" } },
  ];
}

export function initMtpTrace(mtp) {
  const el = (id) => document.getElementById(id);
  const sample = mtp.sample;
  const steps = sample.steps;
  const rejected = rejections(steps);
  const slider = el("mtp-step");
  const stepFromHash = (value) => intInRange(value, 1, steps.length, defaultStep(steps) + 1) - 1;
  const state = { step: stepFromHash(hashGet("mtpstep")) };
  slider.max = String(steps.length);

  function renderStep() {
    const i = state.step;
    const view = stepView(sample, i);
    slider.value = String(i + 1);
    el("mtp-step-out").textContent = `${i + 1} / ${steps.length}`;
    el("mtp-text").innerHTML = traceHTML(sample.prompt, steps, i);
    // the step's figures as label/value tiles, three to a row where there is room
    const figures = h("dl", { class: "mtp-step-figs" }, view.rows.map((r) => h("div", {},
      h("dt", {}, t(r.label)), h("dd", { class: r.cls }, typeof r.value === "string" ? r.value : t(r.value)))));
    // steps without a draft (the first and the last) have no figures: replaceChildren would print "null"
    el("mtp-step-card").replaceChildren(...[h("h3", {}, t(view.title)), view.rows.length ? figures : null,
      h("p", {}, t(view.text))].filter(Boolean));
    el("mtp-prev-rej").disabled = !rejected.some((r) => r < i);
    el("mtp-next-rej").disabled = !rejected.some((r) => r > i);
  }

  function render() {
    const counts = kindCounts(steps);
    for (const kind of Object.keys(counts)) el(`mtp-n-${kind}`).textContent = grouped(counts[kind]);
    el("mtp-trace-readouts").replaceChildren(...traceReadouts(sample).map((r) => readoutBox(r.value, t(r.key))));
    renderStep();
  }

  function goStep(i) {
    state.step = Math.max(0, Math.min(steps.length - 1, i));
    hashSet("mtpstep", state.step + 1);
    renderStep();
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
    else if (ownEntry(moves, e.key) !== undefined) goStep(state.step + moves[e.key]);
    else return;
    e.preventDefault();
  });
  el("mtp-prev-rej").addEventListener("click", () => goStep(Math.max(...rejected.filter((r) => r < state.step))));
  el("mtp-next-rej").addEventListener("click", () => goStep(Math.min(...rejected.filter((r) => r > state.step))));
  onHashChange((hash) => {
    const step = stepFromHash(hash.mtpstep);
    if (step !== state.step) { state.step = step; renderStep(); }
  });
  onLangChange(render);
  render();
}
