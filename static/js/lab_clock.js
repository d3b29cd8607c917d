// Section ⑧'s second clock: the race's real decoding (its drafts, acceptances and forwards, run in
// this browser) priced as if a GPU ran a larger model, by section ①'s roofline (roofline.js).
// A forward over k positions of a model with P parameters costs max(reading the weights once,
// the arithmetic of k positions); the drafter's forwards cost the same for its own size, and an
// n-gram lookup costs nothing on the GPU. Arithmetic from datasheets, never a measurement: kernel
// launches, the kv cache's traffic and the CPU's share of a round are left out.
import { speedupTheory } from "./theory.js";
import { BYTES_PER_PARAM, DEVICES, MAIN_PRESETS, roofline } from "./roofline.js";

export const DRAFT_SIZES = [68e6, 0.5e9, 1e9, 3e9];  // the reader picks the draft model's size

// What each of the lab's drafters reads per forward, in parameters (0: a table lookup).
export function drafterParams(method, main, draftSize) {
  if (method === "draft") return draftSize;
  if (method === "mtp") {
    const layer = (main.params - main.vocab * main.width) / main.layers;
    return layer + 2 * main.width * main.width + main.vocab * main.width;
  }
  return 0;
}

// Do the main model and the drafter fit in the device's memory together (16-bit weights)?
export function fits(device, main, drafter) {
  return (main.params + drafter) * BYTES_PER_PARAM <= device.memory;
}

export function callMs(device, params, k) {
  return params ? 1e3 * roofline(device, params, k).step : 0;
}

// One lane's modelled time: `calls` = {main: [k, ...], drafter: [k, ...]}, the positions of every
// forward the lane ran (lab_decode.js records them).
export function laneMs(calls, clock) {
  const sum = (ks, params) => ks.reduce((total, k) => total + callMs(clock.device, params, k), 0);
  return sum(calls.main, clock.main.params) + sum(calls.drafter, clock.drafter);
}

// A modelled clock: the device, the main preset and the drafter's parameters.
export function makeClock({ deviceId, mainId, method, draftSize }) {
  const device = DEVICES.find((d) => d.id === deviceId), main = MAIN_PRESETS.find((m) => m.id === mainId);
  if (!device || !main) throw new Error(`no modelled clock for ${deviceId} / ${mainId}`);
  const drafter = drafterParams(method, main, draftSize);
  return { device, main, drafter, fits: fits(device, main, drafter) };
}

// The race priced by the clock, beside Theorem 3.8 at the clock's own costs: c = a drafter forward
// over a main forward, r = a verify of γ + 1 positions over a main forward of one (the theorem
// takes r = 1; here the roofline says what it is).
export function modelledRace(plainCalls, specCalls, clock, alpha, gamma) {
  const plainMs = laneMs(plainCalls, clock), specMs = laneMs(specCalls, clock);
  const one = callMs(clock.device, clock.main.params, 1);
  const c = callMs(clock.device, clock.drafter, 1) / one;
  const r = callMs(clock.device, clock.main.params, gamma + 1) / one;
  return {
    plainMs, specMs, speedup: plainMs / specMs, c, r, forwardMs: one,
    theory: alpha === null ? null : speedupTheory(alpha, gamma, c, r),
  };
}
