// Part of native.cpp (one translation unit: native.cpp includes the parts in order, inside its
// anonymous namespace, after the standard headers). Packed weights, the one summation order every
// kernel path keeps, and the row operations (RMSNorm, SwiGLU, attention) over a path's reductions.

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
