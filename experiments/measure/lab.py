"""lab.json and tests/fixtures/lab_checks.json: the trained models for the page's live lab
(section ⑧), and the checks that hold its JavaScript forward (static/js/lab_model.js) to PyTorch.

lab.json carries the first seed's main model (with its MTP head) and draft model as float16,
and the order-5 n-gram table as counts, each gzip-compressed and base64-encoded: the page
decompresses them with the browser's DecompressionStream when the lab first comes into view.

lab_checks.json is a test fixture, not a result: it goes to tests/fixtures/ (checks_path), never
to the page, and tests/js/lab.test.mjs reads it. It holds fixed inputs fed in a schedule with
rollbacks and a sequence past the 64-position window, the logits PyTorch computes for them (with
the float16-rounded weights the page carries, and with the original float32 ones), n-gram q rows,
and accept_reject cases with the uniforms it drew and its verdicts.

Its results are declared in experiments/records/mtp_lab.py: LabFile (lab.json).
"""
import base64
import copy
import gzip
from pathlib import Path

import numpy as np
import torch

from experiments.jsonio import RESULTS, ROOT, meta, write_json
from experiments.measure.common import main_and_draft
from experiments.ngram import DEFAULT_ORDER, NgramTable
from experiments.rule import accept_reject, uniforms

CHECK_CHARS = 100     # a val text this long runs past the 64-position window
RULE_CASES = 40       # accept_reject cases for the JS rule
MTP_CHECK_PAIRS = 90  # MTP pairs (h_t, x_{t+1}) checked
CHECK_OFFSET = 5000   # where in the val split the checked text starts
FIXTURE = ROOT / "tests" / "fixtures" / "lab_checks.json"


def pack(blob):
    """gzip (no timestamp: the same bytes every run) and base64, as the page reads them."""
    return base64.b64encode(gzip.compress(blob, compresslevel=9, mtime=0)).decode("ascii")


def float16_weights(model):
    """Every tensor of a model as float16, in one blob: [{name, shape, offset (in elements)}]."""
    tensors, parts, offset = [], [], 0
    for name, value in model.state_dict().items():
        half = value.detach().cpu().to(torch.float16).contiguous()
        tensors.append({"name": name, "shape": list(half.shape), "offset": offset})
        parts.append(half.numpy().astype("<f2").tobytes())
        offset += half.numel()
    return {"config": {k: v for k, v in vars(model.cfg).items()}, "params": offset, "tensors": tensors,
            "blob": pack(b"".join(parts))}


def rounded(model):
    """A copy of the model with every weight rounded to float16 and back: what the page computes with."""
    copied = copy.deepcopy(model)
    with torch.no_grad():
        for param in copied.parameters():
            param.copy_(param.to(torch.float16).to(param.dtype))
    return copied


def varint(n):
    out = bytearray()
    while True:
        byte, n = n & 127, n >> 7
        if not n:
            out.append(byte)
            return out
        out.append(byte | 128)


def ngram_counts(tokens, order, vocab_size):
    """Counts of every n-gram, n = 1..order, in the tokens: [{code: count}] per n (base-V codes,
    first char most significant). The pairs (context of L chars, next char) of NgramTable are
    exactly the (L + 1)-grams."""
    ids = np.asarray(tokens, dtype=np.int64)
    levels = []
    for n in range(1, order + 1):
        code = np.zeros(len(ids) - n + 1, dtype=np.int64)
        for j in range(n):
            code = code * vocab_size + ids[j:len(ids) - n + 1 + j]
        grams, counts = np.unique(code, return_counts=True)
        levels.append(dict(zip(grams.tolist(), counts.tolist())))
    return levels


def ngram_trie(tokens, order, vocab_size):
    """The n-gram table as a trie, level by level: for each context (the empty one, then every
    n-gram in code order) the number of its next chars, then those chars, then their counts as
    varints, in three streams (they compress better apart)."""
    levels = ngram_counts(tokens, order, vocab_size)
    n_next, chars, counts = bytearray(), bytearray(), bytearray()
    contexts = [0]
    for level in levels:
        children = {}
        for gram in sorted(level):
            children.setdefault(gram // vocab_size, []).append(gram)
        next_contexts = []
        for context in contexts:
            kids = children.get(context, [])
            n_next.append(len(kids))
            for gram in kids:
                chars.append(gram % vocab_size)
                counts.extend(varint(level[gram]))
                next_contexts.append(gram)
        contexts = next_contexts
    return {"order": order, "contexts": len(n_next), "pairs": len(chars), "next_bytes": len(n_next),
            "char_bytes": len(chars), "count_bytes": len(counts), "blob": pack(bytes(n_next + chars + counts))}


def schedule(text, block_size, vocab_size=65):
    """Feeds and rollbacks a speculative decoder makes: a prefill, drafts of which some are
    rolled back (with wrong tokens in their place), and single steps past the window."""
    wrong = [(t * 7 + 3) % vocab_size for t in text]
    ops, at = [{"feed": text[:20]}], 20
    while at < len(text):
        g = min(5, len(text) - at)
        ops.append({"feed": text[at:at + 2] + wrong[at + 2:at + g]})  # 2 right drafts, the rest wrong
        ops.append({"rollback": at + 2})
        at += 2
        if at < len(text):
            ops.append({"feed": [text[at]]})
            at += 1
    assert at == len(text) > block_size
    return ops


@torch.no_grad()
def run_schedule(model, ops):
    """Logits of every fed position, in order, through the kv cache (as the decoders run it)."""
    cache, rows, hs = model.new_cache(), [], []
    for op in ops:
        if "rollback" in op:
            cache.rollback(op["rollback"])
            continue
        logits, h = model(torch.tensor([op["feed"]]), cache=cache)
        rows.append(logits[0])
        hs.append(h[0])
    return rows, hs


@torch.no_grad()
def mtp_schedule(model, text):
    """The MTP head over pairs (h_t, x_{t+1}) of the text, with h from one plain pass of the main
    model: 20 pairs, 5 with wrong next tokens, a rollback to 22, then one pair at a time."""
    cache = model.new_cache()
    h = torch.cat([model(torch.tensor([text]), cache=cache)[1][0]])
    pairs = len(text) - 1
    wrong = [(t * 7 + 3) % model.cfg.vocab_size for t in text]
    ops = [(0, 20, text[1:21]), (20, 25, wrong[21:26]), ("rollback", 22)] + [(j, j + 1, text[j + 1:j + 2]) for j in range(22, pairs)]
    head_cache, out, fed = model.new_cache(mtp=True), [], []
    for op in ops:
        if op[0] == "rollback":
            head_cache.rollback(op[1])
            fed.append({"rollback": op[1]})
            continue
        lo, hi, nxt = op
        out.append(model.mtp_forward(h[None, lo:hi], torch.tensor([nxt]), cache=head_cache)[0])
        fed.append({"pairs": [lo, hi], "next": nxt})
    return fed, out


def round_rows(rows, digits=5):
    """Logit rows for the JSON: 5 decimals keep them well inside the JS check's 1e-4."""
    return [np.round(r.double().numpy(), digits).tolist() for r in rows]


def model_checks(model, text, with_mtp):
    """The schedule's logits with the weights the page carries (float16, rounded)."""
    ops = schedule(text, model.cfg.block_size, model.cfg.vocab_size)
    exact = rounded(model)
    out = {"ops": ops, "logits": round_rows(torch.cat(run_schedule(exact, ops)[0]))}
    if with_mtp:
        fed, rows = mtp_schedule(exact, text)
        out["mtp"] = {"text": text, "ops": fed, "logits": round_rows(torch.cat(rows))}
    return out


def rounding_effect(model, text, with_mtp):
    """What rounding the weights to float16 changes, on the checked text: the largest |Δlogit|
    and the largest total variation between the next-char distributions at T = 1."""
    ops = schedule(text, model.cfg.block_size, model.cfg.vocab_size)
    pairs = {"model": (torch.cat(run_schedule(model, ops)[0]), torch.cat(run_schedule(rounded(model), ops)[0]))}
    if with_mtp:
        pairs["mtp"] = (torch.cat(mtp_schedule(model, text)[1]), torch.cat(mtp_schedule(rounded(model), text)[1]))
    return {name: {"max_abs_logit": float((a - b).abs().max()),
                   "max_tv": float(0.5 * (a.softmax(-1) - b.softmax(-1)).abs().sum(-1).max()),
                   "argmax_agree": float((a.argmax(-1) == b.argmax(-1)).double().mean()),
                   "positions": a.shape[0]} for name, (a, b) in pairs.items()}


def rule_cases(main, draft, data, n_cases):
    """accept_reject on real p and q rows (float64), at T = 1 and T = 0, with the uniforms it
    drew: γ uniforms for the drafts, then one for the token it samples, as speculative.py draws them."""
    generator = torch.Generator().manual_seed(0)
    V, cases = main.cfg.vocab_size, []
    with torch.no_grad():
        for k in range(n_cases):
            gamma = 1 + k % 6
            start = 100 + 997 * k
            ids = data.val[start:start + main.cfg.block_size - 8 + gamma][None]  # γ <= 6: within one window
            p_logits = main(ids)[0][0, -gamma - 1:].double()
            q_logits = draft(ids)[0][0, -gamma - 1:-1].double()
            if k % 5 == 4:  # greedy: both one-hot
                p = torch.nn.functional.one_hot(p_logits.argmax(-1), V).double()
                q = torch.nn.functional.one_hot(q_logits.argmax(-1), V).double()
            else:
                p, q = torch.softmax(p_logits, -1), torch.softmax(q_logits, -1)
            if k % 6 == 2:  # γ = 3 with a first draft that always passes and a last that never does
                q[0] = p[0]
            drafts = torch.multinomial(q, 1, generator=generator)[:, 0]
            if k % 7 == 3 or k % 6 == 2:  # a draft q gives no mass: never accepted
                q[-1 if k % 6 == 2 else 0, drafts[-1 if k % 6 == 2 else 0]] = 0.0
            # the JSON's 8 decimals are the exact inputs of both rules (rows need not sum to 1)
            p, q = p.numpy().round(8), q.numpy().round(8)
            p, q = torch.from_numpy(p), torch.from_numpy(q)
            seed = 1000 + k
            n_acc, token = accept_reject(p, q, drafts, torch.Generator().manual_seed(seed))
            replay = torch.Generator().manual_seed(seed)
            u = uniforms(gamma, replay, torch.float64).tolist()
            s = torch.rand(1, generator=replay, dtype=torch.float64).item()
            cases.append({"p": p.tolist(), "q": q.tolist(), "drafts": drafts.tolist(), "uniforms": u + [s],
                          "n_accepted": n_acc, "next": token})
    return cases


def ngram_q_checks(table, data, n=20):
    """q rows of the n-gram table after val contexts of lengths 0..8 (back-off included)."""
    rows = []
    for k in range(n):
        start = 2000 + 131 * k
        context = data.val[start:start + k % 9].tolist()
        rows.append({"context": context, "q": np.round(table.context_probs(context).double().numpy(), 8).tolist()})
    return rows


def export(main, draft, data, model_seed):
    """(lab.json, lab_checks.json) payloads for a main model with its MTP head and a draft model."""
    text = data.val[CHECK_OFFSET:CHECK_OFFSET + CHECK_CHARS].tolist()
    train = data.train.tolist()
    lab = {"vocab": "".join(data.chars), "model_seed": model_seed,
           "main": float16_weights(main), "draft": float16_weights(draft),
           "ngram": {**ngram_trie(train, DEFAULT_ORDER, data.vocab_size), "built_from": "train split"},
           "check_chars": CHECK_CHARS,
           "rounding": {"main": rounding_effect(main, text, with_mtp=True),
                        "draft": rounding_effect(draft, text, with_mtp=False)}}
    checks = {"model_seed": model_seed, "main": model_checks(main, text, with_mtp=True),
              "draft": model_checks(draft, text, with_mtp=False),
              "rule": rule_cases(main, draft, data, RULE_CASES),
              "ngram": ngram_q_checks(NgramTable(train, DEFAULT_ORDER, data.vocab_size), data)}
    return lab, checks


def checks_path(results):
    """Where the checks go: tests/fixtures/ when the results go to experiments/results/ (the
    committed pair: the fixture checks the committed lab.json), else a fixtures/ folder inside the
    results folder given, so that a measurement elsewhere never overwrites the committed fixture."""
    return FIXTURE if Path(results).resolve() == RESULTS.resolve() else Path(results) / "fixtures" / FIXTURE.name


def measure(args, data, seeds, sizes):
    """lab.json for the results folder; the checks written beside it, to checks_path."""
    lab, checks = export(*main_and_draft(args, seeds[0]), data, seeds[0])
    path = checks_path(args.results)
    write_json(path, {"meta": meta(seeds, args.device), **checks})
    print(f"[measure] lab: wrote the JS checks to {path}", flush=True)
    return {"lab": lab}
