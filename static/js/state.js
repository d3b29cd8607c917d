// Widget state worth sharing lives in the URL hash: #lang=en&pos=2&gamma=5
export function parseHash(hash) {
  return Object.fromEntries(new URLSearchParams(String(hash).replace(/^#/, "")));
}

export function formatHash(params) {
  return "#" + new URLSearchParams(params).toString();
}

export function hashGet(key) {
  return parseHash(location.hash)[key];
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
