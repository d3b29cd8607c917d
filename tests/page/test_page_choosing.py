"""Section ⑦ (choosing a method) in Chromium: the conditions tables carry every drafter and
temperature, the picker answers each preset (and "don't speculate" where it should) in both
languages and keeps the situation in the URL, the exercises hide their answers."""
import orjson

from tests.helpers import ROOT, open_deep

READ = lambda name: orjson.loads((ROOT / f"experiments/results/{name}.json").read_bytes())
FAMILIES, CONDITIONS = READ("families"), READ("conditions")


def fastest(temperature):
    """The fastest family row on the primary engine, as families.json's summary names it."""
    return FAMILIES["summary"]["fastest"][f"T{temperature:g}"]


def test_conditions_tables(open_page):
    page = open_page(hash_="#lang=en")
    table = page.locator("#cond-temperature")
    assert table.locator("thead th").count() == 1 + len(CONDITIONS["temperatures"])
    assert table.locator("tr[data-metric=tokens]").count() == len(CONDITIONS["configs"])
    assert page.locator("#cond-texts tbody tr").count() == len(CONDITIONS["by_temperature"][0]["alpha"])  # every drafter with a first draft
    assert page.locator("#cond-length tbody tr").count() == len(CONDITIONS["configs"]) + 1
    assert page.locator("#dont-list > li").count() >= 4
    text = page.locator("#s-choosing").inner_text()
    assert "NaN" not in text and "None" not in text and "undefined" not in text


def test_picker_presets_and_dont(open_page):
    page = open_page(hash_="#lang=en")
    assert page.locator("#deep-picker").get_attribute("open") is None  # a deep dive, off the main path
    open_deep(page, "picker")
    result = page.locator("#picker-result")
    best = fastest(1.0)
    # the default situation is this chapter's: its fastest measured family, unless even that one loses
    assert result.get_attribute("data-top") == (best["family"] if best["speedup"] >= 1 else "plain")
    # the fastest family's figure heads the list, or follows "don't speculate" where that leads
    leads = best["speedup"] >= 1
    assert f"{best['speedup']:.2f}×" in result.locator("li").nth(0 if leads else 1).inner_text()
    assert leads or "Don't speculate" in result.locator("li").first.inner_text()
    # five answers show; the rest of the ranking folds under them, numbered on
    shown, rest = result.locator("li").count(), page.locator("#picker-rest li").count()
    assert shown == 5 and rest >= 1 and page.locator("#picker-rest").get_attribute("start") == "6"
    assert page.locator("#picker-more-label").inner_text() == f"The other {rest}"
    assert not page.locator("#picker-rest").is_visible()
    for preset, dont in [("serving", True), ("gpuChat", False)]:
        page.click(f"#picker-widget [data-preset={preset}]")
        assert result.get_attribute("data-dont") == str(dont).lower(), preset
        assert page.locator(f"#picker-widget [data-preset={preset}]").get_attribute("aria-pressed") == "true"
    for key, value in [("temperature", "0"), ("text", "quote"), ("memory", "no"), ("training", "no")]:
        page.select_option(f"#picker-widget select[data-input={key}]", value)
    assert page.locator("#picker-widget [data-preset=gpuChat]").get_attribute("aria-pressed") == "false"
    assert result.get_attribute("data-top") == "lookup"  # editing: copying the input
    assert "pick=gpu-0-quote-no-no-long" in page.evaluate("location.hash")
    page.click("#lang-toggle")
    assert "没有已发表的数字" in result.inner_text()


def test_picker_reads_the_url_and_its_selects(open_page):
    page = open_page(hash_="#lang=en&pick=cpu-1.3-open-no-no-long")
    assert page.locator("#deep-picker").get_attribute("open") is not None  # the address's situation opens its box
    assert page.locator("#picker-result").get_attribute("data-dont") == "true"  # nothing left that wins here
    assert page.locator("#picker-widget select[data-input=temperature]").input_value() == "1.3"
    page.select_option("#picker-widget select[data-input=length]", "short")
    assert "short" in page.evaluate("location.hash")
    page.select_option("#picker-widget select[data-input=regime]", "gpu")
    page.select_option("#picker-widget select[data-input=length]", "long")
    page.select_option("#picker-widget select[data-input=training]", "yes")
    assert page.locator("#picker-result").get_attribute("data-top") == "eagle3"  # no memory: no draft model, no table


def test_exercises_hide_their_answers(open_page):
    page = open_page(hash_="#lang=en")
    open_deep(page, "exercises")
    blocks = page.locator("#s-choosing .exercise")
    assert blocks.count() == 4
    for i in range(4):
        details = blocks.nth(i).locator("details")
        assert not details.evaluate("d => d.open")
        details.locator("summary").click()
        assert details.evaluate("d => d.open")
