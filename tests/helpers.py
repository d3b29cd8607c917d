"""What more than one test file uses, in one place: paths, the results files, the command-line
runners and their one-line error checks, the exact law of the first three characters and its
chi-square test, the tiny training run's failures, the engines' feed schedule, and the browser's
deep-dive opener. Test files import these names from here (`from tests.helpers import ...`), never
from another test file or a conftest.py; fixtures come from the conftest.py files, by pytest's
injection (tests/conftest.py for the whole suite, a folder's own for what only that folder uses)."""
import copy
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch
from scipy import stats

from chapter import build
from chapter.views.rows import paired_verdict
from experiments import aot
from experiments.generate import main as generate_main
from experiments.jsonio import RESULTS, read_json
from experiments.methods import FAMILIES
from experiments.rule import probs_from_logits
from experiments.runners import Runner

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
CHECKPOINTS = ROOT / "experiments" / "checkpoints"
LONG_PROMPT = "First Citizen:\nBefore we proceed any further, hear me speak.\n\nAll:\nSpeak, speak."  # 80 chars

# AOT packages in tests are built without the chapter's inductor options (freezing, max_autotune):
# tuning a GEMM kernel for each linear's shape is most of a package's build time on a fresh cache
# (about 30 s of 40-55 s here) and changes nothing the tests check but speed. tests/conftest.py's
# quick_aot_packages clears them for the session; the one test that builds with the chapter's own
# options asks for them with the `chapter_aot_options` fixture (tests/engines/conftest.py).
CHAPTER_AOT_OPTIONS = dict(aot.INDUCTOR_CONFIGS)


def results(name):
    """A results file the experiments wrote, or a failure that says how to make it."""
    path = RESULTS / f"{name}.json"
    assert path.exists(), f"{path} is missing: run `make measure`"
    return read_json(path)


def open_deep(page, *names):
    """Open deep dives (<details class="deep" id="deep-NAME">) as a reader does, by their summary."""
    for name in names:
        box = page.locator(f"#deep-{name}")
        if box.get_attribute("open") is None:
            box.locator("> summary").click()


# ---- the command-line tools ----

def tool(name, *args, env=None):
    """`python -m experiments.NAME ARGS` in a process of its own, from the repository's root."""
    return subprocess.run([sys.executable, "-m", f"experiments.{name}", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})})


def generate(*args):
    return tool("generate", *args)


def generate_quick(*args):
    """generate's exit status for a 5-character run without warm-up, in this process."""
    return generate_main(["--n", "5", "--warmup", "0", *map(str, args)])


def assert_one_line_error(out, message):
    assert out.returncode == 2, out.stderr
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert lines[0].startswith("error: ") and message in lines[0], lines[0]


def one_line_error(out, *words, progress=False):
    """rc 2, one `error:` line naming each of words, nothing on stdout (but measure's progress lines)."""
    assert out.returncode == 2 and (progress or out.stdout == ""), out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    for word in words:
        assert word in lines[0], lines[0]


def one_error_line(capsys, prefix="error: "):
    """The one line a refused command printed on stderr (and nothing on stdout)."""
    out = capsys.readouterr()
    assert out.out == "" and out.err.startswith(prefix) and out.err.count("\n") == 1, out
    return out.err


def files_under(folder):
    return sorted(path.relative_to(folder) for path in folder.rglob("*"))


def tampered(tmp_path, source, change, name=None):
    """A copy of a committed checkpoint with change(payload) applied."""
    payload = torch.load(CHECKPOINTS / source, weights_only=True)
    change(payload)
    path = tmp_path / (name or source)
    torch.save(payload, path)
    return path


def config_change(**fields):
    return lambda payload: payload["config"].update(fields)


# ---- decoding ----

def exact_law_of_three(main, prompt):
    """P(x1), P(x2), P(x3) after the prompt under the main model (plain decoding, T = 1),
    by enumerating every two-char continuation in one batched forward."""
    V = main.cfg.vocab_size
    with torch.inference_mode():
        p1 = probs_from_logits(main(torch.tensor([prompt]))[0][0, -1], 1.0)
        pairs = torch.cartesian_prod(torch.arange(V), torch.arange(V))
        seqs = torch.cat([torch.tensor(prompt).expand(V * V, -1), pairs], 1)
        logits = main(seqs)[0]
        p2_given_1 = probs_from_logits(logits[::V, -2], 1.0)         # [x1, x2]
        p3_given_12 = probs_from_logits(logits[:, -1], 1.0)          # [(x1, x2), x3]
    joint12 = p1[:, None] * p2_given_1
    p3 = (joint12.reshape(-1, 1) * p3_given_12).sum(0)
    return p1, joint12.sum(0), p3


def chi_square_pvalue(samples, law):
    counts = np.bincount(samples, minlength=len(law)).astype(float)
    expected = law.numpy() * len(samples)
    assert counts[expected == 0].sum() == 0
    big = expected >= 5  # pool the rare chars into one bin
    observed = np.append(counts[big], counts[~big].sum())
    expected = np.append(expected[big], expected[~big].sum())
    keep = expected > 0
    return stats.chisquare(observed[keep], expected[keep]).pvalue


def largest_gamma(models, method):
    """The largest γ generate accepts for a chain of this method."""
    if method == "mtp":
        return 1
    head = models.heads.get(method)
    return head.max_drafts if FAMILIES[method].source == "heads" and head.max_drafts else models.main.cfg.block_size - 1


# ---- the engines ----

def feed_schedule(seed, steps=120):
    """A prompt, then feeds of 1-5 new tokens, some followed by a rollback of 1-4 of them, as
    speculative decoding does; it runs well past the 64-position window."""
    rng = random.Random(seed)
    seq = [rng.randrange(65) for _ in range(9)]
    plan = [(list(seq), None)]
    for _ in range(steps):
        seq = seq + [rng.randrange(65) for _ in range(rng.randint(1, 5))]
        keep = len(seq) - rng.randint(1, 4) if rng.random() < 0.5 else None
        plan.append((list(seq), keep))
        if keep is not None:
            seq = seq[:keep] + [rng.randrange(65)]
    return plan


def max_logit_gap(model, runner, seed):
    """The largest gap of the runner's logits and hidden states (every layer's with runner.layers)
    from the eager runner's along feed_schedule."""
    eager = Runner(model, "kvcache", margin=8, layers=runner.layers)
    gap = 0.0
    with torch.inference_mode():
        for seq, keep in feed_schedule(seed):
            expected, expected_h, start = eager.extend(seq)
            got, got_h, got_start = runner.extend(seq)
            assert got_start == start and got.shape == expected.shape and got_h.shape == expected_h.shape
            gap = max(gap, (got - expected).abs().max().item(), (got_h - expected_h).abs().max().item())
            if keep is not None:
                eager.truncate(keep)
                runner.truncate(keep)
    return gap


# ---- training (a tiny run that fails mid-way) ----

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


def dipped():
    """The committed results with a dip made in the heaviest scale's fastest family at a middle scale (slower
    there than at both neighbours, its in-loop verify the dearest of its line), and a rerun of that dial on the
    same machine, from a later commit, without the dip: what a dip and its rerun look like on the page."""
    data = copy.deepcopy(build.load_results())
    points = data["regime"]["points"]
    family = points[-1]["best"]["T1"][0]["family"]
    row_at = lambda point: next(r for r in point["best"]["T1"] if r["family"] == family)
    rerun = copy.deepcopy(data["regime"])
    rerun["meta"] = {**rerun["meta"], "git_commit": "0123456789ab", "date": "2099-01-01T00:00:00Z"}
    mid = len(points) // 2
    row = row_at(points[mid])
    speedup = 0.8 * min(row_at(points[mid - 1])["speedup"], row_at(points[mid + 1])["speedup"])
    row["verify_over_main"] = 0.3 + max(row_at(p)["verify_over_main"] for p in points)
    row["speedup"], row["speedup_runs"] = speedup, {**row["speedup_runs"], "median": speedup, "min": 0.95 * speedup,
                                                      "max": 1.05 * speedup}
    row["verdict"] = paired_verdict(row["speedup_runs"])
    again = row_at(rerun["points"][mid])
    assert again["speedup"] > speedup  # the rerun's row, as measured, is faster there: no dip in the rerun
    return data, rerun, family
