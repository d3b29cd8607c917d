"""⑧, the lab (sections/lab.html.j2): the Python figures the browser's runs are held against (lab_compare, also
read by static/js/lab.js), ①'s eager curve as the lab's deep dive quotes it, and what rounding to float16 changed."""
from chapter.views.rows import flat_bound


LAB_GAMMA = 4  # the lab's default γ (static/js/lab_text.js LAB_DEFAULTS)
QUOTED_R_KS = (2, 4, 8)  # the r_k the sentences list, where ①'s curve has them
VERIFY_K = 4  # the verify the sentences price: 3 drafts, 4 positions (a point of ①'s curve)
ROUNDING_CHECKS = {"main": ("main", "model"), "mtp": ("main", "mtp"), "draft": ("draft", "model")}  # lab.json rounding

def far_below_linear(r_k, k):
    """⑧'s "more positions raise a forward's time far more slowly than their number": r_k < k / 2.
    Not the flatness rule (experiments/stats.py is_flat: r_k within FLAT_SLACK of one, extra
    positions nearly free), a question of how the price grows: ①'s eager r_4 = 1.24 is not flat,
    yet far below linear."""
    return r_k < k / 2

def compare_row(method, gamma, row, source):
    """One row of ⑧'s comparison: what Python measured for a setting the lab can run."""
    return {"method": method, "gamma": gamma, "alpha": row.get("alpha"), "tokens_per_main": row["tokens_per_main"],
            "repeats": row["repeats"], "source": source}

def lab_compare(data):
    """⑧'s comparison rows, Python's α and characters per main forward beside what the lab runs:
    the ledger's kv-cache eager rows (its sampling seeds) for plain decoding, the draft model at the
    lab's γ and at γmax, and the MTP head; families.json for the n-gram table, its one-run sweep at
    the lab's γ (source "sweep") and its timed row (source "families") where that is another γ.
    A smaller `make measure` (the smoke test's sizes) may have neither n-gram row: then none."""
    ledger, families = data["ledger"], data["families"]
    eager = [r for r in ledger["rows"] if r["mode"] == "kvcache" and r.get("engine") == "eager"]
    rows = [compare_row("plain", 0, r, "ledger") for r in eager if r["method"] == "plain"]
    for gamma in dict.fromkeys([LAB_GAMMA, ledger["gamma_max"]]):
        rows += [compare_row("draft", gamma, r, "ledger") for r in eager if r["method"] == "draft" and r["gamma"] == gamma]
    rows += [compare_row("mtp", 1, r, "ledger") for r in eager if r["method"] == "mtp"]

    def ngram_chain(r):
        return r["family"] == "ngram" and r["shape"] == "chain" and r["engine"] == "eager" and r["temperature"] == 1

    sweep = next((r for r in families["sweep"] if ngram_chain(r) and r["size"] == LAB_GAMMA), None)
    timed = next((r for r in families["rows"] if ngram_chain(r)), None)
    if sweep:
        rows.append(compare_row("ngram", LAB_GAMMA, sweep, "sweep"))
    if timed and timed["size"] != LAB_GAMMA:
        rows.append(compare_row("ngram", timed["size"], timed, "families"))
    return rows


def eager_curve(costs):
    """⑧'s "why the race differs": ①'s eager curve (costs.json, kv-cache mode), r_k = a forward over k new
    positions ÷ a one-position forward, as the deep dive quotes it."""
    eager, flat = costs["engines"]["eager"], costs["summary"]["eager"]
    r = eager["over_main"]
    return {"main_ms": 1000 * eager["seconds"]["main"],
            "r_list": [{"k": k, "r": r[str(k)]} for k in QUOTED_R_KS if k in costs["positions"]],
            "verify_k": VERIFY_K, "verify_drafts": VERIFY_K - 1, "r_verify": r[str(VERIFY_K)],
            "verify_far_below_linear": far_below_linear(r[str(VERIFY_K)], VERIFY_K),
            # the curve's opening: a priced second position, or a flat stretch of several, or neither
            "second_position_priced": flat["flat_until"] == 1 and "2" in r,
            "second_position_extra": r["2"] - 1 if "2" in r else None,
            "flat_until": flat["flat_until"], "flat_stretch": flat["flat_until"] > 1,
            "flat_bound": flat_bound(costs)}


def rounding_check(check):
    """One model's float16 check (lab.json rounding) with how often rounding changed the greedy choice:
    the agreement is a fraction of the positions, the page counts them (jinja's round, Python's)."""
    return {**check, "all_agree": check["argmax_agree"] >= 1,
            "flips": int(round((1 - check["argmax_agree"]) * check["positions"], 0))}


def compare_rows(rows):
    """lab_compare's rows as the table prints them (new dicts: the chapter data's rows stay as they are)."""
    return [dict(row, shows_gamma=row["method"] in ("draft", "ngram"), is_plain=row["method"] == "plain",
                 seeds_plural=row["repeats"] != 1) for row in rows]


def view(data):
    """What ⑧, the lab (sections/lab.html.j2) prints, computed here so that the template only formats it."""
    meta = data["lab_meta"]
    rows = compare_rows(data["lab_compare"])
    return {"vocab_size": len(meta["vocab"]), "ngram_from_train": meta["ngram"]["built_from"] == "train split",
            "block_size": data["models"]["runs"][f"main_s{meta['model_seed']}"]["config"]["block_size"],
            **eager_curve(data["costs"]),
            "rounding": {name: rounding_check(meta["rounding"][model][part])
                         for name, (model, part) in ROUNDING_CHECKS.items()},
            "compare_rows": rows, "ngram_compared": any(r["method"] == "ngram" for r in rows)}
