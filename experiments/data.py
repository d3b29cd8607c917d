"""Tiny shakespeare: find it, verify it, turn it into character ids and batches."""
import hashlib
import os
import urllib.request
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
SHA256 = "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"
VOCAB_SIZE = 65  # the distinct characters of the file of that checksum: every model's vocabulary
URL = "https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt"
LOCAL = ROOT / "data" / "tinyshakespeare.txt"
SHARED = ROOT.parent / "shared" / "data" / "tinyshakespeare.txt"


class DataError(RuntimeError):
    pass


def sha256_of(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def find_data():
    """Return the path of a verified tinyshakespeare.txt, downloading it if no copy is found."""
    override = os.environ.get("TINYSHAKESPEARE")
    candidates = [Path(override)] if override else [LOCAL, SHARED]
    for path in candidates:
        if path.is_dir():
            fix = "point it at the file itself" if override else "remove it and rerun (the file is downloaded there)"
            raise DataError(f"{'TINYSHAKESPEARE=' if override else ''}{path} is a folder, not the data file "
                            f"tinyshakespeare.txt: {fix}")
        if path.exists():
            try:
                digest = sha256_of(path)
            except OSError as err:
                raise DataError(f"{path} cannot be read ({err.strerror or err})") from None
            if digest != SHA256:
                fix = ("point TINYSHAKESPEARE at the right file or unset it" if override else
                       f"delete it (or fix it) and rerun; the project will download a fresh copy to {LOCAL}")
                raise DataError(f"{path} has sha256 {digest}, expected {SHA256}: {fix}.")
            return path
    if override:
        raise DataError(f"TINYSHAKESPEARE={override} does not exist.")
    print(f"tiny shakespeare not found at {LOCAL} or {SHARED}; downloading {URL}")
    try:
        with urllib.request.urlopen(URL, timeout=60) as response:
            payload = response.read()
    except OSError as err:
        raise DataError(
            f"could not download {URL} ({err}). Put the file at {LOCAL} "
            f"(sha256 {SHA256}), or point the TINYSHAKESPEARE environment variable at it, and rerun.") from err
    if hashlib.sha256(payload).hexdigest() != SHA256:
        raise DataError(f"the file downloaded from {URL} does not have sha256 {SHA256}.")
    LOCAL.parent.mkdir(parents=True, exist_ok=True)
    tmp = LOCAL.with_suffix(".tmp")
    tmp.write_bytes(payload)
    os.replace(tmp, LOCAL)
    return LOCAL


class CharData:
    """Character vocabulary (sorted set of the text's chars) and the 90/10 train/val split."""

    def __init__(self, path=None):
        self.path = Path(path) if path else find_data()
        text = self.path.read_text(encoding="utf-8")
        self.chars = sorted(set(text))
        self.stoi = {ch: i for i, ch in enumerate(self.chars)}
        ids = torch.tensor(self.encode(text), dtype=torch.long)
        n_train = int(0.9 * len(ids))
        self.train, self.val = ids[:n_train], ids[n_train:]
        self.n_chars = len(text)

    @property
    def vocab_size(self):
        return len(self.chars)

    def encode(self, text):
        unknown = sorted(set(text) - self.stoi.keys())
        if unknown:
            raise ValueError(f"characters not in the vocabulary: {''.join(unknown)!r}")
        return [self.stoi[ch] for ch in text]

    def decode(self, ids):
        return "".join(self.chars[i] for i in ids)

    def batch(self, split, batch_size, block_size, generator):
        """Random windows of block_size+1 chars: inputs x and next-char targets y."""
        data = self.train if split == "train" else self.val
        starts = torch.randint(len(data) - block_size - 1, (batch_size,), generator=generator)
        window = torch.stack([data[s:s + block_size + 1] for s in starts.tolist()])
        return window[:, :-1], window[:, 1:]
