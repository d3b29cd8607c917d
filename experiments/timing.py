"""The one timing harness: everything that reports a time goes through here.

- threads are fixed (torch.set_num_threads) and recorded; 1 thread is the fastest for
  batch-1 decoding on a small CPU;
- warm-up runs come first and are thrown away;
- repeated runs use different sampling seeds, and the methods are interleaved (each repeat
  runs every method once, in a rotated order) so that drift of the machine hits them alike;
- results are reported as median, min and max.
"""
import statistics
import time

import torch

from experiments.progress import Progress


def set_threads(threads):
    torch.set_num_threads(threads)
    return torch.get_num_threads()


def sync(device):
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


def summary(seconds):
    return {"median": statistics.median(seconds), "min": min(seconds), "max": max(seconds),
            "n": len(seconds)}


def interleaved(methods, repeats, warmup=1, device="cpu", progress=None):
    """methods: {name: fn(seed) -> result}. Returns {name: {"wall_s": [...], "results": [...]}}
    with one entry per repeat; repeat r calls every method with seed r. progress: a label for
    progress lines (experiments/progress.py), or None for none."""
    names = list(methods)
    bar = Progress(progress, len(names) * (warmup + repeats))
    for name in names:
        for w in range(warmup):
            methods[name](10_000 + w)
            bar.step()
    out = {name: {"wall_s": [], "results": []} for name in names}
    for r in range(repeats):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            sync(device)
            t0 = time.perf_counter()
            result = methods[name](r)
            sync(device)
            out[name]["wall_s"].append(time.perf_counter() - t0)
            out[name]["results"].append(result)
            bar.step()
    return out


def per_call(fn, calls=200, warmup=30, device="cpu"):
    """Median (and min, max) seconds of one call of fn, timed call by call after a warm-up."""
    for _ in range(warmup):
        fn()
    seconds = []
    for _ in range(calls):
        sync(device)
        t0 = time.perf_counter()
        fn()
        sync(device)
        seconds.append(time.perf_counter() - t0)
    return summary(seconds)


def interleaved_calls(calls, repeats, n_calls=50, warmup=10, device="cpu"):
    """calls: {name: fn()}. Each repeat times every call n_calls times (per_call, rotated order)
    and keeps the median; returns {name: [one median per repeat]}. Ratios between two calls are
    best taken repeat by repeat (paired): the machine's speed drifts between repeats more than
    within one."""
    names = list(calls)
    medians = {name: [] for name in names}
    for r in range(repeats):
        for name in names[r % len(names):] + names[:r % len(names)]:
            medians[name].append(per_call(calls[name], n_calls, warmup, device)["median"])
    return medians
