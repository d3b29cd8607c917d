"""The page on a phone (390 px) and the wide tables at 1280 px, in Chromium: ⑤'s map reads its long
columns in a detail row under each family, a table's caption wraps in view above the part that
scrolls, and a deep dive's border goes round the wide table it holds, not through it."""
import orjson
import pytest

from tests.helpers import ROOT, open_deep

FAMILIES = orjson.loads((ROOT / "experiments/results/families.json").read_bytes())

LONG_COLUMNS = """() => [...document.querySelectorAll('#family-map .map-long')].filter((c) => c.checkVisibility()).length"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_phone_the_family_map_reads_its_long_columns_under_each_family(open_page, lang):
    page = open_page(width=390, hash_=f"#lang={lang}")
    box = page.locator(".table-scroll:has(#family-map)")
    box.scroll_into_view_if_needed()
    assert page.evaluate(LONG_COLUMNS) == 0  # where drafts come from, training: not squeezed into columns
    details = page.locator("#family-map tr.map-detail")
    assert details.count() == len(FAMILIES["families"])
    edge = box.bounding_box()
    for i in range(details.count()):
        more = details.nth(i).locator(".map-more")
        assert more.is_visible()
        assert details.nth(i).get_attribute("data-detail-of") == FAMILIES["families"][i]
        # the whole text sits inside the box's visible width, lines of a readable length
        b = more.bounding_box()
        assert b["x"] >= edge["x"] - 1 and b["x"] + b["width"] <= edge["x"] + edge["width"] + 1 and b["width"] > 250
        # and it stays there while the numbers scroll sideways
        box.evaluate("(el) => { el.scrollLeft = el.scrollWidth; }")
        assert abs(more.bounding_box()["x"] - b["x"]) < 1
        box.evaluate("(el) => { el.scrollLeft = 0; }")


def test_at_1280_the_family_map_reads_each_familys_long_cells_in_one_line_under_its_row(open_page):
    page = open_page(hash_="#lang=en")
    assert page.evaluate(LONG_COLUMNS) == 0  # where drafts come from, training: no narrow columns
    details = page.locator("#family-map tr.map-detail")
    assert details.count() == len(FAMILIES["families"])
    row = page.locator("#family-map tr[data-family]").first.bounding_box()
    more = details.first.locator(".map-more").bounding_box()
    # under its family's row, as wide as the row, the two short texts side by side on one line
    assert more["y"] >= row["y"] + row["height"] - 1 and more["width"] > 0.9 * row["width"]
    assert more["height"] < 2 * 0.8 * 16 * 1.45


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_phone_a_tables_caption_wraps_in_view_above_what_scrolls(open_page, lang):
    page = open_page(width=390, hash_=f"#lang={lang}")
    open_deep(page, "recent")
    page.locator("#recent-widget .table-scroll caption").first.wait_for()
    cut = page.evaluate("""() => [...document.querySelectorAll('.table-scroll')].filter((box) => box.checkVisibility()
      && box.querySelector(':scope > table > caption')).filter((box) => {
        const cap = box.querySelector(':scope > table > caption'), edge = box.getBoundingClientRect();
        box.scrollLeft = box.scrollWidth;
        const r = cap.getBoundingClientRect();
        box.scrollLeft = 0;
        return r.left < edge.left - 1 || r.right > edge.right + 1;
      }).map((box) => box.querySelector('[id]')?.id || box.closest('[id]').id)""")
    assert cut == []
    assert page.locator("#recent-widget .table-scroll caption").count() >= 2


def test_a_deep_dives_border_goes_round_its_wide_tables_at_1280(open_page):
    page = open_page(hash_="#lang=en")
    open_deep(page, "cond-temperature")
    through = page.evaluate("""() => [...document.querySelectorAll('details.deep[open] .table-scroll.wide, details.deep[open] .widget.wide')]
      .filter((t) => t.checkVisibility()).filter((t) => {
        const d = t.closest('details.deep').getBoundingClientRect(), r = t.getBoundingClientRect();
        return r.right > d.right - 1 || r.left < d.left + 1;
      }).map((t) => t.closest('details.deep').id)""")
    assert through == []
    assert page.locator("#deep-cond-temperature .table-scroll.wide").count() >= 1
    # the deep dive's text keeps the column's measure: no wider than a paragraph outside it
    widths = page.evaluate("""() => [...document.querySelectorAll('#s-choosing > p, #deep-cond-temperature .deep-body > p')]
      .filter((p) => p.checkVisibility()).map((p) => [p.closest('details') ? 1 : 0, p.getBoundingClientRect().width])""")
    outside = max(w for inside, w in widths if not inside)
    assert widths and max(w for inside, w in widths if inside) <= outside + 1
