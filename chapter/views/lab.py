"""⑧, the lab: the Python figures the browser's runs are held against."""


LAB_GAMMA = 4  # the lab's default γ (static/js/lab_text.js LAB_DEFAULTS)

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


def view(data):
    """What ⑧, the lab (sections/lab.html.j2) prints, computed here so that the template only formats it."""
    return {}
