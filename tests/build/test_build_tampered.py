"""Tampered results (issue 45, items 8 and 9): whatever a results file holds, `python -m chapter.build
--results DIR` either builds or stops with one line on stderr, `error: ...` naming the results file
(and the field), exit status 2; never a traceback. Each case tampers one file of a copy and runs the
build in this process (chapter.build.main), the other files linked to the committed ones."""
import re

import orjson
import pytest

from chapter import build as site_build
from chapter.schema import SCHEMA, ResultsError
from tests.helpers import ROOT

RESULTS = ROOT / "experiments" / "results"
COMMITTED = {name: orjson.loads((RESULTS / name).read_bytes()) for name in SCHEMA}


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_seed(key):
    """A field that holds a model or sampling seed, or a list of them (seed, seeds, model_seed, text_seeds)."""
    return isinstance(key, str) and re.fullmatch(r"(\w+_)?seeds?", key) is not None and not key.startswith("n_")


# each applied to every value of one file; key: the name of the field that holds the value
TAMPERS = {
    "every number 0": lambda value, key: 0 if is_number(value) else value,
    "every number -1": lambda value, key: -1 if is_number(value) else value,
    "HTML after every string": lambda value, key: value + "<b>x</b>" if isinstance(value, str) else value,
    "every bool flipped": lambda value, key: not value if isinstance(value, bool) else value,
    "every seed as text": lambda value, key: str(value) if is_seed(key) and is_number(value) else value,
    "every list emptied": lambda value, key: [] if isinstance(value, list) else value,
}


def tampered(obj, tamper, key=None):
    """obj with tamper(value, key) applied to every value in it: a list whole first, then its items
    (which keep the list's key)."""
    if isinstance(obj, dict):
        return {k: tampered(v, tamper, k) for k, v in obj.items()}
    obj = tamper(obj, key)
    return [tampered(v, tamper, key) for v in obj] if isinstance(obj, list) else obj


CASES = [(name, tamper) for name in SCHEMA for tamper in TAMPERS
         if tampered(COMMITTED[name], TAMPERS[tamper]) != COMMITTED[name]]


def results_with(tmp_path, filename, obj):
    """A results folder: the committed files, but `filename` holding obj."""
    results = tmp_path / "results"
    results.mkdir()
    for name in SCHEMA:
        if name != filename:
            (results / name).symlink_to(RESULTS / name)
    (results / filename).write_bytes(orjson.dumps(obj))
    return results


def build_outcome(capsys, results, out):
    """(exit status, stderr) of the build, with stdout and stderr as the convention has them."""
    code = site_build.main(results, out)
    printed = capsys.readouterr()
    assert "Traceback" not in printed.err
    if code == 0:
        assert all(line.startswith("note: ") for line in printed.err.splitlines()), printed.err
    else:
        assert printed.out == "" and printed.err.startswith("error: ") and printed.err.count("\n") == 1, printed.err
    return code, printed.err


@pytest.mark.parametrize("filename, tamper", CASES)
def test_a_tampered_results_file_builds_or_is_one_line_naming_it(tmp_path, capsys, filename, tamper):
    results = results_with(tmp_path, filename, tampered(COMMITTED[filename], TAMPERS[tamper]))
    code, err = build_outcome(capsys, results, tmp_path / "page.html")
    assert code == 0 or (code == 2 and filename in err), err


def edit(obj, path, value):
    """obj with the value at a dotted path replaced (a function of the old value where callable)."""
    obj = orjson.loads(orjson.dumps(obj))
    *parents, last = [int(part) if part.isdigit() else part for part in path.split(".")]
    holder = obj
    for part in parents:
        holder = holder[part]
    holder[last] = value(holder[last]) if callable(value) else value
    return obj


# one field changed so that the types still hold and a fact across fields breaks (chapter/facts.py)
FACTS = [
    ("models.json", "meta.seeds.0", 7, "models.json: field 'meta.seeds.0' is seed 7, but models.json has no run 'main_s7'"),
    ("mtp.json", "seeds.0", -1, "mtp.json: field 'seeds.0' is seed -1, but models.json has no run 'main_s-1'"),
    ("lab.json", "model_seed", 3, "lab.json: field 'model_seed' is seed 3, but models.json has no run 'main_s3'"),
    ("ledger.json", "gamma_max", 99,
     "ledger.json: field 'gamma_max' is 99, but 'forward_costs.recompute.verify_over_main' has no price"),
    ("ledger.json", "greedy_check.0.equal", False,
     "ledger.json: field 'greedy_check.0.equal' is false, but its first_mismatch is null"),
    ("ladder.json", "temperatures.1", 0.5, "ladder.json: field 'temperatures.1' is 0.5, but its rungs or summary have no T0.5"),
    ("exercises.json", "gamma.measured.measured_gamma", 9,
     "exercises.json: field 'gamma.measured.measured_gamma' is 9, which gamma_sweep.json's kv-cache rows lack"),
    ("costs.json", "positions", lambda ks: ks + [128],
     "costs.json: field 'engines.eager.over_main' has no price for 128 positions"),
    ("costs.json", "engines", lambda engines: {"eager": engines["eager"]},
     "costs.json: field 'summary.primary_engine' is 'compiled', which 'engines' lacks"),
    ("regime.json", "summary.cache_edge_bytes", 0, "regime.json: field 'summary.cache_edge_bytes' should be above 0, got 0"),
    ("families.json", "rows.0.engine", "turbo",
     "families.json: field 'rows.0.engine' names the engine 'turbo', which registry.json does not declare"),
]


@pytest.mark.parametrize("filename, path, value, message", FACTS, ids=[f"{name}:{path}" for name, path, *_ in FACTS])
def test_a_broken_fact_across_fields_is_named_before_anything_renders(tmp_path, filename, path, value, message):
    results = results_with(tmp_path, filename, edit(COMMITTED[filename], path, value))
    with pytest.raises(ResultsError, match=re.escape(message)):
        site_build.load_results(results)


@pytest.mark.parametrize("filename, path, value, message", [
    ("families.json", "summary.fastest.T1.size", 99,
     "families.json: field 'summary.fastest.T1' quotes a timed row that its rows lack"),
    ("ledger.json", "summary.fastest.kvcache.gamma", 99, "ledger.json: field 'summary.fastest.kvcache' quotes a timed row"),
    ("gamma_sweep.json", "summary.fastest.kvcache.gamma", 99, "gamma_sweep.json: field 'summary.fastest.kvcache' quotes a timed row"),
])
def test_a_summary_that_quotes_a_row_its_rows_lack_is_named(tmp_path, capsys, filename, path, value, message):
    results = results_with(tmp_path, filename, edit(COMMITTED[filename], path, value))
    code, err = build_outcome(capsys, results, tmp_path / "page.html")
    assert code == 2 and err.startswith(f"error: {message}"), err


def registry_with(mutate):
    registry = orjson.loads(orjson.dumps(COMMITTED["registry.json"]))
    mutate(registry["families"])
    return registry


NGRAM = COMMITTED["registry.json"]["families"][3]
NEXT = len(COMMITTED["registry.json"]["families"])  # the index of a family appended to the registry


@pytest.mark.parametrize("mutate, message", [
    pytest.param(lambda families: families.append(dict(NGRAM)),
                 f"registry.json: field 'families.{NEXT}.name' declares the family 'ngram' a second time", id="twice"),
    pytest.param(lambda families: families.append({**NGRAM, "name": "__proto__"}),
                 f"registry.json: field 'families.{NEXT}.name' is '__proto__': the page cannot place", id="__proto__"),
    pytest.param(lambda families: families.pop(3), "names the family 'ngram', which registry.json does not declare", id="missing"),
])
def test_a_family_the_page_cannot_place_stops_the_build_naming_registry_json(tmp_path, capsys, mutate, message):
    """Twice the same name, a name the scripts cannot use as a key (the page's `FAMILY[name] = ...`
    would set an object's prototype), or a family the results name that the registry lacks (it
    ended in templates/macros.html.j2:20 before)."""
    results = results_with(tmp_path, "registry.json", registry_with(mutate))
    code, err = build_outcome(capsys, results, tmp_path / "page.html")
    assert code == 2 and message in err, err


def refuse_verdicts(html):
    raise site_build.BuildError("verdicts off the rule: one, for this test")


def test_an_extra_family_builds_with_a_note_printed_only_once_the_page_is_written(tmp_path, capsys, monkeypatch):
    """A family declared since the last `make measure` is a note; a build that then fails prints its
    one error line alone (the note came first before)."""
    results = results_with(tmp_path, "registry.json", registry_with(lambda families: families.append({**NGRAM, "name": "echo"})))
    code, err = build_outcome(capsys, results, tmp_path / "page.html")
    assert code == 0 and err == ("note: registry.json declares family 'echo', but families.json has no rows for it yet: the "
                                 "page names it but shows none of its numbers until `make measure` sweeps it\n")
    monkeypatch.setattr(site_build, "check_verdicts", refuse_verdicts)
    assert build_outcome(capsys, results, tmp_path / "page2.html") == (1, "error: verdicts off the rule: one, for this test\n")
