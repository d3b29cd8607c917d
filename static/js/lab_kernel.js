// The arithmetic under the lab's forward (lab_model.js), in two kernels with one interface:
//
//   weight(values, rows, cols)   a matrix [rows, cols] (nn.Linear's layout) the kernel keeps
//   matmul(W, xs)                W x for every position's x, as Float64Arrays
//   mlp(w13, w2, xs, M)          SwiGLU: w2 (SiLU(gate) · up), [gate, up] = w13 x, M units
//   attend(qkvs, keys, values, start, window, H)
//                                causal attention of the queries at positions start, start + 1, …
//                                (each qkv's first C values, H heads) over the cache's keys and
//                                values (rows of C), each over its last `window` positions
//   widen(w13, w2, extra, next)  the same MLP with `extra` units more (model.py's widen): input
//                                weights from next() (a seeded generator), output weights zero
//
// jsKernel computes in float64 over float32 weights; wasmKernel in float32 with WebAssembly SIMD
// (static/wasm/lab_kernel.mjs), reading each weight once for up to 6 positions. In both, a
// position's outputs are the same bits whether it comes alone or among a verify's positions.

// y = W x for W [rows, cols] stored row by row. Four running sums per row (every width here is a
// multiple of 4): V8 runs this about 1.6 times as fast as one sum.
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

// SiLU(gate) · up, from the [gate, up] halves of w13's output.
function swiGlu(gateUp, M) {
  const act = new Float64Array(M);
  for (let i = 0; i < M; i++) {
    const g = gateUp[i];
    act[i] = (g / (1 + Math.exp(-g))) * gateUp[M + i];
  }
  return act;
}

// One query at `pos` over the last `window` rows of keys and values up to pos, head by head. Each
// dot product runs four sums (every head width here is a multiple of 4), as matvec does.
function attendOne(qkv, pos, keys, values, window, H) {
  const C = qkv.length / 3, D = C / H, first = Math.max(0, pos - window + 1), n = pos - first + 1;
  const scale = 1 / Math.sqrt(D), y = new Float64Array(C), scores = new Float64Array(n);
  for (let h = 0; h < C; h += D) {
    let top = -Infinity;
    for (let j = 0, o = first * C + h; j < n; j++, o += C) {
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      for (let i = 0; i < D; i += 4) {
        a0 += qkv[h + i] * keys[o + i];
        a1 += qkv[h + i + 1] * keys[o + i + 1];
        a2 += qkv[h + i + 2] * keys[o + i + 2];
        a3 += qkv[h + i + 3] * keys[o + i + 3];
      }
      top = Math.max(top, scores[j] = ((a0 + a1) + (a2 + a3)) * scale);
    }
    let sum = 0;
    for (let j = 0; j < n; j++) sum += (scores[j] = Math.exp(scores[j] - top));
    for (let j = 0, o = first * C + h; j < n; j++, o += C) {
      const weight = scores[j] / sum;
      for (let i = 0; i < D; i++) y[h + i] += weight * values[o + i];
    }
  }
  return y;
}

// The widened matrices' values: w13's gate rows then up rows, each old then new (model.py's
// widen, so that [gate, up] still splits in half), and w2's old columns then `extra` zeros.
function widened(w13, w2, M, C, extra, next) {
  const wide = M + extra;
  const gateUp = new Float32Array(2 * wide * C);
  for (const half of [0, 1]) {
    gateUp.set(w13.subarray(half * M * C, (half + 1) * M * C), half * wide * C);
    for (let i = (half * wide + M) * C, end = (half + 1) * wide * C; i < end; i++) gateUp[i] = next();
  }
  const down = new Float32Array(C * wide);
  for (let r = 0; r < C; r++) down.set(w2.subarray(r * M, (r + 1) * M), r * wide);
  return [gateUp, down];
}

export const jsKernel = {
  name: "js",
  weight: (values, rows, cols) => ({ values, rows, cols }),
  // two positions at a time, an odd one out alone
  matmul({ values, rows, cols }, xs) {
    const ys = [];
    for (let p = 0; p + 1 < xs.length; p += 2) ys.push(...matvec2(values, xs[p], xs[p + 1], rows, cols));
    if (xs.length % 2) ys.push(matvec(values, xs[xs.length - 1], rows, cols));
    return ys;
  },
  mlp(w13, w2, xs, M) {
    return this.matmul(w2, this.matmul(w13, xs).map((gateUp) => swiGlu(gateUp, M)));
  },
  attend(qkvs, keys, values, start, window, H) {
    return qkvs.map((qkv, i) => attendOne(qkv, start + i, keys, values, window, H));
  },
  widen(w13, w2, extra, next) {
    const M = w2.cols, C = w2.rows, [gateUp, down] = widened(w13.values, w2.values, M, C, extra, next);
    return [this.weight(gateUp, 2 * (M + extra), C), this.weight(down, C, M + extra)];
  },
};

const PAGE = 65536;

// The WebAssembly kernel over one module instance's memory: weights stay there (a bump allocator,
// never freed: a page builds a few models), activations are copied in as float32 per call.
// The module reads a row's columns four at a time.
function fourWide(cols) {
  if (cols % 4) throw new Error(`the WebAssembly kernel reads rows in fours: a width of ${cols} does not divide`);
}

export async function wasmKernel(moduleBytes) {
  const { instance } = await WebAssembly.instantiate(moduleBytes);
  const { memory, matmul, swiglu, attend } = instance.exports;
  let top = 0, scratch = { at: 0, bytes: 0 };
  const alloc = (bytes) => {
    const at = top = Math.ceil(top / 16) * 16;
    top += bytes;
    if (top > memory.buffer.byteLength) memory.grow(Math.ceil((top - memory.buffer.byteLength) / PAGE));
    return at;
  };
  const f32 = () => new Float32Array(memory.buffer);  // a fresh view: growing detaches the old one
  // room for `floats` float32 values of activations, reused while it is large enough
  const scratchFor = (floats) => {
    if (scratch.bytes < 4 * floats) scratch = { at: alloc(4 * floats), bytes: 4 * floats };
    return scratch.at;
  };
  const write = (at, xs, cols) => {
    const view = f32();
    xs.forEach((x, p) => view.set(x, at / 4 + p * cols));
  };
  const read = (at, k, rows) => {
    const view = f32();
    return Array.from({ length: k }, (_, p) => Float64Array.from(view.subarray(at / 4 + p * rows, at / 4 + (p + 1) * rows)));
  };
  return {
    name: "wasm",
    bytes: () => memory.buffer.byteLength,
    weight(values, rows, cols) {
      fourWide(cols);
      const at = alloc(4 * rows * cols);
      f32().set(values.subarray(0, rows * cols), at / 4);
      return { at, rows, cols };
    },
    matmul({ at, rows, cols }, xs) {
      const k = xs.length, x = scratchFor(k * (cols + rows)), y = x + 4 * k * cols;
      write(x, xs, cols);
      matmul(at, x, y, rows, cols, k);
      return read(y, k, rows);
    },
    mlp(w13, w2, xs, M) {
      const k = xs.length, C = w2.rows;
      const x = scratchFor(k * (C + 2 * M + M + C)), gateUp = x + 4 * k * C, act = gateUp + 8 * k * M, y = act + 4 * k * M;
      write(x, xs, C);
      matmul(w13.at, x, gateUp, 2 * M, C, k);
      swiglu(gateUp, act, M, k);
      matmul(w2.at, act, y, C, M, k);
      return read(y, k, C);
    },
    // the cache's rows that the queries see, copied in once for all of them (keys, then values)
    attend(qkvs, keys, values, start, window, H) {
      const k = qkvs.length, C = qkvs[0].length / 3, lo = Math.max(0, start - window + 1), n = start + k - lo;
      const q = scratchFor(2 * n * C + 2 * k * C + window), kv = q + 4 * k * C, y = kv + 8 * n * C, scores = y + 4 * k * C;
      const view = f32();
      qkvs.forEach((qkv, i) => view.set(qkv.subarray(0, C), q / 4 + i * C));
      view.set(keys.subarray(lo * C, (start + k) * C), kv / 4);
      view.set(values.subarray(lo * C, (start + k) * C), kv / 4 + n * C);
      for (let i = 0; i < k; i++) {
        const first = Math.max(0, start + i - window + 1), row = 4 * (first - lo) * C;
        attend(q + 4 * i * C, kv + row, kv + 4 * n * C + row, y + 4 * i * C, scores, start + i - first + 1, C, C / H, 1 / Math.sqrt(C / H));
      }
      return read(y, k, C);
    },
    // the new matrices are written straight into the module's memory, a row at a time
    widen(w13, w2, extra, next) {
      const M = w2.cols, C = w2.rows, wide = M + extra;
      fourWide(wide);
      const gateUp = { at: alloc(8 * wide * C), rows: 2 * wide, cols: C }, down = { at: alloc(4 * C * wide), rows: C, cols: wide };
      const view = f32(), old13 = w13.at / 4, old2 = w2.at / 4;
      for (const half of [0, 1]) {
        view.copyWithin(gateUp.at / 4 + half * wide * C, old13 + half * M * C, old13 + (half + 1) * M * C);
        for (let i = gateUp.at / 4 + (half * wide + M) * C, end = gateUp.at / 4 + (half + 1) * wide * C; i < end; i++) view[i] = next();
      }
      for (let r = 0; r < C; r++) {
        view.copyWithin(down.at / 4 + r * wide, old2 + r * M, old2 + (r + 1) * M);
        view.fill(0, down.at / 4 + r * wide + M, down.at / 4 + (r + 1) * wide);
      }
      return [gateUp, down];
    },
  };
}

// Whether this browser runs WebAssembly with 128-bit SIMD: validate a module that uses one SIMD
// instruction: (module (func (drop (i8x16.splat (i32.const 0))))), assembled.
export function wasmSimdSupported() {
  if (typeof WebAssembly !== "object" || typeof WebAssembly.validate !== "function") return false;
  return WebAssembly.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0,
    10, 9, 1, 7, 0, 65, 0, 253, 15, 26, 11]));
}
