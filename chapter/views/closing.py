"""The closing panel (sections/closing.html.j2)."""


def view(data):
    """What the closing panel (sections/closing.html.j2) prints, computed here so that the template only formats it."""
    return {}
