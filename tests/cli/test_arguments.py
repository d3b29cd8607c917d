"""The command-line tools' arguments: bad input to generate, train, measure and the exercises is
one line on stderr, `error: ...`, exit code 2, nothing on stdout and no traceback (argparse's own
errors included); the exercises' exit codes. (generate's own: test_generate.py; measure's files:
test_measure_errors.py; the bench's: test_bench.py.)"""
import pytest
import torch

from experiments import train as train_module
from experiments.exercises.__main__ import main as exercises_main
from experiments.generate import main as generate_main
from experiments.jsonio import RESULTS
from experiments.measure.__main__ import main as measure_main
from experiments.train import main as train_cli
from tests.helpers import assert_one_line_error, one_error_line, tool

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


@pytest.mark.parametrize("name", ["generate", "train"])
def test_bad_data_checksum_is_one_line_and_exit_2(name, tmp_path):
    bad = tmp_path / "tinyshakespeare.txt"
    bad.write_text("not shakespeare\n")
    args = ["--model", "draft", "--seed", "99", "--steps", "1"] if name == "train" else []
    out = tool(name, *args, env={"TINYSHAKESPEARE": str(bad)})
    assert_one_line_error(out, f"{bad} has sha256")


def test_cli_argument_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as exited:
        train_cli(["--model", "bogus"])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.startswith("error: ") and len(err.splitlines()) == 1, err


def test_cli_rejects_mtp_for_the_draft(capsys):
    assert train_cli(["--model", "draft", "--mtp", "0.3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "no MTP head" in err and len(err.splitlines()) == 1


def test_train_errors_name_the_command(capsys):
    with pytest.raises(SystemExit):
        train_module.main(["--model", "bogus"])
    assert "(see python -m experiments.train --help)" in one_error_line(capsys)


@pytest.mark.parametrize("damage, what", [(None, "not found"), ("cut", "cannot be read")])
def test_exercise_gamma_without_a_whole_sweep_is_one_line(tmp_path, capsys, damage, what):
    sweep = tmp_path / "gamma_sweep.json"
    if damage == "cut":
        whole = (RESULTS / "gamma_sweep.json").read_bytes()
        sweep.write_bytes(whole[:len(whole) // 2])
    assert exercises_main(["gamma", "--results", str(tmp_path)]) == 2
    err = one_error_line(capsys)
    assert f"{sweep} {what}" in err and "experiments.measure --only ledger" in err


def test_cli_exit_codes(capsys):
    assert exercises_main(["rollback"]) == 1 and "not yet" in capsys.readouterr().out
    assert exercises_main(["rollback", "--solution"]) == 0 and "passed" in capsys.readouterr().out
    assert exercises_main(["chi2", "--n", "5"]) == 2
    assert "--n must be between 100 and" in capsys.readouterr().err
    assert exercises_main(["gamma", "--c", "0.1"]) == 0 and "best γ" in capsys.readouterr().out
    assert exercises_main(["gamma", "--c", "2"]) == 0 and "don't speculate" in capsys.readouterr().out
    assert exercises_main(["chi2", "--position", "-1"]) == 2 and "--position" in capsys.readouterr().err


OUT_OF_RANGE = [
    (["chi2", "--n", "99"], "--n must be between 100 and 2,000,000 draws"),
    (["chi2", "--n", "2000001"], "--n must be between 100 and 2,000,000 draws"),
    (["chi2", "--n", "1000000000000"], "--n must be between 100 and 2,000,000 draws"),
    (["chi2", "--position", "1000"], "--position must be 0 .. 999"),
    (["chi2", "--seed", "-1"], "--seed must be between 0 and"),
    (["gamma", "--c", "inf"], "--c must be a finite cost ratio > 0"),
    (["gamma", "--c", "nan"], "--c must be a finite cost ratio > 0"),
    (["gamma", "--c", "0"], "--c must be a finite cost ratio > 0"),
    (["gamma", "--c", "-0.1"], "--c must be a finite cost ratio > 0"),
    (["medusa", "--steps", "0"], "--steps must be between 1 and 800"),
    (["medusa", "--steps", "801"], "--steps must be between 1 and 800"),
    (["medusa", "--steps", "1000000000000"], "--steps must be between 1 and 800"),
    (["medusa", "--seed", "-1"], "--seed must be between 0 and"),
]


@pytest.mark.parametrize("argv,message", OUT_OF_RANGE, ids=[" ".join(argv) for argv, _ in OUT_OF_RANGE])
def test_numbers_out_of_range_are_one_line_and_exit_2(argv, message, capsys):
    """Issue 18, item 23: an unbounded --n or --steps ran without end, --c inf answered."""
    assert exercises_main(argv) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1 and lines[0].startswith(f"error: {message}"), err


def test_exercises_checkpoints_that_is_a_file_says_so(tmp_path, capsys):
    path = tmp_path / "main_s0.pt"
    path.write_bytes(b"")
    assert exercises_main(["--checkpoints", str(path), "chi2"]) == 2
    err = one_error_line(capsys)
    assert f"--checkpoints {path} is a file, not a folder" in err and "main_s0.pt/" not in err
