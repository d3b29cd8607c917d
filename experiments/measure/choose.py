"""The one choose-and-confirm routine: every timed comparison of configurations against plain
decoding on this page goes through `choose_and_confirm` (the dial at each scale, the engines at
the model as trained, the families' sweep, the peer library on the heaviest twin).

1. choose: every candidate configuration, with its engine's plain decoder, interleaved for a few
   repeats; per engine and family the fastest by its median speedup. A family with one candidate
   on an engine skips this pass (there is nothing to choose). The pass warms its decoders up only
   where one of its engines builds graphs on a decoder's first call (BUILDING): it only chooses.
2. confirm: every engine's plain decoder and each family's chosen configuration, all interleaved
   in one run (repeat r runs every decoder with sampling seed r, after one untimed warm-up decode
   each), so every speedup is paired with its own engine's plain decoder of the same repeat.

Configurations are `methods.Spec` values; a decoder is named by (engine, spec)."""
from experiments.measure.rows import timed_row
from experiments.methods import FAMILIES, Spec, accepts, decoder, spec_of
from experiments.timing import interleaved

PLAIN = Spec("plain")
BUILDING = ("compiled", "aot")  # engines whose first decode of a configuration compiles or loads its steps


def family_candidates(models, engine, families, sweep=None):
    """[Spec]: each family's choices (Family.choices), or with `sweep` = (gammas, tree sizes) every
    chain γ and tree size of it, that the models accept on `engine` (kv-cache mode)."""
    out = []
    for name in families:
        fam = FAMILIES[name]
        if sweep is None:
            options = fam.choices()
        else:
            gammas, trees = sweep
            options = [("chain", g) for g in gammas if fam.chain] + [("tree", n) for n in trees if fam.tree]
        out += [spec for spec in (spec_of(name, shape, size) for shape, size in options)
                if accepts(spec, models, engine=engine)]
    return out


def our_decoders(models, prompt, n_chars, temperature, device):
    """build(engine, spec) -> fn(seed): our decoders, kv-cache mode."""
    return lambda engine, spec: decoder(spec, models, prompt, n_chars, temperature, "kvcache", engine, device)


def timed(build, configs, n_chars, temperature, repeats, device, scale=1, prices=None, progress=None, warmup=1):
    """Time `configs` ([(engine, spec)]) with each engine's plain decoder, interleaved; the rows of
    every configuration against that plain decoder (timed_row), plain's own rows first.
    prices: {engine: {k: r_k}} for Theorem 3.8 with the verify's price."""
    engines = list(dict.fromkeys(engine for engine, _ in configs))
    keys = [(engine, PLAIN) for engine in engines] + [c for c in configs if c[1] != PLAIN]
    runs = interleaved({key: build(*key) for key in keys}, repeats, warmup=warmup, device=device, progress=progress)
    return [timed_row(spec, engine, temperature, run, runs[engine, PLAIN], n_chars, scale,
                      (prices or {}).get(engine)) for (engine, spec), run in runs.items()]


def choose_and_confirm(build, candidates, n_chars, temperature, choose_repeats, repeats, device, scale=1,
                       prices=None, progress=None):
    """candidates: {engine: [Spec]}. Returns (confirmed rows, the choosing pass's rows): per engine
    plain and each family's fastest candidate, timed in one interleaved run."""
    contested = [(engine, spec) for engine, specs in candidates.items() for spec in specs
                 if sum(s.method == spec.method for s in specs) > 1]
    warmup = int(any(engine in BUILDING for engine, _ in contested))
    tried = timed(build, contested, n_chars, temperature, choose_repeats, device, scale, prices,
                  progress and f"{progress}: choosing", warmup) if contested else []
    fastest = {}
    for row in tried:
        key = (row["engine"], row["family"])
        if row["family"] != "plain" and (key not in fastest or row["speedup"] > fastest[key]["speedup"]):
            fastest[key] = row
    chosen = []
    for engine, specs in candidates.items():
        chosen.append((engine, PLAIN))
        for name in dict.fromkeys(spec.method for spec in specs):
            row = fastest.get((engine, name))
            chosen.append((engine, spec_of(name, row["shape"], row["size"]) if row else
                           next(s for s in specs if s.method == name)))
    rows = timed(build, chosen, n_chars, temperature, repeats, device, scale, prices,
                 progress and f"{progress}: confirming")
    return rows, [row for row in tried if row["family"] != "plain"]
