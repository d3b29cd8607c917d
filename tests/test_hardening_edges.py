"""Issue 36's rough edges: each bad input or damaged file is one line on stderr (`error: ...`, exit
code 2; the build's own errors, a template or the page's own checks, the same line with exit 1),
found before any slow work, and leaves nothing behind; a damaged AOT package is rebuilt."""
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from chapter import build as site_build
from conftest import ARTIFACTS
from experiments import aot
from experiments import generate as generate_module
from experiments import train as train_module
from experiments.cli import UsageError
from experiments.data import CharData
from experiments.exercises.__main__ import main as exercises_main
from experiments.generate import main as generate_main
from experiments.jsonio import RESULTS
from experiments.runners import Runner
from tests.test_train import TINY, FlakyData, Interrupted, run as train_tiny
from tools import bench


def one_error_line(capsys, prefix="error: "):
    """The one line a refused command printed on stderr (and nothing on stdout)."""
    out = capsys.readouterr()
    assert out.out == "" and out.err.startswith(prefix) and out.err.count("\n") == 1, out
    return out.err


def files_under(folder):
    return sorted(path.relative_to(folder) for path in folder.rglob("*"))


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


def test_an_aot_package_that_fails_to_load_is_rebuilt(tmp_path, monkeypatch):
    """A truncated .pt2 in the cache made every later run fall back to eager; now it is compiled
    again. The package is compiled once into tests/artifacts (test_aot's tiny model shares it); the
    rebuild copies it instead of compiling it again."""
    from tests.test_aot import built, random_model  # imported here: test_aot skips where no compiler builds packages
    model = random_model()
    monkeypatch.setenv("SPEC_AOT_CACHE", str(ARTIFACTS / "aot_cache"))
    built(lambda: aot.AOTRunner(model))
    whole = aot.package_path(model, "main", 1, aot.weights_hash(model))

    monkeypatch.setenv("SPEC_AOT_CACHE", str(tmp_path))
    monkeypatch.setattr(aot, "LOADED", {})  # as a new process
    cut = aot.package_path(model, "main", 1, aot.weights_hash(model))
    cut.write_bytes(whole.read_bytes()[:whole.stat().st_size // 2])
    compiled = []
    monkeypatch.setattr(aot, "compile_package", lambda *args: compiled.append(args[-1]) or shutil.copy(whole, args[-1]))
    with torch.inference_mode():
        runner = aot.AOTRunner(model)
        ids = list(range(20))
        runner.extend(ids[:-1])
        eager = Runner(model, "kvcache")
        eager.extend(ids[:-1])
        assert torch.allclose(runner.extend(ids)[0], eager.extend(ids)[0], atol=1e-4)
    assert compiled == [cut] and files_under(tmp_path) == [cut.relative_to(tmp_path)]


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


@pytest.fixture(scope="module")
def data():
    return CharData()


def interrupted_run(root, data, **settings):
    """A 10-step run of the tiny model killed after step 7: its resume state is at step 5."""
    with pytest.raises(Interrupted):
        train_tiny(root, FlakyData(data, fail_after=7), 10, eval_interval=5, snapshots=(), **settings)


@pytest.fixture
def trained(tmp_path, data):
    """An interrupted run of the tiny model, and what it wrote, byte for byte."""
    interrupted_run(tmp_path, data)
    return {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}


@pytest.mark.parametrize("changed, named", [
    ({"steps": 20}, "--steps 10, now 20"),
    ({"steps": 5}, "--steps 10, now 5"),
    ({"batch_size": 4, "lr": 1e-3}, "--batch 8, now 4; --lr 0.003, now 0.001"),
    ({"mtp_weight": 0.5}, "--mtp 0.3, now 0.5"),
])
def test_a_resume_with_other_settings_is_refused(tmp_path, data, trained, changed, named):
    settings = {"steps": 10, "eval_interval": 5, "snapshots": (), **changed}
    with pytest.raises(UsageError) as err:
        train_tiny(tmp_path, data, **settings)
    message = str(err.value)
    assert "\n" not in message and str(tmp_path / "ck" / "tiny.opt.pt") in message
    assert named in message and "--fresh" in message
    assert {path: path.read_bytes() for path in trained} == trained  # nothing rewritten


@pytest.mark.parametrize("keep_settings", [False, True])
def test_a_resume_state_of_another_shape_is_one_line_naming_it(tmp_path, data, trained, keep_settings):
    """The state of a wider model in the tiny one's place: refused by its recorded settings, or,
    where those were copied over too, by the weights that do not fit."""
    wide = replace(TINY, n_embd=48, mlp_hidden=96)
    interrupted_run(tmp_path / "wide", data, cfg=wide)
    state_path = tmp_path / "ck" / "tiny.opt.pt"
    state = torch.load(tmp_path / "wide" / "ck" / "tiny.opt.pt", weights_only=False)
    if keep_settings:
        state["log"]["config"] = torch.load(state_path, weights_only=False)["log"]["config"]
    torch.save(state, state_path)
    with pytest.raises(UsageError) as err:
        train_tiny(tmp_path, data, 10, eval_interval=5, snapshots=())
    message = str(err.value)
    assert "\n" not in message and str(state_path) in message and "--fresh" in message
    assert not (tmp_path / "ck" / "tiny.pt").exists()  # no weights written


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
