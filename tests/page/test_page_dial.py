"""⑥'s dial and ①'s r_k curves in Chromium: a line per family and a curve per scale, the
temperature and scale buttons, the address they write, both languages."""
import orjson
import pytest

from chapter.views.dial import lead_families
from tests.helpers import ROOT

REGIME = orjson.loads((ROOT / "experiments/results/regime.json").read_bytes())
POINTS = REGIME["points"]
GROUP = {f["name"]: f["group"] for f in orjson.loads((ROOT / "experiments/results/registry.json").read_bytes())["families"]}


def families_at(key="T1"):
    return {r["family"] for p in POINTS for r in p["best"][key]}


def kinds_at(key="T1"):
    """The lines the chart draws while its grid is folded: one per kind of drafter (⑤'s map)."""
    return {GROUP[f] for f in families_at(key)}


def mb(bytes_):
    return f"{bytes_ / 1e6:.0f} MB" if bytes_ >= 1e8 else f"{bytes_ / 1e6:.1f} MB"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_dial_draws_every_family_and_its_buttons_pick_the_table(open_page, lang):
    page = open_page(hash_=f"#lang={lang}")
    dial = page.locator("#dial-widget")
    dial.scroll_into_view_if_needed()
    assert dial.locator("g.dial-line").count() == len(kinds_at())  # one line per kind while the grid is folded
    # the main path's chart is T = 1: the temperature switch sits in the folds
    assert not any(b.is_visible() for b in dial.locator("[data-dial-t]").all())
    page.click("#dial-grid-details > summary")  # the grid adds every other family, faint
    # a <details> fires its toggle event in a task of its own: wait for the redraw it starts (a busy machine
    # counted the lines before it, in make test at c734e6b)
    page.wait_for_selector("#dial-widget g.dial-line.faint", state="attached")
    assert dial.locator("g.dial-line").count() == len(families_at())
    assert dial.locator("g.dial-line.faint").count() == len(families_at()) - len(kinds_at())
    assert dial.locator("g.rk-line").count() == 0  # r_k is drawn once, in ①'s deep dive on the heavy twins
    page.evaluate("document.getElementById('deep-twin-rk').open = true")
    assert page.locator("#rk-widget g.rk-line").count() == len(POINTS)
    page.click("#dial-table-box > summary")  # the table opens from its box
    rows = dial.locator(".dial-rows tbody tr")
    assert rows.count() == len(POINTS[-1]["best"]["T1"])
    # each row's verdict is the page's badge (format.js verdictBadgeParts), in the page's language
    badges = dial.locator(".dial-rows tbody a.verdict")
    assert badges.evaluate_all("bs => bs.map((b) => b.dataset.v)") == [r["verdict"] for r in POINTS[-1]["best"]["T1"]]
    word = {"en": {"faster": "faster", "slower": "slower", "unclear": "can't tell"}, "zh": {"faster": "更快", "slower": "更慢", "unclear": "分不出"}}[lang]
    assert [b.split(" · ")[0] for b in badges.all_inner_texts()] == [word[r["verdict"]] for r in POINTS[-1]["best"]["T1"]]
    assert mb(POINTS[-1]["main_bytes"]) in dial.locator(".dial-rows caption").inner_text()
    page.click("#dial-widget [data-dial-t=T0]")
    assert rows.count() == len(POINTS[-1]["best"]["T0"])
    assert "T = 0" in dial.locator(".dial-rows caption").inner_text() and "dialT=0" in page.evaluate("location.hash")
    dial.locator(".dial-scales button").first.click()
    assert mb(POINTS[0]["main_bytes"]) in dial.locator(".dial-rows caption").inner_text()
    # the caption's yardstick: plain decoding's own forwards per character at that scale and temperature
    assert f'{POINTS[0]["plain"]["T0"]["plain_per_char"]:.3f}' in dial.locator(".dial-rows caption").inner_text()
    assert rows.count() == len(POINTS[0]["best"]["T0"])
    assert dial.locator(".dial-scales button[aria-pressed=true]").inner_text() == mb(POINTS[0]["main_bytes"])
    text = dial.inner_text() + page.locator("#rk-widget").inner_text()
    assert "NaN" not in text and "undefined" not in text


def test_an_address_opens_the_dial_on_its_scale_and_temperature(open_page):
    page = open_page(hash_=f"#lang=en&dialT=0&dialx={POINTS[1]['scale']:g}")
    caption = page.locator("#dial-widget .dial-rows caption").text_content()  # drawn, in its closed box
    assert "T = 0" in caption and mb(POINTS[1]["main_bytes"]) in caption


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_dial_labels_its_lines_in_their_colours_and_keeps_its_note_clear(open_page, lang):
    """At 1280 px each family's label sits right of the chart in its line's colour with a sample of its
    dash, at its end point's height where there is room; the cache note overlaps nothing drawn."""
    page = open_page(hash_=f"#lang={lang}")
    chart = page.locator("#dial-widget svg.dial-chart")
    chart.scroll_into_view_if_needed()
    keys = page.evaluate("""() => [...document.querySelectorAll('#dial-widget g.dial-line')].map((g) => {
      const line = g.querySelector(':scope > polyline'), label = g.querySelector('.dial-key text'), sample = g.querySelector('.dial-key .dial-sample');
      return { stroke: getComputedStyle(line).stroke, fill: getComputedStyle(label).fill, sampleStroke: getComputedStyle(sample).stroke,
        dash: line.getAttribute('stroke-dasharray'), sampleDash: sample.getAttribute('stroke-dasharray'), y: label.getBBox().y };
    })""")
    assert len(keys) == len(kinds_at())  # the grid is folded: a line per kind
    for k in keys:
        assert k["fill"] == k["stroke"] == k["sampleStroke"] and k["dash"] == k["sampleDash"]
    ys = [k["y"] for k in keys]  # the lines' order (fastest at the heaviest scale first), top to bottom
    assert ys == sorted(ys)
    assert page.locator("#dial-widget ul.dial-legend li").count() == 0  # the phone's legend: the labels do its work
    assert not page.locator("#dial-widget ul.dial-legend").is_visible()
    clash = page.evaluate("""() => {
      const note = [...document.querySelectorAll('#dial-widget .dial-note')].at(-1).getBoundingClientRect();
      const hit = (r) => r.right > note.left && r.left < note.right && r.bottom > note.top && r.top < note.bottom;
      return [...document.querySelectorAll('#dial-widget circle, #dial-widget polyline, #dial-widget .whisker')]
        .filter((el) => hit(el.getBoundingClientRect())).length;
    }""")
    assert clash == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_phone_the_dial_and_its_grid_fit_the_width(open_page, lang):
    page = open_page(width=390, hash_=f"#lang={lang}")
    fig = page.locator("#dial-widget .dial-fig")
    fig.scroll_into_view_if_needed()
    assert fig.evaluate("(el) => el.scrollWidth <= el.clientWidth")  # no sideways scrolling
    box = page.locator("#dial-widget .dial-shown").bounding_box()  # the selected (heaviest) scale's band is on screen
    assert box and box["x"] + box["width"] <= 390
    assert page.locator("#dial-widget .dial-key").count() == 0  # the lines are named by the legend below
    families = families_at()
    legend = page.locator("#dial-widget ul.dial-legend")
    assert legend.is_visible() and legend.locator("li svg.dial-swatch").count() == len(kinds_at())
    assert legend.evaluate("(el) => el.scrollWidth <= el.clientWidth")
    heaviest = sorted(POINTS[-1]["best"]["T1"], key=lambda r: -r["speedup"])[0]
    assert f"{heaviest['speedup']:.2f}×" in legend.locator("li").first.inner_text()  # each name with its speedup at the heaviest scale
    assert not page.locator("#dial-widget table.dial-grid").is_visible()  # the grid is folded off the main path
    page.click("#dial-grid-details > summary")
    assert page.locator("#dial-widget table.dial-grid tbody th svg.dial-swatch").count() == len(families)
    assert legend.locator("li svg.dial-swatch").count() == len(families)  # the open grid's lines join the legend
    grid = page.locator("#dial-widget .dial-grid-box")
    assert grid.evaluate("(el) => el.scrollWidth <= el.clientWidth")  # every scale's column on screen
    # the scale buttons, in the table's box: no row holds a single button
    page.click("#dial-table-box > summary")
    rows = page.evaluate("""() => { const tops = {}; for (const b of document.querySelectorAll('#dial-widget .dial-scales button'))
      tops[Math.round(b.getBoundingClientRect().top)] = (tops[Math.round(b.getBoundingClientRect().top)] ?? 0) + 1; return Object.values(tops); }""")
    assert len(POINTS) < 2 or min(rows) >= 2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_dial_draws_one_bold_line_per_kind_and_a_grid_of_every_verdict(open_page, lang):
    """Bold: each kind's fastest family at the heaviest scale; the grid: every family at every scale,
    each cell shaded by the verdict the results carry, and it follows the temperature buttons."""
    page = open_page(hash_=f"#lang={lang}")
    dial = page.locator("#dial-widget")
    dial.scroll_into_view_if_needed()
    group = GROUP
    page.click("#dial-grid-details > summary")
    for key in ["T1", "T0"]:
        if key == "T0":
            page.click("#dial-widget [data-dial-t=T0]")
        at_heaviest = sorted(POINTS[-1]["best"][key], key=lambda r: -r["speedup"])
        leads = []
        for r in at_heaviest:
            if group[r["family"]] not in {group[f] for f in leads}:
                leads.append(r["family"])
        if key == "T0":  # each kind keeps its T = 1 family, where that family ran at T = 0
            ran = {r["family"] for r in at_heaviest}
            kept = [f for f in t1_leads if f in ran]
            leads = kept + [f for f in leads if group[f] not in {group[k] for k in kept}]
        else:
            t1_leads = leads
            # the lines the note under the chart speaks of (views/dial.py lead_families) are the ones drawn
            registry = {"families": [{"name": f, "group": g} for f, g in group.items()]}
            assert leads == lead_families({"registry": registry, "regime": REGIME})
        bold = dial.locator("g.dial-line:not(.faint)")
        assert bold.count() == len(leads) == len(kinds_at(key))
        names = bold.evaluate_all("gs => gs.map((g) => g.querySelector('.dial-label').textContent)")
        labels = orjson.loads((ROOT / "experiments/results/registry.json").read_bytes())["families"]
        label = {f["name"]: f["label"][lang] for f in labels}
        assert sorted(n.rsplit(" ", 1)[0] for n in names) == sorted(label[f] for f in leads)
        assert dial.locator("g.dial-line.faint").count() == len(families_at(key)) - len(leads)
        grid = dial.locator("table.dial-grid tbody tr")
        shown = grid.evaluate_all("rs => rs.map((r) => [...r.querySelectorAll('td')].map((td) => td.className))")
        names = grid.evaluate_all("rs => rs.map((r) => r.querySelector('th').textContent.trim())")
        assert len(names) == len({r["family"] for p in POINTS for r in p["best"][key]})
        # rows in the chart's order (fastest at the heaviest scale first), a cell per scale
        for tr, cells in zip(at_heaviest, shown, strict=True):
            want = [next((f"v-{r['verdict']}" for r in p["best"][key] if r["family"] == tr["family"]), "") for p in POINTS]
            assert cells == want


def test_an_address_asking_for_greedy_decoding_opens_the_fold_with_the_switch(open_page):
    """#dialT=0 draws the dial at T = 0 and opens the grid, where the temperature switch shows it pressed."""
    page = open_page(hash_="#lang=en&dialT=0")
    dial = page.locator("#dial-widget")
    dial.scroll_into_view_if_needed()
    assert page.evaluate("document.getElementById('dial-grid-details').open")
    pressed = dial.locator("#dial-grid-details [data-dial-t][aria-pressed=true]")
    assert pressed.count() == 1 and pressed.get_attribute("data-dial-t") == "T0" and pressed.is_visible()
