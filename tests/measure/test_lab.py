"""The lab's export (experiments/measure/lab.py) on a tiny model: the float16 blob holds exactly the
rounded weights, the checks run past the window with rollbacks, and the JS forward, rule and
n-gram table (tests/js/lab.test.mjs, run here on this export) match PyTorch and Python. The checks
are a test fixture: tests/fixtures/lab_checks.json for the committed lab.json, never results/."""
import base64
import gzip
import os
import re
import shutil
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from chapter.views import lab as lab_view
from experiments.data import CharData
from experiments.jsonio import RESULTS, read_json, write_json
from experiments.measure import lab
from experiments.model import GPT, GPTConfig
from tests.helpers import ROOT

TINY = dict(vocab_size=65, n_layer=2, n_embd=16, n_head=2, mlp_hidden=24, block_size=32)


@pytest.fixture(scope="module")
def exported():
    torch.manual_seed(0)
    main, draft = GPT(GPTConfig(**TINY, mtp=True)).eval(), GPT(GPTConfig(**{**TINY, "n_layer": 1})).eval()
    with torch.no_grad():
        main.tok_emb.weight.mul_(6)  # peaked distributions
        own = draft.state_dict()  # the draft: the main model's first layer, so that it agrees in part
        for key, value in main.state_dict().items():
            if key in own:
                own[key].copy_(value)
    return main, draft, *lab.export(main, draft, CharData(), model_seed=0)


def test_the_blob_holds_the_rounded_weights(exported):
    main, _, payload, _ = exported
    blob = np.frombuffer(gzip.decompress(base64.b64decode(payload["main"]["blob"])), dtype="<f2")
    rounded = lab.rounded(main).state_dict()
    assert [t["name"] for t in payload["main"]["tensors"]] == list(rounded)
    assert payload["main"]["params"] == blob.size == sum(v.numel() for v in rounded.values())
    for t in payload["main"]["tensors"]:
        value = blob[t["offset"]:t["offset"] + int(np.prod(t["shape"]))].reshape(t["shape"])
        assert np.array_equal(value.astype(np.float32), rounded[t["name"]].numpy()), t["name"]


def test_rounding_is_measured_against_the_float32_weights(exported):
    _, _, payload, _ = exported
    effect = payload["rounding"]["main"]["model"]
    assert 0 < effect["max_abs_logit"] < 0.1 and 0 <= effect["max_tv"] < 0.01
    assert effect["positions"] == sum(len(op.get("feed", [])) for op in lab.schedule(list(range(lab.CHECK_CHARS)), 32))


def test_the_checks_are_a_fixture_beside_the_results_they_check(tmp_path):
    """The committed results' checks go to tests/fixtures/ (not to results/, not to the page); a
    measurement into another folder keeps its checks there, away from the committed fixture."""
    assert lab.checks_path(RESULTS) == ROOT / "tests" / "fixtures" / "lab_checks.json"
    assert lab.checks_path(ROOT / "experiments" / ".." / "experiments" / "results") == lab.FIXTURE
    assert lab.checks_path(tmp_path) == tmp_path / "fixtures" / "lab_checks.json"
    assert lab.FIXTURE.exists() and not (RESULTS / "lab_checks.json").exists()
    assert read_json(lab.FIXTURE)["model_seed"] == read_json(RESULTS / "lab.json")["model_seed"]


def test_measure_writes_the_checks_to_their_fixture_and_returns_lab_json(tmp_path, monkeypatch):
    monkeypatch.setattr(lab, "main_and_draft", lambda args, seed: ("main", "draft"))
    monkeypatch.setattr(lab, "export", lambda main, draft, data, model_seed: ({"vocab": "ab"}, {"model_seed": model_seed}))
    args = SimpleNamespace(results=tmp_path, device="cpu")
    assert lab.measure(args, None, [2], None) == {"lab": {"vocab": "ab"}}  # the loop writes lab.json
    checks = read_json(tmp_path / "fixtures" / "lab_checks.json")
    assert checks["model_seed"] == 2 and checks["meta"]["seeds"] == [2]


def test_the_schedule_rolls_back_and_passes_the_window():
    ops = lab.schedule(list(range(100)), 64)
    fed = sum(len(op.get("feed", [])) for op in ops)
    rollbacks = [op["rollback"] for op in ops if "rollback" in op]
    assert rollbacks and fed - (fed - 100) == 100 and fed > 100  # wrong drafts fed, then forgotten
    length = 0
    for op in ops:  # every rollback forgets only positions fed since, and the end is the text
        length = op["rollback"] if "rollback" in op else length + len(op["feed"])
    assert length == 100 > 64


def test_the_ngram_trie_counts_every_gram():
    tokens = [0, 1, 0, 1, 2, 0, 1]
    trie = lab.ngram_trie(tokens, order=3, vocab_size=3)
    # contexts: the empty one, 3 unigrams, and the bigrams 01, 10, 12, 20 (trigram parents)
    assert trie["contexts"] == 1 + 3 + 4
    assert trie["pairs"] == 3 + 4 + 5  # distinct unigrams, bigrams (01 10 12 20), trigrams (010 101 012 120 201)
    raw = gzip.decompress(base64.b64decode(trie["blob"]))
    assert len(raw) == trie["next_bytes"] + trie["char_bytes"] + trie["count_bytes"]
    assert list(raw[:trie["next_bytes"]]) == [3, 1, 2, 1, 2, 1, 1, 1]
    assert list(raw[trie["next_bytes"]:trie["next_bytes"] + 3]) == [0, 1, 2]  # the unigrams, in code order


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_js_forward_rule_and_table_match_python_on_a_tiny_model(exported, tmp_path):
    _, _, payload, checks = exported
    write_json(tmp_path / "lab.json", payload)
    write_json(tmp_path / "checks.json", checks)
    out = subprocess.run(["node", "--test", "tests/js/lab.test.mjs"], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "LAB_RESULTS": str(tmp_path), "LAB_CHECKS": str(tmp_path / "checks.json")})
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    counts = dict(re.findall(r"^# (tests|pass|skipped) (\d+)$", out.stdout, re.M))
    assert counts["pass"] == counts["tests"] and counts["skipped"] == "0" and int(counts["tests"]) >= 6, counts


def test_the_comparison_rows_use_the_labs_default_gamma():
    """chapter/views/lab.py picks ⑧'s comparison rows at the lab's default γ, which lab_text.js holds."""
    source = (ROOT / "static" / "js" / "lab_text.js").read_text(encoding="utf-8")
    defaults = re.search(r"export const LAB_DEFAULTS = \{([^}]*)\}", source).group(1)
    assert int(re.search(r"gamma: (\d+)", defaults).group(1)) == lab_view.LAB_GAMMA
