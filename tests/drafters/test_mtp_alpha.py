"""The MTP head's acceptance on validation text (mtp.json) is the acceptance kv-cache decoding
meets on the same text: the head's block attends over the whole window of (h, next char) pairs,
as it does in training and while decoding, not over its own position alone."""
from types import SimpleNamespace

import torch

from experiments.heads import KINDS, FeatureDrafter, HeadsConfig
from experiments.measure.mtp import mtp_val_alpha
from experiments.methods import Models
from experiments.model import GPT, GPTConfig
from experiments.probes import CONTEXT, DEPTH, alpha_along, alpha_by_depth, depth_windows

TINY = dict(vocab_size=65, n_layer=1, n_embd=16, n_head=2, mlp_hidden=32, block_size=CONTEXT)


def tiny(seed, mtp):
    torch.manual_seed(seed)
    model = GPT(GPTConfig(**TINY, mtp=mtp)).double().eval()
    with torch.no_grad():
        model.tok_emb.weight.mul_(4)  # peaked distributions, so that α is far from both 0 and 1
    return model


def test_mtp_val_alpha_is_the_alpha_along_kv_cache_decoding():
    main, draft = tiny(0, mtp=True), tiny(1, mtp=False)
    val = torch.randint(0, 65, (CONTEXT + 40,), generator=torch.Generator().manual_seed(2))
    offsets = torch.tensor([0, 7, 23, 39])  # as val_offsets: each window has a next char
    models = Models(main, draft, {kind: FeatureDrafter(main, HeadsConfig(kind, main="main_s0")).double()
                                  for kind in KINDS}, train_tokens=val.tolist())
    with torch.no_grad():
        val_alpha = mtp_val_alpha(main, draft, SimpleNamespace(val=val), offsets, "cpu")
        along = []
        for offset in offsets.tolist():
            text = val[offset:offset + CONTEXT + 1].tolist()  # the window and the char it predicts
            per, _ = alpha_along(models, text, CONTEXT, 1.0, "cpu")
            along.append((per["mtp"][0], per["draft"][0]))
    assert abs(val_alpha["mtp"] - sum(a for a, _ in along) / len(along)) < 1e-6
    assert abs(val_alpha["draft"] - sum(d for _, d in along) / len(along)) < 1e-6


def test_alpha_by_depth_starts_where_the_first_draft_alpha_is():
    """Depth 1 of alpha_by_depth (no cache, every head's training-time path: test_time_features,
    medusa_logits, block_logits on a batch of windows) is the first-draft α alpha_along computes
    through the kv-cache path at the same positions, for every head; and deeper drafts are scored."""
    main, draft = tiny(0, mtp=True), tiny(1, mtp=False)
    text = torch.randint(0, 65, (CONTEXT,), generator=torch.Generator().manual_seed(3)).tolist()
    heads = {}
    for i, kind in enumerate(KINDS):
        torch.manual_seed(10 + i)
        heads[kind] = FeatureDrafter(main, HeadsConfig(kind, main="main_s0")).double()
        with torch.no_grad():
            for param in heads[kind].parameters():
                param.add_(0.1 * torch.randn_like(param))
    models = Models(main, draft, heads, train_tokens=text)
    _, anchors = depth_windows(text, CONTEXT, DEPTH)  # one window: the whole text
    with torch.no_grad():
        by_depth = alpha_by_depth(models, [text], 1.0, "cpu")
        per, _ = alpha_along(models, text, 2, 1.0, "cpu")  # per[name][t - 2]: the draft of text[t]
    for kind in KINDS:
        first = [per[kind][a + 2 - 2] for a in anchors.tolist()]  # anchor a's first draft is text[a + 2]
        assert abs(by_depth[kind][0] - sum(first) / len(first)) < 1e-9, kind
        assert all(0 < a < 1 for a in by_depth[kind])
    assert [len(by_depth[k]) for k in KINDS] == [min(DEPTH, heads[k].max_drafts or DEPTH) for k in KINDS]  # Medusa: 3 heads
    assert len(by_depth["medusa"]) == 3
