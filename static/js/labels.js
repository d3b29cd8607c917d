// Names that several widgets print: one name per idea in each language.
// The page's two acceptance rates, never printed under a bare α (glossary #g-alpha-tf, #g-alpha-dec):
// teacher-forced (real text before every position: ⑤'s map, ⑦'s tables) and counted while decoding
// (drafts accepted ÷ drafts checked in a timed run: ③'s points, ⑥'s tables, ⑧'s lab).
export const ALPHA_LABEL = {
  tf: { zh: "α（teacher forcing）", en: "α (teacher-forced)" },
  dec: { zh: "α（解码实测）", en: "α (while decoding)" },
};

export const MODE_LABEL = {
  kvcache: { zh: "KV cache", en: "kv-cache" },
  recompute: { zh: "整窗重算", en: "recompute" },
};

// The engines (from the most per-call overhead to the least) and the decoding methods, as every
// widget names them: registry.json, which experiments/ writes from its one declaration of each
// (experiments/engine.py ENGINES, experiments/methods.py FAMILIES), read by declareNames
// before any widget starts. {name: {zh, en}}, in the registry's order.
// FAMILY holds each method's whole record (where its drafts come from, its shapes, …).
export const ENGINE_LABEL = {};
export const FAMILY_LABEL = {};
export const FAMILY = {};

export function declareNames(registry) {
  for (const e of registry.engines) ENGINE_LABEL[e.name] = e.label;
  for (const f of registry.families) {
    FAMILY_LABEL[f.name] = f.label;
    FAMILY[f.name] = f;
  }
}

// A family's line on a chart (⑥'s dial, ⑤'s "what changed"): one colour per kind of drafter
// (registry.json's group, ⑤'s map; sections.css .k-GROUP), and a dash pattern by the family's place
// among its group in the registry's order.
const DASHES = [null, "6 3", "2 3", "9 3 2 3"];
export const familyClass = (family) => `k-${FAMILY[family]?.group ?? "none"}`;
export function familyDash(family) {
  const group = FAMILY[family]?.group, members = Object.values(FAMILY).filter((f) => f.group === group);
  return DASHES[members.findIndex((f) => f.name === family)] ?? null;
}

const CJK = /[\u3400-\u9fff]/;

// Words of one Chinese phrase: a space only where Chinese meets Latin or digits ("KV cache 模式",
// "整窗重算模式"), none between two Chinese characters.
export function joinZh(...words) {
  return words.reduce((out, w) => (out && !(CJK.test(out.at(-1)) && CJK.test(w[0])) ? `${out} ${w}` : out + w), "");
}

// "name: value" in each language, as a tooltip or a chart point's <title> says it: a full-width
// colon after the Chinese name ("其余开销：0.114 s"). The value is one string or a {zh, en} pair.
export function labelled(name, value) {
  const v = typeof value === "string" ? { zh: value, en: value } : value;
  return { zh: `${name.zh}：${v.zh}`, en: `${name.en}: ${v.en}` };
}

// "kv-cache mode" / "KV cache 模式": the mode as a noun phrase.
export function modePhrase(mode) {
  return { zh: joinZh(MODE_LABEL[mode].zh, "模式"), en: `${MODE_LABEL[mode].en} mode` };
}
