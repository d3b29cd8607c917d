"""The page's main path as a reader meets it: the text of one language with every deep dive and FAQ
closed, with the link or <dfn> around each character, and its sentences by section.

    python -m tools.prose [PAGE] [-v]   # sentence lengths per section; -v lists the over-long ones

Issue 49's targets read from here: English sentences ≤ 22 words on average and none over 45; Chinese
sentences counted in characters (no spaces). Headings, the contents, summaries, widgets and math are not
where a reader first meets a term (TERM_SKIP); tables, code and those are not prose (SENTENCE_SKIP)."""
import re
import sys
from html.parser import HTMLParser

from chapter.build import OUT

VOID = {"br", "img", "input", "meta", "link", "hr", "wbr", "source"}
BLOCK = {"p", "li", "div", "h1", "h2", "h3", "h4", "td", "th", "dd", "dt", "section", "aside", "header", "br",
         "ol", "ul", "figcaption", "caption"}
# never the main path, or not text a reader reads as prose
TERM_SKIP = {"script", "style", "title", "summary", "nav", "math", "svg", "button", "select", "label", "details",
             "h1", "h2", "h3", "h4"}
SENTENCE_SKIP = TERM_SKIP | {"table", "code", "pre"}
EN_MAX, ZH_MAX = 45, 80


class MainPath(HTMLParser):
    """One language's main-path text; `marks[i]` is the href of the link around character i, "dfn" inside a
    <dfn>, else None; `sections[i]` the id of the top-level section or aside it sits in ("header" before)."""

    def __init__(self, lang, skip=TERM_SKIP):
        super().__init__(convert_charrefs=True)
        self.lang, self.skip, self.stack = lang, skip, []
        self.text, self.marks, self.sections, self.section = [], [], [], "header"

    def visible(self):
        langs = [a["lang"] for _, a in self.stack if a.get("lang") and a["lang"] != "zh-CN"]
        return not any(tag in self.skip or "hidden" in a or "widget" in (a.get("class") or "").split()
                       for tag, a in self.stack) and all(lang == self.lang for lang in langs)

    def add(self, data, mark=None):
        self.text.append(data)
        self.marks.extend([mark] * len(data))
        self.sections.extend([self.section] * len(data))

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("section", "aside") and not any(t in ("section", "aside") for t, _ in self.stack):
            self.section = attrs.get("id") or attrs.get("class") or tag
        if tag in BLOCK:
            self.add("\n")
        if tag not in VOID:
            self.stack.append((tag, attrs))

    def handle_endtag(self, tag):
        if tag in BLOCK:
            self.add("\n")
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data):
        if self.visible():
            mark = next((("dfn" if t == "dfn" else a.get("href")) for t, a in reversed(self.stack)
                         if t == "dfn" or (t == "a" and a.get("href"))), None)
            self.add(data.replace("\n", " "), mark)


def main_path(html, lang, skip=TERM_SKIP):
    parser = MainPath(lang, skip)
    parser.feed(html.split("<body", 1)[1])
    return parser


def size(sentence, lang):
    """Words in English, characters (no spaces) in Chinese."""
    return len(sentence.split()) if lang == "en" else len(re.sub(r"\s", "", sentence))


def sentences(html, lang):
    """{section: [sentence]} on the main path, tables, widgets, code and math left out."""
    parser = main_path(html, lang, SENTENCE_SKIP)
    by_section = {}
    for char, section in zip("".join(parser.text), parser.sections):
        by_section.setdefault(section, []).append(char)
    out = {}
    for section, chars in by_section.items():
        for para in "".join(chars).split("\n"):
            para = re.sub(r"\s+", " ", para).strip()
            split = (re.split(r"(?<=[.?!])\s+(?=[A-Z①-⑧(“\"])", para) if lang == "en"
                     else re.split(r"(?<=[。？！])", para))
            out.setdefault(section, []).extend(s.strip() for s in split if len(s.strip()) > 1)
    return {section: found for section, found in out.items() if found}


def main(argv):
    page = next((a for a in argv if not a.startswith("-")), str(OUT))
    html = open(page, encoding="utf-8").read()
    for lang, limit in (("en", EN_MAX), ("zh", ZH_MAX)):
        every = []
        for section, found in sentences(html, lang).items():
            sizes = [size(s, lang) for s in found]
            every += sizes
            print(f"{lang} {section:14s} {len(sizes):3d} sentences, mean {sum(sizes) / len(sizes):5.1f}, "
                  f"max {max(sizes):3d}, over {limit}: {sum(n > limit for n in sizes)}")
            if "-v" in argv:
                print("".join(f"    [{n}] {s}\n" for s, n in zip(found, sizes) if n > limit), end="")
        print(f"{lang} all {len(every)} sentences, mean {sum(every) / len(every):.1f}, max {max(every)}, "
              f"over {limit}: {sum(n > limit for n in every)}")


if __name__ == "__main__":
    main(sys.argv[1:])
