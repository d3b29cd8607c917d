"""Training on a tiny config: losses fall, checkpoints and the log are written atomically, and
an interrupted run resumes to exactly the result of an uninterrupted one."""
from dataclasses import replace

import pytest
import torch

from experiments.data import CharData
from experiments.jsonio import read_json
from experiments.model import MAIN, load_checkpoint
from experiments.train import main as train_cli
from experiments.train import train

TINY = replace(MAIN, n_layer=1, n_embd=32, n_head=2, mlp_hidden=64, block_size=32)


@pytest.fixture(scope="module")
def data():
    return CharData()


def run(tmp_path, data, steps, **kw):
    args = dict(cfg=TINY, name="tiny", mtp_weight=0.3, steps=steps, batch_size=8, seed=0, lr=3e-3,
                warmup=5, eval_interval=10, eval_batches=2, snapshots=(0, 10), data=data,
                checkpoint_dir=tmp_path / "ck", results_dir=tmp_path / "res", log_every=1000)
    return train(**{**args, **kw})


def test_training_smoke(tmp_path, data):
    log = run(tmp_path, data, 40)
    val = log["curves"]["val"]
    assert log["curves"]["step"] == [0, 10, 20, 30, 40]
    assert val["main"][-1] < val["main"][0] - 0.5 and val["mtp"][-1] < val["mtp"][0] - 0.5
    saved = read_json(tmp_path / "res" / "train_tiny.json")
    assert saved["final_val"] == {k: v[-1] for k, v in val.items()}
    assert {"device", "torch", "seeds", "git_commit", "command", "threads"} <= set(saved["meta"])
    model, payload = load_checkpoint(tmp_path / "ck" / "tiny.pt")
    assert payload["step"] == 40 and model.cfg == TINY
    assert load_checkpoint(tmp_path / "ck" / "tiny_step10.pt")[1]["step"] == 10
    assert not list((tmp_path).rglob("*.tmp"))


class Interrupted(Exception):
    pass


class FlakyData:
    """Serves batches like CharData, then fails mid-run like a killed process would."""

    def __init__(self, data, fail_after):
        self.data, self.calls, self.fail_after = data, 0, fail_after
        self.vocab_size, self.path = data.vocab_size, data.path

    def batch(self, split, *args):
        if split == "train":
            self.calls += 1
            if self.calls > self.fail_after:
                raise Interrupted
        return self.data.batch(split, *args)


def test_resume_matches_uninterrupted(tmp_path, data):
    straight = run(tmp_path / "a", data, 30)
    with pytest.raises(Interrupted):
        run(tmp_path / "b", FlakyData(data, fail_after=25), 30)  # last checkpoint: step 20
    resumed = run(tmp_path / "b", data, 30)
    assert resumed["curves"]["val"] == straight["curves"]["val"]
    a = load_checkpoint(tmp_path / "a" / "ck" / "tiny.pt")[0].state_dict()
    b = load_checkpoint(tmp_path / "b" / "ck" / "tiny.pt")[0].state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_cli_rejects_mtp_for_the_draft(capsys):
    with pytest.raises(SystemExit) as err:
        train_cli(["--model", "draft", "--mtp", "0.3"])
    assert err.value.code == 2
    assert "no MTP head" in capsys.readouterr().err
