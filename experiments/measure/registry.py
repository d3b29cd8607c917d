"""registry.json (every section that names a family or an engine): the decoding methods as
experiments/methods.py declares them (Family.record: label and where its drafts come from in both
languages, shapes, source, q, order, whether it is one of the 2025–26 methods and whether
families.json sweeps it) with the numbers their descriptions name, read from the first seed's
models; and the engines with their labels (experiments/engine.py), the peer library last
(peer: true, experiments/peer.py). Nothing is timed: the page
reads every family's and engine's name from here, so a family registered in methods.py reaches
the page without a template or a script naming it.

Its results are declared in experiments/records/models.py: RegistryFile (registry.json).
"""
from experiments import peer
from experiments.engine import ENGINES
from experiments.measure.common import load_seed
from experiments.methods import FAMILIES


def measure(args, data, seeds, sizes):
    models = load_seed(args, data, seeds[0])
    return {"registry": {"families": [f.record(models) for f in FAMILIES.values()],
                         "engines": [{"name": name, "label": engine.label} for name, engine in ENGINES.items()]
                         + [{"name": peer.NAME, "label": peer.LABEL, "peer": True}]}}
