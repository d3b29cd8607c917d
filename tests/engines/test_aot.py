"""The ahead-of-time engine (experiments/aot.py) against the eager one on small random models:
the same logits for 1-position steps, padded verifies, past the window and after rollbacks, a
tree verify and keep_path, the MTP head (and an EAGLE-shaped head), and the same drafts as the
compiled engine's round; the disk cache of packages; one-line EngineUnavailable.

The packages of these models go to tests/artifacts/aot_cache (ignored by git), so a later run
loads them instead of compiling (the first run compiles about ten packages, 10-55 s each on a
fresh cache; all but two without the chapter's tuning options, see conftest.quick_aot_packages)."""
import copy
import random
import shutil

import pytest
import torch

from experiments import aot
from experiments.engine import CompiledRunner
from experiments.graphs import check_compiler
from experiments.runners import EngineUnavailable
from experiments.model import GPT, GPTConfig, MTPHead
from experiments.runners import MTPDrafter, Runner
from experiments.trees import Tree
from tests.helpers import ARTIFACTS, feed_schedule, files_under, max_logit_gap

try:
    check_compiler()
except EngineUnavailable as err:
    pytest.skip(f"the aot engine needs a C++ compiler: {err}", allow_module_level=True)

TINY = GPTConfig(vocab_size=65, n_layer=2, n_embd=32, n_head=2, mlp_hidden=48, block_size=64, mtp=True)


@pytest.fixture(scope="module", autouse=True)
def aot_cache_in_artifacts():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SPEC_AOT_CACHE", str(ARTIFACTS / "aot_cache"))
        yield


def random_model(cfg=TINY, seed=0, std=0.3):
    """Random weights large enough that the logits spread over several units (std 0.02, the
    training init, gives logits so small that any engine would pass a 1e-4 check)."""
    torch.manual_seed(seed)
    model = GPT(cfg).eval()
    with torch.no_grad():
        for param in model.parameters():
            param.normal_(0, std) if param.dim() > 1 else param.uniform_(0.5, 1.5)
    return model


def built(make):
    """The runner make() builds, or a skip that says why its engine cannot build it here."""
    try:
        with torch.inference_mode():
            return make()
    except EngineUnavailable as err:
        pytest.skip(f"cannot build the steps here: {err}")


@pytest.fixture(scope="module")
def tiny():
    return random_model()


@pytest.mark.slow
def test_every_layer_s_output_matches_eager(tiny):
    """The main_layers package (EAGLE-3's drafter reads every layer): one more build, so -m slow."""
    runner = built(lambda: aot.AOTRunner(tiny, sizes=(1,), layers=True))
    assert max_logit_gap(tiny, runner, seed=4) < 1e-4


def test_logits_match_eager_through_padded_verifies_rollbacks_and_past_the_window(tiny, chapter_aot_options):
    """With the chapter's inductor options (freezing, max_autotune: the GEMM kernels `make measure`
    times); the other tests build quicker packages (conftest.quick_aot_packages)."""
    runner = built(lambda: aot.AOTRunner(tiny, sizes=(1, 5)))
    eager = Runner(tiny, "kvcache", margin=8)
    gap, fed, spread = 0.0, set(), 0.0
    with torch.inference_mode():
        for seq, keep in feed_schedule(seed=3, steps=60):
            fed.add(len(seq) - runner.length)
            expected, _, start = eager.extend(seq)
            got, _, got_start = runner.extend(seq)
            assert got_start == start and got.shape == expected.shape
            gap = max(gap, (got - expected).abs().max().item())
            spread = max(spread, expected.std().item())
            if keep is not None:
                eager.truncate(keep)
                runner.truncate(keep)
        assert runner.length > 2 * tiny.cfg.block_size  # the ring buffer wrapped
    assert {1, 2, 3, 4, 5} <= fed  # 1-position steps and verifies padded to 5
    assert spread > 0.5 and gap < 1e-4


def test_tree_verify_and_keep_path_match_eager(tiny):
    runner = built(lambda: aot.AOTRunner(tiny, sizes=(1,), tree_size=6))
    eager = Runner(tiny, "kvcache", margin=8)
    rng = random.Random(5)
    seq = [rng.randrange(65) for _ in range(100)]
    gap = 0.0
    with torch.inference_mode():
        for model_runner in (eager, runner):
            model_runner.extend(seq)
        for round_ in range(16):  # 4 or 6 nodes (padded to 6, or exactly 6), past the window
            tree = Tree.root(seq[-1])
            a, b = tree.add(0, rng.randrange(65)), tree.add(0, rng.randrange(65))
            c = tree.add(a, rng.randrange(65))
            if round_ % 2:
                tree.add(c, rng.randrange(65))
                tree.add(b, rng.randrange(65))
            for model_runner in (eager, runner):
                model_runner.truncate(len(seq) - 1)  # the root is the last token, not yet processed
            expected, _ = eager.extend_tree(tree)
            got, _ = runner.extend_tree(tree)
            gap = max(gap, (got - expected).abs().max().item())
            path = [a, c] if round_ % 3 else [b]
            eager.keep_path(path)
            runner.keep_path(path)
            seq = seq + [tree.tokens[node] for node in path] + [rng.randrange(65)]
            expected, _, start = eager.extend(seq)  # a 1-position step after the kept path
            got, _, got_start = runner.extend(seq)
            assert got_start == start
            gap = max(gap, (got - expected).abs().max().item())
    assert len(seq) > 2 * tiny.cfg.block_size and gap < 1e-4


@pytest.mark.parametrize("which", ["mtp", "eagle"])
def test_mtp_head_step_matches_eager(tiny, which):
    head = None
    if which == "eagle":  # another module of the MTP head's shape, with weights of its own
        torch.manual_seed(1)
        head = MTPHead(tiny.cfg).eval()
    drafter = built(lambda: aot.AOTMTPDrafter(tiny, sizes=(1, 2), head=head))
    eager = MTPDrafter(tiny, "kvcache", head)
    torch.manual_seed(2)
    h = torch.randn(250, tiny.cfg.n_embd)
    rng = random.Random(4)
    seq = [rng.randrange(65) for _ in range(251)]
    gap = 0.0
    with torch.inference_mode():
        for d in (eager, drafter):
            d.observe(h, 0)
        length = 10
        for step in range(100):  # the prompt, then 1 or 2 new pairs (2 after a rollback of 1)
            if step % 5 == 4:
                length -= 1
                for d in (eager, drafter):
                    d.truncate(length)
            length += 1 + (step % 5 == 4 or step % 2)
            (expected, e_feat), (got, g_feat) = eager.extend(seq, length), drafter.extend(seq, length)
            gap = max(gap, (got - expected).abs().max().item(), (g_feat - e_feat).abs().max().item())
    assert length > 2 * tiny.cfg.block_size and gap < 1e-4


def test_draft_round_draws_the_compiled_rounds_drafts(tiny):
    gamma, temperature = 3, 1.0
    runner = built(lambda: aot.AOTRunner(tiny, sizes=(1, 2), round=(gamma, temperature)))
    compiled = built(lambda: CompiledRunner(tiny, sizes=(1, 2), round=(gamma, temperature)))
    rng = random.Random(6)
    seq = [rng.randrange(65) for _ in range(20)]
    generators = [torch.Generator().manual_seed(7) for _ in range(2)]
    rounds = []  # the round's package ran every time (not the step-by-step fallback)
    (key, package), = runner.packages["round"].items()
    runner.packages["round"][key] = lambda inputs: rounds.append(1) or package(inputs)
    with torch.inference_mode():
        for r in (runner, compiled):
            r.extend(seq[:-1])
        for _ in range(60):  # past the window, with the runners 1 or 2 tokens behind
            (q, drafts), (q_c, drafts_c) = [r.draft_round(seq, gamma, temperature, g)
                                            for r, g in zip((runner, compiled), generators)]
            assert drafts == drafts_c
            assert (q - q_c).abs().max().item() < 1e-5
            accepted = rng.randint(0, gamma)
            seq = seq + drafts[:accepted] + [rng.randrange(65)]
            behind = rng.randint(1, 2)
            for r in (runner, compiled):
                r.truncate(min(r.length, len(seq) - behind))
    assert len(rounds) == 60 and len(seq) > 2 * tiny.cfg.block_size


def test_disk_cache_reuses_a_package_and_rebuilds_when_the_weights_change(tmp_path, monkeypatch):
    monkeypatch.setenv("SPEC_AOT_CACHE", str(tmp_path))
    monkeypatch.setattr(aot, "LOADED", {})
    model = random_model(GPTConfig(n_layer=1, n_embd=32, n_head=2, mlp_hidden=48, block_size=16), seed=3)
    ids = list(range(20))

    def logits(runner):
        with torch.inference_mode():
            runner.extend(ids[:-1])
            return runner.extend(ids)[0]

    first = built(lambda: aot.AOTRunner(model))
    packages = sorted(path.name for path in tmp_path.iterdir())
    assert len(packages) == 1 and packages[0].startswith("main-1-")  # no temp file left behind
    assert torch.allclose(logits(first), logits(Runner(model, "kvcache")), atol=1e-4)

    assert aot.AOTRunner(model).compile_s < 1.0  # loaded in this process already
    monkeypatch.setattr(aot, "LOADED", {})  # as a new process: only the disk cache is left
    monkeypatch.setattr(aot, "compile_package", lambda *args: pytest.fail("compiled a cached package"))
    with torch.inference_mode():
        again = aot.AOTRunner(model)
    assert again.compile_s < 10.0 and len(list(tmp_path.iterdir())) == 1
    assert torch.allclose(logits(again), logits(first), atol=1e-6)

    monkeypatch.undo()  # compile_package back (and LOADED)
    monkeypatch.setenv("SPEC_AOT_CACHE", str(tmp_path))
    with torch.no_grad():
        model.blocks[0].mlp.w2.weight.mul_(2)
    rebuilt = built(lambda: aot.AOTRunner(model))
    assert len(list(tmp_path.iterdir())) == 2
    assert torch.allclose(logits(rebuilt), logits(Runner(model, "kvcache")), atol=1e-4)
    assert not torch.allclose(logits(rebuilt), logits(first), atol=1e-3)


def test_key_covers_what_changes_the_code(tiny):
    weights = aot.weights_hash(tiny)
    base = aot.package_path(tiny, "main", 1, weights)
    others = [aot.package_path(tiny, "main", 5, weights), aot.package_path(tiny, "tree", 1, weights),
              aot.package_path(tiny, "round", (3, 1.0), weights), aot.package_path(tiny, "round", (3, 0), weights),
              aot.package_path(tiny, "main", 1, aot.weights_hash(copy.deepcopy(tiny).double()))]
    assert len({base, *others}) == 1 + len(others)
    assert aot.package_path(tiny, "main", 1, weights) == base


@pytest.mark.parametrize("make", [lambda m: aot.AOTRunner(m), lambda m: aot.AOTMTPDrafter(m)])
def test_no_compiler_is_one_line(tiny, monkeypatch, make):
    monkeypatch.setenv("CXX", "no-such-compiler")
    with pytest.raises(EngineUnavailable) as err:
        make(tiny)
    assert "no-such-compiler" in str(err.value) and "\n" not in str(err.value)


def test_a_failed_export_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("SPEC_AOT_CACHE", str(tmp_path))

    def fail(*args, **kwargs):
        raise RuntimeError("export broke\nand here is a long trace")

    monkeypatch.setattr(torch.export, "export", fail)
    with pytest.raises(EngineUnavailable) as err:
        aot.AOTRunner(random_model(seed=9))
    assert str(err.value) == "AOTInductor failed on a main step: RuntimeError: export broke"
    assert list(tmp_path.iterdir()) == []  # the temp file is gone


def test_an_aot_package_that_fails_to_load_is_rebuilt(tmp_path, monkeypatch):
    """A truncated .pt2 in the cache made every later run fall back to eager; now it is compiled
    again. The package is compiled once into tests/artifacts (the tiny model of the tests above shares it); the
    rebuild copies it instead of compiling it again."""
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
