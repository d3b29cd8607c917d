"""Every family's and engine's name is declared once (experiments/methods.py FAMILIES,
experiments/engine.py ENGINES) and reaches the page through registry.json: the templates'
fname / engine_name macros and the widgets' labels.js both read it. The committed registry.json
must be what the code declares today."""
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
    for e in REGISTRY["engines"]:
        assert e["label"]["en"] in str(macros.engine_name(e["name"]))
