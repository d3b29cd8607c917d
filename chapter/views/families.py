"""⑤, where drafts come from (sections/families.html.j2)."""


def view(data):
    """What ⑤, where drafts come from (sections/families.html.j2) prints, computed here so that the template only formats it."""
    return {}
