"""Inputs at the edges of what the command-line tools accept (issue 18): the lowest temperature
gives every drafter a real q, and each tool's bad input is one line, `error: ...`, and exit code 2."""
import json
import weakref

import pytest
import torch

from experiments import engine, graphs, runners
from experiments import generate as generate_module
from experiments.data import CharData
from experiments.generate import main as generate_main
from experiments.heads import load_drafter
from experiments.methods import Models, Spec, decode
from experiments.model import load_checkpoint
from experiments.rule import MIN_TEMPERATURE
from experiments.runs import CHECKPOINTS
from tests.helpers import one_error_line

# Repeats itself (prompt lookup finds matches) and ends in flat n-gram contexts.
PROMPT = "Good morrow, neighbour.\nGood morrow, "


@pytest.fixture(scope="module")
def main():
    return load_checkpoint(CHECKPOINTS / "main_s0.pt")[0]


def decode_with(family, main, data, prompt, **common):
    """40 chars with the drafter family's q (lookahead has none: its tree is checked by sampling p)."""
    models = Models(main, train_tokens=data.train.tolist(), vocab_size=data.vocab_size)
    if family == "draft":
        models.draft = load_checkpoint(CHECKPOINTS / "draft_s0.pt")[0]
    if family in ("medusa", "eagle"):
        models.heads[family] = load_drafter(CHECKPOINTS / f"{family}_s0.pt", main=main)[0]
    spec = Spec(family, 1 if family == "mtp" else 3, order={"ngram": 5, "lookup": 3}.get(family))
    return decode(spec, models, prompt, 40, **common)


@pytest.mark.parametrize("family", ["ngram", "lookup", "draft", "mtp", "medusa", "eagle"])
def test_every_drafters_q_is_a_distribution_at_the_lowest_temperature(family, main, monkeypatch):
    checked = []

    def recording_accept_reject(p, q, drafts, generator=None, trace=None):
        checked.append(q)
        return accept_reject(p, q, drafts, generator, trace)
    accept_reject = runners.accept_reject  # rule.accept_reject, as Runner.verify calls it (runners imports the name)
    monkeypatch.setattr(runners, "accept_reject", recording_accept_reject)
    data = CharData()
    with torch.inference_mode():
        decode_with(family, main, data, data.encode(PROMPT), temperature=MIN_TEMPERATURE,
                    generator=torch.Generator().manual_seed(0))
    q = torch.cat(checked)
    assert len(q) > 0 and torch.isfinite(q).all() and (q >= 0).all(), family
    assert torch.allclose(q.sum(-1), torch.ones(len(q)), atol=1e-5), family


@pytest.fixture
def eager_compiled_engine(monkeypatch):
    """The compiled engine with its steps run as written instead of compiled (same static cache,
    padding and position checks, no compilation); returns the ends check_positions was asked for."""
    monkeypatch.setattr(engine, "compile_graph", lambda graph: graph)
    monkeypatch.setattr(engine, "COMPILED", {})
    monkeypatch.setattr(engine, "READY", weakref.WeakKeyDictionary())
    asked, check = [], graphs.check_positions
    monkeypatch.setattr(graphs, "check_positions", lambda end: asked.append(end) or check(end))
    return asked


def test_compiled_engine_refuses_a_tree_past_its_positions_before_decoding(eager_compiled_engine, capsys):
    """Issue 18, item 18: the up-front check counted --gamma, but the tree verify pads to --tree nodes,
    so this ran into 'asked for 16385' after compiling and decoding for 23 s."""
    prompt = CharData().path.read_text()[:16000]
    code = generate_main(["--engine", "compiled", "--method", "ngram", "--tree", "64", "--temperature", "0",
                          "--prompt", prompt, "--n", "382"])
    assert code == 2 and "every engine holds at most 16,320 characters" in one_error_line(capsys)
    assert eager_compiled_engine == []  # refused before the first forward


LIMIT = 400  # positions the engine holds in the next test: a short run at the limit


@pytest.mark.parametrize("method,extra", [
    (["--method", "plain"], 0),
    (["--method", "ngram", "--gamma", "4"], 4),                  # the pending token + γ drafts, checked with γ + 1 on top
    (["--method", "mtp"], 1),
    (["--method", "ngram", "--tree", "64"], 64 - 3),             # a tree padded to 64 nodes rooted at prompt + n − 3
    (["--method", "lookahead", "--gamma", "3", "--order", "3"], 10 - 3),  # its tree: 1 + 3 + 3 × 2 nodes
], ids=["plain", "ngram-chain", "mtp", "ngram-tree", "lookahead"])
def test_compiled_engine_runs_to_its_last_position_and_refuses_one_more(method, extra, eager_compiled_engine,
                                                                        monkeypatch, capsys):
    monkeypatch.setattr(graphs, "ROPE_POSITIONS", LIMIT)
    monkeypatch.setattr(generate_module, "ROPE_POSITIONS", LIMIT)
    prompt = CharData().path.read_text()[:300]
    args = ["--engine", "compiled", *method, "--temperature", "0", "--prompt", prompt]
    n = LIMIT - len(prompt) - extra
    assert generate_main([*args, "--n", str(n)]) == 0
    assert len(json.loads(capsys.readouterr().out)["text"]) == n and max(eager_compiled_engine) <= LIMIT
    eager_compiled_engine.clear()
    assert generate_main([*args, "--n", str(n + 1)]) == 2
    assert f"holds {LIMIT} positions" in one_error_line(capsys) and eager_compiled_engine == []
