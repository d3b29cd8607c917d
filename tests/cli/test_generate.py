"""`python -m experiments.generate`: one JSON object on success (at the limits of its options, for
trees, lookahead and the heavy twin too), and every option it refuses refused before it loads
anything, in one line on stderr, `error: ...`, exit code 2; the compiled engine's position limit,
and its fallback to eager where there is no compiler."""
import json
import weakref

import pytest

from experiments import engine, graphs
from experiments import generate as generate_module
from experiments.data import CharData
from experiments.generate import main as generate_main
from tests.helpers import generate, one_error_line, one_line_error, tool


@pytest.mark.parametrize("method,extra", [("plain", []), ("draft", ["--gamma", "3"]), ("mtp", [])])
def test_generate_prints_one_json_object(method, extra):
    out = generate("--method", method, "--n", "40", "--prompt", "ROMEO:\\n", *extra)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert set(result) == {"text", "main_forwards", "draft_forwards", "proposed", "accepted", "wall_s",
                           "compile_s", "warmup_s"}
    assert len(result["text"]) == 40
    assert result["main_forwards"] + result["accepted"] == 40
    # the untimed warm-up decode has a generator of its own: the timed decode writes the same text
    cold = json.loads(generate("--method", method, "--n", "40", "--prompt", "ROMEO:\\n", "--warmup", "0", *extra).stdout)
    assert (cold["text"], cold["main_forwards"], cold["accepted"]) == (result["text"], result["main_forwards"],
                                                                       result["accepted"])
    assert cold["warmup_s"] == 0 and "warmup_s" in result


@pytest.mark.parametrize("args", [
    ["--method", "draft", "--gamma", "63", "--mode", "recompute", "--temperature", "0", "--n", "90"],
    ["--method", "draft", "--gamma", "30", "--n", "300"],                       # issue 8, bug 2
    ["--method", "mtp", "--n", "40", "--prompt", "First Citizen:\\nBefore we proceed any further, "
     "hear me speak.\\n\\nAll:\\nSpeak, speak."],                               # bug 3: 80 chars
    ["--temperature", "0.01", "--n", "20"],                                     # MIN_TEMPERATURE
])
def test_generate_runs_at_the_limits(args):
    out = generate(*args)
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["text"]) == int(args[args.index("--n") + 1])


def test_generate_ngram_prints_its_counters():
    out = generate("--method", "ngram", "--gamma", "6", "--n", "80", "--temperature", "0")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert len(result["text"]) == 80 and result["draft_forwards"] == result["proposed"] > 0


def test_generate_takes_trees_and_lookahead():
    for args in (["--method", "ngram", "--tree", "8"], ["--method", "lookahead", "--gamma", "3", "--order", "3"],
                 ["--method", "medusa", "--tree", "6", "--temperature", "0"], ["--method", "eagle", "--tree", "8"]):
        out = generate(*args, "--n", "60")
        assert out.returncode == 0, out.stderr
        result = json.loads(out.stdout)
        assert len(result["text"]) == 60 and result["main_forwards"] + result["accepted"] == 60
    for args, message in ((["--method", "draft", "--tree", "8"], "--tree applies to"),
                          (["--method", "ngram", "--tree", "8", "--mode", "recompute"], "--mode must be kvcache"),
                          (["--method", "medusa", "--gamma", "4"], "at most 3")):
        out = generate(*args, "--n", "10")
        assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


@pytest.mark.compiles  # generate --engine native
def test_generate_runs_the_twin_and_refuses_a_scale_below_one():
    texts = [json.loads(generate("--method", "ngram", "--gamma", "5", "--temperature", "0", "--n", "60",
                                 "--engine", "native", "--scale", scale).stdout)["text"] for scale in ("1", "2.5")]
    assert texts[0] == texts[1]
    out = generate("--scale", "0.5")
    assert out.returncode == 2 and out.stderr.startswith("error: --scale must be between 1") and out.stdout == ""


@pytest.mark.parametrize("args, message", [
    (["--method", "draft", "--gamma", "0"], "--gamma must be at least 1"),
    (["--method", "ngram", "--tree", "1"], "--tree must be at least 2"),
    (["--method", "draft", "--tree", "8"], "--tree applies to"),
    (["--method", "plain", "--gamma", "2"], "--gamma does not apply to plain decoding"),
    (["--method", "mtp", "--gamma", "2"], "--gamma must be 1"),
    (["--method", "ngram", "--order", "11"], "--order must be between 1 and 10"),
    (["--method", "lookahead", "--gamma", "3", "--tree", "3"], "--tree 3 leaves no room"),
    (["--engine", "compiled", "--mode", "recompute"], "--engine compiled runs in kvcache mode only"),
])
def test_generate_checks_its_options_before_loading_anything(monkeypatch, capsys, args, message):
    monkeypatch.setattr(generate_module, "CharData", lambda: pytest.fail("loaded the data first"))
    monkeypatch.setattr(generate_module, "models_from_flags", lambda *a: pytest.fail("loaded the models first"))
    assert generate_main(args) == 2
    assert message in one_error_line(capsys)


def test_a_cpu_index_names_the_device():
    one_line_error(tool("generate", "--device", "cpu:1", "--n", "5"), "--device cpu:1")


def test_an_unknown_native_kernel_is_one_line_naming_the_allowed_ones(monkeypatch, capsys):
    monkeypatch.setenv("NATIVE_KERNEL", "sse9")
    monkeypatch.setattr(generate_module, "CharData", lambda: pytest.fail("loaded the data first"))
    assert generate_main(["--engine", "native", "--n", "5"]) == 2
    err = one_error_line(capsys)
    assert "NATIVE_KERNEL" in err and "sse9" in err and "auto, avx512, avx2, portable" in err


def test_a_huge_n_is_refused_on_the_eager_engine_before_the_data_loads(monkeypatch, capsys):
    monkeypatch.setattr(CharData, "__init__", lambda *a: pytest.fail("the data was loaded"))
    assert generate_main(["--n", "1000000000"]) == 2
    assert "every engine holds at most 16,320 characters" in one_error_line(capsys)


@pytest.fixture
def eager_compiled_engine(monkeypatch):
    """The compiled engine with its steps run as written instead of compiled (same static cache,
    padding and position checks, no compilation); returns the ends check_positions was asked for."""
    monkeypatch.setattr(engine, "compile_graph", lambda graph: graph)
    monkeypatch.setattr(engine, "COMPILED", {})
    monkeypatch.setattr(engine, "READY", weakref.WeakKeyDictionary())
    asked, check = [], graphs.check_positions
    monkeypatch.setattr(graphs, "check_positions", lambda end: asked.append(end) or check(end))
    return asked


def test_compiled_engine_refuses_a_tree_past_its_positions_before_decoding(eager_compiled_engine, capsys):
    """Issue 18, item 18: the up-front check counted --gamma, but the tree verify pads to --tree nodes,
    so this ran into 'asked for 16385' after compiling and decoding for 23 s."""
    prompt = CharData().path.read_text()[:16000]
    code = generate_main(["--engine", "compiled", "--method", "ngram", "--tree", "64", "--temperature", "0",
                          "--prompt", prompt, "--n", "382"])
    assert code == 2 and "every engine holds at most 16,320 characters" in one_error_line(capsys)
    assert eager_compiled_engine == []  # refused before the first forward


LIMIT = 400  # positions the engine holds in the next test: a short run at the limit


@pytest.mark.parametrize("method,extra", [
    (["--method", "plain"], 0),
    (["--method", "ngram", "--gamma", "4"], 4),                  # the pending token + γ drafts, checked with γ + 1 on top
    (["--method", "mtp"], 1),
    (["--method", "ngram", "--tree", "64"], 64 - 3),             # a tree padded to 64 nodes rooted at prompt + n − 3
    (["--method", "lookahead", "--gamma", "3", "--order", "3"], 10 - 3),  # its tree: 1 + 3 + 3 × 2 nodes
], ids=["plain", "ngram-chain", "mtp", "ngram-tree", "lookahead"])
def test_compiled_engine_runs_to_its_last_position_and_refuses_one_more(method, extra, eager_compiled_engine,
                                                                        monkeypatch, capsys):
    monkeypatch.setattr(graphs, "ROPE_POSITIONS", LIMIT)
    monkeypatch.setattr(generate_module, "ROPE_POSITIONS", LIMIT)
    prompt = CharData().path.read_text()[:300]
    args = ["--engine", "compiled", *method, "--temperature", "0", "--prompt", prompt]
    n = LIMIT - len(prompt) - extra
    assert generate_main([*args, "--n", str(n)]) == 0
    assert len(json.loads(capsys.readouterr().out)["text"]) == n and max(eager_compiled_engine) <= LIMIT
    eager_compiled_engine.clear()
    assert generate_main([*args, "--n", str(n + 1)]) == 2
    assert f"holds {LIMIT} positions" in one_error_line(capsys) and eager_compiled_engine == []


def test_compiled_engine_without_a_compiler_says_so_and_runs_eager():
    args = ["--method", "draft", "--gamma", "3", "--n", "60", "--temperature", "0"]
    eager = generate(*args)
    fallback = tool("generate", *args, "--engine", "compiled", env={"CXX": "no-such-c++-compiler"})
    assert fallback.returncode == 0, fallback.stderr
    lines = fallback.stderr.strip().splitlines()
    assert len(lines) == 1 and "compiled engine is unavailable" in lines[0] and "no-such-c++-compiler" in lines[0]
    assert json.loads(fallback.stdout)["text"] == json.loads(eager.stdout)["text"]
