"""Section ⑧, the lab, in headless Chromium: it waits in a closed fold, idle (its weights unparsed) until
the fold is open and in view, after the page has marked itself ready, and says in place why where it cannot run; its races
wait in a deep dive, closed until the reader opens it; a prompt with a character outside the
vocabulary is refused by name; at T = 0 the race's two texts are identical for every speculative
method; stepping at T = 1 shows drafts with verdicts and moves the counters, by mouse and keyboard;
the settings round-trip through the URL hash; at 390 px nothing scrolls sideways and axe finds no
serious violation in the loaded lab. open_page (conftest) fails a test on any console error or
network request. Timings are not asserted here (`make bench`)."""
import re

import orjson
import pytest

from tests.helpers import ROOT, open_deep
from tools.browser import PAGE, open_lab

AXE = ROOT / ".cache" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
SPECULATIVE = ["draft", "mtp", "ngram"]
LAB = orjson.loads((ROOT / "experiments/results/lab.json").read_bytes())


def loaded(page):
    """Open the lab, scroll it into view and wait until its models are ready."""
    return open_lab(page)


def counters(page):
    """{label: value} of the running counters."""
    boxes = page.locator("#lab-counters .readout")
    return {boxes.nth(i).locator(".k").inner_text(): boxes.nth(i).locator(".v").inner_text() for i in range(boxes.count())}


def race(page, n=60):
    open_deep(page, "lab-races")  # the races sit in a deep dive, closed until the reader opens it
    page.fill("#lab-race-n", str(n))
    page.click("#lab-race-go")
    page.wait_for_selector("#lab-identical[data-identical]", state="attached", timeout=60000)
    return page.locator("#lab-identical").get_attribute("data-identical")


def test_lab_waits_until_it_is_seen(open_page):
    page = open_page(hash_="#lang=en")
    # off the main path: the lab waits in a closed fold, and scrolling past it loads nothing
    assert page.locator("#lab-fold").get_attribute("open") is None
    page.locator("#lab-fold").scroll_into_view_if_needed()
    page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")  # observers ran
    assert page.locator("#lab-widget").get_attribute("data-state") == "idle"
    assert page.evaluate("performance.getEntriesByName('chapter-ready').length") == 1
    assert page.evaluate("performance.getEntriesByName('lab-parse-start').length") == 0  # weights untouched
    assert not page.locator("#lab-ui").is_visible()
    loaded(page)
    ready, parsed = page.evaluate("""[performance.getEntriesByName('chapter-ready')[0].startTime,
                                      performance.getEntriesByName('lab-parse-start')[0].startTime]""")
    assert ready < parsed
    assert page.locator("#lab-ui").is_visible()
    # the races are off the main path: in a deep dive, closed until the reader opens it
    assert page.locator("#deep-lab-races").get_attribute("open") is None
    assert not page.locator("#lab-race").is_visible() and not page.locator("#lab-heavy").is_visible()
    open_deep(page, "lab-races")
    assert page.locator("#lab-race-go").is_enabled() and page.locator("#lab-heavy-go").is_enabled()
    assert f"{LAB['main']['params']:,}" in page.locator("#lab-status").inner_text()
    # the defaults teach: a few rounds are already on show, with drafts and verdicts in a fold off the main path
    assert page.locator("#lab-round-box").get_attribute("open") is None and not page.locator("#lab-drafts").is_visible()
    page.locator("#lab-round-box > summary").click()
    assert page.locator("#lab-drafts").is_visible()
    assert page.locator("#lab-round-title").inner_text() == "Round 3 of 3"
    assert page.locator("#lab-drafts tbody tr").count() == 4  # draft model, γ = 4
    assert page.locator("#lab-text [data-round]").count() > 3


def test_a_browser_without_decompression_gets_a_message_in_place(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script("delete window.DecompressionStream")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(PAGE.as_uri() + "#lang=en")
    open_lab(page, "error")
    status = page.locator("#lab-status").inner_text()
    assert "cannot run in this browser" in status and "DecompressionStream" in status
    assert not page.locator("#lab-ui").is_visible() and page.locator("#lab-compare-go").is_disabled()
    page.click("#lang-toggle")
    assert "无法在这个浏览器里运行" in page.locator("#lab-status").text_content()  # off screen now: not laid out
    assert errors == []
    context.close()


def test_characters_outside_the_vocabulary_are_refused_by_name(open_page):
    page = loaded(open_page(hash_="#lang=en"))
    page.fill("#lab-prompt-text", "ROMEO é\tand 7\n")
    msg = page.locator("#lab-prompt-msg")
    assert msg.is_visible()
    text = msg.inner_text()
    for shown in ("“é” U+00E9", "“⇥” U+0009", "“7” U+0037"):
        assert shown in text, text
    assert page.locator("#lab-prompt-text").get_attribute("aria-invalid") == "true"
    for button in ("#lab-step", "#lab-play", "#lab-race-go"):
        assert page.locator(button).is_disabled(), button
    page.click("#lang-toggle")
    assert "词表之外" in msg.inner_text() and "U+00E9" in msg.inner_text()
    page.fill("#lab-prompt-text", "ROMEO and JULIET\n")
    assert not msg.is_visible()
    assert page.locator("#lab-step").is_enabled()
    page.click("#lab-step")
    assert page.locator("#lab-round-title").text_content() == "第 1 轮，共 1 轮"
    page.fill("#lab-prompt-text", "")
    assert msg.is_visible() and page.locator("#lab-step").is_disabled()


def test_greedy_race_is_identical_for_every_method(open_page):
    page = loaded(open_page(hash_="#lang=en&lab-t=0&lab-g=3"))
    assert page.locator("#lab-temp-out").inner_text() == "0 (greedy)"
    for method in SPECULATIVE:
        page.select_option("#lab-method", method)
        assert race(page) == "true", method
        plain = page.locator("#lab-lane-plain .lab-lane-text").inner_text()
        spec = page.locator("#lab-lane-spec .lab-lane-text").inner_text()
        assert plain == spec and len(plain) > 60, method
        assert "identical, all 60 characters" in page.locator("#lab-identical").inner_text()
        readouts = page.locator("#lab-race-readouts").inner_text()
        assert "Theorem 3.8" in readouts and not re.search(r"NaN|undefined|null|Infinity", readouts), readouts
        assert page.locator("#lab-race-readouts .readout").count() == 6
    assert page.locator("#lab-race-verdict").inner_text().startswith("In your browser, this race ran the n-gram table at ")
    # c and r are timed in batches, since the timer here reads to 0.1 ms: the page says so beside them
    c_label = page.locator("#lab-race-readouts .readout").nth(2).inner_text()
    assert re.search(r"timer reads to \d[\d.]*\s(ms|µs), so calls are timed in batches: each lasts at least 20\sms", c_label), c_label
    page.click("#lang-toggle")
    c_label = page.locator("#lab-race-readouts .readout").nth(2).inner_text()
    assert re.search(r"计时器精度是 \d[\d.]*\s(毫秒|微秒)，所以成批计时：每批连续调用至少 20\s毫秒", c_label), c_label


def test_the_modelled_clock_prices_the_same_race_and_follows_its_controls(open_page):
    """After a race, the modelled lane shows beside the measured one; a new device or model size
    redraws it from the race already run (the lanes' texts stay), writes the address, and a size
    that does not fit says so instead of a figure."""
    page = loaded(open_page(hash_="#lang=en&lab-m=draft&lab-g=4&lab-s=3"))
    open_deep(page, "lab-races")  # so that hidden means the lane's own [hidden], not the closed box
    assert page.locator("#lab-race").is_visible() and page.locator("#lab-gpu-result").is_hidden()
    race(page, 120)
    gpu = page.locator("#lab-gpu-result")
    assert gpu.is_visible() and "not a measurement" in gpu.inner_text()
    values = lambda: [v.inner_text() for v in page.locator("#lab-gpu-readouts .readout .v").all()]
    first = values()
    assert len(first) == 5 and all(re.fullmatch(r"[\d.]+(×| ms)?", v) for v in first), first
    assert float(first[0].rstrip("×")) > 1 and first[3] == "1.00"  # memory-bound: r = 1, speculation pays
    text = page.locator("#lab-lane-spec .lab-lane-text").inner_text()
    selects = page.locator("#lab-gpu-controls select")
    selects.nth(0).select_option("h100")
    assert "lab-gd=h100" in page.evaluate("location.hash")
    after = values()
    assert after[1] != first[1] and after[0] == first[0]  # a faster forward, the same ratio: c and r are ratios of reads
    selects.nth(2).select_option(str(int(3e9)))
    assert values()[2] != first[2] and page.locator("#lab-lane-spec .lab-lane-text").inner_text() == text
    selects.nth(0).select_option("rtx4090")
    selects.nth(1).select_option("70b")
    assert values() == [] and "pick a larger device" in page.locator("#lab-gpu-verdict").inner_text()
    page.click("#lang-toggle")
    assert "换一块更大的卡" in page.locator("#lab-gpu-verdict").inner_text()


def test_stepping_at_t1_shows_rounds_and_moves_the_counters(open_page):
    page = loaded(open_page(hash_="#lang=en&lab-s=7"))
    page.locator("#lab-round-box > summary").click()  # the round's drafts and verdicts, in their fold
    before = counters(page)
    assert before["main forwards (one per round)"] == "3"
    page.click("#lab-step")
    page.focus("#lab-step")
    page.keyboard.press("Enter")
    page.keyboard.press("Space")
    after = counters(page)
    assert after["main forwards (one per round)"] == "6"
    assert int(after["drafter forwards"]) > int(before["drafter forwards"])
    assert after["characters written"] != before["characters written"]
    assert re.fullmatch(r"\d\.\d{3}", after[next(k for k in after if k.startswith("measured α"))])
    assert page.locator("#lab-round-title").inner_text() == "Round 6 of 6"
    rows = page.locator("#lab-drafts tbody tr")
    assert rows.count() == 4
    verdicts = [rows.nth(i).get_attribute("class") for i in range(4)]
    assert set(verdicts) <= {"v-accept", "v-reject", "v-unchecked"}
    assert verdicts == sorted(verdicts, key=["v-accept", "v-reject", "v-unchecked"].index)  # accepted, then one rejected
    assert page.locator("#lab-summary").inner_text().startswith("Round 6:")
    assert re.search(r"probability \d", page.locator("#lab-next-line").inner_text())
    assert not page.locator("#lab-cache-box").evaluate("d => d.open")  # the kv caches wait in a closed box
    page.locator("#lab-cache-box summary").click()
    cache = page.locator("#lab-cache").inner_text()
    assert "main model" in cache and "draft model" in cache and "rolled back" in cache
    # page back through the rounds: the shown round's characters are outlined in the text
    page.click("#lab-prev")
    assert page.locator("#lab-round-title").inner_text() == "Round 5 of 6"
    assert page.locator("#lab-text .cur").count() >= 1
    assert page.locator("#lab-text .cur").first.get_attribute("data-round") == "4"
    # play steps on its own, pause stops it, reset starts again
    page.click("#lab-play")
    assert page.locator("#lab-pause").is_enabled()
    page.wait_for_function("document.querySelector('#lab-round-title').textContent.startsWith('Round 8')")
    page.click("#lab-pause")
    shown = page.locator("#lab-round-title").inner_text()
    page.wait_for_timeout(600)
    assert page.locator("#lab-round-title").inner_text() == shown
    page.click("#lab-reset")
    assert page.locator("#lab-round-title").inner_text() == "No round yet"
    assert counters(page)["main forwards (one per round)"] == "0"
    # the MTP head: γ is fixed at 1, its first round is a plain sample, and its cache never rolls back
    page.select_option("#lab-method", "mtp")
    assert page.locator("#lab-gamma").is_disabled()
    page.click("#lab-step")
    assert page.locator("#lab-drafts tbody tr").count() == 0
    assert "no drafts" in page.locator("#lab-summary").inner_text()
    page.click("#lab-step")
    assert page.locator("#lab-drafts tbody tr").count() == 1
    assert "MTP head" in page.locator("#lab-cache").inner_text()


def test_settings_round_trip_through_the_hash(open_page):
    page = open_page(hash_="#lang=en&lab-m=ngram&lab-g=6&lab-t=0.7&lab-s=42&lab-p=KING%3A%0A&lab-n=120")
    # a shared link with the lab's settings opens its fold (deep.js, data-hash-keys); another widget's does not
    assert page.locator("#lab-fold").get_attribute("open") is not None
    assert open_page(hash_="#lang=en&galpha=0.70").locator("#lab-fold").get_attribute("open") is None
    # the controls show a shared link's settings before the models load
    assert page.locator("#lab-method").input_value() == "ngram"
    assert page.locator("#lab-gamma").input_value() == "6"
    assert page.locator("#lab-temp").input_value() == "0.7"
    assert page.locator("#lab-seed").input_value() == "42"
    assert page.locator("#lab-chars").input_value() == "120"
    assert page.locator("#lab-prompt-text").input_value() == "KING:\n"
    loaded(page)
    assert page.locator("#lab-text .lab-prompt-echo").inner_text() == "KING:\n"
    assert "120" in counters(page)["characters written"]
    assert page.locator("#lab-drafts tbody tr").count() == 6
    page.select_option("#lab-method", "plain")
    assert page.locator("#lab-gamma").is_disabled() and page.locator("#lab-race-go").is_disabled()
    page.fill("#lab-temp", "0")
    page.fill("#lab-seed", "5")
    page.press("#lab-seed", "Tab")
    page.fill("#lab-prompt-text", "JULIET: O")
    hash_ = page.evaluate("location.hash")
    for part in ("lab-m=plain", "lab-t=0", "lab-s=5", "lab-p=JULIET%3A+O", "lab-g=6", "lang=en"):
        assert part in hash_, (part, hash_)
    # the same address, opened again, shows the same settings
    again = open_page(hash_=hash_)
    assert again.locator("#lab-method").input_value() == "plain"
    assert again.locator("#lab-temp").input_value() == "0"
    assert again.locator("#lab-prompt-text").input_value() == "JULIET: O"
    # an address edited by hand applies without a reload
    again.evaluate("location.hash = '#lang=en&lab-m=mtp&lab-t=0.3&lab-p=KING'")
    again.wait_for_function("document.getElementById('lab-method').value === 'mtp'")
    assert again.locator("#lab-temp").input_value() == "0.3"
    assert again.locator("#lab-prompt-text").input_value() == "KING"
    assert again.locator("#lab-gamma").is_disabled()  # the MTP head drafts one
    # nonsense in the hash falls back to the defaults
    bad = open_page(hash_="#lang=en&lab-m=beam&lab-g=99&lab-t=-1&lab-s=x")
    assert bad.locator("#lab-method").input_value() == "draft"
    assert bad.locator("#lab-gamma").input_value() == "4"
    assert bad.locator("#lab-temp").input_value() == "1"
    assert bad.locator("#lab-seed").input_value() == "0"


@pytest.mark.parametrize("scheme,lang", [("dark", "zh"), ("light", "en")])
def test_phone_width_and_axe_in_the_loaded_lab(open_page, scheme, lang):
    assert AXE.exists(), f"{AXE} is missing: run `make axe`"
    page = loaded(open_page(390, scheme, f"#lang={lang}"))
    page.click("#lab-step")
    assert race(page, 40) == "false"  # T = 1: the texts differ, as they may
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "the lab scrolls the page sideways"
    page.evaluate("document.querySelectorAll('#s-lab details').forEach((d) => { d.open = true; })")
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document.querySelector('#s-lab'), { resultTypes: ['violations'] })")
    bad = [(v["id"], [n["target"] for n in v["nodes"][:5]]) for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert not bad, bad


@pytest.mark.slow
def test_the_ledger_rows_run_in_the_browser(open_page):
    page = loaded(open_page(hash_="#lang=en"))
    open_deep(page, "lab-compare")  # the rows sit in a deep dive, closed until the reader opens it
    page.click("#lab-compare-go")
    page.wait_for_selector("#lab-compare-status[data-done]", state="attached", timeout=120000)
    for tr in page.locator("#lab-compare tbody tr").all():
        alpha, tokens = tr.locator(".live-alpha").inner_text(), tr.locator(".live-tokens").inner_text()
        if tr.get_attribute("data-method") == "plain":
            continue
        python_tokens = float(tr.locator("td").nth(1).inner_text())
        assert re.fullmatch(r"0\.\d{3}", alpha) and abs(float(tokens) - python_tokens) < 0.6, (alpha, tokens)


def heavy_race(page, scale):
    """⑧'s heavy race at `scale`, to the end: what it wrote in #lab-heavy's data-result."""
    open_deep(page, "lab-races")
    page.locator("#lab-heavy").scroll_into_view_if_needed()
    page.select_option("#lab-heavy-scale", str(scale))
    page.click("#lab-heavy-go")
    page.wait_for_selector("#lab-heavy[data-state=done], #lab-heavy[data-state=error]", state="attached", timeout=120000)
    assert page.get_attribute("#lab-heavy", "data-state") == "done", page.inner_text("#lab-heavy-note")
    return orjson.loads(page.get_attribute("#lab-heavy", "data-result"))


def test_the_heavy_race_runs_on_webassembly_with_the_page_verdict_rule(open_page):
    """As trained (scale 1, seconds): three drafters against plain decoding in 3 pairs each, r_k for
    k = 1..9, the dial's figures beside them, every verdict the page's rule, in both languages."""
    regime = orjson.loads((ROOT / "experiments/results/regime.json").read_bytes())
    page = loaded(open_page(hash_="#lang=en"))
    assert page.get_attribute("#lab-heavy", "data-forward") == "wasm"
    assert "WebAssembly SIMD" in page.text_content("#lab-kernel-note")
    options = page.locator("#lab-heavy-scale option")
    assert [options.nth(i).get_attribute("value") for i in range(options.count())] == [str(p["scale"]) for p in regime["points"]]
    result = heavy_race(page, 1)
    dial = {r["family"]: r for r in regime["points"][0]["best"]["T1"]}
    for row in result["race"]["rows"]:
        runs = row["speedups"]
        assert runs["n"] == 3 and row["gamma"] == dial[row["method"]]["size"]  # the dial's configuration
        assert row["verdict"] == ("faster" if runs["min"] > 1 else "slower" if runs["max"] < 1 else "unclear")
        cells = page.locator(f'#lab-heavy-race tr[data-family="{row["method"]}"] td')
        assert cells.nth(0).inner_text() == f"{row['speedup']:.2f}×"
        badge = cells.nth(1).locator("a.verdict")  # format.js verdictBadgeParts: the rule's word, a link to the rule
        assert (badge.get_attribute("data-v"), badge.get_attribute("href")) == (row["verdict"], "#rule-verdict")
        assert cells.nth(4).inner_text() == f"{dial[row['method']]['speedup']:.2f}×"
    assert sorted(result["race"]["rows"][i]["method"] for i in range(3)) == ["draft", "mtp", "ngram"]
    assert list(result["prices"]["r"]) == [str(k) for k in range(1, 10)]
    dial_r = page.locator('#lab-heavy-rk tr[data-row="dial"] td')
    assert [dial_r.nth(i).inner_text() for i in range(8)] == [f"{regime['points'][0]['r'][str(k)]:.2f}" for k in range(2, 10)]
    assert "On your machine" in page.inner_text("#lab-heavy-says")
    page.click("#lang-toggle")
    assert "在你的机器上" in page.locator("#lab-heavy-says").text_content()
    assert "草稿员" in page.locator("#lab-heavy-race th").first.text_content()


@pytest.mark.parametrize("how", ["no SIMD", "the address"])
def test_without_webassembly_simd_the_lab_keeps_the_javascript_forward(browser, open_page, how):
    """A browser that cannot validate a SIMD module, or the address asking (#lab-forward=js): the lab
    runs on JavaScript, says so, and races only the models as trained."""
    if how == "the address":
        page = loaded(open_page(hash_="#lang=en&lab-forward=js"))
    else:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script("WebAssembly.validate = () => false")
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda err: page.errors.append(str(err)))
        page.goto(PAGE.as_uri() + "#lang=en")
        loaded(page)
    assert page.get_attribute("#lab-heavy", "data-forward") == "js"
    assert "JavaScript" in page.text_content("#lab-kernel-note")
    assert page.locator("#lab-heavy-scale option").count() == 1
    assert not page.locator("#lab-heavy-go").is_disabled()
    assert page.locator("#lab-round-title").text_content() == "Round 3 of 3"  # the rest of the lab runs as before
    if how == "no SIMD":
        assert page.errors == []
        page.context.close()


def test_greedy_text_on_a_heavy_twin_in_chromium_equals_plain_for_every_drafter(browser):
    """The race's own modules (static/js) in Chromium, on the page's WebAssembly kernel: on a twin 3×
    heavier, at T = 0, every drafter's text is plain decoding's, character for character. The
    modules are served from a made-up origin (a page opened from disk may not import them)."""
    page_html = (ROOT / "site" / "16_speculative_decoding_viz.html").read_text(encoding="utf-8")
    kernel = re.search(r'<script type="application/octet-stream" id="lab-kernel">(.*?)</script>', page_html, re.S).group(1)
    files = {"/lab.json": (ROOT / "experiments/results/lab.json").read_bytes(), "/kernel.b64": kernel.strip().encode(),
             "/": b"<!doctype html><meta charset=utf-8><title>twin</title>"}

    def serve(route):
        path = route.request.url.removeprefix("http://lab.test")
        body = files.get(path) or (ROOT / path.lstrip("/")).read_bytes()
        route.fulfill(body=body, content_type="text/javascript" if path.endswith(".js") else "text/html")

    context = browser.new_context()
    context.route("http://lab.test/**", serve)
    page = context.new_page()
    page.goto("http://lab.test/")
    result = page.evaluate("""async () => {
        const { loadLab } = await import("/static/js/lab_model.js");
        const { wasmKernel } = await import("/static/js/lab_kernel.js");
        const { buildHeavyLab, pairedRace } = await import("/static/js/lab_heavy.js");
        const text = await (await fetch("/kernel.b64")).text();
        const bytes = Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
        const labData = await (await fetch("/lab.json")).json();
        const lab = await loadLab(labData, undefined, await wasmKernel(bytes));
        const twin = buildHeavyLab(lab, 3, await wasmKernel(bytes)).lab;
        const prompt = Array.from("ROMEO:\\n", (ch) => labData.vocab.indexOf(ch));
        const race = await pairedRace(twin, { configs: { ngram: 5, draft: 3, mtp: 1 }, prompt, n: 40, temperature: 0, pairs: 1 });
        return { kernel: twin.kernel, rows: race.rows.map((r) => [r.method, r.sameText]) };
    }""")
    context.close()
    assert result["kernel"] == "wasm"
    assert result["rows"] == [["ngram", True], ["draft", True], ["mtp", True]]
