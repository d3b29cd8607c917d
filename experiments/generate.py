"""Generate text with plain decoding or speculative decoding with any drafter family.

    python -m experiments.generate --method draft --gamma 4 --mode kvcache --n 200 --prompt 'ROMEO:\\n'

Prints one JSON object: text, main_forwards, draft_forwards, proposed, accepted, wall_s, and
compile_s (the engine's compilation or package loading, not counted in wall_s). wall_s times a warm decode:
the same decode runs untimed first (--warmup characters, by default --n; its wall time in
warmup_s), as the measurements' warm-up does, because a fresh process's first decode is slower
than the next ones by a margin that differs by method and engine. For a chain, proposed is the
drafts and accepted/proposed their acceptance; for a token tree, proposed counts every candidate
node of every tree, so accepted/proposed is not α (most candidates are alternatives never on the
path). draft_forwards counts the drafter's forwards, its lookups (one per drafted character of a
chain, also where one search drafts the whole chain, as in prompt lookup and suffix decoding) or
its trees (one per tree). --engine compiled, aot and native need a
C++ compiler; without one it says so in one line and runs eagerly.
A literal \\n in --prompt means a newline.
"""
import sys
import time
from pathlib import Path

import orjson
import torch

from experiments.cli import ArgumentParser, DefaultsShown, UsageError, check_device, check_seed, check_threads, open_checkpoint, run_cli
from experiments.data import CharData
from experiments.engine import ENGINES
from experiments.graphs import ROPE_POSITIONS
from experiments.runners import EngineUnavailable
from experiments.heads import load_drafter
from experiments.methods import FAMILIES, Models, Spec, check, check_options, decode, names, orders
from experiments.model import CheckpointError
from experiments.native import kernel_choice
from experiments.ngram import DEFAULT_ORDER
from experiments.rule import check_temperature
from experiments.runners import MODES
from experiments.runs import CHECKPOINTS


MAX_SCALE = 1000  # 1000× the trained main model is about 3 GB of weights
MAX_TEXT = ROPE_POSITIONS - 64  # prompt + --n on every engine: the static engines' RoPE tables, less a round's drafts


def load_model(path, device, flag="--checkpoint"):
    return open_checkpoint(path, device, flag)[0]


def compiled_positions(prompt_length, n, spec):
    """The most positions the compiled engine's RoPE tables are asked for (engine.check_positions
    counts a forward's new positions plus its largest compiled size on top)."""
    end = prompt_length + n
    if spec.method == "plain":  # one new token, at end - 2 at the latest; compiled size 1
        return end
    if spec.tree is not None:  # the last tree with children is rooted at end - 3 and padded to its nodes
        return max(end, end - 3 + spec.tree)
    return end + spec.gamma  # the pending token + up to γ drafts, ending at end - 2; compiled size γ + 1


def models_from_flags(args, device, data):
    """The models --method needs, from the checkpoint flags (methods.Models)."""
    main = load_model(args.checkpoint, device)
    models = Models(main, train_tokens=data.train.tolist() if FAMILIES[args.method].source == "corpus" else None,
                    vocab_size=data.vocab_size)
    if FAMILIES[args.method].source == "draft":
        models.draft = load_model(args.draft_checkpoint, device, "--draft-checkpoint")
    if FAMILIES[args.method].source == "heads":
        path = Path(args.heads_checkpoint or CHECKPOINTS / f"{args.method}_s0.pt")
        if not path.exists():
            raise UsageError(f"--heads-checkpoint {path} not found: run `make data` (or python -m "
                             f"experiments.train --model {args.method}) to train it")
        try:
            models.heads[args.method] = load_drafter(path, device, main=main)[0]
        except CheckpointError as err:
            raise UsageError(f"--heads-checkpoint {err}") from None
        except ValueError as err:
            raise UsageError(f"the drafter (--heads-checkpoint) does not fit the main model (--checkpoint): {err}") from None
    return models


def checked_options(check_spec, *args):
    """check_spec(*args) (methods.check or check_options), its ValueError a UsageError: every
    message of theirs starts with the option it is about."""
    try:
        return check_spec(*args)
    except ValueError as err:
        raise UsageError(f"--{err}") from None


def check_kernel(engine):
    """$NATIVE_KERNEL, which the native engine reads, before any model is loaded."""
    if engine == "native":
        kernel_choice()


def run(args):
    if args.n < 1:
        raise UsageError(f"--n must be at least 1, got {args.n}")
    if args.warmup is None:
        args.warmup = args.n
    if args.warmup < 0:
        raise UsageError(f"--warmup must be at least 0, got {args.warmup}")
    try:
        check_temperature(args.temperature)
    except ValueError as err:
        raise UsageError(f"--{err}") from None  # the message starts with the parameter's name
    spec = Spec(args.method, args.gamma, args.tree, args.order)
    checked_options(check_options, spec, args.mode, args.engine)  # before the data and models load (seconds)
    check_kernel(args.engine)
    device = check_device(args.device)
    check_threads(args.threads)
    check_seed(args.seed)
    if not 1 <= args.scale <= MAX_SCALE:
        raise UsageError(f"--scale must be between 1 and {MAX_SCALE}, got {args.scale:g}")
    prompt_text = args.prompt.replace("\\n", "\n")
    if not prompt_text:
        raise UsageError("--prompt must not be empty")
    if len(prompt_text) + args.n > MAX_TEXT:
        raise UsageError(f"--n {args.n} and the prompt ({len(prompt_text)} characters) make {len(prompt_text) + args.n:,}: "
                         f"every engine holds at most {MAX_TEXT:,} characters of text")
    data = CharData()
    try:
        prompt = data.encode(prompt_text)
    except ValueError as err:
        raise UsageError(f"--prompt: {err}") from err
    torch.set_num_threads(args.threads)
    models = models_from_flags(args, device, data).heavy_twin(args.scale)
    spec = checked_options(check, spec, models, args.mode, args.engine)
    needed = compiled_positions(len(prompt), args.n, spec)
    if args.engine in ("compiled", "aot") and needed > ROPE_POSITIONS:
        raise UsageError(f"--engine {args.engine} holds {ROPE_POSITIONS} positions; the prompt ({len(prompt)} chars) "
                         f"and --n {args.n} need {needed} (a chain adds --gamma, a tree --tree − 3): "
                         f"shorten the prompt or --n")

    engine = args.engine

    def timed(n):
        """(Result, wall seconds without compilation) of one decode of n characters; the first
        decode that finds the engine unavailable says so once and runs eager from then on."""
        nonlocal engine
        t0 = time.perf_counter()
        try:
            result = decode(spec, models, prompt, n, args.temperature, args.mode, engine,
                            torch.Generator(device=device).manual_seed(args.seed))
        except EngineUnavailable as err:
            print(f"note: the {engine} engine is unavailable here ({err}); running eager instead", file=sys.stderr)
            engine = "eager"
            return timed(n)
        return result, time.perf_counter() - t0 - result.compile_s

    with torch.inference_mode():
        warm = timed(min(args.warmup, args.n)) if args.warmup else None
        result, wall_s = timed(args.n)
    compile_s = result.compile_s + (warm[0].compile_s if warm else 0.0)
    return {"text": data.decode(result.tokens), "main_forwards": result.main_forwards,
            "draft_forwards": result.draft_forwards, "proposed": result.proposed,
            "accepted": result.accepted, "wall_s": round(wall_s, 4), "compile_s": round(compile_s, 2),
            "warmup_s": round(warm[1], 4) if warm else 0.0}


def main(argv=None):
    parser = ArgumentParser(prog="python -m experiments.generate", description=__doc__.split("\n")[0],
                            formatter_class=DefaultsShown)
    parser.add_argument("--method", choices=list(FAMILIES), default="plain",
                        help="plain decoding, or speculative decoding with this drafter family (experiments/methods.py)")
    parser.add_argument("--order", type=int, default=None,
                        help="ngram: the table's order (contexts of up to order - 1 characters, default "
                             f"{DEFAULT_ORDER}); match: the order of the table it fills with after copying the "
                             "longest earlier match of at least 6 characters; lookup: match the last order - 1 characters (default "
                             f"{orders()['lookup']}); lookahead: the n-gram size (default {orders()['lookahead']})")
    parser.add_argument("--gamma", type=int, default=None,
                        help="drafts per main forward of a chain (default 1; 1 to 63; mtp: 1; medusa: at most its "
                             "heads; block: at most its mask positions; suffix: at most, fewer after a short match); lookahead: its Jacobi window (default: a third of --tree's nodes, else 1); "
                             "not for plain decoding or the other trees, whose depth comes from --tree")
    parser.add_argument("--tree", type=int, default=None,
                        help=f"verify a token tree of 2 to 64 nodes per main forward instead of a chain "
                             f"({', '.join(names(tree=True))}; kvcache mode)")
    parser.add_argument("--mode", choices=MODES, default="kvcache",
                        help="kvcache: a sliding 64-position cache; recompute: every forward reruns the last 64 characters")
    parser.add_argument("--engine", choices=list(ENGINES), default="eager",
                        help="eager: the PyTorch modules as written (both modes); compiled: static kv cache + torch.compile steps; aot: the same steps as AOTInductor "
                             "packages, built once and kept on disk; native: a C++ step (all three: kvcache mode "
                             "only, and they need a C++ compiler: without one, one line says so and eager runs)")
    parser.add_argument("--temperature", type=float, default=1.0,
                        help="divides both models' logits: 0 is greedy, otherwise at least 0.01")
    parser.add_argument("--n", type=int, default=200,
                        help=f"characters to generate (with the prompt, at most {MAX_TEXT:,} on every engine)")
    parser.add_argument("--prompt", default="ROMEO:\\n", help="the text to continue (\\n is a newline)")
    parser.add_argument("--seed", type=int, default=0, help="the sampling seed")
    parser.add_argument("--warmup", type=int, default=None,
                        help="characters decoded untimed first (warmup_s; default: --n), so that wall_s times a "
                             "warm decode, as the measurements do; 0 times the process's first, cold decode")
    parser.add_argument("--checkpoint", default=str(CHECKPOINTS / "main_s0.pt"), help="the main model (with its MTP head)")
    parser.add_argument("--draft-checkpoint", default=str(CHECKPOINTS / "draft_s0.pt"), help="--method draft: the draft model")
    parser.add_argument("--heads-checkpoint", default=None,
                        help="medusa / eagle / eagle3 / block: the trained drafter (default experiments/checkpoints/<method>_s0.pt); "
                             "its main model is --checkpoint")
    parser.add_argument("--device", default="cpu", help="cpu, or cuda / cuda:N where a GPU is present")
    parser.add_argument("--scale", type=float, default=1,
                        help="run the heavy twin of every network: scale× its weights, the same function (extra "
                             "SwiGLU units whose output weights are zero), as a larger model reads its weights; 1 is "
                             "the model as trained")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads (1 is as fast as more for batch-1 decoding on a small CPU)")
    args = parser.parse_args(argv)

    def run_and_print(args):
        sys.stdout.write(orjson.dumps(run(args)).decode() + "\n")
        return 0
    return run_cli(run_and_print, args)


if __name__ == "__main__":
    sys.exit(main())
