"""Checkpoint files (experiments/model.py, experiments/heads.py): every tensor's checksum is recorded
and the committed files pass it; a config that does not fit its weights, a checksum table that is
not one or lacks a tensor, and weights that are not finite are refused naming the file and the
field before anything is built; a file without checksums loads with one note."""
from dataclasses import replace

import pytest
import torch

from experiments.heads import load_drafter, read_drafter
from experiments.model import GPT, MAIN, CheckpointError, load_checkpoint, save_checkpoint
from tests.helpers import CHECKPOINTS, config_change, tampered


def test_checkpoints_record_checksums_and_the_committed_ones_pass(tmp_path):
    save_checkpoint(tmp_path / "m.pt", GPT(replace(MAIN, n_layer=1)))
    assert set(torch.load(tmp_path / "m.pt", weights_only=True)["sha256"]) >= {"tok_emb.weight", "norm.weight"}
    for path in sorted(CHECKPOINTS.glob("*.pt")):
        payload = torch.load(path, weights_only=True)
        assert set(payload["sha256"]) == set(payload["model"]), path
        if "trained_on" not in payload:  # the feature drafters load through load_drafter
            load_checkpoint(path)


def test_a_drafter_with_nan_weights_is_refused(tmp_path):
    payload = torch.load(CHECKPOINTS / "eagle_s0.pt", weights_only=True)
    first = next(iter(payload["model"]))
    payload["model"][first][0] = float("inf")
    payload.pop("sha256")  # as a drafter saved before checksums
    torch.save(payload, tmp_path / "eagle.pt")
    with pytest.raises(CheckpointError, match=f"tensor {first} holds 1 NaN or infinite"):
        load_drafter(tmp_path / "eagle.pt", main=load_checkpoint(CHECKPOINTS / "main_s0.pt")[0])


@pytest.mark.parametrize("source,fields,named", [
    ("main_s0.pt", {"n_layer": 10 ** 6}, "config.n_layer is 1000000 but the weights hold 4"),
    ("main_s0.pt", {"mlp_hidden": 10 ** 9, "n_embd": 2 ** 20}, "config.n_embd is 1048576 but the weights hold 128"),
    ("main_s0.pt", {"mtp": False}, "config.mtp is False but the weights hold True"),
    ("main_s0.pt", {"block_size": 10 ** 9}, "block_size must be at most"),
])
def test_an_absurd_model_config_is_refused_before_it_is_built(tmp_path, monkeypatch, source, fields, named):
    monkeypatch.setattr(GPT, "__init__", lambda *a: pytest.fail("a model was built from the config"))
    path = tampered(tmp_path, source, config_change(**fields))
    with pytest.raises(CheckpointError, match=named) as err:
        load_checkpoint(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("source,fields,named", [
    ("medusa_s0.pt", {"n_heads": 10 ** 7}, "n_heads = 10000000"),
    ("medusa_s0.pt", {"n_heads": 5}, "config.n_heads is 5 but the weights hold 3"),
    ("block_s0.pt", {"n_masks": 10 ** 6}, "n_masks = 1000000"),
    ("block_s0.pt", {"n_masks": 9}, "config.n_masks is 9 but the weights hold 8"),
    ("eagle3_s0.pt", {"ttt_steps": 10 ** 9}, "not a drafter checkpoint"),
    ("eagle_s0.pt", {"kind": "bogus"}, "not a drafter checkpoint"),
])
def test_an_absurd_drafter_config_is_refused_before_it_is_built(tmp_path, source, fields, named):
    path = tampered(tmp_path, source, config_change(**fields))
    with pytest.raises(CheckpointError, match=named) as err:
        read_drafter(path, "cpu")
    assert str(path) in str(err.value)


def test_checksums_that_are_not_a_table_are_refused(tmp_path):
    path = tampered(tmp_path, "main_s0.pt", lambda p: p.update(sha256="tok_emb.weight blocks.0"))
    with pytest.raises(CheckpointError, match="field sha256"):
        load_checkpoint(path)


def test_a_checksum_missing_for_one_tensor_is_refused(tmp_path):
    path = tampered(tmp_path, "main_s0.pt", lambda p: p["sha256"].pop("norm.weight"))
    with pytest.raises(CheckpointError, match="norm.weight .*records none for it"):
        load_checkpoint(path)


def test_a_file_without_checksums_loads_with_one_note(tmp_path, capsys):
    path = tampered(tmp_path, "draft_s0.pt", lambda p: p.pop("sha256"))
    load_checkpoint(path)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"note: {path} records no checksums")
