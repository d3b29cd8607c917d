// Section ⑧, the round view: the generated text coloured by where each character came from, the
// running counters, and one round taken apart (its drafts with p, q, u and verdicts, the last
// character's distribution, the kv-cache rows kept and rolled back). Each function draws from the
// lab's state (lab.js) into the elements it is given; the words come from lab_text.js.
import { h, readoutBox } from "./dom.js";
import { charLabel, grouped } from "./format.js";
import { t } from "./i18n.js";
import { FAMILY_LABEL } from "./labels.js";
import {
  CACHE_LEGEND, CACHE_TITLE, cacheNote, charTitle, counterReadouts, DRAFTS_HEAD, draftCells, draftsCaption, kindOf,
  MAIN_CACHE, nextLine, noCacheNote, PRESS_STEP, roundSummary, roundTitle, VERDICT,
} from "./lab_text.js";

const CACHE_CELLS = 14;  // cells a cache row shows at most; longer rounds fold their first rows into "+n"

function charSpan(ch, cls, title) {
  if (ch === "\n") return [h("span", { class: `${cls} nl`, title }, "↵"), "\n"];
  return [h("span", { class: cls, title }, ch)];
}

// The round's characters at the end of `el`; returns their spans (to outline the shown round).
// `i`, the round's place in the step-by-step text, marks each span (the race's lanes pass none).
export function appendRound(el, round, vocab, i) {
  const made = [];
  round.emitted.forEach((id, j) => {
    const kind = kindOf(round, j);
    const nodes = charSpan(vocab[id], `k-${kind}`, t(charTitle(round, kind)));
    made.push(nodes[0]);
    el.append(...nodes);
  });
  if (i !== undefined) made.forEach((s) => { s.dataset.round = String(i); });
  return made;
}

// The whole text again (a language change retitles every character): the prompt, then each round.
export function drawText(el, st) {
  el.replaceChildren(h("span", { class: "lab-prompt-echo" }, st.settings.prompt));
  st.rounds.forEach((round, i) => { st.spans[i] = appendRound(el, round, st.lab.vocab, i); });
  outline(el, st);
}

// The shown round's characters, outlined in the text.
export function outline(el, st) {
  for (const s of el.querySelectorAll(".cur")) s.classList.remove("cur");
  if (st.shown >= 0 && st.spans[st.shown]) st.spans[st.shown].forEach((s) => s.classList.add("cur"));
}

export function drawCounters(el, st) {
  const c = st.decoder ? st.decoder.counters : null;
  el.replaceChildren(...counterReadouts(c, st.settings).map(([value, key]) => readoutBox(value, t(key))));
}

// ui: the round box's elements (roundTitle, summary, drafts, draftsCaption, nextLine, cache).
export function drawRound(ui, st, ngramOrder) {
  const round = st.shown >= 0 ? st.rounds[st.shown] : null;
  ui.roundTitle.textContent = t(roundTitle(round, st.rounds.length));
  if (!round) {
    ui.summary.textContent = st.decoder ? t(PRESS_STEP) : "";
    ui.drafts.replaceChildren();
    ui.draftsCaption.textContent = "";
    ui.nextLine.textContent = "";
    ui.cache.replaceChildren();
    return;
  }
  const vocab = st.lab.vocab;
  ui.summary.textContent = t(roundSummary(round, vocab));
  const head = h("tr", {}, DRAFTS_HEAD.map((x) => h("th", { scope: "col" }, typeof x === "string" ? x : t(x))));
  const body = round.drafts.map((_, i) => {
    const { verdict, cells: [n, ch, ...nums] } = draftCells(round, i, vocab);
    return h("tr", { class: `v-${verdict}` },
      h("th", { scope: "row" }, n),
      h("td", { class: "ch" }, ch),
      nums.map((x) => h("td", { class: "num" }, x)),
      h("td", { class: "verdict" }, t(VERDICT[verdict])));
  });
  ui.draftsCaption.textContent = t(draftsCaption(round.drafts.length));
  ui.drafts.replaceChildren(...(round.drafts.length ? [h("thead", {}, head), h("tbody", {}, body)] : []));
  ui.drafts.closest(".table-scroll").hidden = !round.drafts.length;
  ui.nextLine.textContent = t(nextLine(round, vocab, st.settings.temperature));
  drawCache(ui.cache, round, st, ngramOrder);
}

// One model's kv-cache rows: the rows already held, then each row fed this round, kept or rolled back.
function cacheRow(name, view, charAt, vocab) {
  const cells = [];
  if (view.before) cells.push(h("span", { class: "cell old" }, `${grouped(view.before)}`));
  let from = view.before;
  if (view.fed > CACHE_CELLS) {
    const skip = view.fed - (CACHE_CELLS - 2);
    cells.push(h("span", { class: "cell kept more" }, `+${skip}`));
    from += skip;
  }
  for (let j = from; j < view.before + view.fed; j++) {
    const kept = j < view.kept;
    cells.push(h("span", { class: `cell ${kept ? "kept" : "gone"}` }, charLabel(vocab[charAt(j)] ?? "?")));
  }
  return h("div", { class: "lab-cache-row" },
    h("span", { class: "lab-cache-name" }, name),
    h("span", { class: "lab-cells", "aria-hidden": "true" }, cells),
    h("span", { class: "lab-cache-note" }, t(cacheNote(view))));
}

function drawCache(el, round, st, ngramOrder) {
  const vocab = st.lab.vocab, method = st.settings.method;
  const seqRound = round.seqBefore.concat(round.drafts);
  const at = (j) => seqRound[j];
  const rows = [cacheRow(t(MAIN_CACHE), round.cache.main, at, vocab)];
  if (round.cache.drafter) {
    // the MTP head's row j holds position j + 1: it reads the main model's state there
    rows.push(cacheRow(t(FAMILY_LABEL[method]), round.cache.drafter, method === "mtp" ? (j) => seqRound[j + 1] : at, vocab));
  } else {
    rows.push(h("p", { class: "caption" }, t(noCacheNote(method, ngramOrder))));
  }
  const legend = h("div", { class: "legend", "aria-hidden": "true" },
    ["old", "kept", "gone"].map((kind) => h("span", {}, h("span", { class: `swatch cell-${kind}` }), t(CACHE_LEGEND[kind]))));
  el.replaceChildren(h("p", { class: "lab-cache-title" }, t(CACHE_TITLE)), ...rows, legend);
}
