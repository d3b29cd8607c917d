"""What the page shows that is computed from the results: done here, in Python, once, so that the
templates only format it and the scripts read it from the chapter data (never from the DOM it was
rendered into).

rows.py tags every timed row first (its figure condition and its verdict). Then each section's
module returns what that section prints, `view(data)`, and the templates read it as
`view.<section>`; a view never changes the data it reads (the scripts get that data as it is)."""
from chapter.views import (acceptance, choosing, closing, dial, engines, families, gamma, glossary, header, lab, ledger,
                           mtp, regime, verify)

SECTIONS = {"header": header, "regime": regime, "glossary": glossary, "verify": verify, "acceptance": acceptance,
            "gamma": gamma, "mtp": mtp, "families": families, "ledger": ledger, "dial": dial, "engines": engines,
            "choosing": choosing, "lab": lab, "closing": closing}  # the page's order (page.html.j2)


def section_views(data, extra=None):
    """Each section's view of the tagged page data, by the section's name. extra: {section: keyword
    arguments} for a view that reads an input kept out of the page data (the dial's rerun)."""
    extra = extra or {}
    return {name: module.view(data, **extra.get(name, {})) for name, module in SECTIONS.items()}
