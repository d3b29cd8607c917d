"""The native engine: the same models and the same decoding semantics as the eager Runner, with the
forward written out in C++ (experiments/cpp/native.cpp and its parts) so that a call costs little more than its
arithmetic.

- `load_extension()` builds native.cpp once per process (torch.utils.cpp_extension, JIT, into the
  torch extensions folder under a name that carries the machine and the torch version); a later
  process reuses the build while the source is unchanged. No C++ compiler, or a failed build:
  `runners.EngineUnavailable`, with a one-line reason.
- `NativeRunner(model)`: drop-in for `runners.Runner` in kv-cache mode. The weights are copied and
  packed once per model (again if any parameter changed since); the cache is the compiled engine's
  ring buffer (graphs.StaticCache: 2 × window slots, rollback moves the length alone), in C++.
  `draft_round` runs a whole round of γ draft steps and their sampling in one C++ call;
  `sample_next` (a plain step) and `verify` (a speculative step) run the forward, the probabilities
  at temperature T, the acceptance rule and the final sample in one C++ call, on uniforms drawn
  from the generator beforehand exactly as the Python path (runners.Runner) draws them. Their
  decisions are the Python path's on the same logits up to float rounding: p comes from
  native.cpp's softmax, which can differ from torch.softmax in a last bit, and that flips a
  decision only when a uniform lands within that bit of a boundary (none in 40,000 verifies of
  the trained models, γ = 4, T = 1 and 0.7; T = 0 is exact).
- `native_accept_reject(p, q, drafts, u, u_next)`: rule.accept_reject on given uniforms, in C++
  (rule.accept_reject stays the reference).

Everything runs in float32 on one CPU thread, whatever the model's dtype; outputs are float32.
The kernel path (AVX-512, AVX2+FMA or portable C++) is the fastest this CPU runs, or the one that
`kernel=` or the environment variable NATIVE_KERNEL names ("auto", "avx512", "avx2", "portable").
"""
import os
import platform
import re
import shutil
import time
import weakref
from pathlib import Path

import torch
from torch.utils import cpp_extension

from experiments.cli import UsageError
from experiments.model import rope_tables
from experiments.rule import check_temperature
from experiments.runners import EngineUnavailable, MTPDrafter, Runner

SOURCE = Path(__file__).with_name("cpp") / "native.cpp"  # it includes its parts, cpp/*.h: one build
KERNELS = ("auto", "avx512", "avx2", "portable")
# -O3 and no -march: the SIMD kernels carry target attributes, so the build runs on any x86-64.
# -fopenmp-simd: `#pragma omp simd` reductions vectorize (no OpenMP runtime, no threads);
# -fno-trapping-math: the clamps of native.cpp's exp vectorize (FP exceptions are never read);
# -ffp-contract=off: every kernel path rounds alike (cpp/rows.h, "One summation order").
CFLAGS = ["-O3", "-fopenmp-simd", "-fno-trapping-math", "-ffp-contract=off"]
_EXTENSION = []  # the loaded module, once per process


def extension_name():
    """A module name per machine architecture and torch version: a build is never reused across them."""
    return re.sub(r"\W", "_", f"native_engine_{platform.machine()}_torch{torch.__version__}")


def load_extension():
    """The compiled native.cpp, built on the first call in a process (a minute at most; later
    processes load the cached build)."""
    return extension_and_seconds()[0]


def extension_and_seconds():
    """(the compiled native.cpp, the seconds this call spent building or loading it: 0 once the
    process has it). The runners report those seconds as compile_s, kept out of wall_s."""
    if _EXTENSION:
        return _EXTENSION[0], 0.0
    cxx = os.environ.get("CXX", "g++")
    if shutil.which(cxx) is None:
        raise EngineUnavailable(f"no C++ compiler ({cxx}) on PATH")
    t0 = time.perf_counter()
    try:
        module = cpp_extension.load(name=extension_name(), sources=[str(SOURCE)], extra_cflags=CFLAGS, verbose=False)
    except Exception as err:  # ninja missing, compiler errors, ...: one line, not a build log
        lines = str(err).strip().splitlines()
        raise EngineUnavailable(f"building {SOURCE.name} failed: {type(err).__name__}: "
                                f"{lines[0] if lines else ''}") from err
    _EXTENSION.append(module)
    return module, time.perf_counter() - t0


def available_kernels():
    """The kernel paths this machine runs, fastest first."""
    return load_extension().kernels()


def parameter_list(model, head=None):
    """The float32 tensors native.cpp's Weights reads, in its order: the model's, or those of an
    MTP-shaped `head` on it (its fusion and block between the model's embedding and final norm)."""
    tensors = [model.tok_emb.weight]
    if head is not None:
        tensors += [head.hidden_norm.weight, head.embed_norm.weight, head.proj.weight]
    for block in model.blocks if head is None else [head.block]:
        tensors += [block.attn_norm.weight, block.attn.wqkv.weight, block.attn.wo.weight,
                    block.mlp_norm.weight, block.mlp.w13.weight, block.mlp.w2.weight]
    tensors.append(model.norm.weight)
    return [t.detach().to(torch.float32).contiguous() for t in tensors]


def weights_signature(model, head=None):
    """Changes when any parameter is replaced or written in place."""
    params = [*model.parameters(), *(head.parameters() if head is not None else ())]
    return tuple((p.data_ptr(), p._version) for p in params)


class PackedWeights:
    """One model's weights in native.cpp's layout (or an MTP-shaped head's on it), and the RoPE
    tables (grown on demand)."""

    def __init__(self, model, head=None):
        cfg = model.cfg
        if model.tok_emb.weight.device.type != "cpu":
            raise ValueError("the native engine runs on the CPU: move the model there first")
        tensors = parameter_list(model, head)  # kept alive until Weights has copied them
        n_layer, hidden = (cfg.n_layer, cfg.mlp_hidden) if head is None else (1, head.block.mlp.w2.in_features)
        self.native = load_extension().Weights(n_layer, cfg.n_embd, cfg.n_head, hidden, cfg.vocab_size,
                                               [t.data_ptr() for t in tensors], head is not None)
        self.head_dim, self.positions = cfg.head_dim, 0
        self.ensure_rope(16 * cfg.block_size)

    def ensure_rope(self, end):
        """RoPE tables for positions 0 .. end - 1 at least (model.rope_tables, cast to float32)."""
        if end > self.positions:
            n = max(end, 2 * self.positions)
            cos, sin = (t.float().contiguous() for t in rope_tables(self.head_dim, n))
            self.native.set_rope(cos.data_ptr(), sin.data_ptr(), n)
            self.positions = n


_PACKED = weakref.WeakKeyDictionary()  # model -> (weights_signature, PackedWeights)


def packed_weights(model, head=None, pack=PackedWeights):
    """pack(model, head): the packed weights of the model (or of `head` on it), packed again if any
    parameter changed since the last packing."""
    key = model if head is None else head
    signature = weights_signature(model, head)
    entry = _PACKED.get(key)
    if entry is None or entry[0] != signature:
        entry = (signature, pack(model, head))
        _PACKED[key] = entry
    return entry[1]


def pack_medusa(model, heads):
    """native.cpp's MedusaHeadsWeights of heads.MedusaHeads on the main model: tok_emb, the final
    norm, then each head's res (and its heavy-twin SwiGLU, when it has one)."""
    hidden = heads.ballast[0].w2.in_features if len(heads.ballast) else 0
    tensors = [model.tok_emb.weight, model.norm.weight]
    for k, res in enumerate(heads.res):
        tensors.append(res.weight)
        if hidden:
            tensors += [heads.ballast[k].w13.weight, heads.ballast[k].w2.weight]
    tensors = [t.detach().to(torch.float32).contiguous() for t in tensors]
    return load_extension().MedusaHeadsWeights(len(heads.res), model.cfg.n_embd, model.cfg.vocab_size, hidden,
                                               [t.data_ptr() for t in tensors])


def kernel_choice(kernel=None):
    """The kernel path asked for: `kernel`, else $NATIVE_KERNEL, else auto; a UsageError (one line
    from every command) for a name it does not know or a path this machine cannot run."""
    asked_by = "kernel" if kernel else "NATIVE_KERNEL"
    kernel = kernel or os.environ.get("NATIVE_KERNEL") or "auto"
    if kernel not in KERNELS:
        raise UsageError(f"{asked_by} must be one of {', '.join(KERNELS)}, got {kernel!r}")
    if kernel != "auto" and kernel not in available_kernels():
        raise UsageError(f"{asked_by} {kernel}: this machine runs only {', '.join(available_kernels())}")
    return kernel


class NativeCache:
    """What Runner.keep_path and Runner.truncate call: the C++ session's ring buffer."""

    def __init__(self, session):
        self.session = session

    def keep_path(self, root, path):
        if path:
            self.session.keep_path(root, list(path))

    def rollback(self, length):
        if length < 0:
            raise ValueError(f"cannot roll back to {length}")
        # nothing moves: the mask hides what lies past the length (see graphs.StaticCache)


class NativeRunner(Runner):
    """`Runner` in kv-cache mode on the native engine (see the module docstring). `margin` is
    accepted as Runner's and ignored: the ring buffer needs no rollback margin."""

    def __init__(self, model, margin=None, kernel=None, layers=False):
        build_s = extension_and_seconds()[1]  # the first native object of a process builds or loads native.cpp
        self.packed = packed_weights(model)
        self.kernel_request = kernel_choice(kernel)
        cfg = model.cfg
        self.vocab_size = cfg.vocab_size
        self.h_width = cfg.n_layer * cfg.n_embd if layers else cfg.n_embd  # h: every layer's output, or the last
        super().__init__(model, "kvcache", margin, layers)
        self.compile_s = build_s
        self.session = self.cache.session
        self.session.set_layers(layers)
        self.kernel = self.session.kernel  # the path chosen: "avx512", "avx2" or "portable"

    def new_cache(self, margin):
        return NativeCache(load_extension().Session(self.packed.native, self.window, self.kernel_request))

    def forward(self, tokens, start):
        tokens = tokens.tolist() if torch.is_tensor(tokens) else list(tokens)
        T = len(tokens)
        logits, h = torch.empty((T, self.vocab_size)), torch.empty((T, self.h_width))
        if start + T > self.packed.positions:
            self.packed.ensure_rope(start + T)
        if T == 0:  # nothing new: no rows (as CompiledRunner)
            return logits, h
        if T <= self.window:  # the hot path: one call, no views
            self.session.forward(tokens, start, logits.data_ptr(), h.data_ptr())
            return logits, h
        row_logits, row_h = 4 * self.vocab_size, 4 * self.h_width  # bytes per float32 row
        for i in range(0, T, self.window):  # a long feed (the prompt): window-sized chunks
            self.session.forward(tokens[i:i + self.window], start + i, logits.data_ptr() + i * row_logits,
                                 h.data_ptr() + i * row_h)
        return logits, h

    def forward_tree(self, tree):
        T = len(tree.tokens)
        if T > self.window:
            raise ValueError(f"a tree of {T} nodes exceeds the window of {self.window}")
        logits, h = torch.empty((T, self.vocab_size)), torch.empty((T, self.h_width))
        self.packed.ensure_rope(self.length + T)
        self.session.forward_tree(list(tree.tokens), list(tree.parents), list(tree.depths), self.length,
                                  logits.data_ptr(), h.data_ptr())
        return logits, h

    def draft_round(self, seq, g, temperature, generator=None):
        """A whole round in one C++ call when the runner is 1 or 2 tokens behind seq (as
        CompiledRunner.draft_round): the g uniforms drawn up front, as g samples would draw them;
        otherwise the step-by-step round of Runner."""
        L = len(seq)
        if L - self.length not in (1, 2) or g < 1:
            return super().draft_round(seq, g, temperature, generator)
        check_temperature(temperature)
        u = torch.rand(g, generator=generator, dtype=torch.float64)
        q = torch.empty((g, self.vocab_size))
        with self.timed(forwards=g):  # the drafter's time includes its sampling
            self.packed.ensure_rope(L + g)
            drafts = self.session.draft_round(list(seq[self.length:]), self.length, g, float(temperature),
                                              u.data_ptr(), q.data_ptr())
        self.length = L + g - 1
        return q, drafts

    def sample_next(self, seq, temperature, generator=None):
        """Runner.sample_next in one C++ call when the runner is 1 to window positions behind seq:
        the forward of the new positions, p of the last row at temperature T and the token drawn
        from it, on the one float64 uniform rule.sample would draw. A longer feed (the prompt) takes
        Runner's path. Counts one forward; forward_s includes the probabilities and the sample."""
        L = len(seq)
        if not 1 <= L - self.length <= self.window:
            return super().sample_next(seq, temperature, generator)
        check_temperature(temperature)
        u_next = torch.rand(1, generator=generator, dtype=torch.float64).item()
        with self.timed(forwards=1):
            if L > self.packed.positions:
                self.packed.ensure_rope(L)
            token = self.session.sample_next(list(seq[self.length:]), self.length, float(temperature), u_next)
        self.length = L
        return token

    def verify(self, seq, drafts, q, temperature, generator=None, record=None):
        """Runner.verify in one C++ call: the forward of seq + drafts' new positions, p of the last
        g + 1 rows at temperature T, rule.accept_reject (the C++ twin) and its final sample, on
        uniforms drawn beforehand as the Python path draws them: torch.rand(g) in float32 (p's
        dtype, rule.uniforms; none when g = 0, as a 0-length draw leaves the generator alone), then
        one float64 (rule.sample). Returns (n_accepted, next_token, h [t, C or L·C], start) as Runner.verify.
        Counts one forward; forward_s includes the rule and the sample. Runner's path instead when
        tracing (`record`), when the feed is not the pending token + drafts within one window (the
        prompt), or when q is not the float32 [g, V] CPU tensor the rule would read as such."""
        g = len(drafts)
        start, L = self.length, len(seq) + g
        t = L - start
        if record is not None or not g + 1 <= t <= self.window or not self.plain_q(q, g):
            return super().verify(seq, drafts, q, temperature, generator, record)
        check_temperature(temperature)
        u = torch.rand(g, generator=generator, dtype=torch.float32) if g else None
        u_next = torch.rand(1, generator=generator, dtype=torch.float64).item()
        q = q.detach().contiguous() if g else None
        h = torch.empty((t, self.h_width))
        with self.timed(forwards=1):
            if L > self.packed.positions:
                self.packed.ensure_rope(L)
            n, token = self.session.verify(list(seq[start:]) + list(drafts), start, g, float(temperature),
                                           q.data_ptr() if g else 0, u.data_ptr() if g else 0, u_next, h.data_ptr())
        self.length = L
        return n, token, h, start

    def plain_q(self, q, g):
        """q fits the one-call verify: none without drafts, else a float32 [g, V] CPU tensor."""
        if g == 0:
            return q is None or (torch.is_tensor(q) and q.shape[0] == 0)
        return (torch.is_tensor(q) and q.dtype == torch.float32 and q.device.type == "cpu"
                and tuple(q.shape) == (g, self.vocab_size))


class NativeMTPDrafter(MTPDrafter):
    """runners.MTPDrafter in kv-cache mode with the head's forward in C++ (Session.forward_pairs):
    the MTP head, or EAGLE's or EAGLE-3's layer (`head`), on its own ring-buffer cache."""

    def __init__(self, model, head=None, kernel=None):
        build_s = extension_and_seconds()[1]
        self.packed = packed_weights(model, head or model.mtp)
        self.kernel_request = kernel_choice(kernel)
        super().__init__(model, "kvcache", head)
        self.compile_s = build_s
        self.session = self.cache.session

    def new_cache(self, margin):
        return NativeCache(load_extension().Session(self.packed.native, self.window, self.kernel_request))

    def forward(self, h, next_tokens, start):
        tokens = next_tokens.tolist() if torch.is_tensor(next_tokens) else list(next_tokens)
        h = h.detach().to(torch.float32).contiguous()
        C = h.shape[-1]
        logits, feature = torch.empty(self.model.cfg.vocab_size), torch.empty(C)
        self.packed.ensure_rope(start + len(tokens))
        for i in range(0, len(tokens), self.window):  # a long feed (the prompt's pairs): window-sized chunks
            chunk = tokens[i:i + self.window]
            self.session.forward_pairs(h[i].data_ptr(), chunk, start + i, logits.data_ptr(), feature.data_ptr())
        return logits, feature


class NativeParallelHeads:
    """The calls of heads.ParallelDrafter in C++: `logits(h [C], token, g)` -> [g, V], the drafts'
    logits from one feature, by Medusa's heads (MedusaSession) or the block drafter's net (a Session
    on its block, every call from position 0)."""

    def __init__(self, model, net, kernel=None):
        self.model, self.net = model, net
        self.medusa = hasattr(net, "res")
        kernel = kernel_choice(kernel)
        if self.medusa:
            self.session = load_extension().MedusaSession(packed_weights(model, net, pack_medusa), kernel)
        else:
            self.packed = packed_weights(model, net)
            self.packed.ensure_rope(model.cfg.block_size)
            self.session = load_extension().Session(self.packed.native, model.cfg.block_size, kernel)
            self.masks = net.masks.detach().to(torch.float32).contiguous()  # its first g rows: any g

    @staticmethod
    def supports(net):
        """Medusa's heads (their residual layers, `res`) and the block drafter's net (its `masks`);
        another kind's heads run eagerly beside the native main model (heads.ParallelDrafter)."""
        return hasattr(net, "res") or hasattr(net, "masks")

    def logits(self, h, token, g):
        h = h.detach().to(torch.float32).contiguous()
        logits = torch.empty((g, self.model.cfg.vocab_size))
        if self.medusa:
            self.session.logits(h.data_ptr(), g, logits.data_ptr())
        else:
            self.session.forward_block(h.data_ptr(), token, self.masks.data_ptr(), g, logits.data_ptr())
        return logits


def native_accept_reject(p, q, drafts, u, u_next):
    """rule.accept_reject on given uniforms: p [γ+1, V], q [γ, V], drafts [γ], u [γ] (the float32
    uniforms rule.uniforms draws), u_next the float64 uniform of the final sample. Returns
    (n_accepted, next_token)."""
    p, q = (t.detach().to("cpu", torch.float32).contiguous() for t in (p, q))
    u = torch.as_tensor(u).detach().to("cpu", torch.float32).contiguous()
    drafts = drafts.tolist() if torch.is_tensor(drafts) else list(drafts)
    gamma, V = len(drafts), p.shape[-1]
    if p.shape != (gamma + 1, V) or q.shape != (gamma, V) or u.shape != (gamma,):
        raise ValueError(f"shapes p {tuple(p.shape)}, q {tuple(q.shape)}, u {tuple(u.shape)} do not fit "
                         f"{gamma} drafts")
    return tuple(load_extension().accept_reject(p.data_ptr(), q.data_ptr(), drafts, V, u.data_ptr(), float(u_next)))
