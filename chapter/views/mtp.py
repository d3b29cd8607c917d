"""④, MTP (sections/mtp.html.j2): the head against the small draft, the MTP loss's paired verdict, and the
chapter's model beside DeepSeek-V3."""
from chapter.views.rows import find_row


def deepseek_scale(data, papers):
    """④'s FAQ: this chapter's main model beside DeepSeek-V3 (published.json): how many times
    fewer parameters (total and activated) and training characters it has, and where the MTP
    head's α counted during decoding falls against the reported acceptance range (inside it, or
    within 0.05 of it: "near")."""
    ds, mtp = papers["deepseek_v3"], data["mtp"]
    ours, (low, high) = mtp["alpha"]["mtp"]["mean"], ds["mtp_acceptance"]
    return {"params_ratio": ds["total_params"] / mtp["params"]["main_total"],
            "active_ratio": ds["active_params"] / mtp["params"]["main_total"],
            "data_ratio": ds["train_tokens"] / mtp["summary"]["train_chars_seen"],
            "alpha": ours, "inside": low <= ours <= high, "near": low - 0.05 <= ours <= high + 0.05}


def paper_scale(ds):
    """DeepSeek-V3's published figures in the units the section prints them: parameters in billions (B) and
    in 亿 (1e8), tokens in trillions (T), the second token's acceptance in percent."""
    weight = ds["mtp_weight"]
    return {"total_b": ds["total_params"] / 1e9, "active_b": ds["active_params"] / 1e9,
            "total_yi": ds["total_params"] / 1e8, "active_yi": ds["active_params"] / 1e8,
            "train_t": ds["train_tokens"] / 1e12,
            "first_t": weight["first_tokens"] / 1e12, "then_t": weight["then_tokens"] / 1e12,
            "acceptance_pct": [100 * a for a in ds["mtp_acceptance"]]}


def noise_verdict(verdict):
    """The paired t-test's verdict on the MTP loss as the page marks it: beyond seed noise, within it, or
    none yet (a single seed)."""
    beyond = verdict["beyond_seed_noise"]
    return "none" if beyond is None else "beyond" if beyond else "within"


def loss_verdict(mtp):
    """The MTP loss against the control (④'s deep dive): the test's figures and the facts its wording follows."""
    verdict, d = mtp["verdict"], mtp["verdict"]["mean_difference"]
    return {"verdict": verdict, "noise_verdict": noise_verdict(verdict), "abs_mean_difference": abs(d),
            "loss_lower": mtp["summary"]["mtp_loss_lower"],
            "ci95": verdict["ci95"] or [d, d],  # every seed moved alike: no interval, the difference itself
            "has_t": verdict["t"] is not None, "has_df": verdict["df"] is not None}


def view(data):
    """What ④, MTP (sections/mtp.html.j2) prints, computed here so that the template only formats it."""
    mtp, summary = data["mtp"], data["mtp"]["summary"]
    seed = mtp["seeds"][0]
    ledger_mtp = next(r for r in data["ledger"]["rows"] if r["method"] == "mtp")
    flips = summary["alpha_order_flips"]
    return {"seed": seed, "n_seeds": len(mtp["seeds"]), "several_seeds": len(mtp["seeds"]) > 1,
            "main": data["models"]["runs"][f"main_s{seed}"], "sample_steps": len(mtp["sample"]["steps"]),
            # the ledger's runs (the head-to-head table) use the models' first seed and its sampling seeds
            "ledger_repeats": ledger_mtp["repeats"], "ledger_model_seed": data["models"]["meta"]["seeds"][0],
            # the two measures of α rank the drafters differently; explained when the head leads in generated text
            "alpha_order_flips": flips, "flip_explained": bool(flips and summary["mtp_ahead_generated"]),
            **loss_verdict(mtp),
            "draft_params_pct": 100 * data["models"]["summary"]["draft_params_fraction"],
            # the module's new parameters and their share of the main model, as ④'s diagram prints them
            "new_params": mtp["params"]["mtp_head_total"],
            "new_params_pct": 100 * mtp["params"]["mtp_head_total"] / mtp["params"]["main_total"],
            "paper": paper_scale(data["published"]["deepseek_v3"]),
            "alpha_pct": 100 * data["deepseek"]["alpha"], "alpha_val_pct": 100 * mtp["alpha"]["mtp_val"]["mean"],
            # the head's fastest row on the dial as trained: more characters per forward is not yet less time
            "as_trained": find_row(data["regime"]["points"][0]["best"]["T1"], family="mtp")}
