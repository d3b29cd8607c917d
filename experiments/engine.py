"""The engines: the same models and the same decoding semantics, run four ways, from the most
per-call overhead to the least. `eager` is today's modules (experiments/runners.py); `compiled`
runs the static-cache steps of experiments/graphs.py through `torch.compile` with inductor's C++
backend, the way gpt-fast does; `aot` runs the same steps as AOTInductor packages built ahead of
time and kept on disk (experiments/aot.py); `native` is a C++ step written for this model
(experiments/native.py). ENGINES holds each as a record; `make_runner` gives a decoder the runner
of an engine for a Plan.

On this CPU a forward costs per-operator dispatch, not arithmetic, so an engine's job is to
dispatch fewer things: each compiled step is one graph whose shape never changes. Every new
process compiles them again (inductor's disk cache under /tmp makes a later process faster, not
free); `ensure_compiled` does it before the first timed call.
"""
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import torch

from experiments.aot import AOTMTPDrafter, AOTRunner
from experiments.graphs import GRAPHS, StaticMTPDrafter, StaticRunner, check_compiler, prepare_model, scratch_inputs
from experiments.native import NativeMTPDrafter, NativeParallelHeads, NativeRunner
from experiments.runners import EngineUnavailable, MTPDrafter, Runner


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
        except EngineUnavailable:
            raise
        except Exception as err:  # inductor failed (compiler, headers, ...): one line, not a trace
            raise EngineUnavailable(f"torch.compile failed: {type(err).__name__}: "
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


@dataclass(frozen=True)
class Plan:
    """What a decoder asks of a model's runner. `sizes`: the numbers of new positions per call the
    compiled and aot engines build steps for (others are padded up to one); `margin`: the kv
    cache's rollback margin (γ for a chain of γ drafts; eager's cache needs it, the ring buffers
    do not); `round` = (γ, T): a whole draft round of γ steps and their sampling as one step;
    `tree_size`: a verify of a token tree of that many nodes (smaller trees are padded up);
    `layers`: h is every layer's output (EAGLE-3's drafter reads them); `mtp`: the runner is an
    MTP-shaped head's drafter, over `head` (default: the model's own MTP head)."""
    mode: str = "kvcache"
    sizes: tuple = (1,)
    margin: int | None = None
    round: tuple | None = None
    tree_size: int | None = None
    layers: bool = False
    mtp: bool = False
    head: object = None


@dataclass(frozen=True)
class Engine:
    """One way to run the models: its name on the page, its runner and MTP-head drafter for a
    Plan, its parallel heads (Medusa's, the block drafter's) where it has its own, and whether it
    runs only in kv-cache mode (a static cache)."""
    label: dict
    runner: Callable
    mtp_drafter: Callable
    parallel_heads: Callable | None = None
    kvcache_only: bool = True


# from the most per-call overhead to the least. The native engine needs no steps built ahead: its
# C++ step takes any number of positions, and its MTP head (and EAGLE's and EAGLE-3's layer) runs
# in C++ too, on the native model's features.
ENGINES = {
    "eager": Engine({"zh": "eager 引擎", "en": "eager engine"},
                    runner=lambda model, plan: Runner(model, plan.mode, plan.margin, plan.layers),
                    mtp_drafter=lambda model, plan: MTPDrafter(model, plan.mode, plan.head, plan.margin),
                    kvcache_only=False),
    "compiled": Engine({"zh": "编译引擎", "en": "compiled engine"},
                       runner=lambda model, plan: CompiledRunner(model, plan.sizes, plan.round, plan.tree_size, plan.layers),
                       mtp_drafter=lambda model, plan: CompiledMTPDrafter(model, plan.sizes, plan.head)),
    "aot": Engine({"zh": "AOT 引擎", "en": "AOT engine"},
                  runner=lambda model, plan: AOTRunner(model, plan.sizes, plan.round, plan.tree_size, plan.layers),
                  mtp_drafter=lambda model, plan: AOTMTPDrafter(model, plan.sizes, plan.head)),
    "native": Engine({"zh": "原生 C++ 引擎", "en": "native C++ engine"},
                     runner=lambda model, plan: NativeRunner(model, plan.margin, layers=plan.layers),
                     mtp_drafter=lambda model, plan: NativeMTPDrafter(model, plan.head),
                     parallel_heads=NativeParallelHeads),
}


def check_engine(engine, mode):
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {tuple(ENGINES)}, got {engine!r}")
    if ENGINES[engine].kvcache_only and mode != "kvcache":
        raise ValueError(f"engine {engine} runs in kvcache mode only (it is a static kv cache): use --mode kvcache")
    return engine


def make_runner(model, plan, engine):
    """A Runner for `plan` on `engine` (an MTPDrafter where plan.mtp); EngineUnavailable where that
    engine cannot run here."""
    check_engine(engine, plan.mode)
    return (ENGINES[engine].mtp_drafter if plan.mtp else ENGINES[engine].runner)(model, plan)


def available_engines(main, requested):
    """The engines to measure, in ENGINES order: eager always (the baseline), and each other one
    requested that builds its main step here; one that cannot says so in one line and is left out."""
    out = ["eager"]
    for engine in list(ENGINES)[1:]:
        if engine not in (requested or ()):
            continue
        try:
            with torch.inference_mode():
                make_runner(main, Plan(), engine)
        except EngineUnavailable as err:
            print(f"  note: the {engine} engine is unavailable here ({err}); not measuring it", flush=True)
            continue
        out.append(engine)
    return out


def compile_seconds(*models):
    """Seconds each compiled graph took to build in this process, per model and (kind, size)."""
    return {name: {f"{kind}/{size}": s for (kind, size), s in sorted(READY.get(model, {}).items())}
            for name, model in models}
