"""`python -m tools.bench`'s refusals: its options, a page that is missing or no page, and a failed
`make site` inside it, each one line on stderr and exit code 2, before it measures anything."""
import subprocess
import sys

import pytest

from tests.helpers import ROOT, assert_one_line_error, one_error_line
from tools import bench


@pytest.mark.parametrize("argv", [["--loads", "x"], ["--no-such-flag"]])
def test_bench_argparse_errors_are_one_line_and_exit_2(argv):
    out = subprocess.run([sys.executable, "-m", "tools.bench", *argv], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert_one_line_error(out, "(see python -m tools.bench --help)")


@pytest.mark.parametrize("flag", ["--loads", "--updates"])
def test_bench_refuses_nothing_to_measure_before_it_starts(monkeypatch, capsys, flag):
    monkeypatch.setattr(bench, "time_site_build", lambda: pytest.fail("started measuring"))
    with pytest.raises(SystemExit) as exited:
        bench.main([flag, "0"])
    assert exited.value.code == 2
    assert f"{flag} must be at least 1, got 0" in one_error_line(capsys)


def test_bench_without_a_page_is_one_error_line(tmp_path, capsys):
    page, text = tmp_path / "none.html", tmp_path / "README.md"
    text.write_text("# not a page\n")
    for given, problem in ((page, "is missing: run `make site`"), (tmp_path, "is a folder, not a page"),
                           (text, "is not an HTML page (.html)")):
        assert bench.main(["--page", str(given)]) == 2
        assert one_error_line(capsys) == f"error: --page {given} {problem}\n"


def test_bench_passes_on_a_failed_builds_line_and_status(monkeypatch, capsys):
    """`make site` failing inside the bench: the build's one line and exit status, no traceback."""
    failed = subprocess.CompletedProcess([], 2, "", "error: ledger.json: missing field 'rows'\n")
    monkeypatch.setattr(bench, "git_state", lambda: {"commit": "abc", "dirty": False})
    monkeypatch.setattr(bench.subprocess, "run", lambda *args, **kwargs: failed)
    monkeypatch.setattr(bench, "measure", lambda *args: pytest.fail("measured after a failed build"))
    with pytest.raises(SystemExit) as exited:
        bench.main([])
    assert exited.value.code == 2 and one_error_line(capsys) == "error: ledger.json: missing field 'rows'\n"
