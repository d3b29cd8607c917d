"""Section ④ (MTP) and the closing panel in headless Chromium: every diagram part (in its deep dive)
against mtp.json, the trace slider at min/mid/max and by keyboard, both execution modes of the
MTP-vs-draft table, the loss table and its verdict, the self-check (screenshots: test_page.py's
matrix; slider timings: `make bench`). The conftest fixture fails a test on any console error or
request."""
import orjson

from tests.helpers import ROOT, open_deep

MTP = orjson.loads((ROOT / "experiments" / "results" / "mtp.json").read_bytes())
LEDGER = orjson.loads((ROOT / "experiments" / "results" / "ledger.json").read_bytes())


def expected_counts(p):
    counts = {"emb": p["shared_embedding_head"], "head": p["shared_embedding_head"],
              "mtp_emb": p["shared_embedding_head"], "mtp_head": p["shared_embedding_head"],
              "final_norm": p["shared_final_norm"], "mtp_final_norm": p["shared_final_norm"],
              "hidden_norm": p["hidden_norm"], "embed_norm": p["embed_norm"], "proj": p["proj"],
              "mtp_block": p["block"], "ht": 0, "concat": 0}
    counts.update({f"block{i + 1}": n for i, n in enumerate(p["main_blocks"])})
    return counts


def ratio(step):
    return min(1.0, step["p_draft"] / step["q_draft"]) if step["q_draft"] > 0 else 0.0


def test_diagram_parts_show_real_counts(open_page):
    page = open_page()
    counts = expected_counts(MTP["params"])
    parts = page.locator("#mtp-diagram .mtp-part")
    # the diagram sits in a closed deep dive and is drawn all the same, with no error (the fixture's check)
    assert page.locator("#deep-mtp-parts").get_attribute("open") is None
    assert parts.count() == len(counts)
    assert not parts.first.is_visible()
    open_deep(page, "mtp-parts")
    for i in range(parts.count()):
        part = parts.nth(i)
        key = part.get_attribute("data-part")
        part.click()
        assert part.get_attribute("aria-pressed") == "true"
        assert page.locator("#mtp-diagram [aria-pressed=true]").count() == 1
        assert page.locator("#mtp-part-card .mtp-count").inner_text() == f"{counts[key]:,}", key
        card = page.locator("#mtp-part-card").inner_text()
        assert ("counted" in card) == (part.get_attribute("class").split()[-1] in ("shared",)), key
        assert part.get_attribute("aria-label")
    readouts = page.locator("#mtp-param-readouts").inner_text()
    assert f"{MTP['params']['mtp_head_total']:,}" in readouts and f"{MTP['params']['main_total']:,}" in readouts
    # keyboard: Tab-focusable parts, Enter selects
    page.locator("#mtp-diagram [data-part=proj]").focus()
    page.keyboard.press("Enter")
    assert page.locator("#mtp-diagram [data-part=proj]").get_attribute("aria-pressed") == "true"
    page.keyboard.press("Tab")
    page.keyboard.press(" ")
    assert page.locator("#mtp-diagram [data-part=mtp_block]").get_attribute("aria-pressed") == "true"
    assert "mtppart=mtp_block" in page.evaluate("location.hash")


def test_diagram_text_readable_on_phone(open_page):
    page = open_page(390)
    open_deep(page, "mtp-parts")
    sizes = page.evaluate("""() => {
        const svg = document.querySelector('#mtp-diagram svg');
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return [...svg.querySelectorAll('text, tspan')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale);
    }""")
    assert min(sizes) >= 12, f"SVG text as small as {min(sizes):.1f} px"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_trace_slider_and_keys(open_page):
    page = open_page()
    sample = MTP["sample"]
    steps = sample["steps"]
    n = len(steps)
    open_deep(page, "mtp-replay")  # off the main path, in a deep dive
    slider = page.locator("#mtp-step")
    assert slider.get_attribute("max") == str(n)
    # opens on the rejection the head was most sure about
    rejected = [i for i, s in enumerate(steps) if s["draft"] is not None and not s["accepted"]]
    default = min(rejected, key=lambda i: ratio(steps[i]))
    assert slider.input_value() == str(default + 1)
    card = page.locator("#mtp-step-card").inner_text()
    st = steps[default]
    for value in (st["p_draft"], st["q_draft"], st["u"], ratio(st)):
        assert f"{value:.4f}" in card
    assert "rejected" in card
    # counts of each kind, from the data: accepted drafts, redraws after a rejection, the main model's own samples
    expected_of = {"draft": sum(s["n_accepted"] for s in steps),
                   "resample": sum(s["next_from"] == "residual" for s in steps),
                   "main": sum(s["next_from"] != "residual" for s in steps)}
    for kind in ("draft", "main", "resample"):
        expected = expected_of[kind]
        assert page.locator(f"#mtp-n-{kind}").inner_text() == str(expected)
    assert page.locator("#mtp-text .mtp-k-draft").count() == sample["accepted"]
    assert page.locator("#mtp-text [data-s]").count() == n
    for value in (1, (n + 1) // 2, n):
        slider.fill(str(value))
        assert page.locator("#mtp-step-out").inner_text() == f"{value} / {n}"
        assert page.locator("#mtp-text .mtp-cur").get_attribute("data-s") == str(value - 1)
        assert page.locator("#mtp-text .mtp-fut").count() == n - value
        assert f"{value}" in page.locator("#mtp-step-card h3").inner_text()
        assert "null" not in page.locator("#mtp-step-card").inner_text()  # steps without a draft
        st = steps[value - 1]
        text = page.locator("#mtp-text .mtp-cur").inner_text().replace("↵", "\n")
        assert text == "".join(st["emitted"])
        if st["draft"] is not None:
            assert f"{st['u']:.4f}" in page.locator("#mtp-step-card").inner_text()
    # arrow keys on the text, and on the slider itself
    page.locator("#mtp-text").focus()
    page.keyboard.press("Home")
    assert slider.input_value() == "1"
    page.keyboard.press("ArrowRight")
    assert slider.input_value() == "2"
    page.keyboard.press("End")
    assert slider.input_value() == str(n)
    page.keyboard.press("ArrowLeft")
    assert slider.input_value() == str(n - 1)
    slider.focus()
    page.keyboard.press("ArrowLeft")
    assert page.locator("#mtp-step-out").inner_text() == f"{n - 2} / {n}"
    # jump between rejections
    page.locator("#mtp-text").focus()
    page.keyboard.press("Home")
    page.click("#mtp-next-rej")
    assert slider.input_value() == str(rejected[0] + 1)
    assert page.locator("#mtp-prev-rej").is_disabled()
    # click a char
    page.locator("#mtp-text [data-s='3']").click()
    assert slider.input_value() == "4"


def test_mtp_vs_draft_both_modes(open_page):
    page = open_page()
    open_deep(page, "mtp-vs")
    for mode in ("recompute", "kvcache"):
        page.click(f"#mtp-mode-{mode}")
        assert page.locator(f"#mtp-mode-{mode}").get_attribute("aria-pressed") == "true"
        rows = [r for r in LEDGER["rows"] if r["mode"] == mode]
        mtp = next(r for r in rows if r["method"] == "mtp")
        draft = next(r for r in rows if r["method"] == "draft" and r["gamma"] == 1)
        table = page.locator("#mtp-vs-table").inner_text()
        for r in (mtp, draft):
            assert f"{r['alpha']:.3f}" in table
            assert f"{r['speedup']:.2f}×" in table
            assert f"{r['wall_s']['median']:.3f}" in table
        summary = page.locator("#mtp-vs-summary").inner_text()
        assert ("higher" if mtp["alpha"] > draft["alpha"] else "lower") in summary
    assert "mtpmode=kvcache" in page.evaluate("location.hash")


def test_loss_table_and_verdict(open_page):
    page = open_page()
    open_deep(page, "mtp-loss")
    vl = MTP["val_loss"]
    for key in ("main_mtp", "control", "mtp_head", "draft"):
        cells = page.locator(f"#mtp-loss-table tr[data-row={key}] td").all_inner_texts()
        assert cells[:len(MTP["seeds"])] == [f"{x:.4f}" for x in vl[key]["values"]]
    verdict = MTP["verdict"]["beyond_seed_noise"]
    expected = "none" if verdict is None else "beyond" if verdict else "within"
    assert page.locator("#mtp-verdict").get_attribute("data-verdict") == expected
    text = page.locator("#mtp-verdict").inner_text()
    assert f"{abs(MTP['verdict']['mean_difference']):.4f}" in text
    assert ("too early" in text) == (verdict is None)


def test_closing_self_check(open_page):
    page = open_page()
    open_deep(page, "quiz")
    questions = page.locator("#closing-quiz .closing-q")
    assert 4 <= questions.count() <= 10
    for i in range(questions.count()):
        q = questions.nth(i)
        assert not q.locator("details").evaluate("d => d.open")
        wrong = q.locator(".closing-option[data-correct=false]").first
        wrong.click()
        assert wrong.get_attribute("aria-pressed") == "true"
        assert "Not quite" in q.locator(".closing-feedback").inner_text()
        assert not q.locator("details").evaluate("d => d.open")
        right = q.locator(".closing-option[data-correct=true]")
        assert right.count() == 1
        right.click()
        assert q.locator(".closing-feedback").inner_text() == "Right."
        assert q.locator("details").evaluate("d => d.open")
        assert q.locator("details p").is_visible()
    page.click("#lang-toggle")
    assert questions.nth(0).locator(".closing-feedback").inner_text() == "答对了。"
    links = page.locator("#s-closing .closing-papers a").evaluate_all("as => as.map((a) => a.href)")
    for arxiv in ("2211.17192", "2302.01318", "2404.19737", "2412.19437", "2401.10774", "2401.15077"):
        assert f"https://arxiv.org/abs/{arxiv}" in links


def test_language_switch_rerenders(open_page):
    page = open_page(hash_="#lang=zh")
    open_deep(page, "mtp-parts", "mtp-replay")
    assert "个参数" in page.locator("#mtp-part-card").inner_text()
    page.click("#lang-toggle")
    assert "parameters" in page.locator("#mtp-part-card").inner_text()
    assert page.locator("#mtp-step-card h3").inner_text().startswith("Main forward")
    assert "Main model" in page.locator("#mtp-diagram svg").inner_html()
