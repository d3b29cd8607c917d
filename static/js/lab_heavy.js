// Section ⑧, the reader's own machine: the lab's networks as heavy twins (lab_model.js heavyTwin,
// the widening of model.py's heavy_twin), built in this tab on request, then the price of a verify
// (r_k) and a paired race of plain decoding against the n-gram table, the draft model and the MTP
// head, all timed here. No DOM: lab_heavy_view.js draws what these return, tests/js/lab_heavy.test.mjs
// checks them.
import { mainForwardMs, newDecoder } from "./lab_decode.js";
import { pairedVerdict } from "./theory.js";

export const RACE_DRAFTERS = ["ngram", "draft", "mtp"];
export const RK_POSITIONS = [1, 2, 3, 4, 5, 6, 7, 8, 9];
export const WARMUP_CHARS = 16;

// The lab at `scale` on a fresh kernel (a memory of its own, so an earlier twin can be let go):
// every network widened by the same factor, as the dial's twins are; the n-gram table is a table.
// Returns the lab, the milliseconds the widening took and each network's bytes of float32 weights.
export function buildHeavyLab(lab, scale, kernel, now = () => performance.now()) {
  const t0 = now();
  const main = lab.main.on(kernel).heavyTwin(scale, 0), draft = lab.draft.on(kernel).heavyTwin(scale, 1);
  const ms = now() - t0;
  return {
    lab: { ...lab, kernel: kernel.name, main, draft }, scale, ms,
    bytes: { main: 4 * main.params(), mtp: 4 * main.params(true), draft: 4 * draft.params(), memory: kernel.bytes ? kernel.bytes() : null },
  };
}

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b), mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const spread = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length });

// r_k: a main forward of k new positions over one of a single position, both at a context of 32,
// timed in turn `repeats` times (each time a batch of calls: lab_decode.js timePerCall); the median
// of the paired ratios, with their range, and the median one-position forward. `after` runs between
// two sizes (the page draws there).
export async function verifyPrices(lab, { positions = RK_POSITIONS, repeats = 3, after = async () => {} } = {}) {
  const ratios = new Map(positions.map((k) => [k, []])), oneMs = [];
  for (let i = 0; i < repeats; i++) {
    for (const k of positions) {
      const one = mainForwardMs(lab, 1);
      oneMs.push(one);
      ratios.get(k).push(k === 1 ? 1 : mainForwardMs(lab, k) / one);
      await after();
    }
  }
  return { mainMs: median(oneMs), r: Object.fromEntries([...ratios].map(([k, xs]) => [k, spread(xs)])) };
}

// One decode to the end, timing only its steps (the page draws in between): {ms, tokens, counters}.
// Steps run in stretches of at least STRETCH_MS, each timed whole: a page opened from a file reads
// the clock to 0.1 ms, the time of a few rounds of the models as trained.
export const STRETCH_MS = 20;
async function timedDecode(lab, settings, after) {
  const dec = newDecoder(lab, settings);
  let ms = 0;
  for (let more = true; more;) {
    const t0 = performance.now();
    do more = dec.step() !== null; while (more && performance.now() - t0 < STRETCH_MS);
    ms += performance.now() - t0;
    if (more) await after();
  }
  return { ms, tokens: dec.tokens, counters: dec.counters };
}

// The race: `pairs` times, plain decoding and each drafter at its configuration (configs:
// {method: gamma}), every one with the pair's sampling seed; the drafters' order turns from pair
// to pair, and plain decoding runs first in even pairs and last in odd ones (a tab that speeds up
// or slows down during the race then does not favour one side in every pair). Each drafter's
// speedup per pair is that pair's plain time over its own; a verdict only where every pair agrees
// (theory.js pairedVerdict, the page's rule). First every decoder writes
// WARMUP_CHARS untimed (the engine compiles a code path on its first runs). onRun(pair, method) is
// told before each timed decode.
export async function pairedRace(lab, { configs, prompt, n, temperature = 1, pairs = 3, seed = 0, after = async () => {},
  onRun = () => {} }) {
  const methods = Object.keys(configs), runs = Object.fromEntries(methods.map((m) => [m, []]));
  const plainMs = [];
  for (const method of ["plain", ...methods]) {
    await timedDecode(lab, { prompt, maxChars: WARMUP_CHARS, temperature, seed, method, gamma: configs[method] }, after);
  }
  for (let pair = 0; pair < pairs; pair++) {
    const common = { prompt, maxChars: n, temperature, seed: seed + pair };
    const turned = methods.map((_, i) => methods[(i + pair) % methods.length]), done = {};
    for (const method of pair % 2 ? [...turned, "plain"] : ["plain", ...turned]) {
      onRun(pair, method);
      done[method] = await timedDecode(lab, { ...common, method, gamma: configs[method] }, after);
    }
    const plain = done.plain;
    plainMs.push(plain.ms);
    for (const method of methods) {
      const run = done[method];
      runs[method].push({ speedup: plain.ms / run.ms, ms: run.ms, counters: run.counters,
        sameText: run.tokens.length === plain.tokens.length && run.tokens.every((tok, i) => tok === plain.tokens[i]) });
    }
  }
  const rows = methods.map((method) => {
    const rs = runs[method], speedups = spread(rs.map((r) => r.speedup));
    const sum = (key) => rs.reduce((total, r) => total + r.counters[key], 0);
    return {
      method, gamma: configs[method], speedup: median(plainMs) / median(rs.map((r) => r.ms)), speedups,
      verdict: pairedVerdict(speedups), tokensPerMain: sum("emitted") / sum("mainForwards"),
      alpha: sum("checked") ? sum("accepted") / sum("checked") : null, sameText: rs.every((r) => r.sameText),
    };
  });
  return { pairs, n, temperature, plainMsPerChar: median(plainMs) / n, rows };
}
