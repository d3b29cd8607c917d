// Number and character formatting, independent of the browser's locale.
import { pairedVerdict } from "./theory.js";

export function fixed(x, digits = 3) {
  return Number(x).toFixed(digits);
}

export function grouped(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

export function percent(x, digits = 1) {
  return (100 * x).toFixed(digits) + "%";
}

const SUPERSCRIPT = { "-": "⁻", "+": "", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };

// Small measured values (a max |Δlogit| of 4.8e-7, a p-value of 3e-5) keep their magnitude:
// 4.8×10⁻⁷. Values between 0.01 and 10,000 are written plainly.
export function sci(x, digits = 2) {
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 0.01 && a < 1e4) return fixed(x, digits + 1);
  const [mantissa, exponent] = x.toExponential(digits - 1).split("e");
  return `${mantissa}×10${Array.from(exponent, (ch) => SUPERSCRIPT[ch]).join("")}`;
}

// Characters as a reader can see them: a newline is ↵, a space is ␣.
export function charLabel(c) {
  return c === "\n" ? "↵" : c === " " ? "␣" : c;
}

export function textLabel(s) {
  return Array.from(s, charLabel).join("");
}

// Text for an HTML string (widgets that rebuild many nodes at once write them as one string).
export function escapeHTML(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

// A figure tagged with its quantity (a glossary id without "g-") and the condition it was measured
// under, as macros.fig tags the templates' figures: the browser test holds one value per pair.
export function figHTML(text, quantity, condition) {
  return `<span class="fig" data-q="${quantity}" data-c="${escapeHTML(condition)}">${text}</span>`;
}

// A timed row's verdict as a badge beside its number, the twin of templates/macros.html.j2 verdict
// (chapter/views/rows.py verdict_badge words it; build.py check_verdicts reads the same markup):
// the verdict by the chapter's rule, the paired speedups' range and how many pairs, a link to the
// rule (#rule-verdict), the full sentence for screen readers in the page's language (data-aria-*
// keep both for a language change). runs: {min, max, n}; lang: "zh" | "en"; plain: plain
// decoding's {zh, en} name.
export const BADGE_WORD = { faster: { zh: "更快", en: "faster" }, slower: { zh: "更慢", en: "slower" }, unclear: { zh: "分不出", en: "can't tell" } };
export const BADGE_ONE_RUN = { zh: "只测一次", en: "one run" };

// Between a badge's parts, where a narrow column may wrap it (rows.BADGE_SEP's twin; badgeParts splits on it).
export const BADGE_SEP = " · ";

export function verdictBadgeText(runs) {
  if (runs.n < 2) return { ...BADGE_ONE_RUN };
  const word = BADGE_WORD[pairedVerdict(runs)], span = `${runs.min.toFixed(2)}–${runs.max.toFixed(2)}×`;
  return { zh: [word.zh, span, `${runs.n} 对`].join(BADGE_SEP), en: [word.en, span, `${runs.n} pairs`].join(BADGE_SEP) };
}

// The accessible name starts with the words shown (axe: label-content-name-mismatch), then says them in full.
export function verdictAria(runs, plain) {
  const shown = verdictBadgeText(runs);
  const full = runs.n < 2 ? { zh: `一次测量分不出它和${plain.zh}谁快`, en: `a single run cannot tell this row from ${plain.en}` } : {
    faster: { zh: `${runs.n} 次成对测量都比${plain.zh}快`, en: `faster than ${plain.en} in all ${runs.n} paired repeats` },
    slower: { zh: `${runs.n} 次成对测量都比${plain.zh}慢`, en: `slower than ${plain.en} in all ${runs.n} paired repeats` },
    unclear: { zh: `成对测量有高于 1× 的也有低于 1× 的，分不出它和${plain.zh}谁快`,
      en: `the paired repeats fall on both sides of 1×, so this measurement cannot tell it from ${plain.en}` },
  }[pairedVerdict(runs)];
  return { zh: `${shown.zh}：${full.zh}`, en: `${shown.en}: ${full.en}` };
}

// The badge's attributes in order and its words: what verdictBadgeHTML writes and dom.js verdictBadge builds.
export function verdictBadgeParts(runs, lang, plain) {
  const v = pairedVerdict(runs), aria = verdictAria(runs, plain);
  return { attrs: { class: `verdict v-${v}`, href: "#rule-verdict", "data-v": v, "data-min": runs.min, "data-max": runs.max, "data-n": runs.n,
    "data-aria-zh": aria.zh, "data-aria-en": aria.en, "aria-label": aria[lang] }, text: verdictBadgeText(runs) };
}

// A badge's words in parts, each kept on one line, so a narrow column wraps it only at BADGE_SEP (as macros.badge_text).
export const badgeParts = (words) => words.split(BADGE_SEP);

export function verdictBadgeHTML(runs, lang, plain) {
  const { attrs, text } = verdictBadgeParts(runs, lang, plain);
  const words = (l) => `<span lang="${l}">${badgeParts(text[l]).map((p) => `<span class="nowrap">${escapeHTML(p)}</span>`).join(BADGE_SEP)}</span>`;
  return `<a ${Object.entries(attrs).map(([k, v]) => `${k}="${escapeHTML(v)}"`).join(" ")}>${words("zh")}${words("en")}</a>`;
}
