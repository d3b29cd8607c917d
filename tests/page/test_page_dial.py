"""⑥'s dial and ①'s r_k curves in Chromium: a line per family and a curve per scale, the
temperature and scale buttons, the address they write, both languages."""
import orjson
import pytest

from tests.helpers import ROOT

REGIME = orjson.loads((ROOT / "experiments/results/regime.json").read_bytes())
POINTS = REGIME["points"]


def mb(bytes_):
    return f"{bytes_ / 1e6:.0f} MB" if bytes_ >= 1e8 else f"{bytes_ / 1e6:.1f} MB"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_dial_draws_every_family_and_its_buttons_pick_the_table(open_page, lang):
    page = open_page(hash_=f"#lang={lang}")
    dial = page.locator("#dial-widget")
    dial.scroll_into_view_if_needed()
    families = {r["family"] for p in POINTS for r in p["best"]["T1"]}
    assert dial.locator("g.dial-line").count() == len(families)
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
