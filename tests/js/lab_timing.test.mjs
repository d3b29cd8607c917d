// How the lab times c and r (static/js/lab_decode.js timePerCall), on a fake clock that reads to
// 0.1 ms like performance.now() in a page that is not cross-origin isolated: one call timed alone
// reads as a multiple of 0.1 ms; batches of calls lasting ≥ 20 ms give the true time per call.
import assert from "node:assert/strict";
import { test } from "node:test";
import { TIMING, timePerCall, timerResolution } from "../../static/js/lab_decode.js";
import { timingNote } from "../../static/js/lab_text.js";

// True time moves when a call spends it and, a little, on every read of the clock; the clock
// reports it rounded down to its step, from an offset that is not a multiple of the step.
function fakeClock(stepMs = 0.1, readMs = 0.00002) {
  let trueMs = 1234.0437;
  return {
    now: () => { trueMs += readMs; return Math.floor(trueMs / stepMs) * stepMs; },
    spend: (ms) => { trueMs += ms; },
    get trueMs() { return trueMs; },
  };
}
const multipleOf = (x, step) => Math.abs(x / step - Math.round(x / step)) < 1e-6;

test("one call timed alone reads as a multiple of the clock's 0.1 ms", () => {
  const clock = fakeClock();
  const single = Array.from({ length: 50 }, () => {
    const t0 = clock.now();
    clock.spend(0.0371);
    return clock.now() - t0;
  });
  assert.ok(single.every((d) => multipleOf(d, 0.1)), single.join(" "));
  assert.ok(single.includes(0) || single.some((d) => d >= 0.099));  // 0 or 0.1: never 0.037
});

test("batched timing gives the true time per call within 1 %", () => {
  for (const callMs of [0.0013, 0.0371, 0.37, 2.3, 31]) {
    const clock = fakeClock();
    const measured = timePerCall(() => clock.spend(callMs), { now: clock.now });
    assert.ok(Math.abs(measured / callMs - 1) < 0.01, `${callMs} ms measured as ${measured}`);
  }
});

test("each sample lasts at least minMs, after the untimed warm-up; the figure is their median", () => {
  const clock = fakeClock();
  const start = clock.trueMs;
  timePerCall(() => clock.spend(0.2), { now: clock.now });
  const spent = clock.trueMs - start;
  assert.ok(spent >= TIMING.warmMs + TIMING.samples * TIMING.minMs, `${spent} ms`);
  assert.ok(spent < 2 * (TIMING.warmMs + TIMING.samples * TIMING.minMs), `${spent} ms`);  // the lab's budget
  // one slow sample of five (a garbage collection, say) does not move the median
  const slow = fakeClock();
  let calls = 0;
  const measured = timePerCall(() => slow.spend(calls++ > 300 && calls < 320 ? 5 : 0.2), { now: slow.now });
  assert.ok(Math.abs(measured / 0.2 - 1) < 0.01, String(measured));
});

test("the clock's resolution, and the note printed beside c and r in both languages", () => {
  assert.ok(Math.abs(timerResolution(fakeClock().now) - 0.1) < 1e-6);
  assert.ok(Math.abs(timerResolution(fakeClock(0.005).now) - 0.005) < 1e-6);
  const coarse = timingNote(0.1), fine = timingNote(0.005);
  assert.equal(coarse.en, "this page's timer reads to 0.1\u00a0ms, so calls are timed in batches: each lasts at least 20\u00a0ms and is divided by its calls, and the figure is the median of 5 batches");
  assert.equal(coarse.zh, "这个页面的计时器精度是 0.1\u00a0毫秒，所以成批计时：每批连续调用至少 20\u00a0毫秒，按调用次数平均，取 5 批的中位数");
  assert.match(fine.en, /reads to 5\.0\u00a0µs/);
  assert.match(fine.zh, /精度是 5\.0\u00a0微秒/);
});
