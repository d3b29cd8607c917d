// Section ⑧, the lab: the trained models run in the reader's browser (lab_model.js, lab_decode.js).
// Nothing heavy happens at page load: the weights in <script id="lab-data"> are parsed and unpacked
// the first time the lab's fold is open and in view. Then the reader steps speculative decoding one round at
// a time (drafts, p and q, u, verdicts, the residual or bonus draw, the kv-cache rows kept and
// rolled back), races it against plain decoding, and runs the ledger's settings in the browser.
// This file holds the lab's state and its events; lab_round.js draws the round view, lab_race.js
// runs the race and the ledger's rows, and lab_text.js writes every sentence.
import { onLangChange, t } from "./i18n.js";
import { encodePrompt, newDecoder } from "./lab_decode.js";
import { initHeavyRace } from "./lab_heavy_view.js";
import { pageKernel, pageLab } from "./lab_load.js";
import { DRAFT_SIZES } from "./lab_clock.js";
import { clearRace, drawGpu, drawRace, newRace, runCompare, runRace } from "./lab_race.js";
import { appendRound, drawCounters, drawRound, drawText, outline } from "./lab_round.js";
import {
  gammaOut, GPU_HASH, GPU_LABELS, LAB_HASH, loadError, mainPresetLabel, MAX_SEED, methodLabel, paramsLabel, promptProblem,
  raceButton, readGpu, readSettings, readyNote, sameSettings, temperatureOut, UNPACKING,
} from "./lab_text.js";
import { DEVICES, MAIN_PRESETS } from "./roofline.js";
import { hashGet, hashSet, intInRange, onHashChange, ownEntry } from "./state.js";

const PLAY_MS = 250;

// The lab's state: its settings, the models once loaded, the step-by-step decoder with the rounds
// it has stepped (and the text's spans of each), the round on show, the play timer, whether a race
// or the ledger's rows are running, and the race (lab_race.js).
export function newLabState(settings, ledger, gpu) {
  return { settings, ledger, gpu, lab: null, decoder: null, promptIds: [], seq: [], rounds: [], spans: [], shown: -1,
    playTimer: null, busy: false, race: newRace() };
}

export function canStep(st) {
  return st.lab !== null && st.decoder !== null && !st.decoder.done;
}

// Which buttons are off in this state, by their name in the lab's ui.
export function disabledButtons(st) {
  const ok = canStep(st) && !st.busy;
  return {
    step: !ok, play: !ok || st.playTimer !== null, pause: st.playTimer === null, reset: st.busy,
    raceGo: !st.lab || st.busy || !st.decoder || st.settings.method === "plain", compareGo: !st.lab || st.busy,
    prev: st.shown <= 0, next: st.shown < 0 || st.shown >= st.rounds.length - 1,
  };
}

function labUi() {
  const $ = (id) => document.getElementById(id);
  return {
    status: $("lab-status"), body: $("lab-ui"), prompt: $("lab-prompt-text"), promptMsg: $("lab-prompt-msg"),
    method: $("lab-method"), gamma: $("lab-gamma"), gammaOut: $("lab-gamma-out"), temp: $("lab-temp"),
    tempOut: $("lab-temp-out"), seed: $("lab-seed"), chars: $("lab-chars"), step: $("lab-step"), play: $("lab-play"),
    pause: $("lab-pause"), reset: $("lab-reset"), text: $("lab-text"), counters: $("lab-counters"),
    prev: $("lab-prev"), next: $("lab-next"), roundTitle: $("lab-round-title"), summary: $("lab-summary"),
    drafts: $("lab-drafts"), draftsCaption: $("lab-drafts-caption"), nextLine: $("lab-next-line"), cache: $("lab-cache"),
    raceN: $("lab-race-n"), raceGo: $("lab-race-go"), raceNote: $("lab-race-note"), identical: $("lab-identical"),
    raceReadouts: $("lab-race-readouts"), raceVerdict: $("lab-race-verdict"),
    lanes: { plain: $("lab-lane-plain"), spec: $("lab-lane-spec") },
    gpuControls: $("lab-gpu-controls"), gpuResult: $("lab-gpu-result"), gpuReadouts: $("lab-gpu-readouts"),
    gpuVerdict: $("lab-gpu-verdict"),
    compareGo: $("lab-compare-go"), compareStatus: $("lab-compare-status"), compare: $("lab-compare"),
  };
}

// settings -> controls (also before the models load: a shared link shows its settings at once)
function showSettings(ui, s) {
  if (ui.prompt.value !== s.prompt) ui.prompt.value = s.prompt;
  ui.method.value = s.method;
  ui.gamma.value = String(s.gamma);
  ui.temp.value = String(s.temperature);
  ui.seed.value = String(s.seed);
  ui.chars.value = String(s.chars);
  labelControls(ui, s);
}

function labelControls(ui, s) {
  for (const option of ui.method.options) option.textContent = t(methodLabel(option.value));
  ui.gamma.disabled = s.method === "plain" || s.method === "mtp";
  ui.gammaOut.textContent = gammaOut(s);
  ui.tempOut.textContent = t(temperatureOut(s.temperature));
  ui.raceGo.textContent = t(raceButton(s.method));
}

// The modelled clock's three selects (device, main model, draft model size), drawn again when the
// language changes; the draft size only matters for the draft model.
function drawGpuControls(ui, st, onPick) {
  const select = (key, items, value) => {
    const el = document.createElement("select");
    el.setAttribute("aria-label", t(GPU_LABELS[key]));
    for (const [id, text] of items) {
      const option = document.createElement("option");
      Object.assign(option, { value: String(id), textContent: text, selected: String(id) === String(value) });
      el.append(option);
    }
    el.addEventListener("change", () => onPick(key, el.value));
    const label = document.createElement("label");
    label.append(`${t(GPU_LABELS[key])} `, el);
    return { label, el };
  };
  const device = select("device", DEVICES.map((d) => [d.id, d.name]), st.gpu.device);
  const main = select("main", MAIN_PRESETS.map((m) => [m.id, mainPresetLabel(m)]), st.gpu.main);
  const draft = select("draft", DRAFT_SIZES.map((size) => [size, paramsLabel(size)]), st.gpu.draft);
  draft.el.disabled = st.settings.method !== "draft";
  ui.gpuControls.replaceChildren(device.label, main.label, draft.label);
}

function drawButtonStates(ui, st) {
  for (const [name, off] of Object.entries(disabledButtons(st))) ui[name].disabled = off;
}

// Everything the state shows: the shown round outlined in the text, the counters, the round view,
// the buttons and the race.
function drawLab(ui, st, meta) {
  outline(ui.text, st);
  drawCounters(ui.counters, st);
  drawRound(ui, st, meta.ngram.order);
  drawButtonStates(ui, st);
  drawRace(ui, st);
}

export function initLab(data) {
  const box = document.getElementById("lab-widget");
  const fold = document.getElementById("lab-fold");
  const ui = labUi();
  const meta = data.lab_meta;
  const st = newLabState(readSettings(hashGet), data.ledger, readGpu(hashGet));
  let loading = null;
  // messages that must follow the language: element -> {zh, en} (null: empty)
  const said = new Map();
  const say = (el, msg) => { said.set(el, msg); el.textContent = msg ? t(msg) : ""; };
  const drawButtons = () => drawButtonStates(ui, st);
  const drawAll = () => drawLab(ui, st, meta);
  const hooks = { say, drawButtons };
  const heavy = initHeavyRace({ box: document.getElementById("lab-heavy"), kernelNote: document.getElementById("lab-kernel-note"),
    forwardNote: document.getElementById("lab-heavy-forward"), rkTitle: document.getElementById("lab-heavy-rk-title"),
    scale: document.getElementById("lab-heavy-scale"), go: document.getElementById("lab-heavy-go"),
    note: document.getElementById("lab-heavy-note"), race: document.getElementById("lab-heavy-race"),
    legend: document.getElementById("lab-heavy-legend"),
    rk: document.getElementById("lab-heavy-rk"), says: document.getElementById("lab-heavy-says") },
  data.regime, { getLab: pageLab, newKernel: pageKernel, prompt: () => st.promptIds, say });

  function setStatus(msg, state) {
    say(ui.status, msg);
    if (state) box.dataset.state = state;
  }

  // ---- loading, on first sight ----
  function ensureLoaded() {
    if (loading) return loading;
    loading = (async () => {
      setStatus(UNPACKING, "loading");
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));  // paint the line first
      const t0 = performance.now();
      try {
        performance.mark("lab-parse-start");
        st.lab = await pageLab();
        performance.mark("lab-ready");
      } catch (err) {
        setStatus(loadError(err && err.message ? err.message : String(err)), "error");
        return;
      }
      setStatus(readyNote(Math.round(performance.now() - t0), meta), "ready");
      ui.body.hidden = false;
      ui.compareGo.disabled = false;
      heavy.ready(st.lab.kernel);
      restart();
      // a first few rounds, so the round view teaches before anything is touched
      for (let i = 0; i < 3 && canStep(st); i++) stepOnce();
    })();
    return loading;
  }

  // ---- the step-by-step decoder ----
  function restart() {
    pause();
    st.race.token += 1;  // a running race stops at its next pause
    Object.assign(st, { decoder: null, rounds: [], spans: [], shown: -1 });
    if (!st.lab) return;
    const { ids, unknown } = encodePrompt(st.lab, st.settings.prompt);
    const bad = promptProblem(st.settings.prompt, unknown);
    ui.promptMsg.hidden = !bad;
    say(ui.promptMsg, bad);
    ui.prompt.setAttribute("aria-invalid", String(Boolean(bad)));
    st.promptIds = ids;
    st.seq = ids.slice();
    if (!bad) {
      const { method, gamma, temperature, seed, chars } = st.settings;
      st.decoder = newDecoder(st.lab, { method, gamma, temperature, seed, prompt: ids, maxChars: chars });
    }
    drawText(ui.text, st);
    drawAll();
  }

  function stepOnce() {
    if (!canStep(st)) return false;
    const before = st.seq.slice();
    const round = st.decoder.step();
    if (!round) return false;
    round.seqBefore = before;
    st.rounds.push(round);
    st.seq.push(...round.emitted);
    st.spans.push(appendRound(ui.text, round, st.lab.vocab, st.rounds.length - 1));
    st.shown = st.rounds.length - 1;
    drawAll();
    return true;
  }

  function play() {
    if (!canStep(st) || st.playTimer !== null) return;
    const tick = () => {
      if (!stepOnce() || !canStep(st)) { pause(true); return; }
      st.playTimer = setTimeout(tick, PLAY_MS);
    };
    st.playTimer = setTimeout(tick, 0);
    drawButtons();
    ui.pause.focus();
  }

  function pause(fromPlay = false) {
    if (st.playTimer !== null) clearTimeout(st.playTimer);
    const was = st.playTimer !== null;
    st.playTimer = null;
    drawButtons();
    if (was && fromPlay !== true && document.activeElement === ui.pause) ui.play.focus();
    if (was && fromPlay === true && document.activeElement === ui.pause) ui.reset.focus();
  }

  // ---- events ----
  function change(key, value) {
    st.settings = { ...st.settings, [key]: value };
    hashSet(LAB_HASH[key], value);
    labelControls(ui, st.settings);
    drawGpuControls(ui, st, pickGpu);
    startOver();
  }

  // the modelled clock prices the race already run: no need to run it again
  function pickGpu(key, value) {
    st.gpu = { ...st.gpu, [key]: key === "draft" ? Number(value) : value };
    hashSet(GPU_HASH[key], value);
    drawGpu(ui, st);
  }

  // new settings: the race and its note are stale, the decoder starts again from the prompt
  function startOver() {
    st.race.lanes = null;
    st.race.result = null;
    if (!st.busy) say(ui.raceNote, null);
    clearRace(ui);
    restart();
  }

  ui.prompt.addEventListener("input", () => change("prompt", ui.prompt.value));
  ui.method.addEventListener("change", () => change("method", ui.method.value));
  ui.gamma.addEventListener("input", () => change("gamma", Number(ui.gamma.value)));
  ui.temp.addEventListener("input", () => change("temperature", Math.round(Number(ui.temp.value) * 10) / 10));
  ui.seed.addEventListener("change", () => {
    const seed = intInRange(ui.seed.value, 0, MAX_SEED, st.settings.seed);
    ui.seed.value = String(seed);
    change("seed", seed);
  });
  ui.chars.addEventListener("change", () => {
    const n = intInRange(ui.chars.value, 10, 1000, st.settings.chars);
    ui.chars.value = String(n);
    change("chars", n);
  });
  // an address edited by hand (or a followed #link) applies at once, as in the other widgets;
  // hashSet fires no hashchange, so the lab never hears its own writes
  onHashChange((hash) => {
    const gpu = readGpu((key) => ownEntry(hash, key));
    if (Object.keys(gpu).some((key) => gpu[key] !== st.gpu[key])) {
      st.gpu = gpu;
      drawGpuControls(ui, st, pickGpu);
      drawGpu(ui, st);
    }
    const next = readSettings((key) => ownEntry(hash, key));
    if (sameSettings(next, st.settings)) return;
    st.settings = next;
    showSettings(ui, st.settings);
    startOver();
  });
  ui.step.addEventListener("click", () => stepOnce());
  ui.play.addEventListener("click", play);
  ui.pause.addEventListener("click", () => pause());
  ui.reset.addEventListener("click", () => restart());
  ui.prev.addEventListener("click", () => { if (st.shown > 0) { st.shown -= 1; drawAll(); } });
  ui.next.addEventListener("click", () => { if (st.shown < st.rounds.length - 1) { st.shown += 1; drawAll(); } });
  ui.raceGo.addEventListener("click", () => {
    if (!st.lab || st.busy || st.settings.method === "plain" || !st.decoder) return;
    pause();
    runRace(ui, st, hooks);
  });
  ui.compareGo.addEventListener("click", () => {
    if (!st.lab || st.busy) return;
    pause();
    runCompare(ui, st, data.lab_compare, hooks);
  });

  onLangChange(() => {
    heavy.redraw();
    labelControls(ui, st.settings);
    drawGpuControls(ui, st, pickGpu);
    for (const [el, msg] of said) el.textContent = msg ? t(msg) : "";
    if (!st.lab) return;
    drawText(ui.text, st);
    drawAll();
  });

  showSettings(ui, st.settings);
  drawGpuControls(ui, st, pickGpu);
  drawRace(ui, st);
  // the lab waits in a fold off the main path (an address with its settings opens it: data-hash-keys,
  // deep.js); the models load once the open fold is in view
  if ("IntersectionObserver" in window) {
    const seen = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) { seen.disconnect(); ensureLoaded(); }
    }, { rootMargin: "200px 0px" });
    seen.observe(box);
  } else {
    const check = () => {
      if (!fold.open || box.getBoundingClientRect().top >= innerHeight + 200) return;
      window.removeEventListener("scroll", check);
      fold.removeEventListener("toggle", check);
      ensureLoaded();
    };
    window.addEventListener("scroll", check, { passive: true });
    fold.addEventListener("toggle", check);
  }
}
