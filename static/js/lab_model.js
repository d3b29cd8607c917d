// The lab's models in the browser: experiments/model.py written again in plain JS (RMSNorm, RoPE,
// SwiGLU, the tied head, the MTP head, a kv cache with a 64-position sliding window and rollback),
// over the float16 weights that experiments/measure/lab.py exports, and the order-5 n-gram table.
// tests/js/lab.test.mjs holds the logits to PyTorch's on the same rounded weights (1e-4).
// Each position is computed alone, in one fixed order of operations, so a position's logits are
// the same bits whether it comes in a verify of γ + 1 positions or alone: greedy identity is exact.

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

// y = W x for W [rows, cols] stored row by row (nn.Linear's weight). Four running sums per row
// (every width here is a multiple of 4): V8 runs this about 1.6 times as fast as one sum.
function matvec(W, x, rows, cols) {
  const y = new Float64Array(rows);
  for (let r = 0, o = 0; r < rows; r++, o += cols) {
    let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (let c = 0; c < cols; c += 4) {
      a0 += W[o + c] * x[c];
      a1 += W[o + c + 1] * x[c + 1];
      a2 += W[o + c + 2] * x[c + 2];
      a3 += W[o + c + 3] * x[c + 3];
    }
    y[r] = (a0 + a1) + (a2 + a3);
  }
  return y;
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
  constructor(w, prefix, cfg) {
    this.cfg = cfg;
    this.attnNorm = w(`${prefix}.attn_norm.weight`);
    this.wqkv = w(`${prefix}.attn.wqkv.weight`);
    this.wo = w(`${prefix}.attn.wo.weight`);
    this.mlpNorm = w(`${prefix}.mlp_norm.weight`);
    this.w13 = w(`${prefix}.mlp.w13.weight`);
    this.w2 = w(`${prefix}.mlp.w2.weight`);
  }

  // One position `pos` through the block, its keys and values written to layer `layer` of cache.
  forward(x, pos, cache, layer, rope) {
    const { n_embd: C, n_head: H, mlp_hidden: M } = this.cfg, D = C / H, half = D / 2;
    const qkv = matvec(this.wqkv, rmsNorm(x, this.attnNorm), 3 * C, C);
    const keys = cache.k[layer], values = cache.v[layer];
    for (let hd = 0; hd < H; hd++) {  // RoPE on q and k: the two halves of each head rotate as pairs
      for (const base of [hd * D, C + hd * D]) {
        for (let i = 0; i < half; i++) {
          const a = qkv[base + i], b = qkv[base + half + i];
          qkv[base + i] = a * rope.cos[i] - b * rope.sin[i];
          qkv[base + half + i] = a * rope.sin[i] + b * rope.cos[i];
        }
      }
    }
    for (let i = 0; i < C; i++) {
      keys[pos * C + i] = qkv[C + i];
      values[pos * C + i] = qkv[2 * C + i];
    }
    const first = Math.max(0, pos - cache.window + 1), scale = 1 / Math.sqrt(D);
    const y = new Float64Array(C), scores = new Float64Array(pos - first + 1);
    for (let hd = 0; hd < H; hd++) {
      let top = -Infinity;
      for (let j = first; j <= pos; j++) {
        let dot = 0;
        for (let i = 0; i < D; i++) dot += qkv[hd * D + i] * keys[j * C + hd * D + i];
        scores[j - first] = dot * scale;
        top = Math.max(top, scores[j - first]);
      }
      let sum = 0;
      for (let j = 0; j < scores.length; j++) sum += (scores[j] = Math.exp(scores[j] - top));
      for (let j = first; j <= pos; j++) {
        const weight = scores[j - first] / sum;
        for (let i = 0; i < D; i++) y[hd * D + i] += weight * values[j * C + hd * D + i];
      }
    }
    const attn = matvec(this.wo, y, C, C);
    const mid = new Float64Array(C);
    for (let i = 0; i < C; i++) mid[i] = x[i] + attn[i];
    const gateUp = matvec(this.w13, rmsNorm(mid, this.mlpNorm), 2 * M, C);
    const act = new Float64Array(M);
    for (let i = 0; i < M; i++) {
      const g = gateUp[i];
      act[i] = (g / (1 + Math.exp(-g))) * gateUp[M + i];  // SiLU(gate) · up
    }
    const down = matvec(this.w2, act, C, M);
    for (let i = 0; i < C; i++) mid[i] += down[i];
    return mid;
  }
}

export class Model {
  // spec: lab.json's {config, tensors}; values: every weight as one Float32Array
  constructor(spec, values) {
    const cfg = this.cfg = spec.config;
    const size = (shape) => shape.reduce((a, b) => a * b, 1);
    const table = new Map(spec.tensors.map((t) => [t.name, values.subarray(t.offset, t.offset + size(t.shape))]));
    const w = (name) => {
      if (!table.has(name)) throw new Error(`the lab's weights have no tensor ${name}`);
      return table.get(name);
    };
    this.emb = w("tok_emb.weight");
    this.blocks = Array.from({ length: cfg.n_layer }, (_, i) => new Block(w, `blocks.${i}`, cfg));
    this.norm = w("norm.weight");
    if (cfg.mtp) {
      this.mtp = { hiddenNorm: w("mtp.hidden_norm.weight"), embedNorm: w("mtp.embed_norm.weight"),
        proj: w("mtp.proj.weight"), block: new Block(w, "mtp.block", cfg) };
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

  // Final norm and the output head tied to the embedding.
  head(h) {
    return matvec(this.emb, rmsNorm(h, this.norm), this.cfg.vocab_size, this.cfg.n_embd);
  }

  // tokens at the cache's next positions: {logits, h} per position (h before the final norm).
  forward(cache, tokens) {
    cache.reserve(cache.length + tokens.length);
    const out = { logits: [], h: [] };
    for (const token of tokens) {
      const pos = cache.length, rope = this.rope(pos);
      let x = this.embed(token);
      this.blocks.forEach((block, layer) => { x = block.forward(x, pos, cache, layer, rope); });
      cache.length += 1;
      out.h.push(x);
      out.logits.push(this.head(x));
    }
    return out;
  }

  // The MTP head on pairs (h_t, x_{t+1}) at its cache's next positions: logits for x_{t+2}.
  mtpForward(cache, hs, nextTokens) {
    if (!this.mtp) throw new Error("this model has no MTP head");
    const { hiddenNorm, embedNorm, proj, block } = this.mtp, C = this.cfg.n_embd;
    cache.reserve(cache.length + hs.length);
    return hs.map((h, i) => {
      const pos = cache.length, joined = new Float64Array(2 * C);
      joined.set(rmsNorm(h, hiddenNorm));
      joined.set(rmsNorm(this.embed(nextTokens[i]), embedNorm), C);
      const feature = block.forward(matvec(proj, joined, C, 2 * C), pos, cache, 0, this.rope(pos));
      cache.length += 1;
      return this.head(feature);
    });
  }
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

// lab.json (parsed) -> {vocab, main, draft, ngram}. `gunzip` is injectable for node's tests.
export async function loadLab(labData, gunzip = gunzipBase64) {
  const [main, draft, ngram] = await Promise.all(
    [labData.main.blob, labData.draft.blob, labData.ngram.blob].map((blob) => gunzip(blob)));
  return {
    vocab: labData.vocab,
    main: new Model(labData.main, float16ToFloat32(main)),
    draft: new Model(labData.draft, float16ToFloat32(draft)),
    ngram: new Ngram(labData.ngram, ngram, labData.vocab.length),
  };
}
