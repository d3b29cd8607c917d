"""Addresses nobody meant to write, in headless Chromium: every widget's hash key set to a name
that every JS object inherits ("__proto__", "constructor", …), on load and by hashchange. A hash
parser that looks such a value up with `key in table` or `table[key]` finds Object.prototype's
member instead of nothing; each widget must fall back to its default instead, with no console
error (open_page fails the test on any). Timings are not asserted here (`make bench`)."""
import pytest

PROTOTYPE_NAMES = ["__proto__", "constructor", "valueOf", "hasOwnProperty", "toString"]
# every key a widget reads from the address (grep hashGet/hashSet in static/js), lab's included
HASH_KEYS = ["lang", "gamma", "pos", "gmode", "galpha", "gc", "mtppart", "mtpstep", "mtpmode", "tree",
             "pick", "lmode", "lsort", "lrow", "feng", "ftemp", "lab-m", "lab-g", "lab-t", "lab-s", "lab-n"]


def hostile_hash(name, suffix=""):
    """#lang=en, then every other key set to `name` (the ledger's sort also as `name-asc`)."""
    parts = ["lang=en"] + [f"{key}={name}" for key in HASH_KEYS if key != "lang"]
    return "#" + "&".join(parts) + (f"&lsort={name}{suffix}" if suffix else "")


def assert_every_widget_started(page, suffix):
    assert page.get_by_text("This demo could not start").count() == 0
    assert page.locator("#ledger-table tbody tr").count() > 0
    # the ledger falls back to its default column, the speedup, in the direction asked for
    direction = "ascending" if suffix == "-asc" else "descending"
    assert page.locator('#ledger-table th[data-key="speedup"]').get_attribute("aria-sort") == direction
    assert page.locator("#verify-grid [data-row]").count() > 0
    assert page.locator("#gamma-chart-speed svg").count() == 1
    assert page.locator("#mtp-diagram .mtp-part[aria-pressed=true]").count() == 1
    assert page.locator("#lab-gamma").input_value() == "4"  # the lab's default γ


@pytest.mark.parametrize("suffix", ["", "-asc"])
@pytest.mark.parametrize("name", PROTOTYPE_NAMES)
def test_prototype_names_in_the_address_fall_back_to_defaults(open_page, name, suffix):
    page = open_page(hash_=hostile_hash(name, suffix))
    assert page.evaluate("document.documentElement.lang") == "en"
    assert_every_widget_started(page, suffix)
    assert page.errors == []


def test_prototype_names_applied_by_hashchange(open_page):
    page = open_page(hash_="#lang=en&lsort=alpha-asc")
    assert page.locator('#ledger-table th[data-key="alpha"]').get_attribute("aria-sort") == "ascending"
    for name in PROTOTYPE_NAMES:
        for suffix in ("", "-asc", "-desc"):
            page.evaluate("h => { location.hash = h; }", hostile_hash(name, suffix))
            page.wait_for_function("h => location.hash === h", arg=hostile_hash(name, suffix))
            page.evaluate("() => new Promise((resolve) => setTimeout(resolve, 0))")  # hashchange has run
            assert page.errors == [], (name, suffix, page.errors)
            assert_every_widget_started(page, suffix)
        # and back: a real column still applies
        page.evaluate("() => { location.hash = '#lang=en&lsort=alpha-asc'; }")
        page.wait_for_function("() => document.querySelector('#ledger-table th[data-key=alpha]')"
                               ".getAttribute('aria-sort') === 'ascending'")
