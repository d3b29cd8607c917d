// Names that several widgets print: one name per idea in each language.
export const MODE_LABEL = {
  kvcache: { zh: "KV cache", en: "kv-cache" },
  recompute: { zh: "整窗重算", en: "recompute" },
};

// The engines, from the most per-call overhead to the least (experiments/engine.py ENGINES).
export const ENGINE_LABEL = {
  eager: { zh: "eager 引擎", en: "eager engine" },
  compiled: { zh: "编译引擎", en: "compiled engine" },
  aot: { zh: "AOT 引擎", en: "AOT engine" },
  native: { zh: "原生 C++ 引擎", en: "native C++ engine" },
};

// The method families, as every widget names them (templates/macros.html.j2 `fname` is the
// templates' side of the same names).
export const FAMILY_LABEL = {
  plain: { zh: "普通解码", en: "plain decoding" },
  draft: { zh: "草稿模型", en: "draft model" },
  mtp: { zh: "MTP 头", en: "MTP head" },
  ngram: { zh: "n-gram 表", en: "n-gram table" },
  lookup: { zh: "提示查找", en: "prompt lookup" },
  match: { zh: "最长匹配 + n-gram", en: "longest match + n-gram" },
  suffix: { zh: "后缀解码", en: "suffix decoding" },
  medusa: { zh: "Medusa 头", en: "Medusa heads" },
  eagle: { zh: "EAGLE 草稿层", en: "EAGLE drafter" },
  eagle3: { zh: "EAGLE-3 草稿层", en: "EAGLE-3 drafter" },
  block: { zh: "块并行草稿器", en: "block-parallel drafter" },
  lookahead: { zh: "前瞻解码", en: "lookahead decoding" },
};

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
