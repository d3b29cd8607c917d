"""causal.json (section ①): the main model is causal (a prefix's logits do not depend on what
follows; the kv-cache equals a full forward), one real verify step, and a kv-cache rollback.

Its results are declared in experiments/records/models.py: CausalFile (causal.json)."""
import copy

import torch

from experiments.measure.common import GAMMA, main_and_draft
from experiments.probes import CONTEXT, SEED, val_offsets
from experiments.rule import accept_reject, probs_from_logits
from experiments.runners import Runner

VERIFY_CONTEXT = 8    # chars of context in the verify example
ROLLBACK_CONTEXT = 40
N_SHORT = 56          # the prefix check feeds the first N_SHORT chars, then all CONTEXT


@torch.no_grad()
def propose(draft, context, gamma, generator):
    """The draft model's γ proposals after context (ids), as speculative_decode drafts them
    (Runner.draft_round). Returns (drafts [γ], q [γ, V] float64 on the CPU)."""
    q, drafts = Runner(draft, "kvcache").draft_round(context, gamma, 1.0, generator)
    return torch.tensor(drafts), q.double().cpu()


def first_example(offsets, make, wanted):
    """make(offset) for each offset in turn; the first example that `wanted` accepts."""
    for offset in offsets:
        example = make(offset)
        if wanted(example):
            return example
    raise RuntimeError("no val offset gave an example with the wanted acceptance count")


@torch.no_grad()
def prefix_diff(model, idx):
    """max |logit(first N_SHORT fed) - logit(all fed)| over the first N_SHORT positions."""
    return float((model(idx[:, :N_SHORT])[0] - model(idx)[0][:, :N_SHORT]).abs().max())


@torch.no_grad()
def kvcache_diff(model, idx):
    """max |Δlogit| between feeding idx one token at a time through a kv-cache and one forward."""
    cache = model.new_cache()
    stepped = torch.cat([model(idx[:, t:t + 1], cache=cache)[0] for t in range(idx.shape[1])], 1)
    return float((stepped - model(idx)[0]).abs().max())


def causal_checks(main, data, offset, device):
    """Both checks in float32, as the models run, and again in float64: the float64 differences
    show that what remains in float32 is rounding, not a leak of later positions."""
    idx = data.val[offset:offset + CONTEXT][None].to(device)
    main64 = copy.deepcopy(main).double()
    with torch.no_grad():
        max_abs_logit = float(main(idx)[0].abs().max())
    prefix = {"val_offset": offset, "text": data.decode(idx[0].tolist()), "n_short": N_SHORT,
              "n_full": CONTEXT, "max_abs_diff": prefix_diff(main, idx),
              "max_abs_diff_float64": prefix_diff(main64, idx), "max_abs_logit": max_abs_logit}
    kvcache = {"val_offset": offset, "n_tokens": CONTEXT, "max_abs_diff": kvcache_diff(main, idx),
               "max_abs_diff_float64": kvcache_diff(main64, idx), "max_abs_logit": max_abs_logit,
               "how": f"main model, the same {CONTEXT} val chars: fed one at a time through its "
                      f"kv-cache ({CONTEXT} forwards) vs one forward without a cache; max "
                      f"|Δlogit| over all {CONTEXT} positions and {main.cfg.vocab_size} chars, "
                      f"float32 (and again with the model in float64)"}
    return prefix, kvcache


@torch.no_grad()
def verify_example(main, draft, data, offset, device):
    """The draft proposes γ chars after VERIFY_CONTEXT real val chars; one main forward over
    context + drafts gives p for every draft and the bonus row; accept_reject decides."""
    context = data.val[offset:offset + VERIFY_CONTEXT].tolist()
    generator = torch.Generator().manual_seed(SEED)
    drafts, q = propose(draft, context, GAMMA, generator)
    seq = context + drafts.tolist()
    logits = main(torch.tensor([seq], device=device))[0][0]
    p = probs_from_logits(logits.double().cpu(), 1.0)  # row j: next char after seq[:j + 1]
    record = {}
    n_accepted, token = accept_reject(p[-(GAMMA + 1):], q, drafts, generator, record)
    top = p.topk(5)
    rows = [{"char": data.chars[c], "role": "context" if j < len(context) else "draft",
             "top": [[data.chars[i], prob] for prob, i in zip(top.values[j].tolist(),
                                                               top.indices[j].tolist())]}
            for j, c in enumerate(seq)]
    return {"val_offset": offset, "context": data.decode(context), "gamma": GAMMA, "seed": SEED,
            "temperature": 1.0, "drafts": [data.chars[d] for d in drafts.tolist()],
            "p_draft": record["p_draft"], "q_draft": record["q_draft"], "u": record["u"],
            "n_accepted": n_accepted, "next_char": data.chars[token],
            "next_kind": "bonus" if n_accepted == GAMMA else "resample", "rows": rows}


@torch.no_grad()
def rollback_check(main, draft, data, offset):
    """One kv-cache verify as speculative_decode runs it (the cache holds all confirmed chars but
    the newest; the verify feeds that one + γ drafts), its rollback to what the decoder keeps
    (confirmed + accepted drafts), and the same cache built from scratch on that text."""
    confirmed = data.val[offset:offset + ROLLBACK_CONTEXT].tolist()
    generator = torch.Generator().manual_seed(SEED)
    drafts, q = propose(draft, confirmed, GAMMA, generator)
    runner = Runner(main, "kvcache")
    runner.extend(confirmed[:-1])
    length_before = runner.cache.length
    logits, _, _ = runner.extend(confirmed + drafts.tolist())
    length_after_verify = runner.cache.length
    n_accepted, _ = accept_reject(probs_from_logits(logits.double().cpu(), 1.0), q, drafts, generator)
    kept = confirmed + drafts[:n_accepted].tolist()
    runner.truncate(len(kept))
    rebuilt = Runner(main, "kvcache")
    rebuilt.extend(kept)
    diff = max(float((a - b).abs().max())
               for a, b in zip(runner.cache.snapshot(), rebuilt.cache.snapshot()))
    return {"val_offset": offset, "n_confirmed": len(confirmed), "gamma": GAMMA, "seed": SEED,
            "n_accepted": n_accepted, "length_before": length_before,
            "length_after_verify": length_after_verify,
            "length_after_rollback": runner.cache.length, "max_abs_diff_vs_rebuilt": diff,
            "equal": diff <= 1e-5}


def measure(args, data, seeds, sizes):
    main, draft = main_and_draft(args, seeds[0])
    order = val_offsets(data, len(data.val) - CONTEXT).tolist()
    example = first_example(order, lambda o: verify_example(main, draft, data, o, args.device),
                            lambda e: 2 <= e["n_accepted"] <= GAMMA - 2)
    example["selection"] = (f"the first val offset, in a random order drawn with seed {SEED}, "
                            f"whose {VERIFY_CONTEXT}-char context made the main model accept "
                            f"between 2 and {GAMMA - 2} of the draft's {GAMMA} proposals")
    print(f"  verify example at val offset {example['val_offset']}: "
          f"{example['n_accepted']}/{GAMMA} accepted", flush=True)
    rollback = first_example(order, lambda o: rollback_check(main, draft, data, o),
                             lambda r: 0 < r["n_accepted"] < GAMMA)
    rollback["selection"] = (f"the first val offset in the same order whose verify accepted "
                             f"between 1 and {GAMMA - 1} drafts, so the rollback drops some")
    prefix, kvcache = causal_checks(main, data, order[0], args.device)
    return {"causal": {"prefix_check": prefix, "kvcache_check": kvcache, "verify_example": example,
                       "rollback": rollback}}
