"""The built page in headless Chromium, opened from disk: no console errors, no network
requests, every control at min/mid/max, rows and headers clicked, language and theme toggled;
in both languages and themes at 1280 and 390 px: the layout, a full-page screenshot
(tests/artifacts/, which git ignores) and axe-core with every <details> open. (The page's prose as
the build renders it, with no browser: tests/build/test_page_text.py.) Time budgets are not tested
here: `make bench` measures them."""
import orjson
import pytest

from chapter import build as site_build
from tests.helpers import ARTIFACTS, ROOT
from tools.browser import PAGE

RESULTS = {name: orjson.loads((ROOT / "experiments" / "results" / f"{name}.json").read_bytes())
           for name in ("causal", "acceptance")}


AXE = ROOT / ".cache" / "axe" / "node_modules" / "axe-core" / "axe.min.js"  # `make test` installs it


def axe_report(violations):
    """One readable block per rule: id, impact, help, then each failing node and why."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']} [{len(v['nodes'])} nodes]")
        for node in v["nodes"][:8]:
            why = " ".join(node["failureSummary"].split())
            lines.append(f"    {' '.join(map(str, node['target']))}: {why[:240]}")
    return "\n".join(lines)


# every visible element (not in a closed <details>) that scrolls sideways right now: (what it holds, its computed box-shadow)
SCROLLING_BOXES = """() => [...document.querySelectorAll('body *')].filter((e) => e.checkVisibility()
    && /(auto|scroll)/.test(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth + 1)
    .map((e) => [e.querySelector('[id]')?.id || e.id || e.className, getComputedStyle(e).boxShadow])"""


# tables that scroll sideways, scrolled to their right end: the ones whose row names left the box
ROW_NAMES_STAY = """() => [...document.querySelectorAll('.table-scroll')].filter((box) => box.checkVisibility()
    && box.scrollWidth > box.clientWidth + 1 && box.querySelector('tbody th[scope=row]')).filter((box) => {
      box.scrollLeft = box.scrollWidth;
      const name = box.querySelector('tbody th[scope=row]').getBoundingClientRect();
      const left = box.getBoundingClientRect().left;
      box.scrollLeft = 0;
      return name.left < left - 1;
    }).map((box) => box.querySelector('[id]')?.id || box.className)"""


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_layout_screenshot_and_axe(open_page, width, scheme, lang):
    """One matrix for the whole page: the chosen language and theme show, nothing scrolls
    sideways, a full-page screenshot, then axe-core with every <details> open finds no serious
    or critical violation."""
    assert AXE.exists(), f"{AXE} is missing: run `make axe` (make test installs the pinned axe-core)"
    page = open_page(width, scheme, f"#lang={lang}")
    assert page.evaluate("document.documentElement.dataset.lang") == lang
    assert page.evaluate("document.documentElement.dataset.theme") == scheme
    other = "en" if lang == "zh" else "zh"
    assert page.locator(f"h1 [lang={lang}]").is_visible()
    assert not page.locator(f"h1 [lang={other}]").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "page scrolls sideways"
    # nothing is hidden without a visible cue: every box that scrolls sideways shows its shadow
    hidden = page.evaluate(SCROLLING_BOXES)
    assert all(shadow != "none" for _, shadow in hidden), hidden
    ledger_scrolls = any(name == "ledger-table" for name, _ in hidden)
    assert page.locator("#ledger-widget .scroll-hint").is_visible() == ledger_scrolls or width >= 1280
    if width >= 1280:
        assert not ledger_scrolls, "the ledger should show all its columns at 1280 px"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"page-{width}-{scheme}-{lang}.png"), full_page=True)

    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    page.wait_for_selector("#bursts-chart .col")  # FAQ widgets draw when opened
    if width >= 1280:  # every table, listing and chart fits, deep dives included
        assert page.evaluate(SCROLLING_BOXES) == []
    else:  # a table that scrolls keeps the column that names its rows in view
        assert page.evaluate(ROW_NAMES_STAY) == [], "a row's name scrolled out of view"
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, { resultTypes: ['violations'] })")
    bad = [v for v in result["violations"] if v["impact"] in ("serious", "critical")]
    print(f"axe {lang} {scheme} {width}: {len(bad)} serious/critical rules; all: "
          + (", ".join(f"{v['id']}×{len(v['nodes'])}" for v in result["violations"]) or "none"))
    assert not bad, "axe violations:\n" + axe_report(bad)


# every element whose computed style animates a change (a transition of non-zero duration): what, and which properties
TRANSITIONS = """() => [...document.querySelectorAll('body *')].map((e) => [e, getComputedStyle(e)])
    .filter(([, s]) => s.transitionDuration.split(',').some((d) => parseFloat(d) > 0))
    .map(([e, s]) => [e.id || e.className.baseVal || e.className, s.transitionProperty])"""


def test_axe_right_after_load_in_the_dark_theme_on_a_phone(open_page):
    """Issue 45, item 13: axe run at once after load, nothing waited for but the widgets' start,
    finds no contrast failure on #bursts-mode-kvcache (the auditor's case: dark, 390 px). No rule
    animates a colour: the only transitions are the bar charts' heights and positions, so no
    element can pass through near-black on near-black while axe reads it. (What the auditor saw
    without laying the sections out is axe-core issue 2768: a section content-visibility skips is
    not hit-tested, so axe pairs a button's text with the section's background.)"""
    page = open_page(390, "dark", "#lang=en")
    assert {props for _, props in page.evaluate(TRANSITIONS)} <= {"height, bottom"}
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, { runOnly: ['color-contrast'], resultTypes: ['violations'] })")
    assert not result["violations"], axe_report(result["violations"])


# what sticks out of its section's box, outside any box that scrolls or clips on its own: a section
# clips what overflows it (content-visibility: auto implies paint containment)
STICKING_OUT = """() => [...document.querySelectorAll("main > section[id^='s-']")].flatMap((section) => {
    const edge = section.getBoundingClientRect();
    const clippedInside = (e) => {
      for (let a = e.parentElement; a && a !== section; a = a.parentElement) if (getComputedStyle(a).overflowX !== 'visible') return true;
      return false;
    };
    return [...section.querySelectorAll('*')].filter((e) => e.checkVisibility()).filter((e) => {
      const box = e.getBoundingClientRect();
      return box.width > 0 && (box.right > edge.right + 0.5 || box.left < edge.left - 0.5) && !clippedInside(e);
    }).map((e) => `${section.id}: ${e.tagName.toLowerCase()}#${e.id}.${e.className.baseVal ?? e.className}`);
  })"""


@pytest.mark.parametrize("width", [1280, 390])
def test_sections_clip_nothing(open_page, width):
    """Every section's box holds what it shows, deep dives open: the wide tables step out into room the
    section keeps for them, and nothing is cut off at a section's edge."""
    page = open_page(width, "light", "#lang=en", lazy_layout=True)
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    page.wait_for_selector("#bursts-chart .col")
    assert page.evaluate(STICKING_OUT) == []


LIVE_FIGURES = """() => [...document.querySelectorAll('span.fig')].map((f) => [f.dataset.q, f.dataset.c, f.textContent])"""
WIDGET_CONDITIONS = """() => [...document.querySelectorAll('#ledger-widget span.fig, #family-ledger-widget span.fig')].map((f) => f.dataset.c)"""


def test_widgets_print_one_value_per_quantity_and_condition(open_page):
    """What the widgets draw (the ledger's lanes, the families' ledger at every engine and temperature,
    ④'s comparison in both modes) goes through the same check as the rendered page: one value per
    quantity and condition, across the templates' figures and the widgets'."""
    page = open_page()
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    figures = []
    for mode in ("recompute", "kvcache"):
        page.click(f"#mtp-mode-{mode}")
        figures += page.evaluate("[...document.querySelectorAll('#mtp-vs-widget span.fig')].map((f) => [f.dataset.q, f.dataset.c, f.textContent])")
    for mode in ("kvcache", "recompute", "compiled"):
        page.click(f"#ledger-mode-{mode}")
        for engine in page.locator("#family-ledger-widget [data-feng]").all():
            engine.click()
            for temperature in page.locator("#family-ledger-widget [data-ftemp]").all():
                temperature.click()
                figures += page.evaluate(LIVE_FIGURES)
    glossary = set(page.evaluate("[...document.querySelectorAll('[id^=g-]')].map((e) => e.id.slice(2))"))
    checked = site_build.figure_clashes(figures, glossary)
    assert {q for q, _ in checked} >= {"alpha-tf", "alpha-dec", "speedup"}, checked.keys()
    # the check spans both: rows the family map prints are drawn again by the families' ledger
    widget_conditions = set(page.evaluate(WIDGET_CONDITIONS))
    drawn = {(q, c) for q, c, _ in figures if c in widget_conditions}
    assert drawn & set(site_build.check_figures(PAGE.read_text(encoding="utf-8")))


def test_language_and_theme_toggles(open_page):
    page = open_page(hash_="#lang=zh")
    page.keyboard.press("Tab")   # theme switch
    page.keyboard.press("Tab")   # language switch
    page.keyboard.press("Enter")
    assert page.evaluate("document.documentElement.dataset.lang") == "en"
    assert "lang=en" in page.evaluate("location.hash")
    assert page.locator("#verify-rowinfo").inner_text().startswith("Row")
    page.click("#lang-toggle")
    assert page.locator("#verify-rowinfo").inner_text().startswith("第")
    before = page.evaluate("document.documentElement.dataset.theme")
    page.click("#theme-toggle")
    assert page.evaluate("document.documentElement.dataset.theme") != before
    assert page.locator("#theme-toggle").get_attribute("aria-pressed") in ("true", "false")


def test_verify_grid_controls(open_page):
    page = open_page()
    ex = RESULTS["causal"]["verify_example"]
    n = len(ex["context"])
    for gamma in (1, (1 + ex["gamma"]) // 2, ex["gamma"]):
        page.fill("#verify-gamma", str(gamma))
        assert page.locator("#verify-gamma-out").inner_text() == str(gamma)
        assert page.locator("#verify-grid tbody tr").count() == n + gamma
        kept = min(ex["n_accepted"], gamma)
        assert f"{kept} / {gamma}" in page.locator("#verify-readouts").inner_text()
        assert page.locator("#verify-grid tbody td.fw").filter(has_text="✓").count() == kept  # beside the p that judged it
    page.click("#verify-mode-separate")
    assert page.locator("#verify-mode-separate").get_attribute("aria-pressed") == "true"
    assert f"{ex['gamma'] + 1} · " in page.locator("#verify-readouts").inner_text()
    page.click("#verify-mode-verify")
    assert "1 · " in page.locator("#verify-readouts").inner_text()
    rows = page.locator("#verify-grid tbody tr")
    for i in (0, n, n + ex["gamma"] - 1):
        rows.nth(i).click()
        assert rows.nth(i).get_attribute("aria-selected") == "true"
        assert page.locator("#verify-grid tbody tr.sel td.on").count() == i + 1  # sees itself and all before
        assert f"{i + 1}" in page.locator("#verify-rowinfo strong").inner_text()
    rows.nth(2).click()
    page.keyboard.press("ArrowDown")
    assert rows.nth(3).get_attribute("aria-selected") == "true"
    page.keyboard.press("Home")
    assert rows.nth(0).get_attribute("aria-selected") == "true"


def test_acceptance_controls(open_page):
    page = open_page()
    acc = RESULTS["acceptance"]
    buttons = page.locator("#accept-positions button")
    assert buttons.count() == len(acc["positions"])
    page.click("#accept-widget .accept-stats > summary")  # the statistics of the draws, folded under the charts
    for i, pos in enumerate(acc["positions"]):
        buttons.nth(i).click()
        assert buttons.nth(i).get_attribute("aria-pressed") == "true"
        assert f"{pos['tv_out_p']:.4f} vs {pos['tv_q_p']:.4f}" in page.locator("#accept-readouts").inner_text()
    page.check("#accept-all")
    assert page.locator("#accept-pq .col").count() == len(acc["vocab"])
    page.uncheck("#accept-all")
    assert page.locator("#accept-pq .col").count() < len(acc["vocab"])
    pick = page.locator("#accept-pq .col button").nth(2)
    pick.click()
    assert pick.get_attribute("aria-pressed") == "true"
    card = page.locator("#accept-calc").inner_text()
    lines = {line.split("\t")[0]: line.split("\t")[-1] for line in card.splitlines()}
    assert lines["(1) + (2) = p"] == lines[next(k for k in lines if k.startswith("p(“"))]
    page.evaluate("document.getElementById('deep-draw').open = true")  # draw-it-yourself is a deep dive
    assert page.locator("#draw-readouts .v").first.inner_text() == "100"  # opens warmed up
    for k in ("1", "100", "10000"):
        page.click(f"#draw-{k}")
    assert page.locator("#draw-readouts .v").first.inner_text() == "10,201"
    assert "null" not in page.locator("#draw-readouts").inner_text()
    page.click("#draw-reset")
    assert page.locator("#draw-readouts .v").first.inner_text() == "0"
    assert page.locator("#sweep-widget circle").count() == len(
        orjson.loads((ROOT / "experiments/results/divergence_sweep.json").read_bytes())["snapshots"])


def test_page_marks_itself_ready(open_page):
    """main.js marks "chapter-ready" once the widgets in the window have started (make bench times
    it), and "widgets-ready" once all have: the lab, far down the page, starts after the mark, unless
    the address opens the page at the lab."""
    marks = "(name) => performance.getEntriesByName(name).map((m) => m.startTime)"
    for hash_, lab_first in (("#lang=en", False), ("#lang=en&s-lab", True)):
        page = open_page(hash_=hash_, lazy_layout=True)
        [ready], [all_ready] = page.evaluate(marks, "chapter-ready"), page.evaluate(marks, "widgets-ready")
        [lab] = page.evaluate(marks, "widget:lab-widget")
        assert ready <= all_ready
        assert (lab <= ready) == lab_first, (hash_, lab, ready)


def test_narrowest_supported_width(open_page):
    page = open_page(360, "light", "#lang=zh")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, "page scrolls sideways at 360 px"


def test_deep_dives_start_closed_and_open_from_an_address(open_page):
    """Off the main path, every deep dive is closed at first; following a link to its heading
    (or an address that names it) opens it and shows what it holds."""
    page = open_page(hash_="#lang=en")
    boxes = page.evaluate("[...document.querySelectorAll('details.deep')].map((d) => [d.id, d.open, d.querySelector('summary h3')?.id])")
    assert len(boxes) >= 10
    assert all(not is_open and heading and box_id == "deep-" + heading[2:] for box_id, is_open, heading in boxes), boxes
    assert not page.locator("#ladder-widget").is_visible()
    page.evaluate("location.hash = '#h-ladder'")  # a heading inside a deep dive opens the box that holds it
    page.wait_for_function("document.getElementById('deep-engines').open")
    assert page.locator("#ladder-widget").is_visible()
    page = open_page(hash_="#lang=zh&h-peer-twin")
    assert page.locator("#deep-engines").get_attribute("open") is not None
    assert page.locator("#peer-twin-table").is_visible()
    assert page.locator("#deep-family-ledger").get_attribute("open") is None


def test_a_boxed_widgets_state_in_the_address_opens_its_box(open_page):
    """A widget inside a closed box keeps its state in the hash (data-hash-keys); a shared address
    with that state opens the box and the widget shows it, while the other boxes stay closed."""
    page = open_page(hash_="#lang=en")
    widgets = page.evaluate("[...document.querySelectorAll('[data-hash-keys]')].map((w) => [w.id, w.dataset.hashKeys.split(' '), !!w.closest('details')])")
    assert {w for w, _, _ in widgets} >= {"mtp-arch-widget", "tree-widget", "ledger-widget"}
    assert all(boxed for _, _, boxed in widgets), widgets  # a main-path widget needs no key to be seen
    page = open_page(hash_="#lang=en&mtppart=hidden_norm")
    assert page.locator("#deep-mtp-parts").get_attribute("open") is not None
    page.wait_for_function("document.querySelector('#mtp-diagram [aria-pressed=true]')?.dataset.part === 'hidden_norm'")
    assert page.locator("#deep-trees").get_attribute("open") is None
    page.evaluate("location.hash = '#lang=en&lrow=1'")  # a followed link applies at once
    page.wait_for_function("document.getElementById('deep-ledger-trained').open")
