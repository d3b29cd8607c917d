"""The page's engine parts in Chromium: the roofline tool and the measured cost curve in section
①, the compiled lane of the ledger, the engine ladder with its targets, and the transformers rows."""
import re

import orjson
import pytest

from tests.conftest import ROOT

LEDGER = orjson.loads((ROOT / "experiments/results/ledger.json").read_bytes())
COSTS = orjson.loads((ROOT / "experiments/results/costs.json").read_bytes())


def test_roofline_controls(open_page):
    page = open_page()
    devices = page.locator("#roof-controls .seg").nth(0).locator("button")
    sizes = page.locator("#roof-controls .seg").nth(1).locator("button")
    assert devices.count() == 3 and sizes.count() == 4
    for i in range(devices.count()):
        page.locator("#roof-controls .seg").nth(0).locator("button").nth(i).click()
        assert page.locator("#roof-controls .seg").nth(0).locator("button").nth(i).get_attribute("aria-pressed") == "true"
    for i in range(sizes.count()):
        page.locator("#roof-controls .seg").nth(1).locator("button").nth(i).click()
        for k in ("0", "5", "10"):  # 1, 32 and 1024 positions
            page.locator("#roof-k").fill(k)
            text = page.locator("#roof-out").inner_text()
            assert "NaN" not in text and "undefined" not in text
            ratio = float(re.search(r"([\d.]+)×", page.locator("#roof-out .readout .v").first.inner_text()).group(1))
            assert ratio == 1.0 if k != "10" else ratio >= 1.0
    page.locator("#roof-controls .seg").nth(0).locator("button").nth(2).click()  # H100
    page.locator("#roof-k").fill("10")
    assert float(page.locator("#roof-out .readout .v").first.inner_text().rstrip("×")) > 2  # past the ridge
    page.locator("#roof-k").focus()
    page.keyboard.press("ArrowLeft")
    assert page.locator("#roof-controls output").inner_text() == "512"


def test_cost_curve_draws_every_measured_point(open_page):
    page = open_page()
    engines = len(COSTS["engines"])
    assert page.locator("#cost-curve circle").count() == engines * len(COSTS["positions"])
    assert page.locator("#cost-curve tbody tr").count() == len(COSTS["positions"])
    assert page.locator("#cost-curve .readout").count() == engines


@pytest.mark.skipif("compiled" not in LEDGER, reason="ledger.json was measured without the compiled engine")
def test_ledger_compiled_lane_and_ladder(open_page):
    page = open_page(hash_="#lang=en")
    page.click("#ledger-mode-compiled")
    assert page.locator("#ledger-mode-compiled").get_attribute("aria-pressed") == "true"
    assert page.locator("#ledger-table tbody tr").count() == len(LEDGER["compiled"]["rows"])
    assert "compiled engine" in page.locator("#ledger-card h3").inner_text()
    page.locator("#ledger-table tbody tr").first.locator("button").click()
    assert "NaN" not in page.locator("#ledger-card").inner_text()
    assert page.locator("#ladder-widget .tbar").count() == 4
    assert page.locator("#ladder-widget table.targets tbody tr:not(.blame)").count() == 3
    assert "NaN" not in page.locator("#ladder-widget").inner_text()
    page.click("#ledger-mode-kvcache")
    assert page.locator("#ledger-table tbody tr").count() == sum(r["mode"] == "kvcache" for r in LEDGER["rows"])


@pytest.mark.skipif("peer" not in LEDGER, reason="ledger.json was measured without the [peer] extra")
def test_transformers_rows(open_page):
    page = open_page(hash_="#lang=zh")
    assert page.locator("#peer-table tbody tr").count() == len(LEDGER["peer"]["rows"])
    assert "assistant_model=draft" in page.locator("#s-ledger pre.code").inner_text()
