"""Sections ③ (how many to guess) and ⑥ (the ledger) in headless Chromium: every control at
min/mid/max, both mode switches, every ledger header clicked twice and once by keyboard, row
cards against the JSON, the greedy panel, the two FAQ panels, and every section of the page in
both languages (slider timings: `make bench`).
open_page (conftest) fails a test on any console error or network request."""
import re

import orjson
import pytest

from experiments.stats import theorem_3_8
from tests.helpers import ROOT, open_deep
from tools.browser import open_lab

RESULTS = {name: orjson.loads((ROOT / "experiments" / "results" / f"{name}.json").read_bytes())
           for name in ("gamma_sweep", "ledger")}
SWEEP, LEDGER = RESULTS["gamma_sweep"], RESULTS["ledger"]
CJK = re.compile(r"[\u4e00-\u9fff]")
# Chinese typesetting: half-width ,:;?() next to a Chinese character; a space between two Chinese
# characters or beside full-width punctuation
ZH_HALF_WIDTH = re.compile(r".{0,8}(?:[\u4e00-\u9fff][,:;?()]|[,:;?()][\u4e00-\u9fff]).{0,8}")
ZH_SPACE = re.compile(r".{0,8}(?:[\u4e00-\u9fff] +[\u4e00-\u9fff]|[，。：；？！（）、] +| +[，。：；？！（）、]).{0,8}")
# ... and a space between a Chinese character and a Latin letter ("的 eager 引擎", not "的eager引擎")
ZH_LATIN = re.compile(r".{0,8}(?:[\u4e00-\u9fff][A-Za-z]|[A-Za-z][\u4e00-\u9fff]).{0,8}")


def best_gamma(alpha, c):
    return max(range(1, 9), key=lambda g: (theorem_3_8(alpha, g, c), -g))


def sweep_rows(mode):
    return sorted((r for r in SWEEP["rows"] if r["mode"] == mode), key=lambda r: r["gamma"])


def fastest(mode):
    return max(sweep_rows(mode), key=lambda r: r["speedup"])


def ledger_rows(mode):
    return [r for r in LEDGER["rows"] if r["mode"] == mode]


def slider_points(page, sel):
    lo, hi, step = (float(page.get_attribute(sel, a)) for a in ("min", "max", "step"))
    mid = lo + round((hi - lo) / 2 / step) * step
    return [lo, round(mid, 2), hi]


def optimal_table(page):
    return [[td.inner_text().strip() for td in tr.locator("td").all()]
            for tr in page.locator("#gamma-optimal tbody tr").all()]


def test_gamma_defaults_teach(open_page):
    page = open_page()
    best = fastest("kvcache")
    assert page.locator("#gamma-alpha-out").inner_text() == f"{best['alpha']:.3f}"
    assert page.locator("#gamma-c-out").inner_text() == f"{SWEEP['c']['kvcache']:.3f}"
    assert page.locator("#gamma-mode-kvcache").get_attribute("aria-pressed") == "true"
    assert page.locator("#gamma-chart-tokens rect.pt").count() == len(sweep_rows("kvcache"))
    assert page.locator("#gamma-chart-speed rect.pt").count() == len(sweep_rows("kvcache"))
    assert page.locator("#gamma-chart-speed circle.best").count() == 1
    g = best_gamma(best["alpha"], SWEEP["c"]["kvcache"])
    assert optimal_table(page)[-1][1] == str(g)  # the slider's row: the best γ at the measured α and c
    assert not page.locator("#gamma-measured").is_visible()  # the table behind the chart, folded
    assert page.locator("#gamma-chart-speed .curve2").count() == 0  # and with it the verify-priced curve
    page.click("#gamma-widget .numbers-box > summary")
    assert page.locator("#gamma-chart-speed .curve2").count() == 1  # opening the box draws it
    measured = page.locator("#gamma-measured tbody tr")
    assert measured.count() == len(sweep_rows("kvcache"))
    for tr, row in zip(measured.all(), sweep_rows("kvcache")):
        text = tr.inner_text()
        assert f"{row['tokens_per_main']:.3f}" in text and f"{row['speedup_theory']:.2f}×" in text
        assert f"({row['speedup_runs']['min']:.2f}–{row['speedup_runs']['max']:.2f})" in text


def test_gamma_sliders_and_modes(open_page):
    page = open_page()
    for a in slider_points(page, "#gamma-alpha"):
        page.fill("#gamma-alpha", str(a))
        assert page.locator("#gamma-alpha-out").inner_text() == f"{a:.3f}"
        for c in slider_points(page, "#gamma-c"):
            page.fill("#gamma-c", str(c))
            assert page.locator("#gamma-c-out").inner_text() == f"{c:.3f}"
            rows = optimal_table(page)
            assert len(rows) == 4  # 0.5, 0.7, 0.85 and the slider's α
            for row, alpha in zip(rows, [0.5, 0.7, 0.85, a]):
                g = best_gamma(alpha, c)
                s = theorem_3_8(alpha, g, c)
                # where no γ pays, the best is not to guess: plain decoding's 1× and one character a forward
                assert row[2] == (f"{s:.2f}×" if s > 1 else "1.00×")
                assert row[3] == (f"{(1 - alpha ** (g + 1)) / (1 - alpha):.2f}" if s > 1 else "1.00")
                assert row[1].startswith("–" if s <= 1 else str(g))
    assert not page.locator("#gamma-mode-recompute").is_visible()  # the mode switch sits off the main path
    page.click("#gamma-widget .numbers-box > summary")
    page.click("#gamma-mode-recompute")
    assert page.locator("#gamma-mode-recompute").get_attribute("aria-pressed") == "true"
    assert page.locator("#gamma-c-out").inner_text() == f"{SWEEP['c']['recompute']:.3f}"
    assert page.locator("#gamma-alpha-out").inner_text() == f"{fastest('recompute')['alpha']:.3f}"
    # recompute mode: the note prices a verify at both ends of γ, the reason its squares sit low
    price = LEDGER["forward_costs"]["recompute"]["verify_over_main"]
    gammas = sorted(SWEEP["gammas"])
    note = page.locator("#gamma-measured-note").inner_text()
    assert f"{price[str(1)]:.1f} (γ = 1) to {price[str(gammas[-1])]:.1f} (γ = {gammas[-1]}) main forwards" in note
    first = sweep_rows("recompute")[0]
    assert f"{first['alpha']:.3f}" in page.locator("#gamma-measured tbody tr").first.inner_text()
    page.fill("#gamma-c", "0.5")
    page.click("#gamma-reset")
    assert page.locator("#gamma-c-out").inner_text() == f"{SWEEP['c']['recompute']:.3f}"
    page.click("#gamma-mode-kvcache")
    assert page.locator("#gamma-c-out").inner_text() == f"{SWEEP['c']['kvcache']:.3f}"
    assert "main forwards" not in page.locator("#gamma-measured-note").inner_text()
    assert "gmode=kvcache" in page.evaluate("location.hash")


def test_gamma_faq_panels(open_page):
    page = open_page()
    for d in page.locator("#s-gamma details").all():
        d.locator("summary").click()
    page.wait_for_selector("#bursts-chart .col")  # the FAQ panels draw when opened
    n_pairs = sum(len(sweep_rows(m)) - 1 for m in SWEEP["c"])
    assert page.locator("#gamma-steps tbody tr:not(.group)").count() == n_pairs
    assert page.locator("#gamma-steps-verdict").inner_text().strip()
    for mode in ("recompute", "kvcache"):
        page.click(f"#bursts-mode-{mode}")
        assert page.locator(f"#bursts-mode-{mode}").get_attribute("aria-pressed") == "true"
        buttons = page.locator("#bursts-gamma button")
        rows = [r for r in sweep_rows(mode) if r["gamma"] >= 2]
        assert buttons.count() == len(rows)
        for i, row in enumerate(rows):
            buttons.nth(i).click()
            assert page.locator("#bursts-gamma button").nth(i).get_attribute("aria-pressed") == "true"
            counts = row["run_lengths"]
            assert page.locator("#bursts-chart .col").count() == len(counts)
            law0 = (1 - row["alpha"]) * sum(counts)
            assert f"{counts[0]:,} vs {law0:.0f}" in page.locator("#bursts-readouts").inner_text()
            assert page.locator("#bursts-verdict").inner_text().strip()


def sorted_indices(mode, key, direction):
    value = {
        "method": lambda r: {"plain": 0, "draft": 1, "mtp": 2}[r["method"]] * 100 + r["gamma"],
        "wall": lambda r: r["wall_s"]["median"],
    }.get(key, lambda r: r.get(key))
    idx = [i for i, r in enumerate(LEDGER["rows"]) if r["mode"] == mode]
    sign = 1 if direction == "asc" else -1
    return sorted(idx, key=lambda i: (value(LEDGER["rows"][i]) is None,
                                      sign * (value(LEDGER["rows"][i]) or 0), i))


def shown_indices(page):
    return [int(x) for x in page.locator("#ledger-table tbody tr").evaluate_all("rs => rs.map(r => r.dataset.row)")]


def test_ledger_sorting_by_mouse_and_keyboard(open_page):
    page = open_page()
    page.evaluate("document.getElementById('deep-ledger-trained').open = true")  # the in-cache ledger is a deep dive
    assert page.locator("#ledger-mode-kvcache").get_attribute("aria-pressed") == "true"
    assert page.locator('#ledger-table th[data-key="speedup"]').get_attribute("aria-sort") == "descending"
    assert shown_indices(page) == sorted_indices("kvcache", "speedup", "desc")
    keys = page.locator("#ledger-table thead th").evaluate_all("ths => ths.map(th => th.dataset.key)")
    assert len(keys) == 8
    for key in keys:
        header = page.locator(f'#ledger-table thead button[data-key="{key}"]')
        for direction, aria in (("asc", "ascending"), ("desc", "descending")):
            if key == "speedup" and direction == "asc" and page.locator(
                    '#ledger-table th[data-key="speedup"]').get_attribute("aria-sort") == "ascending":
                continue
            header.click()
            th = page.locator(f'#ledger-table th[data-key="{key}"]')
            assert th.get_attribute("aria-sort") == aria, key
            assert shown_indices(page) == sorted_indices("kvcache", key, direction), (key, direction)
            others = [k for k in keys if k != key]
            assert all(page.locator(f'#ledger-table th[data-key="{k}"]').get_attribute("aria-sort") == "none"
                       for k in others)
    # keyboard: focus a header button and press Enter (twice: ascending, then descending)
    page.focus('#ledger-table thead button[data-key="alpha"]')
    page.keyboard.press("Enter")
    assert shown_indices(page) == sorted_indices("kvcache", "alpha", "asc")
    assert page.evaluate("document.activeElement.dataset.key") == "alpha"  # focus stays on the header
    page.keyboard.press("Enter")
    assert shown_indices(page) == sorted_indices("kvcache", "alpha", "desc")
    assert "lsort=alpha-desc" in page.evaluate("location.hash")


def card_checks(page, row):
    steps = page.locator("#ledger-card .numbers-box")  # the steps from theorem to clock, folded at first
    if steps.count() and steps.get_attribute("open") is None:
        steps.locator("> summary").click()
    card = page.locator("#ledger-card").inner_text()
    if row["method"] == "plain":
        assert f"{row['forward_time_s']:.3f}" in card and f"{row['overhead_s']:.3f}" in card
        return
    runs = row["speedup_runs"]
    assert f"{row['speedup']:.2f}×" in card and f"{row['speedup_theory']:.2f}×" in card
    assert f"{runs['min']:.2f}–{runs['max']:.2f}×" in card
    assert f"{row['verify_over_main']:.2f}" in card
    assert f"{1000 * row['overhead_per_main_forward_s']:.3f} ms" in card
    assert f"c = {row['c_used']:.3f}" in card


def test_ledger_rows_open_their_card(open_page):
    page = open_page()
    page.evaluate("document.getElementById('deep-ledger-trained').open = true")  # the in-cache ledger is a deep dive
    spec = [r for r in ledger_rows("kvcache") if r["method"] != "plain"]
    top = max(spec, key=lambda r: r["speedup"])
    card_checks(page, top)  # opens on the fastest speculative row
    assert page.locator("#ledger-table tbody tr.sel").get_attribute("data-row") == str(LEDGER["rows"].index(top))
    for mode in ("kvcache", "recompute"):
        page.click(f"#ledger-mode-{mode}")
        assert page.locator(f"#ledger-mode-{mode}").get_attribute("aria-pressed") == "true"
        assert page.locator("#ledger-table tbody tr").count() == len(ledger_rows(mode))
        for i in shown_indices(page):
            page.locator(f'#ledger-table tbody tr[data-row="{i}"] td').nth(2).click()  # anywhere in the row
            assert page.locator("#ledger-table tbody tr.sel").get_attribute("data-row") == str(i)
            card_checks(page, LEDGER["rows"][i])
    # keyboard: Tab to a row's method button and press Enter
    rows = shown_indices(page)
    page.focus(f'#ledger-table tbody button[data-row="{rows[-1]}"]')
    page.keyboard.press("Enter")
    assert page.locator(f'#ledger-table tbody button[data-row="{rows[-1]}"]').get_attribute("aria-pressed") == "true"
    card_checks(page, LEDGER["rows"][rows[-1]])
    # a mode switch keeps the same method and γ
    chosen = LEDGER["rows"][rows[-1]]
    page.click("#ledger-mode-kvcache")
    twin = next(i for i, r in enumerate(LEDGER["rows"]) if r["mode"] == "kvcache"
                and r["method"] == chosen["method"] and r["gamma"] == chosen["gamma"])
    assert page.locator("#ledger-table tbody tr.sel").get_attribute("data-row") == str(twin)


def test_greedy_panel_lists_every_check(open_page):
    page = open_page()
    open_deep(page, "greedy")
    checks = LEDGER["greedy_check"]
    rows = page.locator("#greedy-table tbody tr[data-mode]")
    assert rows.count() == len(checks)
    groups = page.locator("#greedy-table tbody tr.group").all_inner_texts()  # one heading row per mode
    assert len(groups) == len({c["mode"] for c in checks})
    for tr, c in zip(rows.all(), checks):
        assert (tr.get_attribute("data-method"), tr.get_attribute("data-mode"), tr.get_attribute("data-gamma")) == (
            c["method"], c["mode"], str(c["gamma"]))
        text = tr.inner_text()
        assert str(c["chars_compared"]) in text
        assert ("✓" if c["equal"] else "✗") in text
        mismatch = c.get("first_mismatch")
        if mismatch is not None:
            assert str(mismatch + 1) in text
    n_equal = sum(c["equal"] for c in checks)
    assert f"{n_equal} / {len(checks)}" in page.locator("#greedy-panel").inner_text()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_sections_speak_one_language(open_page, lang):
    """Every section, the header and the footer, with every FAQ open (widgets drawn by JS
    included): no placeholder leaks, one language only, Chinese set with full-width punctuation."""
    page = open_page(390, "dark", f"#lang={lang}")
    for d in page.locator("details").all():
        d.evaluate("d => d.open = true")
    page.wait_for_selector("#bursts-chart .col")
    page.wait_for_selector("#gamma-steps-verdict")
    n_sections = page.locator("main > section").count()
    assert n_sections >= 6
    parts = page.locator("body > header, main > section, body > footer")
    assert parts.count() == n_sections + 2
    # the language switch names the other language on purpose: leave it out of the text
    page.evaluate("document.getElementById('lang-toggle').style.visibility = 'hidden'")
    for part in parts.all():
        name = part.get_attribute("id") or part.evaluate("e => e.tagName")
        text = part.inner_text()
        for leak in ("undefined", "NaN", "null", "[object"):
            assert leak not in text, (name, leak)
        if lang == "en":
            assert not CJK.search(text), (name, CJK.findall(text)[:10])
        else:
            assert CJK.search(text), name
            bad = ZH_HALF_WIDTH.findall(text) + ZH_SPACE.findall(text) + ZH_LATIN.findall(text)
            assert not bad, (name, bad[:10])
    page.evaluate("document.getElementById('lang-toggle').style.visibility = ''")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "page scrolls sideways"
    # chart text stays ≥ 12 px on a phone: 13 user units in a 360-unit-wide viewBox
    width = page.locator("#gamma-chart-speed svg").evaluate("s => s.getBoundingClientRect().width")
    assert 13 * width / 360 >= 12
    page.click("#lang-toggle")
    other = "en" if lang == "zh" else "zh"
    head = page.locator('#ledger-table thead button[data-key="method"]').inner_text()
    assert head.startswith("方法" if other == "zh" else "method")
    assert page.locator("#ledger-table thead button[data-key]").count() == 8


# Every piece of text the Chinese page shows or reads out, one item per text node (SVG <title>s
# included, which inner_text leaves out) and per attribute a tooltip or screen reader uses;
# English text (lang="en"), code and math stay out.
ZH_ITEMS = """() => {
  const skipped = (el) => el.closest("script, style, code, pre, math, [lang=en]");
  const items = [];
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (el && node.data.trim() && !skipped(el)) items.push([el.tagName.toLowerCase(), node.data.trim()]);
  }
  const names = ["aria-label", "title", "alt", "placeholder", "aria-valuetext", "aria-description", "data-title-zh", "data-aria-zh"];
  for (const el of document.querySelectorAll(names.map((n) => `[${n}]`).join(","))) {
    if (el.id === "lang-toggle" || el.closest("[lang=en]")) continue;  // the switch names the other language on purpose
    for (const name of names) if (el.hasAttribute(name)) items.push([`[${name}]`, el.getAttribute(name)]);
  }
  return items;
}"""
# English words the Chinese text uses as names; any other English word in a Chinese label is a leak
ZH_NAMES = {"forward", "forwards", "cache", "eager", "token", "tokens", "gram", "prompt", "lookahead", "medusa",
            "eagle", "greedy", "theorem", "loss", "argmax", "batch", "kernel", "tensor", "head", "heads"}


def zh_items_drawn(open_page, race):
    """The Chinese page's ZH_ITEMS once every widget has drawn: FAQs open, the lab loaded and one
    round stepped, and (race=True) one race run, so its readouts are on show too."""
    page = open_page(1280, "light", "#lang=zh")
    for d in page.locator("details").all():
        d.evaluate("d => d.open = true")
    page.wait_for_selector("#bursts-chart .col")
    page.wait_for_selector("#gamma-steps-verdict")
    open_lab(page)  # its fold is open already (every <details> above), so this waits for the models
    page.click("#lab-step")
    if race:
        page.fill("#lab-race-n", "20")
        page.click("#lab-race-go")
        page.wait_for_selector("#lab-identical[data-identical]", state="attached", timeout=60000)
    items = page.evaluate(ZH_ITEMS)
    assert len(items) > 2000 and sum(where == "title" for where, _ in items) > 40, len(items)
    return items


def test_zh_labels_titles_and_aria_text_are_typeset(open_page):
    """Every SVG <title>, aria-label, tooltip and text node of the Chinese page, widgets drawn
    (not only the visible prose): full-width ，：；？（） next to Chinese, no space between two
    Chinese characters or beside full-width punctuation."""
    bad = [(where, text) for where, text in zh_items_drawn(open_page, race=True)
           if ZH_HALF_WIDTH.search(text) or ZH_SPACE.search(text)]
    assert not bad, bad[:10]


def test_zh_labels_are_not_left_in_english(open_page):
    """No tooltip, aria-label or chart <title> of the Chinese page is all English, beyond the
    names the Chinese text itself uses (forward, KV cache, Theorem 3.8, …)."""
    english = [(where, text) for where, text in zh_items_drawn(open_page, race=False)
               if (where == "title" or where.startswith("[")) and not CJK.search(text)
               and {w.lower() for w in re.findall(r"[A-Za-z]{4,}", text)} - ZH_NAMES]
    assert not english, english[:10]


def test_state_comes_back_from_the_hash(open_page):
    page = open_page(hash_="#lang=en&gmode=recompute&galpha=0.6&gc=0.3&lmode=recompute&lsort=alpha-asc")
    page.evaluate("document.getElementById('deep-ledger-trained').open = true")  # the in-cache ledger is a deep dive
    assert page.locator("#gamma-mode-recompute").get_attribute("aria-pressed") == "true"
    assert page.locator("#gamma-mode-recompute").is_visible()  # a link to the other mode unfolds its switch
    assert page.locator("#gamma-alpha-out").inner_text() == "0.600"
    assert page.locator("#gamma-c-out").inner_text() == "0.300"
    assert page.locator("#ledger-mode-recompute").get_attribute("aria-pressed") == "true"
    assert page.locator('#ledger-table th[data-key="alpha"]').get_attribute("aria-sort") == "ascending"
    assert shown_indices(page) == sorted_indices("recompute", "alpha", "asc")
    spec = [r for r in ledger_rows("recompute") if r["method"] != "plain"]
    card_checks(page, max(spec, key=lambda r: r["speedup"]))
