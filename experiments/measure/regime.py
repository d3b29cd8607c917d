"""regime.json and ladder.json: the chapter's answer run. When does speculative decoding pay,
and on which engine? The trained models made S× heavier in weights (model.heavy_twin: the same
functions, S× the bytes a forward reads, as a larger model does), from the model as trained, whose
2.95 MB sit in the CPU's cache, to a main model far past it, on the native engine (the answer
engine: a call costs little more than reading its weights and doing its arithmetic).

Every timed row comes from one routine (choose.choose_and_confirm): per scale and temperature,
each family's fastest configuration among its candidates (Family.candidates; at the model as
trained every chain γ and tree size of the sweep), then plain decoding and those rows in one
interleaved run, paired repeat by repeat. Per scale also:
- prices (prices.forward_prices): a main forward on k = 1..9 new positions over one on 1 (r_k), and
  the draft model's and the MTP head's c;
- at the model as trained, the other engines (eager, compiled, aot) in the same run as the native
  rows: the engine ladder (ladder.json), whose native rung is the dial's first point;
- at the heaviest scale, at T = 1, what a reader would reach for on the same weights in the same
  run: transformers' generate (plain, assisted generation with the draft model's twin, prompt
  lookup; experiments/peer.py, where the [peer] extra is installed) and our eager engine, with
  the eager engine's r_k;
and once: the machine's roofline (a streaming read of a buffer far larger than the cache, a large
matmul), with each scale's main(1) time and r_k as the roofline predicts them.

Its results are declared in experiments/records/regime.py: RegimeFile (regime.json) and LadderFile (ladder.json)."""
import time
from dataclasses import replace

import torch

from experiments import peer
from experiments.jsonio import cpu_details
from experiments.engine import available_engines
from experiments.measure.choose import choose_and_confirm, family_candidates, our_decoders
from experiments.measure.common import LEDGER_PROMPT, answer_engine, engines_of, load_seed
from experiments.measure.rows import fresh_check
from experiments.methods import DECLARED, FAMILIES, names, spec_of
from experiments.prices import forward_prices
from experiments.stats import paired_verdict
from experiments.timing import set_threads, summary

TEMPERATURES = (1.0, 0.0)
POSITIONS = tuple(range(1, 10))  # r_k for k = 1..9: a verify of up to 8 drafts and the bonus
PEER = peer.NAME                 # the library a reader would use, as an engine of its own in the rows
PEER_FAMILIES = {"plain": (), "draft": (2, 3, 4), "lookup": (2, 3, 5)}  # generate's methods: chains of γ
EAGER_AT_HEAVIEST = ("draft", "mtp", "ngram")  # our eager engine beside the peer, on the same twin
REFERENCE = "compiled"  # the ladder's rung every other is also compared with: today's torch.compile engine
COMPARE_AT = 5          # positions of the verify whose price the rungs are compared at (4 drafts + the bonus)
GREW_APART = 0.1        # a part "grew most" only when its growth beats the next one's by a tenth of itself
BANDWIDTH_SWEEP_MB = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
KNEE = 1.25  # the cache's edge: the smallest buffer streamed at most 1.25× as fast as the largest


def streaming_bandwidth(megabytes, seconds=0.2):
    """Bytes per second of a single-threaded sum over a float32 buffer of that size (best of the
    passes that fit in `seconds`, after one untimed pass)."""
    x = torch.ones(megabytes * 2 ** 18)
    x.sum()
    best, spent = float("inf"), 0.0
    while spent < seconds or best == float("inf"):
        took = seconds_of(x.sum)
        best, spent = min(best, took), spent + took
    return x.numel() * 4 / best


def matmul_throughput(n=1024, repeats=5):
    """Floating-point operations per second of one thread's n × n float32 matmul (best of repeats)."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b
    best = min(seconds_of(lambda: a @ b) for _ in range(repeats))
    return 2 * n ** 3 / best


def seconds_of(fn):
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


def scaled(sizes, scale):
    """Fewer timed calls per forward price on a heavy twin: one call there lasts many timer ticks."""
    calls = max(5, round(sizes.forward_calls / scale))
    return replace(sizes, forward_calls=calls, forward_warmup=min(sizes.forward_warmup, calls))


def peer_models(models):
    """transformers' copies of the twin's main and draft models (peer.peer_models), or None where
    the [peer] extra is not installed."""
    if peer.available() is None:
        print("  note: transformers is not installed (pip install -e '.[peer]'): no peer rows", flush=True)
        return None
    return peer.peer_models(models.main, models.draft)


def builder(models, prompt, temperature, device, hf):
    """build(engine, spec, n_chars) -> fn(seed): our engines' decoders, and the peer's where engine is PEER."""
    ours = our_decoders(models, prompt, temperature, device)
    return lambda engine, spec, n_chars: (peer.decoder(spec, hf, prompt, n_chars, temperature) if engine == PEER
                                          else ours(engine, spec, n_chars))


def candidates_at(models, scale, temperature, engines, sizes, hf, heaviest):
    """{engine: [Spec]} the routine chooses among: every measured family's candidates on each engine
    (on the answer engine, the last, at the model as trained: every chain γ and tree size of the
    sweep); at the heaviest scale and T = 1 also our eager engine and the peer."""
    families = names(measured=True)
    sweep = (sizes.family_gammas, sizes.family_trees) if scale == 1 else None
    answer = answer_engine(engines)
    out = {engine: family_candidates(models, engine, families, sweep if engine == answer else None) for engine in engines}
    if heaviest and temperature == 1.0:
        out.setdefault("eager", family_candidates(models, "eager", EAGER_AT_HEAVIEST))
        if hf is not None:
            out[PEER] = [spec_of(family, "chain", g) for family, gammas in PEER_FAMILIES.items() for g in gammas]
    return out


def scale_point(models, scale, engines, prompt, n_chars, device, sizes, roof, heaviest):
    """Everything the dial shows at one scale; and every row of its confirming runs, {T key: rows}
    (every engine's at the model as trained: the ladder), with the prices of every engine."""
    priced = list(dict.fromkeys([*engines, *(["eager"] if heaviest else [])]))
    prices = forward_prices(models.main, models.draft, "kvcache", priced, POSITIONS, scaled(sizes, scale), device)
    main_bytes = weights_bytes(models.main) - weights_bytes(models.main.mtp)
    answer = answer_engine(engines)
    own = prices[answer]
    point = {"scale": scale, "main_bytes": main_bytes,
             "drafter_bytes": {"draft": weights_bytes(models.draft), "mtp": weights_bytes(models.main.mtp),
                               **{kind: weights_bytes(head) for kind, head in models.heads.items()}},
             "main_s": own["seconds"]["main"], "r": {str(k): v for k, v in own["over_main"].items()},
             "r_spread": {str(k): v for k, v in own["over_main_spread"].items()},
             "c": {"draft": own["c"], "mtp": own["c_mtp"]},
             "roofline": predicted(main_bytes, 2 * main_bytes / 4, roof), "plain": {}, "best": {}, "choose": {}}
    hf = peer_models(models) if heaviest else None
    confirmed = {}
    for temperature in TEMPERATURES:
        key = f"T{temperature:g}"
        build = builder(models, prompt, temperature, device, hf)
        candidates = candidates_at(models, scale, temperature, engines, sizes, hf, heaviest)
        repeats = sizes.regime_trained_repeats if scale == 1 else sizes.regime_repeats
        rows, tried = choose_and_confirm(build, candidates, n_chars, temperature, sizes.regime_choose_repeats, repeats,
                                         device, scale, {e: p["over_main"] for e, p in prices.items()},
                                         progress=f"scale {scale:g} T={key[1:]}",
                                         choose_chars=n_chars if scale == 1 else sizes.regime_choose_chars)
        plain = next(r for r in rows if r["engine"] == answer and r["family"] == "plain")
        point["plain"][key] = {**plain, "s_per_char": plain["wall_s"]["median"] / n_chars}
        point["best"][key] = sorted((r for r in rows if r["engine"] == answer and r["family"] != "plain"),
                                    key=lambda r: -r["speedup"])
        point["choose"][key] = [r for r in tried if r["engine"] == answer]
        confirmed[key] = rows
        print(f"  scale {scale:g} ({main_bytes / 1e6:.0f} MB) {key}: plain {1000 * point['plain'][key]['s_per_char']:.2f} "
              f"ms/char, r5 {point['r']['5']:.2f}; " +
              ", ".join(f"{r['family']} {r['speedup']:.2f}×" for r in point["best"][key][:4]), flush=True)
    if heaviest:
        point["peers"] = {"library": PEER, "version": peer.available(),
                          "rows": [r for r in confirmed["T1"] if r["engine"] != answer],
                          "eager_r": {str(k): v for k, v in prices["eager"]["over_main"].items()},
                          "eager_main_s": prices["eager"]["seconds"]["main"]}
    return point, confirmed, prices


def separated(row):
    """faster / slower / unclear: the chapter's verdict rule (stats.paired_verdict) on one row."""
    return paired_verdict(row["speedup_runs"])


def against_peer(point):
    """Ours (the answer engine's fastest row at T = 1) against the peer's fastest decoder (plain or
    speculative) on the same twin in the same run: their median walls' ratio and the paired ratios."""
    theirs = [r for r in point.get("peers", {}).get("rows", []) if r["engine"] == PEER]
    if not theirs:
        return None
    ours = point["best"]["T1"][0]
    best = min(theirs, key=lambda r: r["wall_s"]["median"])
    ratios = [t / o for t, o in zip(best["wall_s_runs"], ours["wall_s_runs"])]
    return {"ours": {k: ours[k] for k in ("family", "shape", "size", "engine")},
            "theirs": {k: best[k] for k in ("family", "shape", "size", "engine")},
            "ratio": best["wall_s"]["median"] / ours["wall_s"]["median"], "ratio_runs": summary(ratios),
            "verdict": paired_verdict(summary(ratios))}


def summarize(payload):
    """What the page says about the dial: the heaviest scale's rows, the first scale at which each
    family's fastest row is faster than plain in every paired repeat, r_5 there, and ours against
    the peer library on the heaviest twin."""
    points = payload["points"]
    heaviest = points[-1]
    out = {"heaviest": {"scale": heaviest["scale"], "main_bytes": heaviest["main_bytes"], "r5": heaviest["r"]["5"]},
           "cache_edge_bytes": payload["roofline"]["cache_edge_mb"] * 2 ** 20, "peer": against_peer(heaviest)}
    for key in heaviest["best"]:
        rows = heaviest["best"][key]
        out[key] = {"fastest": {k: rows[0][k] for k in ("family", "shape", "size", "speedup")} | {"verdict": separated(rows[0])},
                    "verdicts": {r["family"]: separated(r) for r in rows}}
    return out


# The engine ladder (ladder.json): the model as trained on every engine, from the one with the most
# per-call overhead to the least, from the first point's run.

def verify_positions(row):
    """Positions of a row's verify: γ + 1 for a chain, the nodes of a tree."""
    return row["size"] + 1 if row["shape"] == "chain" else row["size"]


def over_reference(row, reference):
    """The row against the reference rung's plain decoder of the same run, repeat by repeat."""
    return summary([p / w for p, w in zip(reference["wall_s_runs"], row["wall_s_runs"])])


def rung(engine, rows, prices, reference, n_chars):
    """One engine's plain row and its fastest speculative row, with what a verify costs there."""
    plain = next(r for r in rows if r["engine"] == engine and r["family"] == "plain")
    best = max((r for r in rows if r["engine"] == engine and r["family"] != "plain"), key=lambda r: r["speedup"])
    out = {"engine": engine, "temperature": plain["temperature"], "main_s": prices["seconds"]["main"],
           "verify_price": {str(k): v for k, v in prices["over_main"].items()},  # r_k, back to back (prices.py)
           "plain": {**plain, "chars_per_s": n_chars / plain["wall_s"]["median"]},
           "best": {**best, "chars_per_s": n_chars / best["wall_s"]["median"]},
           "rows": sorted((r for r in rows if r["engine"] == engine and r["family"] != "plain"),
                          key=lambda r: -r["speedup"])}
    if reference is not None:
        out["plain"]["over_reference"] = over_reference(plain, reference)
        out["best"]["over_reference"] = over_reference(best, reference)
    return out


def round_parts(row):
    """A row's round in plain forwards of its engine: the verify, the drafting, the rest (rows.timed_row)."""
    return {"verify": row["verify_over_main"], "drafting": row["drafter_per_round"], "other": row["other_per_round"]}


def grew_most(growth, apart=GREW_APART):
    """The parts of a round whose growth lies within `apart` of the largest (as a share of it),
    largest first: one part where it clearly grew most, more where they grew alike."""
    ranked = sorted(growth, key=growth.get, reverse=True)
    return [p for p in ranked if growth[ranked[0]] - growth[p] <= apart * abs(growth[ranked[0]])]


def ladder_summary(payload):
    """What ⑥ says about the ladder, per temperature: the rungs in order; whether removing overhead
    (the last rung's plain over the reference's) gains more than speculation does on the reference
    rung; how the verify price and the speculative ratio move from the reference rung to the last,
    which row is fastest on each, and which part of its round grew most (grew_most)."""
    out = {"reference": payload["reference"]}
    for key, rungs in payload["rungs"].items():
        by = {r["engine"]: r for r in rungs}
        last, ref = rungs[-1], by.get(payload["reference"])
        s = {"engines": [r["engine"] for r in rungs],
             "fastest": max(rungs, key=lambda r: r["best"]["chars_per_s"])["engine"],
             # the same k on every rung, so the prices compare: a verify of COMPARE_AT positions
             "verify_at": COMPARE_AT, "verify_prices": {r["engine"]: r["verify_price"][str(COMPARE_AT)] for r in rungs}}
        if ref is not None and last is not ref:
            # ratios of the median speeds the chart draws (as each rung's speedup is), so a
            # sentence's figure is the bars' ratio; over_reference keeps the paired spread
            overhead = last["plain"]["chars_per_s"] / ref["plain"]["chars_per_s"]
            s.update({
                "overhead_gain": overhead,
                "speculation_gain": ref["best"]["speedup"],                   # speculation on the reference rung
                "best_over_reference": last["best"]["chars_per_s"] / ref["plain"]["chars_per_s"],
                "overhead_beats_speculation": overhead > ref["best"]["speedup"],
                "speculation_last": last["best"]["speedup"],
                "speculation_grows": last["best"]["speedup"] > ref["best"]["speedup"],
                # the fastest row's round taken apart, in plain forwards of its own engine
                "round_ref": round_parts(ref["best"]), "round_last": round_parts(last["best"])})
            for name, r in (("verify_ref", ref), ("verify_last", last)):
                k = verify_positions(r["best"])
                if str(k) in r["verify_price"]:
                    s[name] = {"positions": k, "price": r["verify_price"][str(k)]}
            s["fastest_ref"], s["fastest_last"] = ({k: r["best"][k] for k in ("family", "shape", "size")} for r in (ref, last))
            s["growth"] = {part: s["round_last"][part] - s["round_ref"][part] for part in s["round_ref"]}
            s["grew_most"] = grew_most(s["growth"])
        out[key] = s
    return out


def ladder(confirmed, prices, engines, n_chars, sizes, model_seed, threads):
    """ladder.json's payload from the first point's confirming runs ({T key: rows}): every engine at
    the model as trained, the answer engine's rows being the dial's."""
    reference = REFERENCE if REFERENCE in engines else engines[0]
    rungs = {}
    for key, rows in confirmed.items():
        ref = next((r for r in rows if r["engine"] == reference and r["family"] == "plain"), None)
        rungs[key] = [rung(e, rows, prices[e], ref, n_chars) for e in engines]
    payload = {"prompt": LEDGER_PROMPT, "n_chars": n_chars, "threads": threads, "engines": engines,
               "reference": reference, "temperatures": list(TEMPERATURES),
               "choose_repeats": sizes.regime_choose_repeats, "repeats": sizes.regime_trained_repeats,
               "seeds": list(range(sizes.regime_trained_repeats)), "model_seed": model_seed,
               "prices": {e: {"main_s": p["seconds"]["main"], "over_main": p["over_main"], "c": p["c"],
                              "c_mtp": p["c_mtp"]} for e, p in prices.items() if e in engines},
               "rungs": rungs}
    return {**payload, "summary": ladder_summary(payload)}


def fresh(args, seed, rows, n_chars, repeats, scale):
    """rows.fresh_check of the fastest chain row (`generate --gamma`) of a family methods.py declares
    (what a fresh process can run), with one line; None where there is none."""
    chains = [r for r in rows if r["shape"] == "chain" and r["family"] in DECLARED and r["family"] != "plain"]
    if not chains:
        return None
    row = max(chains, key=lambda r: r["speedup"])
    check = fresh_check(args, seed, row, n_chars, repeats, scale)
    print(f"  fresh processes, {row['engine']} {row['family']} γ = {row['size']} at T = {row['temperature']:g}, "
          f"scale {scale:g}: {check['fresh_speedup']:.2f}× against the harness's {check['harness_speedup']:.2f}×",
          flush=True)
    return check


def measure(args, data, seeds, sizes):
    trained = load_seed(args, data, seeds[0])
    engines = available_engines(trained.main, engines_of(args))
    answer = answer_engine(engines)
    if answer != "native":
        print(f"  note: the native engine is unavailable here: the answer run uses the {answer} engine", flush=True)
    threads = set_threads(1)
    prompt, n_chars = data.encode(LEDGER_PROMPT), sizes.regime_chars
    roof = roofline(sizes.regime_bandwidth_sweep)
    print(f"  roofline: {roof['bandwidth_bytes_per_s'] / 1e9:.1f} GB/s streaming, {roof['flops_per_s'] / 1e9:.0f} "
          f"GFLOP/s matmul, caches help up to about {roof['cache_edge_mb']} MB", flush=True)
    points, first_run = [], None
    for i, scale in enumerate(sizes.regime_scales):
        models = trained.twin(scale)
        with torch.inference_mode():
            point, confirmed, prices = scale_point(models, scale, engines if i == 0 else [answer], prompt, n_chars,
                                                args.device, sizes, roof, heaviest=i == len(sizes.regime_scales) - 1)
        points.append(point)
        if i == 0:
            first_run = (confirmed, prices)
        del models
    ladder_payload = ladder(*first_run, engines, n_chars, sizes, seeds[0], threads)
    ladder_payload["fresh_check"] = fresh(args, seeds[0], ladder_payload["rungs"]["T0"][-1]["rows"], n_chars,
                                          sizes.fresh_repeats, points[0]["scale"])
    payload = {"prompt": LEDGER_PROMPT, "n_chars": n_chars, "threads": threads, "engine": answer,
               "model_seed": seeds[0], "temperatures": list(TEMPERATURES),
               "candidates": {f: [list(c) for c in FAMILIES[f].choices()] for f in names(measured=True)},
               "sweep": {"gammas": list(sizes.family_gammas), "trees": list(sizes.family_trees)},
               "choose_repeats": sizes.regime_choose_repeats, "choose_chars": sizes.regime_choose_chars,
               "repeats": sizes.regime_repeats, "trained_repeats": sizes.regime_trained_repeats,
               "roofline": roof, "points": points,
               "fresh_check": fresh(args, seeds[0], points[-1]["best"]["T1"], n_chars, sizes.fresh_repeats,
                                    points[-1]["scale"])}
    return {"regime": {**payload, "summary": summarize(payload)}, "ladder": ladder_payload}
