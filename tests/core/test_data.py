"""The data file: found, verified, split; a wrong file or a folder is a clear error naming its path."""
import pytest

from experiments import data as data_module
from experiments.data import CharData, DataError, find_data


def test_vocabulary_and_split():
    d = CharData()
    assert d.n_chars == 1_115_394 and d.vocab_size == 65
    assert len(d.train) == int(0.9 * d.n_chars) and len(d.train) + len(d.val) == d.n_chars
    assert d.decode(d.encode("ROMEO:\n")) == "ROMEO:\n"
    with pytest.raises(ValueError, match="not in the vocabulary"):
        d.encode("naïve")


def test_checksum_mismatch_names_the_file(tmp_path, monkeypatch):
    bad = tmp_path / "tinyshakespeare.txt"
    bad.write_text("not shakespeare")
    monkeypatch.setattr(data_module, "LOCAL", bad)
    monkeypatch.delenv("TINYSHAKESPEARE", raising=False)  # the override would be read instead of LOCAL
    with pytest.raises(DataError, match=str(bad)):
        find_data()


def test_missing_override_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("TINYSHAKESPEARE", str(tmp_path / "nope.txt"))
    with pytest.raises(DataError, match="nope.txt"):
        find_data()


def test_a_data_path_that_is_a_folder_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("TINYSHAKESPEARE", str(tmp_path))
    with pytest.raises(DataError, match="is a folder, not the data file"):
        find_data()
