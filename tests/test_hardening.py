"""What an audit found (issue 36): chains at the largest γ the CLI accepts, recompute mode past
the window, weights that are corrupt, and files cut short, each with the property it broke."""
from dataclasses import replace

import numpy as np
import pytest
import torch

from experiments import native
from experiments.data import CharData
from experiments.heads import load_drafter
from experiments.measure.__main__ import main as measure_main
from experiments.methods import Models, Spec, decode, load_models, names
from experiments.model import GPT, MAIN, CheckpointError, load_checkpoint, save_checkpoint
from experiments.rule import probs_from_logits
from experiments.runners import Runner
from experiments.speculative import plain_decode
from tests.helpers import CHECKPOINTS, LONG_PROMPT, ROOT, chi_square_pvalue, largest_gamma, one_line_error, tool


@pytest.fixture(scope="module")
def data():
    return CharData()


@pytest.fixture(scope="module")
def seed0(data):
    """Every seed-0 model as the CLI loads them (float32)."""
    return load_models(CHECKPOINTS, 0, train_tokens=data.train.tolist(), vocab_size=data.vocab_size)


# the feature drafters' caches once rolled back too little for γ >= 19 (the default margin was 16)
@pytest.mark.parametrize("engine", ["eager", "native", pytest.param("compiled", marks=pytest.mark.slow),
                                    pytest.param("aot", marks=pytest.mark.slow)])
def test_every_chain_family_runs_at_its_largest_gamma(seed0, data, engine):
    prompt, n = data.encode("ROMEO:\n"), 160  # past the cache's 144 slots: it has to move and roll back
    with torch.inference_mode():
        plain = decode(Spec("plain"), seed0, prompt, n, temperature=0, engine=engine).tokens
        for method in names(chain=True):
            gamma = largest_gamma(seed0, method)
            result = decode(Spec(method, gamma), seed0, prompt, n, temperature=0, engine=engine)
            assert result.tokens == plain, f"{method} γ = {gamma} on {engine}"


def test_a_recompute_verify_gives_every_row_plain_recompute_context(models64):
    """Each verified position sees the block_size characters up to itself, as plain recompute
    decoding's forward over that crop does (once, the verify cropped prompt + drafts to 64)."""
    main = models64[0]
    window = main.cfg.block_size
    seq = [(7 * i + 3) % main.cfg.vocab_size for i in range(window + 40)]
    with torch.inference_mode():
        for length, rows in [(20, 5), (window - 3, 9), (window + 10, 5), (window + 40, 40), (window + 40, 1)]:
            logits, _, start = Runner(main, "recompute").extend(seq[:length], rows=rows)
            assert start + len(logits) == length
            for i in range(length - rows, length):
                crop = seq[max(0, i + 1 - window):i + 1]
                alone = main(torch.tensor([crop]))[0][0, -1]
                assert (logits[i - start] - alone).abs().max() < 1e-9, (length, rows, i)


@pytest.mark.parametrize("spec", [Spec("draft", 4), Spec("ngram", 63), Spec("mtp"), Spec("eagle", 19), Spec("medusa", 3),
                                  pytest.param(Spec("draft", 63), marks=pytest.mark.slow)])
def test_recompute_greedy_equals_plain_recompute_past_the_window(models64, data, spec):
    main, draft = models64
    heads = {kind: load_drafter(CHECKPOINTS / f"{kind}_s0.pt", main=main)[0].double() for kind in ("eagle", "medusa")}
    models = Models(main, draft, heads, train_tokens=data.train.tolist())
    prompt = data.encode("ROMEO:\n")
    with torch.inference_mode():
        plain = plain_decode(main, prompt, 150, temperature=0, mode="recompute").tokens
        assert decode(spec, models, prompt, 150, temperature=0, mode="recompute").tokens == plain


def exact_recompute_law_of_three(main, prompt):
    """P(x1), P(x2), P(x3) after a prompt longer than the window under plain recompute decoding
    (each step sees the last block_size characters), by enumerating the first two characters."""
    V, window = main.cfg.vocab_size, main.cfg.block_size
    with torch.inference_mode():
        p1 = probs_from_logits(main(torch.tensor([prompt[-window:]]))[0][0, -1], 1.0)
        firsts = torch.arange(V)[:, None]
        p2_given_1 = probs_from_logits(main(torch.cat([torch.tensor(prompt[1 - window:]).expand(V, -1), firsts], 1))[0][:, -1], 1.0)
        pairs = torch.cartesian_prod(torch.arange(V), torch.arange(V))
        p3_given_12 = probs_from_logits(main(torch.cat([torch.tensor(prompt[2 - window:]).expand(V * V, -1), pairs], 1))[0][:, -1], 1.0)
    joint12 = p1[:, None] * p2_given_1
    return p1, joint12.sum(0), (joint12.reshape(-1, 1) * p3_given_12).sum(0)


@pytest.mark.slow  # the greedy checks and the row-by-row context check above pin it down in make test
def test_recompute_sampled_output_follows_plain_recompute_past_the_window(models64, data):
    main, draft = models64
    prompt, draws = data.encode(LONG_PROMPT + "\nI "), 1200
    assert len(prompt) > main.cfg.block_size
    laws = exact_recompute_law_of_three(main, prompt)
    gen = torch.Generator().manual_seed(5)
    with torch.inference_mode():
        samples = np.array([decode(Spec("draft", 2), Models(main, draft), prompt, 3, temperature=1.0, mode="recompute",
                                   generator=gen).tokens for _ in range(draws)])
    for position, law in enumerate(laws):
        assert chi_square_pvalue(samples[:, position], law) > 1e-3, f"char {position + 1}"


def flip_a_byte_of(path, tensor):
    """Change one byte of a tensor's data in the file itself, as a bad disk or copy would."""
    raw = bytearray(path.read_bytes())
    at = raw.find(tensor.contiguous().numpy().tobytes()[:64])
    assert at > 0
    raw[at + 3] ^= 0x43  # the top byte of the first float: a small weight becomes a large one
    path.write_bytes(bytes(raw))


def test_a_flipped_byte_in_the_weights_is_one_line_naming_the_tensor(tmp_path):
    path = tmp_path / "main.pt"
    path.write_bytes((CHECKPOINTS / "main_s0.pt").read_bytes())
    flip_a_byte_of(path, load_checkpoint(CHECKPOINTS / "main_s0.pt")[0].tok_emb.weight.detach())
    weights = torch.load(path, weights_only=True)["model"]["tok_emb.weight"]
    assert torch.isfinite(weights).all()  # only the checksum can tell
    one_line_error(tool("generate", "--checkpoint", str(path), "--n", "5"), str(path), "tok_emb.weight", "checksum")


@pytest.mark.parametrize("flag", ["--checkpoint", "--draft-checkpoint"])
def test_nan_weights_are_one_line_naming_the_tensor(tmp_path, flag):
    name = "main_s0" if flag == "--checkpoint" else "draft_s0"
    model, payload = load_checkpoint(CHECKPOINTS / f"{name}.pt")
    with torch.no_grad():
        model.blocks[0].mlp.w2.weight[3, 5] = float("nan")
    path = tmp_path / f"{name}.pt"
    save_checkpoint(path, model)  # a fresh checksum: only the finiteness check can tell
    out = tool("generate", "--method", "draft", flag, str(path), "--n", "5")
    one_line_error(out, flag, str(path), "blocks.0.mlp.w2.weight", "NaN")


def test_a_drafter_with_nan_weights_is_refused(tmp_path):
    payload = torch.load(CHECKPOINTS / "eagle_s0.pt", weights_only=True)
    first = next(iter(payload["model"]))
    payload["model"][first][0] = float("inf")
    payload.pop("sha256")  # as a drafter saved before checksums
    torch.save(payload, tmp_path / "eagle.pt")
    with pytest.raises(CheckpointError, match=f"tensor {first} holds 1 NaN or infinite"):
        load_drafter(tmp_path / "eagle.pt", main=load_checkpoint(CHECKPOINTS / "main_s0.pt")[0])


def test_checkpoints_record_checksums_and_the_committed_ones_pass(tmp_path):
    save_checkpoint(tmp_path / "m.pt", GPT(replace(MAIN, n_layer=1)))
    assert set(torch.load(tmp_path / "m.pt", weights_only=True)["sha256"]) >= {"tok_emb.weight", "norm.weight"}
    for path in sorted(CHECKPOINTS.glob("*.pt")):
        payload = torch.load(path, weights_only=True)
        assert set(payload["sha256"]) == set(payload["model"]), path
        if "trained_on" not in payload:  # the feature drafters load through load_drafter
            load_checkpoint(path)


@pytest.mark.parametrize("change", [{"n_head": 0}, {"block_size": 0}, {"n_embd": 30}])
def test_a_checkpoint_of_an_impossible_shape_is_one_line(tmp_path, change):
    payload = torch.load(CHECKPOINTS / "main_s0.pt", weights_only=True)
    payload["config"].update(change)
    torch.save(payload, tmp_path / "odd.pt")
    key = next(iter(change))
    one_line_error(tool("generate", "--checkpoint", str(tmp_path / "odd.pt"), "--n", "5"), "odd.pt", key)


def test_measure_with_a_checkpoint_cut_short_is_one_line(tmp_path):
    for name in ("main_s0", "control_s0", "draft_s0"):
        (tmp_path / f"{name}.pt").write_bytes((CHECKPOINTS / f"{name}.pt").read_bytes())
    whole = (CHECKPOINTS / "main_s0.pt").read_bytes()
    (tmp_path / "main_s0.pt").write_bytes(whole[:len(whole) // 3])
    out = tool("measure", "--seeds", "0", "--only", "models", "--checkpoints", str(tmp_path),
               "--results", str(tmp_path / "results"))
    assert not (tmp_path / "results").exists() or not list((tmp_path / "results").glob("*.json"))
    one_line_error(out, "main_s0.pt", "cut short or corrupt", progress=True)


def test_measure_with_a_training_log_cut_short_is_one_line(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    for log in (ROOT / "experiments" / "results").glob("train_*_s0.json"):
        (results / log.name).write_bytes(log.read_bytes())
    whole = (results / "train_main_s0.json").read_bytes()
    (results / "train_main_s0.json").write_bytes(whole[:300])
    before = sorted(p.name for p in results.iterdir())
    out = tool("measure", "--seeds", "0", "--only", "models", "--results", str(results))
    assert sorted(p.name for p in results.iterdir()) == before  # nothing written, nothing left behind
    one_line_error(out, "train_main_s0.json", "not valid JSON", progress=True)


def test_a_cpu_index_names_the_device():
    one_line_error(tool("generate", "--device", "cpu:1", "--n", "5"), "--device cpu:1")


def test_a_native_kernel_this_machine_lacks_or_a_bad_name_is_one_line_from_measure_too(monkeypatch, capsys):
    monkeypatch.setattr(native, "available_kernels", lambda: ["avx2", "portable"])
    for kernel, words in [("avx512", ["NATIVE_KERNEL avx512", "runs only avx2, portable"]),
                          ("sse9", ["must be one of"])]:
        monkeypatch.setenv("NATIVE_KERNEL", kernel)
        assert measure_main(["--only", "costs", "--seeds", "0", "--engines", "native"]) == 2
        out = capsys.readouterr()
        assert out.out == "" and out.err.count("\n") == 1 and all(w in out.err for w in words), out.err
