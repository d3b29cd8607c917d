// Assemble the lab's kernel (lab_kernel.mjs) with wabt and print the module as base64 on stdout:
//   node static/wasm/assemble.mjs <path of wabt's package>
// chapter/build.py runs this during the build; the page carries the base64.
import { createRequire } from "node:module";
import { kernelWat } from "./lab_kernel.mjs";

const wabtPath = process.argv[2];
if (!wabtPath) {
  console.error("usage: node static/wasm/assemble.mjs <path of wabt's package>");
  process.exit(2);
}
const wabt = await createRequire(import.meta.url)(wabtPath)();
const module = wabt.parseWat("lab_kernel.wat", kernelWat(), { simd: true });
module.validate();
const { buffer } = module.toBinary({ log: false, write_debug_names: false });
process.stdout.write(Buffer.from(buffer).toString("base64"));
