"""Where each section's logic lives and how to regenerate its numbers.

One table, read by the build (templates/macros.html.j2 `code_trail` renders it at the end of every
section) and by tests/test_code_trail.py, which checks that every file and function named here
exists and that every command parses. A name `Class.method` points at a method.
"""

MEASURE = "python -m experiments.measure --only"

CODE_TRAIL = {
    "s-verify": {
        "code": [("experiments/model.py", "GPT.forward"),
                 ("experiments/model.py", "KVCache.rollback"),
                 ("experiments/measure/causal.py", "verify_example"),
                 ("experiments/measure/causal.py", "rollback_check"),
                 ("experiments/graphs.py", "StaticCache"),
                 ("experiments/prices.py", "forward_prices"),
                 ("static/js/verify_grid.js", "draftStatus"),
                 ("static/js/verify_cost.js", "roofline")],
        "commands": [f"{MEASURE} causal costs"],
    },
    "s-accept": {
        "code": [("experiments/rule.py", "accept_reject"),
                 ("experiments/rule.py", "residual"),
                 ("experiments/measure/acceptance.py", "measure"),
                 ("experiments/measure/divergence.py", "measure"),
                 ("experiments/stats.py", "alpha"),
                 ("static/js/rule.js", "acceptReject")],
        "commands": [f"{MEASURE} acceptance divergence_sweep"],
    },
    "s-gamma": {
        "code": [("experiments/stats.py", "expected_tokens"),
                 ("experiments/stats.py", "theorem_3_8"),
                 ("experiments/stats.py", "pooled_burst_check"),
                 ("experiments/measure/ledger.py", "forward_costs"),
                 ("static/js/theory.js", "optimalGamma"),
                 ("static/js/bursts.js", "burstVerdict")],
        "commands": [f"{MEASURE} ledger"],  # ledger also writes gamma_sweep.json
    },
    "s-mtp": {
        "code": [("experiments/model.py", "MTPHead"),
                 ("experiments/model.py", "GPT.mtp_forward"),
                 ("experiments/model.py", "GPT.losses"),
                 ("experiments/runners.py", "MTPDrafter.propose"),
                 ("experiments/measure/mtp.py", "measure"),
                 ("experiments/stats.py", "paired_t_test"),
                 ("static/js/mtp_trace.js", "stepView")],
        "commands": [f"{MEASURE} models mtp"],
    },
    "s-families": {
        "code": [("experiments/ngram.py", "NgramTable"),
                 ("experiments/ngram.py", "PromptLookup"),
                 ("experiments/heads.py", "MedusaHeads"),
                 ("experiments/heads.py", "FeatureDrafter.losses"),
                 ("experiments/methods.py", "drafter"),
                 ("experiments/lookahead.py", "Lookahead"),
                 ("experiments/trees.py", "best_first"),
                 ("experiments/trees.py", "tree_accept"),
                 ("experiments/speculative.py", "tree_decode"),
                 ("experiments/measure/families.py", "measure"),
                 ("static/js/token_tree.js", "maskRow")],
        "commands": ["python -m experiments.train --model medusa --seed 0",
                     "python -m experiments.train --model eagle --seed 0", f"{MEASURE} families"],
    },
    "s-choosing": {
        "code": [("experiments/measure/conditions.py", "by_temperature"),
                 ("experiments/measure/conditions.py", "by_text"),
                 ("experiments/measure/conditions.py", "start_up"),
                 ("experiments/probes.py", "alpha_along"),
                 ("experiments/exercises/chi2.py", "chi2_check"),
                 ("experiments/exercises/gamma.py", "best_gamma"),
                 ("experiments/exercises/medusa_head.py", "train_head"),
                 ("experiments/exercises/check_rollback.py", "check_rollback")],
        "commands": [f"{MEASURE} conditions exercises", "python -m experiments.exercises rollback"],
    },
    "s-lab": {
        "code": [("experiments/measure/lab.py", "measure"),
                 ("static/js/lab_model.js", "loadLab"),
                 ("static/js/lab_decode.js", "newDecoder"),
                 ("static/js/lab_decode.js", "verifyCostRatio"),
                 ("static/js/lab_decode.js", "drafterCost"),
                 ("static/js/rule.js", "acceptReject"),
                 ("static/js/lab_race.js", "raceResult"),
                 ("static/js/lab.js", "initLab")],
        "commands": [f"{MEASURE} lab"],
    },
    "s-ledger": {
        "code": [("experiments/speculative.py", "speculative_decode"),
                 ("experiments/methods.py", "decode"),
                 ("experiments/speculative.py", "plain_decode"),
                 ("experiments/measure/ledger.py", "ledger_row"),
                 ("experiments/measure/ledger.py", "greedy_checks"),
                 ("experiments/measure/ladder.py", "measure"),
                 ("experiments/measure/ladder.py", "summarize"),
                 ("experiments/engine.py", "CompiledRunner"),
                 ("experiments/timing.py", "interleaved"),
                 ("static/js/ledger.js", "ledgerVerdict"),
                 ("static/js/ladder.js", "ladderGroups")],
        "commands": [f"{MEASURE} ledger", f"{MEASURE} ladder"],
    },
    "s-closing": {
        "code": [("build/build.py", "render"),
                 ("build/code_trail.py", "CODE_TRAIL")],
        "commands": ["make site"],
    },
}
