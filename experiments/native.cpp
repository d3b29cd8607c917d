// The native engine: the forward of the project's GPT (experiments/model.py) written out in C++
// for one sequence, on a ring-buffer kv cache with the compiled engine's StaticCache semantics
// (experiments/graphs.py), plus a whole draft round, and the acceptance rule (experiments/rule.py)
// on its own or inside a whole decoding step (a forward, its probabilities, the rule, the sample).
//
// experiments/native.py builds this file at first use (torch.utils.cpp_extension.load) and is its
// only caller. Tensors cross the boundary as raw addresses of contiguous float32 / float64 buffers
// that the Python side checks and allocates (token ids as lists), so nothing here calls into ATen
// and the file needs pybind11 alone (which also keeps the one-time build short).
//
// Everything is fp32 and single-threaded. The time goes into small-row matmuls (1..64 rows): each
// weight is packed once into 16-column panels, and a panel kernel reads every weight once for all
// rows. There are three kernel paths, chosen at run time: AVX-512, AVX2+FMA and portable C++. The
// SIMD ones are compiled with target attributes rather than -march=native, so the build runs on any
// x86-64; elsewhere only the portable path exists. All three add in the same order, so they agree
// to the rounding of a product (see "One summation order").

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define NATIVE_X86 1
#else
#define NATIVE_X86 0
#endif

namespace py = pybind11;

namespace {

constexpr int PANEL = 16;  // output columns of a packed panel: one AVX-512 register, two AVX2 ones
// Inputs per block. A layer whose input is wider (a heavy twin's SwiGLU down-projection: tens of
// thousands) is multiplied block by block: the rows of x over one block stay in cache while every
// panel's block streams past them once, however many rows there are. 512 inputs of a panel are 32 KB.
constexpr int BLOCK = 512;

// ---------------------------------------------------------------------------------------------
// Packed weights

// A linear layer's weight W [n, k] (nn.Linear's out × in) as ceil(n / 16) panels. Panel p holds,
// for i = 0..k-1, the 16 values W[16p .. 16p+15, i] side by side (zeros past n): the matmul's
// inner loop then reads one contiguous 16-float row per i. The inputs come in blocks of BLOCK,
// and the weights are laid out block after block, each block panel after panel, so the matmul
// reads them in the order they lie in memory (with k <= BLOCK: panel after panel).
// Weights of 2 MB and more in 2 MB pages where the system allows it (Linux's transparent huge
// pages, on request): a forward that streams hundreds of MB of a heavy twin's weights then walks
// the page tables once per 2 MB instead of once per 4 KB. In a virtual machine (where a page walk
// is two-dimensional, so a miss is dear) that lowers what a verify of a few rows costs over one
// row at a few hundred MB (measure --only regime: r_k). A matrix just over 2 MB takes 4 MB.
constexpr size_t HUGE_PAGE = size_t(2) << 20;

template <class T>
struct HugePages {
    using value_type = T;
    HugePages() = default;
    template <class U>
    HugePages(const HugePages<U>&) {}
    T* allocate(size_t n) {
        const size_t bytes = n * sizeof(T);
        if (bytes < HUGE_PAGE) return std::allocator<T>().allocate(n);
        const size_t rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        void* p = std::aligned_alloc(HUGE_PAGE, rounded);
        if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
        madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without it, ordinary pages
#endif
        return static_cast<T*>(p);
    }
    void deallocate(T* p, size_t n) {
        if (n * sizeof(T) < HUGE_PAGE) return std::allocator<T>().deallocate(p, n);
        std::free(p);
    }
    template <class U>
    bool operator==(const HugePages<U>&) const { return true; }
};

struct Linear {
    int n = 0, k = 0;
    std::vector<float, HugePages<float>> panels;

    Linear() = default;
    Linear(const float* w, int n_out, int n_in)
        : n(n_out), k(n_in), panels(size_t(panel_count()) * n_in * PANEL, 0.0f) {
        for (int o = 0; o < n; ++o)
            for (int i = 0; i < k; ++i) panels[offset(o / PANEL, i) + o % PANEL] = w[size_t(o) * k + i];
    }
    int panel_count() const { return (n + PANEL - 1) / PANEL; }
    // where the 16 values of input i of panel p begin
    size_t offset(int p, int i) const {
        const int start = i / BLOCK * BLOCK, len = std::min(BLOCK, k - start);
        return size_t(start) * panel_count() * PANEL + (size_t(p) * len + (i - start)) * PANEL;
    }
    const float* block(int p, int start) const { return panels.data() + offset(p, start); }
};

// ---------------------------------------------------------------------------------------------
// One summation order for every kernel path
//
// The three paths must give the same numbers, not merely close ones: a logit is a sum of 128..304
// products whose partial sums reach ~16, so two orders differ by ~1e-5. Every path therefore adds
// in the same order, and only the portable one rounds its products separately (it has no FMA):
// - a matmul tile splits k into CHAINS chains (k = s mod CHAINS into chain s; several chains also
//   keep several FMAs in flight) and sums them as (c0 + c1) + (c2 + c3);
// - a reduction (q · k, a softmax's total, RMSNorm's sum of squares) sums element i into lane
//   i mod LANES, then halves the lanes: lane l += lane l + 8, then + 4, + 2, + 1;
// - Σ_j e_j v_j (attention's values) sums slot j into accumulator j mod 4, then (a0 + a1) + (a2 + a3);
// - the rest is plain C++ compiled with -ffp-contract=off, so no path fuses a multiply-add that
//   another does not.

constexpr int CHAINS = 4;
constexpr int LANES = 16;
static_assert(BLOCK % CHAINS == 0, "a block boundary must not split the chains");

inline float halve_lanes(float* lane) {
    for (int width = LANES / 2; width >= 1; width /= 2)
        for (int l = 0; l < width; ++l) lane[l] += lane[l + width];
    return lane[0];
}

// e^x to within 1 ulp without a libm call, so that loops of it vectorize (Cephes' expf: 2^n times
// a degree-6 polynomial on |r| <= ln(2)/2). The clamp keeps 2^n a normal float.
inline float exp_approx(float x) {
    x = x > 88.0f ? 88.0f : x;  // ternaries, not std::min/max(refs): these vectorize (with -fno-trapping-math)
    x = x < -87.0f ? -87.0f : x;
    const float round = 12582912.0f;                    // 1.5 * 2^23: adding it rounds to an integer
    const float n = (x * 1.44269504f + round) - round;  // nearest integer to x / ln(2)
    const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;  // ln(2) split in two for accuracy
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const float scale = std::bit_cast<float>((int32_t(n) + 127) << 23);
    return (p * r * r + r + 1.0f) * scale;
}

// The reductions of the portable path; Avx2Ops and Avx512Ops below do the same in registers.
struct PortableOps {
    static float dot(const float* a, const float* b, int d) {
        float lane[LANES] = {};
        for (int i = 0; i < d; ++i) lane[i % LANES] += a[i] * b[i];
        return halve_lanes(lane);
    }
    static float sum(const float* a, int n) {
        float lane[LANES] = {};
        for (int i = 0; i < n; ++i) lane[i % LANES] += a[i];
        return halve_lanes(lane);
    }
    // out[c] = Σ_j e[j] · values[seen[j], c]
    static void mix(const float* e, const float* values, const int* seen, int n, int d, float* out) {
        for (int c = 0; c < d; ++c) {
            float acc[4] = {0, 0, 0, 0};
            int j = 0;
            for (; j + 4 <= n; j += 4)
                for (int s = 0; s < 4; ++s) acc[s] += e[j + s] * values[size_t(seen[j + s]) * d + c];
            for (; j < n; ++j) acc[0] += e[j] * values[size_t(seen[j]) * d + c];
            out[c] = (acc[0] + acc[1]) + (acc[2] + acc[3]);
        }
    }
};

// ---------------------------------------------------------------------------------------------
// Row operations: plain C++ over a path's reductions (Ops), compiled once per path: the SIMD
// paths inline them into wrappers that carry their target attribute (NATIVE_ROW_OPS below).

// x * rsqrt(mean(x²) + eps) * weight, row by row, as model.RMSNorm.
template <class Ops>
inline void rms_norm_rows(const float* x, int rows, int c, const float* weight, float* out) {
    for (int i = 0; i < rows; ++i, x += c, out += c) {
        const float scale = 1.0f / std::sqrt(Ops::dot(x, x, c) / float(c) + 1e-5f);
        for (int j = 0; j < c; ++j) out[j] = x[j] * scale * weight[j];
    }
}

// silu(gate) * up for rows of gate_up = [gate | up] (SwiGLU's w13 output).
inline void swiglu_rows(const float* gate_up, int rows, int hidden, float* out) {
    for (int i = 0; i < rows; ++i, gate_up += 2 * hidden, out += hidden)
        for (int j = 0; j < hidden; ++j) {
            const float g = gate_up[j];
            out[j] = g / (1.0f + exp_approx(-g)) * gate_up[hidden + j];
        }
}

// One layer's attention for the rows of a forward: softmax(q·k / sqrt(d)) · v over each row's
// visible slots, head by head.
struct Attention {
    const float* q;             // row i, head h at q + i * ld_q + h * d
    int ld_q;
    const float *k, *v;         // the layer's cache, [head, slot, d]
    int n_head, d, capacity;
    const int* visible;         // [row, capacity]: the slots each row attends to
    const int* n_visible;
    float* scores;              // capacity floats of scratch
    float* out;                 // row i, head h at out + i * ld_out + h * d
    int ld_out;
};

template <class Ops>
inline void attend_rows(const Attention& a, int rows) {
    const float scale = 1.0f / std::sqrt(float(a.d));
    const int d = a.d;
    float* scores = a.scores;
    for (int i = 0; i < rows; ++i) {
        const int* seen = a.visible + size_t(i) * a.capacity;
        const int n = a.n_visible[i];
        for (int h = 0; h < a.n_head; ++h) {
            const float* q = a.q + size_t(i) * a.ld_q + h * d;
            const float* keys = a.k + size_t(h) * a.capacity * d;
            float top = -INFINITY;
            for (int j = 0; j < n; ++j) {
                scores[j] = Ops::dot(q, keys + size_t(seen[j]) * d, d) * scale;
                top = scores[j] > top ? scores[j] : top;
            }
            for (int j = 0; j < n; ++j) scores[j] = exp_approx(scores[j] - top);
            const float inv = 1.0f / Ops::sum(scores, n);
            float* out = a.out + size_t(i) * a.ld_out + h * d;
            Ops::mix(scores, a.v + size_t(h) * a.capacity * d, seen, n, d, out);
            for (int c = 0; c < d; ++c) out[c] *= inv;
        }
    }
}

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

// ---------------------------------------------------------------------------------------------
// Sampling, as experiments/rule.py does it

// q = softmax(logits / T), or at T = 0 a one-hot at the first largest logit (torch's argmax).
void probs_from_logits(const float* logits, int v, double temperature, float* q) {
    if (temperature == 0) {
        int best = 0;
        for (int i = 1; i < v; ++i)
            if (logits[i] > logits[best]) best = i;
        std::fill(q, q + v, 0.0f);
        q[best] = 1.0f;
        return;
    }
    const float t = float(temperature);  // torch divides a float32 tensor by the scalar in float32
    float top = -INFINITY;
    for (int i = 0; i < v; ++i) {
        q[i] = temperature == 1 ? logits[i] : logits[i] / t;
        top = std::max(top, q[i]);
    }
    float sum = 0;
    for (int i = 0; i < v; ++i) sum += (q[i] = std::exp(q[i] - top));
    const float inv = 1.0f / sum;
    for (int i = 0; i < v; ++i) q[i] *= inv;
}

// rule.sample on a given uniform u: the first i with cdf[i] > u * cdf[-1]. The cdf is built as
// torch's CPU cumsum builds it for float32 (a double running sum, rounded to float at each entry),
// and compared in double, as the Python floats of rule.sample are.
int64_t sample(const float* probs, int v, double u) {
    std::vector<float> cdf(v);
    double run = 0;
    for (int i = 0; i < v; ++i) cdf[i] = float(run += probs[i]);
    const double x = u * double(cdf[v - 1]);
    for (int i = 0; i < v; ++i)
        if (double(cdf[i]) > x) return i;
    int i = v - 1;  // rounding put u at the very top: the last token with any mass
    while (i > 0 && cdf[i] == cdf[i - 1]) --i;
    return i;
}

// rule.accept_reject on given uniforms: p [γ+1, v], q [γ, v], drafts [γ], u [γ] float32, u_next
// for the final sample. Returns (accepted drafts, next token).
std::pair<int64_t, int64_t> accept_reject_rows(const float* p, const float* q, const int64_t* drafts, int64_t gamma,
                                               int v, const float* u, double u_next) {
    for (int64_t i = 0; i < gamma; ++i)
        if (drafts[i] < 0 || drafts[i] >= v) throw std::out_of_range("draft token out of range");
    int64_t n = 0;
    while (n < gamma) {  // u < p/q as u·q < p, exact in double; q(d) = 0 never accepts
        const double p_d = p[n * v + drafts[n]], q_d = q[n * v + drafts[n]];
        if (!(q_d > 0 && double(u[n]) * q_d < p_d)) break;
        ++n;
    }
    const float* p_n = p + n * v;
    if (n == gamma) return {n, sample(p_n, v, u_next)};
    // the residual normalize(max(0, p_n - q_n)), or p_n when its mass is only rounding
    std::vector<float> r(v);
    double mass = 0;
    for (int i = 0; i < v; ++i) mass += (r[i] = std::max(0.0f, p_n[i] - q[n * v + i]));
    const float total = float(mass);  // rule.residual's float32 total (torch's own sum may differ in its last bit)
    if (double(total) <= 1e-12) return {n, sample(p_n, v, u_next)};
    for (int i = 0; i < v; ++i) r[i] /= total;
    return {n, sample(r.data(), v, u_next)};
}

// The same on raw addresses (native.py's native_accept_reject).
std::pair<int64_t, int64_t> accept_reject(uintptr_t p_addr, uintptr_t q_addr, const std::vector<int64_t>& drafts,
                                          int v, uintptr_t u_addr, double u_next) {
    return accept_reject_rows(reinterpret_cast<const float*>(p_addr), reinterpret_cast<const float*>(q_addr),
                              drafts.data(), int64_t(drafts.size()), v, reinterpret_cast<const float*>(u_addr), u_next);
}

// ---------------------------------------------------------------------------------------------
// The model

struct Layer {
    std::vector<float> attn_norm, mlp_norm;
    Linear wqkv, wo, w13, w2;
};

// The weights of one GPT, copied and packed once, or of an MTP-shaped head on one (`fuses`: the
// MTP head, EAGLE's and EAGLE-3's layer, whose first step fuses a feature with a token's embedding,
// and whose embedding, final norm and output head are the main model's). `rope_cos` / `rope_sin`
// [positions, head_dim/2] are model.rope_tables' (float64 cast to float32), set and extended from Python.
struct Weights {
    int n_layer, c, n_head, head_dim, hidden, vocab;
    bool fuses;
    std::vector<float> tok_emb;  // [vocab, c], for the embedding lookup
    Linear head;                 // the same matrix packed: the tied output head
    std::vector<float> hidden_norm, embed_norm;  // a head's: x = proj [RMSNorm(h); RMSNorm(Emb(token))]
    Linear proj;
    std::vector<Layer> layers;
    std::vector<float> final_norm;
    std::vector<float> rope_cos, rope_sin;
    int64_t rope_positions = 0;

    // `addr`: the float32 parameters in the order tok_emb, (a head's hidden_norm, embed_norm, proj,)
    // then per layer attn_norm, wqkv, wo, mlp_norm, w13, w2, then the final norm (native.py's
    // parameter_list).
    Weights(int n_layer_, int c_, int n_head_, int hidden_, int vocab_, const std::vector<uintptr_t>& addr,
            bool fuses_)
        : n_layer(n_layer_), c(c_), n_head(n_head_), head_dim(c_ / n_head_), hidden(hidden_), vocab(vocab_),
          fuses(fuses_) {
        if (n_layer < 1 || n_head < 1 || c % n_head != 0 || head_dim % 2 != 0 || hidden < 1 || vocab < 1)
            throw std::invalid_argument("bad model configuration");
        if (addr.size() != size_t(2 + 6 * n_layer + (fuses ? 3 : 0))) throw std::invalid_argument("wrong number of parameters");
        size_t next = 0;
        auto take = [&](size_t count) {
            const auto* src = reinterpret_cast<const float*>(addr[next++]);
            return std::vector<float>(src, src + count);
        };
        auto take_linear = [&](int n, int k) { return Linear(reinterpret_cast<const float*>(addr[next++]), n, k); };
        tok_emb = take(size_t(vocab) * c);
        head = Linear(tok_emb.data(), vocab, c);
        if (fuses) {
            hidden_norm = take(c);
            embed_norm = take(c);
            proj = take_linear(c, 2 * c);
        }
        for (int l = 0; l < n_layer; ++l) {
            Layer layer;
            layer.attn_norm = take(c);
            layer.wqkv = take_linear(3 * c, c);
            layer.wo = take_linear(c, c);
            layer.mlp_norm = take(c);
            layer.w13 = take_linear(2 * hidden, c);
            layer.w2 = take_linear(c, hidden);
            layers.push_back(std::move(layer));
        }
        final_norm = take(c);
    }

    void set_rope(uintptr_t cos_addr, uintptr_t sin_addr, int64_t positions) {
        const size_t count = size_t(positions) * (head_dim / 2);
        const auto* cos = reinterpret_cast<const float*>(cos_addr);
        const auto* sin = reinterpret_cast<const float*>(sin_addr);
        rope_cos.assign(cos, cos + count);
        rope_sin.assign(sin, sin + count);
        rope_positions = positions;
    }
};

// RoPE on one row of `n_head` heads: the halves (x1, x2) of each head turn by the position's angles.
void rope(float* row, int n_head, int head_dim, const float* cos, const float* sin) {
    const int half = head_dim / 2;
    for (int h = 0; h < n_head; ++h, row += head_dim)
        for (int i = 0; i < half; ++i) {
            const float x1 = row[i], x2 = row[half + i];
            row[i] = x1 * cos[i] - x2 * sin[i];
            row[half + i] = x1 * sin[i] + x2 * cos[i];
        }
}

// One sequence's kv cache and scratch buffers, over shared packed weights. The cache is a ring of
// 2 * window slots per layer: position t lives in slot t % capacity and slot_pos records which
// position each slot holds. A query at position t attends to held positions in (t - window, t];
// rollback is the caller's length alone (a stale slot is rewritten before it is read, or lies
// past every query, where the mask hides it). See graphs.StaticCache.
// Medusa's heads (heads.MedusaHeads) on a main model's final norm and tied output head: head k
// turns z = RMSNorm(h) into z + silu(res_k z) (+ a heavy twin's SwiGLU units, whose output weights
// are zero), and the output head makes its logits. One call drafts g <= K rows from one feature.
struct MedusaHeadsWeights {
    int c, vocab, hidden;  // hidden: each head's SwiGLU units (0: none)
    std::vector<Linear> res, w13, w2;
    std::vector<float> tok_emb, final_norm;
    Linear head;

    // addr: tok_emb, final_norm, then per head res (and w13, w2 when hidden > 0)
    MedusaHeadsWeights(int n_heads, int c_, int vocab_, int hidden_, const std::vector<uintptr_t>& addr)
        : c(c_), vocab(vocab_), hidden(hidden_) {
        if (n_heads < 1 || c < 1 || vocab < 1 || hidden < 0) throw std::invalid_argument("bad heads configuration");
        if (addr.size() != size_t(2 + n_heads * (hidden > 0 ? 3 : 1))) throw std::invalid_argument("wrong number of parameters");
        size_t next = 0;
        const auto at = [&]() { return reinterpret_cast<const float*>(addr[next++]); };
        const float* emb = at();
        tok_emb.assign(emb, emb + size_t(vocab) * c);
        head = Linear(tok_emb.data(), vocab, c);
        const float* norm = at();
        final_norm.assign(norm, norm + c);
        for (int k = 0; k < n_heads; ++k) {
            res.emplace_back(at(), c, c);
            if (hidden > 0) {
                w13.emplace_back(at(), 2 * hidden, c);
                w2.emplace_back(at(), c, hidden);
            }
        }
    }
};

class MedusaSession {
public:
    MedusaSession(std::shared_ptr<MedusaHeadsWeights> weights, const std::string& kernel)
        : w_(std::move(weights)), kern_(kernel_named(kernel)) {
        const MedusaHeadsWeights& w = *w_;
        z_.resize(w.c);
        out_.resize(size_t(w.res.size()) * w.c);
        gate_up_.resize(2 * size_t(w.hidden));
        act_.resize(w.hidden);
    }

    // The logits [g, vocab] of the first g heads from the feature h [c].
    void logits(uintptr_t h_addr, int g, uintptr_t logits_addr) {
        const MedusaHeadsWeights& w = *w_;
        if (g < 1 || g > int(w.res.size())) throw std::invalid_argument("g must be 1 to the number of heads");
        kern_.rms_norm(reinterpret_cast<const float*>(h_addr), 1, w.c, w.final_norm.data(), z_.data());
        for (int k = 0; k < g; ++k) {
            float* y = &out_[size_t(k) * w.c];
            matmul(kern_, z_.data(), 1, w.res[k], y, false);
            for (int j = 0; j < w.c; ++j) y[j] = z_[j] + y[j] / (1.0f + exp_approx(-y[j]));  // z + silu(res z)
            if (w.hidden > 0) {
                matmul(kern_, z_.data(), 1, w.w13[k], gate_up_.data(), false);
                kern_.swiglu(gate_up_.data(), 1, w.hidden, act_.data());
                matmul(kern_, act_.data(), 1, w.w2[k], y, true);
            }
        }
        matmul(kern_, out_.data(), g, w.head, reinterpret_cast<float*>(logits_addr), false);
    }

private:
    std::shared_ptr<const MedusaHeadsWeights> w_;
    const Kernel& kern_;
    std::vector<float> z_, out_, gate_up_, act_;
};

class Session {
public:
    Session(std::shared_ptr<Weights> weights, int window, const std::string& kernel)
        : w_(std::move(weights)), kern_(kernel_named(kernel)), window_(window), capacity_(2 * window) {
        if (window < 1) throw std::invalid_argument("window must be positive");
        const Weights& w = *w_;
        slot_pos_.assign(capacity_, -2 * int64_t(capacity_));  // no position: outside every window
        const size_t cache = size_t(w.n_layer) * w.n_head * capacity_ * w.head_dim;
        k_.assign(cache, 0.0f);
        v_.assign(cache, 0.0f);
        slots_.resize(window);
        pos_.resize(window);
        visible_.resize(size_t(window) * capacity_);
        n_visible_.resize(window);
        x_.resize(size_t(window) * w.c);
        pair_.resize(w.fuses ? size_t(window) * 2 * w.c : 0);
        xn_.resize(size_t(window) * w.c);
        att_.resize(size_t(window) * w.c);
        qkv_.resize(size_t(window) * 3 * w.c);
        gate_up_.resize(size_t(window) * 2 * w.hidden);
        act_.resize(size_t(window) * w.hidden);
        scores_.resize(capacity_);
        last_logits_.resize(w.vocab);
    }

    std::string kernel() const { return kern_.name; }

    // Whether h holds every layer's output side by side ([t, n_layer * c], for EAGLE-3's
    // drafter) or the last layer's alone ([t, c]).
    void set_layers(bool layers) { layers_ = layers; }

    // Logits [T, vocab] and h [T, c] (before the final norm) of tokens at start, start + 1, ...
    void forward(const std::vector<int64_t>& tokens, int64_t start, uintptr_t logits, uintptr_t h) {
        const int t = check_rows(tokens);
        claim_chain(start, t);
        run(tokens.data(), t, reinterpret_cast<float*>(logits), reinterpret_cast<float*>(h), t);
    }

    // A head's forward (MTPDrafter.forward): pairs (h_j, tokens[j]) at positions start, start + 1, ...
    // (h [t, c] float32, the main model's features or the head's own), each fused as
    // proj [RMSNorm(h); RMSNorm(Emb(token))], through the head's block. Writes the last pair's
    // logits [vocab] and its output feature [c] (before the final norm).
    void forward_pairs(uintptr_t h_addr, const std::vector<int64_t>& tokens, int64_t start, uintptr_t logits,
                       uintptr_t feature) {
        const Weights& w = *w_;
        if (!w.fuses) throw std::invalid_argument("forward_pairs runs a head's weights (Weights.head)");
        const int t = check_rows(tokens);
        claim_chain(start, t);
        const auto* h = reinterpret_cast<const float*>(h_addr);
        for (int i = 0; i < t; ++i) pair_row(h + size_t(i) * w.c, tokens[i], i);
        matmul(kern_, pair_.data(), t, w.proj, x_.data(), false);
        run_rows(t, reinterpret_cast<float*>(logits), nullptr, 1);
        std::memcpy(reinterpret_cast<float*>(feature), &x_[size_t(t - 1) * w.c], w.c * sizeof(float));
    }

    // The block drafter's forward (heads.ParallelBlock): the anchor proj [RMSNorm(h); RMSNorm(Emb(token))]
    // and g mask embeddings (masks [g, c] float32) at positions 0..g, causal, through the head's
    // block; writes the logits [g, vocab] of the g mask rows. Every call starts again at position 0.
    void forward_block(uintptr_t h_addr, int64_t token, uintptr_t masks_addr, int g, uintptr_t logits) {
        const Weights& w = *w_;
        if (!w.fuses || g < 1 || g + 1 > window_) throw std::invalid_argument("the block drafts 1 to window - 1 masks");
        const std::vector<int64_t> rows(size_t(g) + 1, token);
        check_rows(rows);
        claim_chain(0, g + 1);
        pair_row(reinterpret_cast<const float*>(h_addr), token, 0);
        matmul(kern_, pair_.data(), 1, w.proj, x_.data(), false);
        std::memcpy(&x_[w.c], reinterpret_cast<const float*>(masks_addr), size_t(g) * w.c * sizeof(float));
        run_rows(g + 1, reinterpret_cast<float*>(logits), nullptr, g);
    }

    // The nodes of a token tree (root first, parents[i] < i): node i takes the slot of chain
    // position root + i, sits at RoPE position root + depths[i], and sees the cached positions
    // before the root within its window, its ancestors and itself (StaticCache.prepare_tree).
    void forward_tree(const std::vector<int64_t>& tokens, const std::vector<int64_t>& parents,
                      const std::vector<int64_t>& depths, int64_t root, uintptr_t logits, uintptr_t h) {
        const int t = check_rows(tokens);
        if (parents.size() != tokens.size() || depths.size() != tokens.size() || parents[0] != -1 || depths[0] != 0)
            throw std::invalid_argument("a tree needs one parent and depth per node, root first");
        for (int i = 1; i < t; ++i)
            if (parents[i] < 0 || parents[i] >= i || depths[i] != depths[parents[i]] + 1)
                throw std::invalid_argument("tree nodes must follow their parents");
        claim_tree(root, parents, depths);
        run(tokens.data(), t, reinterpret_cast<float*>(logits), reinterpret_cast<float*>(h), t);
    }

    // After a tree from position root: the accepted nodes `path` (top down) move to the slots of
    // positions root + 1, root + 2, ... In order, so a source is never overwritten before it is
    // read: path[j] >= j + 1, and the later sources lie further on.
    void keep_path(int64_t root, const std::vector<int64_t>& path) {
        const Weights& w = *w_;
        const size_t row = w.head_dim;
        for (size_t j = 0; j < path.size(); ++j) {
            if (path[j] <= int64_t(j) || path[j] >= window_) throw std::invalid_argument("not a path of the last tree");
            const int src = int((root + path[j]) % capacity_), dst = int((root + 1 + int64_t(j)) % capacity_);
            for (int lh = 0; lh < w.n_layer * w.n_head; ++lh) {
                const size_t base = size_t(lh) * capacity_;
                std::memcpy(&k_[(base + dst) * row], &k_[(base + src) * row], row * sizeof(float));
                std::memcpy(&v_[(base + dst) * row], &v_[(base + src) * row], row * sizeof(float));
            }
        }
    }

    // γ = g draft steps and their sampling: `tokens` (the 1 or 2 positions of the sequence not
    // processed yet, from `start`) go in, then each draft; draft i inverts the CDF of q_i at
    // u[i]. Writes q [g, vocab]; returns the drafts. The last draft is not processed.
    std::vector<int64_t> draft_round(std::vector<int64_t> tokens, int64_t start, int g, double temperature,
                                     uintptr_t u_addr, uintptr_t q_addr) {
        const auto* u = reinterpret_cast<const double*>(u_addr);
        auto* q = reinterpret_cast<float*>(q_addr);
        const int v = w_->vocab;
        std::vector<int64_t> drafts;
        for (int i = 0; i < g; ++i) {
            const int t = check_rows(tokens);
            claim_chain(start, t);
            run(tokens.data(), t, last_logits_.data(), nullptr, 1);
            probs_from_logits(last_logits_.data(), v, temperature, q + size_t(i) * v);
            drafts.push_back(sample(q + size_t(i) * v, v, u[i]));
            start += t;
            tokens.assign(1, drafts.back());
        }
        return drafts;
    }

    // One plain decoding step (runners.Runner.sample_next): `tokens` (the positions not processed
    // yet, from `start`) go in, and the token after them is drawn from the last row's
    // probs_from_logits at temperature T, inverting its CDF at u_next (rule.sample).
    int64_t sample_next(const std::vector<int64_t>& tokens, int64_t start, double temperature, double u_next) {
        const int t = check_rows(tokens);
        const int v = w_->vocab;
        claim_chain(start, t);
        run(tokens.data(), t, last_logits_.data(), nullptr, 1);
        step_probs_.resize(v);
        probs_from_logits(last_logits_.data(), v, temperature, step_probs_.data());
        return sample(step_probs_.data(), v, u_next);
    }

    // One verify (runners.Runner.verify): `tokens` (from `start`) end in the g drafts; the last g + 1
    // rows' logits become p at temperature T, and accept_reject(p, q [g, vocab], drafts, u [g]
    // float32, u_next) decides. Writes h [t, c]; returns (accepted drafts, next token).
    std::pair<int64_t, int64_t> verify(const std::vector<int64_t>& tokens, int64_t start, int g, double temperature,
                                       uintptr_t q_addr, uintptr_t u_addr, double u_next, uintptr_t h_addr) {
        const int t = check_rows(tokens);
        if (g < 0 || g + 1 > t) throw std::invalid_argument("a verify feeds the pending token and its drafts");
        const int v = w_->vocab;
        const size_t rows = size_t(g) + 1;
        step_logits_.resize(rows * v);
        step_probs_.resize(rows * v);
        claim_chain(start, t);
        run(tokens.data(), t, step_logits_.data(), reinterpret_cast<float*>(h_addr), g + 1);
        for (size_t i = 0; i < rows; ++i)
            probs_from_logits(step_logits_.data() + i * v, v, temperature, step_probs_.data() + i * v);
        const int64_t* drafts = tokens.data() + (t - g);
        return accept_reject_rows(step_probs_.data(), reinterpret_cast<const float*>(q_addr), drafts, g, v,
                                  reinterpret_cast<const float*>(u_addr), u_next);
    }

private:
    int check_rows(const std::vector<int64_t>& tokens) const {
        if (tokens.empty() || tokens.size() > size_t(window_))
            throw std::invalid_argument("feed 1 to window positions per call");
        for (int64_t token : tokens)
            if (token < 0 || token >= w_->vocab) throw std::out_of_range("token id out of range");
        return int(tokens.size());
    }

    // Positions first .. end - 1 are valid (checked before any slot is claimed).
    void check_positions(int64_t first, int64_t end) const {
        if (first < 0) throw std::invalid_argument("negative position");
        if (end > w_->rope_positions) throw std::out_of_range("position past the RoPE tables");
    }

    void claim_slot(int row, int64_t chain_pos) {
        slots_[row] = int(chain_pos % capacity_);
        slot_pos_[slots_[row]] = chain_pos;
    }

    // A plain run of t positions from start: row i at position start + i sees (pos - window, pos].
    void claim_chain(int64_t start, int t) {
        check_positions(start, start + t);
        for (int i = 0; i < t; ++i) {
            claim_slot(i, start + i);
            pos_[i] = start + i;
        }
        for (int i = 0; i < t; ++i) {
            int* seen = &visible_[size_t(i) * capacity_];
            int n = 0;
            for (int s = 0; s < capacity_; ++s)
                if (slot_pos_[s] <= pos_[i] && slot_pos_[s] > pos_[i] - window_) seen[n++] = s;
            n_visible_[i] = n;
        }
    }

    void claim_tree(int64_t root, const std::vector<int64_t>& parents, const std::vector<int64_t>& depths) {
        const int t = int(parents.size());
        check_positions(root, root + t);  // chain positions root .. root + t - 1 cover every depth
        for (int i = 0; i < t; ++i) {
            claim_slot(i, root + i);
            pos_[i] = root + depths[i];
        }
        for (int i = 0; i < t; ++i) {
            int* seen = &visible_[size_t(i) * capacity_];
            int n = 0;
            for (int s = 0; s < capacity_; ++s)
                if (slot_pos_[s] < root && slot_pos_[s] > pos_[i] - window_) seen[n++] = s;
            for (int64_t j = i; j >= 0; j = parents[j]) seen[n++] = slots_[j];  // itself and its ancestors
            n_visible_[i] = n;
        }
    }

    float* k_at(int layer, int head, int slot) {
        return &k_[((size_t(layer) * w_->n_head + head) * capacity_ + slot) * w_->head_dim];
    }
    float* v_at(int layer, int head, int slot) {
        return &v_[((size_t(layer) * w_->n_head + head) * capacity_ + slot) * w_->head_dim];
    }

    // The blocks over the t claimed rows. Writes h (if given) and the logits of the last
    // `logit_rows` rows (all t for a forward, the last alone for a draft step, γ + 1 for a verify).
    void run(const int64_t* tokens, int t, float* logits, float* h, int logit_rows) {
        const Weights& w = *w_;
        if (w.fuses) throw std::invalid_argument("a head's weights run on pairs (forward_pairs)");
        for (int i = 0; i < t; ++i)
            std::memcpy(&x_[size_t(i) * w.c], &w.tok_emb[size_t(tokens[i]) * w.c], w.c * sizeof(float));
        run_rows(t, logits, h, logit_rows);
    }

    // Row i of a head's fused input: [RMSNorm(h); RMSNorm(Emb(token))] (proj then maps it to c).
    void pair_row(const float* h, int64_t token, int i) {
        const Weights& w = *w_;
        float* pair = &pair_[size_t(i) * 2 * w.c];
        kern_.rms_norm(h, 1, w.c, w.hidden_norm.data(), pair);
        kern_.rms_norm(&w.tok_emb[size_t(token) * w.c], 1, w.c, w.embed_norm.data(), pair + w.c);
    }

    // The blocks over the t rows already in x_, then the final norm and the head as run says.
    void run_rows(int t, float* logits, float* h, int logit_rows) {
        const Weights& w = *w_;
        for (int l = 0; l < w.n_layer; ++l) {
            block(l, t);
            if (h != nullptr && layers_)  // row i's layer l output goes to h[i, l * c : (l + 1) * c]
                for (int i = 0; i < t; ++i)
                    std::memcpy(h + (size_t(i) * w.n_layer + l) * w.c, &x_[size_t(i) * w.c], w.c * sizeof(float));
        }
        if (h != nullptr && !layers_) std::memcpy(h, x_.data(), size_t(t) * w.c * sizeof(float));
        const int first = t - logit_rows;
        kern_.rms_norm(&x_[size_t(first) * w.c], t - first, w.c, w.final_norm.data(), xn_.data());
        matmul(kern_, xn_.data(), t - first, w.head, logits, false);
    }

    void block(int l, int t) {
        const Weights& w = *w_;
        const Layer& layer = w.layers[l];
        kern_.rms_norm(x_.data(), t, w.c, layer.attn_norm.data(), xn_.data());
        matmul(kern_, xn_.data(), t, layer.wqkv, qkv_.data(), false);
        store_kv(l, t);
        attend(l, t);
        matmul(kern_, att_.data(), t, layer.wo, x_.data(), true);  // x += attention
        kern_.rms_norm(x_.data(), t, w.c, layer.mlp_norm.data(), xn_.data());
        matmul(kern_, xn_.data(), t, layer.w13, gate_up_.data(), false);
        kern_.swiglu(gate_up_.data(), t, w.hidden, act_.data());
        matmul(kern_, act_.data(), t, layer.w2, x_.data(), true);  // x += mlp
    }

    // RoPE on each row's q and k, then its k and v into the row's slot (written before any read).
    void store_kv(int l, int t) {
        const Weights& w = *w_;
        const int half = w.head_dim / 2;
        for (int i = 0; i < t; ++i) {
            float* row = &qkv_[size_t(i) * 3 * w.c];
            const float* cos = &w.rope_cos[size_t(pos_[i]) * half];
            const float* sin = &w.rope_sin[size_t(pos_[i]) * half];
            rope(row, 2 * w.n_head, w.head_dim, cos, sin);  // q and k: 2 * n_head heads side by side
            for (int hd = 0; hd < w.n_head; ++hd) {
                std::memcpy(k_at(l, hd, slots_[i]), row + w.c + hd * w.head_dim, w.head_dim * sizeof(float));
                std::memcpy(v_at(l, hd, slots_[i]), row + 2 * w.c + hd * w.head_dim, w.head_dim * sizeof(float));
            }
        }
    }

    void attend(int l, int t) {
        const Weights& w = *w_;
        const Attention a{qkv_.data(), 3 * w.c, k_at(l, 0, 0), v_at(l, 0, 0), w.n_head, w.head_dim, capacity_,
                          visible_.data(), n_visible_.data(), scores_.data(), att_.data(), w.c};
        kern_.attend(a, t);
    }

    std::shared_ptr<const Weights> w_;
    const Kernel& kern_;
    int window_, capacity_;
    bool layers_ = false;               // h: every layer's output, or the last one's
    std::vector<int64_t> slot_pos_;     // the position each slot holds
    std::vector<float> k_, v_;          // [layer, head, slot, head_dim]
    // the claimed rows of the current forward
    std::vector<int> slots_;            // each row's slot
    std::vector<int64_t> pos_;          // each row's RoPE position
    std::vector<int> visible_;          // [row, capacity]: the slots each row attends to
    std::vector<int> n_visible_;
    // scratch, sized for window rows
    std::vector<float> x_, xn_, att_, qkv_, gate_up_, act_, scores_, last_logits_;
    std::vector<float> pair_;           // a head's fused inputs [row, 2c]
    std::vector<float> step_logits_, step_probs_;  // a step's logits and p rows (grown on demand)
};

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.doc() = "The native engine's kernel (see experiments/native.py).";
    py::class_<Weights, std::shared_ptr<Weights>>(m, "Weights")
        .def(py::init<int, int, int, int, int, const std::vector<uintptr_t>&, bool>(), py::arg("n_layer"),
             py::arg("n_embd"), py::arg("n_head"), py::arg("mlp_hidden"), py::arg("vocab_size"), py::arg("addresses"),
             py::arg("fuses") = false)
        .def("set_rope", &Weights::set_rope, py::arg("cos"), py::arg("sin"), py::arg("positions"))
        .def_readonly("rope_positions", &Weights::rope_positions);
    py::class_<Session>(m, "Session")
        .def(py::init<std::shared_ptr<Weights>, int, const std::string&>(), py::arg("weights"), py::arg("window"),
             py::arg("kernel"))
        .def_property_readonly("kernel", &Session::kernel)
        .def("forward", &Session::forward)
        .def("forward_tree", &Session::forward_tree)
        .def("forward_pairs", &Session::forward_pairs)
        .def("forward_block", &Session::forward_block)
        .def("keep_path", &Session::keep_path)
        .def("draft_round", &Session::draft_round)
        .def("sample_next", &Session::sample_next)
        .def("verify", &Session::verify)
        .def("set_layers", &Session::set_layers);
    py::class_<MedusaHeadsWeights, std::shared_ptr<MedusaHeadsWeights>>(m, "MedusaHeadsWeights")
        .def(py::init<int, int, int, int, const std::vector<uintptr_t>&>(), py::arg("n_heads"), py::arg("n_embd"),
             py::arg("vocab_size"), py::arg("hidden"), py::arg("addresses"));
    py::class_<MedusaSession>(m, "MedusaSession")
        .def(py::init<std::shared_ptr<MedusaHeadsWeights>, const std::string&>(), py::arg("weights"), py::arg("kernel"))
        .def("logits", &MedusaSession::logits);
    m.def("kernels", &kernel_names, "The kernel paths this machine runs, fastest first.");
    m.def("accept_reject", &accept_reject);
}
