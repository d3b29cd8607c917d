"""Section ⑧ tells ①'s story about the price of extra positions (issue 18, item 4): r_k, a
k-position forward over a one-position one, read from costs.json's curve (eager engine,
kv-cache mode), and every sentence about it follows from the r_k it prints; the section quotes
lab.json's rounding figures."""
import copy
import re

import orjson

from chapter import build
from tests.helpers import ROOT

DATA = build.load_results()
LAB = orjson.loads((ROOT / "experiments/results/lab.json").read_bytes())


def render(edit=None):
    data = copy.deepcopy(DATA)
    if edit:
        edit(data)
    return build.render(data)


def lab_text(html, lang):
    section = re.search(r'<section id="s-lab".*?</section>', html, re.S).group(0)
    paras = re.findall(rf'<p lang="{lang}">(.*?)</p>', section, re.S)
    return [" ".join(re.sub(r"<[^>]+>", "", p).split()) for p in paras]  # as a reader sees it: one space per line break


def why(html, lang):
    needle = "原因正好是 ① 讲的那件事反过来了" if lang == "zh" else "for the reason ① gave, turned around"
    (p,) = [p for p in lab_text(html, lang) if needle in p]
    return p


def test_the_lab_prints_r_k_from_costs_json():
    html = render()
    over = DATA["costs"]["engines"]["eager"]["over_main"]
    for lang in ("zh", "en"):
        p = why(html, lang)
        assert "costs.json" in p and "eager" in p
        for k in (2, 4, 8):
            if str(k) in over:
                assert f"r{k} = {over[str(k)]:.2f}" in p, (k, p)
        assert f"{1000 * DATA['costs']['engines']['eager']['seconds']['main']:.3f}" in p
    text = " ".join(lab_text(html, "en"))
    for claim in ("barely notices", "almost nothing", "nearly free too"):
        assert claim not in text, claim
    zh = " ".join(lab_text(html, "zh"))
    for claim in ("关系不大", "几乎不多花钱", "也几乎免费"):
        assert claim not in zh, claim


def test_the_sentences_follow_the_curve():
    """Change the curve and the sentences change with it; the ledger's own verify prices (another
    measurement) are not what the lab prints."""
    def steep(data):
        over = data["costs"]["engines"]["eager"]["over_main"]
        over.update({"2": 1.91, "4": 3.73, "8": 7.37})
        data["ledger"]["forward_costs"]["kvcache"]["verify_over_main"]["4"] = 9.87
        data["costs"]["summary"]["eager"]["flat_until"] = 1  # what costs.py makes of r2 = 1.91

    html = render(steep)
    p = why(html, "en")
    assert "r4 = 3.73" in p and "r2 = 1.91" in p and "r8 = 7.37" in p
    assert "almost as fast as their number" in p and "far more slowly" not in p
    assert "the second one already adds 0.91 of a forward" in p
    assert "9.87" not in " ".join(lab_text(html, "en"))
    z = why(html, "zh")
    assert "几乎跟着位置数一起涨" in z and "第 2 个位置就要多花 0.91 次" in z

    def gentle(data):
        over = data["costs"]["engines"]["eager"]["over_main"]
        over.update({"2": 1.05, "4": 1.1})
        data["costs"]["summary"]["eager"]["flat_until"] = 4

    p = why(render(gentle), "en")
    assert "far more slowly than their number" in p
    assert "Up to 4 positions a forward stays within 1.15× one position" in p
    assert "not free" not in p


def test_prose_has_the_lab_numbers(rendered_page):
    """The section quotes lab.json's rounding figures and the ledger's rows it compares with."""
    lab = LAB
    start = rendered_page.index('<section id="s-lab"')
    section = rendered_page[start:rendered_page.index("</section>", start)]
    rd = lab["rounding"]
    for figure in (rd["main"]["model"]["max_abs_logit"], rd["main"]["model"]["max_tv"], rd["draft"]["model"]["max_tv"]):
        assert f"{figure:.4f}" in section
    assert f"{lab['main']['params']:,}" in section
    assert section.count('<tr data-method="') >= 4
    assert 'id="lab-widget" data-state="idle"' in section
    assert 'href="#s-lab"' in rendered_page  # the table of contents
