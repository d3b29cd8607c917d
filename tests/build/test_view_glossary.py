"""chapter/views/glossary.py: the window the glossary's execution modes quote, and the row its speedup entry
quotes twice (the ratio of medians, the median of the paired ratios)."""
from chapter.views.glossary import context_window, speedup_example, view


def models(seeds, sizes):
    return {"models": {"meta": {"seeds": seeds},
                       "runs": {f"main_s{s}": {"config": {"block_size": n}} for s, n in zip(seeds, sizes)}}}


def families(fastest):
    def row(family, engine, temperature, median):
        return {"family": family, "engine": engine, "temperature": temperature, "speedup": 1.5,
                "speedup_runs": {"median": median}}
    return {"families": {"summary": {"fastest": {"T1": {"family": fastest}}, "primary_engine": "native"},
                         "rows": [row("ngram", "eager", 1.0, 9.0), row("ngram", "native", 0.0, 8.0),
                                  row("draft", "native", 1.0, 1.4), row("ngram", "native", 1.0, 1.6)]}}


def test_the_window_is_the_first_seeds_main_model():
    assert context_window(models([2, 0], [64, 128])) == 64
    assert view(models([0, 2], [128, 64]) | families("draft"))["window"] == 128


def test_the_speedup_example_is_the_fastest_row_on_the_primary_engine_at_T1():
    ex = speedup_example(families("ngram"))
    assert (ex["row"]["family"], ex["row"]["engine"], ex["row"]["temperature"]) == ("ngram", "native", 1.0)
    assert ex["median_of_ratios"] == 1.6 and ex["row"]["speedup"] == 1.5
