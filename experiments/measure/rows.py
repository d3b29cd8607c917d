"""How timed decoding runs become rows of the results, shared by the ledger and the answer run:
the counters pooled over repeats, the median repeat's time taken apart, the speedup over plain
decoding timed in the same run (timed_row: the one timed row), and the harness against fresh
`generate` processes (fresh_check)."""
import statistics
import subprocess

import orjson

from experiments.measure.common import ROOT, generate_command
from experiments.records.base import TimedRow
from experiments.stats import paired_verdict, theorem_3_8
from experiments.timing import summary


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


def timed_row(spec, engine, temperature, run, plain_run, n_chars, scale=1, r=None) -> TimedRow:
    """The one timed row: configuration `spec` against plain decoding of the same interleaved run
    (paired repeat by repeat) on one engine, scale and temperature. Its counts; its speedup (the
    ratio of the median walls) with the paired ratios' spread and the verdict rule; the median
    repeat taken apart in plain forwards (the round: verify, drafting, the rest; plain decoding's
    own cost per character in the same unit, so that the median repeat's characters per forward ×
    plain_per_char / round_total is the two median repeats' ratio, speedup_from_parts); c as measured in the loop; Theorem 3.8 at the
    measured α and c, and with the verify's price r_{γ+1} where `r` ({k: r_k}) is given."""
    results, wall = run["results"], run["wall_s"]
    plain_results, plain_wall = plain_run["results"], plain_run["wall_s"]
    k, kp = median_repeat(wall), median_repeat(plain_wall)
    parts, median_run = time_parts(results[k], wall[k]), results[k]
    plain_forward = plain_results[kp].main_forward_s / plain_results[kp].main_forwards  # seconds per plain forward
    rounds = median_run.main_forwards
    runs = summary([p / w for p, w in zip(plain_wall, wall)])
    row: TimedRow = {"family": spec.method, "shape": spec.shape or "chain", "size": spec.size, "engine": engine,
                     "scale": scale, "temperature": temperature, "repeats": len(results), **counted(results, n_chars),
                     "main_forwards": sum(r.main_forwards for r in results) / len(results),
                     "wall_s": summary(wall), "wall_s_runs": wall,
                     "speedup": statistics.median(plain_wall) / statistics.median(wall),
                     "speedup_runs": runs, "verdict": paired_verdict(runs),
                     "parts_s": parts, "parts_repeat": k,
                     "verify_over_main": parts["main_forwards"] / rounds / plain_forward,
                     "drafter_per_round": parts["draft_forwards"] / rounds / plain_forward,
                     "other_per_round": parts["other"] / rounds / plain_forward,
                     "plain_per_char": plain_wall[kp] / plain_results[kp].main_forwards / plain_forward,
                     "c": parts["draft_forwards"] / median_run.proposed / plain_forward if median_run.proposed else None}
    row["round_total"] = row["verify_over_main"] + row["drafter_per_round"] + row["other_per_round"]
    row["speedup_from_parts"] = n_chars / rounds * row["plain_per_char"] / row["round_total"]
    if temperature == 0:  # greedy: every run must write plain decoding's text, character for character
        row["greedy_equal"] = all(r.tokens == plain_results[0].tokens for r in results)
    alpha = row["alpha"]
    if spec.shape == "chain" and alpha is not None and alpha < 1 and row["c"] is not None:
        row["speedup_theory"] = theorem_3_8(alpha, spec.size, row["c"])
        if r is not None and spec.size + 1 in r:
            theory = theorem_3_8(alpha, spec.size, row["c"], r[spec.size + 1])
            row["theory"] = {"verify_price": r[spec.size + 1], "with_verify_price": theory,
                             "gap": row["speedup"] / theory - 1}
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
