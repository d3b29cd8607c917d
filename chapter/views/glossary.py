"""The glossary: the figures its definitions quote, the main model's context window and one row's two
kinds of median speedup."""
from chapter.views.rows import find_row


def context_window(data):
    """The main model's context window in characters (its first seed's block_size): the length of
    the sliding window of the kv-cache mode and of every recompute-mode forward."""
    models = data["models"]
    return models["runs"]["main_s%d" % models["meta"]["seeds"][0]]["config"]["block_size"]


def speedup_example(data):
    """⑤'s fastest row at T = 1 (families.json, its primary engine), whose speedup (the ratio of the median
    wall times, as every speedup on the page) the glossary sets beside the median of its paired ratios."""
    fa = data["families"]
    family = fa["summary"]["fastest"]["T1"]["family"]
    row = find_row(fa["rows"], engine=fa["summary"]["primary_engine"], temperature=1.0, family=family)
    return {"row": row, "median_of_ratios": row["speedup_runs"]["median"]}


def view(data):
    """What the glossary (sections/glossary.html.j2) prints, computed here so that the template only formats it."""
    return {"window": context_window(data), "speedup_example": speedup_example(data)}
