"""Issue 36's rough edges: each bad input or damaged file is one line on stderr (`error: ...`, exit
code 2; the build's own errors, a template or the page's own checks, the same line with exit 1),
found before any slow work, and leaves nothing behind; a damaged AOT package is rebuilt."""
import shutil
import subprocess
from pathlib import Path

import pytest

from chapter import build as site_build
from experiments import generate as generate_module
from experiments import train as train_module
from experiments.exercises.__main__ import main as exercises_main
from experiments.generate import main as generate_main
from experiments.jsonio import RESULTS
from tests.helpers import files_under, one_error_line
from tools import bench


# 5. exercises gamma


@pytest.mark.parametrize("damage, what", [(None, "not found"), ("cut", "cannot be read")])
def test_exercise_gamma_without_a_whole_sweep_is_one_line(tmp_path, capsys, damage, what):
    sweep = tmp_path / "gamma_sweep.json"
    if damage == "cut":
        whole = (RESULTS / "gamma_sweep.json").read_bytes()
        sweep.write_bytes(whole[:len(whole) // 2])
    assert exercises_main(["gamma", "--results", str(tmp_path)]) == 2
    err = one_error_line(capsys)
    assert f"{sweep} {what}" in err and "experiments.measure --only ledger" in err


# 6. a damaged AOT package


# 7. NATIVE_KERNEL


def test_an_unknown_native_kernel_is_one_line_naming_the_allowed_ones(monkeypatch, capsys):
    monkeypatch.setenv("NATIVE_KERNEL", "sse9")
    monkeypatch.setattr(generate_module, "CharData", lambda: pytest.fail("loaded the data first"))
    assert generate_main(["--engine", "native", "--n", "5"]) == 2
    err = one_error_line(capsys)
    assert "NATIVE_KERNEL" in err and "sse9" in err and "auto, avx512, avx2, portable" in err


# 8. chapter/build.py


def test_the_build_refuses_a_folder_as_its_output_and_leaves_nothing(tmp_path, capsys):
    folder = tmp_path / "outdir"
    folder.mkdir()
    assert site_build.main(RESULTS, folder) == 2
    assert str(folder) in one_error_line(capsys)
    assert files_under(tmp_path) == [folder.relative_to(tmp_path)]


@pytest.mark.parametrize("parent", ["a-file", "/proc/nope"])
def test_the_build_says_when_it_cannot_write_its_output(tmp_path, capsys, parent):
    if parent == "/proc/nope" and not Path("/proc").is_dir():
        pytest.skip("no /proc here")
    (tmp_path / "a-file").write_text("a file, not a folder\n")
    out = tmp_path / parent / "p.html"  # an absolute parent replaces tmp_path
    assert site_build.main(RESULTS, out) == 2
    assert f"cannot write --out {out}" in one_error_line(capsys)
    assert files_under(tmp_path) == [Path("a-file")]


@pytest.mark.parametrize("line, what", [
    ("{{ data.families.0 }}", "dict object has no element 0"),
    ("{{ 1 / (data.ledger.gamma_max - data.ledger.gamma_max) }}", "ZeroDivisionError: division by zero"),  # not jinja's own
])
def test_a_template_error_names_the_template_and_its_line(tmp_path, monkeypatch, capsys, line, what):
    templates = tmp_path / "templates"
    shutil.copytree(site_build.TEMPLATES, templates)
    section = templates / "sections" / "gamma.html.j2"
    lines = section.read_text(encoding="utf-8").splitlines(keepends=True)
    section.write_text("".join(lines[:2] + [line + "\n"] + lines[2:]), encoding="utf-8")
    monkeypatch.setattr(site_build, "TEMPLATES", templates)
    out = tmp_path / "page.html"
    assert site_build.main(RESULTS, out) == 1
    err = one_error_line(capsys)
    assert f"{section}:3: {what}" in err
    assert not out.exists()


def test_an_error_the_checks_let_through_is_one_line_naming_what_was_built(tmp_path, monkeypatch, capsys):
    """The last resort: an exception no check foresaw (here in a view) is the build's own bug, exit 1,
    in one line that says what it was building; never a traceback."""
    monkeypatch.setattr(site_build, "dial_view", lambda data: 1 / 0)
    assert site_build.main(RESULTS, tmp_path / "page.html") == 1
    assert one_error_line(capsys) == f"error: building the page from {RESULTS}: ZeroDivisionError: division by zero\n"


# 9. tools/bench.py


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


# 10, 11. resuming a training run


# 14. option errors come first


def test_train_errors_name_the_command(capsys):
    with pytest.raises(SystemExit):
        train_module.main(["--model", "bogus"])
    assert "(see python -m experiments.train --help)" in one_error_line(capsys)


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
