"""What the templates rely on across fields, beyond each field's kind (chapter/schema.py): a key that
one field names in another, the runs a seed names, a greedy check that says where it differs.
build.py load_results checks them after the schema; each broken fact is a ResultsError naming the
results file and field. (A summary's quoted row is checked where it is looked up: views.restore_runs.)"""
from chapter.schema import ResultsError

RUN_KINDS = ("main", "control", "draft")  # the runs the page reads for a seed it describes


def require(holds, message):
    if not holds:
        raise ResultsError(message)


def check_runs(data):
    """The model seeds the page looks models.json's runs up by ("main_s%d" % seed) have those runs."""
    runs = data["models"]["runs"]
    named = [("models.json", "meta.seeds.0", data["models"]["meta"]["seeds"][0]),
             ("mtp.json", "seeds.0", data["mtp"]["seeds"][0]), ("lab.json", "model_seed", data["lab"]["model_seed"])]
    for filename, field, seed in named:
        for kind in RUN_KINDS:
            require(f"{kind}_s{seed}" in runs,
                    f"{filename}: field '{field}' is seed {seed}, but models.json has no run '{kind}_s{seed}'")


def check_greedy(checks, where):
    """A greedy check names the first character that differs (first_mismatch) exactly when its texts differ."""
    for i, check in enumerate(checks):
        mismatch = check.get("first_mismatch")
        require((mismatch is None) == check["equal"],
                f"ledger.json: field '{where}.{i}.equal' is {str(check['equal']).lower()}, but its first_mismatch is "
                f"{'null' if mismatch is None else mismatch}: null exactly when the texts are equal")


def check_ledger(ledger):
    gamma_max = str(ledger["gamma_max"])
    for mode, costs in ledger["forward_costs"].items():
        require(gamma_max in costs["verify_over_main"], f"ledger.json: field 'gamma_max' is {gamma_max}, but "
                f"'forward_costs.{mode}.verify_over_main' has no price for that many drafts")
    check_greedy(ledger["greedy_check"], "greedy_check")
    check_greedy(ledger.get("compiled", {}).get("greedy_check", []), "compiled.greedy_check")


def check_ladder(ladder):
    """Rungs and summary are keyed by the temperatures the ladder lists (T1 | T0)."""
    for i, temperature in enumerate(ladder["temperatures"]):
        key = f"T{temperature:g}"
        require(key in ladder["rungs"] and key in ladder["summary"],
                f"ladder.json: field 'temperatures.{i}' is {temperature}, but its rungs or summary have no {key}")


def check_exercises(data):
    """Exercise 2 prints the verdict of the γ sweep's kv-cache row its measured γ names."""
    gamma = data["exercises"]["gamma"]["measured"]["measured_gamma"]
    require(any(r["mode"] == "kvcache" and r["gamma"] == gamma for r in data["gamma_sweep"]["rows"]),
            f"exercises.json: field 'gamma.measured.measured_gamma' is {gamma}, which gamma_sweep.json's kv-cache rows lack")


def check_costs(costs):
    """Every engine has a price r_k for every position listed, and the primary engine is measured."""
    for engine, measured in costs["engines"].items():
        for k in costs["positions"]:
            require(str(k) in measured["over_main"],
                    f"costs.json: field 'engines.{engine}.over_main' has no price for {k} positions (field 'positions')")
    primary = costs["summary"]["primary_engine"]
    require(primary in costs["engines"], f"costs.json: field 'summary.primary_engine' is {primary!r}, which 'engines' lacks")


def check_facts(data):
    """Every fact above, on the loaded results (build.py load_results)."""
    check_runs(data)
    check_ledger(data["ledger"])
    check_ladder(data["ladder"])
    check_exercises(data)
    check_costs(data["costs"])
