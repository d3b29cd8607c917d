"""The one choose-and-confirm routine: every timed comparison of configurations against plain
decoding on this page goes through `choose_and_confirm` (the dial at each scale, the engines at
the model as trained, the families' sweep, the peer library on the heaviest twin).

1. choose: every candidate configuration, with its engine's plain decoder, interleaved for a few
   repeats of `choose_chars` characters; per engine and family the fastest by its median speedup.
   A family with one candidate on an engine skips this pass (there is nothing to choose). The pass
   warms up only the decoders of an engine that builds graphs on a decoder's first call (BUILDING):
   it only ranks.
2. confirm: every engine's plain decoder and each family's chosen configuration, all interleaved
   in one run of `n_chars` characters (repeat r runs every decoder with sampling seed r, after one
   untimed warm-up decode each), so every speedup is paired with its own engine's plain decoder of
   the same repeat. A warm-up decode is WARMUP_CHARS long (the first call's allocations and the
   weights' first reads), except on a BUILDING engine, where it decodes the whole length so that
   every graph the timed runs call is built before them.

Configurations are `methods.Spec` values; a decoder is named by (engine, spec)."""
from experiments.measure.rows import timed_row
from experiments.methods import FAMILIES, Spec, accepts, decoder, spec_of
from experiments.timing import interleaved

PLAIN = Spec("plain")
BUILDING = ("compiled", "aot")  # engines whose first decode of a configuration compiles or loads its steps
WARMUP_CHARS = 16


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


def our_decoders(models, prompt, temperature, device):
    """build(engine, spec, n_chars) -> fn(seed): our decoders, kv-cache mode."""
    return lambda engine, spec, n_chars: decoder(spec, models, prompt, n_chars, temperature, "kvcache", engine, device)


def warm_up(build, keys, n_chars, building_only=False):
    """One untimed decode of each configuration (engine, spec): WARMUP_CHARS characters, or the
    whole n_chars on an engine that builds graphs on its first call; with building_only, only those."""
    for engine, spec in keys:
        if engine in BUILDING or not building_only:
            build(engine, spec, n_chars if engine in BUILDING else min(n_chars, WARMUP_CHARS))(10_000)


def timed(build, configs, n_chars, temperature, repeats, device, scale=1, prices=None, progress=None,
          building_only=False):
    """Time `configs` ([(engine, spec)]) with each engine's plain decoder, interleaved after their
    warm-ups (warm_up); the rows of every configuration against that plain decoder (timed_row),
    plain's own rows first. prices: {engine: {k: r_k}} for Theorem 3.8 with the verify's price."""
    engines = list(dict.fromkeys(engine for engine, _ in configs))
    keys = [(engine, PLAIN) for engine in engines] + [c for c in configs if c[1] != PLAIN]
    warm_up(build, keys, n_chars, building_only)
    runs = interleaved({key: build(*key, n_chars) for key in keys}, repeats, warmup=0, device=device,
                       progress=progress)
    return [timed_row(spec, engine, temperature, run, runs[engine, PLAIN], n_chars, scale,
                      (prices or {}).get(engine)) for (engine, spec), run in runs.items()]


def choose_and_confirm(build, candidates, n_chars, temperature, choose_repeats, repeats, device, scale=1,
                       prices=None, progress=None, choose_chars=None):
    """candidates: {engine: [Spec]}. Returns (confirmed rows, the choosing pass's rows): per engine
    plain and each family's fastest candidate, timed in one interleaved run of n_chars characters
    (the choosing pass decodes choose_chars, n_chars where None)."""
    contested = [(engine, spec) for engine, specs in candidates.items() for spec in specs
                 if sum(s.method == spec.method for s in specs) > 1]
    tried = timed(build, contested, choose_chars or n_chars, temperature, choose_repeats, device, scale, prices,
                  progress and f"{progress}: choosing", building_only=True) if contested else []
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
