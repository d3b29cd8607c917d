"""Issue 49's sentence targets on the main path (deep dives and FAQs closed; tables, widgets, code and
math are not prose): English sentences average at most 22 words and none runs over 45; no Chinese
sentence runs over 80 characters."""
from tools.prose import EN_MAX, ZH_MAX, sentences, size


def test_the_splitter_keeps_decimals_and_splits_paragraphs():
    html = ('<body><p lang="en">It is 1.32× here. Then r₅ falls.</p><p lang="en">A new one</p>'
            '<p lang="zh">这是 1.32 倍。然后下降！</p><table><tr><td lang="en">Not prose. At all.</td></tr></table></body>')
    assert sentences(html, "en") == {"header": ["It is 1.32× here.", "Then r₅ falls.", "A new one"]}
    assert sentences(html, "zh") == {"header": ["这是 1.32 倍。", "然后下降！"]}
    assert size("这是 1.32 倍。", "zh") == 8 and size("It is 1.32× here.", "en") == 4


def test_main_path_sentences_are_short(rendered_page):
    en = [s for found in sentences(rendered_page, "en").values() for s in found]
    zh = [s for found in sentences(rendered_page, "zh").values() for s in found]
    long_en = [s for s in en if size(s, "en") > EN_MAX]
    long_zh = [s for s in zh if size(s, "zh") > ZH_MAX]
    mean = sum(size(s, "en") for s in en) / len(en)
    assert mean <= 22, mean
    assert not long_en, "\n".join(long_en)
    assert not long_zh, "\n".join(long_zh)
