// Section ⑧, the race: plain decoding against the chosen method in the reader's browser, each side
// stepped in turn so that both have used the same computing time, then c and the verify's price
// timed here and set beside Theorem 3.8; and the ledger's settings run here (the comparison table,
// its rows from the chapter data's lab_compare). Both run on the lab's state (lab.js); the words
// come from lab_text.js.
import { h, readoutBox } from "./dom.js";
import { fixed } from "./format.js";
import { t } from "./i18n.js";
import { drafterCost, encodePrompt, newDecoder, timerResolution, verifyCostRatio } from "./lab_decode.js";
import { makeClock, modelledRace } from "./lab_clock.js";
import { appendRound } from "./lab_round.js";
import {
  alphaOf, compareDone, compareProgress, effectiveGamma, gpuDoesNotFit, gpuReadouts, gpuVerdict, identicalText, laneName,
  laneStats, RACE_NOTE, raceReadouts, raceVerdict,
} from "./lab_text.js";
import { intInRange } from "./state.js";
import { speedupTheory } from "./theory.js";

const YIELD_MS = 30;  // the longest stretch of decoding between two chances for the page to draw
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

// A race's state: `token` counts the lab's restarts (a running race stops when it moves on), the
// lanes while there are any, the result once timed, and the costs timed here (kept across races).
export function newRace() {
  return { token: 0, lanes: null, result: null, costs: { verify: new Map(), drafter: new Map(), resolution: null } };
}

// The first position where two token lists differ, or -1.
export function firstMismatch(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
}

// What the race found: the measured speedup beside Theorem 3.8 at the measured α and c, with the
// verify priced at one forward and at the r measured here.
export function raceResult({ settings, n, plainLane, specLane, c, verify, resolution }) {
  const g = effectiveGamma(settings.method, settings.gamma);
  const sc = specLane.dec.counters, alpha = alphaOf(sc);
  const mismatch = firstMismatch(plainLane.dec.tokens, specLane.dec.tokens);
  return {
    method: settings.method, gamma: g, temperature: settings.temperature, n,
    identical: mismatch < 0, mismatch,
    plainMs: plainLane.ms, specMs: specLane.ms, speedup: plainLane.ms / specLane.ms,
    alpha, tokens: sc.emitted / sc.mainForwards, c, verify, resolution,
    theory: alpha === null ? null : speedupTheory(alpha, g, c),
    withVerify: alpha === null ? null : speedupTheory(alpha, g, c, verify),
    plainForwardMs: plainLane.dec.counters.mainMs / plainLane.dec.counters.mainForwards,
    calls: { plain: plainLane.dec.calls, spec: specLane.dec.calls },
  };
}

// The race priced by the modelled clock of `gpu` (lab_text.readGpu's settings): both lanes from
// their second forward on (the prompt's forward is the same in both), and the clock itself.
export function gpuResult(r, gpu) {
  const clock = makeClock({ deviceId: gpu.device, mainId: gpu.main, method: r.method, draftSize: gpu.draft });
  // the prompt's forward is the same on both sides: the modelled clock prices the decoding after it
  const lane = (calls) => ({ main: calls.main.slice(1), drafter: calls.drafter });
  return { clock, modelled: modelledRace(lane(r.calls.plain), lane(r.calls.spec), clock, r.alpha, r.gamma) };
}

// hooks: say(el, msg) (a message that follows the language) and drawButtons().
export async function runRace(ui, st, hooks) {
  const race = st.race, settings = st.settings;
  const token = ++race.token;
  st.busy = true;
  race.result = null;
  const n = intInRange(ui.raceN.value, 20, 1000, 200);
  ui.raceN.value = String(n);
  const common = { gamma: settings.gamma, temperature: settings.temperature, seed: settings.seed, prompt: st.promptIds, maxChars: n };
  const lanes = ["plain", settings.method].map((method, i) => {
    const el = i === 0 ? ui.lanes.plain : ui.lanes.spec;
    el.querySelector(".lab-lane-text").replaceChildren(h("span", { class: "lab-prompt-echo" }, settings.prompt));
    return { method, el, dec: newDecoder(st.lab, { ...common, method }), ms: 0 };
  });
  race.lanes = lanes;
  clearResult(ui);
  hooks.say(ui.raceNote, RACE_NOTE.racing);
  hooks.drawButtons();
  drawRace(ui, st);
  const stopped = () => token !== race.token;
  let lastYield = performance.now();
  while (lanes.some((l) => !l.dec.done)) {
    // the side that has used less computing time steps next
    const lane = lanes.filter((l) => !l.dec.done).reduce((a, b) => (a.ms <= b.ms ? a : b));
    const t0 = performance.now();
    const round = lane.dec.step();
    lane.ms += performance.now() - t0;
    if (round) appendRound(lane.el.querySelector(".lab-lane-text"), round, st.lab.vocab);
    if (performance.now() - lastYield > YIELD_MS) {
      drawLaneStats(st);
      await nextTask();
      lastYield = performance.now();
      if (stopped()) { st.busy = false; hooks.say(ui.raceNote, RACE_NOTE.stopped); hooks.drawButtons(); return; }
    }
  }
  drawLaneStats(st);
  hooks.say(ui.raceNote, RACE_NOTE.costs);
  await nextTask();
  if (stopped()) { st.busy = false; hooks.drawButtons(); return; }
  const g = effectiveGamma(settings.method, settings.gamma), costs = race.costs;
  if (costs.resolution === null) costs.resolution = timerResolution();
  if (!costs.verify.has(g)) costs.verify.set(g, verifyCostRatio(st.lab, g));
  if (!costs.drafter.has(settings.method)) costs.drafter.set(settings.method, drafterCost(st.lab, settings.method));
  const [plainLane, specLane] = lanes;
  race.result = raceResult({ settings, n, plainLane, specLane, c: costs.drafter.get(settings.method),
    verify: costs.verify.get(g), resolution: costs.resolution });
  st.busy = false;
  hooks.say(ui.raceNote, null);
  hooks.drawButtons();
  drawRace(ui, st);
}

function drawLaneStats(st) {
  if (!st.race.lanes) return;
  for (const lane of st.race.lanes) {
    lane.el.querySelector(".lab-lane-name").textContent = t(laneName(lane.method, st.settings.gamma));
    lane.el.querySelector(".lab-lane-stats").textContent = t(laneStats(lane.dec.counters, lane.ms));
  }
}

// r at this γ for PyTorch on this chapter's CPU (ledger.json's kv-cache verify prices).
function verifyPyTorch(ledger, g) {
  const v = ledger.forward_costs.kvcache.verify_over_main[String(g)];
  return v === undefined ? NaN : v;
}

export function drawRace(ui, st) {
  const { lanes, result: r } = st.race;
  ui.lanes.plain.parentElement.hidden = !lanes;
  ui.gpuResult.parentElement.hidden = !(lanes && r);  // both clocks' results
  if (!lanes) return;
  drawLaneStats(st);
  if (!r) return;
  ui.identical.dataset.identical = String(r.identical);
  ui.identical.className = `lab-identical ${r.identical ? "good" : r.temperature === 0 ? "warn" : ""}`;
  ui.identical.textContent = t(identicalText(r));
  ui.raceReadouts.replaceChildren(...raceReadouts(r, verifyPyTorch(st.ledger, r.gamma))
    .map(({ value, key, cls }) => readoutBox(value, t(key), cls)));
  ui.raceVerdict.textContent = t(raceVerdict(r));
  drawGpu(ui, st);
}

// The modelled lane: redrawn when its device or sizes change, without running the race again.
export function drawGpu(ui, st) {
  const r = st.race.result;
  ui.gpuResult.hidden = !r;
  if (!r) return;
  const { clock, modelled } = gpuResult(r, st.gpu);
  ui.gpuResult.dataset.fits = String(clock.fits);
  ui.gpuReadouts.replaceChildren(...(clock.fits ? gpuReadouts(modelled, clock, r.gamma) : [])
    .map(({ value, key, cls }) => readoutBox(typeof value === "string" ? value : t(value), t(key), cls)));
  ui.gpuVerdict.textContent = t(clock.fits ? gpuVerdict(modelled, r.speedup, clock, r.gamma) : gpuDoesNotFit(clock));
}

function clearResult(ui) {
  ui.identical.textContent = "";
  delete ui.identical.dataset.identical;
  ui.raceReadouts.replaceChildren();
  ui.raceVerdict.textContent = "";
  ui.gpuReadouts.replaceChildren();
  ui.gpuVerdict.textContent = "";
  ui.gpuResult.hidden = true;
}

// New settings: the lanes' texts and figures go, and the result with them.
export function clearRace(ui) {
  for (const el of [ui.lanes.plain, ui.lanes.spec]) {
    el.querySelector(".lab-lane-text").replaceChildren();
    el.querySelector(".lab-lane-stats").textContent = "";
  }
  clearResult(ui);
}

// ---- the ledger's settings, run here ----

// The comparison rows the lab runs (plain decoding is the table's baseline), each with its row
// number in the table: lab_compare (chapter/views/lab.py) lists them in the table's order.
export function compareRuns(rows) {
  return rows.map((row, index) => ({ ...row, index })).filter((row) => row.method !== "plain");
}

export async function runCompare(ui, st, rows, hooks) {
  st.busy = true;
  hooks.drawButtons();
  const lg = st.ledger;
  const prompt = encodePrompt(st.lab, lg.prompt).ids;
  const runs = compareRuns(rows).map((row) => {
    const tr = ui.compare.tBodies[0].rows[row.index];
    return { row, alphaCell: tr.querySelector(".live-alpha"), tokensCell: tr.querySelector(".live-tokens") };
  });
  for (const { alphaCell, tokensCell } of runs) { alphaCell.textContent = "…"; tokensCell.textContent = "…"; }
  for (const [i, { row, alphaCell, tokensCell }] of runs.entries()) {
    delete ui.compareStatus.dataset.done;
    hooks.say(ui.compareStatus, compareProgress(i, runs.length));
    const dec = newDecoder(st.lab, { method: row.method, gamma: row.gamma, temperature: lg.temperature, seed: st.settings.seed,
      prompt, maxChars: lg.n_chars });
    let lastYield = performance.now();
    while (dec.step()) {
      if (performance.now() - lastYield > YIELD_MS) {
        await nextTask();
        lastYield = performance.now();
      }
    }
    const c = dec.counters, alpha = alphaOf(c);
    alphaCell.textContent = alpha === null ? "—" : fixed(alpha, 3);
    tokensCell.textContent = fixed(c.emitted / c.mainForwards, 2);
  }
  hooks.say(ui.compareStatus, compareDone(lg.n_chars, st.settings.seed));
  ui.compareStatus.dataset.done = "true";
  st.busy = false;
  hooks.drawButtons();
}
