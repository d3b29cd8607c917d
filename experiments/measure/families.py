"""families.json (section ⑤ "Where drafts come from", and every family's rows in section ⑥): each
drafter family decoded from "ROMEO:\n" on the first seed's models.

- alpha: teacher-forced first-draft acceptance Σ min(p, q) on text the main model writes (several
  sampling seeds at T = 1, the greedy text at T = 0);
- sweep and rows: the answer run's rows at the model as trained (regime.json's first point, on
  the native engine, T = 1 and 0; answer_rows): the choosing pass over every chain length
  γ = 1..8 and tree size of every family, and plain decoding with each family's fastest
  configuration timed in one interleaved run, so that no configuration is timed twice and printed
  with two speedups;
- what each family costs: parameters and training time, the n-gram table's size, c in the run;
- verify_prices: the main model's verify forward timed back to back in the same run, as a
  chain of k positions and as each recorded token tree, so that a row's verify price inside
  the decoding loop can be taken apart (the positions, the tree's own mask, the loop);
- alpha_by_depth: teacher-forced α of the j-th draft of a chain for the drafters whose later
  drafts differ from their first (EAGLE, EAGLE-3, Medusa, the block), probes.alpha_by_depth;
- drafting_prices: one round of chain drafting of EAGLE, EAGLE-3 and the block against γ, timed
  back to back like verify_prices (what the block's single call saves);
- summary: the conclusions the page prints (the fastest and slowest rows, which families are
  faster at T = 0, where a verify's price comes from, the sweep's deepest trees and chains),
  written by `summarize` from the payload so templates only format.

Its results are declared in experiments/records/families.py: FamiliesFile (families.json).
"""
import statistics
from pathlib import Path

import torch

from experiments.cli import UsageError
from experiments.jsonio import read_json
from experiments.measure.common import LEDGER_PROMPT, load_seed, require
from experiments.prices import price_calls
from experiments.engine import Plan, make_runner
from experiments.methods import Spec, decode, drafter as methods_drafter, names, orders
from experiments.ngram import DEFAULT_ORDER
from experiments.suffix import FACTOR as SUFFIX_FACTOR, MAX_OCCURRENCES as SUFFIX_OCCURRENCES
from experiments.probes import DEPTH, DEPTH_STRIDE, alpha_along, alpha_by_depth, pooled, written_text
from experiments.trees import Tree
from experiments.timing import interleaved_calls, set_threads
from experiments.runs import run_name
from experiments.stats import paired_verdict

TEMPERATURES = (1.0, 0.0)


def measured_families():
    """The families this measurement sweeps (Family.measured), in the registry's order."""
    return names(measured=True)


def answer_rows(args):
    """The families' timed rows from the chapter's answer run (regime.json, measured first in the
    same `make measure`), at the model as trained on its engine: per temperature, plain decoding
    and each family's fastest configuration (rows), and the choosing pass over every chain γ and
    tree size (sweep; a family with a single configuration there: its confirmed row). One run,
    one number per row on the whole page."""
    path = require(Path(args.results) / "regime.json")
    regime = read_json(path)
    first = regime["points"][0]
    if first["scale"] != 1:
        raise UsageError(f"{path} does not start at the model as trained (scale 1): "
                         f"measure it again (python -m experiments.measure --only regime families)")
    rows, sweep = [], []
    for key, plain in first["plain"].items():
        best = first["best"][key]
        rows += [{**plain, "run": "regime"}] + [{**r, "run": "regime"} for r in best]
        tried = {r["family"] for r in first["choose"][key]}
        sweep += first["choose"][key] + [r for r in best if r["family"] not in tried]
    return regime, rows, sweep


def teacher_forced_alpha(models, prompt, n_chars, temperature, seeds, device):
    """alpha_along on text the main model wrote (one text per sampling seed), pooled; and
    alpha_by_depth on the same texts where `depth` is asked for."""
    texts = [written_text(models.main, prompt, n_chars, temperature, seed, device) for seed in seeds]
    return pooled([alpha_along(models, text, len(prompt) + 2, temperature, device) for text in texts]), texts


TREE_ROUND_AT = 100  # the recorded round: the first whose root is at or past this char and that
TREE_ROUND_DEPTH = 2  # accepted at least this many candidates (else the first past the char)
TOP_P = 8            # the recorded p of each node: its most likely chars


@torch.no_grad()
def recorded_trees(models, data, prompt, n_chars, tree_sizes, device):
    """For each tree size: one real round of n-gram tree decoding at T = 1 (seed 0): the tree,
    the main model's p at every node (its TOP_P chars), the accepted branch and what it emitted."""
    out = []
    for size in tree_sizes:
        result = decode(Spec("ngram", tree=size), models, prompt, n_chars,
                             generator=torch.Generator(device=device).manual_seed(0), trace=True)
        later = [s for s in result.trace if s["start"] >= TREE_ROUND_AT] or result.trace[-1:]
        step = next((s for s in later if len(s["path"]) >= TREE_ROUND_DEPTH), later[0])
        text = prompt + result.tokens
        top = [torch.topk(row, min(TOP_P, row.shape[0])) for row in step["p"].double()]
        out.append({"nodes": size, "context": data.decode(text[max(0, step["start"] - 23):step["start"]]),
                    "root_position": step["start"], "tokens": data.decode(step["tokens"]),
                    "parents": step["parents"], "depths": step["depths"], "path": step["path"],
                    "emitted": data.decode(step["emitted"]),
                    "p_top": [{"chars": data.decode(t.indices.tolist()), "p": [round(v, 5) for v in t.values.tolist()]}
                              for t in top],
                    # p at the parent of the char each node holds (the root: 1)
                    "p_at_parent": [1.0] + [round(float(step["p"][parent, token]), 5) for parent, token in
                                            zip(step["parents"][1:], step["tokens"][1:])],
                    "tokens_per_main": n_chars / result.main_forwards})
    return out


def tree_call(main, engine, tree, size):
    """fn() for the verify forward of one token tree after a cache that holds a full window, as
    tree_decode runs it with trees of `size` nodes (Runner.extend_tree: the tree mask and each
    node's position, then the forward, padded to `size` in the compiled engine), followed by the
    rollback."""
    window = main.cfg.block_size
    runner = make_runner(main, Plan(tree_size=size), engine)
    runner.extend([(7 * i) % main.cfg.vocab_size for i in range(window)])

    def call():
        runner.extend_tree(tree)
        runner.truncate(window)
    return call


def verify_prices(main, draft, trees, engines, sizes, device):
    """{engine: prices} of the main model's verify forward, timed back to back in this run (every
    call of every engine interleaved, as costs.py does): `chain` = a forward on k new positions (k
    = 1 .. γmax + 1 and every tree size; costs.price_calls, ①'s curve), `tree` = the verify forward
    of each recorded tree (`trees`: {size: Tree}). Each over a one-position forward of the same
    repeat: the median of the paired ratios."""
    positions = sorted({1, *(g + 1 for g in sizes.family_gammas), *trees})
    calls = {}
    with torch.inference_mode():
        for engine in engines:
            chain = price_calls(main, draft, "kvcache", engine, positions)
            calls.update({f"{engine}:{name}": fn for name, fn in chain.items() if name == "main" or name.startswith("n=")})
            calls.update({f"{engine}:tree={size}": tree_call(main, engine, tree, size) for size, tree in trees.items()})
        values = interleaved_calls(calls, sizes.cost_repeats, sizes.forward_calls, sizes.forward_warmup, device)
    out = {}
    for engine in engines:
        v = {name.split(":", 1)[1]: s for name, s in values.items() if name.startswith(f"{engine}:")}
        over = lambda name: statistics.median(a / b for a, b in zip(v[name], v["main"]))
        out[engine] = {
            "main_s": statistics.median(v["main"]),
            "chain": {k: 1.0 if k == 1 else over(f"n={k}") for k in positions},
            "tree": {size: over(f"tree={size}") for size in trees}}
    return out


def drafting_families(models, gammas):
    """The trained drafters whose drafting is priced against γ (⑤'s "what changed"): those whose
    network can draft every γ of the sweep in a chain (one call per draft, or one per round).
    Medusa's heads stop at their number (max_drafts), short of the sweep's longest chain."""
    return [f for f, head in models.heads.items() if head.max_drafts is None or head.max_drafts >= max(gammas)]


def propose_call(models, family, engine, gamma, window):
    """fn() for one round of `family`'s chain drafting (drafter.propose of gamma drafts at T = 1,
    as speculative_decode calls it) after the main model has processed a full window: the round of
    a decode whose last round accepted nothing (a chain drafter takes in the one new real feature,
    then drafts), then the rollback of the drafter's cache to before that feature."""
    drafter = methods_drafter(Spec(family, gamma=gamma), models, "kvcache", engine)
    main = make_runner(models.main, Plan(layers=drafter.layers), engine)
    tokens = [(7 * i) % models.vocab_size for i in range(window + 1)]
    _, h, start = main.extend(tokens[:window])
    drafter.observe(h, start)
    generator = torch.Generator().manual_seed(0)

    def call():
        drafter.propose(tokens, window, gamma, 1.0, generator)
        drafter.truncate(window - 1)
    call()  # the drafter's cache now holds every pair before the last one
    return call


def drafting_prices(models, engines, gammas, sizes, device):
    """{engine: {family: {γ: one drafting round over a one-position main forward}}} for the
    drafting_families, timed back to back and interleaved with the main forward (as verify_prices):
    what drafting costs against γ, without the noise of a decode."""
    window, families = models.main.cfg.block_size, drafting_families(models, gammas)
    calls = {}
    with torch.inference_mode():
        for engine in engines:
            calls[f"{engine}:main"] = price_calls(models.main, models.draft, "kvcache", engine, [1])["main"]
            calls.update({f"{engine}:{f}:{g}": propose_call(models, f, engine, g, window)
                          for f in families for g in gammas})
        values = interleaved_calls(calls, sizes.cost_repeats, sizes.forward_calls, sizes.forward_warmup, device)
    over = lambda engine, name: statistics.median(a / b for a, b in zip(values[name], values[f"{engine}:main"]))
    return {engine: {f: {g: over(engine, f"{engine}:{f}:{g}") for g in gammas}
                     for f in families} for engine in engines}


def primary_engine(engines):
    """The engine the page's sentences are about: the answer run's (families.json has only its rows)."""
    return engines[0]


def temperature_change(rows, engine):
    """Each family's best row at T = 1 and at T = 0 on `engine`: its speedups and their paired
    ranges, and whether it is faster at T = 0, slower, or neither by this measurement (the two
    ranges overlap: the verdict rule, stats.paired_verdict, for two rows); then the three lists,
    in the registry's order."""
    best = {(r["family"], r["temperature"]): r for r in rows if r["engine"] == engine and r["family"] != "plain"}

    def change(one, zero):
        a, b = one["speedup_runs"], zero["speedup_runs"]
        return "faster" if b["min"] > a["max"] else "slower" if b["max"] < a["min"] else "unclear"

    families = [{"family": f, "speedup_T1": best[(f, 1.0)]["speedup"], "speedup_T0": best[(f, 0.0)]["speedup"],
                 "runs_T1": best[(f, 1.0)]["speedup_runs"], "runs_T0": best[(f, 0.0)]["speedup_runs"],
                 "at_T0": change(best[(f, 1.0)], best[(f, 0.0)])}
                for f in measured_families() if (f, 1.0) in best and (f, 0.0) in best]
    return {"engine": engine, "families": families,
            **{f"{word}_at_T0": [r["family"] for r in families if r["at_T0"] == word] for word in ("faster", "slower", "unclear")}}


def verify_positions(row):
    """New positions in a row's verify forward: γ + 1 for a chain, the nodes for a tree."""
    return row["size"] + 1 if row["shape"] == "chain" else row["size"]


def verify_parts(row, prices):
    """A row's verify price in the decoding loop (verify_over_main: plain forwards per round) beside
    the same forward timed back to back in the same run: as a chain of its positions, and for a
    tree, as the tree itself. in_loop = back_to_back (tree: chain + mask_extra) + loop_extra."""
    k = verify_positions(row)
    chain = prices["chain"][k]
    back = prices["tree"][row["size"]] if row["shape"] == "tree" else chain
    out = {"family": row["family"], "shape": row["shape"], "size": row["size"], "positions": k,
           "in_loop": row["verify_over_main"], "chain_back_to_back": chain, "back_to_back": back,
           "loop_extra": row["verify_over_main"] - back}
    if row["shape"] == "tree":
        out["mask_extra"] = back - chain
    return out


def round_cost(row):
    """A row's round in plain forwards: verify + drafting + the rest (None where the rest was not taken apart)."""
    if row.get("other_per_round") is None:
        return None
    return row["verify_over_main"] + row["drafter_per_round"] + row["other_per_round"]


def pick(row, *figures):
    """A row's key (family, shape, size) and the figures a sentence quotes of it."""
    return {"family": row["family"], "shape": row["shape"], "size": row["size"], **{k: row[k] for k in figures}}


ROUND_PARTS = ("speedup", "tokens_per_main", "verify_over_main", "drafter_per_round", "other_per_round")


def recent(rows, drafting_prices, engine, temperature=1.0):
    """The 2025–26 families against the rest on `engine` at `temperature`: each new family's fastest
    row, the fastest row of each group (both timed in one interleaved run, except the ledger's
    draft model and MTP head at T = 1), each with its round's parts in plain forwards, plain
    decoding's time per character in the same units (1 + its rest), whether the new one is
    faster, whether every new one is slower than plain in every paired repeat, and on `engine` the drafting price per
    round against γ of the chain drafters that run a network (drafting_prices: EAGLE, EAGLE-3: one
    call per draft; the block: one call per round)."""
    lane = [r for r in rows if r["engine"] == engine and r["temperature"] == temperature]
    plain = next((r for r in lane if r["family"] == "plain"), None)
    recent_families = names(recent=True)  # the 2025–26 families (section ⑤'s "what changed")
    new = [r for r in lane if r["family"] in recent_families]
    old = [r for r in lane if r["family"] not in recent_families and r["family"] != "plain"]
    if not new or not old:
        return None
    per_char = 1 + plain["other_per_round"] if plain and plain.get("other_per_round") is not None else None
    fastest = lambda group: max(group, key=lambda r: r["speedup"])
    parts = lambda row: pick(row, *ROUND_PARTS)
    fastest_new = {f: fastest([r for r in new if r["family"] == f]) for f in recent_families if any(r["family"] == f for r in new)}
    each_new = {f: parts(r) for f, r in fastest_new.items()}
    best_new, best_old = fastest(new), fastest(old)
    drafting = {f: [{"size": int(g), "drafter_per_round": v} for g, v in sorted(by_gamma.items(), key=lambda kv: int(kv[0]))]
                for f, by_gamma in drafting_prices.get(engine, {}).items()}
    return {"engine": engine, "temperature": temperature, "plain_per_char": per_char,
            "each_new": each_new, "best_new": parts(best_new), "best_old": parts(best_old),
            "new_is_faster": best_new["speedup"] > best_old["speedup"],
            "all_new_slower_than_plain": all(paired_verdict(r["speedup_runs"]) == "slower" for r in fastest_new.values()),
            "drafting": drafting}


def summarize(payload, family="ngram", temperature=1.0):
    """The conclusions sections ⑤, ⑥ and ⑦ print, from the payload `measure` writes, on the
    primary engine: the fastest row per temperature (and the T = 1 one's round taken apart),
    the rows slower than plain at `temperature` and the slowest, which families are faster at
    T = 0 (by their best rows), the fastest row's verify taken apart, and for `family` the
    sweep's fastest and deepest tree and chain at `temperature`; then the learned drafters' α
    over model seeds, the n-gram table's memory and the T = 0 greedy check.
    Ties go to the first row in the payload's order."""
    engines, rows, sweep_rows = payload["engines"], payload["rows"], payload["sweep"]
    # JSON keys are strings: prices of one engine by int positions or nodes
    prices = {e: {kind: {int(k): v for k, v in p[kind].items()} for kind in ("chain", "tree")}
              for e, p in payload["verify_prices"].items()}
    engine = primary_engine(engines)
    out = {"primary_engine": engine, "temperature_change": temperature_change(rows, engine)}
    lane = lambda t: [r for r in rows if r["engine"] == engine and r["temperature"] == t and r["family"] != "plain"]
    out["fastest"] = {f"T{t:g}": pick(max(lane(t), key=lambda r: r["speedup"]), "speedup")
                      for t in TEMPERATURES if lane(t)}
    spec = lane(temperature)
    if spec:
        best = max(spec, key=lambda r: r["speedup"])
        plain = next((r for r in rows if r["engine"] == engine and r["temperature"] == temperature
                      and r["family"] == "plain"), None)
        if round_cost(best) is not None and plain is not None and plain.get("other_per_round") is not None:
            total, per_char = round_cost(best), 1 + plain["other_per_round"]
            out["fastest_round"] = {  # its round in plain forwards against plain decoding's per character
                "total": total, "plain_per_char": per_char,
                "speedup_from_parts": best["tokens_per_main"] * per_char / total,
                "verify_biggest": best["verify_over_main"] > max(best["drafter_per_round"], best["other_per_round"])}
        slowest = min(spec, key=lambda r: r["speedup"])
        out["slower_than_plain"] = {
            "temperature": temperature, "rows": len(spec),
            # by the chapter's verdict rule: every paired repeat below 1x, or neither side of it
            "families": [r["family"] for r in spec if paired_verdict(r["speedup_runs"]) == "slower"],
            "unclear": [r["family"] for r in spec if paired_verdict(r["speedup_runs"]) == "unclear"],
            "slowest": pick(slowest, "speedup", "tokens_per_main", "verify_over_main", "drafter_per_round",
                            "other_per_round", "round_total", "plain_per_char")}
        # (a row whose verify was not timed back to back, e.g. the ledger's draft model at a γ past
        # the families' sweep, has no such parts)
        if engine in prices and verify_positions(best) in prices[engine]["chain"] and (
                best["shape"] != "tree" or best["size"] in prices[engine]["tree"]):
            out["fastest_verify"] = verify_parts(best, prices[engine])
    swept = [r for r in sweep_rows if r["engine"] == engine and r["temperature"] == temperature and r["family"] == family]
    shapes = {shape: [r for r in swept if r["shape"] == shape] for shape in ("tree", "chain")}
    if all(shapes.values()):
        most = {shape: max(rs, key=lambda r: r["tokens_per_main"]) for shape, rs in shapes.items()}
        out["sweep_shapes"] = {
            "family": family, "temperature": temperature,
            **{shape: {"fastest": pick(max(rs, key=lambda r: r["speedup"]), "speedup", "verify_over_main"),
                       "most_tokens": pick(most[shape], "tokens_per_main")} for shape, rs in shapes.items()},
            "tree_gets_fewer": most["tree"]["tokens_per_main"] < most["chain"]["tokens_per_main"]}
        if engine in prices:
            out["tree_verify"] = {shape: verify_parts(max(rs, key=lambda r: r["speedup"]), prices[engine])
                                  for shape, rs in shapes.items()}
    out["recent"] = recent(rows, payload.get("drafting_prices", {}), engine)
    by_seed = payload["alpha_by_seed"].values()
    out["alpha_seed_range"] = {  # the learned drafters' α at T = 1 over model seeds (where there are several)
        f: {"min": min(a[f]["alpha"] for a in by_seed), "max": max(a[f]["alpha"] for a in by_seed)}
        for f in ("draft", "mtp", "medusa", "eagle")} if len(by_seed) > 1 else {}
    main_bytes = 4 * payload["costs"]["main_params"]  # float32 weights
    out["memory"] = {"main_bytes": main_bytes, "ngram_over_main": payload["costs"]["ngram"]["bytes"] / main_bytes}
    greedy = [r for r in sweep_rows if r["temperature"] == 0.0 and "greedy_equal" in r]
    identical = sum(bool(r["greedy_equal"]) for r in greedy)
    out["greedy_check"] = {"configurations": len(greedy), "identical": identical,  # both engines, every run
                           "all_identical": identical == len(greedy)}
    return out


def family_costs(by_seed, args):
    """Parameters, training time and size of each drafter (the n-gram table: its entries and
    bytes; suffix decoding's index: its suffix array's bytes); the trained heads for every seed
    measured that has them (`by_seed`: {seed: methods.Models}, the first seed first)."""
    seed, models = next(iter(by_seed.items()))
    main = models.main
    contexts, pairs = models.table(DEFAULT_ORDER).entries()

    def trained(kind, seed, models):
        payload = models.payloads[kind]
        log = read_json(require(args.results / f"train_{run_name(kind, 0, seed)}.json"))
        return {"params": sum(v.numel() for v in payload["model"].values()), "steps": payload["step"],
                "train_wall_s": log["wall_time_s"], "final_val": log["final_val"], "config": payload["config"]}

    heads = {kind: {**trained(kind, seed, models),
                    "by_seed": {str(s): trained(kind, s, d) for s, d in by_seed.items() if kind in d.heads}}
             for kind in names(source="heads") if kind in models.heads}
    index = models.suffix_index()
    return {"draft": {"params": models.draft.n_params()},
            "mtp": {"params": main.n_params(main.mtp)}, **heads,
            "ngram": {"order": DEFAULT_ORDER, "contexts": contexts, "entries": pairs,
                      "bytes": contexts * models.vocab_size * 4, "built_from": "train split"},
            "lookup": {"match_chars": orders()["lookup"] - 1, "params": 0},
            "suffix": {"params": 0, "corpus_chars": len(index), "max_depth": index.max_depth,
                       "bytes": len(index) * index.order.itemsize, "built_from": "train split",
                       "max_occurrences": SUFFIX_OCCURRENCES, "factor": SUFFIX_FACTOR},
            "lookahead": {"ngram": orders()["lookahead"], "params": 0},
            "main_params": main.n_params_main()}


def heads_trained(args, seed):
    return all((args.checkpoints / f"{run_name(kind, 0, seed)}.pt").exists() for kind in ("medusa", "eagle"))


def measure(args, data, seeds, sizes):
    """Everything on the first seed's models; α and training costs also on every other seed whose
    Medusa and EAGLE drafters are trained (the learned drafters' α against one another)."""
    threads = set_threads(1)
    models = load_seed(args, data, seeds[0])
    by_seed = {seeds[0]: models, **{s: load_seed(args, data, s, models.tables)
                                      for s in seeds[1:] if heads_trained(args, s)}}
    regime, rows, sweep_rows = answer_rows(args)
    engines = [regime["engine"]]  # the answer engine: its rows, and its verify and drafting prices
    prompt, n_chars = data.encode(LEDGER_PROMPT), sizes.ledger_chars
    alpha_seeds = list(range(sizes.alpha_runs))
    with torch.inference_mode():
        alpha, depth = {}, {}
        for t in TEMPERATURES:
            alpha[f"T{t:g}"], texts = teacher_forced_alpha(models, prompt, n_chars, t, alpha_seeds if t else [0],
                                                           args.device)
            depth[f"T{t:g}"] = alpha_by_depth(models, texts, t, args.device)
            print(f"  α by depth, T={t:g}: " + ", ".join(f"{k} {[round(a, 3) for a in v]}"
                                                         for k, v in depth[f"T{t:g}"].items()), flush=True)
        alpha_by_seed = {str(s): alpha["T1"] if s == seeds[0] else
                         teacher_forced_alpha(d, prompt, n_chars, 1.0, alpha_seeds, args.device)[0]
                         for s, d in by_seed.items()}
        for s, a in alpha_by_seed.items():
            print(f"  alpha T=1, seed {s}: " + ", ".join(f"{k} {v['alpha']}" for k, v in a.items()), flush=True)
        trees = recorded_trees(models, data, prompt, n_chars, sizes.family_trees, args.device)
    shapes = {t["nodes"]: Tree(data.encode(t["tokens"]), list(t["parents"]), list(t["depths"])) for t in trees}
    prices = verify_prices(models.main, models.draft, shapes, engines, sizes, args.device)
    drafting = drafting_prices(models, engines, sizes.family_gammas, sizes, args.device)
    for engine, by_family in drafting.items():
        print(f"  drafting back to back, {engine}: " + ", ".join(
            f"{f} γ1 {v[min(v)]:.2f} γ{max(v)} {v[max(v)]:.2f}" for f, v in by_family.items()), flush=True)
    for engine, p in prices.items():
        print(f"  verify back to back, {engine}: " + ", ".join(
            f"tree {n} {p['tree'][n]:.2f} (chain {p['chain'][n]:.2f})" for n in p["tree"]), flush=True)
    payload = {
        "prompt": LEDGER_PROMPT, "n_chars": regime["n_chars"], "alpha_chars": n_chars, "threads": threads,
        "engines": engines, "temperatures": list(TEMPERATURES), "families": list(measured_families()),
        "chain_gammas": list(sizes.family_gammas), "tree_sizes": list(sizes.family_trees),
        "sweep_repeats": regime["choose_repeats"], "repeats": regime["trained_repeats"],
        "seeds": list(range(regime["trained_repeats"])), "model_seed": seeds[0],
        "alpha_seeds": alpha_seeds, "alpha": alpha, "alpha_by_seed": alpha_by_seed,
        "alpha_by_depth": {"depth": DEPTH, "window": models.main.cfg.block_size, "stride": DEPTH_STRIDE, **depth},
        "costs": family_costs(by_seed, args), "sweep": sweep_rows, "rows": rows,
        "tree_rounds": trees, "verify_prices": prices, "drafting_prices": drafting}
    return {"families": {**payload, "summary": summarize(payload)}}
