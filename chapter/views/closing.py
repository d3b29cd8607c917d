"""The closing section: the measured figures its quiz questions quote (the ledger's MTP row, ⑦'s
start-up and shortest output, the draft model's α by temperature), and question 10's options."""
from chapter.views.choosing import length_row, plain_start_up
from chapter.views.glossary import context_window


def ledger_row(ledger, method, mode):
    """The ledger's first row of a method in an execution mode."""
    return next(r for r in ledger["rows"] if r["method"] == method and r["mode"] == mode)


def temperature_options(conditions):
    """Question 10's options, one per measured temperature in ⑦'s order: (is it the answer, the zh
    label, the en label); the answer is the temperature of the draft model's lowest α. The labels
    are the option texts the quiz macro prints, so they are written here, as ⑦'s headers are."""
    lowest = conditions["summary"]["temperature"]["lowest_alpha"]["temperature"]
    return [(row["temperature"] == lowest, "T = %g" % row["temperature"], "T = %g" % row["temperature"])
            for row in conditions["by_temperature"]]


def view(data):
    """What the closing section (sections/closing.html.j2) prints, computed here so that the template only formats it."""
    ledger, co = data["ledger"], data["conditions"]
    temperature = co["summary"]["temperature"]
    shortest = co["summary"]["lengths"]["shortest"]
    mtp = ledger_row(ledger, "mtp", "kvcache")
    return {"window": context_window(data),
            "verify_1_over_main": ledger["forward_costs"]["kvcache"]["verify_over_main"]["1"],  # a γ = 1 verify
            "n_chars": ledger["n_chars"], "mtp_main_forwards": mtp["main_forwards"], "mtp_speedup": mtp["speedup"],
            "engine": co["engine"], "start_up_s": plain_start_up(co)["start_up_s"],
            "shortest": shortest, "shortest_plain_ms": 1000 * length_row(co, shortest, "plain")["wall_s"]["median"],
            "ngram_table_s": co["preparation"]["ngram_table_s"],
            "lowest_alpha": temperature["lowest_alpha"], "other_alpha": temperature["other_alpha"],
            "lowest_is_greedy": temperature["lowest_alpha"]["temperature"] == 0,
            "temperature_options": temperature_options(co)}
