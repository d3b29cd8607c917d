"""The built page in headless Chromium, opened from disk: no console errors, no network
requests, every control at min/mid/max, rows and headers clicked, language and theme toggled,
the time budgets of SPEC §8, and screenshots at 1280 and 390 px in both languages and themes
(written to tests/artifacts/, which git ignores)."""
import orjson
import pytest

from conftest import ARTIFACTS, ROOT

RESULTS = {name: orjson.loads((ROOT / "experiments" / "results" / f"{name}.json").read_bytes())
           for name in ("causal", "acceptance")}


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_screenshots_and_layout(open_page, width, scheme, lang):
    page = open_page(width, scheme, f"#lang={lang}")
    assert page.evaluate("document.documentElement.dataset.lang") == lang
    assert page.evaluate("document.documentElement.dataset.theme") == scheme
    other = "en" if lang == "zh" else "zh"
    assert page.locator(f"h1 [lang={lang}]").is_visible()
    assert not page.locator(f"h1 [lang={other}]").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "page scrolls sideways"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"page-{width}-{scheme}-{lang}.png"), full_page=True)


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


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_axe_no_serious_violations(open_page, width, scheme, lang):
    """axe-core on the whole page with every <details> open: no serious or critical violation."""
    assert AXE.exists(), f"{AXE} is missing: run `make test` (it installs the pinned axe-core)"
    page = open_page(width, scheme, f"#lang={lang}")
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    page.wait_for_selector("#bursts-chart .col")  # FAQ widgets draw when opened
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, { resultTypes: ['violations'] })")
    bad = [v for v in result["violations"] if v["impact"] in ("serious", "critical")]
    print(f"axe {lang} {scheme} {width}: {len(bad)} serious/critical rules; all: "
          + ", ".join(f"{v['id']}×{len(v['nodes'])}" for v in result["violations"]))
    assert not bad, "axe violations:\n" + axe_report(bad)


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
        assert page.locator("#verify-grid tbody tr .mark").filter(has_text="✓").count() == kept
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
    assert lines["① + ② = p"] == lines[next(k for k in lines if k.startswith("p(“"))]
    assert page.locator("#draw-readouts .v").first.inner_text() == "100"  # opens warmed up
    for k in ("1", "100", "10000"):
        page.click(f"#draw-{k}")
    assert page.locator("#draw-readouts .v").first.inner_text() == "10,201"
    assert "null" not in page.locator("#draw-readouts").inner_text()
    page.click("#draw-reset")
    assert page.locator("#draw-readouts .v").first.inner_text() == "0"
    assert page.locator("#sweep-widget circle").count() == len(
        orjson.loads((ROOT / "experiments/results/divergence_sweep.json").read_bytes())["snapshots"])


def test_time_budgets(open_page):
    page = open_page()
    ready = page.evaluate("performance.getEntriesByName('chapter-ready')[0].startTime")
    assert ready < 300, f"interactive after {ready:.0f} ms"
    times = page.evaluate("""() => {
        const s = document.getElementById('verify-gamma'), out = [];
        for (const v of [1, 4, 8, 2, 7, 3, 6, 5]) {
            const t0 = performance.now();
            s.value = v; s.dispatchEvent(new Event('input'));
            out.push(performance.now() - t0);
        }
        return out.sort((a, b) => a - b);
    }""")
    assert times[len(times) // 2] < 8, f"slider updates take {times} ms"


def test_narrowest_supported_width(open_page):
    page = open_page(360, "light", "#lang=zh")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, "page scrolls sideways at 360 px"
