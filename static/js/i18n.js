// Language state: 中文 / English. Static text is written twice in the template
// (<span lang="zh">…</span><span lang="en">…</span>) and CSS hides the other one;
// strings made by JS come from {zh, en} pairs through t().
export const LANGS = ["zh", "en"];
let currentLang = "zh";
const langListeners = [];

// The toggle names the other language in that language, and its lang attribute says so. The tags
// carry a region because the page's CSS hides every [lang="en"] while Chinese is shown.
export const LANG_TOGGLE = {
  zh: { text: "English", label: "Switch to English", lang: "en-GB" },
  en: { text: "中文", label: "切换到中文", lang: "zh-CN" },
};

export function chooseLang(fromHash, stored, browserLang) {
  if (LANGS.includes(fromHash)) return fromHash;
  if (LANGS.includes(stored)) return stored;
  return String(browserLang || "").toLowerCase().startsWith("zh") ? "zh" : "en";
}

export function lang() {
  return currentLang;
}

export function t(pair) {
  return pair[currentLang];
}

export function onLangChange(fn) {
  langListeners.push(fn);
}

export function readStored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // file:// pages may not have storage
  }
}

export function writeStored(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* storage unavailable: the choice is simply not remembered */
  }
}

export function setLang(next) {
  currentLang = next;
  const root = document.documentElement;
  root.dataset.lang = next;
  root.lang = next === "zh" ? "zh-CN" : "en";
  for (const el of document.querySelectorAll("[data-aria-zh]")) {
    el.setAttribute("aria-label", el.dataset[next === "zh" ? "ariaZh" : "ariaEn"]);
  }
  document.title = next === "zh" ? root.dataset.titleZh : root.dataset.titleEn;
  writeStored("chapter-lang", next);
  for (const fn of langListeners) fn(next);
}
