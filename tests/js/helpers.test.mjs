import assert from "node:assert/strict";
import { test } from "node:test";
import { routes, shownChars } from "../../static/js/acceptance.js";
import { charLabel, escapeHTML, fixed, grouped, percent, sci, textLabel } from "../../static/js/format.js";
import { chooseLang } from "../../static/js/i18n.js";
import { formatHash, intInRange, parseHash } from "../../static/js/state.js";
import { draftStatus, verifyCost } from "../../static/js/verify_grid.js";

test("formatting", () => {
  assert.equal(grouped(200000), "200,000");
  assert.equal(grouped(65), "65");
  assert.equal(fixed(0.12345, 3), "0.123");
  assert.equal(percent(0.8123), "81.2%");
  assert.equal(sci(3.814697265625e-6), "3.8×10⁻⁶");
  assert.equal(sci(1.06e-5), "1.1×10⁻⁵");
  assert.equal(sci(0.121), "0.121");
  assert.equal(sci(0), "0");
  assert.equal(charLabel("\n"), "↵");
  assert.equal(textLabel("a b\n"), "a␣b↵");
});

test("language choice: hash, then storage, then browser", () => {
  assert.equal(chooseLang("en", "zh", "zh-CN"), "en");
  assert.equal(chooseLang(undefined, "zh", "en-US"), "zh");
  assert.equal(chooseLang("xx", null, "zh-TW"), "zh");
  assert.equal(chooseLang(undefined, null, "fr"), "en");
});

test("hash state round-trips and clamps", () => {
  assert.deepEqual(parseHash(formatHash({ lang: "en", gamma: "5" })), { lang: "en", gamma: "5" });
  assert.equal(intInRange("9", 1, 8, 4), 4);
  assert.equal(intInRange("3", 1, 8, 4), 3);
  assert.equal(intInRange(undefined, 1, 8, 4), 4);
});

test("verify grid: draft verdicts and the cost of both modes", () => {
  assert.deepEqual([1, 2, 3, 4, 5].map((j) => draftStatus(j, 4, 2)), ["accepted", "accepted", "rejected", "discarded", "absent"]);
  assert.deepEqual([1, 2].map((j) => draftStatus(j, 2, 3)), ["accepted", "accepted"]);
  assert.deepEqual(verifyCost(8, 4, "verify"), { forwards: 1, positions: 12 });
  assert.deepEqual(verifyCost(8, 4, "separate"), { forwards: 5, positions: 8 + 9 + 10 + 11 + 12 });
});

test("calculation card: the two routes add up to p for every char", () => {
  const p = [0.5, 0.3, 0.2, 0], q = [0.1, 0.6, 0.1, 0.2];
  for (let x = 0; x < p.length; x++) {
    const r = routes(p, q, x);
    assert.ok(Math.abs(r.viaAccept - Math.min(p[x], q[x])) < 1e-12);
    assert.ok(Math.abs(r.viaResidual - Math.max(0, p[x] - q[x])) < 1e-12);
    assert.ok(Math.abs(r.total - p[x]) < 1e-12);
  }
  assert.deepEqual(shownChars(p, q, false, 2), [1, 0]);
  assert.deepEqual(shownChars(p, q, true), [0, 1, 2, 3]);
});

test("escapeHTML escapes every special character, not just the first", () => {
  assert.equal(escapeHTML(`a<b & c<"d">`), "a&lt;b &amp; c&lt;&quot;d&quot;&gt;");
});
