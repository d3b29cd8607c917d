// Number and character formatting, independent of the browser's locale.
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
