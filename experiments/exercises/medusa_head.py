"""Exercise 3: build a Medusa head (Medusa-1, Cai et al. 2024, arXiv 2401.10774): a residual
block z + SiLU(W z) on the frozen main model's last hidden state, sharing its output head, that
predicts the character after next. Train it for a few hundred steps, then measure its acceptance
α = Σmin(p, q) at random val positions beside the draft model's and the MTP head's."""
import torch

from experiments.heads import FeatureDrafter, HeadsConfig
from experiments.probes import CONTEXT, val_offsets
from experiments.stats import alpha
from experiments.rule import probs_from_logits

MAX_STEPS = 800  # about a minute on this machine's CPU (50 to 80 ms a step); it logs every 100 steps


def train_head(main, data, steps, batch_size=32, lr=2e-3, seed=0, log=print):
    """One Medusa head on the frozen main model; returns it in eval mode."""
    torch.manual_seed(seed)
    head = FeatureDrafter(main, HeadsConfig("medusa", main="main", n_heads=1, block_size=main.cfg.block_size))
    head.to(main.tok_emb.weight.device)
    optimizer = torch.optim.AdamW(head.parameters(), lr=lr)
    batches = torch.Generator().manual_seed(seed)
    for step in range(1, steps + 1):
        x, y = (t.to(main.tok_emb.weight.device) for t in data.batch("train", batch_size, main.cfg.block_size, batches))
        loss = head.losses(x, y)["head1"]  # cross-entropy against x_{t+2}; the main model gets no gradient
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % 100 == 0 or step == steps:
            log(f"step {step}/{steps}: loss {loss.item():.3f}")
    return head.eval()


@torch.no_grad()
def first_draft_alpha(main, draft, head, data, n_positions=1000):
    """Mean Σmin(p, q) at n random val positions, each after a 64-char window: the Medusa head's
    q comes from the feature one position back (it skips the character in between), the draft
    model's and the MTP head's from the window itself (they read that character)."""
    windows = data.val.unfold(0, CONTEXT, 1)[val_offsets(data, n_positions)].to(main.tok_emb.weight.device)
    logits, h = main(windows)
    p = probs_from_logits(logits[:, -1].double(), 1.0)
    q_logits = {"medusa_head": head.medusa_logits(h[:, -2])[:, 0],
                "draft_model": draft(windows)[0][:, -1],
                "mtp_head": main.mtp_forward(h[:, :-1], windows[:, 1:])[:, -1]}
    return {name: alpha(p, probs_from_logits(q.double(), 1.0)).mean().item() for name, q in q_logits.items()}


def report(before, after, steps):
    print(f"α = Σmin(p, q) over val positions: Medusa head {before['medusa_head']:.3f} untrained -> "
          f"{after['medusa_head']:.3f} after {steps} steps; draft model {after['draft_model']:.3f}; "
          f"MTP head {after['mtp_head']:.3f}")
