// The lab's models in the browser: experiments/model.py written again in plain JS (RMSNorm, RoPE,
// SwiGLU, the tied head, the MTP head, a kv cache with a 64-position sliding window and rollback),
// over the float16 weights that experiments/measure/lab.py exports, and the order-5 n-gram table.
// tests/js/lab.test.mjs holds the logits to PyTorch's on the same rounded weights (1e-4).
// The positions of one call go through each weight matrix together, two positions sharing each
// weight they read, but each position's sums keep the one order of operations it has alone: a
// position's logits are the same bits whether it comes in a verify of γ + 1 positions or alone,
// so greedy identity is exact.

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

// matvec for two positions x and z at once: each weight is read once and multiplied into both
// positions' sums, and each position's sums run in matvec's order, so the bits are matvec's.
// V8 spends a product's time mostly on fetching and checking its two operands, not on memory
// traffic (these matrices sit in the CPU's caches), so it is the shared fetch of the weight
// that makes a pair cost well under two single positions (a row read once and then looped over
// every position's x, each with its own sums, costs as much as the positions one by one).
function matvec2(W, x, z, rows, cols) {
  const yx = new Float64Array(rows), yz = new Float64Array(rows);
  for (let r = 0, o = 0; r < rows; r++, o += cols) {
    let a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
    for (let c = 0; c < cols; c += 4) {
      const w0 = W[o + c], w1 = W[o + c + 1], w2 = W[o + c + 2], w3 = W[o + c + 3];
      a0 += w0 * x[c]; b0 += w0 * z[c];
      a1 += w1 * x[c + 1]; b1 += w1 * z[c + 1];
      a2 += w2 * x[c + 2]; b2 += w2 * z[c + 2];
      a3 += w3 * x[c + 3]; b3 += w3 * z[c + 3];
    }
    yx[r] = (a0 + a1) + (a2 + a3);
    yz[r] = (b0 + b1) + (b2 + b3);
  }
  return [yx, yz];
}

// W xs[p] for every position p of a call: two at a time, an odd one out alone. A position's
// bits do not depend on how many positions came with it, nor on its place among them.
function matmul(W, xs, rows, cols) {
  const ys = [];
  for (let p = 0; p + 1 < xs.length; p += 2) ys.push(...matvec2(W, xs[p], xs[p + 1], rows, cols));
  if (xs.length % 2) ys.push(matvec(W, xs[xs.length - 1], rows, cols));
  return ys;
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

  // Positions start, start + 1, … (one x each) through the block together; their keys and
  // values are written to layer `layer` of cache before any of them attends.
  forward(xs, start, cache, layer, ropes) {
    const { n_embd: C, mlp_hidden: M } = this.cfg;
    const qkvs = matmul(this.wqkv, xs.map((x) => rmsNorm(x, this.attnNorm)), 3 * C, C);
    for (let i = 0; i < qkvs.length; i++) {
      this.rotate(qkvs[i], ropes[i]);
      cache.k[layer].set(qkvs[i].subarray(C, 2 * C), (start + i) * C);
      cache.v[layer].set(qkvs[i].subarray(2 * C), (start + i) * C);
    }
    const ys = qkvs.map((qkv, i) => this.attend(qkv, start + i, cache, layer));
    const attn = matmul(this.wo, ys, C, C);
    const mids = xs.map((x, i) => add(x, attn[i]));
    const gateUps = matmul(this.w13, mids.map((mid) => rmsNorm(mid, this.mlpNorm)), 2 * M, C);
    const downs = matmul(this.w2, gateUps.map((gateUp) => swiGlu(gateUp, M)), C, M);
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

  // Causal attention of the query at `pos` over the cache's last `window` positions up to pos.
  attend(qkv, pos, cache, layer) {
    const { n_embd: C, n_head: H } = this.cfg, D = C / H;
    const keys = cache.k[layer], values = cache.v[layer];
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
    return y;
  }
}

function add(x, y) {
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = x[i] + y[i];
  return out;
}

// SiLU(gate) · up, from the [gate, up] halves of w13's output.
function swiGlu(gateUp, M) {
  const act = new Float64Array(M);
  for (let i = 0; i < M; i++) {
    const g = gateUp[i];
    act[i] = (g / (1 + Math.exp(-g))) * gateUp[M + i];
  }
  return act;
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

  // Final norm and the output head tied to the embedding, for every position's h.
  head(hs) {
    return matmul(this.emb, hs.map((h) => rmsNorm(h, this.norm)), this.cfg.vocab_size, this.cfg.n_embd);
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
    if (!this.mtp) throw new Error("this model has no MTP head");
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
    const features = block.forward(matmul(proj, joined, C, 2 * C), start, cache, 0, ropes);
    cache.length = start + hs.length;
    return this.head(features);
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
