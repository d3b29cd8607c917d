// Just enough DOM to start a widget's init function in node: elements that keep attributes,
// children, a dataset and listeners; a window that dispatches hashchange; location.hash; and
// history.replaceState writing the hash without an event, as a browser does. What the widgets draw
// is read back with textOf.
export class FakeElement extends EventTarget {
  constructor(tag = "div", props = {}) {
    super();
    this.tagName = tag.toUpperCase();
    this.attributes = {};
    this.childNodes = [];
    this.dataset = {};
    this.style = {};
    Object.assign(this, props);
  }

  // what a widget finds inside, or around, an element it was given: made on first ask, then kept
  querySelector(selector) { this.found ??= {}; return (this.found[selector] ??= new FakeElement()); }
  querySelectorAll() { return []; }
  closest() { return (this.around ??= new FakeElement()); }
  get parentElement() { return this.closest(); }
  setAttribute(key, value) { this.attributes[key] = String(value); }
  getAttribute(key) { return key in this.attributes ? this.attributes[key] : null; }
  append(...nodes) { this.childNodes.push(...nodes); }
  replaceChildren(...nodes) { this.childNodes = nodes; }
  get textContent() { return this.childNodes.map(textOf).join(""); }
  set textContent(text) { this.childNodes = [String(text)]; }
}

export function textOf(node) {
  return typeof node === "string" ? node : node.textContent;
}

// A <select> with these option values.
export function fakeSelect(values) {
  return new FakeElement("select", { value: values[0], options: values.map((value) => ({ value, textContent: value })) });
}

// Installs document (getElementById / querySelector / querySelectorAll from the tables given; with
// anyId, an element for every other id too), window, location and history on globalThis; returns
// the function that removes them again.
export function installDom({ byId = {}, bySelector = {}, anyId = false } = {}, hash = "") {
  const document = {
    activeElement: null,
    getElementById: (id) => byId[id] ?? (anyId ? (byId[id] = new FakeElement()) : null),
    querySelector: (selector) => (bySelector[selector] ?? [])[0] ?? null,
    querySelectorAll: (selector) => bySelector[selector] ?? [],
    createElement: (tag) => new FakeElement(tag),
    createElementNS: (_, tag) => new FakeElement(tag),
  };
  const location = { hash };
  const history = { replaceState: (_state, _title, url) => { location.hash = url; } };
  Object.assign(globalThis, { document, window: new EventTarget(), location, history });
  return () => { for (const name of ["document", "window", "location", "history"]) delete globalThis[name]; };
}

// The reader edits the address (or follows a #link): the hash changes and hashchange fires.
export function editHash(hash) {
  location.hash = hash;
  window.dispatchEvent(new Event("hashchange"));
}
