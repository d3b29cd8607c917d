import assert from "node:assert/strict";
import { test } from "node:test";
import { readFileSync } from "node:fs";
import { calcRows, defaultChar, histColumns, routes, shownChars } from "../../static/js/acceptance.js";
import { charLabel, escapeHTML, fixed, grouped, percent, sci, textLabel, verdictAria, verdictBadgeHTML, verdictBadgeText } from "../../static/js/format.js";
import { chooseLang, LANG_TOGGLE } from "../../static/js/i18n.js";
import { formatHash, hashGet, intInRange, onHashChange, ownEntry, parseHash } from "../../static/js/state.js";
import { sweepTable } from "../../static/js/sweep.js";
import { draftStatus, gridHTML, rowMeaning, verifyCost } from "../../static/js/verify_grid.js";

const load = (name) => JSON.parse(readFileSync(new URL(`../../experiments/results/${name}.json`, import.meta.url)));

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

test("language toggle names the other language in that language, tagged with a lang the CSS does not hide", () => {
  assert.deepEqual(LANG_TOGGLE.zh, { text: "English", label: "Switch to English", lang: "en-GB" });
  assert.deepEqual(LANG_TOGGLE.en, { text: "中文", label: "切换到中文", lang: "zh-CN" });
  for (const v of Object.values(LANG_TOGGLE)) {
    assert.ok(v.label.includes(v.text)); // the accessible name contains the visible text
    assert.ok(!["zh", "en"].includes(v.lang));
  }
});

test("verify grid: no empty header cell, one row per position, row meanings per draft", () => {
  const ex = load("causal").verify_example;
  const n = ex.context.length;
  for (const gamma of [1, ex.gamma]) {
    const html = gridHTML(ex, { gamma, mode: "separate", row: 0 }, "en");
    assert.doesNotMatch(html, /<th[^>]*><\/th>/);
    assert.equal((html.match(/<tr data-row=/g) || []).length, n + gamma);
    assert.match(html, /aria-label="row 1 /);
  }
  assert.match(gridHTML(ex, { gamma: 2, mode: "verify", row: 0 }, "zh"), /aria-label="第 1 行 /);
  // separate forwards: every row says how often it is computed, γ + 1 times for each context row
  // down to once for the last; one verify forward computes each row once and says nothing
  const counts = (html) => [...html.matchAll(/<td class="fw">[^<]*?×(\d+)<\/td>/g)].map((m) => Number(m[1]));
  const sep = counts(gridHTML(ex, { gamma: 3, mode: "separate", row: 0 }, "en"));
  assert.deepEqual(sep, Array.from({ length: n + 3 }, (_, i) => 3 + 1 - Math.max(0, i - (n - 1))));
  assert.deepEqual(counts(gridHTML(ex, { gamma: 3, mode: "verify", row: 0 }, "en")), []);
  assert.match(rowMeaning(ex, ex.gamma, 0).en, /predicts the next context character/);
  assert.match(rowMeaning(ex, ex.gamma, n - 1 + ex.gamma).en, /bonus character/);
  const first = rowMeaning(ex, ex.gamma, n - 1);
  assert.match(first.en, ex.n_accepted >= 1 ? /→ accepted$/ : /→ rejected/);
  if (ex.n_accepted + 2 <= ex.gamma) assert.match(rowMeaning(ex, ex.gamma, n + ex.n_accepted + 1).en, /never checked/);
});

test("acceptance views: histogram columns, the calculation card, the default char", () => {
  const acc = load("acceptance");
  const pos = acc.positions[0];
  const ids = shownChars(pos.p, pos.q, false);
  const cols = histColumns(acc.vocab, ids, pos.counts, acc.draws, pos.p);
  assert.equal(cols.length, ids.length);
  for (const [j, i] of ids.entries()) {
    assert.deepEqual(cols[j].cells, [grouped(pos.counts[i]), fixed(pos.counts[i] / acc.draws, 4), fixed(pos.p[i], 4)]);
    assert.equal(cols[j].tick, pos.p[i]);
  }
  assert.deepEqual(histColumns(["a"], [0], [0], 0, [1])[0].cells, ["0", "0.0000", "1.0000"]); // no draws yet
  const x = defaultChar(pos, acc.vocab);
  const rows = calcRows(pos, acc.vocab, x, acc.draws);
  assert.equal(rows.at(-2).value, fixed(pos.p[x], 5)); // (1) + (2) = p
  // a position that is not the over-weighting one opens on a char both routes reach, when there is one
  if (pos.overweight_char == null && pos.p.some((pi, i) => pi > pos.q[i] && pos.q[i] > 0)) {
    const r = routes(pos.p, pos.q, x);
    assert.ok(r.viaAccept > 0 && r.viaResidual > 0, "the default card shows route ① and route ② at work");
  }
  const mixed = { p: [0.5, 0.2, 0.3], q: [0.2, 0.6, 0.2] };
  assert.equal(defaultChar(mixed, ["a", "b", "c"]), 0); // min(q, p − q): a 0.2, c 0.1; b has p < q
  assert.equal(defaultChar({ ...mixed, overweight_char: "b" }, ["a", "b", "c"]), 1); // the char q over-weights
  assert.equal(defaultChar({ p: [0.2, 0.8], q: [0.2, 0.8] }, ["a", "b"]), 1); // none: p's favourite
});

test("sweep table: one row per snapshot, α beside 1 − TV", () => {
  const sweep = load("divergence_sweep");
  const table = sweepTable(sweep.snapshots);
  assert.equal(table.rows.length, sweep.snapshots.length);
  for (const [i, p] of sweep.snapshots.entries()) {
    assert.equal(table.rows[i][1], fixed(p.alpha_mean, 4));
    assert.equal(table.rows[i][3], fixed(1 - p.tv_mean, 4));
  }
  assert.equal(table.head.length, table.rows[0].length);
});

test("editing the hash reaches the widgets: onHashChange hands them the parsed hash", () => {
  const heard = [];
  globalThis.window = new EventTarget();
  globalThis.location = { hash: "#lang=en&gamma=3" };
  try {
    onHashChange((hash) => heard.push(hash));
    window.dispatchEvent(new Event("hashchange"));
    location.hash = "#lang=zh";
    window.dispatchEvent(new Event("hashchange"));
  } finally {
    delete globalThis.window;
    delete globalThis.location;
  }
  assert.deepEqual(heard, [{ lang: "en", gamma: "3" }, { lang: "zh" }]);
});

// Names every object inherits: `key in table` and `table[key]` find them, an address must not.
export const PROTOTYPE_NAMES = ["__proto__", "constructor", "valueOf", "hasOwnProperty", "toString", "isPrototypeOf"];

test("own entries only: a key from the hash never finds what every object inherits", () => {
  const table = { speedup: 1, alpha: 0, none: null };
  for (const name of PROTOTYPE_NAMES) assert.equal(ownEntry(table, name), undefined, name);
  assert.equal(ownEntry(table, "speedup"), 1);
  assert.equal(ownEntry(table, "alpha"), 0);
  assert.equal(ownEntry(table, "none"), null);
  assert.equal(ownEntry(table, undefined), undefined);
  assert.equal(ownEntry({ __proto__: null, a: 2 }, "a"), 2);  // an object without a prototype too
  globalThis.location = { hash: "#lang=en&__proto__=x&toString=y" };
  try {
    for (const name of ["constructor", "valueOf", "hasOwnProperty"]) assert.equal(hashGet(name), undefined, name);
    assert.equal(hashGet("lang"), "en");
    assert.equal(hashGet("__proto__"), "x");  // written in the address: an own entry like any other
    assert.equal(hashGet("toString"), "y");
  } finally {
    delete globalThis.location;
  }
});

test("verdict badge: the rule's word, the range and the count; a link to the rule; the full sentence for screen readers", () => {
  const plain = { zh: "普通解码", en: "plain decoding" };
  const cases = [
    [{ min: 2.16, max: 3.02, n: 3 }, "faster", { zh: "更快 · 2.16–3.02× · 3 对", en: "faster · 2.16–3.02× · 3 pairs" }],
    [{ min: 0.61, max: 0.7, n: 5 }, "slower", { zh: "更慢 · 0.61–0.70× · 5 对", en: "slower · 0.61–0.70× · 5 pairs" }],
    [{ min: 0.95, max: 1.1, n: 3 }, "unclear", { zh: "分不出 · 0.95–1.10× · 3 对", en: "can't tell · 0.95–1.10× · 3 pairs" }],
    [{ min: 1.0, max: 1.2, n: 3 }, "unclear", { zh: "分不出 · 1.00–1.20× · 3 对", en: "can't tell · 1.00–1.20× · 3 pairs" }],
    [{ min: 1.4, max: 1.4, n: 1 }, "unclear", { zh: "只测一次", en: "one run" }],
  ];
  for (const [runs, v, text] of cases) {
    assert.deepEqual(verdictBadgeText(runs), text);
    const html = verdictBadgeHTML(runs, "en", plain);
    // the markup build.py VERDICT reads in the templates' badges
    const parts = (words) => words.split(" · ").map((p) => `<span class="nowrap">${p}</span>`).join(" · ");
    assert.match(html, new RegExp(`^<a class="verdict v-${v}" href="#rule-verdict" data-v="${v}" data-min="${runs.min}" data-max="${runs.max}" data-n="${runs.n}" [^>]*><span lang="zh">${parts(text.zh)}</span><span lang="en">${parts(text.en)}</span></a>$`));
    const aria = verdictAria(runs, plain);
    assert.ok(html.includes(`aria-label="${escapeHTML(aria.en)}"`) && html.includes(`data-aria-zh="${escapeHTML(aria.zh)}"`));
  }
  // the accessible name starts with the words shown, then says them in full
  assert.equal(verdictAria({ min: 2.16, max: 3.02, n: 3 }, plain).en, "faster · 2.16–3.02× · 3 pairs: faster than plain decoding in all 3 paired repeats");
  assert.equal(verdictAria({ min: 0.95, max: 1.1, n: 3 }, plain).zh, "分不出 · 0.95–1.10× · 3 对：成对测量有高于 1× 的也有低于 1× 的，分不出它和普通解码谁快");
});

test("verify grid: each verdict sits beside the p that gave it, on the row before its draft", () => {
  const ex = load("causal").verify_example;
  const n = ex.context.length;
  const fws = (gamma) => [...gridHTML(ex, { gamma, mode: "verify", row: 0 }, "en").matchAll(/<td class="fw">([^<]*)<\/td>/g)].map((m) => m[1]);
  const gamma = ex.gamma;
  const cells = fws(gamma).slice(n - 1);  // the rows that yield p_1 .. p_{γ+1}
  assert.equal(cells.length, gamma + 1);
  cells.slice(0, gamma).forEach((cell, k) => {
    const st = draftStatus(k + 1, gamma, ex.n_accepted);
    assert.ok(cell.startsWith(`→ p`));
    assert.ok(cell.endsWith(st === "accepted" ? "✓" : st === "rejected" ? "✗" : cell.at(-1)));
    if (st === "discarded") assert.doesNotMatch(cell, /[✓✗]/);
  });
  assert.equal(cells.filter((c) => c.endsWith("✗")).length, ex.n_accepted < gamma ? 1 : 0);
  // the bonus is named only where every draft passed: at γ = the accepted count it is
  assert.equal(cells.at(-1).endsWith("bonus"), ex.n_accepted >= gamma);
  if (ex.n_accepted >= 1) assert.ok(fws(ex.n_accepted).at(-1).endsWith("bonus"));
  // the row heads carry no verdict of their own
  assert.doesNotMatch(gridHTML(ex, { gamma, mode: "verify", row: 0 }, "en"), /<th scope="row"[^>]*>[^<]*[✓✗]/);
});
