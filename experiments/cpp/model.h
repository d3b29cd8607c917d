// Part of native.cpp. One GPT's packed weights (or an MTP-shaped head's on it), RoPE, and a
// Session: one sequence's kv cache and the forwards, draft rounds and steps over it.

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
