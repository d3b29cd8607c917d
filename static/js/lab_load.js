// The lab's models, parsed and unpacked once per page from <script id="lab-data">, for whichever
// widget asks first: the lab (section ⑧) or section ①'s measurement of the JavaScript forward.
import { loadLab } from "./lab_model.js";

let loading = null;

// The page's script runs before the parser reaches the weights, so wait for the end of parsing.
const parsed = () => new Promise((resolve) => {
  if (document.readyState !== "loading") resolve();
  else document.addEventListener("DOMContentLoaded", () => resolve(), { once: true });
});

export function pageLab() {
  if (!loading) loading = parsed().then(() => loadLab(JSON.parse(document.getElementById("lab-data").textContent)));
  return loading;
}
