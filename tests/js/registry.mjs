// The names every widget prints, as the page declares them before its widgets start (main.js):
// a test that renders a family's or an engine's name imports this first.
import { readFileSync } from "node:fs";
import { declareNames } from "../../static/js/labels.js";

export const registry = JSON.parse(readFileSync(new URL("../../experiments/results/registry.json", import.meta.url)));
declareNames(registry);
