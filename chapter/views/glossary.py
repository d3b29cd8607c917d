"""The glossary (sections/glossary.html.j2)."""


def view(data):
    """What the glossary (sections/glossary.html.j2) prints, computed here so that the template only formats it."""
    return {}
