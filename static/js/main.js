// Entry point: read the inlined results, set language and theme, start every widget. A widget
// that cannot start says so in place instead of breaking the rest of the page.
import { initAcceptance } from "./acceptance.js";
import { initBursts } from "./bursts.js";
import { initClosing } from "./closing.js";
import { initDeepDives } from "./deep.js";
import { initFamilyLedger } from "./family_ledger.js";
import { initGamma } from "./gamma.js";
import { initGammaSteps } from "./gamma_steps.js";
import { chooseLang, LANG_TOGGLE, LANGS, lang, onLangChange, readStored, setLang } from "./i18n.js";
import { initLab } from "./lab.js";
import { initLadder } from "./ladder.js";
import { initLedger } from "./ledger.js";
import { initMtpCompare } from "./mtp_compare.js";
import { initMtpDiagram } from "./mtp_diagram.js";
import { initMtpTrace } from "./mtp_trace.js";
import { initPicker } from "./picker.js";
import { initRecent } from "./recent.js";
import { hashGet, hashSet, onHashChange } from "./state.js";
import { initSweep } from "./sweep.js";
import { initTheme } from "./theme.js";
import { initToc } from "./toc.js";
import { initTokenTree } from "./token_tree.js";
import { initVerifyCost } from "./verify_cost.js";
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
const langToggle = document.getElementById("lang-toggle");
onLangChange((current) => {
  const next = LANG_TOGGLE[current];
  langToggle.textContent = next.text;
  langToggle.lang = next.lang;
  langToggle.setAttribute("aria-label", next.label);
});
setLang(chooseLang(hashGet("lang"), readStored("chapter-lang"), navigator.language));
langToggle.addEventListener("click", () => {
  setLang(lang() === "zh" ? "en" : "zh");
  hashSet("lang", lang());
});
onHashChange((hash) => { if (LANGS.includes(hash.lang) && hash.lang !== lang()) setLang(hash.lang); });
initTheme(document.getElementById("theme-toggle"));
initToc(document.querySelector("nav.toc"));
startWidget("verify-widget", () => initVerifyGrid(data.causal));
startWidget("roof-widget", () => initVerifyCost(data.costs, data.models));
startWidget("accept-widget", () => initAcceptance(data.acceptance));
startWidget("sweep-widget", () => initSweep(data.divergence_sweep));
startWidget("gamma-widget", () => initGamma(data.gamma_sweep, data.ledger));
startWidget("gamma-steps", () => initGammaSteps(data.gamma_sweep));
startWidget("bursts-widget", () => initBursts(data.gamma_sweep));
startWidget("mtp-arch-widget", () => initMtpDiagram(data.mtp, data.models));
startWidget("mtp-trace-widget", () => initMtpTrace(data.mtp));
startWidget("mtp-vs-widget", () => initMtpCompare(data.mtp, data.ledger, data.models));
startWidget("tree-widget", () => initTokenTree(data.families));
startWidget("recent-widget", () => initRecent(data.families));
startWidget("picker-widget", () => initPicker(data.families, data.conditions, data.published));
startWidget("ledger-widget", () => initLedger(data.ledger, data.models));
startWidget("family-ledger-widget", () => initFamilyLedger(data.families));
startWidget("ladder-widget", () => initLadder(data.ladder));
startWidget("closing-quiz", () => initClosing());
startWidget("lab-widget", () => initLab(data)); // cheap: the lab's weights are parsed when it first comes into view
initDeepDives();
performance.mark("chapter-ready"); // read by the browser test: interactive within 300 ms
