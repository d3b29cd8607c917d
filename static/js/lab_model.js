// The lab's models in the browser: experiments/model.py written again in plain JS (RMSNorm, RoPE,
// SwiGLU, the tied head, the MTP head, a kv cache with a 64-position sliding window and rollback),
// over the float16 weights that experiments/measure/lab.py exports, and the order-5 n-gram table.
// tests/js/lab.test.mjs holds the logits to PyTorch's on the same rounded weights (1e-4).
// The matrix products and attention go through a kernel (lab_kernel.js: JS in float64, or WebAssembly
// SIMD in float32): the positions of one call go through each weight matrix together, but each position's
// sums keep the one order of operations it has alone, so a position's logits are the same bits
// whether it comes in a verify of γ + 1 positions or alone, and greedy identity is exact.
// heavyTwin widens every MLP as model.py's heavy_twin does: the same logits, more weights to read.
import { jsKernel } from "./lab_kernel.js";
import { mulberry32 } from "./rule.js";

// base64 → gzip → bytes, with the browser's own DecompressionStream (no library, no network).
export async function gunzipBase64(text) {
  if (typeof DecompressionStream === "undefined") throw new Error("DecompressionStream is missing");
  const packed = Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// IEEE half precision (little-endian) to float32, exactly.
export function float16ToFloat32(bytes) {
  const aligned = bytes.byteOffset % 2 ? bytes.slice() : bytes;
  const halves = new Uint16Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 2);
  const out = new Float32Array(halves.length);
  for (let i = 0; i < halves.length; i++) {
    const h = halves[i], sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 31, frac = h & 1023;
    out[i] = exp === 0 ? sign * frac * 2 ** -24
      : exp === 31 ? (frac ? NaN : sign * Infinity)
      : sign * (1 + frac / 1024) * 2 ** (exp - 15);
  }
  return out;
}

function rmsNorm(x, weight, eps = 1e-5) {
  let ss = 0;
  for (let i = 0; i < x.length; i++) ss += x[i] * x[i];
  const scale = 1 / Math.sqrt(ss / x.length + eps);
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i] * scale * weight[i];
  return out;
}

// Keys and values of one model's layers for one sequence: every position kept (a lab run is a few
// thousand positions at most), attention limited to the last `window`; rollback moves the length.
export class KVCache {
  constructor(nLayer, width, window) {
    this.nLayer = nLayer;
    this.width = width;
    this.window = window;
    this.capacity = 256;
    this.k = Array.from({ length: nLayer }, () => new Float32Array(this.capacity * width));
    this.v = Array.from({ length: nLayer }, () => new Float32Array(this.capacity * width));
    this.length = 0;
  }

  reserve(n) {
    if (n <= this.capacity) return;
    while (this.capacity < n) this.capacity *= 2;
    const grow = (a) => { const b = new Float32Array(this.capacity * this.width); b.set(a); return b; };
    this.k = this.k.map(grow);
    this.v = this.v.map(grow);
  }

  rollback(length) {
    if (!(length >= 0 && length <= this.length)) throw new Error(`cannot roll back to ${length}: the cache holds ${this.length}`);
    this.length = length;
  }
}

class Block {
  // w(name) is a tensor's values; matrices go to the kernel, norms stay arrays
  constructor(w, prefix, cfg, kernel) {
    const { n_embd: C, mlp_hidden: M } = cfg;
    this.cfg = cfg;
    this.kernel = kernel;
    this.attnNorm = w(`${prefix}.attn_norm.weight`);
    this.wqkv = kernel.weight(w(`${prefix}.attn.wqkv.weight`), 3 * C, C);
    this.wo = kernel.weight(w(`${prefix}.attn.wo.weight`), C, C);
    this.mlpNorm = w(`${prefix}.mlp_norm.weight`);
    this.w13 = kernel.weight(w(`${prefix}.mlp.w13.weight`), 2 * M, C);
    this.w2 = kernel.weight(w(`${prefix}.mlp.w2.weight`), C, M);
  }

  // This block with `extra` SwiGLU units more (the kernel's widen); the rest shared.
  widened(extra, next) {
    const wide = Object.assign(Object.create(Block.prototype), this);
    [wide.w13, wide.w2] = this.kernel.widen(this.w13, this.w2, extra, next);
    return wide;
  }

  // Positions start, start + 1, … (one x each) through the block together; their keys and
  // values are written to layer `layer` of cache before any of them attends.
  forward(xs, start, cache, layer, ropes) {
    const C = this.cfg.n_embd, kernel = this.kernel;
    const qkvs = kernel.matmul(this.wqkv, xs.map((x) => rmsNorm(x, this.attnNorm)));
    for (let i = 0; i < qkvs.length; i++) {
      this.rotate(qkvs[i], ropes[i]);
      cache.k[layer].set(qkvs[i].subarray(C, 2 * C), (start + i) * C);
      cache.v[layer].set(qkvs[i].subarray(2 * C), (start + i) * C);
    }
    const ys = kernel.attend(qkvs, cache.k[layer], cache.v[layer], start, cache.window, this.cfg.n_head);
    const attn = kernel.matmul(this.wo, ys);
    const mids = xs.map((x, i) => add(x, attn[i]));
    const downs = kernel.mlp(this.w13, this.w2, mids.map((mid) => rmsNorm(mid, this.mlpNorm)), this.w2.cols);
    return mids.map((mid, i) => add(mid, downs[i]));
  }

  // RoPE on q and k in place: the two halves of each head rotate as pairs.
  rotate(qkv, rope) {
    const { n_embd: C, n_head: H } = this.cfg, D = C / H, half = D / 2;
    for (let hd = 0; hd < H; hd++) {
      for (const base of [hd * D, C + hd * D]) {
        for (let i = 0; i < half; i++) {
          const a = qkv[base + i], b = qkv[base + half + i];
          qkv[base + i] = a * rope.cos[i] - b * rope.sin[i];
          qkv[base + half + i] = a * rope.sin[i] + b * rope.cos[i];
        }
      }
    }
  }
}

function add(x, y) {
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i] + y[i];
  return out;
}

export class Model {
  // spec: lab.json's {config, tensors}; values: every weight as one Float32Array; kernel: lab_kernel.js's
  constructor(spec, values, kernel = jsKernel) {
    const cfg = this.cfg = spec.config;
    this.spec = spec;
    this.values = values;
    this.kernel = kernel;
    const size = (shape) => shape.reduce((a, b) => a * b, 1);
    const table = new Map(spec.tensors.map((t) => [t.name, values.subarray(t.offset, t.offset + size(t.shape))]));
    const w = (name) => {
      if (!table.has(name)) throw new Error(`the lab's weights have no tensor ${name}`);
      return table.get(name);
    };
    this.emb = w("tok_emb.weight");
    this.headWeight = kernel.weight(this.emb, cfg.vocab_size, cfg.n_embd);  // tied to the embedding
    this.blocks = Array.from({ length: cfg.n_layer }, (_, i) => new Block(w, `blocks.${i}`, cfg, kernel));
    this.norm = w("norm.weight");
    if (cfg.mtp) {
      this.mtp = { hiddenNorm: w("mtp.hidden_norm.weight"), embedNorm: w("mtp.embed_norm.weight"),
        proj: kernel.weight(w("mtp.proj.weight"), cfg.n_embd, 2 * cfg.n_embd), block: new Block(w, "mtp.block", cfg, kernel) };
    }
    const D = cfg.n_embd / cfg.n_head;
    this.invFreq = Array.from({ length: D / 2 }, (_, i) => 1 / 10000 ** ((2 * i) / D));
    this.ropeCache = [];
  }

  // cos and sin of every frequency at position pos, rounded to float32 as model.py's tables are.
  rope(pos) {
    if (!this.ropeCache[pos]) {
      const angles = this.invFreq.map((f) => pos * f);
      this.ropeCache[pos] = { cos: Float32Array.from(angles, Math.cos), sin: Float32Array.from(angles, Math.sin) };
    }
    return this.ropeCache[pos];
  }

  newCache() {
    return new KVCache(this.cfg.n_layer, this.cfg.n_embd, this.cfg.block_size);
  }

  newMtpCache() {
    return new KVCache(1, this.cfg.n_embd, this.cfg.block_size);
  }

  embed(token) {
    const C = this.cfg.n_embd;
    return Float64Array.from(this.emb.subarray(token * C, (token + 1) * C));
  }

  // Final norm and the output head tied to the embedding, for every position's h.
  head(hs) {
    return this.kernel.matmul(this.headWeight, hs.map((h) => rmsNorm(h, this.norm)));
  }

  // tokens at the cache's next positions, all through each layer together: {logits, h} per
  // position (h before the final norm).
  forward(cache, tokens) {
    const start = cache.length;
    cache.reserve(start + tokens.length);
    const ropes = tokens.map((_, i) => this.rope(start + i));
    let xs = tokens.map((token) => this.embed(token));
    this.blocks.forEach((block, layer) => { xs = block.forward(xs, start, cache, layer, ropes); });
    cache.length = start + tokens.length;
    return { logits: this.head(xs), h: xs };
  }

  // The MTP head on pairs (h_t, x_{t+1}) at its cache's next positions: logits for x_{t+2}.
  mtpForward(cache, hs, nextTokens) {
    if (!this.mtp) throw new Error("this model has no MTP module (lab.json main.mtp)");
    const { hiddenNorm, embedNorm, proj, block } = this.mtp, C = this.cfg.n_embd;
    const start = cache.length;
    cache.reserve(start + hs.length);
    const joined = hs.map((h, i) => {
      const pair = new Float64Array(2 * C);
      pair.set(rmsNorm(h, hiddenNorm));
      pair.set(rmsNorm(this.embed(nextTokens[i]), embedNorm), C);
      return pair;
    });
    const ropes = hs.map((_, i) => this.rope(start + i));
    const features = block.forward(this.kernel.matmul(proj, joined), start, cache, 0, ropes);
    cache.length = start + hs.length;
    return this.head(features);
  }

  // The same model on another kernel (a fresh one: a heavy twin gets a memory of its own).
  on(kernel) {
    return new Model(this.spec, this.values, kernel);
  }

  // Parameters of the next-token model (MTP head false) or of its MTP head (true).
  params(head = false) {
    const size = (shape) => shape.reduce((a, b) => a * b, 1);
    const widened = this.blocks.length * 3 * this.cfg.n_embd * (this.blocks[0].w2.cols - this.spec.config.mlp_hidden);
    const own = this.spec.tensors.filter((t) => t.name.startsWith("mtp.") === head).reduce((n, t) => n + size(t.shape), 0);
    return own + (head ? 3 * this.cfg.n_embd * (this.mtp.block.w2.cols - this.spec.config.mlp_hidden) : widened);
  }

  // This model about `scale` times heavier in weights, the same function: model.py's heavy_twin.
  // Every trunk MLP gets the same number of extra units, the MTP head's MLP its own, each sized so
  // that its group's parameters grow scale-fold (rounded to a multiple of 4, the SIMD kernel's
  // width); input weights uniform with the init's standard deviation 0.02 from a seeded generator,
  // output weights zero. The rest (embedding, attention, norms) is shared with this model.
  heavyTwin(scale, seed = 0) {
    if (!(scale >= 1)) throw new Error(`scale must be at least 1, got ${scale}`);
    if (scale === 1) return this;
    const next = uniform(0.02, seed), C = this.cfg.n_embd;
    const extra = (params, blocks) => 4 * Math.round((scale - 1) * params / (3 * C * blocks) / 4);
    const twin = Object.assign(Object.create(Model.prototype), this);
    const units = extra(this.params(false), this.blocks.length);
    twin.blocks = this.blocks.map((block) => block.widened(units, next));
    twin.cfg = { ...this.cfg, mlp_hidden: this.cfg.mlp_hidden + units };
    if (this.mtp) twin.mtp = { ...this.mtp, block: this.mtp.block.widened(extra(this.params(true), 1), next) };
    return twin;
  }
}

// Uniform values of standard deviation `std` from a seeded generator (rule.js's mulberry32).
function uniform(std, seed) {
  const half = std * Math.sqrt(3), rand = mulberry32(seed);
  return () => half * (2 * rand() - 1);
}

function readVarint(bytes, at) {
  let value = 0, scale = 1, byte;
  do {
    byte = bytes[at.i++];
    value += (byte & 127) * scale;
    scale *= 128;
  } while (byte & 128);
  return value;
}

// The n-gram table of experiments/ngram.py, from lab.py's trie (level by level: each context's
// number of next chars, then the chars, then their counts). q after a sequence backs off from
// the longest context of up to order − 1 chars that occurs.
export class Ngram {
  constructor(spec, bytes, vocabSize) {
    this.order = spec.order;
    this.vocabSize = vocabSize;
    this.rows = new Map();  // "length:code" -> {chars, counts, total}
    const at = { i: spec.next_bytes + spec.char_bytes };
    let nextAt = 0, charAt = spec.next_bytes, contexts = [0];
    for (let length = 0; length < this.order; length++) {
      const grams = [];
      for (const context of contexts) {
        const n = bytes[nextAt++], chars = bytes.subarray(charAt, charAt + n);
        charAt += n;
        const counts = Array.from(chars, () => readVarint(bytes, at));
        if (n) this.rows.set(`${length}:${context}`, { chars, counts, total: counts.reduce((a, b) => a + b, 0) });
        for (const ch of chars) grams.push(context * vocabSize + ch);
      }
      contexts = grams;
    }
  }

  // The next-char distribution after seq (counts / total of the longest occurring context).
  probs(seq) {
    for (let length = Math.min(this.order - 1, seq.length); length >= 0; length--) {
      let code = 0;
      for (const c of seq.slice(seq.length - length)) code = code * this.vocabSize + c;
      const row = this.rows.get(`${length}:${code}`);
      if (row) {
        const p = new Float64Array(this.vocabSize);
        row.chars.forEach((ch, i) => { p[ch] = row.counts[i] / row.total; });
        return p;
      }
    }
    throw new Error("the empty context always occurs");
  }
}

// lab.json (parsed) -> {vocab, main, draft, ngram}. `gunzip` is injectable for node's tests; `kernel`
// is lab_kernel.js's jsKernel or a wasmKernel.
export async function loadLab(labData, gunzip = gunzipBase64, kernel = jsKernel) {
  const [main, draft, ngram] = await Promise.all(
    [labData.main.blob, labData.draft.blob, labData.ngram.blob].map((blob) => gunzip(blob)));
  return {
    vocab: labData.vocab,
    kernel: kernel.name,
    main: new Model(labData.main, float16ToFloat32(main), kernel),
    draft: new Model(labData.draft, float16ToFloat32(draft), kernel),
    ngram: new Ngram(labData.ngram, ngram, labData.vocab.length),
  };
}
