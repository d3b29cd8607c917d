"""The check of exercise 4 (the lesson's setting): a 10-char prompt, 5 drafts fed in one
forward, the third rejected. After `rollback`, the next forward must give the logits of a fresh
cache that saw only the prompt, the 2 accepted drafts and the replacement character."""
import torch

PROMPT_CHARS, DRAFTS, ACCEPTED = 10, 5, 2


@torch.no_grad()
def check_rollback(rollback, main, data, offset=1000, tolerance=1e-4):
    """Returns {"passed", "max_abs_diff", "length"}: the rolled-back cache's logits for the
    replacement character against a fresh cache's, and where the cache's length ended up. The
    tolerance allows float32 sums taken in another order (about 1e-5 here); keeping a rejected
    draft moves the logits by whole units."""
    text = data.val[offset:offset + PROMPT_CHARS + DRAFTS].tolist()
    prompt, drafts = text[:PROMPT_CHARS], text[PROMPT_CHARS:]
    ids = lambda tokens: torch.tensor([tokens], device=main.tok_emb.weight.device)
    cache = main.new_cache()
    main(ids(prompt), cache)
    verify, _ = main(ids(drafts), cache)                  # p at every draft, in one forward
    # the third draft is rejected: keep the prompt and the first two, emit a character drawn from
    # the residual in its place (here: the main model's most likely other than the draft)
    p3 = verify[0, ACCEPTED - 1].clone()
    p3[drafts[ACCEPTED]] = -float("inf")
    replacement = int(p3.argmax())
    rollback(cache, PROMPT_CHARS + ACCEPTED)
    rolled, _ = main(ids([replacement]), cache)
    fresh, _ = main(ids(prompt + drafts[:ACCEPTED] + [replacement]), main.new_cache())
    diff = (rolled[0, -1] - fresh[0, -1]).abs().max().item()
    return {"passed": diff < tolerance and cache.length == PROMPT_CHARS + ACCEPTED + 1,
            "max_abs_diff": diff, "length": cache.length, "expected_length": PROMPT_CHARS + ACCEPTED + 1}
