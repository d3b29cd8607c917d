"""conditions.json (section ⑦ "Choosing a method"): when speculation pays, on the first seed's models.

- temperature: α (teacher-forced first draft) and tokens per main forward of every drafter at
  each T in TEMPERATURES, one text per sampling seed (the spread is over the seeds);
- texts: α of every drafter on three kinds of text, at T = 1 and T = 0: held-out Shakespeare
  (speeches of the validation split), text the main model writes itself, and a repetitive text
  (the validation split's speaker names, one per line, in order);
- lengths: wall time of plain decoding and every drafter for outputs of each length (warm, on
  the chapter's answer engine, the one the dial runs on), and what a fresh
  `python -m experiments.generate` process on that engine pays before its first character:
  importing, loading, building the n-gram table;
- summary: the conclusions section ⑦ and the closing quiz print (the draft model's α peak and
  low, the gap between two kinds of text, where the n-gram table pays back), written
  by `summarize` so templates only format.

Its results are declared in experiments/records/conditions.py: ConditionsFile (conditions.json).
"""
import statistics
import subprocess
import time

import orjson
import torch

from experiments.heads import load_drafter
from experiments.measure.common import DRAFT, LEDGER_PROMPT, MAIN_MTP, ROOT, answer_engine, engines_of, generate_command
from experiments.methods import FAMILIES, Spec, decoder, load_models, names, spec_of
from experiments.probes import alpha_along, first_drafters, one_hot, pooled, written_text
from experiments.model import load_checkpoint
from experiments.ngram import DEFAULT_ORDER, NgramTable
from experiments.suffix import SuffixIndex
from experiments.engine import available_engines
from experiments.timing import interleaved, per_call, set_threads, summary
from experiments.runs import run_name

TEMPERATURES = (0.0, 0.5, 0.8, 1.0, 1.3)
# one configuration per family (Family.config), the same at every temperature and length: a chain
# of 4 drafts (Medusa has 3 heads, the MTP head drafts 1), lookahead a 16-node tree
CONFIGS = {name: FAMILIES[name].config for name in names(measured=True)}
SPECS = {name: spec_of(name, *config) for name, config in CONFIGS.items()}
TEXT_KINDS = ("val", "own", "repetitive")


def spread(values, mean=None):
    """Mean, min and max over texts (None where no text gave a value: prompt lookup never drafted);
    `mean`, where given, stands for the mean (the value pooled over every position of the texts)."""
    values = [v for v in values if v is not None]
    if not values:
        return {"mean": None, "min": None, "max": None, "values": []}
    return {"mean": statistics.mean(values) if mean is None else mean, "min": min(values), "max": max(values),
            "values": values}


def over_texts(measured, name, key):
    """One drafter's α (or coverage) over several texts (alpha_along's results, one per text), as
    ⑤ measures it: pooled over every position of the texts, with each single text's beside it."""
    return spread([pooled([one])[name][key] for one in measured], pooled(measured)[name][key])


def first_draft_start(prompt):
    return len(prompt) + 2  # the MTP head and Medusa need two characters of text before a draft


def by_temperature(models, prompt, n_chars, seeds, device):
    """α and tokens per main forward of every family at each temperature (T = 0: one text, the
    greedy one, whatever the seed)."""
    out = []
    for temperature in TEMPERATURES:
        measured, tokens = [], {family: [] for family in CONFIGS}
        for seed in seeds if temperature else seeds[:1]:
            text = written_text(models.main, prompt, n_chars, temperature, seed, device)
            measured.append(alpha_along(models, text, first_draft_start(prompt), temperature, device))
            for family, spec in SPECS.items():
                decode = decoder(spec, models, prompt, n_chars, temperature, "kvcache", "eager", device)
                tokens[family].append(decode(seed).tokens_per_main)
        out.append({"temperature": temperature, "texts": len(measured),
                    "alpha": {name: over_texts(measured, name, "alpha") for name in first_drafters(models)},
                    "coverage": {name: over_texts(measured, name, "coverage") for name in one_hot(first_drafters(models))},
                    "tokens_per_main": {family: spread(values) for family, values in tokens.items()}})
        print(f"  T={temperature:g}: " + ", ".join(f"{n} α {a['mean']}" for n, a in out[-1]["alpha"].items()),
              flush=True)
    return out


def speeches(data, n_chars, count):
    """`count` texts of n_chars from the validation split, each starting at a speaker's name
    (just after a blank line), spread evenly over the split."""
    val = data.decode(data.val.tolist())
    starts = [i + 2 for i in range(len(val) - n_chars) if val.startswith("\n\n", i)]
    return [data.encode(val[starts[k * len(starts) // count]:][:n_chars]) for k in range(count)]


def speaker_lines(data, n_chars):
    """The speaker names of the validation split in order, one per line ("ROMEO:\\n..."): a
    text that repeats itself, where retrieval should shine."""
    val = data.decode(data.val.tolist())
    names = [speech.split("\n")[0] for speech in val.split("\n\n")[1:]]  # the first line of each speech
    return data.encode("".join(f"{name}\n" for name in names)[:n_chars])


def by_text(models, data, prompt, n_chars, seeds, device):
    """α of every drafter on each kind of text, at T = 1 and T = 0 (teacher-forced: the text is
    the context, whoever wrote it)."""
    out = {}
    for temperature in (1.0, 0.0):
        texts = {"val": speeches(data, n_chars, len(seeds)),
                 "own": [written_text(models.main, prompt, n_chars, temperature, seed, device)
                         for seed in (seeds if temperature else seeds[:1])],
                 "repetitive": [speaker_lines(data, n_chars)]}
        for kind, kind_texts in texts.items():
            measured = [alpha_along(models, text, first_draft_start(prompt), temperature, device) for text in kind_texts]
            out.setdefault(kind, {})[f"T{temperature:g}"] = {"texts": len(kind_texts), "drafters": pooled(measured)}
    return out


def warm_walls(models, prompt, lengths, repeats, engine, device):
    """Wall seconds of plain decoding and every family's configuration for each output length,
    warm (after a warm-up decode), interleaved; T = 1."""
    rows = []
    for n in lengths:
        methods = {family: decoder(spec, models, prompt, n, 1.0, "kvcache", engine, device)
                   for family, spec in {"plain": Spec("plain"), **SPECS}.items()}
        runs = interleaved(methods, repeats, warmup=1, device=device)
        plain = statistics.median(runs["plain"]["wall_s"])
        for family, run in runs.items():
            rows.append({"engine": engine, "n_chars": n, "family": family, "wall_s": summary(run["wall_s"]),
                         "speedup": plain / statistics.median(run["wall_s"]),
                         "main_forwards": statistics.mean(r.main_forwards for r in run["results"])})
        print(f"  {engine} n={n}: " + ", ".join(f"{r['family']} {r['speedup']:.2f}" for r in rows[-len(runs):]),
              flush=True)
    return rows


def start_up(args, seed, engine, n_chars, families=None):
    """What a fresh process pays before it decodes, for plain decoding and every family: its wall
    time minus the decode's own wall_s (which generate reports without compilation or loading the
    engine's library), and that loading alone (compile_s). One untimed process first, so that every
    timed one finds the files in the page cache. `families` (None: every one) cuts the list, for a
    quick run."""
    def run(family):  # --warmup 0: the process's first decode is the one timed, as a reader's would be
        command = generate_command(args, seed, family, engine, n_chars, *CONFIGS.get(family, (None, None)))
        return subprocess.run(command + ["--warmup", "0"], capture_output=True, check=True, cwd=ROOT)
    run("plain")
    rows = []
    for family in ("plain", *(f for f in CONFIGS if families is None or f in families)):
        t0 = time.perf_counter()
        result = orjson.loads(run(family).stdout)
        process_s = time.perf_counter() - t0
        rows.append({"engine": engine, "family": family, "process_s": process_s, "decode_s": result["wall_s"],
                     "start_up_s": process_s - result["wall_s"], "compile_s": result["compile_s"]})
    print(f"  start-up {engine}: " + ", ".join(f"{r['family']} {r['start_up_s']:.1f} s" for r in rows), flush=True)
    return rows


def preparation(args, data, seed):
    """The parts of start-up that belong to a drafter, timed in this process (best of 3): loading
    each checkpoint, building the n-gram table and suffix decoding's index from the training split."""
    best_of_3 = lambda fn: per_call(fn, calls=3, warmup=0)["min"]

    path = lambda name: args.checkpoints / f"{name}.pt"
    train = data.train.tolist()
    return {"load_main_s": best_of_3(lambda: load_checkpoint(path(run_name(*MAIN_MTP, seed)), args.device)),
            "load_draft_s": best_of_3(lambda: load_checkpoint(path(run_name(*DRAFT, seed)), args.device)),
            **{f"load_{kind}_s": best_of_3(lambda: load_drafter(path(run_name(kind, 0, seed)), args.device))
               for kind in names(source="heads")},
            "ngram_table_s": best_of_3(lambda: NgramTable(train, DEFAULT_ORDER, data.vocab_size)),
            "suffix_index_s": best_of_3(lambda: SuffixIndex(train, data.vocab_size))}


def summarize(payload, drafter="draft"):
    """The conclusions section ⑦ and the closing quiz print, from the payload `measure` writes:
    the engine the timings ran on; `drafter`'s α and tokens per main forward against
    temperature (the lowest α over every T, the peaks over T > 0, first in temperature order on a
    tie); how far α on held-out text strays from α on the main model's own text; and what the
    n-gram table saves per character at the longest output, and after how many characters that
    pays back building it."""
    rows = payload["by_temperature"]
    alpha = lambda r: r["alpha"][drafter]["mean"]
    tokens = lambda r: r["tokens_per_main"][drafter]["mean"]
    at = {r["temperature"]: r for r in rows}
    warm = [r for r in rows if r["temperature"] > 0]
    low, peak, peak_tokens = min(rows, key=alpha), max(warm, key=alpha), max(warm, key=tokens)
    highest = at[max(payload["temperatures"])]
    others = [alpha(r) for r in rows if r["temperature"] != low["temperature"]]
    temperature = {
        "drafter": drafter,
        "lowest_alpha": {"temperature": low["temperature"], "alpha": alpha(low)},
        "other_alpha": {"min": min(others), "max": max(others)},  # every other temperature's α
        "peak_alpha": {"temperature": peak["temperature"], "alpha": alpha(peak)},
        "peak_tokens": {"temperature": peak_tokens["temperature"], "tokens_per_main": tokens(peak_tokens)},
        "highest": {"temperature": highest["temperature"], "alpha": alpha(highest)},
        "rises_from_T0": alpha(peak) > alpha(at[0.0]),      # greedy is not where α peaks
        "falls_past_peak": alpha(highest) < alpha(peak)}    # the highest T loses α again
    t1 = {kind: payload["by_text"][kind]["T1"]["drafters"] for kind in payload["text_kinds"]}
    # every drafter but prompt lookup, whose α counts only where it drafts (the page says why apart)
    gap = max(abs(t1["val"][f]["alpha"] - t1["own"][f]["alpha"]) for f in t1["val"]
              if f != "lookup" and f in t1["own"] and t1["val"][f]["alpha"] is not None and t1["own"][f]["alpha"] is not None)
    texts = {"val_own_gap": gap,            # max |α(held-out) − α(own text)|, T = 1
             "val_own_bound": gap + 0.005,  # what the page prints ("within %.2f"): never below the gap
             "draft_rises_on_repetitive": t1["repetitive"]["draft"]["alpha"] > t1["own"]["draft"]["alpha"],
             "lookup_drafts_more_on_val": t1["val"]["lookup"]["coverage"] > t1["own"]["lookup"]["coverage"]}
    longest, engine = max(payload["lengths"]), payload["engine"]
    wall = {(r["n_chars"], r["family"]): r["wall_s"]["median"] for r in payload["by_length"]}
    per_char = {f: wall[longest, f] / longest for f in ("plain", "ngram")}
    saves = per_char["plain"] - per_char["ngram"]  # seconds the n-gram chain saves per character
    lengths = {"shortest": min(payload["lengths"]), "longest": longest, "per_char_s": per_char,
               # plain decoding's seconds per character at every length (keys: str(length))
               "plain_per_char_s": {str(n): wall[n, "plain"] / n for n in payload["lengths"]},
               # the families slower than plain decoding there: a speedup that prints below 1.00×
               "slower_than_plain": {str(n): [r["family"] for r in payload["by_length"]
                                              if r["n_chars"] == n and r["speedup"] < 0.995]
                                     for n in payload["lengths"]},
               # the n-gram chain against building its table: the characters that repay it
               "ngram_table": ({"saves_per_char_s": saves,
                                "pays_back_after_chars": payload["preparation"]["ngram_table_s"] / saves}
                               if saves > 0 else None)}
    return {"engine": engine, "temperature": temperature, "texts": texts, "lengths": lengths}


def measure(args, data, seeds, sizes):
    threads = set_threads(1)
    seed = seeds[0]
    models = load_models(args.checkpoints, seed, args.device, data.train.tolist(), data.vocab_size)
    engine = answer_engine(available_engines(models.main, engines_of(args)))
    prompt, n_chars = data.encode(LEDGER_PROMPT), sizes.ledger_chars
    text_seeds = list(range(sizes.alpha_runs))  # the texts ⑤'s α is measured on: T = 1 gives its α exactly
    with torch.inference_mode():
        temperature = by_temperature(models, prompt, n_chars, text_seeds, args.device)
        texts = by_text(models, data, prompt, n_chars, text_seeds, args.device)
        walls = warm_walls(models, prompt, sizes.condition_lengths, sizes.condition_repeats, engine, args.device)
    payload = {
        "prompt": LEDGER_PROMPT, "n_chars": n_chars, "threads": threads, "engine": engine, "model_seed": seed,
        "configs": {family: {"shape": shape, "size": size, "name": str(spec_of(family, shape, size))}
                    for family, (shape, size) in CONFIGS.items()},
        "temperatures": list(TEMPERATURES), "text_seeds": text_seeds, "by_temperature": temperature,
        "text_kinds": list(TEXT_KINDS), "by_text": texts,
        "lengths": list(sizes.condition_lengths), "repeats": sizes.condition_repeats, "by_length": walls,
        "start_up": start_up(args, seed, engine, min(sizes.condition_lengths), sizes.start_up_families),
        "preparation": preparation(args, data, seed),
        "start_up_how": (f"a fresh `python -m experiments.generate --engine {engine}` process per family, "
                         f"{min(sizes.condition_lengths)} characters: its wall time minus the decode's own "
                         "(importing torch, loading the checkpoints and the engine's library, building the n-gram table)")}
    return {"conditions": {**payload, "summary": summarize(payload)}}
