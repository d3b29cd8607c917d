"""Issue 45, items 3-7 and 10-12: a checkpoint, a data path or a folder that is not what it should
be is one line naming the file and the field (`error: ...`, exit code 2), found before anything is
built from it; the native engine's build time is reported apart from the decode's."""
import json
from dataclasses import replace

import pytest

from experiments import native
from experiments.data import VOCAB_SIZE, CharData, DataError, find_data
from experiments.exercises.__main__ import main as exercises_main
from experiments.generate import main as generate_main
from experiments.heads import read_drafter
from experiments.model import DRAFT, GPT, CheckpointError, load_checkpoint, save_checkpoint
from experiments.runs import CHECKPOINTS
from tests.helpers import config_change, generate_quick, one_error_line, tampered


# 3. a vocabulary other than the data's


@pytest.mark.parametrize("vocab_size,flag", [(80, "--checkpoint"), (40, "--draft-checkpoint")])
def test_a_model_of_another_vocabulary_is_refused(tmp_path, capsys, vocab_size, flag):
    path = tmp_path / "other_vocab.pt"
    save_checkpoint(path, GPT(replace(DRAFT, vocab_size=vocab_size)), {"step": 1})
    assert generate_quick("--method", "draft", flag, path) == 2
    err = one_error_line(capsys)
    assert str(path) in err and f"config.vocab_size is {vocab_size}" in err and f"{VOCAB_SIZE} characters" in err


# 4. what a drafter records of its main model


@pytest.mark.parametrize("trained_on", ["main_s0.pt", {"checkpoint": "main_s0.pt"}, {"fingerprint": 7}])
def test_a_drafter_whose_trained_on_is_malformed_is_refused(tmp_path, capsys, trained_on):
    path = tampered(tmp_path, "eagle_s0.pt", lambda p: p.update(trained_on=trained_on))
    assert generate_quick("--method", "eagle", "--heads-checkpoint", path) == 2
    err = one_error_line(capsys)
    assert str(path) in err and "field trained_on" in err


# 5. a config is checked against its weights before anything is built


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


def test_medusa_with_ten_million_heads_is_one_line(tmp_path, capsys):
    path = tampered(tmp_path, "medusa_s0.pt", config_change(n_heads=10 ** 7))
    assert generate_quick("--method", "medusa", "--gamma", "2", "--heads-checkpoint", path) == 2
    assert str(path) in (err := one_error_line(capsys)) and "n_heads = 10000000" in err


# 6. the data path is a folder


def test_a_data_path_that_is_a_folder_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("TINYSHAKESPEARE", str(tmp_path))
    with pytest.raises(DataError, match="is a folder, not the data file"):
        find_data()


# 7. one bound on --n for every engine, before anything loads


def test_a_huge_n_is_refused_on_the_eager_engine_before_the_data_loads(monkeypatch, capsys):
    monkeypatch.setattr(CharData, "__init__", lambda *a: pytest.fail("the data was loaded"))
    assert generate_main(["--n", "1000000000"]) == 2
    assert "every engine holds at most 16,320 characters" in one_error_line(capsys)


# 10. the checksums a file records


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


# 11. each bad path worded as what it is


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


def test_exercises_checkpoints_that_is_a_file_says_so(tmp_path, capsys):
    path = tmp_path / "main_s0.pt"
    path.write_bytes(b"")
    assert exercises_main(["--checkpoints", str(path), "chi2"]) == 2
    err = one_error_line(capsys)
    assert f"--checkpoints {path} is a file, not a folder" in err and "main_s0.pt/" not in err


# 12. the native engine's build or load is compile_s, not wall_s


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
