// Part of native.cpp. Sampling and the acceptance rule, function for function as
// experiments/rule.py has them (probs_from_logits, sample, accept_reject with its residual).

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
