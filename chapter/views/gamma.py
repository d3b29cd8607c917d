"""③, how many to guess (sections/gamma.html.j2)."""


def view(data):
    """What ③, how many to guess (sections/gamma.html.j2) prints, computed here so that the template only formats it."""
    return {}
