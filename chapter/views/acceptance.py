"""②, the acceptance rule (sections/acceptance.html.j2)."""


def view(data):
    """What ②, the acceptance rule (sections/acceptance.html.j2) prints, computed here so that the template only formats it."""
    return {}
