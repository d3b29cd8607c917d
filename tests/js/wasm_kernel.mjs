// The lab's WebAssembly kernel for node's tests, assembled from static/wasm/lab_kernel.mjs as the
// build does (static/wasm/assemble.mjs with wabt; WABT names wabt's package, else `make wabt`'s).
import { execFileSync } from "node:child_process";
import { wasmKernel } from "../../static/js/lab_kernel.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const WABT = process.env.WABT || `${ROOT}.cache/wabt/node_modules/wabt`;

export function kernelBytes() {
  return Buffer.from(execFileSync(process.execPath, [`${ROOT}static/wasm/assemble.mjs`, WABT]).toString(), "base64");
}

export const newWasmKernel = () => wasmKernel(kernelBytes());
