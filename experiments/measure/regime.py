"""regime.json (the dial): when does speculative decoding pay? The trained models made S× heavier
in weights (model.heavy_twin: the same functions, S× the bytes a forward reads, as a larger model
does), from the model as trained, whose 2.95 MB sit in the CPU's cache, to a main model far past
it, all on the native engine, where a call costs little more than reading its weights and doing
its arithmetic.

Per scale:
- prices (prices.forward_prices): a main forward on k = 1..9 new positions over one on 1 (r_k), and
  the draft model's and the MTP head's c;
- every drafter family: its fastest candidate configuration at T = 1 and at T = 0 (a choosing pass
  of few repeats), then those rows and plain decoding interleaved, paired repeat by repeat
  (rows.timed_row: α, characters per verify, the round taken apart, c as measured in the run), and
  Theorem 3.8 at the measured α, c and r_{γ+1};
and once: the machine's roofline (a streaming read of a buffer far larger than the cache, a large
matmul), with each scale's main(1) time and r_k as the roofline predicts them.

Fills chapter/schema.py SCHEMA["regime.json"]."""
import statistics
import time

import torch

from experiments.jsonio import cpu_details
from experiments.engine import available_engines
from experiments.measure.common import LEDGER_PROMPT, engines_of, load_seed
from experiments.measure.rows import fresh_check, timed_row
from experiments.methods import accepts, config_decoder, config_name, spec_of
from experiments.prices import forward_prices
from experiments.stats import paired_verdict, theorem_3_8
from experiments.timing import interleaved, set_threads, summary

ENGINE = "native"
TEMPERATURES = (1.0, 0.0)
POSITIONS = tuple(range(1, 10))  # r_k for k = 1..9: a verify of up to 8 drafts and the bonus
# (family, shape, size) candidates: chains of a few lengths per family, lookahead's tree
CANDIDATES = {"draft": [("chain", g) for g in (2, 3, 4, 6)], "mtp": [("chain", 1)],
              "ngram": [("chain", g) for g in (3, 5, 8)], "lookup": [("chain", g) for g in (4, 8)],
              "match": [("chain", g) for g in (6, 8)], "suffix": [("chain", g) for g in (4, 8)],
              "medusa": [("chain", 3)], "eagle": [("chain", g) for g in (3, 5)],
              "eagle3": [("chain", g) for g in (3, 5)], "block": [("chain", g) for g in (4, 8)],
              "lookahead": [("tree", 16)]}
BANDWIDTH_SWEEP_MB = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
KNEE = 1.25  # the cache's edge: the smallest buffer streamed at most 1.25× as fast as the largest


def streaming_bandwidth(megabytes, seconds=0.2):
    """Bytes per second of a single-threaded sum over a float32 buffer of that size (best of the
    passes that fit in `seconds`, after one untimed pass)."""
    x = torch.ones(megabytes * 2 ** 18)
    x.sum()
    best, spent = float("inf"), 0.0
    while spent < seconds or best == float("inf"):
        took = timed(x.sum)
        best, spent = min(best, took), spent + took
    return x.numel() * 4 / best


def matmul_throughput(n=1024, repeats=5):
    """Floating-point operations per second of one thread's n × n float32 matmul (best of repeats)."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b
    best = min(timed(lambda: a @ b) for _ in range(repeats))
    return 2 * n ** 3 / best


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def roofline(sweep=BANDWIDTH_SWEEP_MB):
    """The machine's two ceilings for one thread, and where its caches stop helping."""
    curve = {mb: streaming_bandwidth(mb) for mb in sweep}
    far = curve[sweep[-1]]
    knee = next(mb for mb in sweep if curve[mb] <= KNEE * far)
    return {"bandwidth_bytes_per_s": far, "flops_per_s": matmul_throughput(),
            "bandwidth_sweep": {str(mb): bw for mb, bw in curve.items()},
            "cache_edge_mb": knee, "knee": KNEE, "sysfs_last_level_cache": (cpu_details() or {}).get("last_level_cache")}


def weights_bytes(network):
    return sum(p.numel() * p.element_size() for p in network.parameters())


def predicted(main_bytes, flops_per_position, roof):
    """main(1) seconds and r_k by the roofline: a forward of k positions takes the longer of reading
    the weights once and doing k positions' arithmetic."""
    time_of = lambda k: max(main_bytes / roof["bandwidth_bytes_per_s"], k * flops_per_position / roof["flops_per_s"])
    return {"main_s": time_of(1), "r": {str(k): time_of(k) / time_of(1) for k in POSITIONS}}


def decoders(models, configs, prompt, n_chars, temperature, device):
    """{"plain" and "family:shape:size": fn(seed)} for the configurations the registry accepts."""
    out = {"plain": config_decoder(models, "plain", "chain", 0, prompt, n_chars, temperature, ENGINE, device)}
    for family, shape, size in configs:
        if accepts(spec_of(family, shape, size), models, engine=ENGINE):
            out[config_name(family, shape, size)] = config_decoder(models, family, shape, size, prompt, n_chars,
                                                                   temperature, ENGINE, device)
    return out


def rows_of(runs, n_chars, temperature, prices):
    """timed_row of every run against plain decoding of the same run, with Theorem 3.8 at the
    row's α and c and the measured r_{γ+1} of this scale."""
    rows = []
    for name, run in runs.items():
        if name == "plain":
            continue
        family, shape, size = name.split(":")
        row = timed_row(family, shape, int(size), run, runs["plain"], n_chars, ENGINE, temperature)
        if shape == "chain" and row["alpha"] is not None and row["alpha"] < 1 and row["c"] is not None:
            r = prices["over_main"][int(size) + 1]
            theory = theorem_3_8(row["alpha"], int(size), row["c"], r)
            row["theory"] = {"verify_price": r, "with_verify_price": theory, "gap": row["speedup"] / theory - 1}
        rows.append(row)
    return rows


def scale_point(models, scale, prompt, n_chars, device, sizes, roof):
    """Everything the dial shows at one scale."""
    prices = forward_prices(models.main, models.draft, "kvcache", [ENGINE], POSITIONS, sizes, device)[ENGINE]
    main_bytes = weights_bytes(models.main) - weights_bytes(models.main.mtp)
    point = {"scale": scale, "main_bytes": main_bytes,
             "drafter_bytes": {"draft": weights_bytes(models.draft), "mtp": weights_bytes(models.main.mtp),
                               **{kind: weights_bytes(head) for kind, head in models.heads.items()}},
             "main_s": prices["seconds"]["main"], "r": {str(k): v for k, v in prices["over_main"].items()},
             "r_spread": {str(k): v for k, v in prices["over_main_spread"].items()},
             "c": {"draft": prices["c"], "mtp": prices["c_mtp"]},
             "roofline": predicted(main_bytes, 2 * main_bytes / 4, roof), "plain": {}, "best": {}, "choose": []}
    for temperature in TEMPERATURES:
        configs = [(family, *config) for family, options in CANDIDATES.items() for config in options]
        runs = interleaved(decoders(models, configs, prompt, n_chars, temperature, device), sizes.regime_choose_repeats,
                           warmup=1, device=device)
        chosen = {}
        for row in rows_of(runs, n_chars, temperature, prices):
            point["choose"].append({k: row[k] for k in ("family", "shape", "size", "speedup")} | {"temperature": temperature})
            if row["family"] not in chosen or row["speedup"] > chosen[row["family"]]["speedup"]:
                chosen[row["family"]] = row
        best = [(r["family"], r["shape"], r["size"]) for r in chosen.values()]
        runs = interleaved(decoders(models, best, prompt, n_chars, temperature, device), sizes.regime_repeats,
                           warmup=1, device=device)
        plain_wall = runs["plain"]["wall_s"]
        point["plain"][f"T{temperature:g}"] = {"wall_s": summary(plain_wall),
                                               "s_per_char": statistics.median(plain_wall) / n_chars}
        rows = rows_of(runs, n_chars, temperature, prices)
        point["best"][f"T{temperature:g}"] = sorted(rows, key=lambda r: -r["speedup"])
        print(f"  scale {scale:g} ({main_bytes / 1e6:.0f} MB) T={temperature:g}: plain "
              f"{1000 * statistics.median(plain_wall) / n_chars:.2f} ms/char, r5 {point['r']['5']:.2f}; " +
              ", ".join(f"{r['family']} {r['speedup']:.2f}×" for r in point["best"][f"T{temperature:g}"][:4]), flush=True)
    return point


def separated(row):
    """faster / slower / unclear: the chapter's verdict rule (stats.paired_verdict) on one row."""
    return paired_verdict(row["speedup_runs"])


def faster_at(point, key, family):
    return any(r["family"] == family and separated(r) == "faster" for r in point["best"][key])


def summarize(payload):
    """What the page says about the dial: the heaviest scale's rows, the first scale at which each
    family's fastest row is faster than plain in every paired repeat, and r_5 there."""
    points = payload["points"]
    heaviest = points[-1]
    out = {"heaviest": {"scale": heaviest["scale"], "main_bytes": heaviest["main_bytes"], "r5": heaviest["r"]["5"]},
           "cache_edge_bytes": payload["roofline"]["cache_edge_mb"] * 2 ** 20}
    for key in heaviest["best"]:
        rows = heaviest["best"][key]
        out[key] = {"fastest": {k: rows[0][k] for k in ("family", "shape", "size", "speedup")} | {"verdict": separated(rows[0])},
                    "verdicts": {r["family"]: separated(r) for r in rows},
                    # the first scale where each family's fastest row beats plain in every repeat (none: left out)
                    "pays_from": {family: pays[0] for family in CANDIDATES
                                  if (pays := [p["scale"] for p in points if faster_at(p, key, family)])}}
    return out


def measure(args, data, seeds, sizes):
    trained = load_seed(args, data, seeds[0])
    if ENGINE not in available_engines(trained.main, engines_of(args)):
        print(f"  the dial runs on the {ENGINE} engine only: not measured", flush=True)
        return {}
    threads = set_threads(1)
    prompt, n_chars = data.encode(LEDGER_PROMPT), sizes.regime_chars
    roof = roofline(sizes.regime_bandwidth_sweep)
    print(f"  roofline: {roof['bandwidth_bytes_per_s'] / 1e9:.1f} GB/s streaming, {roof['flops_per_s'] / 1e9:.0f} "
          f"GFLOP/s matmul, caches help up to about {roof['cache_edge_mb']} MB", flush=True)
    points = []
    for scale in sizes.regime_scales:
        models = trained.twin(scale)
        with torch.inference_mode():
            points.append(scale_point(models, scale, prompt, n_chars, args.device, sizes, roof))
        del models
    heaviest = points[-1]["best"]["T1"][0]
    fresh = fresh_check(args, seeds[0], heaviest, n_chars, sizes.fresh_repeats, scale=points[-1]["scale"]) \
        if heaviest["shape"] == "chain" else None
    payload = {"prompt": LEDGER_PROMPT, "n_chars": n_chars, "threads": threads, "engine": ENGINE,
               "model_seed": seeds[0], "temperatures": list(TEMPERATURES),
               "candidates": {f: [list(c) for c in options] for f, options in CANDIDATES.items()},
               "choose_repeats": sizes.regime_choose_repeats, "repeats": sizes.regime_repeats,
               "roofline": roof, "points": points, "fresh_check": fresh}
    return {"regime": {**payload, "summary": summarize(payload)}}
