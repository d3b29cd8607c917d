"""The header and the chapter card (page.html.j2)."""


def view(data):
    """What the header and the chapter card (page.html.j2) prints, computed here so that the template only formats it."""
    return {}
