// The lab's models, parsed and unpacked once per page from <script id="lab-data">, for whichever
// widget asks first: the lab (section ⑧) or section ①'s measurement of the browser's forward. They
// run on the WebAssembly SIMD kernel (<script id="lab-kernel">, assembled by the build) where the
// browser has WebAssembly SIMD, else on the JavaScript one (lab_kernel.js); the address can ask
// for the JavaScript one (#lab-forward=js), to set the two side by side.
import { jsKernel, wasmKernel, wasmSimdSupported } from "./lab_kernel.js";
import { gunzipBase64, loadLab } from "./lab_model.js";
import { hashGet } from "./state.js";

export const FORWARD_HASH = "lab-forward";

let loading = null;

// The page's script runs before the parser reaches the weights, so wait for the end of parsing.
const parsed = () => new Promise((resolve) => {
  if (document.readyState !== "loading") resolve();
  else document.addEventListener("DOMContentLoaded", () => resolve(), { once: true });
});

// Which forward the page runs, chosen once (a later link that rewrites the address keeps it).
let forward = null;
const chosenForward = () => (forward ??= !wasmSimdSupported() || hashGet(FORWARD_HASH) === "js" ? "js" : "wasm");

// A fresh kernel: a WebAssembly one (its own memory) where the browser can run it, else JavaScript's.
export async function pageKernel() {
  if (chosenForward() === "js") return jsKernel;
  const text = document.getElementById("lab-kernel").textContent.trim();
  return wasmKernel(Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0)));
}

export function pageLab() {
  if (!loading) {
    loading = parsed().then(async () => loadLab(JSON.parse(document.getElementById("lab-data").textContent),
      gunzipBase64, await pageKernel()));
  }
  return loading;
}
