"""The contract between experiments/ and the page: which results files exist and which fields
the page reads from each (the templates and static/js/*.js). The files are declared once, as typed
records, in experiments/records/ (the writers build their rows with the same types); this module
turns each record into dotted paths, and `python -m chapter.build` checks every file against them
before it renders anything; a missing file or field stops the build with a message naming both. A
field the page reads must be declared there.

Paths are dotted; `*` means every key of an object or every item of a list. A path may end in
`:type` (num, int, str, list, obj, bool) to check the value's type as well; `family` and `engine`
are strings that name a family or an engine registry.json declares (the page prints every such name
through the registry's labels). A `+` after the type asks for a value above 0: a time, a size, a
count or a price that the page divides by. A part ending in `?` is optional: `x?` may be absent or
null (what follows is checked where it is there), `*?` may be empty.

A file that breaks this contract stops the build with a ResultsError naming the file and the field.
"""
import types
from typing import Annotated, NotRequired, Union, get_args, get_origin, get_type_hints, is_typeddict

from experiments.records import RESULTS_FILES
from experiments.records.base import EngineName, EveryValue, FamilyName, MayBeEmpty, Positive


class ResultsError(Exception):
    """A results file the page cannot be built from: missing, unreadable, not JSON, or breaking the
    contract below. Its message names the file (and the field): `<file>.json: field 'a.b' ...`."""


KINDS = {float: "num", int: "int", str: "str", bool: "bool", list: "list", dict: "obj"}
NAMES = {FamilyName: "family", EngineName: "engine"}


def unwrapped(hint):
    """(the type under NotRequired, Annotated and `| None`, the markers on it, whether it may be absent or null)."""
    markers, optional = [], False
    while True:
        origin, args = get_origin(hint), get_args(hint)
        if origin is NotRequired:
            hint, optional = args[0], True
        elif origin is Annotated:
            hint, markers = args[0], markers + list(args[1:])
        elif origin in (Union, types.UnionType) and type(None) in args:
            (hint,), optional = [a for a in args if a is not type(None)], True
        else:
            return hint, markers, optional


def is_leaf(hint):
    hint = unwrapped(hint)[0]
    return not is_typeddict(hint) and get_origin(hint) not in (list, dict)


def kind(hint, markers):
    if hint not in KINDS:
        raise TypeError(f"{hint!r} is not a kind the schema knows: {', '.join(k.__name__ for k in KINDS)}")
    base = next((NAMES[m] for m in markers if m in NAMES), KINDS[hint])
    return base + ("+" if Positive in markers else "")


def value_paths(key, hint, optional=False):
    """The paths of one field: one `key:kind` for a value, the paths under `key` for a record, a dict
    or a list (a list of values is checked to be a list as well)."""
    hint, markers, may_be_null = unwrapped(hint)
    key += "?" if optional or may_be_null else ""
    if is_typeddict(hint):
        every = [path for m in markers if isinstance(m, EveryValue) for path in value_paths("*", m.record)]
        return [f"{key}.{path}" for path in every + schema_paths(hint)]
    if get_origin(hint) in (list, dict):
        item = get_args(hint)[-1]
        items = [f"{key}.{path}" for path in value_paths("*?" if MayBeEmpty in markers else "*", item)]
        return ([f"{key}:list"] if get_origin(hint) is list and is_leaf(item) else []) + items
    return [f"{key}:{kind(hint, markers)}"]


def schema_paths(record):
    """A record's fields as dotted paths, in the order they are declared: ['meta.device:str', ...]."""
    return [path for key, hint in get_type_hints(record, include_extras=True).items()
            for path in value_paths(key, hint, key in record.__optional_keys__)]


SCHEMA = {filename: schema_paths(record) for filename, record in RESULTS_FILES.items()}
