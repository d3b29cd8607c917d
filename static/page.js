// Language: #lang= in the URL, then a remembered choice, then the browser's language.
const root = document.documentElement;

function storedLang() {
  try { return localStorage.getItem("chapter-lang"); } catch { return null; }  // file:// may throw
}

function setLang(lang) {
  root.dataset.lang = lang;
  root.lang = lang === "zh" ? "zh-CN" : "en";
  try { localStorage.setItem("chapter-lang", lang); } catch { /* storage unavailable: not remembered */ }
}

const fromHash = new URLSearchParams(location.hash.slice(1)).get("lang");
const initial = ["zh", "en"].includes(fromHash) ? fromHash
  : storedLang() || (navigator.language.toLowerCase().startsWith("zh") ? "zh" : "en");
setLang(initial);
document.getElementById("lang-toggle").addEventListener("click", () =>
  setLang(root.dataset.lang === "zh" ? "en" : "zh"));
