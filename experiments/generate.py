"""Generate text with plain decoding or speculative decoding with any drafter family.

    python -m experiments.generate --method draft --gamma 4 --mode kvcache --n 200 --prompt 'ROMEO:\\n'

Prints one JSON object: text, main_forwards, draft_forwards, proposed, accepted, wall_s, and
compile_s (the compiled engine's compilation, not counted in wall_s). --engine compiled needs a
C++ compiler; without one it says so in one line and runs eagerly.
A literal \\n in --prompt means a newline.
"""
import sys
import time
from pathlib import Path

import orjson
import torch

from experiments.cli import ArgumentParser, UsageError, check_device, check_seed, check_threads, open_checkpoint, run_cli
from experiments.data import CharData
from experiments.engine import ROPE_POSITIONS, CompileUnavailable
from experiments.ngram import DEFAULT_ORDER, MAX_ORDER, NgramTable, PromptLookup
from experiments.heads import KINDS, load_drafter
from experiments.lookahead import Lookahead
from experiments.speculative import (ENGINES, MODES, check_engine, check_gamma, check_temperature, feature_decode,
                                     mtp_decode, plain_decode, speculative_decode)
from experiments.trees import tree_decode

CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
TREE_METHODS = ("ngram", "lookup", "medusa", "eagle", "lookahead")


def load_model(path, device, flag="--checkpoint"):
    return open_checkpoint(path, device, flag)[0]


def compiled_positions(prompt_length, args):
    """The most positions the compiled engine's RoPE tables are asked for (engine.check_positions
    counts a forward's new positions plus its largest compiled size on top)."""
    end = prompt_length + args.n
    if args.method == "plain":  # one new token, at end - 2 at the latest; compiled size 1
        return end
    if args.tree is not None:  # the last tree with children is rooted at end - 3 and padded to --tree nodes
        return max(end, end - 3 + args.tree)
    return end + args.gamma  # the pending token + up to γ drafts, ending at end - 2; compiled size γ + 1


def run(args):
    if args.gamma < 1:
        raise UsageError(f"--gamma must be at least 1, got {args.gamma}")
    if args.n < 1:
        raise UsageError(f"--n must be at least 1, got {args.n}")
    try:
        check_temperature(args.temperature)
    except ValueError as err:
        raise UsageError(f"--{err}") from None  # the message starts with the parameter's name
    if args.method == "mtp" and args.gamma != 1:
        raise UsageError("the MTP head has depth 1: it drafts one token, so --gamma must be 1")
    if args.tree is not None:
        if args.method not in TREE_METHODS:
            raise UsageError(f"--tree applies to {', '.join(TREE_METHODS)}, not --method {args.method}")
        if args.mode != "kvcache":
            raise UsageError("--tree verifies a token tree against the kv cache: use --mode kvcache")
        if not 2 <= args.tree <= 64:
            raise UsageError(f"--tree must be between 2 and 64 nodes (one verify window), got {args.tree}")
    if args.method == "lookahead" and args.mode != "kvcache":
        raise UsageError("lookahead verifies a token tree against the kv cache: use --mode kvcache")
    try:
        check_engine(args.engine, args.mode)
    except ValueError as err:
        raise UsageError(f"--{err}") from None
    device = check_device(args.device)
    check_threads(args.threads)
    check_seed(args.seed)
    prompt_text = args.prompt.replace("\\n", "\n")
    if not prompt_text:
        raise UsageError("--prompt must not be empty")
    data = CharData()
    try:
        prompt = data.encode(prompt_text)
    except ValueError as err:
        raise UsageError(f"--prompt: {err}") from err
    torch.set_num_threads(args.threads)
    model = load_model(args.checkpoint, device)
    if args.method == "mtp" and model.mtp is None:
        raise UsageError(f"--checkpoint {args.checkpoint} has no MTP head (it was trained with "
                         f"--mtp 0): use a main checkpoint for --method mtp")
    if args.method in ("draft", "ngram", "lookup", *KINDS):
        try:
            check_gamma(args.gamma, model.cfg.block_size)
        except ValueError as err:
            raise UsageError(f"--{err}") from None
    if args.method in KINDS:
        path = Path(args.heads_checkpoint or CHECKPOINTS / f"{args.method}_s0.pt")
        if not path.is_file():
            raise UsageError(f"--heads-checkpoint {path} not found: run `make data` (or python -m "
                             f"experiments.train --model {args.method}) to train it")
        try:
            draft = load_drafter(path, device, main=model)[0]
        except ValueError as err:
            raise UsageError(f"the drafter (--heads-checkpoint) does not fit the main model (--checkpoint): {err}") from None
        if draft.cfg.kind != args.method:
            raise UsageError(f"--heads-checkpoint {path} holds {draft.cfg.kind} drafters, not {args.method}")
        if args.method == "medusa" and args.gamma > draft.cfg.n_heads:
            raise UsageError(f"--gamma must be at most {draft.cfg.n_heads} for medusa: one draft per head")
    if args.method == "draft":
        draft = load_model(args.draft_checkpoint, device, "--draft-checkpoint")
    if args.method == "ngram":
        if not 1 <= args.order <= MAX_ORDER:
            raise UsageError(f"--order must be between 1 and {MAX_ORDER}, got {args.order}")
        draft = NgramTable(data.train.tolist(), args.order, data.vocab_size)
    if args.method == "lookup":  # the last --order - 1 characters are looked up in the text so far
        if not 2 <= args.order <= MAX_ORDER:
            raise UsageError(f"--order must be between 2 and {MAX_ORDER} for lookup, got {args.order}")
        draft = PromptLookup(args.order - 1, data.vocab_size)
    if args.method == "lookahead":  # window --gamma, n-grams of --order, candidates to fill --tree
        if not 2 <= args.order <= MAX_ORDER:
            raise UsageError(f"--order must be between 2 and {MAX_ORDER} for lookahead, got {args.order}")
        candidates = args.gamma if args.tree is None else (args.tree - 1 - args.gamma) // (args.order - 1)
        if candidates < 0:
            raise UsageError(f"--tree {args.tree} leaves no room for a window of --gamma {args.gamma}")
        draft = Lookahead(args.gamma, args.order, candidates)
        args.tree = args.tree or draft.nodes()
        if args.tree > 64:
            raise UsageError(f"lookahead's tree (1 + --gamma + --gamma × (--order − 1) = {args.tree} nodes) must fit "
                             f"one 64-position verify: lower --gamma or --order, or give --tree")
    needed = compiled_positions(len(prompt), args)
    if args.engine == "compiled" and needed > ROPE_POSITIONS:
        raise UsageError(f"--engine compiled holds {ROPE_POSITIONS} positions; the prompt ({len(prompt)} chars) "
                         f"and --n {args.n} need {needed} (a chain adds --gamma, a tree --tree − 3): "
                         f"shorten the prompt or --n")

    def decode(engine):
        generator = torch.Generator(device=device).manual_seed(args.seed)
        common = dict(temperature=args.temperature, mode=args.mode, generator=generator, engine=engine)
        if args.tree is not None:
            tree_drafter = draft.tree_runner() if args.method in KINDS else \
                draft if args.method == "lookahead" else draft.drafter()
            del common["mode"]
            return tree_decode(model, tree_drafter, prompt, args.n, args.tree, **common)
        if args.method == "plain":
            return plain_decode(model, prompt, args.n, **common)
        if args.method in ("draft", "ngram", "lookup"):
            return speculative_decode(model, draft, prompt, args.n, args.gamma, **common)
        if args.method in KINDS:
            return feature_decode(model, draft, prompt, args.n, args.gamma, **common)
        return mtp_decode(model, prompt, args.n, **common)

    with torch.inference_mode():
        t0 = time.perf_counter()
        try:
            result = decode(args.engine)
        except CompileUnavailable as err:
            print(f"note: the compiled engine is unavailable here ({err}); running eager instead", file=sys.stderr)
            t0 = time.perf_counter()
            result = decode("eager")
        wall_s = time.perf_counter() - t0 - result.compile_s
    return {"text": data.decode(result.tokens), "main_forwards": result.main_forwards,
            "draft_forwards": result.draft_forwards, "proposed": result.proposed,
            "accepted": result.accepted, "wall_s": round(wall_s, 4), "compile_s": round(result.compile_s, 2)}


def main(argv=None):
    parser = ArgumentParser(prog="python -m experiments.generate", description=__doc__.split("\n")[0])
    parser.add_argument("--method", choices=["plain", "draft", "ngram", "lookup", "mtp", *KINDS, "lookahead"],
                        default="plain")
    parser.add_argument("--order", type=int, default=DEFAULT_ORDER,
                        help="ngram: the table's order (contexts of up to order - 1 characters); "
                             "lookup: match the last order - 1 characters; lookahead: the n-gram size")
    parser.add_argument("--gamma", type=int, default=1,
                        help="drafts per main forward (a chain); lookahead: its Jacobi window")
    parser.add_argument("--tree", type=int, default=None,
                        help=f"verify a token tree of this many nodes per main forward ({', '.join(TREE_METHODS)})")
    parser.add_argument("--mode", choices=MODES, default="kvcache",
                        help="kvcache: a sliding 64-position cache; recompute: every forward reruns the last 64 characters")
    parser.add_argument("--engine", choices=ENGINES, default="eager",
                        help="compiled: static kv cache + torch.compile steps (kvcache mode only)")
    parser.add_argument("--temperature", type=float, default=1.0,
                        help="divides both models' logits: 0 is greedy, otherwise at least 0.01")
    parser.add_argument("--n", type=int, default=200, help="characters to generate")
    parser.add_argument("--prompt", default="ROMEO:\\n", help="the text to continue (\\n is a newline)")
    parser.add_argument("--seed", type=int, default=0, help="the sampling seed")
    parser.add_argument("--checkpoint", default=str(CHECKPOINTS / "main_s0.pt"), help="the main model (with its MTP head)")
    parser.add_argument("--draft-checkpoint", default=str(CHECKPOINTS / "draft_s0.pt"), help="--method draft: the draft model")
    parser.add_argument("--heads-checkpoint", default=None,
                        help="medusa / eagle: the trained drafter (default experiments/checkpoints/<method>_s0.pt); "
                             "its main model is --checkpoint")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)

    def run_and_print(args):
        sys.stdout.write(orjson.dumps(run(args)).decode() + "\n")
        return 0
    return run_cli(run_and_print, args)


if __name__ == "__main__":
    sys.exit(main())
