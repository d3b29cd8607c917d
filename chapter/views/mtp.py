"""④, MTP: the chapter's model beside DeepSeek-V3."""


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
            "alpha": ours, "inside": low <= ours <= high, "near": low - 0.05 <= ours <= high + 0.05,
            # the published figures the FAQ quotes
            "total_params": ds["total_params"], "active_params": ds["active_params"],
            "train_tokens": ds["train_tokens"], "acceptance": [low, high], "decoding_speedup": ds["decoding_speedup"]}


def view(data):
    """What ④, MTP (sections/mtp.html.j2) prints, computed here so that the template only formats it."""
    return {}
