"""The build's own errors (issue 36): an output it cannot write is one line naming it, exit code 2,
and leaves nothing behind; a template's error names the template and its line, and an exception no
check foresaw is one line naming what was being built, exit code 1; never a traceback."""
import shutil
from pathlib import Path

import pytest

from chapter import build as site_build
from experiments.jsonio import RESULTS
from tests.helpers import files_under, one_error_line


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
