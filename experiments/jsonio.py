"""The one JSON writer: every results file gets a `meta` block and is written atomically."""
import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

import orjson
import torch

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "experiments" / "results"


def device_name(device="cpu"):
    if str(device).startswith("cuda"):
        return torch.cuda.get_device_name(torch.device(device))
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_details():
    """The CPU's family, model and last-level cache, from /proc/cpuinfo and sysfs: two hosts with the
    same model name can time the same code differently (None off Linux)."""
    try:
        fields = dict(line.split(":", 1) for line in Path("/proc/cpuinfo").read_text().split("\n\n")[0].splitlines()
                      if ":" in line)
    except OSError:
        return None
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    caches = sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"))
    last = caches[-1] if caches else None
    return {"vendor": fields.get("vendor_id"), "family": fields.get("cpu family"), "model": fields.get("model"),
            "last_level_cache": (last / "size").read_text().strip() if last and (last / "size").exists() else None}


def run_git(*args):
    """stdout of a git command in the repository, or None where git or the repository is missing."""
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def git_state():
    """The commit checked out and whether tracked files differ from it. Read it when a run
    starts: the commit at write time may be a later one than the code that ran."""
    commit = run_git("rev-parse", "--short=12", "HEAD")
    changes = run_git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit or "unknown", "dirty": bool(changes) if changes is not None else None}


def meta(seeds, device="cpu", command=None, git=None):
    """The meta block of a results file. `git`: git_state() from the start of the run (read now
    if not given)."""
    git = git or git_state()
    return {
        "device": device_name(device),
        "device_type": "cuda" if str(device).startswith("cuda") else "cpu",
        "cpu": cpu_details(),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "git_commit": git["commit"],
        "git_dirty": git["dirty"],
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "seeds": list(seeds),
        "command": command or invocation(),
    }


def invocation():
    """How this process was started, as a user would type it (python -m for our modules)."""
    script = Path(sys.argv[0]).resolve()
    if script.suffix == ".py" and ROOT in script.parents:
        module = ".".join(script.relative_to(ROOT).with_suffix("").parts).removesuffix(".__main__")
        return " ".join(["python", "-m", module] + sys.argv[1:])
    return " ".join(["python"] + sys.argv)


def write_json(path, obj):
    """Write obj as JSON to path via a temp file and a rename, so no reader sees half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS) + b"\n")
    os.replace(tmp, path)


class UnreadableJSON(ValueError):
    """A JSON file that is missing or not valid JSON (cut short, edited by hand): the message names it."""


def read_json(path):
    try:
        return orjson.loads(Path(path).read_bytes())
    except FileNotFoundError:
        raise UnreadableJSON(f"{path} not found: run the command that writes it (make data or make measure)") from None
    except orjson.JSONDecodeError as err:
        raise UnreadableJSON(f"{path} is not valid JSON ({err}): cut short? restore it with git checkout, "
                             f"or rerun the command that writes it (make data or make measure)") from None
