"""Training on a tiny config: losses fall, checkpoints and the log are written atomically, and
an interrupted run resumes to exactly the result of an uninterrupted one, and refuses a resume
state of other settings or another shape."""
from dataclasses import replace
from types import SimpleNamespace

import pytest
import torch

from experiments import train as train_module
from experiments.cli import UsageError
from experiments.data import CharData
from experiments.heads import KINDS
from experiments.jsonio import read_json
from experiments.model import MAIN, load_checkpoint
from experiments.train import is_complete, train
from experiments.train import main as train_cli
from tests.helpers import FlakyData, Interrupted

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


def test_resume_matches_uninterrupted(tmp_path, data):
    straight = run(tmp_path / "a", data, 30)
    with pytest.raises(Interrupted):
        run(tmp_path / "b", FlakyData(data, fail_after=25), 30)  # last checkpoint: step 20
    resumed = run(tmp_path / "b", data, 30)
    assert resumed["curves"]["val"] == straight["curves"]["val"]
    a = load_checkpoint(tmp_path / "a" / "ck" / "tiny.pt")[0].state_dict()
    b = load_checkpoint(tmp_path / "b" / "ck" / "tiny.pt")[0].state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


SNAPSHOTS = (0, 10, 15)  # 10 is an eval step (eval_interval 10), 15 is not


def weights(path):
    return load_checkpoint(path)[0].state_dict()


def same_weights(a, b):
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def straight(tmp_path_factory, data):
    """An uninterrupted run: the reference every interrupted one must end equal to."""
    root = tmp_path_factory.mktemp("straight")
    return root, run(root, data, 30, snapshots=SNAPSHOTS)


def assert_same_as_straight(straight, root, log):
    reference, reference_log = straight
    assert log["curves"]["val"] == reference_log["curves"]["val"]
    for step in SNAPSHOTS:
        path = root / "ck" / f"tiny_step{step}.pt"
        assert path.exists(), f"snapshot at step {step} is missing"
        assert same_weights(weights(path), weights(reference / "ck" / path.name)), step
    assert same_weights(weights(root / "ck" / "tiny.pt"), weights(reference / "ck" / "tiny.pt"))


@pytest.mark.parametrize("writer,step", [("state", 10), ("snapshot", 0), ("snapshot", 10),
                                         ("snapshot", 15)])
def test_a_kill_between_snapshot_and_state_loses_nothing(tmp_path, data, straight, monkeypatch,
                                                         writer, step):
    """Issue 8, bug 6: the process dies right after the resume state (or a snapshot) at `step` is
    written; rerunning the same command must end with every snapshot and the same weights."""
    def dies_after(save, is_the_write):
        def wrapped(*args):
            save(*args)
            if is_the_write(*args):
                raise Interrupted
        return wrapped

    if writer == "state":  # train.save_atomic writes only the resume state
        monkeypatch.setattr(train_module, "save_atomic", dies_after(
            train_module.save_atomic, lambda payload, path: payload["step"] == step))
    else:
        monkeypatch.setattr(train_module, "save_checkpoint", dies_after(
            train_module.save_checkpoint, lambda path, model, extra: path.name == f"tiny_step{step}.pt"))
    with pytest.raises(Interrupted):
        run(tmp_path, data, 30, snapshots=SNAPSHOTS)
    monkeypatch.undo()
    assert_same_as_straight(straight, tmp_path, run(tmp_path, data, 30, snapshots=SNAPSHOTS))


def test_a_missing_snapshot_is_noticed_and_rebuilt(tmp_path, data, straight):
    """A resume state past a missing snapshot (what the old order left behind) cannot rebuild it:
    train starts over; is_complete says a finished run missing a snapshot is incomplete."""
    with pytest.raises(Interrupted):
        run(tmp_path, FlakyData(data, fail_after=25), 30, snapshots=SNAPSHOTS)  # state at step 20
    (tmp_path / "ck" / "tiny.partial" / "tiny_step10.pt").unlink()
    assert_same_as_straight(straight, tmp_path, run(tmp_path, data, 30, snapshots=SNAPSHOTS))
    assert is_complete("tiny", 30, SNAPSHOTS, tmp_path / "ck")
    (tmp_path / "ck" / "tiny_step10.pt").unlink()
    assert not is_complete("tiny", 30, SNAPSHOTS, tmp_path / "ck")


def cut_in_half(source, target):
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(source.read_bytes()[:source.stat().st_size // 2])


@pytest.mark.parametrize("damaged,source,args,remedy", [
    ("main_s7.opt.pt", "tiny.pt", ["--model", "main"], "--fresh"),        # the resume state
    ("main_s7.pt", "tiny.pt", ["--model", "all"], "--force"),             # is_complete reads the weights
    ("main_s7.pt", "tiny.pt", ["--model", "eagle"], "--model main --seed 7 --fresh --force")])  # a drafter's main
def test_a_truncated_file_is_one_line_that_names_it(tmp_path, straight, monkeypatch, capsys,
                                                     damaged, source, args, remedy):
    """Issue 18, item 19: a resume file cut short is one line naming it, not a PytorchStreamReader
    traceback; the remedy it names works."""
    monkeypatch.setattr(train_module, "CHECKPOINTS", tmp_path)
    monkeypatch.setattr(train_module, "RESULTS", tmp_path)
    cut_in_half(straight[0] / "ck" / source, tmp_path / damaged)
    assert train_cli([*args, "--seed", "7", "--threads", "1", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.splitlines()) == 1, err
    assert str(tmp_path / damaged) in err and remedy in err
    if damaged.endswith(".opt.pt"):
        assert train_cli([*args, "--seed", "7", "--fresh", "--steps", "1", "--batch", "1", "--threads", "1",
                          "--out", str(tmp_path)]) == 0


# Issue 45, items 1 and 2: a finished checkpoint is never replaced by accident, and a run writes its
# weights into place only when it ends.


@pytest.fixture
def committed(tmp_path, straight, monkeypatch):
    """A stand-in for experiments/checkpoints and experiments/results holding a finished draft_s0."""
    checkpoints, results = tmp_path / "checkpoints", tmp_path / "results"
    checkpoints.mkdir()
    results.mkdir()
    (checkpoints / "draft_s0.pt").write_bytes((straight[0] / "ck" / "tiny.pt").read_bytes())
    (results / "train_draft_s0.json").write_text('{"finished": true}\n')
    monkeypatch.setattr(train_module, "CHECKPOINTS", checkpoints)
    monkeypatch.setattr(train_module, "RESULTS", results)
    return tmp_path


def contents(folder):
    return {path.relative_to(folder): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


QUICK = ["--steps", "2", "--batch", "1", "--threads", "1"]


def test_a_finished_checkpoint_is_refused_in_one_line(committed, capsys):
    before = contents(committed)
    assert train_cli(["--model", "draft", *QUICK]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.splitlines()) == 1, err
    assert "draft_s0.pt holds a finished run (step 30)" in err and "--force" in err and "--out DIR" in err
    assert contents(committed) == before


def test_a_trial_run_goes_to_out_and_force_retrains(committed, capsys):
    before = contents(committed)
    assert train_cli(["--model", "draft", *QUICK, "--out", str(committed / "trial")]) == 0
    assert {k: v for k, v in contents(committed).items() if k.parts[0] != "trial"} == before
    assert load_checkpoint(committed / "trial" / "draft_s0.pt")[1]["step"] == 2
    assert read_json(committed / "trial" / "train_draft_s0.json")["config"]["steps"] == 2
    assert sorted(p.name for p in (committed / "trial").iterdir()) == \
        ["draft_s0.pt", "draft_s0_step0.pt", "train_draft_s0.json"]  # no resume state or staging left
    assert train_cli(["--model", "draft", *QUICK, "--force"]) == 0
    assert load_checkpoint(committed / "checkpoints" / "draft_s0.pt")[1]["step"] == 2
    assert read_json(committed / "results" / "train_draft_s0.json")["config"]["steps"] == 2


def test_seeds_are_honoured_for_one_model(committed, capsys):
    assert train_cli(["--model", "draft", *QUICK, "--seeds", "3", "4", "--out", str(committed / "trial")]) == 0
    assert {load_checkpoint(committed / "trial" / f"draft_s{seed}.pt")[1]["seed"] for seed in (3, 4)} == {3, 4}
    assert train_cli(["--model", "draft", "--seed", "3", "--seeds", "4"]) == 2
    assert "not both" in capsys.readouterr().err


def test_an_interrupted_run_leaves_the_finished_file_alone(tmp_path, data, straight):
    """Retraining on purpose (force) and dying mid-run: the finished weights are still there,
    byte for byte; the rerun resumes and only then replaces them."""
    (tmp_path / "ck").mkdir()
    finished = (straight[0] / "ck" / "tiny.pt").read_bytes()
    (tmp_path / "ck" / "tiny.pt").write_bytes(finished)
    with pytest.raises(Interrupted):
        run(tmp_path, FlakyData(data, fail_after=25), 30, snapshots=SNAPSHOTS, force=True, seed=1)
    assert (tmp_path / "ck" / "tiny.pt").read_bytes() == finished
    assert not (tmp_path / "res").exists() and not (tmp_path / "ck" / "tiny_step10.pt").exists()
    run(tmp_path, data, 30, snapshots=SNAPSHOTS, seed=1)  # the resume state says a run is under way
    assert load_checkpoint(tmp_path / "ck" / "tiny.pt")[1]["seed"] == 1


def interrupted_run(root, data, **settings):
    """A 10-step run of the tiny model killed after step 7: its resume state is at step 5."""
    with pytest.raises(Interrupted):
        run(root, FlakyData(data, fail_after=7), 10, eval_interval=5, snapshots=(), **settings)


@pytest.fixture
def trained(tmp_path, data):
    """An interrupted run of the tiny model, and what it wrote, byte for byte."""
    interrupted_run(tmp_path, data)
    return {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}


@pytest.mark.parametrize("changed, named", [
    ({"steps": 20}, "--steps 10, now 20"),
    ({"steps": 5}, "--steps 10, now 5"),
    ({"batch_size": 4, "lr": 1e-3}, "--batch 8, now 4; --lr 0.003, now 0.001"),
    ({"mtp_weight": 0.5}, "--mtp 0.3, now 0.5"),
])
def test_a_resume_with_other_settings_is_refused(tmp_path, data, trained, changed, named):
    settings = {"steps": 10, "eval_interval": 5, "snapshots": (), **changed}
    with pytest.raises(UsageError) as err:
        run(tmp_path, data, **settings)
    message = str(err.value)
    assert "\n" not in message and str(tmp_path / "ck" / "tiny.opt.pt") in message
    assert named in message and "--fresh" in message
    assert {path: path.read_bytes() for path in trained} == trained  # nothing rewritten


@pytest.mark.parametrize("keep_settings", [False, True])
def test_a_resume_state_of_another_shape_is_one_line_naming_it(tmp_path, data, trained, keep_settings):
    """The state of a wider model in the tiny one's place: refused by its recorded settings, or,
    where those were copied over too, by the weights that do not fit."""
    wide = replace(TINY, n_embd=48, mlp_hidden=96)
    interrupted_run(tmp_path / "wide", data, cfg=wide)
    state_path = tmp_path / "ck" / "tiny.opt.pt"
    state = torch.load(tmp_path / "wide" / "ck" / "tiny.opt.pt", weights_only=False)
    if keep_settings:
        state["log"]["config"] = torch.load(state_path, weights_only=False)["log"]["config"]
    torch.save(state, state_path)
    with pytest.raises(UsageError) as err:
        run(tmp_path, data, 10, eval_interval=5, snapshots=())
    message = str(err.value)
    assert "\n" not in message and str(state_path) in message and "--fresh" in message
    assert not (tmp_path / "ck" / "tiny.pt").exists()  # no weights written


def test_model_heads_trains_every_head_kind_and_nothing_else(tmp_path):
    args = SimpleNamespace(model="heads", seeds=[0, 3], out=tmp_path, fresh=False, force=False, steps=None, mtp=None)
    assert train_module.jobs_to_run(args) == [(kind, 0.0, seed) for seed in (0, 3) for kind in KINDS]
    args.model = "all"
    assert [job[0] for job in train_module.jobs_to_run(args)][:3] == ["main", "main", "draft"]
