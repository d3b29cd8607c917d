// The lab's models, parsed and unpacked once per page from <script id="lab-data">, for whichever
// widget asks first: the lab (section ⑧) or section ①'s measurement of the JavaScript forward.
import { loadLab } from "./lab_model.js";

let loading = null;

export function pageLab() {
  if (!loading) loading = Promise.resolve().then(() => loadLab(JSON.parse(document.getElementById("lab-data").textContent)));
  return loading;
}
