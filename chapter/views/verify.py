"""①, one forward verifies a chain (sections/verify.html.j2)."""


def view(data):
    """What ①, one forward verifies a chain (sections/verify.html.j2) prints, computed here so that the template only formats it."""
    return {}
