"""The glossary: the one figure its definitions quote, the main model's context window."""


def context_window(data):
    """The main model's context window in characters (its first seed's block_size): the length of
    the sliding window of the kv-cache mode and of every recompute-mode forward."""
    models = data["models"]
    return models["runs"]["main_s%d" % models["meta"]["seeds"][0]]["config"]["block_size"]


def view(data):
    """What the glossary (sections/glossary.html.j2) prints, computed here so that the template only formats it."""
    return {"window": context_window(data)}
