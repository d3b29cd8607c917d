"""The command-line tools: generate prints one JSON object on success; bad input to generate or
train is one line on stderr, `error: ...`, exit code 2, nothing on stdout and no traceback."""
import json
import subprocess
import sys

import pytest
import torch

from experiments.exercises.__main__ import main as exercises_main
from experiments.generate import main as generate_main
from experiments.measure.__main__ import main as measure_main
from tests.helpers import ROOT, assert_one_line_error, generate, tool


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


NO_SUCH_CUDA = "cuda:99" if torch.cuda.is_available() else "cuda"


@pytest.mark.parametrize("name,args,message", [
    ("generate", ["--prompt", "héllo"], "not in the vocabulary"),
    ("generate", ["--method", "draft", "--gamma", "0"], "--gamma must be at least 1"),
    ("generate", ["--n", "0"], "--n must be at least 1"),
    ("generate", ["--warmup", "-1"], "--warmup must be at least 0"),
    ("generate", ["--method", "mtp", "--gamma", "2"], "--gamma must be 1"),
    ("generate", ["--checkpoint", "/nonexistent/main.pt"], "not found"),
    # issue 8, bugs 1, 4 and 5
    ("generate", ["--method", "draft", "--gamma", "64", "--mode", "recompute", "--temperature", "0",
                  "--n", "90"], "--gamma must be between 1 and 63"),
    ("generate", ["--method", "draft", "--gamma", "100", "--n", "300", "--mode", "recompute"],
     "--gamma must be between 1 and 63"),
    ("generate", ["--method", "draft", "--gamma", "64"], "--gamma must be between 1 and 63"),
    ("generate", ["--temperature", "nan"], "--temperature must be 0 (greedy) or a finite number >= 0.01"),
    ("generate", ["--temperature", "inf"], "--temperature must be 0"),
    ("generate", ["--temperature", "1e-45"], "--temperature must be 0"),
    ("generate", ["--temperature", "-1"], "--temperature must be 0"),
    ("generate", ["--device", NO_SUCH_CUDA], "--device cuda"),
    ("generate", ["--device", "foo"], "--device 'foo' is not a device"),
    ("generate", ["--threads", "0"], "--threads must be between 1 and"),
    ("generate", ["--threads", "100000"], "--threads must be between 1 and"),
    ("generate", ["--seed", "99999999999999999999999"], "--seed must be between 0 and"),
    ("generate", ["--seed", "-1"], "--seed must be between 0 and"),
    ("generate", ["--method", "mtp", "--checkpoint", "experiments/checkpoints/control_s0.pt"],
     "has no MTP head"),
    ("generate", ["--checkpoint", "README.md"], "not a checkpoint written by experiments.train"),
    ("generate", ["--engine", "compiled", "--mode", "recompute"], "--engine compiled runs in kvcache mode only"),
    ("generate", ["--engine", "compiled", "--n", "20000"], "every engine holds at most 16,320 characters"),
    ("generate", ["--n", "1000000000"], "every engine holds at most 16,320 characters"),
    ("generate", ["--method", "ngram", "--order", "11"], "--order must be between 1 and 10"),
    ("generate", ["--method", "lookup", "--order", "1"], "--order must be between 2 and 10 for lookup"),
    ("generate", ["--method", "lookahead", "--gamma", "3", "--tree", "3"], "--tree 3 leaves no room for a window of gamma 3"),
    ("generate", ["--method", "medusa", "--heads-checkpoint", "experiments/checkpoints/eagle_s0.pt"],
     "--heads-checkpoint holds eagle drafters, not medusa"),
    ("generate", ["--method", "plain", "--gamma", "2"], "--gamma does not apply to plain decoding"),
    ("generate", ["--method", "medusa", "--tree", "8", "--gamma", "9"], "--gamma does not apply to a medusa tree"),
    ("generate", ["--method", "draft", "--order", "3"], "--order applies to ngram, lookup, match, lookahead"),
    ("generate", ["--method", "draft", "--draft-checkpoint", "README.md"],
     "--draft-checkpoint README.md is not a checkpoint"),
    ("train", ["--device", NO_SUCH_CUDA], "--device cuda"),
    ("train", ["--device", "foo"], "--device 'foo' is not a device"),
    ("train", ["--threads", "0"], "--threads must be between 1 and"),
    ("train", ["--threads", "100000"], "--threads must be between 1 and"),
    ("train", ["--seed", "99999999999999999999999"], "--seed must be between 0 and"),
    ("train", ["--model", "all", "--seeds", "0", "-1"], "--seeds must be between 0 and"),
    ("train", ["--steps", "0"], "--steps must be at least 1"),
    ("train", ["--batch", "0"], "--batch must be at least 1"),
    ("train", ["--mtp", "nan"], "--mtp must be a finite weight"),
    ("train", ["--lr", "0"], "--lr must be a finite number > 0"),
    ("train", ["--model", "draft", "--mtp", "0.3"], "no MTP head"),
])
def test_bad_input_is_one_line_and_exit_2(name, args, message):
    assert_one_line_error(tool(name, *args), message)


@pytest.mark.parametrize("main,argv", [
    (generate_main, ["--engine", "bogus"]),
    (generate_main, ["--no-such-flag"]),
    (generate_main, ["--n", "many"]),
    (measure_main, ["--only", "unknown"]),
    (measure_main, ["--no-such-flag"]),
    (exercises_main, []),                                  # the exercise is missing
    (exercises_main, ["bogus"]),
    (exercises_main, ["chi2", "--rule", "bogus"]),
    (exercises_main, ["gamma", "--no-such-flag"]),
], ids=lambda arg: " ".join(arg) if isinstance(arg, list) else arg.__module__)
def test_argparse_errors_are_one_line_and_exit_2(main, argv, capsys):
    """argparse's own errors printed the usage too, 3 to 10 lines (issue 18, item 22)."""
    with pytest.raises(SystemExit) as exit:
        main(argv)
    out, err = capsys.readouterr()
    assert exit.value.code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: "), err


@pytest.mark.parametrize("argv", [["--loads", "x"], ["--no-such-flag"]])
def test_bench_argparse_errors_are_one_line_and_exit_2(argv):
    out = subprocess.run([sys.executable, "-m", "tools.bench", *argv], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert_one_line_error(out, "(see python -m tools.bench --help)")


@pytest.mark.parametrize("name", ["generate", "train"])
def test_bad_data_checksum_is_one_line_and_exit_2(name, tmp_path):
    bad = tmp_path / "tinyshakespeare.txt"
    bad.write_text("not shakespeare\n")
    args = ["--model", "draft", "--seed", "99", "--steps", "1"] if name == "train" else []
    out = tool(name, *args, env={"TINYSHAKESPEARE": str(bad)})
    assert_one_line_error(out, f"{bad} has sha256")


def test_measure_names_the_folder_without_training_logs(tmp_path):
    """--results pointing at a folder with no train_*.json: the error names that folder."""
    out = tool("measure", "--only", "causal", "--results", str(tmp_path))
    assert_one_line_error(out, f"training logs (train_*.json) in {tmp_path}")


def test_compiled_engine_without_a_compiler_says_so_and_runs_eager():
    args = ["--method", "draft", "--gamma", "3", "--n", "60", "--temperature", "0"]
    eager = generate(*args)
    fallback = tool("generate", *args, "--engine", "compiled", env={"CXX": "no-such-c++-compiler"})
    assert fallback.returncode == 0, fallback.stderr
    lines = fallback.stderr.strip().splitlines()
    assert len(lines) == 1 and "compiled engine is unavailable" in lines[0] and "no-such-c++-compiler" in lines[0]
    assert json.loads(fallback.stdout)["text"] == json.loads(eager.stdout)["text"]


def test_a_main_checkpoint_cut_short_is_one_line(tmp_path):
    """torch.load raises RuntimeError or OSError depending on where a file is cut: every cut of
    the committed main checkpoint is one error line naming the file."""
    from experiments.cli import UsageError, open_checkpoint
    whole = (ROOT / "experiments" / "checkpoints" / "main_s0.pt").read_bytes()
    for fraction in (0.01, 0.1, 0.5, 0.9, 0.99):  # 0.01: OSError, the others RuntimeError
        cut = tmp_path / f"main_cut{fraction}.pt"
        cut.write_bytes(whole[:int(len(whole) * fraction)])
        with pytest.raises(UsageError, match="is not a checkpoint written by experiments.train"):
            open_checkpoint(cut, "cpu")


def test_measure_refuses_an_untrained_seed_before_it_starts(capsys):
    assert measure_main(["--seeds", "5", "--only", "models"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.startswith("error: --seeds: seed 5 has no full set") and out.err.count("\n") == 1
