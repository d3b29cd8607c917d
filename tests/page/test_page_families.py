"""Section ⑤ (where drafts come from) and the families' rows of section ⑥ in Chromium: the family
map carries every family, the token-tree widget at every size and node, the lane buttons."""
import orjson

from tests.helpers import ROOT, open_deep

FAMILIES = orjson.loads((ROOT / "experiments/results/families.json").read_bytes())

REGISTRY = orjson.loads((ROOT / "experiments/results/registry.json").read_bytes())


def test_family_map_shows_one_family_of_each_kind_and_its_fold_the_rest(open_page):
    """The main path's map holds one family of each kind (the lines ⑥'s dial draws), and the closed fold
    under it the others: every family once, in the map's order."""
    page = open_page(hash_="#lang=en")
    def families(table):
        rows = page.locator(f"#{table} tbody tr[data-family]")
        return [rows.nth(i).get_attribute("data-family") for i in range(rows.count())]
    shown, more = families("family-map"), families("family-map-more")
    groups = {f["name"]: f["group"] for f in REGISTRY["families"]}
    assert len({groups[f] for f in shown}) == len(shown) == len({groups[f] for f in FAMILIES["families"]})
    assert sorted(shown + more, key=FAMILIES["families"].index) == FAMILIES["families"] and not set(shown) & set(more)
    assert page.locator("#family-more-box").get_attribute("open") is None  # off the main path
    text = page.locator("#s-families").inner_text()
    assert "NaN" not in text and "None" not in text


def test_token_tree_every_size_and_node(open_page):
    page = open_page(hash_="#lang=en")
    open_deep(page, "trees")
    slider = page.locator("#tree-size")
    for k, round_ in enumerate(FAMILIES["tree_rounds"]):
        slider.fill(str(k))
        nodes = page.locator("#tree-svg g.tree-node")
        assert nodes.count() == len(round_["tokens"])
        assert page.locator("#tree-svg g.tree-node.acc").count() == len(round_["path"]) + 1
        assert page.locator("#tree-size-out").inner_text() == f"{round_['nodes']} nodes"
        for i in (0, nodes.count() - 1):
            nodes.nth(i).click()
            assert nodes.nth(i).get_attribute("aria-pressed") == "true"
            # its mask row shows itself and its ancestors
            seen, j = 0, i
            while j >= 0:
                seen, j = seen + 1, round_["parents"][j]
            assert page.locator("#tree-card .tree-mask span.on").count() == seen
            assert "NaN" not in page.locator("#tree-card").inner_text()
    nodes = page.locator("#tree-svg g.tree-node")
    nodes.nth(0).focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert nodes.nth(1).get_attribute("aria-pressed") == "true"


def test_family_ledger_lanes(open_page):
    page = open_page(hash_="#lang=en")
    open_deep(page, "family-ledger")
    for engine in FAMILIES["engines"]:
        page.click(f"#family-ledger-widget [data-feng={engine}]")
        for temperature in (1, 0):
            page.click(f"#family-ledger-widget [data-ftemp='{temperature}']")
            expected = [r for r in FAMILIES["rows"] if r["engine"] == engine and r["temperature"] == temperature]
            assert page.locator("#family-ledger tbody tr").count() == len(expected)
            assert "NaN" not in page.locator("#family-ledger").inner_text()


def test_recent_charts_draw_the_measured_series_in_both_languages(open_page):
    """⑤'s "what changed in 2025–26": one line per drafter in each chart, and the tables under
    them print the α by depth that families.json holds."""
    depth = FAMILIES["alpha_by_depth"]["T1"]
    drafting = FAMILIES["summary"]["recent"]["drafting"]
    for lang in ("en", "zh"):
        page = open_page(hash_=f"#lang={lang}")
        open_deep(page, "recent")
        charts = page.locator("#recent-widget svg.recent-chart")
        assert charts.count() == 2
        assert charts.nth(0).locator("polyline").count() == len(depth)
        assert charts.nth(1).locator("polyline").count() == sum(1 for v in drafting.values() if v)
        # each legend entry is its line's colour and dash (labels.js familyClass, familyDash)
        for chart, legend in zip(charts.all(), page.locator("#recent-widget .legend").all()):
            lines = [(g.get_attribute("class"), g.locator("polyline").get_attribute("stroke-dasharray"))
                     for g in chart.locator("g.series").all()]
            keys = [("series " + line.get_attribute("class"), line.get_attribute("stroke-dasharray"))
                    for line in legend.locator("svg.swatch-line line").all()]
            assert keys == lines
        first_table = page.locator("#recent-widget table").first
        eagle3 = [c.inner_text() for c in first_table.locator("tr").filter(has_text="EAGLE-3").locator("td").all()]
        assert eagle3 == [f"{a:.2f}" for a in depth["eagle3"]], lang
