// Tiny DOM helpers: build HTML and SVG elements, and a column chart made of plain elements
// (text stays readable at any width; the chart scrolls sideways when it has many columns).
const SVG_NS = "http://www.w3.org/2000/svg";

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else el.setAttribute(key, value === true ? "" : value);
  }
}

// cols: [{key, label, title, bars: [{cls, value}], tick}] ; values in [0, max]
export function columnChart(container, cols, { max, selected, onPick } = {}) {
  const top = max || Math.max(1e-9, ...cols.flatMap((c) => [...c.bars.map((b) => b.value), c.tick ?? 0]));
  const pct = (v) => `${Math.min(100, (100 * v) / top)}%`;
  const items = cols.map((col) => {
    const plot = h("div", { class: "plot" },
      col.bars.map((b) => h("div", { class: `b ${b.cls}`, style: { height: pct(b.value) } })),
      col.tick === undefined ? null : h("div", { class: "tick", style: { bottom: pct(col.tick) } }));
    const label = h("span", { class: "lab" }, col.label);
    const body = onPick
      ? h("button", { type: "button", title: col.title, "aria-label": col.title,
          "aria-pressed": String(col.key === selected), onclick: () => onPick(col.key) }, plot, label)
      : h("div", { title: col.title, style: { width: "100%" } }, plot, label);
    return h("div", { class: col.key === selected ? "col sel" : "col" }, body);
  });
  container.replaceChildren(h("div", { class: "cols" }, items));
}

// A measured figure with its caption: the .readout box every widget uses.
export function readoutBox(value, key, cls = "") {
  return h("div", { class: "readout" }, h("div", { class: `v ${cls}` }, value), h("div", { class: "k" }, key));
}
