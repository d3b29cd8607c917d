"""①, one forward verifies a chain (sections/verify.html.j2): the verify grid's example, the price of
extra positions (costs.json), a token tree's price (families.json) and the heavy twins' (regime.json)."""
from chapter.views.regime import mechanism
from chapter.views.rows import first_seed_run, flat_bound

GRID_GAMMA = 4  # the grid opens on a chain short enough to read
FAST_ENGINES = ("aot", "native")  # the engines that take the dispatch cost away, in the deep dive's order
TREE_NODES = (16, 32)  # the tree sizes whose verify price the section quotes


def grid(example):
    """The verify grid as it opens: γ, and how many of its rows (and of the whole chain's) are discarded."""
    start = min(GRID_GAMMA, example["gamma"])
    accepted = example["n_accepted"]
    return {"gamma_start": start,
            "grid_rejects": accepted < start, "grid_discarded": start - accepted,
            "chain_discarded": example["gamma"] - accepted}


def milliseconds(engine):
    """An engine's one-position forward (costs.json), in ms."""
    return 1000 * engine["seconds"]["main"]


def flat_engine(summary, answer=None):
    """The engine whose flat stretch ① quotes: the dial's answer engine where costs.json measured it (⑥
    ranks on it); else the one whose curve stays flat longest, the compiled one only where it alone
    reaches the longest stretch."""
    if answer in summary:
        return answer
    longest, compiled = summary["flat_until_max"], summary.get("compiled")
    if compiled and compiled["flat_until"] == longest and summary["eager"]["flat_until"] != longest:
        return "compiled"
    return "eager"


def curve_dip(costs, engine):
    """The first place where more positions cost clearly less on `engine` (the larger count's slowest repeat
    under the smaller's fastest): readers of ① saw 4 positions under 3. None where the curve never falls."""
    positions, spread = costs["positions"], costs["engines"][engine]["over_main_spread"]
    for k, k_next in zip(positions, positions[1:]):
        if spread[str(k_next)]["max"] < spread[str(k)]["min"]:
            return {"k": k, "r": spread[str(k)]["median"], "k_next": k_next, "r_next": spread[str(k_next)]["median"],
                    "repeats": spread[str(k)]["n"]}
    return None


def cost_curve(costs, answer=None):
    """The measured curve's facts the sentences quote: engines, threads, the flat stretch (on the
    answer engine where it was measured: flat_engine)."""
    engines, summary = costs["engines"], costs["summary"]
    flat = flat_engine(summary, answer)
    compiled = engines.get("compiled")
    return {"other_engines": len(engines) - 1, "several_engines": len(engines) > 1, "threads_plural": costs["threads"] != 1,
            "last_position": costs["positions"][-1], "second_position": costs["positions"][1],
            "eager_ms": milliseconds(engines["eager"]), "has_compiled": bool(compiled),
            "compiled_ms": milliseconds(compiled) if compiled else None,
            "flat_start": summary[flat]["flat_start"], "flat_max": summary[flat]["flat_until"],
            "flat_engine": flat, "flat_is_answer": flat == answer, "flat_bound": flat_bound(costs),
            "dip": None if summary[flat]["flat_start"] else curve_dip(costs, flat)}  # a flat start says its own shape


def steepest(costs):
    """The engine whose curve climbs highest (r at the last position) and how many times cheaper its
    one-position forward is than the eager engine's; `explained` where that engine is not the eager one,
    has the cheapest one-position forward of all, and one more position costs every engine about the same
    (within 2×, over the whole curve): then its steep curve comes from its cheap base, the divisor of r_k."""
    engines, last = costs["engines"], str(costs["positions"][-1])
    top = max(engines, key=lambda e: engines[e]["over_main"][last])
    base = {e: milliseconds(engine) for e, engine in engines.items()}
    extra = [1000 * (e["seconds"]["positions"][last] - e["seconds"]["positions"]["1"]) / (int(last) - 1) for e in engines.values()]
    return {"steepest": top, "steepest_cheaper": base["eager"] / base[top],
            "steepest_explained": top != "eager" and base[top] == min(base.values()),
            "extra_alike": max(extra) <= 2 * min(extra)}


def tree_prices(data):
    """A token tree's verify price beside a chain of as many positions, timed back to back in families.json's
    run on its engine (the answer run's): {shape: {nodes: {value, cond}}}; None where that run lacks the
    16- and 32-node trees, and then the section quotes costs.json's chain prices on its primary engine."""
    families, primary = data["families"], data["costs"]["summary"]["primary_engine"]
    prices = families.get("verify_prices")
    engine = families["engines"][0] if prices else primary
    by_shape = (prices or {}).get(engine)
    if not (by_shape and all(str(k) in by_shape["tree"] for k in TREE_NODES)):
        return primary, None
    return engine, {shape: {k: {"value": by_shape[shape][str(k)], "cond": f"families|{engine}|{shape}{k}"}
                            for k in TREE_NODES} for shape in ("tree", "chain")}


def twins(data):
    """The heavy twins' curves: the model as trained, the heaviest twin, and the dearest verify (⑥'s dial)
    with whether it is a third scale, between the two."""
    regime = data["regime"]
    light, heavy = regime["points"][0], regime["points"][-1]
    dearest = next(p for p in regime["points"] if p["scale"] == data["dial"]["dearest_verify_scale"])
    return {"light": light, "heavy": heavy, "dearest": dearest, "k_max": max(int(k) for k in light["r"]),
            "dearest_between": dearest["scale"] not in (light["scale"], heavy["scale"]),
            "bandwidth_gb_s": regime["roofline"]["bandwidth_bytes_per_s"] / 1e9,
            "matmul_gflop_s": regime["roofline"]["flops_per_s"] / 1e9}


def fast_engines(costs):
    """The engines without the dispatch cost that costs.json measured, each with its one-position forward in ms."""
    return [{"engine": e, "ms": milliseconds(costs["engines"][e])} for e in FAST_ENGINES if costs["engines"].get(e)]


def view(data):
    """What ①, one forward verifies a chain (sections/verify.html.j2) prints, computed here so that the template only formats it."""
    main, draft = first_seed_run(data["models"], "main"), first_seed_run(data["models"], "draft")
    tree_engine, prices = tree_prices(data)
    fast = fast_engines(data["costs"])
    return {"example": data["causal"]["verify_example"], **grid(data["causal"]["verify_example"]),
            "block_size": main["config"]["block_size"], "draft_params": draft["params"],
            "main_float32_mb": 4 * main["params"] / 1e6,
            **cost_curve(data["costs"], data["regime"]["engine"]), **steepest(data["costs"]), "tree_engine": tree_engine, "tree_prices": prices, **twins(data),
            "fast_engines": fast, "two_fast_engines": len(fast) == 2, "mechanism": mechanism(data["regime"], flat_bound(data["costs"])),
            "prefix_bitwise_equal": data["causal"]["prefix_check"]["max_abs_diff"] == 0}
