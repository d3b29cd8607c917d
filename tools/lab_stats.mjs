// The lab's acceptance and characters per main forward, with the ledger's settings (600 characters
// from "ROMEO:\n" at T = 1, 7 sampling seeds): the same JS decoders the page runs, here in node.
//     node tools/lab_stats.mjs [gamma]      prints one JSON object (python -m tools.bench records it)
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { loadLab } from "../static/js/lab_model.js";
import { encodePrompt, METHODS, newDecoder } from "../static/js/lab_decode.js";

const gamma = Number(process.argv[2] || 4), SEEDS = [0, 1, 2, 3, 4, 5, 6], CHARS = 600;
const LAB = JSON.parse(readFileSync(new URL("../experiments/results/lab.json", import.meta.url), "utf8"));
const lab = await loadLab(LAB, async (text) => new Uint8Array(gunzipSync(Buffer.from(text, "base64"))));
const prompt = encodePrompt(lab, "ROMEO:\n").ids;
const out = { gamma, seeds: SEEDS, chars: CHARS, temperature: 1, methods: {} };
for (const method of METHODS) {
  const total = { accepted: 0, checked: 0, mainForwards: 0, emitted: 0 };
  for (const seed of SEEDS) {
    const decoder = newDecoder(lab, { method, gamma, temperature: 1, seed, prompt, maxChars: CHARS });
    while (decoder.step());
    for (const key of Object.keys(total)) total[key] += decoder.counters[key];
  }
  out.methods[method] = { gamma: method === "draft" || method === "ngram" ? gamma : method === "mtp" ? 1 : 0,
    alpha: total.checked ? total.accepted / total.checked : null, tokens_per_main: total.emitted / total.mainForwards };
}
console.log(JSON.stringify(out));
