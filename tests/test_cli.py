"""The generation CLI: one JSON object on success; one line and exit code 2 on bad input."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def generate(*args):
    return subprocess.run([sys.executable, "-m", "experiments.generate", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("method,extra", [("plain", []), ("draft", ["--gamma", "3"]), ("mtp", [])])
def test_generate_prints_one_json_object(method, extra):
    out = generate("--method", method, "--n", "40", "--prompt", "ROMEO:\\n", *extra)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert set(result) == {"text", "main_forwards", "draft_forwards", "proposed", "accepted", "wall_s"}
    assert len(result["text"]) == 40
    assert result["main_forwards"] + result["accepted"] == 40


@pytest.mark.parametrize("args,message", [
    (["--prompt", "héllo"], "not in the vocabulary"),
    (["--method", "draft", "--gamma", "0"], "--gamma must be at least 1"),
    (["--n", "0"], "--n must be at least 1"),
    (["--method", "mtp", "--gamma", "2"], "--gamma must be 1"),
    (["--checkpoint", "/nonexistent/main.pt"], "not found"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    out = generate(*args)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in out.stderr
