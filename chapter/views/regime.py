"""The regime summary (sections/regime.html.j2)."""


def view(data):
    """What the regime summary (sections/regime.html.j2) prints, computed here so that the template only formats it."""
    return {}
