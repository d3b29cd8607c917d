"""The page without a browser: its prose as the build renders it (Chinese typesetting, and the
statements issues 8 and 36 fixed, each against the results it quotes), the page as shipped (every
<summary> named before the script runs) and the stylesheets (no transition of `all`)."""
import re
from html.parser import HTMLParser

from tests.helpers import ROOT, results
from tools.browser import PAGE

TIMING = re.compile(r"-?[\d.]+m?s|ease(-in|-out|-in-out)?|linear|step-start|step-end|cubic-bezier|steps|"
                    r"normal|allow-discrete|!important")


def loose_transitions(css):
    """The transition declarations in a stylesheet that animate `all` or name no property."""
    bad = []
    for decl in re.findall(r"(?<![\w-])transition(?:-property)?\s*:\s*([^;}]+)", css):
        value = re.sub(r"\([^)]*\)", "", decl).strip()  # cubic-bezier(a, b, c, d): its commas are not a list's
        if re.fullmatch(r"none(\s*!important)?", value):
            continue
        for item in value.split(","):
            names = [t for t in item.split() if not TIMING.fullmatch(t)]
            if len(names) != 1 or names[0] == "all":
                bad.append(decl.strip())
                break
    return bad


def test_every_transition_names_its_properties():
    """Issue 45, item 13, in every state the browser test does not reach (:hover, :focus, a class a
    widget sets): no rule in static/css animates `all` (a colour could pass through near-black on
    near-black while axe reads it) or leaves its properties to the default, which is `all`."""
    found = {css.name: loose_transitions(css.read_text(encoding="utf-8"))
             for css in sorted((ROOT / "static" / "css").glob("*.css"))}
    assert not {name: bad for name, bad in found.items() if bad}, found
    assert loose_transitions(".a { transition: all 0.2s; } .b { transition: 0.2s ease; } .c { transition: none; }"
                             " .d { transition: color 0.2s cubic-bezier(0, 0, 1, 1), all 1s; }"
                             " .e { transition: height 120ms ease, bottom 120ms ease; }") == [
        "all 0.2s", "0.2s ease", "color 0.2s cubic-bezier(0, 0, 1, 1), all 1s"]


def test_every_summary_has_a_name_before_the_script_runs():
    """A <summary> the script fills (⑦'s "the other N") still names its box in the page as shipped:
    axe's summary-name rule failed there in the moments before the widgets started."""
    empty = re.findall(r"<summary\b[^>]*>\s*</summary>", PAGE.read_text(encoding="utf-8"))
    assert not empty, empty


class LangText(HTMLParser):
    """The text a reader sees in one language: the other language's spans, scripts and styles
    dropped, each <math> replaced by a placeholder letter."""

    SKIP = {"script", "style", "title"}
    VOID = {"br", "img", "input", "meta", "link", "hr", "wbr", "source"}

    def __init__(self, lang):
        super().__init__(convert_charrefs=True)
        self.lang, self.stack, self.parts = lang, [], []

    def hidden(self):
        return any(tag in self.SKIP or tag == "math" or lang not in (None, self.lang) for tag, lang in self.stack)

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        if tag == "math" and not self.hidden():
            self.parts.append("M")
        lang = dict(attrs).get("lang")
        self.stack.append((tag, None if lang == "zh-CN" else lang))

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data):
        if not self.hidden():
            self.parts.append(data)


def lang_text(html, lang):
    parser = LangText(lang)
    parser.feed(html)
    return "".join(parser.parts)


def section_html(html, section):
    start = html.index(f'<section id="{section}"')
    return html[start:html.index("</section>", start)]


CJK = "[\u3400-\u9fff]"


FULL_WIDTH = "[，。：；？！（）、]"


def around(text, pattern):
    return [text[max(0, m.start() - 15):m.end() + 15] for m in re.finditer(pattern, text)]


def test_chinese_typesetting(rendered_page):
    """Full-width ，：；？（） between Chinese characters, no space between two Chinese characters
    or beside full-width punctuation (half-width stays inside code, numbers, math and English)."""
    zh = lang_text(rendered_page.split("<body>", 1)[1], "zh")
    assert not around(zh, f"{CJK}[,:;?()]|[,:;?()]{CJK}"), around(zh, f"{CJK}[,:;?()]|[,:;?()]{CJK}")[:10]
    assert not around(zh, f"{CJK} +{CJK}"), around(zh, f"{CJK} +{CJK}")[:10]
    assert not around(zh, f"{FULL_WIDTH} +| +{FULL_WIDTH}"), around(zh, f"{FULL_WIDTH} +| +{FULL_WIDTH}")[:10]
    title = re.search(r"<title>(.*?)</title>", rendered_page).group(1)
    title_zh = re.search(r'data-title-zh="([^"]*)"', rendered_page).group(1)
    for text in (title, title_zh):
        assert not re.search(r"[,:;?()]", text), text


def block_size():
    models = results("models")
    return models["runs"][f"main_s{models['meta']['seeds'][0]}"]["config"]["block_size"]


def test_recompute_verify_is_stated_as_one_window_per_position(rendered_page):
    """Issue 36: a recompute verify gives each checked position the block characters up to itself
    (the crop that once left the earliest draft block − γ characters is named as what went wrong),
    and the window caps γ at block − 1."""
    block = block_size()
    ledger = section_html(rendered_page, "s-ledger")
    en, zh = lang_text(ledger, "en"), lang_text(ledger, "zh")
    assert f"each is computed over the {block} characters up to itself" in en
    assert f"每个位置都用“截至它自己的最近 {block} 个字”单独算一遍" in zh
    assert "exactly</em> that of plain recompute decoding" not in en  # tags stripped: the sentence itself
    assert "exactly that of plain recompute decoding, at any length" in en and "与普通整窗重算解码精确相同，长度不限" in zh
    for text in (en, zh):
        assert f"{block} − γ" in text  # the old crop's shortfall, named
        assert f"γ > {block - 1}" in text and f"γ + 1 ≤ {block}" in text


def test_mtp_question_answered_in_one_place(rendered_page):
    """Whether the MTP loss helps the main model is answered once, by §④'s paired-seed comparison:
    §⑥ neither repeats the question nor quotes loss figures."""
    ledger = section_html(rendered_page, "s-ledger")
    assert "Does the MTP loss" not in lang_text(ledger, "en") and "MTP loss" not in lang_text(ledger, "zh")
    assert 'id="h-mtp-loss"' in section_html(rendered_page, "s-mtp")


def test_mtp_acceptance_figures_say_what_they_measure(rendered_page):
    mtp = results("mtp")
    al, sample = mtp["alpha"], mtp["sample"]
    en = lang_text(section_html(rendered_page, "s-mtp"), "en")
    readouts = lang_text(re.search(r'<div class="readouts" id="mtp-alpha-readouts">.*?\n</div>',
                                   rendered_page, re.S).group(0), "en")
    generated, on_val = readouts.split(f"{al['mtp_val']['mean']:.3f}")
    assert f"{al['mtp']['mean']:.3f}" in generated and "per-draft acceptance" in generated
    assert "Σmin(p, q)" in on_val
    for figure, definition in ((f"{100 * al['mtp']['mean']:.1f}%", "per-draft acceptance"),
                               (f"{100 * al['mtp_val']['mean']:.1f}%", "Σmin(p, q)")):
        before = en[:en.index(figure)]
        assert definition in before[-250:], (figure, before[-250:])
    assert f"{sample['accepted']} of {sample['proposed']} drafts accepted" in en  # the 240-char replay
    assert "that ledger row's per-draft acceptance" in en  # the head-to-head table


def test_header_card_losses_over_seeds(rendered_page):
    vl, seeds = results("mtp")["val_loss"], results("mtp")["seeds"]
    card = lang_text(rendered_page[:rendered_page.index('<nav class="toc"')], "en").replace("\xa0", " ")
    for key in ("main_mtp", "mtp_head", "draft"):
        assert f"{vl[key]['mean']:.4f} ± {vl[key]['std']:.4f}" in card, key
    assert f"mean ± std over {len(seeds)} seeds" in card


def test_verify_caption_true_at_the_default(rendered_page):
    default = re.search(r'id="verify-gamma"[^>]*value="(\d+)"', rendered_page).group(1)
    caption = re.search(r'<p class="caption" id="verify-caption">.*?</p>', rendered_page, re.S).group(0)
    assert f"opens at γ = {default}" in lang_text(caption, "en")
    assert f"打开时 γ = {default}" in lang_text(caption, "zh")


def test_seed_verdict_taught_with_t(rendered_page):
    verdict = results("mtp")["verdict"]
    text = lang_text(section_html(rendered_page, "s-mtp"), "en")
    assert "exceeds two standard errors" not in text and "within two standard errors" not in text
    if verdict["df"] is not None:
        assert f"{verdict['df']} degrees of freedom" in text
        assert f"critical value {verdict['t_critical']:.2f}" in text
        assert f"[{verdict['ci95'][0]:+.4f}, {verdict['ci95'][1]:+.4f}]" in text


def test_mtp_head_differs_from_deepseek_v3(rendered_page):
    mtp = section_html(rendered_page, "s-mtp")
    assert "has its own final RMSNorm" in lang_text(mtp, "en")
    assert "自己的末层 RMSNorm" in lang_text(mtp, "zh")
