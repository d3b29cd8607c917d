"""Every measurement the page reads, rerun from the committed checkpoints (no training).

    python -m experiments.measure --device cpu --seeds 0       # what `make measure` runs
    python -m experiments.measure --only models

Each measurement writes one or two experiments/results/<name>.json with a `meta` block and its
conclusions in a `summary`. One module per results file; they share common.py and rows.py here,
and experiments/probes.py, stats.py, prices.py and methods.py, but never import each other.
"""
from experiments.measure import (acceptance, causal, conditions, costs, divergence, exercises, families, lab,
                                  ledger, models, mtp, regime, registry)

# name (for --only): (function(args, data, seeds, sizes) -> {results file stem: payload},
#                     which trained seeds it measures: "all" or "first")
MEASUREMENTS = {
    "registry": (registry.measure, "first"),  # the families and engines as declared, nothing timed
    "models": (models.measure, "all"),
    "causal": (causal.measure, "first"),
    "acceptance": (acceptance.measure, "first"),
    "divergence_sweep": (divergence.measure, "first"),
    "mtp": (mtp.measure, "all"),
    "costs": (costs.measure, "first"),
    "ledger": (ledger.measure, "first"),  # writes ledger.json and gamma_sweep.json
    # the answer run: the dial (heavy twins on the native engine) and, at the model as trained, every
    # engine (ladder.json) in one run; families.json takes its rows from it
    "regime": (regime.measure, "first"),
    "families": (families.measure, "all"),  # α of the learned drafters on every seed; the rest on the first
    "conditions": (conditions.measure, "first"),
    "exercises": (exercises.measure, "first"),
    "lab": (lab.measure, "first"),  # writes lab.json (the page's models) and tests/fixtures/lab_checks.json
}
