"""Checkpoint and drafter files that are not what they should be, given to the command-line tools:
a flipped byte, NaN weights, an impossible shape, another vocabulary, a drafter's record of another
or a malformed main model, a path that is no file, a file cut short. Each is one line on stderr
naming the file and what is wrong (`error: ...`, exit code 2), never a traceback."""
from dataclasses import replace

import pytest
import torch

from experiments.cli import UsageError, open_checkpoint
from experiments.data import VOCAB_SIZE
from experiments.generate import main as generate_cli
from experiments.model import DRAFT, GPT, load_checkpoint, save_checkpoint
from tests.helpers import (CHECKPOINTS, ROOT, config_change, generate_quick, one_error_line, one_line_error, tampered,
                           tool)


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


@pytest.mark.parametrize("change", [{"n_head": 0}, {"block_size": 0}, {"n_embd": 30}])
def test_a_checkpoint_of_an_impossible_shape_is_one_line(tmp_path, change):
    payload = torch.load(CHECKPOINTS / "main_s0.pt", weights_only=True)
    payload["config"].update(change)
    torch.save(payload, tmp_path / "odd.pt")
    key = next(iter(change))
    one_line_error(tool("generate", "--checkpoint", str(tmp_path / "odd.pt"), "--n", "5"), "odd.pt", key)


@pytest.mark.parametrize("vocab_size,flag", [(80, "--checkpoint"), (40, "--draft-checkpoint")])
def test_a_model_of_another_vocabulary_is_refused(tmp_path, capsys, vocab_size, flag):
    path = tmp_path / "other_vocab.pt"
    save_checkpoint(path, GPT(replace(DRAFT, vocab_size=vocab_size)), {"step": 1})
    assert generate_quick("--method", "draft", flag, path) == 2
    err = one_error_line(capsys)
    assert str(path) in err and f"config.vocab_size is {vocab_size}" in err and f"{VOCAB_SIZE} characters" in err


@pytest.mark.parametrize("trained_on", ["main_s0.pt", {"checkpoint": "main_s0.pt"}, {"fingerprint": 7}])
def test_a_drafter_whose_trained_on_is_malformed_is_refused(tmp_path, capsys, trained_on):
    path = tampered(tmp_path, "eagle_s0.pt", lambda p: p.update(trained_on=trained_on))
    assert generate_quick("--method", "eagle", "--heads-checkpoint", path) == 2
    err = one_error_line(capsys)
    assert str(path) in err and "field trained_on" in err


def test_medusa_with_ten_million_heads_is_one_line(tmp_path, capsys):
    path = tampered(tmp_path, "medusa_s0.pt", config_change(n_heads=10 ** 7))
    assert generate_quick("--method", "medusa", "--gamma", "2", "--heads-checkpoint", path) == 2
    assert str(path) in (err := one_error_line(capsys)) and "n_heads = 10000000" in err


@pytest.mark.parametrize("where,named", [("/dev/zero", "is not a regular file"), ("/dev/null", "is not a regular file"),
                                         ("folder", "is a folder, not a checkpoint file")])
def test_a_checkpoint_path_that_is_no_file_says_what_it_is(tmp_path, capsys, where, named):
    path = tmp_path if where == "folder" else where
    assert generate_quick("--checkpoint", path) == 2
    err = one_error_line(capsys)
    assert named in err and "not found" not in err


def test_a_corrupt_drafter_is_called_corrupt_not_a_misfit(tmp_path, capsys):
    path = tmp_path / "medusa_cut.pt"
    path.write_bytes((CHECKPOINTS / "medusa_s0.pt").read_bytes()[:5000])
    assert generate_quick("--method", "medusa", "--gamma", "2", "--heads-checkpoint", path) == 2
    err = one_error_line(capsys)
    assert "is not a drafter checkpoint" in err and "does not fit" not in err


def test_a_main_checkpoint_cut_short_is_one_line(tmp_path):
    """torch.load raises RuntimeError or OSError depending on where a file is cut: every cut of
    the committed main checkpoint is one error line naming the file."""
    whole = (ROOT / "experiments" / "checkpoints" / "main_s0.pt").read_bytes()
    for fraction in (0.01, 0.1, 0.5, 0.9, 0.99):  # 0.01: OSError, the others RuntimeError
        cut = tmp_path / f"main_cut{fraction}.pt"
        cut.write_bytes(whole[:int(len(whole) * fraction)])
        with pytest.raises(UsageError, match="is not a checkpoint written by experiments.train"):
            open_checkpoint(cut, "cpu")


ON_THE_DRAFT_MODEL = ["--checkpoint", str(CHECKPOINTS / "draft_s0.pt")]  # another shape


@pytest.mark.parametrize("args,drafter,main", [
    (["--method", "eagle", *ON_THE_DRAFT_MODEL], "eagle_s0.pt", "draft_s0.pt"),
    (["--method", "medusa", "--tree", "8", *ON_THE_DRAFT_MODEL], "medusa_s0.pt", "draft_s0.pt"),
    (["--method", "eagle", "--heads-checkpoint", str(CHECKPOINTS / "eagle_s1.pt")], "eagle_s1.pt", "main_s0.pt")])
def test_generate_refuses_a_drafter_of_another_main_model_in_one_line(capsys, args, drafter, main):
    assert generate_cli([*args, "--n", "5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.splitlines()) == 1, err
    assert f"/{drafter} " in err and f"/{main}" in err
