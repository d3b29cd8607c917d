"""The family names are written twice, once per language layer: labels.js FAMILY_LABEL for the
widgets and the fname macro for the templates. They must say the same thing."""
import re
from pathlib import Path

import jinja2

ROOT = Path(__file__).resolve().parent.parent


def family_label_js():
    source = (ROOT / "static" / "js" / "labels.js").read_text(encoding="utf-8")
    body = re.search(r"export const FAMILY_LABEL = \{(.*?)\n\};", source, re.S).group(1)
    return {key: (zh, en) for key, zh, en in re.findall(r'(\w+): \{ zh: "([^"]*)", en: "([^"]*)" \}', body)}


def test_the_templates_and_the_widgets_name_every_family_alike():
    labels = family_label_js()
    assert set(labels) >= {"plain", "draft", "mtp", "ngram", "lookup", "medusa", "eagle", "lookahead"}
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(ROOT / "templates"), autoescape=True)
    fname = env.get_template("macros.html.j2").module.fname
    for family, (zh, en) in labels.items():
        assert str(fname(family)).strip() == f'<span lang="zh">{zh}</span><span lang="en">{en}</span>', family
