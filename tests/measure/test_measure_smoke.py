"""Every measurement, run end to end on tiny random models (1 layer, n_embd 16) with small
sizes, written into a temporary results folder and checked against chapter/schema.py and against
the properties each file exists to show. Unlike the tests that read the committed JSON, these
fail as soon as `experiments.measure` changes what it writes."""
import re
import statistics

import orjson
import pytest
import torch
from scipy import stats

from chapter.build import load_results, render
from chapter.schema import SCHEMA
from experiments import jsonio
from experiments.generate import main as generate
from experiments.heads import KINDS, FeatureDrafter, HeadsConfig
from experiments.jsonio import meta, read_json, write_json
from experiments.measure import MEASUREMENTS
from experiments.measure import __main__ as measure_cli
from experiments.measure.__main__ import measure, parse_args
from experiments.measure.common import CONTROL, DRAFT, MAIN_MTP, Sizes
from experiments.methods import FAMILIES, Family
from experiments.model import GPT, GPTConfig, save_checkpoint
from experiments.runners import DrafterBase
from experiments.runs import DRAFT_SNAPSHOTS, run_name
from experiments.stats import theorem_3_8

SEEDS = (0, 1, 2)
HEAD_SEEDS = (0, 1)  # seed 2 has no Medusa or EAGLE drafter: the families' α skips it
LAMBDA = 0.25  # not the chapter's 0.3: the results must carry the λ of the checkpoint
TINY = dict(vocab_size=65, n_layer=1, n_embd=16, n_head=2, mlp_hidden=32, block_size=64)
SIZES = Sizes(fresh_repeats=1, n_positions=64, draws=400, samples_per_position=2, ledger_chars=30, ledger_repeats=3, sweep_repeats=4,
              forward_calls=3, forward_warmup=1, alpha_runs=2, sample_chars=30, cost_repeats=2,
              cost_positions=(1, 4, 16, 32), family_gammas=(1, 2), family_trees=(4,),
              condition_lengths=(8, 16), condition_repeats=2,
              start_up_families=("draft",),
              exercise_draws=500, exercise_steps=3, regime_trained_repeats=3,
              regime_scales=(1, 3), regime_chars=20, regime_repeats=2, regime_bandwidth_sweep=(1, 4))


class RepeatDrafter(DrafterBase):
    """A family added here, as README's "Adding a drafter family" says: one drafter class and one
    registry record (REPEAT), and generate, families.json and the page take it in."""

    def propose(self, seq, main_length, g, temperature, generator=None):
        drafts = [seq[-1]] * g  # the last character again, g times: a one-hot q
        return torch.nn.functional.one_hot(torch.tensor(drafts), TINY["vocab_size"]).float(), drafts


REPEAT = Family("repeat", {"zh": "重复上一个字", "en": "repeat the last character"},
                {"zh": "把最后一个字再写 γ 遍", "en": "the last character, γ times over"},
                chain=True, source="context", q="one-hot", training={"zh": "无", "en": "none"},
                build=lambda *_: RepeatDrafter())


def tiny_model(seed, mtp, like=None, noise=0.0):
    """A random model with peaked next-char distributions (a scaled embedding); with `like`, a
    noisy copy of that model's trunk, so that it drafts for it with a middling acceptance rate."""
    torch.manual_seed(seed)
    model = GPT(GPTConfig(**TINY, mtp=mtp))
    with torch.no_grad():
        if like is None:
            model.tok_emb.weight.mul_(6)
        else:
            own = model.state_dict()
            for key, value in like.state_dict().items():
                if key in own:
                    own[key].copy_(value + noise * value.std().clamp(min=1e-3) * torch.randn_like(value))
    return model.eval()


def fake_log(seed, batch_size=4):
    curve = {"main": [4.2, 3.9]}
    return {"meta": meta([seed]), "config": {"batch_size": batch_size}, "final_val": {"main": 3.9},
            "wall_time_s": 1.5, "curves": {"step": [0, 2], "val": curve, "train": curve}}


def write_run(checkpoints, results, name, model, seed, mtp_weight, steps=2):
    save_checkpoint(checkpoints / f"{name}.pt", model, {"step": steps, "name": name, "seed": seed,
                                                        "mtp_weight": mtp_weight})
    write_json(results / f"train_{name}.json", fake_log(seed))


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """Tiny checkpoints for three seeds, then every measurement; returns (results dir, data)."""
    root = tmp_path_factory.mktemp("measure")
    checkpoints, results = root / "checkpoints", root / "results"
    checkpoints.mkdir()
    for seed in SEEDS:
        main = tiny_model(seed, mtp=True)
        write_run(checkpoints, results, run_name(*MAIN_MTP, seed), main, seed, LAMBDA)
        write_run(checkpoints, results, run_name(*CONTROL, seed), tiny_model(100 + seed, mtp=False), seed, 0.0)
        draft = tiny_model(200 + seed, mtp=False, like=main, noise=1.0)
        write_run(checkpoints, results, run_name(*DRAFT, seed), draft, seed, 0.0)
        if seed in HEAD_SEEDS:  # Medusa heads and the EAGLE layer, random, on these seeds' main models
            for kind in KINDS:
                torch.manual_seed(400 + seed)
                heads = FeatureDrafter(main, HeadsConfig(kind, main=run_name(*MAIN_MTP, seed)))
                with torch.no_grad():
                    for param in heads.parameters():
                        param.add_(0.1 * torch.randn_like(param))
                write_run(checkpoints, results, run_name(kind, 0.0, seed), heads, seed, 0.0)
        for i, step in enumerate(DRAFT_SNAPSHOTS):  # later snapshots sit closer to the main model
            snapshot = tiny_model(300 + i, mtp=False, like=main, noise=2.0 / (i + 1))
            save_checkpoint(checkpoints / f"{run_name(*DRAFT, seed)}_step{step}.pt", snapshot,
                            {"step": step, "seed": seed})
    # aot builds a package per model and shape (10-30 s each): test_aot.py and test_fast_engines.py cover it
    args = parse_args(["--checkpoints", str(checkpoints), "--results", str(results),
                       "--engines", "eager", "compiled", "native"])
    # the commit is read once, when the run starts: a later read would say "later"
    states = iter([{"commit": "at-start", "dirty": False}])
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(FAMILIES, "repeat", REPEAT)  # registered after import, as a new family declared in methods.py would be
        mp.setattr(measure_cli, "git_state", lambda: next(states, {"commit": "later", "dirty": True}))
        mp.setattr(jsonio, "git_state", lambda: {"commit": "later", "dirty": True})
        assert measure(args, SIZES) == 0
    return results


def test_eager_only_measure_renders_the_page(measured, tmp_path, monkeypatch):
    """`make measure ENGINE=eager` (or no C++ compiler) without the [peer] extra: no compiled rows,
    no peer rows, and the page still builds from what was measured, saying the
    compiled engine was not measured. exercises.json is rerun with the sweep it reads (the fastest kv-cache γ:
    the native lane tries γ = 1..8, eager's kv-cache lane fewer), as `make measure ENGINE=eager` runs it."""
    import shutil
    from experiments import peer
    monkeypatch.setattr(peer, "available", lambda: None)  # as on a machine without transformers
    results = tmp_path / "results"
    shutil.copytree(measured, results)
    args = parse_args(["--checkpoints", str(measured.parent / "checkpoints"), "--results", str(results),
                       "--only", "costs", "ledger", "exercises", "--engines", "eager"])
    assert measure(args, SIZES) == 0
    assert "compiled" not in read_json(results / "ledger.json")
    assert "peer" not in read_json(results / "ledger.json")
    assert list(read_json(results / "costs.json")["engines"]) == ["eager"]
    # without the native engine ③'s kv-cache sweep falls back to eager, and says so without "which ⑤–⑦ rank on"
    sweep = read_json(results / "gamma_sweep.json")
    assert sweep["engines"] == {"kvcache": "eager", "recompute": "eager"}
    assert {r["engine"] for r in sweep["rows"]} == {"eager"}
    html = render(load_results(results))
    assert "with a kv cache on the eager engine: c =" in " ".join(re.sub(r"<[^>]+>", "", html).split())
    assert 'id="ledger-mode-compiled"' not in html
    assert "Only the eager engine was measured this time." in html


def test_a_family_added_in_a_test_reaches_families_json_and_the_page(measured):
    """One drafter class and one record (REPEAT) put a family in the families' sweep and rows, in
    registry.json, and on the page with its name in both languages."""
    families, registry = read_json(measured / "families.json"), read_json(measured / "registry.json")
    assert "repeat" in families["families"]
    rows = [r for r in families["rows"] if r["family"] == "repeat"]
    assert {r["temperature"] for r in rows} == {0.0, 1.0} and all(r["tokens_per_main"] >= 1 for r in rows)
    assert [f["name"] for f in registry["families"]][-1] == "repeat"
    html = render(load_results(measured))
    row = html[html.index('<tr data-family="repeat">'):]
    assert row[:row.index("</tr>")].count('<span lang="zh">重复上一个字</span><span lang="en">repeat the last character</span>') == 1


def test_a_family_added_in_a_test_runs_through_generate(monkeypatch, capsys):
    """generate --method repeat, greedy: the main model's own text (the rule keeps it whatever the drafts)."""
    monkeypatch.setitem(FAMILIES, "repeat", REPEAT)
    texts = {}
    for method in ("plain", "repeat"):
        assert generate(["--method", method, "--n", "40", "--temperature", "0", *(["--gamma", "3"] if method != "plain" else [])]) == 0
        texts[method] = orjson.loads(capsys.readouterr().out)["text"]
    assert texts["repeat"] == texts["plain"]


def test_every_file_matches_the_schema(measured):
    data = load_results(measured)  # raises BuildError naming the first missing or mistyped field
    assert set(data) == {name.removesuffix(".json") for name in SCHEMA}
    written = {p.name for p in measured.glob("*.json")} - {p.name for p in measured.glob("train_*.json")}
    assert written == set(SCHEMA)


def test_meta_records_the_seeds_each_file_used(measured):
    for name, (_, which) in MEASUREMENTS.items():
        for stem in ("ledger", "gamma_sweep") if name == "ledger" else (name,):
            m = read_json(measured / f"{stem}.json")["meta"]
            assert m["seeds"] == (list(SEEDS) if which == "all" else [SEEDS[0]]), stem
            assert (m["git_commit"], m["git_dirty"]) == ("at-start", False), stem
            assert m["command"] == jsonio.invocation(), stem  # this process, however pytest started it


def test_lambda_comes_from_the_checkpoint(measured):
    assert read_json(measured / "mtp.json")["lambda"] == LAMBDA
    runs = read_json(measured / "models.json")["runs"]
    assert {name: run["mtp_weight"] for name, run in runs.items() if run["kind"] != "draft"} == {
        **{run_name(*MAIN_MTP, s): LAMBDA for s in SEEDS}, **{run_name(*CONTROL, s): 0.0 for s in SEEDS}}


def test_acceptance_counts_and_distances(measured):
    out = read_json(measured / "acceptance.json")
    for pos in out["positions"]:
        p, q = torch.tensor(pos["p"], dtype=torch.float64), torch.tensor(pos["q"], dtype=torch.float64)
        assert sum(pos["counts"]) == out["draws"] == SIZES.draws
        assert pos["alpha_theory"] == pytest.approx(1 - 0.5 * float((p - q).abs().sum()), abs=1e-12)
        assert pos["tv_out_p"] == pytest.approx(0.5 * float((torch.tensor(pos["counts"]) / out["draws"] - p).abs().sum()))


def test_divergence_sweep_alpha_is_one_minus_tv(measured):
    out = read_json(measured / "divergence_sweep.json")
    assert [s["step"] for s in out["snapshots"]] == list(DRAFT_SNAPSHOTS)
    assert out["max_abs_alpha_minus_one_minus_tv"] < 1e-9
    for s in out["snapshots"]:
        assert s["alpha_mean"] == pytest.approx(1 - s["tv_mean"], abs=1e-9)
        assert s["n_samples"] == SIZES.n_positions * SIZES.samples_per_position


def test_causal_checks_hold_on_a_tiny_model(measured):
    out = read_json(measured / "causal.json")
    assert out["prefix_check"]["max_abs_diff_float64"] < 1e-9
    assert out["kvcache_check"]["max_abs_diff_float64"] < 1e-9
    assert out["rollback"]["equal"] and 2 <= out["verify_example"]["n_accepted"] <= 6


def test_ledger_parts_are_measured_inside_the_median_run(measured):
    ledger = read_json(measured / "ledger.json")
    for row in ledger["rows"] + ledger["compiled"]["rows"]:
        parts, wall = row["parts_s"], row["wall_s_runs"]
        assert min(parts.values()) >= 0
        assert sum(parts.values()) == pytest.approx(wall[row["parts_repeat"]], rel=1e-9)
        assert wall[row["parts_repeat"]] == statistics.median(wall)  # odd repeats: the median run
        assert (parts["draft_forwards"] == 0) == (row["method"] == "plain")
        assert row["forward_time_s"] == pytest.approx(parts["main_forwards"] + parts["draft_forwards"])
        assert row["overhead_s"] == parts["other"]
        assert sum(row["parts_share"].values()) == pytest.approx(1)


def test_greedy_identity_holds_on_a_tiny_model(measured):
    checks = read_json(measured / "ledger.json")["greedy_check"]
    assert len(checks) == 2 * 7 and all(c["equal"] for c in checks)
    summary = read_json(measured / "ledger.json")["summary"]
    assert summary["greedy_equal"] == summary["greedy_checks"] == len(checks)
    assert all(c["chars_compared"] == read_json(measured / "ledger.json")["n_chars"] for c in checks)


def test_compiled_engine_rows(measured):
    ledger = read_json(measured / "ledger.json")
    assert ledger["engines"] == ["eager", "compiled"]
    compiled = ledger["compiled"]
    rows = compiled["rows"]
    assert {r["engine"] for r in rows} == {"compiled"} and {r["mode"] for r in rows} == {"kvcache"}
    assert [(r["method"], r["gamma"]) for r in rows] == [(r["method"], r["gamma"]) for r in ledger["rows"]
                                                         if r["mode"] == "kvcache"]
    plain = next(r for r in rows if r["method"] == "plain")
    for row in rows:  # every speedup is against compiled plain decoding
        assert row["speedup"] == pytest.approx(statistics.median(plain["wall_s_runs"]) / row["wall_s"]["median"])
    assert all(c["equal"] for c in compiled["greedy_check"]) and len(compiled["greedy_check"]) == 7
    c_round = compiled["forward_costs"]["c_round"]
    for row in rows:  # a compiled draft round is one call: the theorem prices a draft by its round
        if row["method"] == "draft":
            assert row["c_used"] == c_round[str(row["gamma"])]


def test_families_rows_alpha_and_seeds(measured):
    fam = read_json(measured / "families.json")
    assert fam["model_seed"] == SEEDS[0] and fam["meta"]["seeds"] == list(SEEDS)
    # α on every seed with trained heads (and only those), the first seed's equal to the main α
    assert sorted(fam["alpha_by_seed"]) == [str(s) for s in HEAD_SEEDS]
    assert fam["alpha_by_seed"][str(SEEDS[0])] == fam["alpha"]["T1"]
    for kind in ("medusa", "eagle"):
        assert sorted(fam["costs"][kind]["by_seed"]) == [str(s) for s in HEAD_SEEDS]
    for by_drafter in [*fam["alpha"].values(), *fam["alpha_by_seed"].values()]:
        assert all(v["alpha"] is None or 0 <= v["alpha"] <= 1 for v in by_drafter.values())
    # α by chain position for every head, and one drafting price per head, engine and γ
    assert {len(v) for v in fam["alpha_by_depth"]["T1"].values()} == {fam["alpha_by_depth"]["depth"], 3}  # Medusa: 3 heads
    assert sorted(fam["drafting_prices"]) == sorted(fam["engines"])
    for by_family in fam["drafting_prices"].values():
        assert sorted(by_family) == sorted(KINDS)  # families.drafting_families: every kind drafts the sweep's γ ≤ 2
        assert all(sorted(map(int, v)) == list(SIZES.family_gammas) and min(v.values()) > 0 for v in by_family.values())
    # the rows and the sweep are the answer run's at the model as trained (regime.json's first point),
    # on its engine: one row per family and temperature, and the same rows the dial holds
    regime = read_json(measured / "regime.json")
    first = regime["points"][0]
    assert fam["engines"] == [regime["engine"]] and fam["n_chars"] == regime["n_chars"]
    lanes = {(r["engine"], r["temperature"]) for r in fam["sweep"]}
    assert lanes == {(e, t) for e in fam["engines"] for t in fam["temperatures"]}
    for engine, temperature in lanes:
        key = f"T{temperature:g}"
        lane = [r for r in fam["rows"] if r["engine"] == engine and r["temperature"] == temperature]
        assert sorted(r["family"] for r in lane) == sorted(["plain", *fam["families"]])
        assert all(r["greedy_equal"] for r in lane if temperature == 0)
        strip = lambda r: {k: v for k, v in r.items() if k not in ("run", "s_per_char")}
        assert [strip(r) for r in lane] == [strip(first["plain"][key])] + first["best"][key]
        # the sweep: every chain γ and tree size the choosing pass tried, and the rest once
        swept = {(r["family"], r["shape"], r["size"]) for r in fam["sweep"] if r["temperature"] == temperature}
        assert {("ngram", "chain", g) for g in SIZES.family_gammas} | {("ngram", "tree", n) for n in SIZES.family_trees} <= swept
        assert {r["family"] for r in fam["sweep"] if r["temperature"] == temperature} == set(fam["families"])
    assert all(r["run"] == "regime" for r in fam["rows"])


def test_costs_per_engine(measured):
    costs = read_json(measured / "costs.json")
    assert costs["positions"] == [1, 4, 16, 32] and set(costs["engines"]) == {"eager", "compiled", "native"}
    for engine in costs["engines"].values():
        assert engine["over_main"]["1"] == 1 and engine["c"] > 0 and engine["c_mtp"] > 0
        for n, spread in engine["spread"]["positions"].items():
            assert spread["min"] <= engine["seconds"]["positions"][n] <= spread["max"]
            assert spread["n"] == SIZES.cost_repeats
            paired = engine["over_main_spread"][n]  # ratios paired repeat by repeat
            assert paired["min"] <= engine["over_main"][n] <= paired["max"] and paired["n"] == SIZES.cost_repeats


def test_gamma_sweeps_kv_cache_rows_run_on_the_answer_engine(measured):
    """③'s kv-cache rows are the native lane of the ledger's kv-cache run (plain and γ = 1..γmax),
    priced by that lane's own c; its recompute rows are the eager ledger's."""
    sweep, ledger = read_json(measured / "gamma_sweep.json"), read_json(measured / "ledger.json")
    assert sweep["engines"] == {"kvcache": "native", "recompute": "eager"}
    assert ledger["engines"] == ["eager", "compiled"]  # the ledger itself keeps its engines
    kv = [r for r in sweep["rows"] if r["mode"] == "kvcache"]
    assert {r["engine"] for r in kv} == {"native"} and [r["gamma"] for r in kv] == list(range(1, sweep["gamma_max"] + 1))
    rc = [r for r in sweep["rows"] if r["mode"] == "recompute"]
    eager = [r for r in ledger["rows"] if r["method"] == "draft" and r["mode"] == "recompute"]
    assert [(r["gamma"], r["speedup"], r["alpha"]) for r in rc] == [(r["gamma"], r["speedup"], r["alpha"]) for r in eager]
    assert sweep["c"] == {m: sweep["lane_costs"][m]["c"] for m in ("kvcache", "recompute")}
    assert sweep["lane_costs"]["recompute"] == sweep["forward_costs"]["recompute"] == ledger["forward_costs"]["recompute"]
    assert sweep["c"]["kvcache"] != ledger["forward_costs"]["kvcache"]["c"]  # the native price, not the eager one
    for r in kv:  # Theorem 3.8 of each row at its own α and the lane's c
        assert r["speedup_theory"] == pytest.approx(theorem_3_8(r["alpha"], r["gamma"], sweep["c"]["kvcache"]))
    assert sweep["summary"]["fastest"]["kvcache"]["gamma"] == max(kv, key=lambda r: r["speedup"])["gamma"]
    # the native lane runs on its own with more repeats; the recompute lane keeps the ledger's
    assert {r["repeats"] for r in kv} == {SIZES.sweep_repeats} and {r["repeats"] for r in rc} == {SIZES.ledger_repeats}


def test_burst_verdict_follows_the_pooled_test(measured):
    sweep = read_json(measured / "gamma_sweep.json")
    for mode, pooled in sweep["burst_pooled"].items():
        rows = [r for r in sweep["rows"] if r["mode"] == mode and r["gamma"] > 1]
        assert pooled["rows"] == len(rows) and pooled["dof"] == sum(r["gamma"] - 1 for r in rows)
        assert pooled["ends"]["zero"]["observed"] == sum(r["run_lengths"][0] for r in rows)
        assert pooled["ends"]["full"]["observed"] == sum(r["run_lengths"][-1] for r in rows)
        high = all(e["observed"] > e["expected"] for e in pooled["ends"].values())
        want = "geometric" if pooled["p"] >= pooled["level"] else "both_ends_high" if high else "differs"
        assert pooled["verdict"] == want


def test_mtp_verdict_is_scipys_paired_t_test(measured):
    mtp = read_json(measured / "mtp.json")
    v = mtp["verdict"]
    with_mtp, control = mtp["val_loss"]["main_mtp"]["values"], mtp["val_loss"]["control"]["values"]
    want = stats.ttest_rel(with_mtp, control)
    assert v["t"] == pytest.approx(want.statistic) and v["p"] == pytest.approx(want.pvalue)
    assert v["df"] == len(SEEDS) - 1 and v["t_critical"] == pytest.approx(4.303, abs=1e-3)
    lo, hi = v["ci95"]
    assert lo < v["mean_difference"] < hi
    assert v["beyond_seed_noise"] == (not lo <= 0 <= hi) == (abs(v["t"]) > v["t_critical"])
    assert mtp["summary"]["alpha_order_flips"] == (mtp["summary"]["mtp_ahead_generated"] != mtp["summary"]["mtp_ahead_val"])
    assert len(mtp["sample"]["text"]) == SIZES.sample_chars


def test_conditions_cover_every_temperature_length_and_family(measured):
    cond = read_json(measured / "conditions.json")
    families = list(cond["configs"])
    assert [row["temperature"] for row in cond["by_temperature"]] == cond["temperatures"]
    for row in cond["by_temperature"]:
        assert row["texts"] == (1 if row["temperature"] == 0 else len(cond["text_seeds"]))  # greedy: one text
        assert sorted(row["tokens_per_main"]) == sorted(families)
        assert all(1 <= v <= 1 + cond["configs"][f]["size"] for f, s in row["tokens_per_main"].items()
                   for v in s["values"])
    assert sorted(cond["by_text"]) == sorted(cond["text_kinds"])
    assert {r["engine"] for r in cond["by_length"] + cond["start_up"]} == {cond["engine"]}  # one engine, the dial's
    assert cond["engine"] == read_json(measured / "regime.json")["engine"]
    for n in cond["lengths"]:
        lane = {r["family"]: r for r in cond["by_length"] if r["n_chars"] == n}
        assert sorted(lane) == sorted(["plain", *families]) and lane["plain"]["speedup"] == 1
    assert [r["family"] for r in cond["start_up"]] == ["plain", "draft"]  # plain and the families the sizes name


def test_one_alpha_per_condition_across_families_and_conditions(measured):
    """⑤'s family map and ⑦'s tables print the teacher-forced α of the same drafter, at the same
    temperature, on the main model's own texts: measured on the same texts and pooled the same way,
    it is one value, bit for bit (T = 0 is one greedy text in both)."""
    fam, cond = read_json(measured / "families.json"), read_json(measured / "conditions.json")
    assert cond["text_seeds"] == fam["alpha_seeds"]
    by_t = {row["temperature"]: row for row in cond["by_temperature"]}
    checked = 0
    for key, t in (("T1", 1.0), ("T0", 0.0)):
        for name, a in fam["alpha"][key].items():
            assert by_t[t]["alpha"][name]["mean"] == a["alpha"], (key, name)
            assert cond["by_text"]["own"][key]["drafters"][name]["alpha"] == a["alpha"], (key, name)
            single = by_t[t]["alpha"][name]["values"]
            if single:  # pooled over the texts: between the lowest and the highest single text
                assert min(single) - 1e-12 <= a["alpha"] <= max(single) + 1e-12
            checked += 1
    assert checked >= 8


def test_the_repetitive_text_repeats_itself():
    """The kinds of text conditions.py measures on: the speaker lines give prompt lookup far more
    matches than Shakespeare's speeches; every text starts where it says."""
    from experiments.data import CharData
    from experiments.measure.conditions import speaker_lines, speeches
    from experiments.ngram import PromptLookup
    data = CharData()
    lookup = PromptLookup(3, data.vocab_size)
    coverage = lambda text: statistics.mean(bool(lookup.continuation(text[:t], 1)) for t in range(9, len(text)))
    lines, texts = speaker_lines(data, 600), speeches(data, 600, 3)
    assert len(lines) == 600 and all(len(t) == 600 for t in texts)
    assert all(line.endswith(":") for line in data.decode(lines).split("\n")[:-1])
    assert coverage(lines) > 0.8 > 0.4 > max(coverage(t) for t in texts)


def test_ladder_pairs_every_rung_with_its_own_plain_and_the_compiled_plain(measured):
    """ladder.json: per temperature, each engine's plain and each family's fastest candidate, all timed
    in one interleaved run (the answer run's first point), so the speedups over the rung's own plain
    and over the compiled engine's plain are medians of ratios paired repeat by repeat; the native
    rung's rows are the dial's first point's; the summary quotes those rungs."""
    ladder, regime = read_json(measured / "ladder.json"), read_json(measured / "regime.json")
    assert ladder["engines"] == ["eager", "compiled", "native"] and ladder["reference"] == "compiled"
    pair = lambda a, b: statistics.median(x / y for x, y in zip(a["wall_s_runs"], b["wall_s_runs"]))
    for key, rungs in ladder["rungs"].items():
        assert [r["engine"] for r in rungs] == ladder["engines"]
        ref_plain = next(r for r in rungs if r["engine"] == "compiled")["plain"]
        for r in rungs:
            plain, best = r["plain"], r["best"]
            fastest = max(r["rows"], key=lambda row: row["speedup"])
            assert plain["family"] == "plain" and {k: best[k] for k in fastest} == fastest
            assert len(best["wall_s_runs"]) == len(plain["wall_s_runs"]) == SIZES.regime_trained_repeats
            assert best["speedup_runs"]["median"] == pytest.approx(pair(plain, best))
            assert best["over_reference"]["median"] == pytest.approx(pair(ref_plain, best))
            assert plain["over_reference"]["median"] == pytest.approx(pair(ref_plain, plain))
            assert r["verify_price"]["1"] == 1
        native = next(r for r in rungs if r["engine"] == "native")
        assert native["rows"] == regime["points"][0]["best"][key]  # the same rows, not a second run
        s = ladder["summary"][key]
        last, ref = rungs[-1], rungs[1]
        assert s["overhead_gain"] == last["plain"]["chars_per_s"] / ref["plain"]["chars_per_s"]
        assert s["best_over_reference"] == last["best"]["chars_per_s"] / ref["plain"]["chars_per_s"]
        assert s["speculation_gain"] == ref["best"]["speedup"]
        assert s["overhead_beats_speculation"] == (s["overhead_gain"] > s["speculation_gain"])
        assert s["verify_prices"] == {r["engine"]: r["verify_price"][str(s["verify_at"])] for r in rungs}
        parts = lambda row: {"verify": row["verify_over_main"], "drafting": row["drafter_per_round"],
                             "other": row["other_per_round"]}
        assert (s["round_ref"], s["round_last"]) == (parts(ref["best"]), parts(last["best"]))
        assert s["grew_most"][0] == max(s["round_ref"], key=lambda p: s["round_last"][p] - s["round_ref"][p])
        assert (s["fastest_ref"]["family"], s["fastest_last"]["size"]) == (ref["best"]["family"], last["best"]["size"])
    fresh = ladder["fresh_check"]  # the last rung's fastest chain at T = 0 of a declared family, in fresh processes
    chains = [r for r in ladder["rungs"]["T0"][-1]["rows"] if r["shape"] == "chain" and r["family"] != "repeat"]
    row = max(chains, key=lambda r: r["speedup"])
    assert (fresh["engine"], fresh["temperature"], fresh["family"], fresh["size"]) == ("native", 0.0, row["family"], row["size"])
    assert fresh["harness_speedup"] == row["speedup"] and len(fresh["fresh_walls"]) == SIZES.fresh_repeats
    assert fresh["agrees"] == (abs(fresh["fresh_speedup"] / fresh["harness_speedup"] - 1) <= fresh["tolerance"])


def test_the_dial_scales_every_network_and_prices_it_on_the_native_engine(measured):
    regime = read_json(measured / "regime.json")
    points = regime["points"]
    assert [p["scale"] for p in points] == list(SIZES.regime_scales) and regime["engine"] == "native"
    light, heavy = points
    assert heavy["main_bytes"] / light["main_bytes"] == pytest.approx(3, rel=0.02)
    for kind, size in light["drafter_bytes"].items():  # each drafter keeps its weight ratio to the main model
        assert heavy["drafter_bytes"][kind] / size == pytest.approx(3, rel=0.03), kind
    for point in points:
        assert set(point["r"]) == {str(k) for k in range(1, 10)} and point["r"]["1"] == 1
        for key in ("T1", "T0"):
            rows = point["best"][key]
            assert len({r["family"] for r in rows}) == len(rows) > 5  # one row per family
            assert [r["speedup"] for r in rows] == sorted((r["speedup"] for r in rows), reverse=True)
            for r in rows:
                if "theory" in r:
                    assert r["theory"]["verify_price"] == point["r"][str(r["size"] + 1)]
    for key in ("T1", "T0"):  # the choosing pass: the answer engine's contested candidates, one repeat each
        assert all(r["engine"] == "native" and r["repeats"] == SIZES.regime_choose_repeats for r in heavy["choose"][key])
        assert {(r["family"], r["size"]) for r in heavy["choose"][key]} >= {("ngram", 3), ("ngram", 5), ("ngram", 8)}
        assert heavy["plain"][key]["family"] == "plain" and heavy["plain"][key]["engine"] == "native"
    # the heaviest scale, T = 1: our eager engine in the same run (transformers where the [peer] extra is installed)
    peers = heavy["peers"]
    assert {r["engine"] for r in peers["rows"]} >= {"eager"} and set(peers["eager_r"]) == set(heavy["r"])
    assert {r["family"] for r in peers["rows"] if r["engine"] == "eager"} == {"plain", "draft", "mtp", "ngram"}
    assert all(len(r["wall_s_runs"]) == SIZES.regime_repeats for r in peers["rows"])
    summary = regime["summary"]
    assert summary["heaviest"]["scale"] == 3
    assert summary["T1"]["fastest"]["family"] == heavy["best"]["T1"][0]["family"]
    assert regime["roofline"]["cache_edge_mb"] in SIZES.regime_bandwidth_sweep
