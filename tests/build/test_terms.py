"""Issue 49, finding 8: every term of the chapter's jargon is defined or linked where a reader first meets
it on the main path (every deep dive and FAQ closed; titles, the contents and scripts aside). "Linked"
means the first use sits inside a link to where the term is defined; "defined" means it sits inside a
<dfn>, the sentence that defines it."""
import re

from tools.prose import main_path

# term: (English pattern, Chinese pattern, the places that define it)
TERMS = {
    "eager engine": (r"\beager engine", r"eager ?引擎", {"#g-engines"}),
    "compiled engine": (r"\bcompiled engine", r"编译引擎", {"#g-engines"}),
    "AOT engine": (r"\bAOT engine", r"AOT ?引擎", {"#g-engines"}),
    "native engine": (r"native C\+\+ engine", r"原生 ?C\+\+ ?引擎", {"#g-engines"}),
    "heavy twin": (r"heavy twin", r"加重版", {"#g-twin"}),
    "dial": (r"\bdial\b", r"表盘", {"#h-dial", "#g-dial"}),
    "family": (r"\bfamil(y|ies)\b", r"(五|几|哪|每|各)(类|种)草稿", {"#g-family", "#h-families"}),
    "paired repeat": (r"paired repeat", r"成对测量", {"#rule-verdict", "#g-verdict"}),
    "Theorem 3.8": (r"Theorem 3\.8", r"定理 ?3\.8", {"#g-theorem"}),
    "token tree": (r"token tree|tree of drafts", r"token ?树|草稿树", {"#g-tree", "#deep-trees"}),
    "harness": (r"\bharness\b", r"测量框架", {"#g-harness"}),
    "n-gram table": (r"n-gram table", r"n-gram ?表", {"#g-ngram"}),
    "longest match": (r"longest match", r"最长匹配", {"#g-ngram"}),
    "plain forward": (r"plain forwards?\b", r"普通 ?forward", {"#g-plain-forward"}),
    "dispatch": (r"\bdispatch", r"调度开销", {"#g-dispatch"}),
    "one-hot": (r"one-hot", r"独热", {"#g-one-hot"}),
    "teacher-forced": (r"teacher-forced", r"teacher forcing", {"#g-alpha-tf"}),
}


def first_uses(html, lang):
    """{term: (the first use in context, the link or dfn around it, or None)} on the main path."""
    parser = main_path(html, lang)
    text = "".join(parser.text)
    found = {}
    for term, (en, zh, _) in TERMS.items():
        hit = re.search(en if lang == "en" else zh, text, re.I if lang == "en" else 0)
        if hit:
            context = re.sub(r"\s+", " ", text[max(0, hit.start() - 40):hit.end() + 20])
            found[term] = (context, parser.marks[hit.start()])
    return found


def test_the_checker_sees_links_dfns_and_only_the_main_path():
    html = ('<body><p lang="en">A <a href="#g-twin">heavy twin</a>, then a heavy twin.</p>'
            '<details><summary>x</summary><p lang="en">the dial</p></details>'
            '<p lang="en">Each <dfn>paired repeat</dfn> and the dial.</p><p lang="zh">表盘</p></body>')
    en = first_uses(html, "en")
    assert en["heavy twin"][1] == "#g-twin"
    assert en["paired repeat"][1] == "dfn"
    assert en["dial"][1] is None and "Each" in en["dial"][0]  # the closed deep dive's use is not the first
    assert first_uses(html, "zh")["dial"][1] is None


def test_every_term_is_defined_or_linked_at_its_first_use(rendered_page):
    wrong = {}
    for lang in ("en", "zh"):
        uses = first_uses(rendered_page, lang)
        for term, (context, mark) in uses.items():
            if mark != "dfn" and mark not in TERMS[term][2]:
                wrong[f"{lang} {term}"] = f"…{context}… ({mark or 'plain'})"
    assert not wrong, "\n".join(f"{k}: {v}" for k, v in wrong.items())


def test_every_link_target_exists(rendered_page):
    ids = set(re.findall(r'\bid="([^"]+)"', rendered_page))
    for term, (_, _, targets) in TERMS.items():
        assert any(t[1:] in ids for t in targets), (term, targets)
