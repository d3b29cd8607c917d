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

The EAGLE drafter has exactly the shape of this chapter's MTP head (`model.MTPHead`, which also
normalizes its two inputs); the difference is what it is trained to produce (the next feature,
by regression, plus a cross-entropy on the main model's own distribution) and that the main model
is frozen. `python -m experiments.train --model medusa|eagle` trains them.
"""
import pickle
import time
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

from experiments.model import MTPHead, fingerprint, load_checkpoint
from experiments.engine import make_runner
from experiments.rule import probs_from_logits, sample
from experiments.runners import Drafter
from experiments.trees import best_first, top_choices

KINDS = ("medusa", "eagle")


@dataclass
class HeadsConfig:
    kind: str                    # "medusa" or "eagle"
    main: str                    # checkpoint name of the frozen main model they read, e.g. main_s0
    n_heads: int = 3             # Medusa: heads for x_{t+2} .. x_{t+K+1}
    block_size: int = 64         # training windows (the main model's)
    cls_weight: float = 0.1      # EAGLE: weight of the token loss beside the feature regression
    feature_noise: float = 0.1   # EAGLE: U(-a, a) noise on the input features while training


class MedusaHeads(nn.Module):
    def __init__(self, n_embd, n_heads):
        super().__init__()
        self.res = nn.ModuleList(nn.Linear(n_embd, n_embd, bias=False) for _ in range(n_heads))
        for linear in self.res:  # zero: every head starts as the main model's own next-token head
            nn.init.zeros_(linear.weight)

    def forward(self, z):
        """z [..., C], the main model's normed last hidden state -> [..., K, C]."""
        return torch.stack([z + F.silu(linear(z)) for linear in self.res], dim=-2)


class FeatureDrafter(nn.Module):
    """Medusa heads or the EAGLE layer, attached to a frozen main model. The main model is held
    but not registered: it is not trained, and the checkpoint holds only the drafter."""

    def __init__(self, main, cfg):
        super().__init__()
        if cfg.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {cfg.kind!r}")
        self.cfg = cfg
        self.__dict__["main"] = main
        main.requires_grad_(False)
        C = main.cfg.n_embd
        self.net = MedusaHeads(C, cfg.n_heads) if cfg.kind == "medusa" else MTPHead(main.cfg)
        # EAGLE's feature noise has a stream of its own (on the CPU, so it is the same on any
        # device) that train() seeds and keeps in the resume state: a resumed run draws what
        # an uninterrupted one would.
        self.noise_gen = torch.Generator()

    def trained_on(self):
        """What the checkpoint records about the main model: its file and its weights' hash."""
        return {"checkpoint": f"{self.cfg.main}.pt", "fingerprint": fingerprint(self.main)}

    def n_params(self):
        return sum(p.numel() for p in self.parameters())

    def medusa_logits(self, h):
        """Logits [..., K, V] of the K heads from the main model's features h [..., C]."""
        return F.linear(self.net(self.main.norm(h)), self.main.tok_emb.weight)

    def losses(self, x, y):
        with torch.no_grad():
            h = self.main.trunk(x)
        if self.cfg.kind == "medusa":
            logits, T = self.medusa_logits(h), x.shape[1]
            # head k (1-based) at position t predicts x_{t+k+1} = y[t+k]
            return {f"head{k}": F.cross_entropy(logits[:, :T - k, k - 1].flatten(0, 1), y[:, k:].flatten())
                    for k in range(1, self.cfg.n_heads + 1)}
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

    def chain_drafter(self, mode, engine, gamma):
        """The Drafter for a chain of gamma drafts (speculative.speculative_decode; methods.check
        holds Medusa to one draft per head)."""
        if self.cfg.kind == "medusa":
            return MedusaDrafter(self)
        return make_runner(self.main, mode, engine, sizes=(1, gamma + 1), mtp=True, head=self.net)

    def tree_drafter(self):
        """The Drafter for a token tree (speculative.tree_decode), whatever the main model's engine: Medusa runs no
        forward, and EAGLE grows its tree eagerly (its tree forwards are not compiled)."""
        return self.chain_drafter("kvcache", "eager", 1)

    def objective(self, losses, mtp_weight=0.0):
        if self.cfg.kind == "medusa":
            return sum(losses.values())
        return losses["reg"] + self.cfg.cls_weight * losses["cls"]


class MedusaDrafter(Drafter):
    """Medusa's Drafter, for chains and trees: drafts for the K positions
    after the pending token, all from the main model's feature at the newest position it has
    processed (the one that predicted the pending token), one head each; no forward of its own."""

    def __init__(self, drafter):
        super().__init__()
        self.drafter = drafter
        self.h = None

    def observe(self, h, start):
        self.h, self.h_start = h, start

    def head_logits(self, main_length):
        # the feature at main_length - 1 predicted the pending token; head k predicts k + 1 further
        return self.drafter.medusa_logits(self.h[main_length - 1 - self.h_start])

    def propose(self, seq, main_length, g, temperature, generator=None):
        if self.h is None:  # before the main model's first forward: no features, no drafts
            return None, []
        t0 = time.perf_counter()
        logits = self.head_logits(main_length)[:g]
        q = probs_from_logits(logits, temperature)
        drafts = [sample(row, generator) for row in q]
        self.forward_s += time.perf_counter() - t0
        self.forwards += 1
        return q, drafts

    def tree(self, seq, n_nodes, max_depth):
        """Medusa's tree: the K heads' top candidates combined best-first by the product of
        their probabilities. Head k sees no draft before it, so its candidates are the same
        under every branch: the tree is a pruned Cartesian product."""
        t0 = time.perf_counter()
        heads = torch.softmax(self.head_logits(len(seq) - 1), dim=-1)  # at T = 1: they only rank
        depth = min(max_depth, heads.shape[0])
        choices = [top_choices(row, n_nodes) for row in heads[:depth]]
        tree = best_first(seq[-1], n_nodes, lambda branch: choices[len(branch)] if len(branch) < depth else [])
        self.forward_s += time.perf_counter() - t0
        self.forwards += 1
        return tree


def load_drafter(path, device="cpu", main=None, checkpoints=None):
    """A trained FeatureDrafter and its payload; its main model is loaded from the checkpoint the
    drafter names (in `checkpoints`, default: beside it) unless one is given. A drafter trained on
    another main model, or whose weights do not fit this one, is a ValueError naming both files
    (drafters saved before `trained_on` existed record no main model: only their shapes are checked)."""
    try:
        payload = torch.load(path, map_location=device, weights_only=True)
        cfg = HeadsConfig(**payload["config"])
    except (pickle.UnpicklingError, EOFError, OSError, KeyError, TypeError, RuntimeError) as err:
        raise ValueError(f"{path} is not a drafter checkpoint written by experiments.train "
                         f"--model medusa|eagle ({type(err).__name__})") from None
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
