"""Drafters that read the main model's own features, trained while the main model stays frozen.

- Medusa-1 heads (Cai et al. 2024, arXiv 2401.10774): K residual blocks z + SiLU(W_k z) on the
  main model's last hidden state z (after its final norm), each followed by the main model's
  tied output head. Head k predicts x_{t+k+1} from the state at t, so one main forward gives all
  K drafts at once; none of them sees the drafts before it.
- An EAGLE-style feature drafter (Li et al. 2024, arXiv 2401.15077): one transformer layer that
  reads [the main model's feature h_t; the embedding of x_{t+1}] through an fc from 2d to d and
  predicts the next feature h_{t+1}; the main model's head turns that into a distribution for
  x_{t+2}. Because its output lives in the same space as its input, it can draft a chain by
  feeding its own predicted features back in.
- An EAGLE-3-style drafter (Li et al. 2025, arXiv 2503.01840): the EAGLE layer, but it reads
  every layer's output of the main model fused by one linear layer (EAGLE-3 fuses a low, a middle
  and a high layer; this main model has four, so all four), it is trained on tokens only (the
  main model's distribution; no feature regression), and it is trained by "training-time test":
  for k steps it runs on its own previous outputs, with the attention it will have when drafting
  (its own earlier drafts of the same round, and the main model's real features before them).
- A block-parallel drafter, in the style of DFlash (a block-diffusion drafter; vLLM's speculators
  docs): one forward of one transformer block over K + 1 positions, the anchor [h_t; x_{t+1}]
  fused as in the MTP head and then K learned mask positions, drafts x_{t+2} .. x_{t+K+1} at
  once. Drafting costs one call whatever γ is; the drafts do not see each other's tokens, only
  the block's hidden states. Simplified: DFlash denoises a block with bidirectional attention;
  here the block is causal, so the first g outputs do not depend on how many masks follow and one
  trained block drafts any γ <= K, and it is trained for one step (no diffusion).

The EAGLE drafter has exactly the shape of this chapter's MTP head (`model.MTPHead`, which also
normalizes its two inputs); the difference is what it is trained to produce (the next feature,
by regression, plus a cross-entropy on the main model's own distribution) and that the main model
is frozen. `python -m experiments.train --model medusa|eagle|eagle3|block` trains them.
"""
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

from experiments.model import (MAX_BLOCK_SIZE, REMEDY, Block, CheckpointError, MTPHead, RMSNorm, SwiGLU, fingerprint,
                               heavy_twin, load_checkpoint, read_checkpoint)
from experiments.cli import UsageError
from experiments.engine import ENGINES, Plan, make_runner
from experiments.rule import probs_from_logits, sample
from experiments.runners import DrafterBase
from experiments.trees import best_first, top_choices

@dataclass
class HeadsConfig:
    kind: str                    # a key of KINDS: "medusa", "eagle", "block" or "eagle3"
    main: str                    # checkpoint name of the frozen main model they read, e.g. main_s0
    n_heads: int = 3             # Medusa: heads for x_{t+2} .. x_{t+K+1}
    n_masks: int = 8             # block: mask positions for x_{t+2} .. x_{t+K+1}
    anchor_stride: int = 4       # block: train on every 4th anchor of a window (each is its own forward)
    ttt_steps: int = 4           # EAGLE-3: self-fed steps of training-time test
    block_size: int = 64         # training windows (the main model's)
    cls_weight: float = 0.1      # EAGLE: weight of the token loss beside the feature regression
    feature_noise: float = 0.1   # EAGLE: U(-a, a) noise on the input features while training

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {tuple(KINDS)}, got {self.kind!r}")
        if not isinstance(self.main, str):
            raise ValueError(f"main must name a checkpoint, got {type(self.main).__name__}")
        sizes = {name: getattr(self, name) for name in ("n_heads", "n_masks", "anchor_stride", "ttt_steps", "block_size")}
        bad = [f"{name} = {value}" for name, value in sizes.items()
               if not isinstance(value, int) or not 1 <= value <= MAX_BLOCK_SIZE]
        if bad:
            raise ValueError(f"every size must be a whole number from 1 to {MAX_BLOCK_SIZE}, got {', '.join(bad)}")

    def sizes_in(self, state):
        """The sizes of this config that the drafter's weights fix (Medusa's heads, the block's masks)."""
        return KINDS[self.kind].sizes_in(state)


class MedusaHeads(nn.Module):
    def __init__(self, n_embd, n_heads):
        super().__init__()
        self.res = nn.ModuleList(nn.Linear(n_embd, n_embd, bias=False) for _ in range(n_heads))
        for linear in self.res:  # zero: every head starts as the main model's own next-token head
            nn.init.zeros_(linear.weight)
        self.ballast = nn.ModuleList()  # a heavy twin's zero-output SwiGLU units, one per head (add_ballast)

    def forward(self, z):
        """z [..., C], the main model's normed last hidden state -> [..., K, C]."""
        heads = [z + F.silu(linear(z)) for linear in self.res]
        heads = [x + ballast(z) for x, ballast in zip(heads, self.ballast)] or heads
        return torch.stack(heads, dim=-2)

    def add_ballast(self, cfg):
        """One SwiGLU of no units per head, for heavy_twin to widen: the heads have no block of their own."""
        self.ballast = nn.ModuleList(SwiGLU(replace(cfg, mlp_hidden=1)) for _ in self.res)
        with warnings.catch_warnings():  # a Linear of no units has nothing to initialize: torch warns
            warnings.simplefilter("ignore", UserWarning)
            for mlp in self.ballast:
                mlp.w13, mlp.w2 = nn.Linear(cfg.n_embd, 0, bias=False), nn.Linear(0, cfg.n_embd, bias=False)


class FusedLayer(MTPHead):
    """EAGLE-3's drafter layer: the MTP head's shape over (g_t, x_{t+1}), where g_t = W [h^1_t; ..;
    h^L_t] fuses the main model's layer outputs (`read`). Its output feature goes to the main
    model's head for x_{t+2}, and is the feature of the next position when it drafts a chain."""

    def __init__(self, cfg):
        super().__init__(cfg)
        self.fuse = nn.Linear(cfg.n_layer * cfg.n_embd, cfg.n_embd, bias=False)

    reads_layers = True

    def read(self, layers):
        return self.fuse(layers)


class StepKeys:
    """The cache of training-time test: each step's keys and values, kept in order, so that step
    j attends to steps 1..j at once (its mask says which rows)."""

    def __init__(self):
        self.kv = []

    def update(self, layer, kv):
        self.kv.append(kv)
        both = torch.cat(self.kv, dim=-2)
        return both[0], both[1]


class ParallelBlock(nn.Module):
    """The block drafter's net: the anchor h' = W [RMSNorm(h_t); RMSNorm(Emb(x_{t+1}))] (the MTP
    head's fusion), then K learned mask embeddings, through one causal transformer block; output i
    (1-based) is a feature for x_{t+1+i}, for the main model's final norm and head."""

    def __init__(self, cfg, n_masks):
        super().__init__()
        self.hidden_norm, self.embed_norm = RMSNorm(cfg.n_embd), RMSNorm(cfg.n_embd)
        self.proj = nn.Linear(2 * cfg.n_embd, cfg.n_embd, bias=False)
        self.masks = nn.Parameter(0.02 * torch.randn(n_masks, cfg.n_embd))
        self.block = Block(cfg)

    def forward(self, h, next_emb, g, cos, sin):
        """h, next_emb [N, C] -> [N, g, C]: g drafts per anchor (g <= K; cos, sin for positions 0..g)."""
        anchor = self.proj(torch.cat((self.hidden_norm(h), self.embed_norm(next_emb)), dim=-1))
        x = torch.cat((anchor[:, None], self.masks[:g].expand(anchor.shape[0], g, -1)), dim=1)
        return self.block(x, cos, sin)[:, 1:]


def pair_logits(main, ids, features, net, start):
    """Teacher-forced logits of an MTP-shaped module `net` (the MTP head, EAGLE's or EAGLE-3's layer)
    over the pairs (f_{t−2}, x_{t−1}) that predict text[t], t >= start (features: what net reads)."""
    return main.head(main.mtp_features(features[:, :-1], ids[:, 1:], main.new_cache(mtp=True), head=net))[0, start - 2:-1]


class FeatureDrafter(nn.Module):
    """A trained drafter on a frozen main model: Medusa's heads, the EAGLE or EAGLE-3 layer, or the
    block. The main model is held but not registered: it is not trained, and the checkpoint holds
    only the drafter. `FeatureDrafter(main, cfg)` builds the class of cfg.kind (KINDS below); each
    kind owns its network, its losses and training objective, its largest draft count, how it
    scores drafts by depth (the probe of ⑤'s map) and the Drafter it decodes with."""

    kind: str = None
    parallel = False  # every draft of a round from one call on the main model's feature (a ParallelDrafter)

    # Each kind also defines first_draft_logits(ids, main_pass, start): its first draft's logits for
    # text[t], t >= start, teacher-forced, from the main model's pass over the text (logits, every
    # layer's output, the last one's): methods.Family.first_draft for the heads.

    def __new__(cls, *args, **kwargs):  # (main, cfg); a copy (copy.deepcopy) comes with no arguments
        if cls is FeatureDrafter:
            cls = KINDS[(args[1] if len(args) > 1 else kwargs["cfg"]).kind]
        return super().__new__(cls)

    def __init__(self, main, cfg):
        super().__init__()
        self.cfg = cfg
        self.__dict__["main"] = main
        main.requires_grad_(False)
        self.net = self.make_net(main.cfg)
        if not self.parallel and not isinstance(self.net, MTPHead):  # chain_drafter runs it as the MTP head
            raise TypeError(f"{type(self).__name__}: a kind that is not parallel drafts one character a call as the MTP "
                            "head does, so its net must be an MTPHead (as EagleDrafter's FusedLayer is); otherwise set "
                            "parallel = True and define parallel_logits")
        # EAGLE's feature noise has a stream of its own (on the CPU, so it is the same on any
        # device) that train() seeds and keeps in the resume state: a resumed run draws what
        # an uninterrupted one would.
        self.noise_gen = torch.Generator()

    @staticmethod
    def sizes_in(state):
        """The sizes of the config that the drafter's weights fix (Medusa's heads, the block's masks)."""
        return {}

    def heavy_twin(self, scale, seed=0):
        """model.heavy_twin of the drafter's net (a kind whose net has no SwiGLU block to widen adds
        zero-output ones to it first, as MedusaDrafter does)."""
        if scale > 1 and not any(isinstance(m, SwiGLU) for m in self.net.modules()):
            raise UsageError(f"scale {scale:g}: the {self.kind} drafter's network has no SwiGLU block to widen into a "
                             "heavy twin (a kind without one adds zero-output ones first, as MedusaDrafter.heavy_twin does)")
        heavy_twin(self.net, scale, seed)
        return self

    def trained_on(self):
        """What the checkpoint records about the main model: its file and its weights' hash."""
        return {"checkpoint": f"{self.cfg.main}.pt", "fingerprint": fingerprint(self.main)}

    def n_params(self):
        return sum(p.numel() for p in self.parameters())

    @property
    def max_drafts(self):
        """The most drafts one call makes (its heads or mask positions; None: a chain of any length)."""
        return None

    def objective(self, losses, mtp_weight=0.0):
        return sum(losses.values())

    def chain_drafter(self, mode, engine, gamma):
        """The Drafter for a chain of gamma drafts (speculative.speculative_decode; methods.check
        holds Medusa and the block to max_drafts)."""
        if self.parallel:
            return ParallelDrafter(self, engine)
        return make_runner(self.main, Plan(mode, sizes=(1, gamma + 1), margin=gamma, mtp=True, head=self.net), engine)

    def tree_drafter(self):
        """The Drafter for a token tree (speculative.tree_decode), whatever the main model's engine: every
        tree is grown eagerly (EAGLE's tree forwards are not compiled)."""
        return self.chain_drafter("kvcache", "eager", 1)


class MedusaDrafter(FeatureDrafter):
    """Medusa-1's K heads on the main model's normed last hidden state."""

    kind, parallel = "medusa", True

    def make_net(self, cfg):
        return MedusaHeads(cfg.n_embd, self.cfg.n_heads)

    @staticmethod
    def sizes_in(state):
        return {"n_heads": len({key.split(".")[2] for key in state if key.startswith("net.res.")})}

    def heavy_twin(self, scale, seed=0):
        """Medusa's heads get zero-output SwiGLUs to widen first: they have no block of their own."""
        if scale > 1 and not len(self.net.ballast):
            with torch.inference_mode(False):
                self.net.add_ballast(self.main.cfg)
        return super().heavy_twin(scale, seed)

    @property
    def max_drafts(self):
        return self.cfg.n_heads

    def medusa_logits(self, h):
        """Logits [..., K, V] of the K heads from the main model's features h [..., C]."""
        return F.linear(self.net(self.main.norm(h)), self.main.tok_emb.weight)

    def parallel_logits(self, h, next_token, g):
        """The g drafts' logits [g, V] after the feature h [C] (the heads do not read the pending token)."""
        return self.medusa_logits(h)[:g]

    def losses(self, x, y):
        with torch.no_grad():
            h = self.main.trunk(x)
        logits, T = self.medusa_logits(h), x.shape[1]
        # head k (1-based) at position t predicts x_{t+k+1} = y[t+k]
        return {f"head{k}": F.cross_entropy(logits[:, :T - k, k - 1].flatten(0, 1), y[:, k:].flatten())
                for k in range(1, self.cfg.n_heads + 1)}

    def first_draft_logits(self, ids, main_pass, start):
        return self.medusa_logits(main_pass[2][0, start - 2:-2])[:, 0]  # head 1 on h_{t-2}

    def depth_logits(self, x, h, anchors, depth):
        """Logits of drafts 1..depth after each anchor (probes.alpha_by_depth), teacher-forced."""
        medusa = self.medusa_logits(h)
        return [medusa[:, :, k] for k in range(min(depth, medusa.shape[2]))]


class EagleDrafter(FeatureDrafter):
    """The EAGLE layer: the MTP head's shape, trained to predict the next feature (regression) and
    the main model's distribution, on noisy input features."""

    kind = "eagle"

    def make_net(self, cfg):
        return MTPHead(cfg)

    def losses(self, x, y):
        with torch.no_grad():
            h = self.main.trunk(x)
        features_in = h[:, :-1]
        if self.training and self.cfg.feature_noise:
            a = self.cfg.feature_noise
            noise = torch.empty(features_in.shape).uniform_(-a, a, generator=self.noise_gen)
            features_in = features_in + noise.to(features_in.device)
        predicted = self.main.mtp_features(features_in, x[:, 1:], head=self.net)  # predicts h[:, 1:]
        logits = self.main.head(predicted)
        with torch.no_grad():
            p_next = torch.softmax(self.main.head(h[:, 1:]), dim=-1)  # the main model's distribution of x_{t+2}
        return {"reg": F.smooth_l1_loss(predicted, h[:, 1:]),
                "cls": -(p_next * torch.log_softmax(logits, dim=-1)).sum(-1).mean(),
                "token": F.cross_entropy(logits.flatten(0, 1), y[:, 1:].flatten())}

    def objective(self, losses, mtp_weight=0.0):
        return losses["reg"] + self.cfg.cls_weight * losses["cls"]

    def main_features(self, x):
        """What the drafter reads from the main model for ids x [B, T]: h, or every layer's output
        side by side for EAGLE-3 (whose `read` fuses them)."""
        return self.main.trunk(x, layers=self.net.reads_layers)

    def test_time_features(self, features, x, steps=None):
        """The drafter's output features [B, T-1, C] of each step, from the main model's features
        (main_features) of ids x; EAGLE's layer runs the same way. Row a of every step is one round
        anchored at a: step 1 reads (g_a, x_{a+1}) at position a; step j reads (its own step j-1
        output, x_{a+j}) at position a + j - 1, to predict x_{a+j+1}. Step j's row a attends to step
        1's rows <= a (the main model's real features) and to row a of steps 2..j (its own drafts
        of that round): what the drafter's cache holds when it drafts (tests/drafters/test_heads.py).
        `steps`: how many (default: the training-time test's ttt_steps)."""
        main, (B, T) = self.main, x.shape
        A = T - 1  # anchors 0 .. T-2
        feature, keys, out = self.net.read(features[:, :A]), StepKeys(), []
        causal = torch.ones((A, A), dtype=torch.bool, device=x.device).tril()
        diagonal = torch.eye(A, dtype=torch.bool, device=x.device)
        steps = steps or self.cfg.ttt_steps
        padded = torch.cat((x, x.new_zeros((B, steps))), dim=1)  # tokens past the window: ignored rows
        for j in range(1, steps + 1):
            cos, sin = main.rope_cos[j - 1:j - 1 + A], main.rope_sin[j - 1:j - 1 + A]
            mask = torch.cat([causal] + [diagonal] * (j - 1), dim=1)
            feature = self.net(feature, main.tok_emb(padded[:, j:j + A]), cos, sin, mask, keys)
            out.append(feature)
        return out

    def first_draft_logits(self, ids, main_pass, start):
        """Its one layer over the pairs, reading the main model's last layer (EAGLE) or every layer (EAGLE-3)."""
        _, layers, h = main_pass
        return pair_logits(self.main, ids, self.net.read(layers if self.net.reads_layers else h), self.net, start)

    def depth_logits(self, x, h, anchors, depth):
        steps = self.test_time_features(self.main_features(x), x, steps=depth)
        return [self.main.head(f[:, anchors]) for f in steps]


class Eagle3Drafter(EagleDrafter):
    """EAGLE-3: the EAGLE layer over every layer's output fused, trained on tokens only by
    training-time test."""

    kind = "eagle3"

    def make_net(self, cfg):
        return FusedLayer(cfg)

    def losses(self, x, y):
        """EAGLE-3's training-time test (test_time_features): each step's cross-entropy to the main
        model's distribution there; rows whose target lies past the window are left out."""
        main, T = self.main, x.shape[1]
        with torch.no_grad():
            features = self.main_features(x)
            p = torch.softmax(main.head(features[..., -main.cfg.n_embd:]), dim=-1)  # row t: x_{t+1}
        losses = {}
        for j, feature in enumerate(self.test_time_features(features, x), 1):
            rows = T - j  # anchors a <= T - 1 - j have their target x_{a+j+1} in the window
            log_q = torch.log_softmax(main.head(feature[:, :rows]), dim=-1)
            losses[f"step{j}"] = -(p[:, j:j + rows] * log_q).sum(-1).mean()
        return losses

    def objective(self, losses, mtp_weight=0.0):
        return sum(losses.values()) / len(losses)


class BlockDrafter(FeatureDrafter):
    """The block drafter: one causal block over the anchor and K mask positions drafts K at once."""

    kind, parallel = "block", True

    def make_net(self, cfg):
        return ParallelBlock(cfg, self.cfg.n_masks)

    @staticmethod
    def sizes_in(state):
        return {"n_masks": state["net.masks"].shape[0]}

    @property
    def max_drafts(self):
        return self.cfg.n_masks

    def block_logits(self, h, next_idx, g):
        """Logits [N, g, V] of the block's first g drafts after anchors (h [N, C], next ids [N])."""
        cos, sin = self.main.rope_cos[:g + 1], self.main.rope_sin[:g + 1]
        return self.main.head(self.net(h, self.main.tok_emb(next_idx), g, cos, sin))

    def parallel_logits(self, h, next_token, g):
        """The g drafts' logits [g, V] after the feature h [C] that predicted next_token."""
        return self.block_logits(h[None], torch.tensor([next_token], device=h.device), g)[0]

    def losses(self, x, y):
        """Cross-entropy of each mask position: the anchor at t is (h_t, x_{t+1}) and output i
        predicts x_{t+1+i} = y[t+i], for anchors t = 0, s, 2s, ... (s = anchor_stride: each anchor
        is a K + 1-position forward of its own); an anchor near the window's end skips the
        positions past it."""
        with torch.no_grad():
            h = self.main.trunk(x)
        B, T = x.shape
        K, s = self.cfg.n_masks, self.cfg.anchor_stride
        anchors = torch.arange(0, T - 1, s, device=x.device)
        logits = self.block_logits(h[:, anchors].flatten(0, 1), x[:, anchors + 1].flatten(), K).view(B, len(anchors), K, -1)
        targets = torch.cat((y, y.new_full((B, K), -100)), dim=1)  # -100: past the window, ignored
        return {f"pos{i}": F.cross_entropy(logits[:, :, i - 1].flatten(0, 1), targets[:, anchors + i].flatten(),
                                           ignore_index=-100)
                for i in range(1, K + 1)}

    def first_draft_logits(self, ids, main_pass, start):
        return self.block_logits(main_pass[2][0, start - 2:-2], ids[0, start - 1:-1], 1)[:, 0]

    def depth_logits(self, x, h, anchors, depth):
        g = min(depth, self.max_drafts)
        out = self.block_logits(h.flatten(0, 1), x[:, anchors + 1].flatten(), g).view(*h.shape[:2], g, -1)
        return [out[:, :, k] for k in range(g)]


KINDS = {cls.kind: cls for cls in (MedusaDrafter, EagleDrafter, BlockDrafter, Eagle3Drafter)}  # HeadsConfig.kind -> class


class ParallelDrafter(DrafterBase):
    """The Drafter of Medusa and of the block drafter, for chains and trees: drafts for up to K
    positions after the pending token in one call, all from the main model's feature at the newest
    position it has processed (the one that predicted the pending token): Medusa's heads read
    that feature alone, the block also the pending token; no main forward of its own."""

    def __init__(self, drafter, engine="eager"):
        super().__init__()
        self.drafter = drafter
        self.h = None
        # an engine with heads of its own computes them there (native: NativeParallelHeads, in C++, for the nets it
        # supports); otherwise, and on the other engines, they run eagerly
        own = ENGINES[engine].parallel_heads
        self.native = own(drafter.main, drafter.net) if own and own.supports(drafter.net) else None

    def observe(self, h, start):
        self.h, self.h_start = h, start

    def head_logits(self, seq, main_length, g):
        # the feature at main_length - 1 predicted the pending token seq[main_length]; draft k predicts k + 1 further
        h = self.h[main_length - 1 - self.h_start]
        if self.native is not None:
            return self.native.logits(h, seq[main_length], g)
        return self.drafter.parallel_logits(h, seq[main_length], g)

    def propose(self, seq, main_length, g, temperature, generator=None):
        if self.h is None:  # before the main model's first forward: no features, no drafts
            return None, []
        with self.timed(forwards=1):
            logits = self.head_logits(seq, main_length, g)
            q = probs_from_logits(logits, temperature)
            drafts = [sample(row, generator) for row in q]
        return q, drafts

    def tree(self, seq, n_nodes, max_depth):
        """Medusa's tree: the K drafts' top candidates combined best-first by the product of
        their probabilities. Draft k sees no draft token before it, so its candidates are the same
        under every branch: the tree is a pruned Cartesian product."""
        with self.timed(forwards=1):
            k = min(self.drafter.max_drafts, max_depth) if max_depth > 0 else 1
            heads = torch.softmax(self.head_logits(seq, len(seq) - 1, k), dim=-1)  # at T = 1: they only rank
            depth = min(max_depth, heads.shape[0])
            choices = [top_choices(row, n_nodes) for row in heads[:depth]]
            tree = best_first(seq[-1], n_nodes, lambda branch: choices[len(branch)] if len(branch) < depth else [])
        return tree


def check_trained_on(trained_on, path):
    """What a drafter records of its main model: {checkpoint, fingerprint}, both strings."""
    if not (isinstance(trained_on, dict) and all(isinstance(trained_on.get(k), str) for k in ("checkpoint", "fingerprint"))):
        raise CheckpointError(f"{path}: field trained_on should record the main model's checkpoint and fingerprint, "
                              f"got {trained_on!r:.60}: the file is not what experiments.train wrote ({REMEDY})")


def read_drafter(path, device):
    """(config, payload) of a drafter checkpoint (model.read_checkpoint), with what it records of
    its main model checked too."""
    cfg, payload = read_checkpoint(path, device, HeadsConfig,
                                   f"a drafter checkpoint written by experiments.train --model {'|'.join(KINDS)}")
    if "trained_on" in payload:  # drafters saved before it existed record no main model
        check_trained_on(payload["trained_on"], path)
    return cfg, payload


def load_drafter(path, device="cpu", main=None, checkpoints=None):
    """A trained FeatureDrafter and its payload; its main model is loaded from the checkpoint the
    drafter names (in `checkpoints`, default: beside it) unless one is given. A file that is no
    drafter is a CheckpointError; a drafter trained on another main model, or whose weights do not
    fit this one, is a ValueError naming both files (drafters saved before `trained_on` existed
    record no main model: only their shapes are checked)."""
    cfg, payload = read_drafter(path, device)
    if main is None:
        main, _ = load_checkpoint(Path(checkpoints or Path(path).parent) / f"{cfg.main}.pt", device)
    main_name = main.checkpoint_path or "the main model given"
    trained_on = payload.get("trained_on")
    if trained_on and trained_on["fingerprint"] != fingerprint(main):
        raise ValueError(f"{path} was trained on {trained_on['checkpoint']} (weights {trained_on['fingerprint']}), "
                         f"not on {main_name} (weights {fingerprint(main)}): use that main model, "
                         f"or a drafter trained on this one")
    drafter = FeatureDrafter(main, cfg).to(device)
    try:
        drafter.load_state_dict(payload["model"])
    except RuntimeError:  # a size mismatch: the drafter was trained on a model of another shape
        raise ValueError(f"{path} does not fit {main_name}: it was trained on {cfg.main}.pt, "
                         f"a main model of another shape (n_embd {main.cfg.n_embd} here)") from None
    drafter.eval()
    return drafter, payload
