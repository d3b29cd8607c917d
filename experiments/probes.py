"""Probes of the trained models that measurements and exercises share: random val windows, the
models' next-char distributions there, draws through the acceptance rule, and teacher-forced
acceptance Σ min(p, q) of every drafter along a text."""
import statistics

import torch

from experiments.methods import FAMILIES, Spec, check, drafter
from experiments.rule import accept_reject, probs_from_logits, sample
from experiments.speculative import plain_decode
from experiments.stats import alpha as overlap

SEED = 0      # every random choice in a measurement starts from this seed; it goes into the JSON
CONTEXT = 64  # chars of val text before each measured position (block_size)


def val_offsets(data, n, seed=SEED):
    """n distinct random val offsets; each gives a CONTEXT-char window and the char after it."""
    order = torch.randperm(len(data.val) - CONTEXT, generator=torch.Generator().manual_seed(seed))
    return order[:n]


@torch.no_grad()
def next_char_probs(model, data, offsets, device):
    """The model's next-char distribution after each window: float32 forwards, then a float64
    softmax of the logits, so that every row sums to 1 far below the 1e-9 the identities need."""
    windows = data.val.unfold(0, CONTEXT, 1)[offsets]
    logits = [model(x.to(device))[0][:, -1] for x in windows.split(256)]
    return probs_from_logits(torch.cat(logits).double().cpu(), 1.0)


def draws_through_rule(p, q, n, generator, rule=accept_reject):
    """n independent γ = 1 verifies of one position: a draft from q, then `rule` (accept_reject,
    or a broken rule an exercise tests). Returns (drafts accepted, the n emitted tokens). The
    bonus row is p again; it never matters, because only the first emitted token is counted."""
    p2, q1 = torch.stack([p, p]), q[None]
    accepted, emitted = 0, []
    for _ in range(n):
        draft = sample(q, generator)
        n_accepted, token = rule(p2, q1, torch.tensor([draft]), generator)
        accepted += n_accepted
        emitted.append(draft if n_accepted else token)
    return accepted, torch.tensor(emitted)


def can_draft(name, models):
    """Whether these models hold what family `name` drafts from (a seed may lack an optional head)."""
    source = FAMILIES[name].source
    return {"draft": models.draft is not None, "heads": name in models.heads, "mtp": models.main.mtp is not None,
            "corpus": models.train_tokens is not None}.get(source, True)


def first_drafters(models):
    """The families whose first draft alpha_along scores on these models, in FAMILIES order."""
    return [name for name, f in FAMILIES.items() if f.first_draft is not None and can_draft(name, models)]


def one_hot(names):
    """Those of `names` that copy their drafts (q one-hot): they draft only where the text offers a
    match, so they have a coverage, and their α counts the positions they draft at."""
    return [name for name in names if FAMILIES[name].q == "one-hot"]


def first_draft_logits(models, ids, start):
    """{drafter: logits [len - start, V]} of each network's first draft for text[t], t >= start
    (Family.first_draft), from one kv-cache pass over ids [1, len] per model (rows t - 1 of the
    main model predict text[t]; the heads read the pair (h_{t-2}, x_{t-1})), and "main"'s own.
    Heads that this seed has not trained are left out."""
    main = models.main
    logits, layers = main(ids, main.new_cache(), layers=True)
    main_pass = (logits, layers, layers[..., -main.cfg.n_embd:])
    return {"main": logits[0, start - 1:-1],
            **{name: FAMILIES[name].first_draft(models, ids, main_pass, start) for name in first_drafters(models)
               if callable(FAMILIES[name].first_draft)}}


@torch.no_grad()
def alpha_along(models, text, start, temperature, device):
    """Teacher-forced first-draft acceptance Σ min(p, q) of each drafter at every position t ≥
    start of `text` (a list of ids), with the true text before t as the context. One kv-cache
    pass over the text per network (first_draft_logits), so p and q are exactly what kv-cache
    decoding computes there (each layer's window slides; recomputing a 64-char window would cut
    deeper layers short); the other drafters propose one draft at each position (their q, or for
    a one-hot drafter the p of its draft). Returns ({drafter: [α at each position]}, {one-hot
    drafter: [whether it drafts at each position]}); a one-hot drafter's list holds only the
    positions where it drafts."""
    ids = torch.tensor([text], device=device)
    logits = first_draft_logits(models, ids, start)
    p = probs_from_logits(logits.pop("main").double(), temperature)
    per = {name: overlap(p, probs_from_logits(q.double(), temperature)).tolist() for name, q in logits.items()}
    proposers = {name: drafter(check(Spec(name, gamma=1), models), models) for name in first_drafters(models)
                 if FAMILIES[name].first_draft == "propose"}
    per.update({name: [] for name in proposers})
    covered = {name: [] for name in one_hot(proposers)}
    generator = torch.Generator().manual_seed(0)  # a sampled drafter's draw; its q is what is scored
    for row, t in zip(p, range(start, len(text))):
        for name, proposer in proposers.items():
            q, drafts = proposer.propose(text[:t], t, 1, temperature, generator)
            if name in covered:
                covered[name].append(bool(drafts))
                if drafts:
                    per[name].append(row[drafts[0]].item())
            elif drafts:
                per[name].append(overlap(row, q[0].double()).item())
    return per, covered


def pooled(measured):
    """{drafter: {alpha, positions}} (one-hot drafters also their coverage) from a list of
    alpha_along's results (one per text), their positions concatenated, in FAMILIES order."""
    names = [name for name in FAMILIES if all(name in per for per, _ in measured)]
    values = {name: [v for per, _ in measured for v in per[name]] for name in names}
    out = {name: {"alpha": statistics.mean(v) if v else None, "positions": len(v)} for name, v in values.items()}
    for name in one_hot(names):
        covered = [c for _, cov in measured for c in cov[name]]
        out[name]["coverage"] = sum(covered) / len(covered)
    return out


DEPTH = 6        # chain positions of the per-depth α
DEPTH_STRIDE = 4  # windows every this many characters, each scoring its last DEPTH_STRIDE anchors


def depth_windows(text, window, depth):
    """(windows [N, window] of the text (or the whole text, if shorter), every DEPTH_STRIDE chars, and the anchors a scored in
    each: the last DEPTH_STRIDE whose drafts at depth 1..depth, for x_{a+2} .. x_{a+depth+1}, are
    checked against rows a+1 .. a+depth of the main model inside the window)."""
    ids = torch.tensor(text)
    window = min(window, len(text))  # a text shorter than block_size is one window
    windows = ids.unfold(0, window, DEPTH_STRIDE)
    last = window - 1 - depth
    return windows, torch.arange(last - DEPTH_STRIDE + 1, last + 1)


@torch.no_grad()
def alpha_by_depth(models, texts, temperature, device, depth=DEPTH):
    """Teacher-forced acceptance Σ min(p, q_j) of the j-th draft of a chain, j = 1..depth, with
    the true text as every draft before it (the chain is right so far): for EAGLE and EAGLE-3,
    step j reads its own output features of steps < j (heads.EagleDrafter.test_time_features, as
    when it drafts); Medusa's head j and the block's mask position j see no draft before them. Over
    block_size windows of each text (depth_windows). {drafter: [α at depth 1, 2, ...]} for the
    heads this seed has trained (Medusa: its heads)."""
    main, heads = models.main, models.heads
    sums, count = {}, 0
    for text in texts:
        windows, anchors = depth_windows(text, main.cfg.block_size, depth)
        for x in windows.to(device).split(64):
            p = probs_from_logits(main(x)[0].double(), temperature)
            p_at = lambda j: p[:, anchors + j].flatten(0, 1)  # the main model's distribution of x_{a+j+1}
            h = main.trunk(x)[:, anchors]
            q_logits = {name: head.depth_logits(x, h, anchors, depth) for name, head in heads.items()}  # heads.py
            for name, per_depth in q_logits.items():
                alphas = [overlap(p_at(j), probs_from_logits(q.flatten(0, 1).double(), temperature)).sum().item()
                          for j, q in enumerate(per_depth, 1)]
                sums[name] = [a + b for a, b in zip(sums.get(name, [0.0] * len(alphas)), alphas)]
            count += p_at(1).shape[0]
    return {name: [s / count for s in values] for name, values in sums.items()}


def written_text(main, prompt, n_chars, temperature, seed, device):
    """The prompt and n_chars the main model writes after it at this temperature and sampling seed."""
    gen = torch.Generator(device=device).manual_seed(seed)
    return prompt + plain_decode(main, prompt, n_chars, temperature, generator=gen).tokens
