// Entry point: read the inlined results, set language and theme, start every widget. A widget
// that cannot start says so in place instead of breaking the rest of the page.
import { initAcceptance } from "./acceptance.js";
import { initClosing } from "./closing.js";
import { initGamma } from "./gamma.js";
import { initLedger } from "./ledger.js";
import { initMtp } from "./mtp.js";
import { chooseLang, lang, readStored, setLang } from "./i18n.js";
import { hashGet, hashSet } from "./state.js";
import { initTheme } from "./theme.js";
import { initVerifyGrid } from "./verify_grid.js";

function startWidget(id, start) {
  try {
    start();
  } catch (err) {
    console.warn(`widget ${id} could not start:`, err);
    const box = document.getElementById(id);
    if (box) box.prepend(Object.assign(document.createElement("p"), {
      className: "warn",
      textContent: "这个演示无法在此浏览器中运行。This demo could not start in this browser.",
    }));
  }
}

const data = JSON.parse(document.getElementById("chapter-data").textContent);
setLang(chooseLang(hashGet("lang"), readStored("chapter-lang"), navigator.language));
document.getElementById("lang-toggle").addEventListener("click", () => {
  setLang(lang() === "zh" ? "en" : "zh");
  hashSet("lang", lang());
});
initTheme(document.getElementById("theme-toggle"));
startWidget("verify-widget", () => initVerifyGrid(data.causal));
startWidget("accept-widget", () => initAcceptance(data.acceptance, data.divergence_sweep));
startWidget("gamma-widget", () => initGamma(data.gamma_sweep, data.ledger));
startWidget("mtp-arch-widget", () => initMtp(data.mtp, data.ledger, data.models));
startWidget("ledger-widget", () => initLedger(data.ledger, data.models));
startWidget("closing-quiz", () => initClosing());
performance.mark("chapter-ready"); // read by the browser test: interactive within 300 ms
