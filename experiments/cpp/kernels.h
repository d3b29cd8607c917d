// Part of native.cpp. The matmul's kernel paths (portable, AVX2 + FMA, AVX-512), the row
// operations compiled under each target, the choice among them, and the blocked matmul.

// ---------------------------------------------------------------------------------------------
// Kernel paths. A tile computes R rows of one panel, y[r, 0..cols) (+)= x[r, :] · panel, one
// block of inputs per call, with its accumulators (R rows × CHAINS chains × 16 columns) held in
// registers. Between the blocks of a wide layer they wait in `carry` (the same floats, stored and
// loaded back: the sum is the one a single call over all k would make); the last block adds the
// chains and writes the row.
struct TileArgs {
    const float* x;  // R rows of x, from the block's first input
    int ldx;         // x's row stride: the layer's k
    int len;         // inputs in this block (a multiple of CHAINS except in the last)
    const float* w;  // the panel's block: len rows of 16 floats
    float* carry;    // R × CHAINS × 16 partial sums between blocks
    bool first, last;
    float* y;
    int ldy, cols;
    bool accumulate;
};
using Tile = void (*)(const TileArgs& a);
constexpr int MAX_TILE_ROWS = 6;

struct Kernel {
    const char* name;
    int rows;                          // the most rows one tile call takes
    Tile tiles[MAX_TILE_ROWS + 1];     // tiles[r] computes r rows, 1 <= r <= rows
    void (*rms_norm)(const float* x, int rows, int c, const float* weight, float* out);
    void (*swiglu)(const float* gate_up, int rows, int hidden, float* out);
    void (*attend)(const Attention& a, int rows);
};

template <int R>
void tile_portable(const TileArgs& a) {
    float acc[R][CHAINS][PANEL] = {};
    if (!a.first) std::memcpy(acc, a.carry, sizeof acc);
    for (int i = 0; i < a.len; i += CHAINS)
        for (int s = 0; s < CHAINS && i + s < a.len; ++s) {
            const float* w = a.w + (i + s) * PANEL;
            for (int r = 0; r < R; ++r) {
                const float xv = a.x[r * a.ldx + i + s];
                for (int j = 0; j < PANEL; ++j) acc[r][s][j] += xv * w[j];
            }
        }
    if (!a.last) {
        std::memcpy(a.carry, acc, sizeof acc);
        return;
    }
    for (int r = 0; r < R; ++r)
        for (int j = 0; j < a.cols; ++j) {
            const float sum = (acc[r][0][j] + acc[r][1][j]) + (acc[r][2][j] + acc[r][3][j]);
            float* out = a.y + r * a.ldy + j;
            *out = a.accumulate ? *out + sum : sum;
        }
}

const Kernel PORTABLE{"portable", 1, {nullptr, tile_portable<1>},
                      rms_norm_rows<PortableOps>, swiglu_rows, attend_rows<PortableOps>};

#if NATIVE_X86

// The sum of 16 lanes held as two halves (lanes 0-7, 8-15) by halve_lanes' tree.
__attribute__((target("avx2,fma"))) inline float halve_lanes_avx2(__m256 lo, __m256 hi) {
    const __m256 t8 = _mm256_add_ps(lo, hi);                                                     // l + 8
    const __m128 t4 = _mm_add_ps(_mm256_castps256_ps128(t8), _mm256_extractf128_ps(t8, 1));     // l + 4
    const __m128 t2 = _mm_add_ps(t4, _mm_movehl_ps(t4, t4));                                      // l + 2
    return _mm_cvtss_f32(_mm_add_ss(t2, _mm_movehdup_ps(t2)));                                    // 0 + 1
}

struct Avx2Ops {
    // 8 floats from p, zeros past `count`
    __attribute__((target("avx2,fma"))) static __m256 load(const float* p, int count) {
        if (count >= 8) return _mm256_loadu_ps(p);
        const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        return _mm256_maskload_ps(p, _mm256_cmpgt_epi32(_mm256_set1_epi32(count > 0 ? count : 0), lane));
    }
    __attribute__((target("avx2,fma"))) static float dot(const float* a, const float* b, int d) {
        __m256 lo = _mm256_setzero_ps(), hi = lo;
        for (int i = 0; i < d; i += LANES) {
            lo = _mm256_fmadd_ps(load(a + i, d - i), load(b + i, d - i), lo);
            if (d - i > 8) hi = _mm256_fmadd_ps(load(a + i + 8, d - i - 8), load(b + i + 8, d - i - 8), hi);
        }
        return halve_lanes_avx2(lo, hi);
    }
    __attribute__((target("avx2,fma"))) static float sum(const float* a, int n) {
        __m256 lo = _mm256_setzero_ps(), hi = lo;
        for (int i = 0; i < n; i += LANES) {
            lo = _mm256_add_ps(lo, load(a + i, n - i));
            if (n - i > 8) hi = _mm256_add_ps(hi, load(a + i + 8, n - i - 8));
        }
        return halve_lanes_avx2(lo, hi);
    }
    // 8 columns at a time, the four accumulators in registers (no store per slot)
    __attribute__((target("avx2,fma"))) static void mix(const float* e, const float* values, const int* seen, int n,
                                                        int d, float* out) {
        for (int c = 0; c < d; c += 8) {
            auto term = [&](int j, __m256 acc) __attribute__((target("avx2,fma"))) {
                return _mm256_fmadd_ps(_mm256_set1_ps(e[j]), load(values + size_t(seen[j]) * d + c, d - c), acc);
            };
            __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
            int j = 0;
            for (; j + 4 <= n; j += 4) {
                a0 = term(j, a0);
                a1 = term(j + 1, a1);
                a2 = term(j + 2, a2);
                a3 = term(j + 3, a3);
            }
            for (; j < n; ++j) a0 = term(j, a0);
            float row[8];
            _mm256_storeu_ps(row, _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
            std::memcpy(out + c, row, sizeof(float) * std::min(8, d - c));
        }
    }
};

// Stores a finished tile row: 16 columns at once, or the first `cols` through a small buffer.
__attribute__((target("avx2,fma"))) inline void store_avx2(float* y, __m256 lo, __m256 hi, int cols, bool accumulate) {
    if (cols == PANEL) {
        if (accumulate) {
            lo = _mm256_add_ps(lo, _mm256_loadu_ps(y));
            hi = _mm256_add_ps(hi, _mm256_loadu_ps(y + 8));
        }
        _mm256_storeu_ps(y, lo);
        _mm256_storeu_ps(y + 8, hi);
        return;
    }
    float out[PANEL];
    _mm256_storeu_ps(out, lo);
    _mm256_storeu_ps(out + 8, hi);
    for (int j = 0; j < cols; ++j) y[j] = accumulate ? y[j] + out[j] : out[j];
}

// lo:hi (+)= x · w[0..16): one k step of a row.
__attribute__((target("avx2,fma"))) inline void step_avx2(const float* x, const float* w, __m256& lo, __m256& hi) {
    const __m256 xv = _mm256_broadcast_ss(x);
    lo = _mm256_fmadd_ps(xv, _mm256_loadu_ps(w), lo);
    hi = _mm256_fmadd_ps(xv, _mm256_loadu_ps(w + 8), hi);
}

// One row: CHAINS chains × 16 columns are 8 of the 16 ymm registers (two rows would not fit).
__attribute__((target("avx2,fma"))) void tile_avx2(const TileArgs& a) {
    __m256 lo[CHAINS], hi[CHAINS];
    for (int s = 0; s < CHAINS; ++s) {
        lo[s] = a.first ? _mm256_setzero_ps() : _mm256_loadu_ps(a.carry + s * PANEL);
        hi[s] = a.first ? _mm256_setzero_ps() : _mm256_loadu_ps(a.carry + s * PANEL + 8);
    }
    int i = 0;
    for (; i + CHAINS <= a.len; i += CHAINS)  // no bounds test in the main loop; the tail after it
        for (int s = 0; s < CHAINS; ++s) step_avx2(a.x + i + s, a.w + (i + s) * PANEL, lo[s], hi[s]);
    for (int s = 0; i + s < a.len; ++s) step_avx2(a.x + i + s, a.w + (i + s) * PANEL, lo[s], hi[s]);
    if (!a.last) {
        for (int s = 0; s < CHAINS; ++s) {
            _mm256_storeu_ps(a.carry + s * PANEL, lo[s]);
            _mm256_storeu_ps(a.carry + s * PANEL + 8, hi[s]);
        }
        return;
    }
    store_avx2(a.y, _mm256_add_ps(_mm256_add_ps(lo[0], lo[1]), _mm256_add_ps(lo[2], lo[3])),
               _mm256_add_ps(_mm256_add_ps(hi[0], hi[1]), _mm256_add_ps(hi[2], hi[3])), a.cols, a.accumulate);
}

struct Avx512Ops {
    __attribute__((target("avx512f"))) static __mmask16 first(int count) {  // lanes 0..count-1
        return count >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << count) - 1);
    }
    __attribute__((target("avx512f"))) static float halve(__m512 acc) {  // halve_lanes' tree
        const __m256 lo = _mm512_castps512_ps256(acc);
        const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(acc), 1));
        return halve_lanes_avx2(lo, hi);
    }
    __attribute__((target("avx512f"))) static float dot(const float* a, const float* b, int d) {
        __m512 acc = _mm512_setzero_ps();
        for (int i = 0; i < d; i += LANES) {  // the last step masked: any head_dim, no scalar tail
            const __mmask16 m = first(d - i);
            acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), acc);
        }
        return halve(acc);
    }
    __attribute__((target("avx512f"))) static float sum(const float* a, int n) {
        __m512 acc = _mm512_setzero_ps();
        for (int i = 0; i < n; i += LANES) acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(first(n - i), a + i));
        return halve(acc);
    }
    // 16 columns at a time (the last masked), as Avx2Ops::mix
    __attribute__((target("avx512f"))) static void mix(const float* e, const float* values, const int* seen, int n,
                                                       int d, float* out) {
        for (int c = 0; c < d; c += 16) {
            const __mmask16 m = first(d - c);
            auto term = [&](int j, __m512 acc) __attribute__((target("avx512f"))) {
                return _mm512_fmadd_ps(_mm512_set1_ps(e[j]), _mm512_maskz_loadu_ps(m, values + size_t(seen[j]) * d + c),
                                       acc);
            };
            __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
            int j = 0;
            for (; j + 4 <= n; j += 4) {
                a0 = term(j, a0);
                a1 = term(j + 1, a1);
                a2 = term(j + 2, a2);
                a3 = term(j + 3, a3);
            }
            for (; j < n; ++j) a0 = term(j, a0);
            _mm512_mask_storeu_ps(out + c, m, _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
        }
    }
};

// acc[r] (+)= x[r, 0] · w[0..16) for R rows of x (row stride k): one k step.
template <int R>
__attribute__((target("avx512f"))) inline void step_avx512(const float* x, int k, const float* w, __m512* acc,
                                                            int stride) {
    const __m512 wv = _mm512_loadu_ps(w);
    for (int r = 0; r < R; ++r) acc[r * stride] = _mm512_fmadd_ps(_mm512_set1_ps(x[r * k]), wv, acc[r * stride]);
}

// R rows: R × CHAINS accumulators, at most 24 of the 32 zmm registers.
template <int R>
__attribute__((target("avx512f"))) void tile_avx512(const TileArgs& a) {
    __m512 acc[R][CHAINS];
    for (int r = 0; r < R; ++r)
        for (int s = 0; s < CHAINS; ++s)
            acc[r][s] = a.first ? _mm512_setzero_ps() : _mm512_loadu_ps(a.carry + (r * CHAINS + s) * PANEL);
    int i = 0;
    for (; i + CHAINS <= a.len; i += CHAINS)  // no bounds test in the main loop; the tail after it
        for (int s = 0; s < CHAINS; ++s) step_avx512<R>(a.x + i + s, a.ldx, a.w + (i + s) * PANEL, &acc[0][s], CHAINS);
    for (int s = 0; i + s < a.len; ++s) step_avx512<R>(a.x + i + s, a.ldx, a.w + (i + s) * PANEL, &acc[0][s], CHAINS);
    if (!a.last) {
        for (int r = 0; r < R; ++r)
            for (int s = 0; s < CHAINS; ++s) _mm512_storeu_ps(a.carry + (r * CHAINS + s) * PANEL, acc[r][s]);
        return;
    }
    const __mmask16 mask = Avx512Ops::first(a.cols);
    for (int r = 0; r < R; ++r) {
        __m512 sum = _mm512_add_ps(_mm512_add_ps(acc[r][0], acc[r][1]), _mm512_add_ps(acc[r][2], acc[r][3]));
        float* out = a.y + r * a.ldy;
        if (a.accumulate) sum = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, out), sum);
        _mm512_mask_storeu_ps(out, mask, sum);
    }
}

// The row operations under each target (flatten: everything they call is inlined, and so
// compiled, and vectorized, for that target).
#define NATIVE_ROW_OPS(suffix, isa, Ops)                                                                        \
    __attribute__((target(isa), flatten)) void rms_norm_##suffix(const float* x, int rows, int c,           \
                                                                  const float* weight, float* out) {        \
        rms_norm_rows<Ops>(x, rows, c, weight, out);                                                         \
    }                                                                                                        \
    __attribute__((target(isa), flatten)) void swiglu_##suffix(const float* gate_up, int rows, int hidden,  \
                                                                float* out) {                                \
        swiglu_rows(gate_up, rows, hidden, out);                                                             \
    }                                                                                                        \
    __attribute__((target(isa), flatten)) void attend_##suffix(const Attention& a, int rows) {               \
        attend_rows<Ops>(a, rows);                                                                           \
    }

NATIVE_ROW_OPS(avx2, "avx2,fma", Avx2Ops)
NATIVE_ROW_OPS(avx512, "avx512f", Avx512Ops)

const Kernel AVX2{"avx2", 1, {nullptr, tile_avx2}, rms_norm_avx2, swiglu_avx2, attend_avx2};
const Kernel AVX512{"avx512", 6,
                    {nullptr, tile_avx512<1>, tile_avx512<2>, tile_avx512<3>, tile_avx512<4>, tile_avx512<5>,
                     tile_avx512<6>},
                    rms_norm_avx512, swiglu_avx512, attend_avx512};

#endif  // NATIVE_X86

bool cpu_supports(const Kernel& kernel) {
#if NATIVE_X86
    if (&kernel == &AVX512) return __builtin_cpu_supports("avx512f");
    if (&kernel == &AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    return &kernel == &PORTABLE;
}

// The kernels this machine runs, fastest first.
std::vector<const Kernel*> usable_kernels() {
    std::vector<const Kernel*> all;
#if NATIVE_X86
    all = {&AVX512, &AVX2};
#endif
    all.push_back(&PORTABLE);
    std::vector<const Kernel*> out;
    for (const Kernel* k : all)
        if (cpu_supports(*k)) out.push_back(k);
    return out;
}

std::vector<std::string> kernel_names() {
    std::vector<std::string> names;
    for (const Kernel* k : usable_kernels()) names.emplace_back(k->name);
    return names;
}

const Kernel& kernel_named(const std::string& name) {
    const auto usable = usable_kernels();
    if (name == "auto") return *usable.front();
    for (const Kernel* k : usable)
        if (name == k->name) return *k;
    throw std::invalid_argument("kernel path '" + name + "' is not available on this machine");
}

// y [m, w.n] (+)= x [m, w.k] · Wᵀ. Block by block of inputs, and in a block panel by panel, so that
// a panel's block is read from memory once and stays in L1 while every row tile of x passes over
// it, and x's rows over the block stay in cache for every panel.
void matmul(const Kernel& kern, const float* x, int m, const Linear& w, float* y, bool accumulate) {
    thread_local std::vector<float> carry;  // the partial sums of every row and panel between blocks
    const bool blocked = w.k > BLOCK;
    if (blocked) carry.resize(size_t(w.panel_count()) * m * CHAINS * PANEL);
    for (int start = 0; start < w.k; start += BLOCK) {
        const int len = std::min(BLOCK, w.k - start);
        for (int p = 0; p < w.panel_count(); ++p) {
            const int cols = std::min(PANEL, w.n - p * PANEL);
            for (int r = 0; r < m; r += kern.rows) {
                const int rows = std::min(kern.rows, m - r);
                kern.tiles[rows]({x + size_t(r) * w.k + start, w.k, len, w.block(p, start),
                                  blocked ? carry.data() + (size_t(p) * m + r) * CHAINS * PANEL : nullptr,
                                  start == 0, start + len == w.k,
                                  y + size_t(r) * w.n + p * PANEL, w.n, cols, accumulate});
            }
        }
    }
}
