"""One GPT class (RMSNorm, RoPE, SwiGLU, no biases, tied head) for the main and the draft model,
the depth-1 multi-token-prediction head in DeepSeek-V3's sequential form (arXiv 2412.19437 §2.2),
and a preallocated kv-cache with a sliding window and rollback."""
import hashlib
import os
import pickle
import stat
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

from experiments.data import VOCAB_SIZE

MAX_BLOCK_SIZE = 1024  # the rope tables hold 16 × block_size positions; the trained models use 64


@dataclass
class GPTConfig:
    vocab_size: int = 65
    n_layer: int = 4
    n_embd: int = 128
    n_head: int = 4
    mlp_hidden: int = 304
    block_size: int = 64
    mtp: bool = False  # attach the depth-1 MTP head (predicts x_{t+2})

    def __post_init__(self):
        sizes = {name: getattr(self, name) for name in ("vocab_size", "n_layer", "n_embd", "n_head", "mlp_hidden",
                                                         "block_size")}
        small = [f"{name} = {value}" for name, value in sizes.items() if not isinstance(value, int) or value < 1]
        if small:
            raise ValueError(f"every size must be a whole number of at least 1, got {', '.join(small)}")
        if self.block_size > MAX_BLOCK_SIZE:
            raise ValueError(f"block_size must be at most {MAX_BLOCK_SIZE}, got {self.block_size}")
        if self.n_embd % (2 * self.n_head):  # RoPE rotates each head's dimensions in pairs
            raise ValueError(f"n_embd {self.n_embd} must be an even multiple of n_head {self.n_head}")

    @property
    def head_dim(self):
        return self.n_embd // self.n_head

    @staticmethod
    def sizes_in(state):
        """The sizes a GPT's weights imply, read from their shapes without building anything."""
        vocab_size, n_embd = state["tok_emb.weight"].shape
        layers = {key.split(".")[1] for key in state if key.startswith("blocks.")}
        return {"vocab_size": vocab_size, "n_embd": n_embd, "n_layer": len(layers),
                "mlp_hidden": state["blocks.0.mlp.w2.weight"].shape[1], "mtp": any(k.startswith("mtp.") for k in state)}


MAIN = GPTConfig(n_layer=4, n_embd=128, n_head=4, mlp_hidden=304, mtp=True)
DRAFT = GPTConfig(n_layer=1, n_embd=64, n_head=4, mlp_hidden=176, mtp=False)
ROLLBACK_MARGIN = 16  # KVCache default: enough for speculative decoding with γ <= 18 (see Runner)


def rope_tables(head_dim, n_positions, base=10000.0):
    inv_freq = 1.0 / base ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    angles = torch.outer(torch.arange(n_positions, dtype=torch.float64), inv_freq)
    return angles.cos(), angles.sin()


def apply_rope(x, cos, sin):
    """x: [..., T, D]; cos/sin: [T, D/2]. Rotates the two halves of each head as pairs."""
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)


def sliding_window(T, window, device="cpu"):
    """mask[i, j]: position i sees position j, for the `window` positions up to and including i."""
    i = torch.arange(T, device=device)
    return (i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - window)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        # written out: on the CPU this is about twice as fast as F.rms_norm at these sizes
        return x * torch.rsqrt(x.square().mean(-1, keepdim=True) + self.eps) * self.weight


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.n_head, self.head_dim = cfg.n_head, cfg.head_dim
        self.wqkv = nn.Linear(cfg.n_embd, 3 * cfg.n_embd, bias=False)
        self.wo = nn.Linear(cfg.n_embd, cfg.n_embd, bias=False)

    def forward(self, x, cos, sin, mask=None, cache=None, layer=0):
        B, T, C = x.shape
        qkv = self.wqkv(x).view(B, T, 3, self.n_head, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k = apply_rope(qkv[:2], cos, sin)  # q and k rotated together: half the small ops
        v = qkv[2]
        if cache is None:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            k, v = cache.update(layer, torch.stack((k, v)))
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.wo(y.transpose(1, 2).reshape(B, T, C))


class SwiGLU(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.w13 = nn.Linear(cfg.n_embd, 2 * cfg.mlp_hidden, bias=False)
        self.w2 = nn.Linear(cfg.mlp_hidden, cfg.n_embd, bias=False)

    def forward(self, x):
        gate, up = self.w13(x).chunk(2, dim=-1)
        return self.w2(F.silu(gate) * up)


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.attn_norm, self.attn = RMSNorm(cfg.n_embd), Attention(cfg)
        self.mlp_norm, self.mlp = RMSNorm(cfg.n_embd), SwiGLU(cfg)

    def forward(self, x, cos, sin, mask=None, cache=None, layer=0):
        x = x + self.attn(self.attn_norm(x), cos, sin, mask, cache, layer)
        return x + self.mlp(self.mlp_norm(x))


class MTPHead(nn.Module):
    """h' = W [RMSNorm(h_t); RMSNorm(Emb(x_{t+1}))], one transformer block; the caller then
    applies the main model's final norm and tied output head to predict x_{t+2}."""
    reads_layers = False  # it reads the main model's last layer (EAGLE-3's reads every one)

    def __init__(self, cfg):
        super().__init__()
        self.hidden_norm = RMSNorm(cfg.n_embd)
        self.embed_norm = RMSNorm(cfg.n_embd)
        self.proj = nn.Linear(2 * cfg.n_embd, cfg.n_embd, bias=False)
        self.block = Block(cfg)

    def forward(self, h, next_emb, cos, sin, mask=None, cache=None):
        x = self.proj(torch.cat((self.hidden_norm(h), self.embed_norm(next_emb)), dim=-1))
        return self.block(x, cos, sin, mask, cache, layer=0)

    def read(self, h):
        """The feature this head takes from the main model's output h: h itself (EAGLE-3's fuses layers)."""
        return h


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.norm = RMSNorm(cfg.n_embd)
        self.mtp = MTPHead(cfg) if cfg.mtp else None
        cos, sin = rope_tables(cfg.head_dim, 16 * cfg.block_size)
        self.register_buffer("rope_cos", cos.float(), persistent=False)
        self.register_buffer("rope_sin", sin.float(), persistent=False)
        self.checkpoint_path = None  # the file load_checkpoint read it from, for error messages
        self.apply(self._init_weights)
        for name, param in self.named_parameters():
            if name.endswith(("wo.weight", "w2.weight")):  # residual projections, GPT-2 style
                nn.init.normal_(param, std=0.02 / (2 * cfg.n_layer) ** 0.5)

    @staticmethod
    def _init_weights(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def _rope(self, start, T):
        if start + T > self.rope_cos.shape[0]:  # a long kv-cached generation: extend the tables
            cos, sin = rope_tables(self.cfg.head_dim, 2 * (start + T))
            self.rope_cos, self.rope_sin = cos.to(self.rope_cos), sin.to(self.rope_sin)
        return self.rope_cos[start:start + T], self.rope_sin[start:start + T]

    def n_params(self, module=None):
        return sum(p.numel() for p in (module or self).parameters())

    def heavy_twin(self, scale, seed=0):
        """This model scale× heavier in weights, the same function (the module function heavy_twin)."""
        return heavy_twin(self, scale, seed)

    def n_params_main(self):
        """Parameters of the next-token model alone (the MTP head excluded)."""
        return self.n_params() - (self.n_params(self.mtp) if self.mtp is not None else 0)

    def head(self, h):
        """Final norm and the output head tied to the embedding."""
        return F.linear(self.norm(h), self.tok_emb.weight)

    def trunk(self, idx, cache=None, tree=None, layers=False):
        """Hidden states h (before the final norm) of the main model for token ids idx [B, T].
        With `tree` (a trees.Tree of T nodes, root first) the positions are the nodes: each one
        sits at its depth after the cache's length and sees the window before the root and its
        own ancestors (the tree mask). layers=True: every layer's output, concatenated [B, T, L·C]
        (the last C columns are h)."""
        cos, sin, mask = self._place(idx.shape[1], cache, tree)
        x, outputs = self.tok_emb(idx), []
        for layer, block in enumerate(self.blocks):
            x = block(x, cos, sin, mask, cache, layer)
            outputs.append(x)
        return torch.cat(outputs, dim=-1) if layers else x

    def _place(self, T, cache, tree):
        """RoPE tables and attention mask for T new positions: 0.. without a cache, the cache's
        next positions with one, each node's position with a tree (KVCache.prepare_tree)."""
        if cache is None:
            if T > self.cfg.block_size:
                raise ValueError(f"sequence of {T} tokens exceeds block_size {self.cfg.block_size}")
            start, mask = 0, None
        elif tree is None:
            start, mask = cache.prepare(T)
        else:
            start, mask = cache.prepare_tree(tree)
        if tree is None:
            return (*self._rope(start, T), mask)
        depth = torch.tensor(tree.depths, device=self.rope_cos.device)
        cos, sin = self._rope(start, max(tree.depths) + 1)
        return cos[depth], sin[depth], mask

    def forward(self, idx, cache=None, tree=None, layers=False):
        """Returns (logits, h) for every position of idx [B, T] (every node of `tree`); with
        layers=True, h holds every layer's output (trunk)."""
        if cache is not None and idx.shape[1] > cache.window:  # a long prefill: window-sized chunks
            if tree is not None:
                raise ValueError(f"a tree of {idx.shape[1]} nodes exceeds the window of {cache.window}")
            outs = [self(chunk, cache, layers=layers) for chunk in idx.split(cache.window, dim=1)]
            return tuple(torch.cat(parts, dim=1) for parts in zip(*outs))
        h = self.trunk(idx, cache, tree, layers)
        return self.head(h[..., -self.cfg.n_embd:] if layers else h), h

    def mtp_forward(self, h, next_idx, cache=None, head=None):
        """MTP logits for x_{t+2} from h_t [B, T, C] and the ids of x_{t+1} [B, T]."""
        return self.head(self.mtp_features(h, next_idx, cache, head))

    def mtp_features(self, h, next_idx, cache=None, head=None, tree=None):
        """The head's output features (before the final norm) for pairs (h_t, x_{t+1}). `head` is
        any module shaped like MTPHead: the model's own by default, or an EAGLE drafter, whose
        output is a prediction of h_{t+1} (experiments/heads.py). With `tree`, the pairs are
        the nodes of a token tree (as in trunk)."""
        head = head or self.mtp
        T = next_idx.shape[1]
        if cache is not None and T > cache.window:  # a long prefill: window-sized chunks, as forward
            return torch.cat([self.mtp_features(h_part, idx_part, cache, head) for h_part, idx_part in
                              zip(h.split(cache.window, dim=1), next_idx.split(cache.window, dim=1))], dim=1)
        cos, sin, mask = self._place(T, cache, tree)
        return head(h, self.tok_emb(next_idx), cos, sin, mask, cache)

    def losses(self, idx, targets):
        """Cross-entropy of the next char and, with the MTP head, of the char after it."""
        logits, h = self(idx)
        out = {"main": F.cross_entropy(logits.flatten(0, 1), targets.flatten())}
        if self.mtp is not None:
            mtp_logits = self.mtp_forward(h[:, :-1], idx[:, 1:])
            out["mtp"] = F.cross_entropy(mtp_logits.flatten(0, 1), targets[:, 1:].flatten())
        return out

    @staticmethod
    def objective(losses, mtp_weight=0.0):
        """The loss training minimizes: L_main + λ·L_mtp (λ = mtp_weight)."""
        return losses["main"] + mtp_weight * losses["mtp"] if "mtp" in losses else losses["main"]

    def new_cache(self, window=None, mtp=False, margin=ROLLBACK_MARGIN):
        cfg = self.cfg
        return KVCache(1 if mtp else cfg.n_layer, cfg.n_head, cfg.head_dim,
                       window or cfg.block_size, margin=margin, dtype=self.tok_emb.weight.dtype,
                       device=self.tok_emb.weight.device)


class KVCache:
    """Keys and values for one sequence, preallocated. Each new position attends to itself and
    the window-1 positions before it. `length` counts every position processed so far (it is the
    absolute RoPE position of the next token); `rollback(n)` forgets positions n and later by
    moving that pointer. When the buffer is full, its last window-1+margin entries move to the
    front. The bound on rollbacks: moving happens only in prepare, just before a forward that
    starts at position s, and keeps positions s-window+1-margin .. s-1; rollback(n) needs
    n-window+1 .. n-1, so it always works for n >= s - margin, s = the furthest start of any
    forward so far (after a rollback, the next forward may start earlier than the last one)."""

    def __init__(self, n_layer, n_head, head_dim, window, margin=ROLLBACK_MARGIN, dtype=torch.float32,
                 device="cpu"):
        self.window, self.keep = window, window - 1 + margin
        self.capacity = 2 * window + margin  # room for keep + one window-sized chunk
        # [layer, k|v, batch, head, slot, head_dim]: one copy writes a step's keys and values
        self.kv = torch.zeros((n_layer, 2, 1, n_head, self.capacity, head_dim), dtype=dtype, device=device)
        self.band = sliding_window(self.capacity, window, device)  # buffer slot i may attend to slot j
        self.masks = {}
        self.offset = 0  # absolute position held in buffer slot 0
        self.length = 0

    def prepare(self, T):
        """Reserve slots for T new positions; return (absolute start, attention mask or None)."""
        if T > self.window:
            raise ValueError(f"feed at most {self.window} positions per call, got {T}")
        used = self.length - self.offset
        if used + T > self.capacity:
            keep = min(self.keep, used)
            self.kv[..., :keep, :] = self.kv[..., used - keep:used, :].clone()
            self.offset = self.length - keep
            used = keep
        self.first = used
        self.lo, self.hi = max(0, used - self.window + 1), used + T
        start = self.length
        self.length += T
        if T == 1:
            return start, None
        # the band is Toeplitz, so the mask depends only on T and how far back the keys start:
        # build each shape once, contiguous (SDPA is much slower on a strided mask)
        key = (T, self.first - self.lo)
        if key not in self.masks:
            self.masks[key] = self.band[self.first:self.hi, self.lo:self.hi].contiguous()
        return start, self.masks[key]

    def prepare_tree(self, tree):
        """prepare() for the nodes of a tree, root first: node i sits at position start + its
        depth and sees the positions before the root that are within the window of its own
        position, and its ancestors and itself."""
        start, _ = self.prepare(len(tree.tokens))
        depth = torch.tensor(tree.depths, device=self.kv.device)
        cached = torch.arange(self.offset + self.lo, self.offset + self.first, device=self.kv.device)
        seen = cached[None, :] > start + depth[:, None] - self.window
        return start, torch.cat((seen, tree.ancestors().to(self.kv.device)), dim=1)

    def keep_path(self, start, path):
        """After a tree forward from `start`: keep the root and the nodes `path` (its accepted
        branch, top down) as positions start, start + 1, ...; forget every other node."""
        root = self.first
        if path:
            src = torch.tensor([root + node for node in path], device=self.kv.device)
            self.kv[..., root + 1:root + 1 + len(path), :] = self.kv.index_select(4, src)
        self.rollback(start + 1 + len(path))

    def update(self, layer, kv):
        """Store this step's keys and values ([2, B, H, T, D]); return all the visible ones."""
        self.kv[layer, :, :, :, self.first:self.hi] = kv
        visible = self.kv[layer, :, :, :, self.lo:self.hi]
        return visible[0], visible[1]

    def rollback(self, length):
        kept = length - self.offset
        if length > self.length or kept < min(length, self.window - 1):
            raise ValueError(f"cannot roll back to {length}: cache holds positions "
                             f"{self.offset}..{self.length - 1}")
        self.length = length

    def snapshot(self):
        """The keys and values that the next position would attend to (for tests)."""
        used = self.length - self.offset
        lo = max(0, used - self.window + 1)
        visible = self.kv[..., lo:used, :].clone()
        return visible[:, 0], visible[:, 1]


def save_atomic(payload, path):
    """torch.save through a temp file and a rename: an interrupted write never leaves half a file."""
    tmp = f"{path}.tmp"
    torch.save(payload, tmp)
    os.replace(tmp, path)


class CheckpointError(ValueError):
    """Weights that cannot be trusted (not finite, or not what was saved); the message names the
    file and the tensor."""


def checksums(state):
    """sha256 (16 hex digits) of each tensor's bytes: a checkpoint records them, loading checks them."""
    return {name: hashlib.sha256(t.detach().cpu().contiguous().numpy().tobytes()).hexdigest()[:16]
            for name, t in state.items()}


def check_weights(payload, path):
    """A CheckpointError for the first tensor of payload["model"] that is not finite or whose bytes
    differ from the checksum the file records. A file that records no checksums (saved before they
    existed) is only checked for finiteness, and one note says so."""
    recorded = payload.get("sha256")
    if recorded is None:
        print(f"note: {path} records no checksums: its weights are checked only for being finite", file=sys.stderr)
    elif not isinstance(recorded, dict) or not all(isinstance(v, str) for v in recorded.values()):
        raise CheckpointError(f"{path}: field sha256 should map each tensor to its checksum, got "
                              f"{type(recorded).__name__}: {CORRUPT}")
    for name, now in checksums(payload["model"]).items():
        tensor = payload["model"][name]
        bad = (~torch.isfinite(tensor)).sum().item() if tensor.is_floating_point() else 0
        if bad:
            raise CheckpointError(f"{path}: tensor {name} holds {bad} NaN or infinite value(s): {CORRUPT}")
        if recorded is not None and recorded.get(name) != now:
            raise CheckpointError(f"{path}: tensor {name} does not match the checksum the file records"
                                  f"{'' if name in recorded else ' (it records none for it)'}: {CORRUPT}")


REMEDY = "retrain it with make data, or restore a committed one with git checkout"
CORRUPT = f"the file is corrupt ({REMEDY})"


def check_config(cfg, state, path):
    """A config is trusted only where its weights agree with it (cfg.sizes_in: the sizes their shapes
    imply), checked before any module is built: a config of 10**6 layers would allocate them first."""
    wrong = [f"config.{name} is {getattr(cfg, name)} but the weights hold {value}"
             for name, value in cfg.sizes_in(state).items() if getattr(cfg, name) != value]
    if wrong:
        raise CheckpointError(f"{path}: {'; '.join(wrong)}: the file's config does not describe its weights ({REMEDY})")


UNREADABLE = (pickle.UnpicklingError, EOFError, KeyError, TypeError, ValueError, AttributeError, RuntimeError, OSError)


def read_checkpoint(path, device, config_type, what):
    """(config, payload) of a checkpoint file, its config checked against its weights and the
    weights against their checksums, before anything is built; a CheckpointError naming the file
    for anything else (`what` says what the file should have been)."""
    checkpoint_file(path)
    try:
        payload = torch.load(path, map_location=device, weights_only=True)
        cfg = config_type(**payload["config"])
        check_config(cfg, payload["model"], path)
        check_weights(payload, path)
    except CheckpointError:
        raise
    except UNREADABLE as err:
        raise CheckpointError(f"{path} is not {what}, or it is cut short or corrupt "
                              f"({type(err).__name__}: {first_line(err)})") from None
    return cfg, payload


def checkpoint_file(path):
    """The path of a checkpoint to read, or a CheckpointError saying what is there instead."""
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"{path} not found: run `make data` (or python -m experiments.train) to train it")
    if path.is_dir():
        raise CheckpointError(f"{path} is a folder, not a checkpoint file")
    if not stat.S_ISREG(path.stat().st_mode):
        raise CheckpointError(f"{path} is not a regular file (a device or a pipe), not a checkpoint")
    return path


def widen(mlp, extra, generator):
    """Add `extra` SwiGLU units to mlp: input weights random (std 0.02, the init's), output weights
    zero. They add exactly 0 to the residual stream, so the function is the same, but a forward
    reads all their weights, as a larger model's does."""
    C, H = mlp.w2.out_features, mlp.w2.in_features
    w13, w2 = mlp.w13.weight.detach(), mlp.w2.weight.detach()
    new = (0.02 * torch.randn(2, extra, C, generator=generator)).to(w13)
    mlp.w13 = nn.Linear(C, 2 * (H + extra), bias=False).to(w13)
    mlp.w2 = nn.Linear(H + extra, C, bias=False).to(w2)
    with torch.no_grad():  # gate rows then up rows, each old then new: w13(x).chunk(2) still splits them
        mlp.w13.weight.copy_(torch.cat((w13[:H], new[0], w13[H:], new[1])))
        mlp.w2.weight.copy_(torch.cat((w2, w2.new_zeros(C, extra)), dim=1))


def heavy_twin(network, scale, seed=0):
    """Make `network` about `scale` times heavier in weights, in place, by widening all its SwiGLU
    blocks alike (widen): the same function, scale× the bytes a forward reads. A GPT's MTP head is
    a network of its own, scaled by the same factor. Returns the network."""
    if scale < 1:
        raise ValueError(f"scale must be at least 1, got {scale}")
    if scale == 1:
        return network
    generator = torch.Generator().manual_seed(seed)
    head = getattr(network, "mtp", None)
    in_head = {id(m) for m in head.modules()} if head is not None else set()
    trunk = [m for m in network.modules() if isinstance(m, SwiGLU) and id(m) not in in_head]
    head_params = sum(p.numel() for p in head.parameters()) if head is not None else 0
    groups = [(trunk, sum(p.numel() for p in network.parameters()) - head_params)]
    if head is not None:
        groups.append(([m for m in head.modules() if isinstance(m, SwiGLU)], head_params))
    for mlps, params in groups:
        if not mlps:
            raise ValueError(f"{type(network).__name__} has no SwiGLU block to widen")
        extra = round((scale - 1) * params / (3 * mlps[0].w2.out_features * len(mlps)))
        with torch.inference_mode(False):  # ordinary parameters even when called under inference_mode
            for mlp in mlps:
                widen(mlp, extra, generator)
    if isinstance(network, GPT):  # every trunk block is as wide: the native engine reads the width here
        network.cfg = replace(network.cfg, mlp_hidden=network.blocks[0].mlp.w2.in_features)
    return network


def first_line(err):
    """The first sentence of an error's message (torch's run on for lines)."""
    return (str(err).strip().splitlines() or [""])[0].split(". ")[0]


def save_checkpoint(path, model, extra=None):
    """Weights + config + their checksums (+ whatever `extra` records), written atomically."""
    state = model.state_dict()
    save_atomic({"config": asdict(model.cfg), "model": state, "sha256": checksums(state), **(extra or {})}, path)


def load_checkpoint(path, device="cpu"):
    """(model, payload) of a checkpoint save_checkpoint wrote; a CheckpointError naming the file
    for one that is missing, cut short, corrupt, of no model this code builds or of a vocabulary
    other than the data's."""
    cfg, payload = read_checkpoint(path, device, GPTConfig, "a checkpoint written by experiments.train")
    if cfg.vocab_size != VOCAB_SIZE:
        raise CheckpointError(f"{path}: config.vocab_size is {cfg.vocab_size}, but tiny shakespeare has "
                              f"{VOCAB_SIZE} characters: a model of another vocabulary cannot read or write this text")
    model = GPT(cfg)
    try:
        model.load_state_dict(payload["model"])
    except RuntimeError as err:  # a tensor missing or extra, beyond the sizes checked
        raise CheckpointError(f"{path} is not a checkpoint written by experiments.train ({first_line(err)})") from None
    model.to(device).eval()
    model.checkpoint_path = Path(path)
    return model, payload


def fingerprint(model):
    """A short hash of the weights, the same in float32 and float64 and on any device: it tells
    whether two models are the same checkpoint (a drafter records its main model's)."""
    digest = hashlib.sha256()
    for key, tensor in sorted(model.state_dict().items()):
        digest.update(key.encode())
        digest.update(tensor.detach().to("cpu", torch.float32).contiguous().numpy().tobytes())
    return digest.hexdigest()[:12]
