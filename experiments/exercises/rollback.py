"""Exercise 4: kv-cache rollback. After a verify forward the cache holds every draft; when the
main model rejects one, the next forward must see the prompt and the accepted drafts only.

Write `rollback` below, then run `python -m experiments.exercises rollback`: it puts a 10-char
prompt in the cache, feeds 5 drafts in one forward, rejects the third (2 accepted), calls your
function, feeds the main model's replacement character, and compares the logits with a fresh
cache that only ever saw prompt + 2 drafts + that character.

Hints: read experiments/model.py's KVCache. It never erases anything: `length` counts the
positions processed so far, and the next forward writes its keys and values at `length`.
"""


def rollback(cache, length):
    """Forget the positions from `length` on, so that the next forward writes position `length`.
    Refuse (ValueError) a length the cache cannot return to: more than it holds."""
    raise NotImplementedError("exercise 4: write rollback() in experiments/exercises/rollback.py")
