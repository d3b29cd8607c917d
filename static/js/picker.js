// Section ⑦, the method picker: a situation in, a ranked list of methods out, or "don't
// speculate". Where the situation is this chapter's own (a CPU: the model as trained, or ⑥'s
// heaviest twin) the expected speedups are its measurements, the answer run's rows on its engine
// (families.json: the dial's first point; regime.json: its last), and conditions.json; on a GPU they are published
// figures (static/data/published.json, in the chapter data as `published`), each labelled with
// its paper and setting and never mixed with ours.
import { h, verdictBadge } from "./dom.js";
import { escapeHTML, figHTML, fixed } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { ENGINE_LABEL, FAMILY, FAMILY_LABEL } from "./labels.js";
import { hashGet, hashSet, onHashChange, ownEntry } from "./state.js";
import { pairedVerdict } from "./theory.js";

export const INPUTS = {
  regime: ["cpu", "twin", "gpu", "batch"],
  temperature: ["0", "0.5", "0.8", "1", "1.3"],
  text: ["open", "repeat", "quote"],
  memory: ["yes", "no"],
  training: ["yes", "no"],
  length: ["long", "short"],
};

export const PRESETS = {
  chapter: { regime: "cpu", temperature: "1", text: "open", memory: "yes", training: "yes", length: "long" },
  cpuHeavy: { regime: "twin", temperature: "1", text: "open", memory: "yes", training: "yes", length: "long" },
  gpuChat: { regime: "gpu", temperature: "0.8", text: "open", memory: "yes", training: "yes", length: "long" },
  serving: { regime: "batch", temperature: "1", text: "open", memory: "yes", training: "yes", length: "long" },
};

// What each family needs besides the main model, from where its drafts come from (registry.json's
// source). Training: the drafter must be trained for this main model (the MTP head with it).
// Memory: a second model or a large table/datastore. Retrieval: drafts copied from text, long and
// right where the text repeats.
const needs = (family) => {
  const source = FAMILY[family].source;
  return { memory: source === "draft" || source === "corpus", training: source === "mtp" || source === "heads" };
};
const retrieved = (family) => ["corpus", "context"].includes(FAMILY[family].source);
const measuredFamilies = () => Object.keys(FAMILY).filter((f) => FAMILY[f].measured);

// A published figure's source as the list prints it: "EAGLE-2, arXiv 2406.16858".
export function citation(fig) {
  return `${fig.paper}, arXiv ${fig.arxiv}${fig.section ? ` ${fig.section}` : ""}`;
}

function allowed(family, situation) {
  const need = needs(family);
  return !(need.memory && situation.memory === "no") && !(need.training && situation.training === "no");
}

// Whether the situation is one this chapter measured: a CPU, with the model as trained or ⑥'s heaviest twin.
export const measuredHere = (situation) => situation.regime === "cpu" || situation.regime === "twin";

// The timed rows this situation reads, T = 0 rows for greedy decoding and T = 1 rows otherwise (the
// two temperatures the answer run timed): the model as trained (families.json, on its primary engine)
// or, for "twin", the heaviest scale of the dial (regime.json), with that scale's main-model bytes.
function measuredRows(families, situation, regime) {
  const temperature = situation.temperature === "0" ? 0 : 1;
  if (situation.regime === "twin") {
    const heaviest = regime.points.at(-1);
    return { engine: regime.engine, temperature, rows: heaviest.best[`T${temperature}`], bytes: heaviest.main_bytes };
  }
  const engine = families.summary.primary_engine;
  const rows = families.rows.filter((r) => r.engine === engine && r.temperature === temperature && r.family !== "plain");
  return { engine, temperature, rows };
}

function configText(row) {
  return row.shape === "tree" ? { zh: `${row.size} 节点的树`, en: `a tree of ${row.size} nodes` } : { zh: `链 γ = ${row.size}`, en: `chain γ = ${row.size}` };
}

function alphaNote(family, situation, conditions) {
  const byT = conditions.by_temperature.find((row) => String(row.temperature) === situation.temperature);
  const kind = situation.text === "open" ? "own" : "repetitive";
  const onText = conditions.by_text[kind][situation.temperature === "0" ? "T0" : "T1"].drafters[family];
  const parts = [];
  if (byT && byT.alpha[family] && byT.alpha[family].mean !== null) {
    parts.push({ zh: `α（teacher forcing，T = ${situation.temperature}）= ${fixed(byT.alpha[family].mean, 3)}`,
      en: `teacher-forced α = ${fixed(byT.alpha[family].mean, 3)} at T = ${situation.temperature}` });
  }
  if (situation.text !== "open" && onText && onText.alpha !== null) {
    const at = situation.temperature === "0" ? "0" : "1";
    parts.push({ zh: `重复的文本上 α（teacher forcing，T = ${at}）= ${fixed(onText.alpha, 3)}`, en: `teacher-forced α = ${fixed(onText.alpha, 3)} on repetitive text (T = ${at})` });
  }
  return parts;
}

const SHORT_ON_GPU = { zh: "回答只有几个 token 时，时间几乎都花在读入提示（prefill）上，解码只有寥寥几轮，投机省不下什么；草稿员的加载和显存却要先付",
  en: "with a reply of a few tokens nearly all the time goes into reading the prompt (prefill) and there are only a handful of decoding rounds for speculation to shorten, while the drafter's loading and memory are paid up front" };

function startUpReason(conditions) {
  // conditions.json times one engine, the dial's (its rows all carry it)
  const plainStart = conditions.start_up.find((r) => r.family === "plain");
  const n = Math.min(...conditions.lengths);
  const short = conditions.by_length.find((r) => r.n_chars === n && r.family === "plain");
  return { zh: `本章实测：新进程启动要 ${fixed(plainStart.start_up_s, 1)} 秒，写 ${n} 个字只要 ${fixed(1000 * short.wall_s.median, 1)} 毫秒；投机能省的部分小到可以忽略，而草稿员还要先加载或建表`,
    en: `measured here: a fresh process takes ${fixed(plainStart.start_up_s, 1)} s to start and ${n} characters take ${fixed(1000 * short.wall_s.median, 1)} ms to write; what speculation could save is negligible, and a drafter must first be loaded or built` };
}

// What every figure in the list is, said once above it: measured here (and where), or published.
export function scopeNote(situation, families, regime) {
  if (!measuredHere(situation)) {
    return { zh: "GPU 上的数字取自论文，不是本章测的；没有数字的方法按需要的条件排在后面。",
      en: "On a GPU the figures are the papers', not measured here; methods without a published figure come last." };
  }
  const { engine, temperature, bytes } = measuredRows(families, situation, regime);
  const engineName = ENGINE_LABEL[engine];
  const model = bytes ? { zh: `⑥ 最重的加重版（主模型 ${fixed(bytes / 1e6, 0)} MB）`, en: `⑥'s heaviest twin (a ${fixed(bytes / 1e6, 0)} MB main model)` }
    : { zh: "模型原样", en: "the model as trained" };
  // speedups exist at T = 0 and 1 only: a hotter situation is ranked by its T = 1 rows, and says so
  const hotter = Number(situation.temperature) > temperature
    ? { zh: `（加速比只测了 T = 0 和 1，这里用 T = 1 的；α 取 T = ${situation.temperature}）`, en: ` (speedups were measured at T = 0 and 1 only, so these are T = 1's; α is at T = ${situation.temperature})` }
    : { zh: "", en: "" };
  // speedups were timed on the main model's own text only: another kind of text changes the α shown, not the order
  const text = situation.text !== "open"
    ? { zh: "（加速比只在这种文本上测过；α 取所选的文本）", en: " (speedups were timed on this text only; α is on the text chosen)" }
    : { zh: "", en: "" };
  return { zh: `本章实测，相对同一引擎的${FAMILY_LABEL.plain.zh}：${model.zh}，${engineName.zh}，T = ${temperature}${hotter.zh}，主模型自己写的文本${text.zh}；每种方法取它最快的配置。`,
    en: `Measured here, over ${FAMILY_LABEL.plain.en} on the same engine: ${model.en}, ${engineName.en}, T = ${temperature}${hotter.en}, the main model's own text${text.en}; each method at its fastest configuration.` };
}

function cpuRanking(situation, families, conditions, regime) {
  const { rows } = measuredRows(families, situation, regime);
  const ranked = rows.filter((r) => allowed(r.family, situation)).sort((a, b) => b.speedup - a.speedup).map((r) => ({
    method: r.family, source: "measured", speedup: r.speedup, verdict: pairedVerdict(r.speedup_runs), runs: r.speedup_runs,
    label: { zh: `${fixed(r.speedup, 2)}×（${configText(r).zh}）`, en: `${fixed(r.speedup, 2)}× (${configText(r).en})` },
    figure: { text: fixed(r.speedup, 2), quantity: "speedup", condition: r.fig }, // the label's number, tagged when drawn
    reasons: [{ zh: `每次 forward ${fixed(r.tokens_per_main, 2)} 个字，每轮起草 ${fixed(r.drafter_per_round, 2)} 个普通 forward`,
      en: `${fixed(r.tokens_per_main, 2)} characters per forward, drafting ${fixed(r.drafter_per_round, 2)} plain forwards a round` },
    ...alphaNote(r.family, situation, conditions)],
  }));
  // the chapter's verdict rule: a method is called faster only when every paired repeat is above 1×
  if (!ranked.some((r) => r.verdict === "faster")) {
    return [dont({ zh: `剩下的方法在本章没有一种在每次成对测量里都比${FAMILY_LABEL.plain.zh}快`, en: `no remaining method measured here is faster than ${FAMILY_LABEL.plain.en} in every paired repeat` }), ...ranked];
  }
  const plain = { method: "plain", source: "measured", speedup: 1, label: { zh: "1×（基准）", en: "1× (the baseline)" }, reasons: [] };
  return [...ranked.filter((r) => r.verdict === "faster"), plain, ...ranked.filter((r) => r.verdict !== "faster")];
}

function gpuRanking(situation, published) {
  const retrieval = situation.text !== "open";
  const items = measuredFamilies().filter((f) => allowed(f, situation)).map((family) => {
    const fig = published.gpu[family];
    const reasons = [];
    if (fig) reasons.push(fig.setting);
    if (family === "lookup") {
      reasons.push({ zh: "不需要任何草稿员；transformers 的文档说它适合摘要这类以输入为依据的任务，但没有给出数字",
        en: "needs no drafter at all; the transformers docs recommend it for input-grounded tasks such as summarization, with no number" });
    }
    if (retrieval && retrieved(family)) {
      reasons.push({ zh: "文本重复或照抄输入时，检索到的草稿很长而且几乎都对", en: "when the text repeats or copies its input, retrieved drafts are long and mostly right" });
    }
    return {
      method: family, source: fig ? "published" : "none",
      speedup: fig ? fig.rank : 0,
      label: fig ? { zh: `${fig.figure.zh}（已发表：${citation(fig)}）`, en: `${fig.figure.en} (published: ${citation(fig)})` }
        : { zh: "没有已发表的数字", en: "no published figure" },
      reasons,
      boost: retrieval && retrieved(family) ? 1 : 0,
    };
  });
  return items.sort((a, b) => b.boost - a.boost || b.speedup - a.speedup);
}

// "Don't speculate": plain decoding, first in the list, with the reasons why.
function dont(...reasons) {
  return { method: "plain", dont: true, source: "measured", label: { zh: `不要投机：${FAMILY_LABEL.plain.zh}`, en: "Don't speculate: decode plainly" }, reasons };
}

// The ranked answer: [{method, source: measured | published | none, label, reasons, dont?}], the
// first one the recommendation (dont: true means plain decoding, no speculation). `published`:
// static/data/published.json.
export function recommend(situation, families, conditions, published, regime) {
  const cpu = measuredHere(situation);
  if (situation.length === "short") {
    const rest = cpu ? cpuRanking(situation, families, conditions, regime) : gpuRanking(situation, published);
    const reason = cpu ? startUpReason(conditions) : SHORT_ON_GPU;
    return [{ ...dont(reason), source: cpu ? "measured" : "none" }, ...rest.filter((r) => r.method !== "plain")];
  }
  if (situation.regime === "batch") {
    return [{ ...dont(published.batch.findings.text, published.batch.exception.text), source: "published" },
      ...gpuRanking(situation, published).map((r) => ({ ...r, reasons: [...r.reasons, { zh: "批量大时，这个数字会缩小", en: "expect less at a large batch size" }] }))];
  }
  return cpu ? cpuRanking(situation, families, conditions, regime) : gpuRanking(situation, published);
}

const CHOICE_LABEL = {
  regime: { cpu: { zh: "CPU，模型原样，待在缓存里（本章）", en: "CPU, the model as trained, in cache (this chapter)" },
    twin: { zh: "CPU，远大于缓存的模型（⑥ 最重的加重版）", en: "CPU, a model far past the cache (⑥'s heaviest twin)" },
    gpu: { zh: "GPU 单路生成（受内存带宽限制）", en: "GPU, one stream (memory-bound)" },
    batch: { zh: "GPU 大批量服务（算力已满）", en: "GPU serving a large batch (compute-bound)" } },
  text: { open: { zh: "开放写作", en: "open-ended" }, repeat: { zh: "重复的 / 像代码的", en: "repetitive, code" },
    quote: { zh: "大段照抄输入", en: "copies its input" } },
  memory: { yes: { zh: "放得下额外的模型", en: "room for a drafter" }, no: { zh: "放不下", en: "no room" } },
  training: { yes: { zh: "可以训练", en: "can train" }, no: { zh: "不能训练", en: "no training" } },
  length: { long: { zh: "长输出", en: "long" }, short: { zh: "只有几个字", en: "a few characters" } },
};

// The situation in the URL hash: #pick=cpu-1-open-yes-yes-long (the inputs in INPUTS order).
export function encodeSituation(situation) {
  return Object.keys(INPUTS).map((key) => situation[key]).join("-");
}

export function decodeSituation(text, inputs = INPUTS) {
  const parts = String(text || "").split("-");
  const keys = Object.keys(inputs);
  if (parts.length !== keys.length) return null;
  const situation = Object.fromEntries(keys.map((key, i) => [key, parts[i]]));
  return keys.every((key) => inputs[key].includes(situation[key])) ? situation : null;
}

// The situation an address asks for (#pick=...), or `current` where it asks for none it knows.
export function situationFromHash(get, inputs, current) {
  return decodeSituation(get("pick"), inputs) ?? current;
}

const SHOWN = 5; // rows of the ranking shown before "the other N"

export function initPicker(families, conditions, published, regime) {
  const box = document.getElementById("picker-widget");
  const selects = Object.fromEntries(Object.keys(INPUTS).map((key) => [key, box.querySelector(`select[data-input="${key}"]`)]));
  const list = document.getElementById("picker-result");
  const scope = document.getElementById("picker-scope");
  const more = document.getElementById("picker-more"), rest = document.getElementById("picker-rest");
  const moreLabel = document.getElementById("picker-more-label");
  // the temperatures conditions.json measured (the select lists the same ones)
  const inputs = { ...INPUTS, temperature: conditions.temperatures.map(String) };
  let situation = situationFromHash(hashGet, inputs, { ...PRESETS.chapter });

  // a measured speedup's number goes through format.js figHTML, the one tag every checked figure gets
  function speedupLabel(item) {
    const span = h("span", { class: `pick-speedup ${item.source}` });
    const label = t(item.label);
    if (item.figure && label.startsWith(item.figure.text)) {
      const { text, quantity, condition } = item.figure;
      span.innerHTML = figHTML(text, quantity, condition) + escapeHTML(label.slice(text.length));
    } else {
      span.textContent = label;
    }
    return span;
  }

  function draw() {
    for (const [key, select] of Object.entries(selects)) {
      select.value = situation[key];
      for (const option of select.options) {
        const label = key === "temperature" ? { zh: `T = ${option.value}`, en: `T = ${option.value}` } : CHOICE_LABEL[key][option.value];
        option.textContent = t(label);
      }
    }
    for (const button of box.querySelectorAll("[data-preset]")) {
      button.setAttribute("aria-pressed", String(encodeSituation(PRESETS[button.dataset.preset]) === encodeSituation(situation)));
    }
    const ranked = recommend(situation, families, conditions, published, regime);
    if (scope) scope.textContent = t(scopeNote(situation, families, regime));
    list.dataset.top = ranked[0].method;
    list.dataset.dont = String(Boolean(ranked[0].dont));
    const items = ranked.map((item, i) => h("li", { "data-method": item.method, "data-source": item.source, class: i === 0 ? "top" : null },
      h("strong", {}, t(item.dont ? item.label : FAMILY_LABEL[item.method])),
      item.dont ? null : speedupLabel(item),
      item.runs ? verdictBadge(item.runs) : null,
      item.reasons.length ? h("span", { class: "pick-reason" }, item.reasons.map(t).join(t({ zh: "；", en: "; " }))) : null));
    // the first SHOWN answer the question; the rest of the ranking folds away under them
    const shown = more ? SHOWN : items.length;
    list.replaceChildren(...items.slice(0, shown));
    if (more) {
      more.hidden = items.length <= shown;
      rest.start = shown + 1;
      rest.replaceChildren(...items.slice(shown));
      moreLabel.textContent = t({ zh: `其余 ${items.length - shown} 种`, en: `The other ${items.length - shown}` });
    }
  }

  for (const [key, select] of Object.entries(selects)) {
    select.addEventListener("change", () => {
      situation = { ...situation, [key]: select.value };
      hashSet("pick", encodeSituation(situation));
      draw();
    });
  }
  for (const button of box.querySelectorAll("[data-preset]")) {
    button.addEventListener("click", () => {
      situation = { ...PRESETS[button.dataset.preset] };
      hashSet("pick", encodeSituation(situation));
      draw();
    });
  }
  // an address edited by hand (or a followed #link) applies at once; hashSet fires no hashchange
  onHashChange((hash) => {
    const next = situationFromHash((key) => ownEntry(hash, key), inputs, situation);
    if (encodeSituation(next) === encodeSituation(situation)) return;
    situation = { ...next };
    draw();
  });
  onLangChange(draw);
  draw();
}
