"""`python -m experiments.measure`'s refusals: bad options, a checkpoint or a training log cut short,
a folder without training logs, a seed with no trained models, a native kernel this machine lacks.
Each is one line on stderr, `error: ...`, exit code 2, before any measurement starts, and nothing
is written."""
from experiments import native
from experiments.measure.__main__ import main as measure_main
from tests.helpers import CHECKPOINTS, ROOT, assert_one_line_error, one_line_error, tool


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


def test_a_native_kernel_this_machine_lacks_or_a_bad_name_is_one_line_from_measure_too(monkeypatch, capsys):
    monkeypatch.setattr(native, "available_kernels", lambda: ["avx2", "portable"])
    for kernel, words in [("avx512", ["NATIVE_KERNEL avx512", "runs only avx2, portable"]),
                          ("sse9", ["must be one of"])]:
        monkeypatch.setenv("NATIVE_KERNEL", kernel)
        assert measure_main(["--only", "costs", "--seeds", "0", "--engines", "native"]) == 2
        out = capsys.readouterr()
        assert out.out == "" and out.err.count("\n") == 1 and all(w in out.err for w in words), out.err


def test_measure_names_the_folder_without_training_logs(tmp_path):
    """--results pointing at a folder with no train_*.json: the error names that folder."""
    out = tool("measure", "--only", "causal", "--results", str(tmp_path))
    assert_one_line_error(out, f"training logs (train_*.json) in {tmp_path}")


def test_measure_refuses_an_untrained_seed_before_it_starts(capsys):
    assert measure_main(["--seeds", "5", "--only", "models"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.startswith("error: --seeds: seed 5 has no full set") and out.err.count("\n") == 1


def test_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    assert measure_main(["--threads", "0"]) == 2
    assert measure_main(["--device", "foo"]) == 2
    assert measure_main(["--checkpoints", str(tmp_path)]) == 2
    bad = tmp_path / "tiny.txt"
    bad.write_text("not shakespeare")
    monkeypatch.setenv("TINYSHAKESPEARE", str(bad))
    assert measure_main(["--only", "models", "--seeds", "0", "--results", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 4 and all(line.startswith("error: ") for line in err), err
    assert "sha256" in err[-1]
