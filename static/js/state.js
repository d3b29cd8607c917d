// Widget state worth sharing lives in the URL hash: #lang=en&pos=2&gamma=5
export function parseHash(hash) {
  return Object.fromEntries(new URLSearchParams(String(hash).replace(/^#/, "")));
}

export function formatHash(params) {
  return "#" + new URLSearchParams(params).toString();
}

// A table's own entry for a key that comes from outside (the URL hash, a key press, a data file),
// or undefined: never a member that every object inherits ("__proto__", "constructor", "valueOf"…),
// which `key in table` and `table[key]` would find.
export function ownEntry(table, key) {
  return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;  // Object.hasOwn: Safari 15.4+
}

export function hashGet(key) {
  return ownEntry(parseHash(location.hash), key);
}

export function hashSet(key, value) {
  const params = parseHash(location.hash);
  params[key] = String(value);
  history.replaceState(null, "", formatHash(params));
}

export function intInRange(text, lo, hi, fallback) {
  const n = Number.parseInt(text, 10);
  return Number.isInteger(n) && n >= lo && n <= hi ? n : fallback;
}

// Editing the hash by hand (or following a #link) applies it without a reload. hashSet uses
// replaceState, which fires no hashchange, so a widget never hears its own writes.
export function onHashChange(apply) {
  window.addEventListener("hashchange", () => apply(parseHash(location.hash)));
}
