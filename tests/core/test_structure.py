"""The code's structure (SPEC §9): the experiments' modules import each other in layers, with no
cycle and no import inside a function; measurement modules do not import each other; every
method of the registry runs through `generate` and writes plain decoding's greedy text."""
import ast
import contextlib
import io
import json

import pytest
import torch

from experiments.data import CharData
from experiments.generate import main as generate_main
from experiments.measure import MEASUREMENTS
from experiments.methods import FAMILIES, Models, check, decode, names, spec_of
from experiments.model import load_checkpoint
from tests.helpers import ROOT

PACKAGE = ROOT / "experiments"
CORE = ["model", "rule", "trees", "runners", "graphs", "native", "aot", "engine", "speculative"]  # bottom up
OPTIONAL = {"transformers", "playwright"}  # extras a function may import where they are needed


def module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def ours(name):
    return name == "experiments" or name.startswith("experiments.")


def imports_of(path):
    """(top-level imports of our modules, [(line, module) of imports inside a function or class])."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top, nested = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        if node in tree.body:
            top |= {n for n in names if ours(n)}
        else:
            nested += [(node.lineno, n) for n in names[:1]]
    return top, nested


def graph(paths):
    modules = {module_name(p): p for p in paths}
    edges = {}
    for name, path in modules.items():
        top, _ = imports_of(path)
        # `from experiments.measure import ledger` names a module; `from experiments.rule import sample` does not
        edges[name] = {n for n in top if n in modules and n != name}
    return edges


def python_files():
    return sorted(PACKAGE.rglob("*.py"))


def find_cycle(edges):
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_the_experiments_import_graph_has_no_cycle():
    cycle = find_cycle(graph(python_files()))
    assert cycle is None, " -> ".join(cycle)


def test_no_function_imports_one_of_our_modules():
    found = []
    for path in python_files():
        for line, name in imports_of(path)[1]:
            if name.split(".")[0] not in OPTIONAL:
                found.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert not found, "\n".join(found)


def test_the_core_is_layered_bottom_up():
    """model → rule → trees → runners → graphs → native → aot → engine → speculative: each imports only those below it."""
    edges = graph(python_files())
    for i, name in enumerate(CORE):
        allowed = {f"experiments.{below}" for below in CORE[:i]}
        above = edges[f"experiments.{name}"] - allowed
        assert not {n for n in above if n.removeprefix("experiments.") in CORE}, (name, above)
        assert edges[f"experiments.{name}"] <= allowed | {"experiments.cli", "experiments.data"}, (name, edges[f"experiments.{name}"])


def test_measurement_modules_do_not_import_each_other():
    measurements = {fn.__module__ for fn, _ in MEASUREMENTS.values()}
    edges = graph(python_files())
    for name in measurements:
        assert not edges[name] & measurements, (name, edges[name] & measurements)
    # the exercises are measured, not the other way round
    for name, targets in edges.items():
        if name.startswith("experiments.exercises"):
            assert not any(t.startswith("experiments.measure") for t in targets), (name, targets)


def top_names(path):
    """Every module an import in the file names (absolute imports; a relative one stays in its package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    return names + [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 0]


def test_the_experiments_and_the_build_do_not_import_each_other():
    """experiments/ writes the results JSON and chapter/ (the build) reads it: neither imports the
    other, so the page builds without torch and a measurement never depends on how it is printed.
    The one exception is the contract both keep: experiments/records/, the results files declared
    as typed records, which imports nothing but typing and itself."""
    for path in python_files():
        assert not any(n.split(".")[0] in ("chapter", "tools", "tests") for n in top_names(path)), path
    for path in (ROOT / "chapter").rglob("*.py"):
        names = [n for n in top_names(path) if not n.startswith("experiments.records")]
        assert not any(n.split(".")[0] in ("experiments", "tools", "tests", "torch") for n in names), path
    for path in (ROOT / "experiments" / "records").glob("*.py"):
        names = [n for n in top_names(path) if not n.startswith("experiments.records")]
        assert {n.split(".")[0] for n in names} <= {"typing", "__future__"}, path


def test_tools_do_not_import_tests():
    for path in (ROOT / "tools").glob("*.py"):
        assert not any(n == "conftest" or n.startswith("tests") for n in top_names(path)), path


def cli_text(*args):
    """generate's JSON for these flags, run in this process (tests/cli/test_generate.py runs it as a process)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert generate_main([*args, "--temperature", "0", "--n", "70", "--prompt", "ROMEO:\\n"]) == 0
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def plain_text():
    return cli_text("--method", "plain")["text"]


def chain_gamma(method):
    """The γ a chain of `method` is run with here: its family's measured configuration, or 4."""
    shape, size = FAMILIES[method].config or ("chain", 4)
    return str(size if shape == "chain" else 4)


@pytest.mark.parametrize("method,shape", [(m, "chain") for m in names(chain=True)] + [(m, "tree") for m in names(tree=True)])
def test_every_registered_method_runs_through_generate_with_the_plain_greedy_text(method, shape, plain_text):
    args = ["--method", method] + (["--gamma", chain_gamma(method)] if shape == "chain" else
                                   ["--gamma", "3"] if method == "lookahead" else ["--tree", "8"])
    out = cli_text(*args)
    assert out["text"] == plain_text, (method, shape)
    assert out["main_forwards"] + out["accepted"] == 70  # each main forward emits one char beyond the accepted


def test_every_method_but_plain_drafts_a_chain_or_a_tree():
    assert {m for m in FAMILIES if not (FAMILIES[m].chain or FAMILIES[m].tree)} == {"plain"}


def test_imports_of_sees_an_import_inside_a_function(tmp_path):
    path = tmp_path / "late.py"
    path.write_text("import torch\nfrom experiments.rule import sample\n\n\ndef f():\n    from experiments import engine\n")
    top, nested = imports_of(path)
    assert top == {"experiments.rule", "experiments.rule.sample"} and nested == [(6, "experiments")]


def test_generate_runs_the_measured_lookahead_tree():
    """`--method lookahead --tree N` is the configuration families.json measures as lookahead's
    tree of N nodes (its window from the registry, not --gamma's default)."""
    main = load_checkpoint(ROOT / "experiments" / "checkpoints" / "main_s0.pt")[0]
    measured = check(spec_of("lookahead", "tree", 16), Models(main))
    out = cli_text("--method", "lookahead", "--tree", "16")
    with torch.inference_mode():
        result = decode(measured, Models(main), CharData().encode("ROMEO:\n"), 70, temperature=0)
    assert out["main_forwards"] == result.main_forwards and measured.gamma == 5
