"""How timed decoding runs become rows of the results, shared by the ledger and the families:
the counters pooled over repeats, the median repeat's time taken apart, the speedup over plain
decoding timed in the same run, and the names of the ledger's runs."""
import statistics
import subprocess

import orjson

from experiments.measure.common import ROOT, generate_command
from experiments.stats import theorem_3_8
from experiments.timing import summary


def run_name_of(method, gamma):
    """(plain, 0) -> 'plain'; (draft, 3) -> 'draft_3'; (mtp, 1) -> 'mtp': decoder_runs' names."""
    return f"draft_{gamma}" if method == "draft" else method


def method_of(name):
    """'plain' -> (plain, 0); 'draft_3' -> (draft, 3); 'mtp' -> (mtp, 1)."""
    if name in ("plain", "mtp"):
        return name, 0 if name == "plain" else 1
    return "draft", int(name.split("_")[1])


def median_repeat(wall):
    """Index of the repeat whose wall time is the median (the lower middle one if the count is even)."""
    order = sorted(range(len(wall)), key=wall.__getitem__)
    return order[(len(wall) - 1) // 2]


def time_parts(result, wall_s):
    """One run's wall time split into the parts measured inside it; `other` is what remains."""
    parts = {"main_forwards": result.main_forward_s, "draft_forwards": result.draft_forward_s}
    parts["other"] = wall_s - parts["main_forwards"] - parts["draft_forwards"]
    assert parts["other"] >= 0, f"forwards ({parts}) took longer than the run around them ({wall_s} s)"
    return parts


def counted(results, n_chars):
    """What the counters say, pooled over runs: tokens per main forward, drafts accepted."""
    main = sum(r.main_forwards for r in results)
    proposed, accepted = sum(r.proposed for r in results), sum(r.accepted for r in results)
    checked = accepted + sum(r.rejected for r in results)  # drafts after a rejection are never checked
    return {"tokens_per_main": n_chars * len(results) / main,
            "accepted_per_proposed": accepted / proposed if proposed else None,
            # per-draft acceptance of a chain, as the ledger's α (a tree's candidates are not checked one by one)
            "alpha": accepted / checked if checked else None,
            "accepted_per_main": accepted / main}


def timed_row(family, shape, size, run, plain_run, n_chars, engine, temperature):
    """One timed configuration against plain decoding of the same run: counts, speedup, where the
    median run's time went, c as measured in it, and Theorem 3.8 at the measured α and c."""
    results, wall = run["results"], run["wall_s"]
    plain_results, plain_wall = plain_run["results"], plain_run["wall_s"]
    k, kp = median_repeat(wall), median_repeat(plain_wall)
    parts, median_run = time_parts(results[k], wall[k]), results[k]
    # the median-wall run of this row against the median-wall run of plain decoding
    plain_forward = plain_results[kp].main_forward_s / plain_results[kp].main_forwards
    rounds = median_run.main_forwards
    row = {"family": family, "shape": shape, "size": size, "engine": engine, "temperature": temperature,
           "repeats": len(results), **counted(results, n_chars),
           "main_forwards": sum(r.main_forwards for r in results) / len(results),
           "wall_s": summary(wall), "wall_s_runs": wall,
           "speedup": statistics.median(plain_wall) / statistics.median(wall),
           "speedup_runs": summary([p / w for p, w in zip(plain_wall, wall)]),
           "parts_s": parts, "parts_repeat": k,
           # the median run taken apart per round: seconds of the main model's verify, of the
           # drafter, and of the rest (sampling, the rule, Python), each over plain decoding's
           # seconds per main forward (its median run); speedup ≈ tokens_per_main × (1 + plain's
           # own rest per forward) / their sum
           "verify_over_main": parts["main_forwards"] / rounds / plain_forward,
           "drafter_per_round": parts["draft_forwards"] / rounds / plain_forward,
           "other_per_round": parts["other"] / rounds / plain_forward,
           "c": parts["draft_forwards"] / median_run.proposed / plain_forward if median_run.proposed else None}
    if temperature == 0:  # greedy: every run must write plain decoding's text, character for character
        row["greedy_equal"] = all(r.tokens == plain_results[0].tokens for r in results)
    alpha = row["alpha"]
    if shape == "chain" and family != "plain" and alpha is not None and alpha < 1 and row["c"] is not None:
        row["speedup_theory"] = theorem_3_8(alpha, size, row["c"])
    return row


FRESH_AGREEMENT = 0.10  # the harness's speedup and the fresh processes' agree within this fraction


def fresh_check(args, seed, row, n_chars, repeats, scale=1):
    """A timed chain row against the same two decoders run the way a reader runs them: fresh
    `python -m experiments.generate` processes, plain and the row's configuration alternating,
    sampling seeds 0, 1, ...; each process's wall_s (a warm decode: generate runs the same decode
    untimed first, as the harness's warm-up does). Their median paired ratio should agree with the row's speedup,
    timed inside one process by the harness."""
    engine, temperature = row["engine"], row["temperature"]

    def wall(method, shape, size, sampling_seed):
        command = generate_command(args, seed, method, engine, n_chars, shape, size, temperature, sampling_seed, scale)
        return orjson.loads(subprocess.run(command, capture_output=True, check=True, cwd=ROOT).stdout)["wall_s"]

    pairs = [(wall("plain", None, None, r), wall(row["family"], "chain", row["size"], r)) for r in range(repeats)]
    fresh = statistics.median(p / w for p, w in pairs)
    return {"family": row["family"], "shape": "chain", "size": row["size"], "engine": engine,
            "temperature": temperature, "n_chars": n_chars, "scale": scale, "harness_speedup": row["speedup"], "fresh_speedup": fresh,
            "fresh_walls": [{"plain": p, row["family"]: w} for p, w in pairs], "repeats": repeats,
            "tolerance": FRESH_AGREEMENT, "agrees": abs(fresh / row["speedup"] - 1) <= FRESH_AGREEMENT}
