// Section ⑧, the lab: the trained models run in the reader's browser (lab_model.js, lab_decode.js).
// Nothing heavy happens at page load: the weights in <script id="lab-data"> are parsed and unpacked
// the first time the lab scrolls into view. Then the reader steps speculative decoding one round at
// a time (drafts, p and q, u, verdicts, the residual or bonus draw, the kv-cache rows kept and
// rolled back), races it against plain decoding, and runs the ledger's settings in the browser.
import { h, readoutBox } from "./dom.js";
import { charLabel, fixed, grouped, sci } from "./format.js";
import { onLangChange, t } from "./i18n.js";
import { drafterCost, encodePrompt, newDecoder, TIMING, timerResolution, verifyCostRatio } from "./lab_decode.js";
import { loadLab } from "./lab_model.js";
import { hashGet, hashSet, intInRange, onHashChange, ownEntry } from "./state.js";
import { expectedTokens, speedupTheory } from "./theory.js";

export const LAB_METHODS = ["plain", "draft", "mtp", "ngram"];
export const LAB_DEFAULTS = { method: "draft", gamma: 4, temperature: 1, seed: 0, prompt: "ROMEO:\n", chars: 200 };
export const LAB_HASH = { method: "lab-m", gamma: "lab-g", temperature: "lab-t", seed: "lab-s", prompt: "lab-p", chars: "lab-n" };
const MAX_SEED = 2147483647;
const PLAY_MS = 250;

export const METHOD_LABEL = {
  plain: { zh: "普通解码（没有草稿）", en: "plain decoding (no drafts)" },
  draft: { zh: "草稿模型", en: "draft model" },
  mtp: { zh: "MTP 头（γ = 1）", en: "MTP head (γ = 1)" },
  ngram: { zh: "n-gram 表", en: "n-gram table" },
};
const METHOD_SHORT = {
  plain: { zh: "普通解码", en: "plain decoding" }, draft: { zh: "草稿模型", en: "draft model" },
  mtp: { zh: "MTP 头", en: "MTP head" }, ngram: { zh: "n-gram 表", en: "n-gram table" },
};

// Settings from the URL hash ({key: string} as state.js parses it), each checked, with defaults.
export function readSettings(get) {
  const method = LAB_METHODS.includes(get(LAB_HASH.method)) ? get(LAB_HASH.method) : LAB_DEFAULTS.method;
  const tText = get(LAB_HASH.temperature);
  const tNum = tText === undefined || tText === "" ? NaN : Number(tText);
  const temperature = Number.isFinite(tNum) && tNum >= 0 && tNum <= 1.5 ? Math.round(tNum * 10) / 10 : LAB_DEFAULTS.temperature;
  const prompt = get(LAB_HASH.prompt);
  return {
    method,
    gamma: intInRange(get(LAB_HASH.gamma), 1, 8, LAB_DEFAULTS.gamma),
    temperature,
    seed: intInRange(get(LAB_HASH.seed), 0, MAX_SEED, LAB_DEFAULTS.seed),
    prompt: typeof prompt === "string" && prompt.length ? prompt.slice(0, 400) : LAB_DEFAULTS.prompt,
    chars: intInRange(get(LAB_HASH.chars), 10, 1000, LAB_DEFAULTS.chars),
  };
}

// γ as the decoder uses it: none for plain, always 1 for the MTP head.
export function effectiveGamma(method, gamma) {
  return method === "plain" ? 0 : method === "mtp" ? 1 : gamma;
}

// A character as a reader can see it, in curly quotes; a character outside the vocabulary also
// gets its code point (a tab or an accented letter may look like something else).
export function quoted(ch) {
  return `“${charLabel(ch)}”`;
}

export function unknownNote(unknown) {
  const list = unknown.map((ch) => {
    const code = ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
    return `“${ch === "\t" ? "⇥" : ch === "\r" ? "␍" : ch}” U+${code}`;
  });
  return {
    zh: `提示里有词表之外的字符：${list.join("、")}。模型只认识 65 个字符（英文字母、数字 3、空格、换行和 !$&',-.:;?），请删掉或换掉它们；在那之前不能生成。`,
    en: `The prompt has characters outside the vocabulary: ${list.join(", ")}. The models know only 65 characters (English letters, the digit 3, space, newline and !$&',-.:;?); remove or replace them. Until then nothing can be generated.`,
  };
}

const EMPTY_NOTE = { zh: "提示是空的：至少写一个字。", en: "The prompt is empty: write at least one character." };

// Where a round's last character came from, as the text's colours name it.
export function kindOf(round, i) {
  if (i < round.nAccepted) return "accept";
  return round.nextFrom;  // bonus | residual | main
}

function prob(x) {
  return x >= 0.001 || x === 0 ? fixed(x, 3) : sci(x, 2);
}

function alphaOf(c) {
  return c.checked ? c.accepted / c.checked : null;
}

// One line for screen readers and the eye: what happened in this round.
export function roundSummary(round, vocab) {
  const ch = quoted(vocab[round.next]);
  const n = round.drafts.length, k = round.nAccepted;
  const tail = round.nextFrom === "main"
    ? { zh: `没有草稿，主模型直接抽出 ${ch}`, en: `no drafts; the main model sampled ${ch}` }
    : round.nextFrom === "bonus"
      ? { zh: `${n} 个草稿全部通过，再加奖励字 ${ch}`, en: `all ${n} drafts passed, plus the bonus ${ch}` }
      : { zh: `${n} 个草稿接受了 ${k} 个，第 ${k + 1} 个被拒，从残差重抽出 ${ch}`, en: `${k} of ${n} drafts accepted, draft ${k + 1} rejected, ${ch} redrawn from the residual` };
  const out = round.emitted.length;
  return { zh: `第 ${round.index} 轮：${tail.zh}。这一轮写出 ${out} 个字。`, en: `Round ${round.index}: ${tail.en}. This round wrote ${out} character${out === 1 ? "" : "s"}.` };
}

// The sentence under the drafts table: which distribution the round's last character came from.
export function nextLine(round, vocab, temperature) {
  const ch = quoted(vocab[round.next]), p = prob(round.nextProb), k = round.nAccepted;
  const greedy = temperature === 0 ? { zh: "（T = 0：分布是独热的，这就是主模型概率最大的那个字）", en: " (T = 0: the distribution is one-hot, so this is the main model's argmax)" } : { zh: "", en: "" };
  if (round.nextFrom === "main") {
    return { zh: `主模型从 p 抽出 ${ch}，概率 ${p}${greedy.zh}。`, en: `The main model drew ${ch} from p, probability ${p}${greedy.en}.` };
  }
  if (round.nextFrom === "bonus") {
    return { zh: `全部通过：奖励字 ${ch} 从验收 forward 的最后一行 p${sub(k + 1)} 抽出，概率 ${p}${greedy.zh}。`,
      en: `Every draft passed: the bonus ${ch} was drawn from the verify forward's last row p${sub(k + 1)}, probability ${p}${greedy.en}.` };
  }
  return { zh: `草稿 ${k + 1} 被拒：${ch} 从残差 normalize(max(0, p${sub(k + 1)} − q${sub(k + 1)})) 抽出，概率 ${p}${greedy.zh}。`,
    en: `Draft ${k + 1} was rejected: ${ch} was drawn from the residual normalize(max(0, p${sub(k + 1)} − q${sub(k + 1)})), probability ${p}${greedy.en}.` };
}

function sub(n) {
  return String(n).replace(/\d/g, (d) => "₀₁₂₃₄₅₆₇₈₉"[d]);
}

const VERDICT = {
  accept: { zh: "✓ 接受", en: "✓ accepted" },
  reject: { zh: "✗ 拒绝", en: "✗ rejected" },
  unchecked: { zh: "没有检查", en: "not checked" },
};

// How c and r were timed, beside them: the clock's resolution on this page and the batching.
export function timingNote(resolutionMs) {
  const fine = resolutionMs < 0.01;  // a cross-origin-isolated page reads µs
  const res = fine ? fixed(1000 * resolutionMs, 1) : String(Number(resolutionMs.toPrecision(2)));
  const { minMs, samples } = TIMING;
  return {
    zh: `这个页面的计时器精度是 ${res}\u00a0${fine ? "微秒" : "毫秒"}，所以成批计时：每批连续调用至少 ${minMs}\u00a0毫秒，按调用次数平均，取 ${samples} 批的中位数`,
    en: `this page's timer reads to ${res}\u00a0${fine ? "µs" : "ms"}, so calls are timed in batches: each lasts at least ${minMs}\u00a0ms and is divided by its calls, and the figure is the median of ${samples} batches`,
  };
}

// The race's verdict sentence: measured speedup beside the theorem's two predictions.
export function raceVerdict(r) {
  const x = (v) => `${fixed(v, 2)}×`;
  const faster = r.speedup >= 1, name = METHOD_SHORT[r.method];
  const head = faster
    ? { zh: `在你的浏览器里，${name.zh}比普通解码快，是它的 ${x(r.speedup)}。`, en: `In your browser the ${name.en} beat plain decoding: ${x(r.speedup)} its speed.` }
    : { zh: `在你的浏览器里，${name.zh}只有普通解码 ${x(r.speedup)} 的速度。`, en: `In your browser the ${name.en} ran at ${x(r.speedup)} the speed of plain decoding.` };
  if (r.theory === null) return head;
  return {
    zh: `${head.zh}定理 3.8 按“一次验收只花一次 forward”预测 ${x(r.theory)}；这里一次验收实测要 ${fixed(r.verify, 1)} 次 forward，把它代进去，预测变成 ${x(r.withVerify)}。`,
    en: `${head.en} Theorem 3.8, pricing a verify at one forward, predicts ${x(r.theory)}; a verify here measured ${fixed(r.verify, 1)} forwards, and with that price the prediction becomes ${x(r.withVerify)}.`,
  };
}

// ---- the widget ----

export function initLab(data) {
  const box = document.getElementById("lab-widget");
  const $ = (id) => document.getElementById(id);
  const ui = {
    status: $("lab-status"), body: $("lab-ui"), prompt: $("lab-prompt-text"), promptMsg: $("lab-prompt-msg"),
    method: $("lab-method"), gamma: $("lab-gamma"), gammaOut: $("lab-gamma-out"), temp: $("lab-temp"),
    tempOut: $("lab-temp-out"), seed: $("lab-seed"), chars: $("lab-chars"), step: $("lab-step"), play: $("lab-play"),
    pause: $("lab-pause"), reset: $("lab-reset"), text: $("lab-text"), counters: $("lab-counters"),
    prev: $("lab-prev"), next: $("lab-next"), roundTitle: $("lab-round-title"), summary: $("lab-summary"),
    drafts: $("lab-drafts"), draftsCaption: $("lab-drafts-caption"), nextLine: $("lab-next-line"), cache: $("lab-cache"),
    raceN: $("lab-race-n"), raceGo: $("lab-race-go"), raceNote: $("lab-race-note"), identical: $("lab-identical"),
    raceReadouts: $("lab-race-readouts"), raceVerdict: $("lab-race-verdict"),
    lanes: { plain: $("lab-lane-plain"), spec: $("lab-lane-spec") },
    compareGo: $("lab-compare-go"), compareStatus: $("lab-compare-status"), compare: $("lab-compare"),
  };
  const meta = data.lab_meta;
  let settings = readSettings(hashGet);
  let lab = null, loading = null;
  // messages that must follow the language: element -> {zh, en} (null: empty)
  const said = new Map();
  const say = (el, msg) => { said.set(el, msg); el.textContent = msg ? t(msg) : ""; };
  let decoder = null, promptIds = [], seq = [], rounds = [], spans = [], shown = -1;
  let playTimer = null, busy = false, raceToken = 0, raceResult = null, raceSettings = null;
  const costs = { verify: new Map(), drafter: new Map(), resolution: null };

  // settings -> controls (also before the models load: a shared link shows its settings at once)
  function showSettings() {
    if (ui.prompt.value !== settings.prompt) ui.prompt.value = settings.prompt;
    ui.method.value = settings.method;
    ui.gamma.value = String(settings.gamma);
    ui.temp.value = String(settings.temperature);
    ui.seed.value = String(settings.seed);
    ui.chars.value = String(settings.chars);
    labelControls();
  }

  function labelControls() {
    for (const option of ui.method.options) option.textContent = t(METHOD_LABEL[option.value]);
    const g = effectiveGamma(settings.method, settings.gamma);
    ui.gamma.disabled = settings.method === "plain" || settings.method === "mtp";
    ui.gammaOut.textContent = settings.method === "plain" ? "—" : String(g);
    ui.tempOut.textContent = settings.temperature === 0 ? t({ zh: "0（贪心）", en: "0 (greedy)" }) : fixed(settings.temperature, 1);
    ui.raceGo.textContent = settings.method === "plain"
      ? t({ zh: "赛跑：先选一种投机方法", en: "Race: choose a speculative method first" })
      : t({ zh: `开始赛跑：普通解码对${/^[A-Za-z]/.test(METHOD_SHORT[settings.method].zh) ? " " : ""}${METHOD_SHORT[settings.method].zh}`, en: `Start the race: plain decoding against the ${METHOD_SHORT[settings.method].en}` });
  }

  function setStatus(msg, state) {
    say(ui.status, msg);
    if (state) box.dataset.state = state;
  }

  // ---- loading, on first sight ----
  function ensureLoaded() {
    if (loading) return loading;
    loading = (async () => {
      setStatus({ zh: "正在解开模型权重……", en: "Unpacking the model weights…" }, "loading");
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));  // paint the line first
      const t0 = performance.now();
      try {
        performance.mark("lab-parse-start");
        const labData = JSON.parse(document.getElementById("lab-data").textContent);
        lab = await loadLab(labData);
        performance.mark("lab-ready");
      } catch (err) {
        const why = err && err.message ? err.message : String(err);
        setStatus({
          zh: `实验台无法在这个浏览器里运行（${why}）。它需要浏览器自带的 DecompressionStream：Chromium 80、Firefox 113、Safari 16.4 或更新的版本。页面的其他部分不受影响。`,
          en: `The lab cannot run in this browser (${why}). It needs the browser's own DecompressionStream: Chromium 80, Firefox 113, Safari 16.4 or later. The rest of the page is not affected.`,
        }, "error");
        return;
      }
      const ms = Math.round(performance.now() - t0);
      setStatus({
        zh: `模型已在你的浏览器里就绪（用了 ${ms} 毫秒）：主模型和 MTP 头 ${grouped(meta.main_params)} 个参数，草稿模型 ${grouped(meta.draft_params)} 个，n-gram 表 ${grouped(meta.ngram.contexts)} 个上下文。`,
        en: `The models are ready in your browser (took ${ms} ms): main model and MTP head ${grouped(meta.main_params)} parameters, draft model ${grouped(meta.draft_params)}, n-gram table ${grouped(meta.ngram.contexts)} contexts.`,
      }, "ready");
      ui.body.hidden = false;
      ui.compareGo.disabled = false;
      restart();
      // a first few rounds, so the round view teaches before anything is touched
      for (let i = 0; i < 3 && canStep(); i++) stepOnce();
    })();
    return loading;
  }

  // ---- the step-by-step decoder ----
  function canStep() {
    return lab !== null && decoder !== null && !decoder.done;
  }

  function restart() {
    pause();
    raceToken += 1;  // a running race stops at its next pause
    decoder = null;
    rounds = [];
    spans = [];
    shown = -1;
    if (!lab) return;
    const { ids, unknown } = encodePrompt(lab, settings.prompt);
    const bad = unknown.length ? unknownNote(unknown) : !settings.prompt.length ? EMPTY_NOTE : null;
    ui.promptMsg.hidden = !bad;
    say(ui.promptMsg, bad);
    ui.prompt.setAttribute("aria-invalid", String(Boolean(bad)));
    promptIds = ids;
    seq = ids.slice();
    if (!bad) {
      decoder = newDecoder(lab, { method: settings.method, gamma: settings.gamma, temperature: settings.temperature,
        seed: settings.seed, prompt: ids, maxChars: settings.chars });
    }
    drawText();
    drawAll();
  }

  function stepOnce() {
    if (!canStep()) return false;
    const before = seq.slice();
    const round = decoder.step();
    if (!round) return false;
    round.seqBefore = before;
    rounds.push(round);
    seq.push(...round.emitted);
    spans.push(appendRound(ui.text, round, rounds.length - 1));
    shown = rounds.length - 1;
    drawAll();
    return true;
  }

  function play() {
    if (!canStep() || playTimer !== null) return;
    const tick = () => {
      if (!stepOnce() || !canStep()) { pause(true); return; }
      playTimer = setTimeout(tick, PLAY_MS);
    };
    playTimer = setTimeout(tick, 0);
    drawButtons();
    ui.pause.focus();
  }

  function pause(fromPlay = false) {
    if (playTimer !== null) clearTimeout(playTimer);
    const was = playTimer !== null;
    playTimer = null;
    drawButtons();
    if (was && fromPlay !== true && document.activeElement === ui.pause) ui.play.focus();
    if (was && fromPlay === true && document.activeElement === ui.pause) ui.reset.focus();
  }

  function drawButtons() {
    const ok = canStep() && !busy;
    ui.step.disabled = !ok;
    ui.play.disabled = !ok || playTimer !== null;
    ui.pause.disabled = playTimer === null;
    ui.reset.disabled = busy;
    ui.raceGo.disabled = !lab || busy || !decoder || settings.method === "plain";
    ui.compareGo.disabled = !lab || busy;
    ui.prev.disabled = shown <= 0;
    ui.next.disabled = shown < 0 || shown >= rounds.length - 1;
  }

  // ---- drawing ----
  function charSpan(ch, cls, title) {
    if (ch === "\n") return [h("span", { class: `${cls} nl`, title }, "↵"), "\n"];
    return [h("span", { class: cls, title }, ch)];
  }

  function kindTitle(kind) {
    return t({ accept: { zh: "被接受的草稿", en: "accepted draft" }, residual: { zh: "拒绝后从残差重抽", en: "redrawn from the residual" },
      bonus: { zh: "奖励字", en: "bonus" }, main: { zh: "主模型直接采样", en: "plain sample" } }[kind]);
  }

  // the round's characters at the end of `el`; returns their spans (to outline the shown round)
  function appendRound(el, round, i) {
    const made = [];
    round.emitted.forEach((id, j) => {
      const kind = kindOf(round, j);
      const nodes = charSpan(lab.vocab[id], `k-${kind}`, `${t({ zh: "第 ", en: "round " })}${round.index}${t({ zh: " 轮 · ", en: " · " })}${kindTitle(kind)}`);
      made.push(nodes[0]);
      el.append(...nodes);
    });
    if (i !== undefined) made.forEach((s) => { s.dataset.round = String(i); });
    return made;
  }

  function drawText() {
    const promptEl = h("span", { class: "lab-prompt-echo" }, settings.prompt);
    ui.text.replaceChildren(promptEl);
    rounds.forEach((round, i) => { spans[i] = appendRound(ui.text, round, i); });
    outline();
  }

  function outline() {
    for (const s of ui.text.querySelectorAll(".cur")) s.classList.remove("cur");
    if (shown >= 0 && spans[shown]) spans[shown].forEach((s) => s.classList.add("cur"));
  }

  function drawCounters() {
    const c = decoder ? decoder.counters : null;
    const alpha = c ? alphaOf(c) : null;
    const plain = settings.method === "plain";
    ui.counters.replaceChildren(
      readoutBox(c ? grouped(c.emitted) + " / " + grouped(settings.chars) : "—", t({ zh: "已生成的字", en: "characters written" })),
      readoutBox(c ? grouped(c.mainForwards) : "—", t({ zh: "主模型 forward 次数（每轮一次）", en: "main forwards (one per round)" })),
      readoutBox(c ? grouped(c.drafterForwards) : "—", t(settings.method === "ngram" ? { zh: "查表次数", en: "table look-ups" } : { zh: "草稿员 forward 次数", en: "drafter forwards" })),
      readoutBox(c && c.mainForwards ? fixed(c.emitted / c.mainForwards, 2) : "—", t({ zh: "每次主模型 forward 得到的字数", en: "characters per main forward" })),
      readoutBox(plain ? "—" : alpha === null ? "—" : fixed(alpha, 3), plain ? t({ zh: "实测 α：普通解码没有草稿", en: "measured α: plain decoding has no drafts" })
        : t({ zh: `实测 α = 接受 ${c ? c.accepted : 0} ÷ 检查 ${c ? c.checked : 0}`, en: `measured α = ${c ? c.accepted : 0} accepted ÷ ${c ? c.checked : 0} checked` })),
      readoutBox(c ? `${fixed(c.mainMs, 0)} / ${fixed(c.drafterMs, 0)}` : "—", t({ zh: "计算时间（毫秒）：主模型 / 草稿员", en: "computing ms: main / drafter" })),
    );
  }

  function drawRound() {
    const round = shown >= 0 ? rounds[shown] : null;
    ui.roundTitle.textContent = round
      ? t({ zh: `第 ${round.index} 轮，共 ${rounds.length} 轮`, en: `Round ${round.index} of ${rounds.length}` })
      : t({ zh: "还没有走任何一轮", en: "No round yet" });
    if (!round) {
      ui.summary.textContent = decoder ? t({ zh: "按“走一轮”开始。", en: "Press “Step” to begin." }) : "";
      ui.drafts.replaceChildren();
      ui.draftsCaption.textContent = "";
      ui.nextLine.textContent = "";
      ui.cache.replaceChildren();
      return;
    }
    const vocab = lab.vocab;
    ui.summary.textContent = t(roundSummary(round, vocab));
    const head = h("tr", {}, [
      "#", t({ zh: "草稿 d", en: "draft d" }), "q(d)", "p(d)", "u", "min(1, p/q)", t({ zh: "判决", en: "verdict" }),
    ].map((x) => h("th", { scope: "col" }, x)));
    const body = round.drafts.map((d, i) => {
      const ratio = Math.min(1, round.p[i] / round.q[i]);
      const v = round.verdicts[i];
      return h("tr", { class: `v-${v}` },
        h("th", { scope: "row" }, String(i + 1)),
        h("td", { class: "ch" }, quoted(vocab[d])),
        h("td", { class: "num" }, prob(round.q[i])),
        h("td", { class: "num" }, prob(round.p[i])),
        // after the first rejection nothing is compared: u was drawn (as in Python) but not used
        h("td", { class: "num" }, v === "unchecked" ? "—" : fixed(round.u[i], 3)),
        h("td", { class: "num" }, v === "unchecked" ? "—" : prob(ratio)),
        h("td", { class: "verdict" }, t(VERDICT[v])));
    });
    const caption = round.drafts.length
      ? t({ zh: `${round.drafts.length} 个草稿：u < min(1, p/q) 就接受，遇到第一个拒绝就停下`, en: `${round.drafts.length} draft${round.drafts.length === 1 ? "" : "s"}: accepted while u < min(1, p/q), stopping at the first rejection` })
      : t({ zh: "这一轮没有草稿", en: "No drafts this round" });
    ui.draftsCaption.textContent = caption;
    ui.drafts.replaceChildren(...(round.drafts.length ? [h("thead", {}, head), h("tbody", {}, body)] : []));
    ui.drafts.closest(".table-scroll").hidden = !round.drafts.length;
    ui.nextLine.textContent = t(nextLine(round, vocab, settings.temperature));
    drawCache(round);
  }

  // kv-cache rows: the rows already held, then each row fed this round, kept or rolled back
  function cacheRow(name, view, charAt) {
    const MAX = 14;
    const cells = [];
    if (view.before) cells.push(h("span", { class: "cell old" }, `${grouped(view.before)}`));
    let from = view.before;
    if (view.fed > MAX) {
      const skip = view.fed - (MAX - 2);
      cells.push(h("span", { class: "cell kept more" }, `+${skip}`));
      from += skip;
    }
    for (let j = from; j < view.before + view.fed; j++) {
      const kept = j < view.kept;
      cells.push(h("span", { class: `cell ${kept ? "kept" : "gone"}` }, charLabel(lab.vocab[charAt(j)] ?? "?")));
    }
    const note = t({
      zh: `原有 ${view.before} 行，这一轮写入 ${view.fed} 行、回滚其中 ${view.rolledBack} 行，现在共 ${view.kept} 行`,
      en: `held ${view.before} rows, wrote ${view.fed} this round and rolled back ${view.rolledBack} of them: ${view.kept} rows now`,
    });
    return h("div", { class: "lab-cache-row" },
      h("span", { class: "lab-cache-name" }, name),
      h("span", { class: "lab-cells", "aria-hidden": "true" }, cells),
      h("span", { class: "lab-cache-note" }, note));
  }

  function drawCache(round) {
    const seqRound = round.seqBefore.concat(round.drafts);
    const at = (j) => seqRound[j];
    const rows = [cacheRow(t({ zh: "主模型", en: "main model" }), round.cache.main, at)];
    if (round.cache.drafter) {
      const mtp = settings.method === "mtp";
      rows.push(cacheRow(t(mtp ? { zh: "MTP 头", en: "MTP head" } : { zh: "草稿模型", en: "draft model" }), round.cache.drafter, mtp ? (j) => seqRound[j + 1] : at));
    } else {
      rows.push(h("p", { class: "caption" }, t(settings.method === "ngram"
        ? { zh: `n-gram 表没有 kv cache：它每次只查最后 ${meta.ngram.order - 1} 个字，被拒的草稿不留下任何要回滚的东西。`, en: `The n-gram table has no kv cache: it looks up the last ${meta.ngram.order - 1} characters each time, and a rejected draft leaves nothing to roll back.` }
        : { zh: "普通解码没有草稿员，主模型的缓存也从不回滚。", en: "Plain decoding has no drafter, and the main model's cache never rolls back." })));
    }
    const legend = h("div", { class: "legend", "aria-hidden": "true" },
      h("span", {}, h("span", { class: "swatch cell-old" }), t({ zh: "之前就在缓存里的行", en: "rows held before" })),
      h("span", {}, h("span", { class: "swatch cell-kept" }), t({ zh: "这一轮写入、留下", en: "written this round, kept" })),
      h("span", {}, h("span", { class: "swatch cell-gone" }), t({ zh: "这一轮写入、回滚", en: "written this round, rolled back" })));
    ui.cache.replaceChildren(h("p", { class: "lab-cache-title" }, t({ zh: "kv cache 的行（每个位置一行）", en: "kv-cache rows (one per position)" })), ...rows, legend);
  }

  function drawAll() {
    outline();
    drawCounters();
    drawRound();
    drawButtons();
    drawRace();
  }

  // ---- the race ----
  function laneName(method) {
    const g = effectiveGamma(method, settings.gamma);
    return method === "plain" ? t(METHOD_SHORT.plain) : `${t(METHOD_SHORT[method])} · γ = ${g}`;
  }

  function laneStats(lane) {
    const c = lane.dec.counters;
    const cps = lane.ms > 0 ? c.emitted / (lane.ms / 1000) : 0;
    // no-break spaces: a number never wraps away from its unit
    return t({ zh: `${c.emitted}\u00a0字 · ${c.mainForwards}\u00a0次主模型 forward · ${fixed(lane.ms, 0)}\u00a0毫秒 · 每秒\u00a0${fixed(cps, 0)}\u00a0字`,
      en: `${c.emitted}\u00a0chars · ${c.mainForwards} main forwards · ${fixed(lane.ms, 0)}\u00a0ms · ${fixed(cps, 0)}\u00a0chars/s` });
  }

  let lanes = null;

  async function race() {
    if (!lab || busy || settings.method === "plain" || !decoder) return;
    pause();
    const token = ++raceToken;
    busy = true;
    raceResult = null;
    const n = intInRange(ui.raceN.value, 20, 1000, 200);
    ui.raceN.value = String(n);
    raceSettings = { ...settings, n };
    const common = { gamma: settings.gamma, temperature: settings.temperature, seed: settings.seed, prompt: promptIds, maxChars: n };
    lanes = ["plain", settings.method].map((method, i) => {
      const el = i === 0 ? ui.lanes.plain : ui.lanes.spec;
      el.querySelector(".lab-lane-text").replaceChildren(h("span", { class: "lab-prompt-echo" }, settings.prompt));
      return { method, el, dec: newDecoder(lab, { ...common, method }), ms: 0 };
    });
    ui.identical.textContent = "";
    delete ui.identical.dataset.identical;
    ui.raceReadouts.replaceChildren();
    ui.raceVerdict.textContent = "";
    say(ui.raceNote, { zh: "赛跑中……", en: "Racing…" });
    drawButtons();
    drawRace();
    let lastYield = performance.now();
    while (lanes.some((l) => !l.dec.done)) {
      const lane = lanes.filter((l) => !l.dec.done).reduce((a, b) => (a.ms <= b.ms ? a : b));
      const t0 = performance.now();
      const round = lane.dec.step();
      lane.ms += performance.now() - t0;
      if (round) appendRound(lane.el.querySelector(".lab-lane-text"), round);
      if (performance.now() - lastYield > 30) {
        drawLaneStats();
        await new Promise((resolve) => setTimeout(resolve, 0));
        lastYield = performance.now();
        if (token !== raceToken) { busy = false; say(ui.raceNote, { zh: "设置变了，赛跑已停止。", en: "The settings changed; the race stopped." }); drawButtons(); return; }
      }
    }
    drawLaneStats();
    say(ui.raceNote, { zh: "正在测这个浏览器里的 c 和验收代价……", en: "Measuring c and the verify's price in this browser…" });
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (token !== raceToken) { busy = false; drawButtons(); return; }
    const [plainLane, specLane] = lanes;
    const g = effectiveGamma(settings.method, settings.gamma);
    if (costs.resolution === null) costs.resolution = timerResolution();
    if (!costs.verify.has(g)) {
      costs.verify.set(g, verifyCostRatio(lab, g));
    }
    if (!costs.drafter.has(settings.method)) {
      costs.drafter.set(settings.method, drafterCost(lab, settings.method));
    }
    const c = costs.drafter.get(settings.method), verify = costs.verify.get(g);
    const sc = specLane.dec.counters, alpha = alphaOf(sc);
    const a = plainLane.dec.tokens, b = specLane.dec.tokens;
    let mismatch = -1;
    for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) { mismatch = i; break; }
    raceResult = {
      method: settings.method, gamma: g, temperature: settings.temperature, n,
      identical: mismatch < 0, mismatch,
      plainMs: plainLane.ms, specMs: specLane.ms, speedup: plainLane.ms / specLane.ms,
      alpha, tokens: sc.emitted / sc.mainForwards, c, verify, resolution: costs.resolution,
      theory: alpha === null ? null : speedupTheory(alpha, g, c),
      withVerify: alpha === null ? null : expectedTokens(alpha, g) / (g * c + verify),
      plainForwardMs: plainLane.dec.counters.mainMs / plainLane.dec.counters.mainForwards,
    };
    busy = false;
    say(ui.raceNote, null);
    drawButtons();
    drawRace();
  }

  function drawLaneStats() {
    if (!lanes) return;
    for (const lane of lanes) {
      lane.el.querySelector(".lab-lane-name").textContent = laneName(lane.method);
      lane.el.querySelector(".lab-lane-stats").textContent = laneStats(lane);
    }
  }

  function drawRace() {
    ui.lanes.plain.parentElement.hidden = !lanes;
    if (!lanes) return;
    drawLaneStats();
    const r = raceResult;
    if (!r) return;
    ui.identical.dataset.identical = String(r.identical);
    ui.identical.className = `lab-identical ${r.identical ? "good" : r.temperature === 0 ? "warn" : ""}`;
    ui.identical.textContent = t(r.temperature === 0
      ? r.identical
        ? { zh: `T = 0：两边的 ${r.n} 个字逐字相同。投机解码写出的正是主模型的贪心文本。`, en: `T = 0: the two texts are identical, all ${r.n} characters. Speculative decoding wrote exactly the main model's greedy text.` }
        : { zh: `T = 0：两边在第 ${r.mismatch + 1} 个字处不同。这不应该发生，请报告这个网址。`, en: `T = 0: the two texts differ at character ${r.mismatch + 1}. That should never happen; please report this address.` }
      : r.identical
        ? { zh: "T > 0：这一次两边的文字碰巧相同。", en: "T > 0: this time the two texts happen to be the same." }
        : { zh: `T = ${fixed(r.temperature, 1)}：两边的文字不同，这是正常的。两边都服从主模型的分布，但抽随机数的方式不同；把 T 调到 0，两边就逐字相同。`, en: `T = ${fixed(r.temperature, 1)}: the texts differ, as they should. Both follow the main model's distribution but draw their random numbers differently; set T to 0 and they match character for character.` });
    const x = (v) => (v === null ? "—" : `${fixed(v, 2)}×`);
    ui.raceReadouts.replaceChildren(
      readoutBox(x(r.speedup), t({ zh: `实测加速（普通 ${fixed(r.plainMs, 0)} 毫秒 ÷ 投机 ${fixed(r.specMs, 0)} 毫秒）`, en: `measured speedup (plain ${fixed(r.plainMs, 0)} ms ÷ speculative ${fixed(r.specMs, 0)} ms)` }), r.speedup >= 1 ? "good" : "warn"),
      readoutBox(r.alpha === null ? "—" : fixed(r.alpha, 3), t({ zh: `实测 α；每次主模型 forward 得到 ${fixed(r.tokens, 2)} 个字`, en: `measured α; ${fixed(r.tokens, 2)} characters per main forward` })),
      readoutBox(fixed(r.c, 3), t({ zh: `c：起草一步 ÷ 一次单个位置的主模型 forward（这个浏览器；${timingNote(r.resolution).zh}）`, en: `c: one drafting step ÷ one single-position main forward (this browser; ${timingNote(r.resolution).en})` })),
      readoutBox(fixed(r.verify, 2), t({ zh: `r：验收 ${r.gamma + 1} 个位置 ÷ 1 个位置的 forward（这个浏览器，计时同 c；PyTorch 在本章 CPU 上约 ${fixed(verifyPyTorch(r.gamma), 2)}）`, en: `r: verifying ${r.gamma + 1} positions ÷ a 1-position forward (this browser, timed as c is; PyTorch on this chapter's CPU: ${fixed(verifyPyTorch(r.gamma), 2)})` })),
      readoutBox(x(r.theory), t({ zh: "定理 3.8 的预测（验收算 1 次 forward）", en: "Theorem 3.8's prediction (a verify priced at 1 forward)" })),
      readoutBox(x(r.withVerify), t({ zh: "把验收的价钱换成实测的 r 之后的预测", en: "the prediction with the verify priced at the measured r" })),
    );
    ui.raceVerdict.textContent = t(raceVerdict(r));
  }

  function verifyPyTorch(g) {
    const v = data.ledger.forward_costs.kvcache.verify_over_main[String(g)];
    return v === undefined ? NaN : v;
  }

  // ---- the ledger's settings, run here (the comparison table) ----
  async function runCompare() {
    if (!lab || busy) return;
    pause();
    busy = true;
    drawButtons();
    const lg = data.ledger;
    const prompt = encodePrompt(lab, lg.prompt).ids;
    const rows = [...ui.compare.querySelectorAll("tbody tr")].filter((tr) => tr.dataset.method !== "plain");
    for (const tr of rows) { tr.querySelector(".live-alpha").textContent = "…"; tr.querySelector(".live-tokens").textContent = "…"; }
    for (const [i, tr] of rows.entries()) {
      const method = tr.dataset.method, gamma = Number(tr.dataset.gamma);
      delete ui.compareStatus.dataset.done;
      say(ui.compareStatus, { zh: `正在跑第 ${i + 1} 行，共 ${rows.length} 行……`, en: `Running row ${i + 1} of ${rows.length}…` });
      const dec = newDecoder(lab, { method, gamma, temperature: lg.temperature, seed: settings.seed, prompt, maxChars: lg.n_chars });
      let lastYield = performance.now();
      while (dec.step()) {
        if (performance.now() - lastYield > 30) {
          await new Promise((resolve) => setTimeout(resolve, 0));
          lastYield = performance.now();
        }
      }
      const c = dec.counters, alpha = alphaOf(c);
      tr.querySelector(".live-alpha").textContent = alpha === null ? "—" : fixed(alpha, 3);
      tr.querySelector(".live-tokens").textContent = fixed(c.emitted / c.mainForwards, 2);
    }
    say(ui.compareStatus, { zh: `完成：每行 ${lg.n_chars} 个字，种子 ${settings.seed}。`, en: `Done: ${lg.n_chars} characters per row, seed ${settings.seed}.` });
    ui.compareStatus.dataset.done = "true";
    busy = false;
    drawButtons();
  }

  // ---- events ----
  function change(key, value) {
    settings = { ...settings, [key]: value };
    hashSet(LAB_HASH[key], value);
    labelControls();
    startOver();
  }

  // new settings: the race and its note are stale, the decoder starts again from the prompt
  function startOver() {
    lanes = null;
    raceResult = null;
    if (!busy) say(ui.raceNote, null);
    clearRace();
    restart();
  }

  function clearRace() {
    for (const el of [ui.lanes.plain, ui.lanes.spec]) {
      el.querySelector(".lab-lane-text").replaceChildren();
      el.querySelector(".lab-lane-stats").textContent = "";
    }
    ui.identical.textContent = "";
    delete ui.identical.dataset.identical;
    ui.raceReadouts.replaceChildren();
    ui.raceVerdict.textContent = "";
  }

  ui.prompt.addEventListener("input", () => change("prompt", ui.prompt.value));
  ui.method.addEventListener("change", () => change("method", ui.method.value));
  ui.gamma.addEventListener("input", () => change("gamma", Number(ui.gamma.value)));
  ui.temp.addEventListener("input", () => change("temperature", Math.round(Number(ui.temp.value) * 10) / 10));
  ui.seed.addEventListener("change", () => {
    const seed = intInRange(ui.seed.value, 0, MAX_SEED, settings.seed);
    ui.seed.value = String(seed);
    change("seed", seed);
  });
  ui.chars.addEventListener("change", () => {
    const n = intInRange(ui.chars.value, 10, 1000, settings.chars);
    ui.chars.value = String(n);
    change("chars", n);
  });
  // an address edited by hand (or a followed #link) applies at once, as in the other widgets;
  // hashSet fires no hashchange, so the lab never hears its own writes
  onHashChange((hash) => {
    const next = readSettings((key) => ownEntry(hash, key));
    if (Object.keys(next).every((key) => next[key] === settings[key])) return;
    settings = next;
    showSettings();
    startOver();
  });
  ui.step.addEventListener("click", () => stepOnce());
  ui.play.addEventListener("click", play);
  ui.pause.addEventListener("click", () => pause());
  ui.reset.addEventListener("click", () => restart());
  ui.prev.addEventListener("click", () => { if (shown > 0) { shown -= 1; drawAll(); } });
  ui.next.addEventListener("click", () => { if (shown < rounds.length - 1) { shown += 1; drawAll(); } });
  ui.raceGo.addEventListener("click", race);
  ui.compareGo.addEventListener("click", runCompare);

  onLangChange(() => {
    labelControls();
    for (const [el, msg] of said) el.textContent = msg ? t(msg) : "";
    if (!lab) return;
    drawText();
    drawAll();
  });

  showSettings();
  drawRace();
  if ("IntersectionObserver" in window) {
    const seen = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) { seen.disconnect(); ensureLoaded(); }
    }, { rootMargin: "200px 0px" });
    seen.observe(box);
  } else {
    window.addEventListener("scroll", function once() {
      if (box.getBoundingClientRect().top < innerHeight + 200) { window.removeEventListener("scroll", once); ensureLoaded(); }
    }, { passive: true });
  }
}
