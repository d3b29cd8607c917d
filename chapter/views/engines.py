"""⑥'s engine deep dive (sections/engines.html.j2)."""


def view(data):
    """What ⑥'s engine deep dive (sections/engines.html.j2) prints, computed here so that the template only formats it."""
    return {}
