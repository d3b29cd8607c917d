"""The engines: the same models and the same decoding semantics, run four ways, from the most
per-call overhead to the least. `eager` is today's modules (experiments/runners.py); `compiled`
runs the static-cache steps of experiments/graphs.py through `torch.compile` with inductor's C++
backend, the way gpt-fast does; `aot` runs the same steps as AOTInductor packages built ahead of
time and kept on disk (experiments/aot.py); `native` is a C++ step written for this model
(experiments/native.py). `make_runner` gives a decoder the runner of an engine.

On this CPU a forward costs per-operator dispatch, not arithmetic, so an engine's job is to
dispatch fewer things: each compiled step is one graph whose shape never changes. Every new
process compiles them again (inductor's disk cache under /tmp makes a later process faster, not
free); `ensure_compiled` does it before the first timed call.
"""
import time
import weakref

import torch

from experiments.aot import AOTMTPDrafter, AOTRunner
from experiments.graphs import (GRAPHS, CompileUnavailable, StaticMTPDrafter, StaticRunner, check_compiler,
                                prepare_model, scratch_inputs)
from experiments.native import NativeMTPDrafter, NativeParallelHeads, NativeRunner, NativeUnavailable
from experiments.runners import MTPDrafter, Runner


def compile_graph(fn):
    return torch.compile(fn, fullgraph=True, dynamic=False, options={"cpp_wrapper": True})


COMPILED = {}  # kind -> compiled step; dynamo keeps one graph per input shape (and constants) under it
# model -> {(kind, size): seconds the warm-up took}. A model whose shapes an earlier model already
# compiled (another seed's checkpoint) reuses that graph: its entry then records ~0 s.
READY = weakref.WeakKeyDictionary()


def compiled_graph(kind):
    if kind not in COMPILED:
        # every (model, shape) is one more entry under the same function: allow enough of them
        torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, 256)
        COMPILED[kind] = compile_graph(GRAPHS[kind])
    return COMPILED[kind]


def ensure_compiled(model, kind, sizes, head=None):
    """Run the compiled step once for each size on a scratch cache (once per model, kind and
    size; per head for kind mtp with another head), so that no timed forward includes
    compilation. Returns the seconds that took now."""
    prepare_model(model)
    done = READY.setdefault(model if head is None else head, {})
    device = model.tok_emb.weight.device
    spent = 0.0
    for size in sizes:
        if (kind, size) in done:
            continue
        t0 = time.perf_counter()
        try:
            check_compiler()
            compiled_graph(kind)(model, *scratch_inputs(model, kind, size, device, head))
        except CompileUnavailable:
            raise
        except Exception as err:  # inductor failed (compiler, headers, ...): one line, not a trace
            raise CompileUnavailable(f"torch.compile failed: {type(err).__name__}: "
                                     f"{str(err).strip().splitlines()[0] if str(err).strip() else ''}") from err
        done[(kind, size)] = time.perf_counter() - t0
        spent += done[(kind, size)]
    return spent


class CompiledRunner(StaticRunner):
    """StaticRunner with torch.compile steps (compiled once per kind, shape and model)."""

    def build(self, kind, sizes):
        return ensure_compiled(self.model, kind, sizes)

    def graph(self, kind):
        return compiled_graph(kind)


class CompiledMTPDrafter(StaticMTPDrafter):
    """StaticMTPDrafter with torch.compile steps."""

    def build(self, kind, sizes):
        return ensure_compiled(self.model, kind, sizes, self.head)

    graph = CompiledRunner.graph


# from the most per-call overhead to the least; all but eager run in kv-cache mode only
ENGINES = ("eager", "compiled", "aot", "native")
ENGINE_LABELS = {  # as the page names them (registry.json)
    "eager": {"zh": "eager 引擎", "en": "eager engine"},
    "compiled": {"zh": "编译引擎", "en": "compiled engine"},
    "aot": {"zh": "AOT 引擎", "en": "AOT engine"},
    "native": {"zh": "原生 C++ 引擎", "en": "native C++ engine"},
}


def check_engine(engine, mode):
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if engine != "eager" and mode != "kvcache":
        raise ValueError(f"engine {engine} runs in kvcache mode only (it is a static kv cache): use --mode kvcache")
    return engine


def make_runner(model, mode, engine, sizes=(1,), lookahead=None, mtp=False, round=None, head=None, tree_size=None,
                layers=False):
    """A Runner (an MTPDrafter with mtp=True, over `head` if given) in the given engine. For the
    compiled and aot engines: `sizes` are the numbers of new positions per call they build steps
    for (others are padded up to one), round = (γ, T) builds a whole draft round of γ steps and
    their sampling, and tree_size a verify of a token tree of that many nodes (smaller trees are
    padded up). The native engine needs none of that: its C++ step takes any number of positions.
    Its MTP head (and EAGLE's and EAGLE-3's layer) runs in C++ too, on the native model's features. layers=True: the
    main runner's h is every layer's output (for EAGLE-3's drafter)."""
    check_engine(engine, mode)
    if engine == "eager":
        return MTPDrafter(model, mode, head, lookahead) if mtp else Runner(model, mode, lookahead, layers)
    if engine == "native":
        try:
            return NativeMTPDrafter(model, head) if mtp else NativeRunner(model, lookahead, layers=layers)
        except NativeUnavailable as err:
            raise CompileUnavailable(str(err)) from err
    if engine == "aot":
        return AOTMTPDrafter(model, sizes, head) if mtp else AOTRunner(model, sizes, round, tree_size, layers)
    if mtp:
        return CompiledMTPDrafter(model, sizes, head)
    return CompiledRunner(model, sizes, round, tree_size, layers)


def native_parallel_heads(model, net):
    """native.NativeParallelHeads (Medusa's heads or the block drafter in C++), CompileUnavailable
    where the native engine cannot build, as make_runner."""
    try:
        return NativeParallelHeads(model, net)
    except NativeUnavailable as err:
        raise CompileUnavailable(str(err)) from err


def available_engines(main, requested):
    """The engines to measure, in ENGINES order: eager always (the baseline), and each other one
    requested that builds its main step here; one that cannot says so in one line and is left out."""
    out = ["eager"]
    for engine in ENGINES[1:]:
        if engine not in (requested or ()):
            continue
        try:
            with torch.inference_mode():
                make_runner(main, "kvcache", engine)
        except CompileUnavailable as err:
            print(f"  note: the {engine} engine is unavailable here ({err}); not measuring it", flush=True)
            continue
        out.append(engine)
    return out


def compile_seconds(*models):
    """Seconds each compiled graph took to build in this process, per model and (kind, size)."""
    return {name: {f"{kind}/{size}": s for (kind, size), s in sorted(READY.get(model, {}).items())}
            for name, model in models}
