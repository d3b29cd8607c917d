"""The one choose-and-confirm routine (experiments/measure/choose.py) and the one timed row
(rows.timed_row), on fake decoders whose wall times are given: no clock, no model."""
import io

import pytest

from experiments import peer
from experiments.measure import choose
from experiments.measure.rows import timed_row
from experiments.methods import Spec, spec_of
from experiments.progress import Progress, clock_text
from experiments.speculative import Result

N_CHARS = 120


def result(spec, seconds):
    """What one decode of `spec` reports: plain decoding one character per forward; a chain of γ
    three characters per forward, two drafts accepted a round; 80% of the time in the main model."""
    forwards = N_CHARS if spec.method == "plain" else N_CHARS // 3
    proposed = 0 if spec.method == "plain" else forwards * spec.size
    return Result([0] * N_CHARS, forwards, draft_forwards=proposed, proposed=proposed, accepted=2 * forwards,
                  rejected=forwards, main_forward_s=0.8 * seconds, draft_forward_s=0.1 * seconds if proposed else 0.0)


def fake_interleaved(walls, calls):
    """timing.interleaved with the wall time of each (engine, spec) given by walls(engine, spec, repeat)."""
    def interleaved(methods, repeats, warmup=1, device="cpu", progress=None):
        calls.append({"keys": list(methods), "repeats": repeats, "warmup": warmup})
        return {key: {"wall_s": [walls(*key, r) for r in range(repeats)],
                      "results": [result(key[1], walls(*key, r)) for r in range(repeats)]} for key in methods}
    return interleaved


def recording_build(warmed):
    """build(engine, spec, n_chars) whose decoders note each call (the warm-ups: the timed calls go
    to the fake interleaved, which only reads the keys)."""
    return lambda engine, spec, n: (lambda seed: warmed.append((engine, spec, n)))


def test_each_family_gets_its_fastest_candidate_and_every_row_its_own_plain(monkeypatch):
    # native: n-gram γ = 5 is fastest (0.4 s), the draft model has one candidate (not chosen among);
    # eager is slower throughout, and its plain is its own baseline
    base = {"native": 1.0, "eager": 2.0}
    cost = {("ngram", 3): 0.6, ("ngram", 5): 0.4, ("ngram", 8): 0.5, ("draft", 4): 0.7}
    walls = lambda engine, spec, r: base[engine] * (1.0 if spec.method == "plain" else cost[spec.method, spec.size]) * (1 + 0.01 * r)
    calls, warmed = [], []
    monkeypatch.setattr(choose, "interleaved", fake_interleaved(walls, calls))
    candidates = {"native": [Spec("ngram", 3), Spec("ngram", 5), Spec("ngram", 8), Spec("draft", 4)],
                  "eager": [Spec("ngram", 3), Spec("ngram", 8)]}
    rows, tried = choose.choose_and_confirm(recording_build(warmed), candidates, N_CHARS, 1.0, 1, 3, "cpu",
                                            choose_chars=N_CHARS // 2)
    # the choosing pass: only the contested configurations (and each engine's plain), no warm-up on these engines
    assert {key for key in calls[0]["keys"]} == {("native", choose.PLAIN), ("eager", choose.PLAIN),
                                                 *((e, s) for e, specs in candidates.items() for s in specs if s.method == "ngram")}
    assert calls[0]["warmup"] == 0 and calls[1]["warmup"] == 0 and calls[1]["repeats"] == 3
    assert {(r["engine"], r["family"], r["size"]) for r in tried} == {
        ("native", "ngram", 3), ("native", "ngram", 5), ("native", "ngram", 8), ("eager", "ngram", 3), ("eager", "ngram", 8)}
    # the confirming run: one short warm-up decode of every decoder it times, and nothing else
    assert sorted(warmed, key=str) == sorted(((*key, choose.WARMUP_CHARS) for key in calls[1]["keys"]), key=str)
    confirmed = {(r["engine"], r["family"]): r for r in rows}
    assert set(confirmed) == {("native", "plain"), ("native", "ngram"), ("native", "draft"), ("eager", "plain"), ("eager", "ngram")}
    assert confirmed["native", "ngram"]["size"] == 5 and confirmed["eager", "ngram"]["size"] == 8
    assert confirmed["native", "ngram"]["speedup"] == pytest.approx(1 / 0.4)
    assert confirmed["eager", "ngram"]["speedup"] == pytest.approx(1 / 0.5)  # over eager's own plain, not native's
    assert confirmed["native", "ngram"]["verdict"] == "faster" and confirmed["native", "plain"]["verdict"] == "unclear"
    # the choosing pass's rows count the characters of its own length (the fake decodes report N_CHARS // 3 forwards)
    assert {r["tokens_per_main"] for r in tried} == {(N_CHARS // 2) / (N_CHARS // 3)}


def test_an_engine_that_builds_graphs_is_warmed_up_on_the_whole_length_before_it_is_chosen_among(monkeypatch):
    calls, warmed = [], []
    monkeypatch.setattr(choose, "interleaved", fake_interleaved(lambda e, s, r: 1.0, calls))
    candidates = {"compiled": [Spec("ngram", 3), Spec("ngram", 5)], "native": [Spec("ngram", 3), Spec("ngram", 5)]}
    choose.choose_and_confirm(recording_build(warmed), candidates, N_CHARS, 1.0, 1, 3, "cpu", choose_chars=N_CHARS // 2)
    chose = [w for w in warmed[:3]]
    assert chose == [("compiled", choose.PLAIN, N_CHARS // 2), ("compiled", Spec("ngram", 3), N_CHARS // 2),
                     ("compiled", Spec("ngram", 5), N_CHARS // 2)]  # native's candidates: not warmed to be chosen among
    confirming = warmed[3:]
    assert {(e, n) for e, _, n in confirming} == {("compiled", N_CHARS), ("native", choose.WARMUP_CHARS)}


def test_a_rounds_parts_and_plains_cost_per_character_give_its_speedup():
    """tokens_per_main × plain_per_char / round_total is the ratio of the two median repeats' walls."""
    spec = Spec("ngram", 5)
    walls, plain_walls = [0.50, 0.40, 0.45], [1.10, 1.00, 1.20]
    run = {"wall_s": walls, "results": [result(spec, w) for w in walls]}
    plain = {"wall_s": plain_walls, "results": [result(Spec("plain"), w) for w in plain_walls]}
    row = timed_row(spec, "native", 1.0, run, plain, N_CHARS, scale=4, r={6: 1.2})
    assert row["speedup"] == pytest.approx(1.10 / 0.45)
    assert row["speedup_from_parts"] == pytest.approx(row["speedup"])
    assert row["plain_per_char"] == pytest.approx(1 / 0.8)  # plain's rest is a fifth of its wall: 1 + 0.25
    assert row["round_total"] == pytest.approx(row["verify_over_main"] + row["drafter_per_round"] + row["other_per_round"])
    assert (row["family"], row["shape"], row["size"], row["scale"]) == ("ngram", "chain", 5, 4)
    assert row["theory"]["verify_price"] == 1.2 and row["speedup_runs"]["min"] == pytest.approx(1.10 / 0.50)


def test_a_configuration_has_one_name_and_one_parser():
    for spec in (Spec("ngram", 4), Spec("lookahead", tree=16), Spec("plain")):
        assert spec_of(spec.method, spec.shape or "chain", spec.size) == spec
    assert [str(s) for s in (Spec("plain"), Spec("ngram", 4), Spec("eagle", tree=16))] == ["plain", "ngram γ=4", "eagle tree=16"]


def test_the_peer_runs_only_what_generate_offers():
    assert set(peer.GENERATE_METHOD) == {"plain", "draft", "lookup"}
    with pytest.raises(ValueError, match="no counterpart of medusa"):
        peer.decoder(Spec("medusa", 3), (None, None, None), [0], 10)


def test_progress_lines_say_what_is_done_spent_and_left():
    now = iter([0.0, 10.0, 20.0, 45.0, 60.0])
    out = io.StringIO()
    bar = Progress("scale 4", 4, every=15.0, stream=out, clock=lambda: next(now))
    for _ in range(4):
        bar.step()
    assert out.getvalue().splitlines() == ["  [scale 4] 2/4, 20 s spent, about 20 s left",
                                           "  [scale 4] 3/4, 45 s spent, about 15 s left",
                                           "  [scale 4] 4/4, 1 min 00 s spent, about 0 s left"]
    silent = Progress(None, 4, stream=out, clock=lambda: 0.0)
    silent.step()
    assert out.getvalue().count("\n") == 3
    assert [clock_text(s) for s in (5, 185, 3725)] == ["5 s", "3 min 05 s", "1 h 02 min"]
