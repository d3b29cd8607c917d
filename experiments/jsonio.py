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


def git_commit():
    try:
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT,
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "uncommitted"
    except OSError:
        return "unknown"


def meta(seeds, device="cpu", command=None):
    return {
        "device": device_name(device),
        "device_type": "cuda" if str(device).startswith("cuda") else "cpu",
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "git_commit": git_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "seeds": list(seeds),
        "command": command or invocation(),
    }


def invocation():
    """How this process was started, as a user would type it (python -m for our modules)."""
    script = Path(sys.argv[0]).resolve()
    if script.suffix == ".py" and ROOT in script.parents:
        module = ".".join(script.relative_to(ROOT).with_suffix("").parts)
        return " ".join(["python", "-m", module] + sys.argv[1:])
    return " ".join(["python"] + sys.argv)


def write_json(path, obj):
    """Write obj as JSON to path via a temp file and a rename, so no reader sees half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS) + b"\n")
    os.replace(tmp, path)


def read_json(path):
    return orjson.loads(Path(path).read_bytes())
