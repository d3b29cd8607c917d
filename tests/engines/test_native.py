"""The native engine (experiments/native.py over native.cpp) against the eager one: the same logits
and hidden states through a prompt, single steps, verifies, rollbacks, token trees and well past
the sliding window; the same drafts from a whole draft round in one call; the same decisions as
rule.accept_reject on the same uniforms; the same steps from the one-call sample_next and verify as
Runner's Python path, with the generator left alike; the same numbers from every kernel path; and
its build reported as generate's compile_s. (No wall clock here, only a fake one: the engine's
speed is measured by hand.)"""
import copy
import json
import random
from dataclasses import replace

import pytest
import torch

from experiments import native
from experiments.cli import UsageError
from experiments.heads import load_drafter
from experiments.model import GPT, GPTConfig, load_checkpoint
from experiments.native import NativeMTPDrafter, NativeParallelHeads, NativeRunner, native_accept_reject
from experiments.rule import accept_reject, sample
from experiments.runners import EngineUnavailable, MTPDrafter, Runner
from experiments.trees import Tree
from tests.helpers import CHECKPOINTS, generate_quick

try:
    native.load_extension()  # the one-time build (a few seconds; later processes reuse it)
except EngineUnavailable as err:
    pytest.skip(f"the native engine is unavailable here: {err}", allow_module_level=True)

TOLERANCE = 1e-4  # native against eager: two fp32 computations in different orders
PATH_TOLERANCE = 1e-5  # kernel path against kernel path: the same order, products rounded apart


def random_model(seed, mlp_hidden=70):
    """A model of odd sizes (head_dim 10, hidden 70, vocab 50: every panel and lane has a tail),
    window 16, with weights larger than the init's and norms that are not all ones. With a hidden
    wider than native.cpp's BLOCK (512) its down-projection is multiplied block by block."""
    torch.manual_seed(seed)
    model = GPT(GPTConfig(vocab_size=50, n_layer=2, n_embd=40, n_head=4, mlp_hidden=mlp_hidden, block_size=16)).eval()
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith("norm.weight"):
                param.uniform_(0.5, 1.5)
            else:
                param.mul_(10)
    return model


@pytest.fixture(scope="module")
def models():
    return {"main": load_checkpoint(CHECKPOINTS / "main_s0.pt")[0],
            "draft": load_checkpoint(CHECKPOINTS / "draft_s0.pt")[0],
            "random": random_model(0),
            "wide": random_model(1, mlp_hidden=1301)}  # blocks of 512, 512 and 277: a tail of 1 past the chains


@pytest.fixture(params=["main", "draft", "random", "wide"])
def model(request, models):
    return models[request.param]


def assert_close(got, expected, what, tolerance=TOLERANCE):
    assert got.dtype == torch.float32 and got.shape == expected.shape, (what, got.dtype, got.shape, expected.shape)
    gap = (got - expected.float()).abs().max().item()
    assert gap <= tolerance, f"{what}: max gap {gap:.2e}"


def feed_plan(model, seed, length=200):
    """A prompt longer than the window (fed in window-sized chunks), then rounds of a 1-position
    step and a 5-position verify followed by a rollback of 1-4 of its positions (the next token
    then differs from the forgotten one), up to `length` positions."""
    rng = random.Random(seed)
    V, W = model.cfg.vocab_size, model.cfg.block_size
    seq = [rng.randrange(V) for _ in range(W + 6)]
    plan = [(list(seq), None)]
    while len(seq) < length:
        seq = seq + [rng.randrange(V)]
        plan.append((list(seq), None))
        seq = seq + [rng.randrange(V) for _ in range(5)]
        keep = len(seq) - rng.randint(1, 4)
        plan.append((list(seq), keep))
        seq = seq[:keep]
    return plan


def run_plan(runner, plan):
    """[(start, logits, h)] of every feed of the plan."""
    out = []
    with torch.inference_mode():
        for seq, keep in plan:
            out.append(runner.extend(seq)[::-1])
            if keep is not None:
                runner.truncate(keep)
    return out


@pytest.mark.parametrize("layers", [False, True])
def test_forward_matches_eager_past_the_window_and_after_rollbacks(model, layers):
    """layers=True: h is every layer's output side by side, as EAGLE-3's drafter reads it."""
    plan = feed_plan(model, seed=1)
    eager, ours = Runner(model, "kvcache", layers=layers), NativeRunner(model, layers=layers)
    for i, ((start, h, logits), (got_start, got_h, got)) in enumerate(zip(run_plan(eager, plan), run_plan(ours, plan))):
        assert got_start == start
        assert_close(got, logits, f"logits of feed {i} (from {start})")
        assert_close(got_h, h, f"h of feed {i} (from {start})")
    assert (ours.length, ours.forwards) == (eager.length, eager.forwards)
    assert len(plan[-1][0]) >= 200 and ours.forward_s > 0


def test_rope_tables_grow_past_their_first_length(models):
    """The tables start at 16 windows (256 positions for the random model) and double on demand."""
    model = models["random"]
    ours = NativeRunner(model)
    first = ours.packed.positions
    plan = feed_plan(model, seed=2, length=3 * first)
    for i, ((_, h, logits), (_, got_h, got)) in enumerate(zip(run_plan(Runner(model, "kvcache"), plan),
                                                             run_plan(ours, plan))):
        assert_close(got, logits, f"logits of feed {i}")
        assert_close(got_h, h, f"h of feed {i}")
    assert ours.packed.positions >= 3 * first


def test_bad_input_is_refused_and_leaves_the_cache_as_it_was(models):
    model = models["random"]
    ours, eager = NativeRunner(model), Runner(model, "kvcache")
    seq = list(range(20))
    with torch.inference_mode():
        ours.extend(seq)
        eager.extend(seq)
        with pytest.raises(IndexError, match="token id out of range"):
            ours.extend(seq + [3, model.cfg.vocab_size])
        assert ours.length == len(seq)
        tree = Tree.root(1)
        for token in range(model.cfg.block_size):  # one node more than the window
            tree.add(0, token % model.cfg.vocab_size)
        with pytest.raises(ValueError, match="exceeds the window"):
            ours.extend_tree(tree)
        ours.truncate(len(seq))
        assert_close(ours.extend(seq + [7])[0], eager.extend(seq + [7])[0], "after the refusals")


def random_tree(rng, root, vocab, n_branches=3, max_depth=3):
    tree = Tree.root(root)
    for _ in range(n_branches):
        tree.add_path([rng.randrange(vocab) for _ in range(rng.randint(1, max_depth))])
    return tree


def test_token_tree_keep_path_and_continue_match_eager(model):
    """Trees (from past the window, so that the ring buffer has wrapped), each followed by
    keep_path of a random branch, a step and a 5-position verify."""
    rng = random.Random(3)
    V, W = model.cfg.vocab_size, model.cfg.block_size
    seq = [rng.randrange(V) for _ in range(W + 30)]
    eager, ours = Runner(model, "kvcache"), NativeRunner(model)
    with torch.inference_mode():
        eager.extend(seq[:-1])
        ours.extend(seq[:-1])
        for round_ in range(8):
            tree = random_tree(rng, seq[-1], V)
            logits, h = eager.extend_tree(tree)
            got, got_h = ours.extend_tree(tree)
            assert_close(got, logits, f"tree logits, round {round_}")
            assert_close(got_h, h, f"tree h, round {round_}")
            node = rng.randrange(len(tree.tokens))  # accept the branch down to it (the root: none)
            path = tree.path_to(node)[1:]
            eager.keep_path(path)
            ours.keep_path(path)
            assert ours.length == eager.length == len(seq) + len(path)
            seq = seq + tree.branch(node) + [rng.randrange(V)]
            for n_new in (1, 5):
                logits, h, start = eager.extend(seq)
                got, got_h, got_start = ours.extend(seq)
                assert got_start == start
                assert_close(got, logits, f"after the tree, round {round_}, {n_new} new")
                assert_close(got_h, h, f"h after the tree, round {round_}, {n_new} new")
                seq = seq + [rng.randrange(V) for _ in range(4 if n_new == 1 else 1)]


class CountingSession:
    """The runner's C++ session, counting its one-call rounds and steps."""

    def __init__(self, session):
        self.session, self.rounds, self.steps = session, 0, 0

    def draft_round(self, *args):
        self.rounds += 1
        return self.session.draft_round(*args)

    def sample_next(self, *args):
        self.steps += 1
        return self.session.sample_next(*args)

    def verify(self, *args):
        self.steps += 1
        return self.session.verify(*args)

    def __getattr__(self, name):
        return getattr(self.session, name)


@pytest.mark.parametrize("temperature", [1.0, 0])
def test_draft_round_drafts_what_the_step_by_step_round_drafts(models, temperature):
    """The same generator seed: the native round draws its γ uniforms at once, the eager one one
    per sample, and both invert the same CDFs. The first round (30 tokens behind) falls back to
    the step-by-step round; every later one is one C++ call."""
    draft = models["draft"]
    rng = random.Random(5)
    seq = [rng.randrange(65) for _ in range(30)]
    ours, eager = NativeRunner(draft), Runner(draft, "kvcache")
    ours.session = CountingSession(ours.session)
    gen_ours, gen_eager = torch.Generator().manual_seed(11), torch.Generator().manual_seed(11)
    with torch.inference_mode():
        for round_ in range(40):  # about 150 positions: well past the window
            g = rng.randint(1, 6)
            q, drafts = ours.draft_round(seq, g, temperature, gen_ours)
            expected_q, expected = eager.draft_round(seq, g, temperature, gen_eager)
            assert drafts == expected, f"round {round_}"
            assert_close(q, expected_q, f"q of round {round_}")
            assert ours.length == eager.length == len(seq) + g - 1
            accepted = rng.randint(0, g)
            seq = seq + drafts[:accepted] + [rng.randrange(65)]
            keep = min(len(seq) - 1, ours.length)  # now 1 or 2 behind, as after a speculative round
            ours.truncate(keep)
            eager.truncate(keep)
    assert ours.session.rounds == 39
    assert ours.forwards == eager.forwards and ours.forward_s > 0
    assert torch.rand(1, generator=gen_ours).item() == torch.rand(1, generator=gen_eager).item()


def same_generator(a, b):
    return torch.equal(a.get_state(), b.get_state())


def other_model(models, name):
    """A drafter for `name` that shares its vocabulary but not its weights."""
    return {"main": models["draft"], "draft": models["main"], "random": random_model(1)}[name]


@pytest.mark.parametrize("temperature", [1.0, 0.7, 0])
@pytest.mark.parametrize("name", ["main", "random"])
def test_verify_decides_as_the_python_path(models, name, temperature):
    """NativeRunner.verify (one C++ call) against Runner.verify (the forward, then rule.py) on a second
    NativeRunner: the same (n, token), h and start, the generator left in the same state, the same
    counters. Rounds of 0-6 drafts, from the same model (almost all accepted), another one (some)
    or with a draft swapped for a random token (q(d) often 0 at T = 0: rejected), past the window;
    the first round (the prompt, longer than the window) takes the Python path in both."""
    model = models[name]
    rng = random.Random(f"{name} {temperature}")
    V, W = model.cfg.vocab_size, model.cfg.block_size
    ours, ref = NativeRunner(model), NativeRunner(model)
    ours.session = CountingSession(ours.session)
    drafters = [NativeRunner(model), NativeRunner(other_model(models, name))]
    gen_ours, gen_ref, gen_draft = (torch.Generator().manual_seed(s) for s in (7, 7, 8))
    seq = [rng.randrange(V) for _ in range(W + 6)]
    outcomes, steps = set(), 300
    with torch.inference_mode():
        for step in range(steps):
            m, g = len(seq), rng.choice([0, 1, 2, 4, 6])
            q, drafts = rng.choice(drafters).draft_round(seq, g, temperature, gen_draft) if g else (None, [])
            if g and rng.random() < 0.2:
                drafts[rng.randrange(g)] = rng.randrange(V)
            n, token, h, start = ours.verify(seq, drafts, q, temperature, gen_ours)
            expected_n, expected, expected_h, expected_start = Runner.verify(ref, seq, drafts, q, temperature, gen_ref)
            assert (n, token) == (expected_n, expected), f"step {step}"
            assert same_generator(gen_ours, gen_ref), f"step {step}"
            assert start == expected_start and torch.equal(h, expected_h), f"step {step}"
            assert ours.length == ref.length == m + g and ours.forwards == ref.forwards == step + 1
            outcomes.add("none" if g == 0 else "all" if n == g else "some" if n else "rejected")
            seq = seq + drafts[:n] + [token]
            for runner in [ours, ref] + drafters:
                runner.truncate(min(m + n, runner.length))
    assert ours.session.steps == steps - 1 and ours.forward_s > 0
    assert outcomes == {"none", "all", "some", "rejected"}
    assert torch.rand(1, generator=gen_ours).item() == torch.rand(1, generator=gen_ref).item()


@pytest.mark.parametrize("temperature", [1.0, 0.7, 0])
@pytest.mark.parametrize("name", ["main", "random"])
def test_sample_next_draws_as_the_python_path(models, name, temperature):
    """NativeRunner.sample_next against Runner.sample_next on a second NativeRunner: the same token
    and generator state, step after step past the window, with now and then a feed of several new
    positions (within the window: one call) or a rollback; the prompt takes the Python path."""
    model = models[name]
    rng = random.Random(f"{name} {temperature}")
    V, W = model.cfg.vocab_size, model.cfg.block_size
    ours, ref = NativeRunner(model), NativeRunner(model)
    ours.session = CountingSession(ours.session)
    gen_ours, gen_ref = torch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    seq = [rng.randrange(V) for _ in range(W + 6)]
    steps = 500
    with torch.inference_mode():
        for step in range(steps):
            token = ours.sample_next(seq, temperature, gen_ours)
            assert token == Runner.sample_next(ref, seq, temperature, gen_ref), f"step {step}"
            assert same_generator(gen_ours, gen_ref), f"step {step}"
            assert ours.length == ref.length == len(seq) and ours.forwards == ref.forwards == step + 1
            seq = seq + [token]
            if rng.random() < 0.1:  # a few more positions (up to a window) or a rollback
                seq = seq + [rng.randrange(V) for _ in range(rng.randrange(W - 1))]
                keep = rng.randint(len(seq) - W, len(seq) - 1)
                ours.truncate(min(keep, ours.length))
                ref.truncate(min(keep, ref.length))
    assert ours.session.steps == steps - 1 and ours.forward_s > 0
    assert torch.rand(1, generator=gen_ours).item() == torch.rand(1, generator=gen_ref).item()


def test_verify_takes_the_python_path_when_tracing_or_unusual(models):
    """A trace (`record`), a q the rule would read in float64, a feed longer than the window and
    one that lacks the pending token's row all take Runner.verify, with its results."""
    model = models["random"]
    V, W = model.cfg.vocab_size, model.cfg.block_size
    rng = random.Random(9)
    ours, ref = NativeRunner(model), NativeRunner(model)
    ours.session = CountingSession(ours.session)
    drafter = NativeRunner(random_model(1))
    gen_ours, gen_ref, gen_draft = (torch.Generator().manual_seed(s) for s in (5, 5, 6))
    seq = [rng.randrange(V) for _ in range(3 * W)]
    with torch.inference_mode():
        ours.extend(seq[:-1])
        ref.extend(seq[:-1])
        for case in ("record", "float64 q", "one call"):
            q, drafts = drafter.draft_round(seq, 3, 1.0, gen_draft)
            record, expected_record = ({}, {}) if case == "record" else (None, None)
            q = q.double() if case == "float64 q" else q
            got = ours.verify(seq, drafts, q, 1.0, gen_ours, record)
            expected = Runner.verify(ref, seq, drafts, q, 1.0, gen_ref, expected_record)
            assert got[:2] == expected[:2] and torch.equal(got[2], expected[2]) and got[3] == expected[3], case
            assert record == expected_record and same_generator(gen_ours, gen_ref), case
            assert case != "record" or set(record) == {"u", "p_draft", "q_draft"}
            assert ours.session.steps == (case == "one call"), case
            seq = seq + drafts[:got[0]] + [got[1]]
            for runner in (ours, ref, drafter):
                runner.truncate(min(len(seq) - 1, runner.length))
        ours.truncate(len(seq) - 2 * W)  # a feed longer than the window: the prompt's path
        ref.truncate(len(seq) - 2 * W)
        got = ours.verify(seq, [], None, 0.7, gen_ours)
        expected = Runner.verify(ref, seq, [], None, 0.7, gen_ref)
        assert got[:2] == expected[:2] and torch.equal(got[2], expected[2]) and got[2].shape[0] == 2 * W
        assert ours.session.steps == 1 and same_generator(gen_ours, gen_ref)
        with pytest.raises(ValueError, match="temperature must be"):
            ours.verify(seq + [got[1]], [], None, 1e-9, gen_ours)
        with pytest.raises(ValueError, match="temperature must be"):
            ours.sample_next(seq + [got[1]], float("nan"), gen_ours)
        assert same_generator(gen_ours, gen_ref)  # refused before any uniform is drawn


def accept_reject_case(rng, kind):
    """(p [γ+1, V], q [γ, V], drafts [γ]) in float32, drafts drawn from q unless `kind` says otherwise."""
    gamma, V = rng.randint(1, 6), rng.choice([2, 5, 65])
    gen = torch.Generator().manual_seed(rng.randrange(1 << 30))
    dist = lambda rows: torch.softmax(torch.randn(rows, V, generator=gen) * rng.choice([0.5, 2.0, 6.0]), -1)
    p, q = dist(gamma + 1), dist(gamma)
    if kind == "p=q":
        p[:gamma] = q
    drafts = torch.multinomial(q, 1, generator=gen)[:, 0]
    i = rng.randrange(gamma)
    if kind in ("q(d)=0", "p=q, q(d)=0"):  # a draft the drafter gave no mass (the rule never accepts it)
        q[i, drafts[i]] = 0
        q[i] /= q[i].sum()
        if kind == "p=q, q(d)=0":  # then the residual is all zeros: the sample falls back to p
            p[:gamma] = q
    elif kind == "p(d)=0":
        p[i, drafts[i]] = 0
        p[i] /= p[i].sum()
    elif kind == "one-hot":
        p = torch.nn.functional.one_hot(p.argmax(-1), V).float()
        q = torch.nn.functional.one_hot(q.argmax(-1), V).float()
        drafts = q.argmax(-1)
        if rng.random() < 0.5:
            p[:gamma] = q
    return p, q, drafts


# kind -> whether all γ drafts pass: sometimes, never (one draft is always rejected), always
ALL_PASS = {"random": {True, False}, "one-hot": {True, False}, "q(d)=0": {False}, "p(d)=0": {False},
            "p=q, q(d)=0": {False}, "p=q": {True}}


@pytest.mark.parametrize("kind", ALL_PASS)
def test_native_accept_reject_decides_as_the_rule(kind):
    rng = random.Random(kind)
    outcomes = set()
    for case in range(500):
        p, q, drafts = accept_reject_case(rng, kind)
        seed = rng.randrange(1 << 30)
        expected = accept_reject(p, q, drafts, torch.Generator().manual_seed(seed))
        gen = torch.Generator().manual_seed(seed)  # the uniforms the rule drew, drawn again
        u = torch.rand(len(drafts), generator=gen, dtype=torch.float32)
        u_next = torch.rand(1, generator=gen, dtype=torch.float64).item()
        assert native_accept_reject(p, q, drafts, u, u_next) == expected, (kind, case)
        outcomes.add(expected[0] == len(drafts))
    assert outcomes == ALL_PASS[kind]


def test_native_sample_inverts_the_cdf_as_rule_sample(monkeypatch):
    """γ = 0 leaves only the final sample: at u = 0, u just below 1 (the top-edge rule: the last
    token with any mass), and between, against rule.sample fed the same u."""
    probs = torch.tensor([[0.0, 0.25, 0.0, 0.5, 0.25, 0.0, 0.0]])
    for u in (0.0, 0.25, 0.2500001, 0.5, 0.75, 0.9999999, 1 - 2 ** -53):
        monkeypatch.setattr(torch, "rand", lambda *args, u=u, **kwargs: torch.tensor([u], dtype=torch.float64))
        expected = sample(probs[0])
        monkeypatch.undo()
        got = native_accept_reject(probs, torch.empty(0, 7), [], torch.empty(0), u)
        assert got == (0, expected), u
    assert native_accept_reject(probs, torch.empty(0, 7), [], torch.empty(0), 1 - 2 ** -53) == (0, 4)


@pytest.mark.parametrize("name", ["main", "random", "wide"])
def test_every_kernel_path_gives_the_same_logits(models, name):
    model = models[name]
    paths = native.available_kernels()
    assert paths[-1] == "portable"
    plan = feed_plan(model, seed=4, length=120)
    runs = {path: run_plan(NativeRunner(model, kernel=path), plan) for path in paths}
    # the SIMD paths fuse every product into its sum in the same order: the same bits; the portable
    # path rounds each product apart, by more over the wide model's 1301-term sums of larger values
    tolerance = {"portable": PATH_TOLERANCE * (10 if name == "wide" else 1)}
    for path in paths[1:]:
        for i, ((_, h, logits), (_, got_h, got)) in enumerate(zip(runs[paths[0]], runs[path])):
            assert_close(got, logits, f"{path} against {paths[0]}, feed {i}", tolerance.get(path, 0))
            assert_close(got_h, h, f"{path} against {paths[0]}, h of feed {i}", tolerance.get(path, 0))


def test_the_kernel_path_is_chosen_by_argument_or_environment(models, monkeypatch):
    model = models["random"]
    assert NativeRunner(model).kernel == native.available_kernels()[0]
    assert NativeRunner(model, kernel="portable").kernel == "portable"
    monkeypatch.setenv("NATIVE_KERNEL", "portable")
    assert NativeRunner(model).kernel == "portable"
    with pytest.raises(UsageError, match="kernel must be one of"):
        NativeRunner(model, kernel="sse9")


def test_weights_are_packed_once_and_again_after_a_change():
    model = random_model(1)
    first, second = NativeRunner(model), NativeRunner(model)
    assert first.packed is second.packed
    with torch.no_grad():
        model.blocks[0].mlp.w2.weight.mul_(-1)  # in place: the same data_ptr, a new _version
    changed = NativeRunner(model)
    assert changed.packed is not first.packed
    model.load_state_dict(random_model(2).state_dict())
    reloaded = NativeRunner(model)
    assert reloaded.packed is not changed.packed
    plan = feed_plan(model, seed=6, length=40)
    for (_, _, logits), (_, _, got) in zip(run_plan(Runner(model, "kvcache"), plan), run_plan(reloaded, plan)):
        assert_close(got, logits, "after load_state_dict")


def test_no_compiler_or_a_failed_build_is_native_unavailable(monkeypatch):
    monkeypatch.setattr(native, "_EXTENSION", [])  # as in a fresh process
    monkeypatch.setenv("CXX", "no-such-compiler-here")
    with pytest.raises(EngineUnavailable, match=r"no C\+\+ compiler \(no-such-compiler-here\) on PATH"):
        native.load_extension()
    monkeypatch.setenv("CXX", "g++")

    def broken(**kwargs):
        raise RuntimeError("Error building extension 'native'\n[1/2] c++ ... (a long log)")

    monkeypatch.setattr(native.cpp_extension, "load", broken)
    with pytest.raises(EngineUnavailable) as err:
        native.load_extension()
    assert "\n" not in str(err.value) and "Error building extension" in str(err.value)


def test_the_build_is_named_per_machine_and_torch_version():
    name = native.extension_name()
    assert name.isidentifier() and torch.__version__.split("+")[0].replace(".", "_") in name


@pytest.mark.parametrize("kind", ["mtp", "eagle", "eagle3", "random"])
def test_a_head_s_forward_matches_eager_past_the_window_and_after_rollbacks(models, kind):
    """NativeMTPDrafter (the MTP head, EAGLE's and EAGLE-3's layer in C++) against runners.MTPDrafter:
    the same chain drafts of pairs past the window, after rollbacks, and the same q per draft."""
    main = models["random"] if kind == "random" else models["main"]
    if kind == "random":
        torch.manual_seed(1)
        main = GPT(replace(main.cfg, mtp=True)).eval()
        with torch.no_grad():
            for param in main.mtp.parameters():
                param.mul_(5)
    head = None if kind in ("mtp", "random") else load_drafter(CHECKPOINTS / f"{kind}_s0.pt", main=main)[0].net
    plan = feed_plan(main, seed=2)
    eager, ours = MTPDrafter(main, "kvcache", head), NativeMTPDrafter(main, head)
    main_runner = Runner(main, "kvcache", layers=(head is not None and head.reads_layers))
    with torch.inference_mode():
        for i, (seq, keep) in enumerate(plan):
            _, h, start = main_runner.extend(seq[:-1])  # the main model is one behind: seq[-1] is pending
            for drafter in (eager, ours):
                drafter.observe(h, start)
            gen = [torch.Generator().manual_seed(i) for _ in range(2)]
            (q, drafts), (got_q, got_drafts) = (d.propose(seq, len(seq) - 1, 3, 1.0, g) for d, g in zip((eager, ours), gen))
            assert got_drafts == drafts, f"round {i}"
            assert_close(got_q, q, f"q of round {i}", tolerance=1e-5)
            if keep is not None:
                main_runner.truncate(keep - 1)
                for drafter in (eager, ours):
                    drafter.truncate(keep - 1)
    assert ours.forwards == eager.forwards > len(plan)


@pytest.mark.parametrize("kind", ["medusa", "block"])
@pytest.mark.parametrize("scale", [1, 3])
def test_medusa_and_the_block_drafter_match_eager(models, kind, scale):
    """NativeParallelHeads against FeatureDrafter.parallel_logits, as trained and as a heavy twin
    (whose Medusa heads carry zero-output SwiGLU units)."""
    main = copy.deepcopy(models["main"])
    drafter = load_drafter(CHECKPOINTS / f"{kind}_s0.pt", main=main)[0]
    main.heavy_twin(scale)
    drafter.heavy_twin(scale)
    heads = NativeParallelHeads(main, drafter.net)
    gen = torch.Generator().manual_seed(0)
    with torch.inference_mode():
        for g in range(1, drafter.max_drafts + 1):
            h = torch.randn(main.cfg.n_embd, generator=gen) * 3
            assert_close(heads.logits(h, g % main.cfg.vocab_size, g), drafter.parallel_logits(h, g % main.cfg.vocab_size, g),
                         f"{kind} logits, g = {g}")


class FakeClock:
    """native.py's clock: it moves only when the fake build says so (no wall-clock in the test)."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


def test_the_native_build_is_reported_as_compile_s(monkeypatch, capsys):
    real_build, clock = native.cpp_extension.load, FakeClock()

    def slow_build(**kwargs):  # a rebuild that takes 12 s on native.py's clock
        clock.now += 12.0
        return real_build(**kwargs)

    monkeypatch.setattr(native, "_EXTENSION", [])
    monkeypatch.setattr(native, "time", clock)
    monkeypatch.setattr(native.cpp_extension, "load", slow_build)
    assert generate_quick("--engine", "native") == 0
    assert json.loads(capsys.readouterr().out)["compile_s"] == 12.0
