"""One error style for the command-line tools (generate, train, measure, exercises): bad input or a
missing file prints one line, `error: ...`, on stderr and exits with code 2; no traceback."""
import argparse
import os
import sys

import torch

from experiments.data import DataError
from experiments.jsonio import UnreadableJSON
from experiments.model import CheckpointError, load_checkpoint

MAX_SEED = 2 ** 63 - 1  # torch generators take 64-bit seeds; keep them non-negative and signed-safe


class UsageError(Exception):
    """Input the user can fix: the message says what was wrong and what is allowed."""


class DefaultsShown(argparse.HelpFormatter):
    """--help appends each flag's default, where it has one (None: the help text says what happens)."""

    def _get_help_string(self, action):
        shown = all(action.default is not x for x in (None, argparse.SUPPRESS, False)) and "%(default)" not in (action.help or "")
        return f"{action.help} (default: %(default)s)" if shown and action.help else action.help


class ArgumentParser(argparse.ArgumentParser):
    """argparse with the same one-line error as run_cli: `error: ...` and exit code 2, no usage
    dump (`--help` still prints it). Subcommand parsers inherit the class."""

    def error(self, message):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def run_cli(run, args):
    """run(args) -> exit code; input the user can fix (UsageError, DataError, a checkpoint or a
    results file that is missing, cut short or corrupt) becomes one line and exit code 2."""
    try:
        return run(args)
    except (UsageError, DataError, CheckpointError, UnreadableJSON) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


def check_device(name):
    """A device torch knows and this machine has: 'cpu', or 'cuda[:i]' with CUDA available."""
    try:
        device = torch.device(name)
    except RuntimeError:
        raise UsageError(f"--device {name!r} is not a device (use cpu or cuda)") from None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise UsageError(f"--device {name}: CUDA is not available on this machine (use --device cpu)")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise UsageError(f"--device {name}: this machine has {torch.cuda.device_count()} CUDA device(s)")
    elif device.type != "cpu":
        raise UsageError(f"--device {name}: only cpu and cuda are supported")
    elif device.index not in (None, 0):
        raise UsageError(f"--device {name}: torch sees the CPU as one device, cpu (its cores are --threads)")
    return str(device)


def check_threads(threads):
    """1 .. the machine's cores: torch starts one OS thread per requested thread."""
    cores = os.cpu_count() or 1
    if not 1 <= threads <= cores:
        raise UsageError(f"--threads must be between 1 and {cores} (this machine's cores), got {threads}")
    return threads


def check_seed(seed, flag="--seed"):
    if not 0 <= seed <= MAX_SEED:
        raise UsageError(f"{flag} must be between 0 and {MAX_SEED}, got {seed}")
    return seed


def check_folder(path, flag, holds):
    """A folder the user named: a missing one or a file in its place is one line, not a path inside it."""
    if not path.exists():
        raise UsageError(f"{flag} {path} not found: it should be a folder of {holds}")
    if not path.is_dir():
        raise UsageError(f"{flag} {path} is a file, not a folder of {holds}")
    return path


def open_checkpoint(path, device, flag="--checkpoint"):
    """load_checkpoint (model, payload) for a path the user gave; a missing file or one that
    experiments.train did not write is a UsageError. Check the device first."""
    try:
        return load_checkpoint(path, device)
    except CheckpointError as err:
        raise UsageError(f"{flag} {err}") from None
