"""Issue 49, findings 1, 3 and 4 (the rule): the mechanism the dial shows on one CPU core, as ① and the
regime aside before it tell it, each figure against regime.json; the lede's answer in one plain sentence;
the verdict rule defined once, in #rule-verdict."""
import copy
import re

from chapter import build
from chapter.views import gamma, regime, verify
from tests.build.test_page_text import lang_text
from tests.helpers import results


def aside(page):
    start = page.index('<aside class="regime"')
    return page[start:page.index("</aside>", start)]


def twin_paragraphs(page):
    """①'s paragraphs just before the deep dive on the twins' verify price."""
    end = page.index('<details class="deep" id="deep-twin-rk"')
    start = page.rindex('<p lang="zh">', 0, end)
    return page[start:end]


def ends():
    dial = results("regime")
    light, heavy = dial["points"][0], dial["points"][-1]
    row = lambda point: next(r for r in point["best"]["T1"] if r["family"] == "ngram")
    # one plain forward in ms: plain decoding's time per character over its plain forwards per character
    per_forward = lambda point: 1000 * point["plain"]["T1"]["wall_s"]["median"] / dial["n_chars"] / row(point)["plain_per_char"]
    return dial, light, heavy, row(light), row(heavy), per_forward(light), per_forward(heavy)


def test_one_shows_the_fixed_costs_vanishing_not_the_verify_going_free(rendered_page):
    dial, light, heavy, row_light, row_heavy, ms_light, ms_heavy = ends()
    html = twin_paragraphs(rendered_page)
    en, zh = lang_text(html, "en"), lang_text(html, "zh")
    r5 = [p["r"]["5"] for p in dial["points"]]
    falls = regime.r5_falls(dial["points"], 1 + results("costs")["summary"]["eager"]["flat_slack"])
    for text in (en, zh):
        if falls:  # the verify gets cheaper along the dial: its two ends, as a trend
            assert "%.2f" % r5[0] in text and "%.2f" % r5[-1] in text and "%.2f–%.2f" % (min(r5), max(r5)) not in text
        else:      # a band over every scale, not two ends that read as a trend
            assert "%.2f–%.2f" % (min(r5), max(r5)) in text
        assert "%.3f" % ms_light in text and "%.1f" % ms_heavy in text  # ledger_macros.ms: 3 decimals below 1 ms
    assert ms_heavy > ms_light and row_heavy["drafter_per_round"] < row_light["drafter_per_round"]
    assert (": cheap, but never free" in en) == (min(r5) > 1 and not falls)
    assert ("the verify gets cheaper, as on a GPU" in en) == falls
    # the round's other costs are counted once, in ⑥'s box (test_view_ledger), and only pointed to here
    assert "other costs grow far less and vanish beside it (⑥'s box counts them)" in en and "⑥ 的方框逐项列出" in zh
    assert "GPU's regime" not in en


def test_where_the_verify_falls_along_the_dial_one_and_the_aside_say_so():
    """A machine whose small forward is arithmetic-bound (5 positions 2.22× one as trained) and whose twins read
    memory (1.30× on the heaviest): ① prints the two ends and says the verify gets cheaper, as on a GPU, where it
    printed a band; the aside says the verify as trained is not cheap and that ⑥ measures both effects."""
    data = copy.deepcopy(build.load_results())
    points = data["regime"]["points"]
    points[0]["r"]["5"], points[-1]["r"]["5"] = 2.22, 1.30
    for p in points[1:-1]:
        p["r"]["5"] = 1.5
    page = build.render(data)
    html = twin_paragraphs(page)
    en, zh = lang_text(html, "en"), lang_text(html, "zh")
    assert "5 positions (γ = 4) cost 2.22× one as trained and only 1.30× at the heaviest scale" in en
    assert "the verify gets cheaper, as on a GPU" in en and "The forward itself grows dear too" in en
    assert "验收 5 个位置（γ = 4）的耗时是 1 个位置的 2.22 倍，最重一档只有 1.30 倍" in zh and "forward 本身也变贵了" in zh
    assert "at every scale" not in en and "never free" not in en
    en, zh = lang_text(aside(page), "en"), lang_text(aside(page), "zh")
    assert "a verify of the model as trained is not cheap (①)" in en and "what both effects buy" in en
    assert "按原样训练的模型验收并不便宜（①）" in zh and "两重好处合起来" in zh and "never free" not in en


def lede(page):
    start = page.index('<p class="lede">')
    return page[start:page.index("</p>", start)]


def test_the_aside_names_both_effects_and_the_lede_gives_a_plain_answer(rendered_page, page_data):
    html = aside(rendered_page)
    en, zh = lang_text(html, "en"), lang_text(html, "zh")
    assert "cheap verify" in en and "dear forward" in en and "验收便宜" in zh and "forward 贵" in zh
    # on one CPU core the verify is cheap but never free (every scale's r_5 above 1×), pointing to ①, which prints the
    # band; or, where it falls along the dial, not cheap as trained, and ⑥ measures both effects
    points = page_data["regime"]["points"]
    if regime.r5_falls(points, 1 + page_data["costs"]["summary"]["eager"]["flat_slack"]):
        assert "not cheap (①)" in en and "what both effects buy" in en and "验收并不便宜（①）" in zh
    else:
        band = regime.r5_band(points)
        assert "how much the second effect buys" in en and "第二种好处有多大" in zh
        assert band["min"] > 1 and "but never free (①)" in en and "但从不白送（①）" in zh
    # the answer: one plain sentence, in the lede (issue 49, finding 3), said once
    en, zh = lang_text(lede(rendered_page), "en"), lang_text(lede(rendered_page), "zh")
    answer = re.search(r"The measured answer: ([^(]*)\(", en).group(1)
    assert len(answer.split()) <= 22 and not re.search(r"paired|famil|twin|dial|n-gram", answer)
    as_trained = any(r["verdict"] == "faster" for r in points[0]["best"]["T1"])  # some method pays as trained
    assert ("选对草稿员，投机就划算" in zh) == as_trained and ("选对草稿员的投机才划算" in zh) == (not as_trained)
    assert "measured answer" not in lang_text(html, "en") and "实测的回答" not in lang_text(html, "zh")


def test_the_rule_is_defined_once_with_a_verdict_beside_it(rendered_page, page_data):
    assert rendered_page.count('id="rule-verdict"') == 1
    start = rendered_page.index('id="rule-verdict"')
    rule = rendered_page[start:rendered_page.index("</div>", start)]
    # in ③, under the squares whose bars are the first paired ranges a reader meets and before ④'s first badge;
    # its example is the fastest square's badge
    assert rendered_page.index('id="s-gamma"') < start < rendered_page.index('id="gamma-widget"')
    assert start < rendered_page.index('class="verdict')
    runs = gamma.view(page_data)["fastest_square"]["speedup_runs"]
    assert f'data-min="{runs["min"]}" data-max="{runs["max"]}" data-n="{runs["n"]}"' in rule
    en, zh = lang_text(rule, "en"), lang_text(rule, "zh")
    assert "every paired repeat lies above 1×" in en and "cannot tell" in en and "range" in en
    assert "成对测量" in zh and "都高于 1×" in zh and "分不出" in zh
    assert 'class="verdict' in rule


def test_ones_curve_sentence_quotes_the_engine_the_chart_draws(rendered_page, page_data):
    """Above ①'s folded chart: a flat start and its stretch on the drawn engine, or, where even 2 positions cost
    more than the flat bound, that engine's r_2 (not the eager engine's, which the chart does not draw); the
    chart itself waits in the fold under the sentence."""
    v = verify.view(page_data)
    start = rendered_page.index('Call <a href="#g-r">')
    end = rendered_page.index("Theorem 3.8</a> (③)", start)
    en = lang_text(rendered_page[start:end], "en")
    fold = rendered_page.index('<details class="numbers-box" id="cost-curve-box">', end)
    assert fold < rendered_page.index('<div class="widget" id="cost-curve">', fold) < rendered_page.index("</details>", fold)
    r = page_data["costs"]["engines"][v["flat_engine"]]["over_main"]
    label = next(e["label"] for e in page_data["registry"]["engines"] if e["name"] == v["flat_engine"])
    if v["flat_start"]:
        assert f"up to {v['flat_max']} positions stay within" in en
    else:
        assert f"{v['second_position']} positions already cost {r[str(v['second_position'])]:.2f}× one on the {label['en']}" in en
