// Light / dark: follows prefers-color-scheme until the reader picks one with the switch.
import { readStored, writeStored } from "./i18n.js";

export function initTheme(button) {
  const root = document.documentElement;
  const media = window.matchMedia("(prefers-color-scheme: dark)");
  const apply = (theme) => {
    root.dataset.theme = theme;
    button.setAttribute("aria-pressed", String(theme === "dark"));
  };
  const stored = readStored("chapter-theme");
  apply(stored === "dark" || stored === "light" ? stored : media.matches ? "dark" : "light");
  media.addEventListener("change", (e) => {
    if (!readStored("chapter-theme")) apply(e.matches ? "dark" : "light");
  });
  button.addEventListener("click", () => {
    const next = root.dataset.theme === "dark" ? "light" : "dark";
    writeStored("chapter-theme", next);
    apply(next);
  });
}
