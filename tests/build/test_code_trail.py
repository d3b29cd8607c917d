"""The code trail at the end of every section (chapter/code_trail.py): each file it names exists and
defines the function it names, each command parses, every section of the page has a trail, and
the trail is what the section ends with."""
import ast
import re
import shlex

import pytest

from chapter.code_trail import CODE_TRAIL
from tests.helpers import ROOT

ENTRIES = [(section, path, name) for section, trail in CODE_TRAIL.items() for path, name in trail["code"]]
COMMANDS = [(section, cmd) for section, trail in CODE_TRAIL.items() for cmd in trail["commands"]]


def python_names(path):
    """Top-level functions, classes and assigned names, plus Class.method for every method."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            names.update(f"{node.name}.{item.name}" for item in node.body
                         if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)))
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def js_exports(path):
    return set(re.findall(r"^export\s+(?:async\s+)?function\s+([A-Za-z_$][\w$]*)",
                          (ROOT / path).read_text(encoding="utf-8"), re.M))


@pytest.mark.parametrize("section,path,name", ENTRIES, ids=[f"{s}:{p}:{n}" for s, p, n in ENTRIES])
def test_named_function_exists(section, path, name):
    assert (ROOT / path).is_file(), f"{section}: {path} does not exist"
    if path.endswith(".py"):
        assert name in python_names(path), f"{section}: {path} defines no {name}"
    elif path.endswith((".js", ".mjs")):
        assert name in js_exports(path), f"{section}: {path} has no `export function {name}`"
    else:
        pytest.fail(f"{section}: {path} is neither Python nor JS")


@pytest.mark.parametrize("section,cmd", COMMANDS, ids=[f"{s}:{c}" for s, c in COMMANDS])
def test_command_parses(section, cmd):
    argv = shlex.split(cmd)
    if argv[:3] == ["python", "-m", "experiments.measure"]:
        from experiments.measure.__main__ import parse_args
        args = parse_args(argv[3:])  # argparse exits (SystemExit) on an unknown --only name
        assert args.only, f"{section}: {cmd} should name its measurements with --only"
    elif argv[:3] == ["python", "-m", "experiments.train"]:
        from experiments.train import arg_parser, check_args
        check_args(arg_parser().parse_args(argv[3:]))  # an unknown --model exits; a bad value is a UsageError
    elif argv[:3] == ["python", "-m", "experiments.exercises"]:
        from experiments.exercises.__main__ import parse_args as exercise_args
        exercise_args(argv[3:])  # argparse exits (SystemExit) on an unknown exercise or option
    elif argv[0] == "make":
        targets = re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M)
        assert all(t in targets for t in argv[1:]), f"{section}: {cmd} names a target the Makefile lacks"
    else:
        pytest.fail(f"{section}: no check for command {cmd!r}")


def sections(html):
    """{id: inner HTML} for every <section id="..."> of the page."""
    return dict(re.findall(r'<section id="([\w-]+)"[^>]*>(.*?)</section>', html, re.S))


def test_every_section_ends_with_its_trail(rendered_page):
    found = sections(rendered_page)
    assert set(found) == set(CODE_TRAIL), "sections on the page and in chapter/code_trail.py differ"
    for section, trail in CODE_TRAIL.items():
        body = found[section]
        tail = body[body.rindex('<div class="code-trail">'):]
        # the trail comes last; only the one-line teaser for the next section may follow it
        after = re.sub(r'<p class="next">.*?</p>', "", tail[tail.index("</div>") + len("</div>"):], flags=re.S)
        assert after.strip() == "", f"{section}: something follows the code trail"
        for path, name in trail["code"]:
            assert f"<code>{path}</code> · <code>{name}</code>" in tail, (section, path, name)
        for cmd in trail["commands"]:
            assert f"<code>{cmd}</code>" in tail, (section, cmd)
