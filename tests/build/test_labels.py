"""Every family's and engine's name is declared once (experiments/methods.py FAMILIES,
experiments/engine.py ENGINES) and reaches the page through registry.json: the templates'
fname / engine_name macros and the widgets' labels.js both read it. The committed registry.json
must be what the code declares today."""
import re

import jinja2
import orjson

from experiments import peer
from experiments.data import CharData
from experiments.engine import ENGINES
from experiments.methods import FAMILIES, load_models
from tests.helpers import ROOT

REGISTRY = orjson.loads((ROOT / "experiments" / "results" / "registry.json").read_bytes())


def test_the_committed_registry_is_what_the_code_declares():
    data = CharData()
    models = load_models(ROOT / "experiments" / "checkpoints", 0, train_tokens=data.train.tolist(),
                         vocab_size=data.vocab_size)
    assert REGISTRY["families"] == [f.record(models) for f in FAMILIES.values()], \
        "run `python -m experiments.measure --only registry`"
    assert REGISTRY["engines"] == [{"name": name, "label": engine.label} for name, engine in ENGINES.items()] + [
        {"name": peer.NAME, "label": peer.LABEL, "peer": True}]  # the peer library last


def test_the_macros_name_each_family_and_engine_from_the_registry():
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(ROOT / "templates"), autoescape=True)
    env.globals["registry"] = {"families": {f["name"]: f for f in REGISTRY["families"]},
                               "engines": {e["name"]: e["label"] for e in REGISTRY["engines"]}}
    macros = env.get_template("macros.html.j2").module
    for f in REGISTRY["families"]:
        zh, en = f["label"]["zh"], f["label"]["en"]
        assert str(macros.fname(f["name"])).strip() == f'<span lang="zh">{zh}</span><span lang="en">{en}</span>'
        # after a Chinese character, a name in Latin letters gets a space in Chinese only
        spaced = str(macros.fname(f["name"], after=True)).strip()
        assert spaced.startswith(f'<span lang="zh">{" " if zh[0].isascii() else ""}{zh}<'), f["name"]
        # in one language's text: that language's name alone, no span and no spacing
        assert (str(macros.fname(f["name"], "zh")), str(macros.fname(f["name"], "en"))) == (zh, en)
    for e in REGISTRY["engines"]:
        assert e["label"]["en"] in str(macros.engine_name(e["name"]))
        assert e["label"]["en"] in str(macros.engine_name(e["name"], after=True))
        assert (str(macros.engine_name(e["name"], "zh")), str(macros.engine_name(e["name"], "en"))) == (
            e["label"]["zh"], e["label"]["en"])


def _labels():
    """Every family's and engine's name in both languages, longest first (so "EAGLE-3 drafter" is one)."""
    names = [f["label"][lang] for f in REGISTRY["families"] for lang in ("zh", "en")]
    names += [e["label"][lang] for e in REGISTRY["engines"] for lang in ("zh", "en")]
    return sorted(set(names), key=len, reverse=True)


def _js_without_comments(source):
    """A script with its /* */ and // comments blanked (newlines kept, so line numbers hold); strings,
    template literals and "https://" inside them are left alone."""
    out, i, n = [], 0, len(source)
    while i < n:
        c = source[i]
        if c in "\"'`":
            j = i + 1
            while j < n and source[j] != c:
                j += 2 if source[j] == "\\" else 1
            out.append(source[i:j + 1])
            i = j + 1
        elif source.startswith("//", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", source[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def test_no_template_or_script_types_a_family_or_engine_label():
    """The templates print a name through fname / engine_name (macros.html.j2) and the widgets through
    labels.js, never as a typed copy that would go stale when registry.json renames it."""
    found = re.compile("|".join(re.escape(label) for label in _labels()))
    sources = [(p, re.sub(r"\{#.*?#\}", lambda m: re.sub(r"[^\n]", " ", m.group(0)), p.read_text(encoding="utf-8"), flags=re.S))
               for p in sorted((ROOT / "templates").rglob("*.j2")) if p.name != "macros.html.j2"]
    sources += [(p, _js_without_comments(p.read_text(encoding="utf-8")))
                for p in sorted((ROOT / "static" / "js").glob("*.js")) if p.name != "labels.js"]
    typed = [f"{path.relative_to(ROOT)}:{n}: {m.group(0)}" for path, text in sources
             for n, line in enumerate(text.split("\n"), 1) for m in found.finditer(line)]
    assert not typed, f"{len(typed)} typed labels:\n" + "\n".join(typed)
