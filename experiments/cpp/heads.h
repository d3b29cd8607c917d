// Part of native.cpp.

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
