"""②, the acceptance rule: the counts its paragraphs quote about the positions and the divergence sweep."""


def view(data):
    """What ②, the acceptance rule (sections/acceptance.html.j2) prints, computed here so that the template only formats it."""
    accept, sweep = data["acceptance"], data["divergence_sweep"]
    return {"n_positions": len(accept["positions"]),  # the widget's validation positions
            "context_chars": len(accept["positions"][0]["context"]),  # each position's context, in characters
            "vocab_size": len(accept["vocab"]),
            "draws": accept["draws"],
            "n_snapshots": len(sweep["snapshots"]),  # the draft model's training snapshots in the h-tv scatter
            "sweep_positions": sweep["n_positions"],
            "max_tv_gap": sweep["max_abs_alpha_minus_one_minus_tv"]}
