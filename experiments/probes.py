"""Probes of the trained models that measurements and exercises share: random val windows, the
models' next-char distributions there, draws through the acceptance rule, and teacher-forced
acceptance Σ min(p, q) of every drafter along a text."""
import statistics

import torch

from experiments.methods import ORDERS
from experiments.ngram import DEFAULT_ORDER, PromptLookup
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


DRAFTERS = ("draft", "ngram", "lookup", "mtp", "medusa", "eagle")  # the families with a first draft to score


@torch.no_grad()
def alpha_along(models, text, start, temperature, device):
    """Teacher-forced first-draft acceptance Σ min(p, q) of each drafter at every position t ≥
    start of `text` (a list of ids), with the true text before t as the context. One kv-cache
    pass over the text per model, so p and q are exactly what kv-cache decoding computes there
    (each layer's window slides; recomputing a 64-char window would cut deeper layers short). Returns
    ({drafter: [α at each position]}, [whether prompt lookup drafts at each position]); prompt
    lookup drafts one-hot, only where the text repeats, so its list holds those positions only."""
    main, eagle, medusa = models.main, models.heads["eagle"], models.heads["medusa"]
    table, lookup = models.table(DEFAULT_ORDER), PromptLookup(ORDERS["lookup"] - 1, models.vocab_size)
    ids = torch.tensor([text], device=device)
    logits, h = main(ids, main.new_cache())  # row t - 1 predicts text[t]
    pairs = (h[:, :-1], ids[:, 1:])          # row t - 2: (h_{t-2}, x_{t-1}) predicts text[t]
    p = probs_from_logits(logits[0, start - 1:-1].double(), temperature)
    q_logits = {"draft": models.draft(ids, models.draft.new_cache())[0][0, start - 1:-1],
                "mtp": main.mtp_forward(*pairs, main.new_cache(mtp=True))[0, start - 2:-1],
                "eagle": main.head(main.mtp_features(*pairs, main.new_cache(mtp=True), head=eagle.net))[0, start - 2:-1],
                "medusa": medusa.medusa_logits(h[0, start - 2:-2])[:, 0]}  # head 1 on h_{t-2}
    per = {name: overlap(p, probs_from_logits(q.double(), temperature)).tolist() for name, q in q_logits.items()}
    per.update(ngram=[], lookup=[])
    covered = []
    for row, t in zip(p, range(start, len(text))):
        per["ngram"].append(overlap(row, table.q(text[:t], temperature).double()).item())
        draft = lookup.continuation(text[:t], 1)
        covered.append(bool(draft))
        if draft:
            per["lookup"].append(row[draft[0]].item())
    return per, covered


def pooled(per, covered):
    """{drafter: {alpha, positions}} from alpha_along's lists (concatenated over texts)."""
    out = {name: {"alpha": statistics.mean(values) if values else None, "positions": len(values)}
           for name, values in per.items()}
    out["lookup"]["coverage"] = sum(covered) / len(covered)
    return out


def written_text(main, prompt, n_chars, temperature, seed, device):
    """The prompt and n_chars the main model writes after it at this temperature and sampling seed."""
    gen = torch.Generator(device=device).manual_seed(seed)
    return prompt + plain_decode(main, prompt, n_chars, temperature, generator=gen).tokens
