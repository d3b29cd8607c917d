// Entry point: read the inlined results, set language and theme, start every widget. A widget
// that cannot start says so in place instead of breaking the rest of the page.
import { initAcceptance } from "./acceptance.js";
import { initBursts } from "./bursts.js";
import { initClosing } from "./closing.js";
import { initDial, initRkCurves } from "./dial.js";
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
import { declareNames } from "./labels.js";
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

// The widgets in the window start now, and then the page is ready ("chapter-ready", timed by make
// bench); the others start one per task after it, or as soon as the reader scrolls to one. When all
// have started, <html data-widgets="ready">.
function startWidgets(widgets) {
  const pending = new Map(widgets);
  const start = (id) => {
    const init = pending.get(id);
    if (!init) return;
    pending.delete(id);
    startWidget(id, init);
    performance.mark(`widget:${id}`);
    if (!pending.size) {
      document.documentElement.dataset.widgets = "ready";
      performance.mark("widgets-ready");
    }
  };
  const inWindow = (el) => {
    const box = el.getBoundingClientRect();
    return box.height > 0 && box.bottom > 0 && box.top < innerHeight;
  };
  // a section's own box costs no layout of what is inside it (content-visibility: auto)
  const near = (id) => {
    const box = document.getElementById(id), section = box?.closest("main > section");
    return !box || ((!section || inWindow(section)) && inWindow(box));
  };
  [...pending.keys()].filter(near).forEach(start);
  performance.mark("chapter-ready");
  const seen = "IntersectionObserver" in window && new IntersectionObserver((entries) => {
    entries.forEach((entry) => { if (entry.isIntersecting) start(entry.target.id); });
  }, { rootMargin: "50% 0px" });
  if (seen) pending.forEach((_, id) => seen.observe(document.getElementById(id)));
  const next = () => {
    const id = pending.keys().next().value;
    if (id === undefined) return seen && seen.disconnect();
    start(id);
    setTimeout(next, 0);
  };
  setTimeout(next, 0);
}

// The chapter data, one <script data-chapter="KEY"> per part, each parsed the first time it is read:
// the widgets that start later parse theirs later.
function chapterData() {
  const data = {};
  for (const script of document.querySelectorAll("script[data-chapter]")) {
    let part;
    Object.defineProperty(data, script.dataset.chapter, { enumerable: true, get: () => (part ??= JSON.parse(script.textContent)) });
  }
  return data;
}

const data = chapterData();
declareNames(data.registry);
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
initDeepDives();
startWidgets([
  ["verify-widget", () => initVerifyGrid(data.causal)],
  ["roof-widget", () => initVerifyCost(data.costs, data.models, data.regime.engine)],
  ["rk-widget", () => initRkCurves(data.regime)],
  ["accept-widget", () => initAcceptance(data.acceptance)],
  ["sweep-widget", () => initSweep(data.divergence_sweep)],
  ["gamma-widget", () => initGamma(data.gamma_sweep)],
  ["gamma-steps", () => initGammaSteps(data.gamma_sweep)],
  ["bursts-widget", () => initBursts(data.gamma_sweep)],
  ["mtp-arch-widget", () => initMtpDiagram(data.mtp, data.models)],
  ["mtp-trace-widget", () => initMtpTrace(data.mtp)],
  ["mtp-vs-widget", () => initMtpCompare(data.mtp, data.ledger, data.models)],
  ["tree-widget", () => initTokenTree(data.families)],
  ["recent-widget", () => initRecent(data.families)],
  ["picker-widget", () => initPicker(data.families, data.conditions, data.published, data.regime)],
  ["dial-widget", () => initDial(data.regime)],
  ["ledger-widget", () => initLedger(data.ledger, data.models)],
  ["family-ledger-widget", () => initFamilyLedger(data.families)],
  ["ladder-widget", () => initLadder(data.ladder)],
  ["closing-quiz", () => initClosing()],
  ["lab-widget", () => initLab(data)], // cheap: the lab's weights are parsed once its fold is open and in view
]);
