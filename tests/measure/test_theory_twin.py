"""Theorem 3.8 and the flatness rule are written twice, once per language: experiments/stats.py
(expected_tokens, theorem_3_8, FLAT_SLACK, is_flat) for the measurements and static/js/theory.js
(expectedTokens, speedupTheory, FLAT_SLACK, isFlat) for the page's widgets. The twins give the
same numbers and the same verdicts on a grid of α, γ, c, r and prices. The verdict rule is written
three times: stats.paired_verdict (the measurements' summaries), chapter/views/rows.paired_verdict (the
build, which cannot import experiments/) and theory.js pairedVerdict (the tables and the picker)."""
import itertools
import json
import shutil
import subprocess

import pytest

from chapter.views.rows import paired_verdict as build_verdict
from experiments.stats import FLAT_SLACK, expected_tokens, is_flat, paired_verdict, theorem_3_8
from tests.helpers import ROOT

ALPHAS = [0.0, 0.05, 0.3, 0.5, 0.62, 0.8, 0.9, 0.99, 1.0]
GAMMAS = [1, 2, 3, 4, 6, 8, 16]
CS = [0.0, 0.02, 0.2, 0.7, 1.5]
RS = [1.0, 0.8, 1.24, 3.1]
PRICES = [0.95, 1.0, 1.1, 1.14, 1.15, 1 + FLAT_SLACK, 1.1500001, 1.2, 3.5]
SLACKS = [FLAT_SLACK, 0.05, 0.3]
ENDS = [0.5, 0.99, 1.0, 1.0000001, 1.2]
RUNS = [(lo, hi, n) for lo, hi in itertools.product(ENDS, ENDS) if lo <= hi for n in (1, 2, 7)]

JS = """
import { readFileSync } from "node:fs";
import { FLAT_SLACK, expectedTokens, isFlat, pairedVerdict, speedupTheory } from "THEORY";
const grid = JSON.parse(readFileSync(0, "utf8"));
console.log(JSON.stringify({
  slack: FLAT_SLACK,
  tokens: grid.theorem.map(([a, g]) => expectedTokens(a, g)),
  theorem: grid.theorem.map(([a, g, c]) => speedupTheory(a, g, c)),
  speedup: grid.theorem.map(([a, g, c, r]) => speedupTheory(a, g, c, r)),
  flat: grid.flat.map((p) => isFlat(p)),
  flatSlack: grid.flatSlack.map(([p, s]) => isFlat(p, s)),
  verdicts: grid.runs.map(([min, max, n]) => pairedVerdict({ min, max, n })),
}));
"""


@pytest.fixture(scope="module")
def twin():
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    grid = {"theorem": [list(p) for p in itertools.product(ALPHAS, GAMMAS, CS, RS)],
            "flat": PRICES, "flatSlack": [list(p) for p in itertools.product(PRICES, SLACKS)], "runs": [list(r) for r in RUNS]}
    code = JS.replace("THEORY", (ROOT / "static" / "js" / "theory.js").as_uri())
    out = subprocess.run(["node", "--input-type=module", "-e", code], input=json.dumps(grid),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return grid, json.loads(out.stdout)


def test_expected_tokens_and_theorem_3_8_agree_with_their_js_twins(twin):
    grid, js = twin
    for (alpha, gamma, c, r), tokens, theorem, speedup in zip(grid["theorem"], js["tokens"], js["theorem"], js["speedup"]):
        assert tokens == pytest.approx(expected_tokens(alpha, gamma), rel=1e-12, abs=1e-12), (alpha, gamma)
        assert theorem == pytest.approx(theorem_3_8(alpha, gamma, c), rel=1e-12, abs=1e-12), (alpha, gamma, c)
        assert speedup == pytest.approx(theorem_3_8(alpha, gamma, c, r), rel=1e-12, abs=1e-12), (alpha, gamma, c, r)


def test_the_flatness_rule_agrees_with_its_js_twin(twin):
    grid, js = twin
    assert js["slack"] == FLAT_SLACK
    assert js["flat"] == [is_flat(p) for p in grid["flat"]]
    assert js["flatSlack"] == [is_flat(p, s) for p, s in grid["flatSlack"]]
    # the edge belongs to flat: ①'s curve counts a forward of exactly 1 + FLAT_SLACK as flat
    assert is_flat(1 + FLAT_SLACK) and not is_flat(1.1500001)


def test_the_theorem_is_its_own_corner_cases():
    assert expected_tokens(1.0, 4) == 5 and expected_tokens(0.0, 4) == 1
    assert theorem_3_8(0.5, 3, 0.1, 1.0) == theorem_3_8(0.5, 3, 0.1)  # r defaults to the theorem's 1
    assert theorem_3_8(0.5, 3, 0.1, 2.0) == pytest.approx(expected_tokens(0.5, 3) / 2.3)


def test_the_verdict_rule_agrees_in_its_three_places(twin):
    grid, js = twin
    for (lo, hi, n), in_js in zip(grid["runs"], js["verdicts"]):
        runs = {"min": lo, "max": hi, "n": n}
        assert in_js == paired_verdict(runs) == build_verdict(runs), runs
    # the rule itself: one side of 1x in every repeat, never a single run, 1x itself is no side
    assert paired_verdict({"min": 1.0000001, "max": 1.2, "n": 2}) == "faster"
    assert paired_verdict({"min": 0.5, "max": 0.99, "n": 7}) == "slower"
    assert paired_verdict({"min": 0.99, "max": 1.2, "n": 7}) == "unclear"
    assert paired_verdict({"min": 1.0, "max": 1.2, "n": 7}) == "unclear"
    assert paired_verdict({"min": 1.2, "max": 1.2, "n": 1}) == "unclear"
