// The lab's decoders, one round at a time, with experiments/speculative.py's semantics: plain
// decoding, a draft model proposing γ tokens, the MTP head proposing one, and the n-gram table
// proposing γ; the main model checks every draft in one forward and acceptReject (rule.js, the
// page's one acceptance rule) decides. Each round reports what the lab draws: the drafts, p and
// q of each, the uniforms, the verdicts, where the next token came from, and the kv-cache rows
// kept and rolled back. With T = 0 every method writes plain greedy's text, character for character.
import { acceptReject, mulberry32, residual, sampleIndex } from "./rule.js";

export const METHODS = ["plain", "draft", "mtp", "ngram"];
export const MAX_GAMMA = 8;

// Temperature divides the logits; T = 0 is a one-hot at the (first) argmax, as in Python.
export function probsFromLogits(logits, temperature) {
  const p = new Float64Array(logits.length);
  if (temperature === 0) {
    let best = 0;
    for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
    p[best] = 1;
    return p;
  }
  let top = -Infinity, sum = 0;
  for (const x of logits) top = Math.max(top, x / temperature);
  for (let i = 0; i < logits.length; i++) sum += (p[i] = Math.exp(logits[i] / temperature - top));
  for (let i = 0; i < p.length; i++) p[i] /= sum;
  return p;
}

// The n-gram table's q at temperature T, as ngram.py NgramTable.q: the log probabilities are the
// table's logits (counts^(1/T) underflows at small T; a char never seen after the context stays 0).
export function ngramQ(probs, temperature) {
  if (temperature === 1) return probs;
  return probsFromLogits(Array.from(probs, Math.log), temperature);
}

export function encodePrompt(lab, text) {
  const unknown = [...new Set([...text].filter((ch) => !lab.vocab.includes(ch)))];
  return { ids: unknown.length ? [] : [...text].map((ch) => lab.vocab.indexOf(ch)), unknown };
}

function timed(counter, fn) {
  const t0 = performance.now();
  const out = fn();
  counter.ms += performance.now() - t0;
  return out;
}

// The drafters. Each proposes g tokens after seq with their q rows, and forgets what the main
// model rejected. A model drafter keeps a kv cache; `cacheView` reports its rows for a round.
function modelDrafter(model) {
  const cache = model.newCache();
  return {
    cache,
    propose(seq, g, temperature, rand, clock) {
      const q = [], drafts = [];
      for (let i = 0; i < g; i++) {
        const ctx = seq.concat(drafts);
        const fed = ctx.slice(cache.length);
        const { logits } = timed(clock, () => model.forward(cache, fed));
        clock.forwards += 1;
        clock.positions.push(fed.length);
        q.push(probsFromLogits(logits[logits.length - 1], temperature));
        drafts.push(sampleIndex(q[i], rand));
      }
      return { q, drafts };
    },
    keep(n) { cache.rollback(Math.min(n, cache.length)); },
  };
}

function tableDrafter(ngram) {
  return {
    cache: null,
    propose(seq, g, temperature, rand, clock) {
      const q = [], drafts = [];
      for (let i = 0; i < g; i++) {
        const ctx = seq.slice(Math.max(0, seq.length - (ngram.order - 1))).concat(drafts);
        q.push(timed(clock, () => ngramQ(ngram.probs(ctx), temperature)));
        clock.forwards += 1;  // a lookup counts as the drafter's forward, as in ngram.py
        clock.positions.push(1);
        drafts.push(sampleIndex(q[i], rand));
      }
      return { q, drafts };
    },
    keep() {},
  };
}

// The MTP head drafts the token after the pending one from pairs (h_j, x_{j+1}) of positions the
// main model has processed; h comes from the main model's forwards (`hidden`, by position).
function headDrafter(model, hidden) {
  const cache = model.newMtpCache();
  return {
    cache,
    propose(seq, g, temperature, rand, clock, mainLength) {
      if (!g) return { q: [], drafts: [] };
      const first = cache.length;
      const pairs = [], next = [];
      for (let j = first; j < mainLength; j++) { pairs.push(hidden[j]); next.push(seq[j + 1]); }
      const logits = timed(clock, () => model.mtpForward(cache, pairs, next));
      clock.forwards += 1;
      clock.positions.push(pairs.length);
      const q = [probsFromLogits(logits[logits.length - 1], temperature)];
      return { q, drafts: [sampleIndex(q[0], rand)] };
    },
    keep(n) { cache.rollback(Math.min(n, cache.length)); },
  };
}

export function newDecoder(lab, { method, gamma = 4, temperature = 1, seed = 0, prompt, maxChars = 200 }) {
  if (!METHODS.includes(method)) throw new Error(`unknown method ${method}`);
  if (!prompt || !prompt.length) throw new Error("the prompt is empty");
  const main = lab.main, mainCache = main.newCache(), hidden = [];
  const rand = mulberry32(seed);
  gamma = method === "mtp" ? 1 : Math.max(1, Math.min(MAX_GAMMA, gamma | 0));
  const drafter = method === "draft" ? modelDrafter(lab.draft)
    : method === "ngram" ? tableDrafter(lab.ngram)
    : method === "mtp" ? headDrafter(main, hidden) : null;
  const seq = prompt.slice(), target = prompt.length + maxChars;
  // positions: the new positions of every forward, in order (the race's modelled clock prices them)
  const mainClock = { ms: 0, forwards: 0, positions: [] }, drafterClock = { ms: 0, forwards: 0, positions: [] };
  // α as the ledger measures it: accepted / checked, where a round checks its drafts up to and
  // including the first rejection (the drafts after it are never looked at)
  const counters = { mainForwards: 0, drafterForwards: 0, proposed: 0, checked: 0, accepted: 0, rounds: 0, emitted: 0, mainMs: 0, drafterMs: 0 };

  function mainForward() {
    const before = mainCache.length;
    const fed = seq.slice(before);
    const out = timed(mainClock, () => main.forward(mainCache, fed));
    mainClock.forwards += 1;
    mainClock.positions.push(fed.length);
    out.h.forEach((h, i) => { hidden[before + i] = h; });
    return out.logits;
  }

  function step() {
    if (seq.length >= target) return null;
    const m = seq.length, ms0 = mainClock.ms, dms0 = drafterClock.ms;
    const mainBefore = mainCache.length, drafterBefore = drafter && drafter.cache ? drafter.cache.length : null;
    // plain decoding, and the MTP head's first token (a plain main sample after the prompt)
    const firstMtp = method === "mtp" && mainCache.length === 0;
    let g = method === "plain" || firstMtp ? 0 : Math.min(gamma, target - m - 1);
    let q = [], drafts = [];
    if (g) ({ q, drafts } = drafter.propose(seq, g, temperature, rand, drafterClock, mainCache.length));
    g = drafts.length;
    const drafterFed = drafter && drafter.cache ? drafter.cache.length : null;
    seq.push(...drafts);
    const logits = mainForward();
    const p = logits.slice(logits.length - g - 1).map((row) => probsFromLogits(row, temperature));
    const { nAccepted, next, u } = acceptReject(p, q, drafts, rand);
    const from = g === 0 ? "main" : nAccepted === g ? "bonus" : "residual";
    const drawnFrom = from === "residual" ? residual(p[nAccepted], q[nAccepted]) : p[nAccepted];
    seq.length = m + nAccepted;
    seq.push(next);
    mainCache.rollback(m + nAccepted);
    if (drafter) drafter.keep(m + nAccepted);
    counters.rounds += 1;
    counters.proposed += g;
    counters.accepted += nAccepted;
    counters.checked += nAccepted + (nAccepted < g ? 1 : 0);
    counters.emitted += nAccepted + 1;
    counters.mainForwards = mainClock.forwards;
    counters.drafterForwards = drafterClock.forwards;
    counters.mainMs = mainClock.ms;
    counters.drafterMs = drafterClock.ms;
    const view = (before, fedTo, kept) => ({ before, fed: fedTo - before, kept, rolledBack: fedTo - kept });
    return {
      index: counters.rounds,
      drafts,
      q: drafts.map((d, i) => q[i][d]),
      p: drafts.map((d, i) => p[i][d]),
      u: u.slice(0, g),
      verdicts: drafts.map((_, i) => (i < nAccepted ? "accept" : i === nAccepted ? "reject" : "unchecked")),
      nAccepted,
      next,
      nextFrom: from,
      nextProb: drawnFrom[next],
      emitted: drafts.slice(0, nAccepted).concat([next]),
      cache: {
        main: view(mainBefore, m + g, mainCache.length),
        drafter: drafterFed === null ? null : view(drafterBefore, drafterFed, drafter.cache.length),
      },
      ms: { main: mainClock.ms - ms0, drafter: drafterClock.ms - dms0 },
    };
  }

  return {
    step,
    counters,
    calls: { main: mainClock.positions, drafter: drafterClock.positions },
    get tokens() { return seq.slice(prompt.length); },
    get done() { return seq.length >= target; },
  };
}

// How costs are timed here. A page that is not cross-origin isolated (this one, opened from a
// file) reads performance.now() to 0.1 ms only, about the time of one small forward: timing single
// calls gives multiples of 0.1 ms. So each sample repeats the call until at least minMs have
// passed and divides by the count; a figure is the median of `samples` such samples.
export const TIMING = { minMs: 20, samples: 5, warmMs: 5 };
const clock = () => performance.now();

// Milliseconds per call of fn. First untimed calls, in doubling runs, for warmMs (V8's first runs
// of a fresh shape are several times slower); they also tell how many calls fill minMs. Then each
// sample times that many calls between two readings of the clock `now` (ms), so reading the clock
// costs nothing per call; a sample that ends short of minMs is taken again with twice the calls.
export function timePerCall(fn, { now = clock, minMs = TIMING.minMs, samples = TIMING.samples, warmMs = TIMING.warmMs } = {}) {
  let warmCalls = 0, elapsed = 0;
  const start = now();
  for (let run = 1; elapsed < warmMs || elapsed <= 0; run *= 2) {
    for (let i = 0; i < run; i++) fn();
    warmCalls += run;
    elapsed = now() - start;
  }
  let calls = Math.max(1, Math.ceil((1.1 * minMs * warmCalls) / elapsed));
  const perCall = [];
  while (perCall.length < samples) {
    const t0 = now();
    for (let i = 0; i < calls; i++) fn();
    const dt = now() - t0;
    if (dt >= minMs) perCall.push(dt / calls);
    else calls *= 2;
  }
  perCall.sort((a, b) => a - b);
  return perCall[perCall.length >> 1];
}

// The smallest step the clock takes (ms): the finest time this page can read.
export function timerResolution(now = clock, tries = 20) {
  let smallest = Infinity;
  for (let i = 0; i < tries; i++) {
    const t0 = now();
    let t1 = now();
    while (t1 === t0) t1 = now();
    smallest = Math.min(smallest, t1 - t0);
  }
  return smallest;
}

function primed(model, cacheOf = (m) => m.newCache()) {
  const cache = cacheOf(model);
  model.forward(cache, Array.from({ length: 32 }, (_, i) => i % model.cfg.vocab_size));
  return cache;
}

// Costs in this browser, relative to one main forward of one position at a context of 32:
// a verify of γ + 1 positions (r), and one step of a drafter (its c).
export function mainForwardMs(lab, positions) {
  const cache = primed(lab.main), tokens = Array.from({ length: positions }, (_, i) => i);
  return timePerCall(() => { lab.main.forward(cache, tokens); cache.rollback(32); });
}

export function verifyCostRatio(lab, gamma) {
  return mainForwardMs(lab, gamma + 1) / mainForwardMs(lab, 1);
}

export function drafterCost(lab, method) {
  let step;
  if (method === "draft") {
    const cache = primed(lab.draft);
    step = () => { lab.draft.forward(cache, [1]); cache.rollback(32); };
  } else if (method === "mtp") {
    const h = lab.main.forward(lab.main.newCache(), [1]).h[0], cache = lab.main.newMtpCache();
    lab.main.mtpForward(cache, Array(32).fill(h), Array(32).fill(1));
    step = () => { lab.main.mtpForward(cache, [h], [1]); cache.rollback(32); };
  } else if (method === "ngram") {
    step = () => ngramQ(lab.ngram.probs([1, 2, 3, 4]), 1);
  } else {
    return 0;
  }
  return timePerCall(step) / mainForwardMs(lab, 1);
}
