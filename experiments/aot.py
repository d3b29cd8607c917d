"""The ahead-of-time engine, `aot`: the static cache and the step graphs of experiments/graphs.py,
each (model, kind, shape) exported once with torch.export and compiled by AOTInductor into a
.pt2 package, then run through the package's C++ runner. No dynamo at run time: a step is one
C++ call on a flat list of tensors (no guards, no wrapper clones), which is most of what a
batch-1 step of these models costs under torch.compile.

- A step is a small nn.Module (`Step`) holding the model (and the MTP head or EAGLE drafter):
  their weights become the package's constants. The cache's per-layer k/v buffers and slot_pos
  are inputs that the package writes in place, so AOTRunner keeps StaticRunner's cache semantics
  (ring buffer, rollback by length) and its padding to built sizes.
- Packages live on disk under `cache_dir()` (experiments/.aot_cache, or $SPEC_AOT_CACHE), keyed
  by everything that changes the compiled code (`package_key`): torch, the machine, the thread
  count they were compiled for, the compiler, the config, the weights, the kind and shape, the
  inductor options and the source of graphs.py, model.py and this file. A later process loads a
  package (a fraction of a second) instead of compiling it (about 10-20 s), and compiles again
  one that fails to load (a file cut short); each package is loaded once per process (LOADED).
- A package holds a copy of the weights: a model changed in place after its runner was built
  still runs the old weights in that runner (a new runner hashes the weights again and rebuilds).
"""
import hashlib
import json
import logging
import os
import platform
import subprocess
import tempfile
import time
import warnings
import weakref
from contextlib import contextmanager
from functools import lru_cache, partial
from pathlib import Path
from unittest.mock import patch

import torch
import torch.nn as nn

from experiments.graphs import (GRAPHS, StaticCache, StaticMTPDrafter, StaticRunner, check_compiler, mtp_graph,
                                prepare_model, round_graph, scratch_inputs)
from experiments.runners import EngineUnavailable

HERE = Path(__file__).resolve().parent
SOURCES = ("graphs.py", "model.py", "aot.py")  # a change to any of them rebuilds every package
# Inductor options of every package. max_autotune with the C++ GEMM template: each linear
# becomes a GEMM kernel generated for its shape, the weights packed into its blocking at compile
# time (ATEN stays a candidate, so autotuning keeps whichever is faster and a shape the template
# cannot take still compiles). freezing (it needs autograd off: compile_package runs under
# no_grad) folds the weights in as constants. On this CPU the pair takes a third off the main
# model's 1-position step and half off its 5-position verify against no options; freezing alone
# is slower than no options (oneDNN's linear on one row).
INDUCTOR_CONFIGS = {"freezing": True, "max_autotune": True, "max_autotune_gemm_backends": "CPP,ATEN"}

LOADED = {}  # package path -> its loaded runner, once per process
# model (the head, for kind mtp) -> {(kind, size): seconds its first build in this process took,
# compiling or only loading}, as engine.READY records for the compiled engine
BUILT = weakref.WeakKeyDictionary()


def cache_dir():
    return Path(os.environ.get("SPEC_AOT_CACHE") or HERE / ".aot_cache")


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        return ""


@lru_cache(maxsize=None)
def compiler_id(cxx):
    """The compiler inductor calls (it reads $CXX) and its version line."""
    try:
        out = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    return f"{cxx}: {out.strip().splitlines()[0] if out.strip() else '?'}"


def source_hash():
    digest = hashlib.sha256()
    for name in SOURCES:
        digest.update((HERE / name).read_bytes())
    return digest.hexdigest()


def weights_hash(*modules):
    """sha256 of the state_dicts' names, dtypes, shapes and bytes."""
    digest = hashlib.sha256()
    for module in modules:
        for key, tensor in sorted(module.state_dict().items()):
            digest.update(f"{key}:{tensor.dtype}:{tuple(tensor.shape)}:{tensor.device}".encode())
            digest.update(tensor.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def package_key(model, kind, size, weights):
    """Everything that changes the compiled code of one step, as a JSON string."""
    return json.dumps({
        "torch": torch.__version__, "machine": platform.machine(), "cpu": cpu_name(),
        "threads": torch.get_num_threads(),  # inductor sizes its OpenMP loops when it compiles
        "cxx": compiler_id(os.environ.get("CXX", "g++")), "config": repr(model.cfg), "weights": weights,
        "kind": kind, "size": size, "inductor": INDUCTOR_CONFIGS, "source": source_hash(),
    }, sort_keys=True)


def package_path(model, kind, size, weights):
    digest = hashlib.sha256(package_key(model, kind, size, weights).encode()).hexdigest()[:24]
    tag = "-".join(str(s) for s in size) if isinstance(size, tuple) else str(size)
    return cache_dir() / f"{kind}-{tag}-{digest}.pt2"


class BoundCache(StaticCache):
    """A StaticCache over the buffers it is given (the step's inputs), as the graphs expect."""

    def __init__(self, k, v, slot_pos):
        self.k, self.v, self.slot_pos = list(k), list(v), slot_pos
        self.capacity = slot_pos.shape[0]
        self.window = self.capacity // 2


class Step(nn.Module):
    """One step as a module: forward(tensors, slot_pos, k, v) returns the graph's two outputs;
    tensors are the graph's tensor arguments after the cache (idx, pos for main; idx, pos,
    ancestors for tree; h, next_idx, pos for mtp; idx, pos, u for round, whose size is (γ, T))."""

    def __init__(self, model, kind, size, head=None):
        super().__init__()
        self.model, self.kind, self.size = model, kind, size
        self.drafter = head if kind == "mtp" else None  # registered: its weights become constants too

    def forward(self, tensors, slot_pos, k, v):
        cache = BoundCache(k, v, slot_pos)
        if self.kind in ("main", "tree", "main_layers", "tree_layers"):
            return GRAPHS[self.kind](self.model, cache, *tensors)
        if self.kind == "mtp":
            return mtp_graph(self.model, self.drafter, cache, *tensors)
        gamma, temperature = self.size
        return round_graph(self.model, cache, *tensors, gamma, temperature)


def example_args(model, kind, size, head=None):
    """Step.forward's arguments on a scratch cache (graphs.scratch_inputs)."""
    args = scratch_inputs(model, kind, size, model.tok_emb.weight.device, head)
    if kind == "mtp":
        args = args[1:]
    elif kind == "round":
        args = args[:-2]
    cache, *tensors = args
    return tuple(tensors), cache.slot_pos, list(cache.k), list(cache.v)


def flat_inputs(tensors, cache):
    """The order the package takes its inputs in: Step.forward's arguments, flattened."""
    return [*tensors, cache.slot_pos, *cache.k, *cache.v]


def compile_package(model, kind, size, head, path):
    """Export the step and compile it into a package at path, written atomically."""
    step = Step(model, kind, size, head)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".pt2", dir=path.parent)
    os.close(fd)
    try:
        with torch.no_grad(), quiet():
            program = torch.export.export(step, example_args(model, kind, size, head), strict=False)
            torch._inductor.aoti_compile_and_package(program, package_path=tmp,
                                                     inductor_configs=dict(INDUCTOR_CONFIGS))
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


@contextmanager
def quiet():
    """No autotuning tables on stderr, none of torch's own deprecation warnings and not its "Loading
    outdated pt2 file" for a damaged package, which load_or_compile rebuilds (none of this changes
    the compiled code, so none of it is part of the key)."""
    with warnings.catch_warnings(), torch._inductor.config.patch(max_autotune_report_choices_stats=False), \
            patch("torch._inductor.select_algorithm.PRINT_AUTOTUNE", False), \
            patch.object(logging.getLogger("torch._inductor.package.package"), "disabled", True):
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.filterwarnings("ignore", "TypedStorage is deprecated")  # from inductor's autotuner
        yield


def load_package(path):
    """The package's C++ runner: a function of the list of input tensors (flat_inputs) that
    returns the list of outputs. (AOTICompiledModel.__call__ would parse the package's pytree
    specs again on every call; its loader's boxed_run is the call without that.)"""
    if path not in LOADED:
        with quiet():
            LOADED[path] = torch._inductor.aoti_load_package(str(path)).loader.boxed_run
    return LOADED[path]


def load_or_compile(model, kind, size, head, path):
    """The runner of the package at path, compiled first where there is none. A package on disk
    that fails to load (cut short by a killed process, say) is deleted and compiled again: kept,
    it would fail every later run too."""
    if path in LOADED or path.exists():
        try:
            return load_package(path)
        except (RuntimeError, OSError) as err:
            try:
                path.unlink()
            except OSError:
                raise EngineUnavailable(f"the AOT package {path} fails to load ({one_line(err)}) and cannot "
                                         f"be removed: delete it") from err
    compile_package(model, kind, size, head, path)
    return load_package(path)


def one_line(err):
    text = str(err).strip()
    return f"{type(err).__name__}: {text.splitlines()[0] if text else ''}"


def ensure_packages(model, kind, sizes, head=None):
    """Make sure the package of each size exists (compiling those that do not) and is loaded.
    Returns ({size: runner}, the seconds that took)."""
    if not sizes:
        return {}, 0.0
    t0 = time.perf_counter()
    built = BUILT.setdefault(head if kind == "mtp" else model, {})
    try:
        check_compiler()
        prepare_model(model)
        weights = weights_hash(model, *([head] if kind == "mtp" else []))
        runners = {}
        for size in sizes:
            t1 = time.perf_counter()
            path = package_path(model, kind, size, weights)
            runners[size] = load_or_compile(model, kind, size, head, path)
            built.setdefault((kind, size), time.perf_counter() - t1)
    except EngineUnavailable:
        raise
    except Exception as err:  # export, inductor or the compiler failed: one line, not a trace
        raise EngineUnavailable(f"AOTInductor failed on a {kind} step: {one_line(err)}") from err
    return runners, time.perf_counter() - t0


def run_step(packages, kind, model, *args):
    """What graph(kind) returns: the graph's own signature, run by the package of its model
    (and head) and input shape."""
    if kind == "mtp":
        head, cache, *tensors = args
        key = (model, head, tensors[1].shape[1])
    elif kind == "round":
        cache, *tensors, gamma, temperature = args
        key = (model, None, (gamma, temperature))
    else:
        cache, *tensors = args
        key = (model, None, tensors[0].shape[1])
    runner = packages.get(key)
    if runner is None:
        raise ValueError(f"no AOT package built for {kind} {key[2]} of this model: build it first")
    out = runner(flat_inputs(tensors, cache))
    return out[0], out[1]


class AOTRunner(StaticRunner):
    """StaticRunner whose steps are AOTInductor packages (compiled or loaded in build; see the
    module docstring). compile_s: the seconds build took (compiling, or only loading)."""

    def __init__(self, model, sizes=(1,), round=None, tree_size=None, layers=False):
        self.packages = {}  # kind -> {(model, head, size): runner}
        super().__init__(model, sizes, round, tree_size, layers)

    def build(self, kind, sizes):
        head = self.head if kind == "mtp" else None
        runners, spent = ensure_packages(self.model, kind, sizes, head)
        table = self.packages.setdefault(kind, {})
        for size, runner in runners.items():
            table[self.model, head, size] = runner
        return spent

    def graph(self, kind):
        return partial(run_step, self.packages.get(kind, {}), kind)


class AOTMTPDrafter(StaticMTPDrafter):
    """StaticMTPDrafter with AOTInductor packages (per head: an EAGLE drafter is another head)."""

    def __init__(self, model, sizes=(1,), head=None):
        self.packages = {}
        super().__init__(model, sizes, head)

    build = AOTRunner.build
    graph = AOTRunner.graph
