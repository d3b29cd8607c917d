"""The page on a phone (390 px) and the wide tables at 1280 px, in Chromium: ⑤'s map names each
family's kind and keeps its long texts in a box under it, a table's caption wraps in view above the
part that scrolls, and a deep dive's border goes round the wide table it holds, not through it."""
import orjson
import pytest

from tests.helpers import ROOT, open_deep

FAMILIES = orjson.loads((ROOT / "experiments/results/families.json").read_bytes())

REGISTRY = orjson.loads((ROOT / "experiments/results/registry.json").read_bytes())


@pytest.mark.parametrize("width, lang", [(390, "en"), (390, "zh"), (1280, "en")])
def test_the_family_map_names_each_kind_and_its_box_says_how_each_drafts(open_page, width, lang):
    """Each row of ⑤'s map and of its fold names its family's kind under the name (one wording per registry group); where
    the drafts come from and the training wait in a closed box under the map, every family in the map's
    order, in lines that fit the screen."""
    page = open_page(width=width, hash_=f"#lang={lang}")
    page.locator("#family-more-box > summary").click()
    rows = page.locator("#family-map tbody tr[data-family], #family-map-more tbody tr[data-family]")
    families = [rows.nth(i).get_attribute("data-family") for i in range(rows.count())]
    assert sorted(families) == sorted(FAMILIES["families"])
    kinds = rows.locator("th .kind").all_inner_texts()
    groups = {f["name"]: f["group"] for f in REGISTRY["families"]}
    words = {}
    for family, kind in zip(families, kinds, strict=True):
        words.setdefault(groups[family], set()).add(kind.strip())
    assert all(len(w) == 1 and all(w) for w in words.values()), words
    assert len({w.pop() for w in words.values()}) == len(words)  # two groups never share a wording
    box = page.locator("#family-drafts-box")
    assert box.get_attribute("open") is None  # off the main path
    box.locator("> summary").click()
    terms = box.locator("dt")
    assert [terms.nth(i).get_attribute("data-family") for i in range(terms.count())] == FAMILIES["families"]
    drafts = {f["name"]: f["drafts"][lang] for f in REGISTRY["families"]}
    edge = page.locator("section#s-families").bounding_box()
    for i, family in enumerate(FAMILIES["families"]):
        dd = box.locator("dd").nth(i)
        assert drafts[family] in dd.inner_text()
        b = dd.bounding_box()
        assert b["x"] + b["width"] <= edge["x"] + edge["width"] + 1  # read without scrolling sideways


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_phone_the_family_map_stacks_each_family_with_its_columns_named(open_page, lang):
    """At 390 px ⑤'s map scrolls nowhere: each family is a block, each number under its column's name in
    the page's language (the header row is hidden), the speedup on screen."""
    page = open_page(width=390, hash_=f"#lang={lang}")
    box = page.locator("#family-map").locator("xpath=..")
    assert box.evaluate("(el) => el.scrollWidth <= el.clientWidth")
    assert not page.locator("#family-map thead").is_visible()
    heads = page.locator("#family-map thead th").count() - 1  # the family's column names itself
    cells = page.locator("#family-map tbody tr[data-family]").first.locator("td")
    named = [cells.nth(i).evaluate("(td) => getComputedStyle(td, '::before').content.replace(/^\"|\"$/g, '')") for i in range(cells.count())]
    assert len(named) == heads == 4
    assert named == [cells.nth(i).get_attribute(f"data-col-{lang}") for i in range(heads)] and all(named)
    # the names follow the language: English names in English, Chinese ones in Chinese
    assert (named[0] == "Extra parameters") == (lang == "en")
    speed = cells.last.bounding_box()
    assert speed["x"] + speed["width"] <= 390


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
