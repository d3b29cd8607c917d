"""The results files declared once (issue 46, item 2): experiments/records/ holds every file as
typed records, importable without torch; chapter/schema.py derives the build's dotted paths from
them (schema_paths); every committed results file holds to them."""
import subprocess
import sys
from typing import Annotated, NotRequired, TypedDict

import pytest

from chapter import build as site_build
from chapter.schema import SCHEMA, schema_paths
from experiments.records import RESULTS_FILES
from experiments.records.base import Engine, EveryValue, Family, MayBeEmpty, PositiveInt, PositiveNum, TimedRow
from tests.helpers import ROOT

# `import torch` fails in this process, whatever is installed: sys.modules maps it to None
WITHOUT_TORCH = """
import sys
sys.modules["torch"] = None
import experiments.records, chapter.schema
assert chapter.schema.SCHEMA
"""


def test_the_records_and_the_schema_import_without_torch():
    done = subprocess.run([sys.executable, "-c", WITHOUT_TORCH], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


class Price(TypedDict):
    name: Family
    price: PositiveNum


class Sized(TypedDict):
    size: int


class Named(TypedDict):
    special: Price


class Example(TypedDict):
    count: PositiveInt
    engine: Engine
    note: NotRequired[str]
    maybe: float | None
    loose: list
    config: dict
    seeds: list[int]
    rows: list[Price]
    by_key: dict[str, float]
    flags: Annotated[list[Family], MayBeEmpty]
    optional_rows: NotRequired[Annotated[dict[str, Price], MayBeEmpty]]
    keyed: Annotated[Named, EveryValue(Sized)]
    done: bool


def test_schema_paths_spell_every_marker_in_the_build_grammar():
    assert schema_paths(Example) == [
        "count:int+", "engine:engine", "note?:str", "maybe?:num", "loose:list", "config:obj",
        "seeds:list", "seeds.*:int",                 # a list of values is checked to be a list too
        "rows.*.name:family", "rows.*.price:num+", "by_key.*:num",
        "flags:list", "flags.*?:family",
        "optional_rows?.*?.name:family", "optional_rows?.*?.price:num+",
        "keyed.*.size:int", "keyed.special.name:family", "keyed.special.price:num+",
        "done:bool"]


def test_a_type_the_grammar_lacks_is_refused():
    class Odd(TypedDict):
        when: complex

    with pytest.raises(TypeError, match="not a kind the schema knows"):
        schema_paths(Odd)


def test_the_schema_is_the_records():
    assert SCHEMA == {name: schema_paths(record) for name, record in RESULTS_FILES.items()}
    assert all(len(set(paths)) == len(paths) for paths in SCHEMA.values())


def test_the_one_timed_row_is_declared_where_the_files_use_it():
    timed = {f"rows.*.{path}" for path in schema_paths(TimedRow)}
    assert timed <= set(SCHEMA["families.json"])
    assert {f"points.*.peers?.{path}" for path in timed} <= set(SCHEMA["regime.json"])


def test_every_committed_results_file_holds_to_its_records():
    data = site_build.load_results()
    assert set(data) == {name.removesuffix(".json") for name in RESULTS_FILES}
