"""The model: parameter counts, causality, kv-cache agreement with full forwards, rollback."""
from dataclasses import replace

import pytest
import torch

from experiments.model import DRAFT, GPT, MAIN


def expected_params(cfg):
    """Embedding (tied with the head) + per block (2 norms, qkv+o, SwiGLU) + final norm."""
    d, h = cfg.n_embd, cfg.mlp_hidden
    block = 2 * d + 4 * d * d + 3 * d * h
    return cfg.vocab_size * d + cfg.n_layer * block + d, 2 * d + 2 * d * d + block


@pytest.fixture(scope="module")
def main_model():
    torch.manual_seed(0)
    return GPT(MAIN).eval()


def test_parameter_counts(main_model):
    trunk, mtp_head = expected_params(MAIN)
    assert main_model.n_params_main() == trunk
    assert main_model.n_params(main_model.mtp) == mtp_head
    assert main_model.n_params() == trunk + mtp_head
    assert 0.73e6 < trunk < 0.75e6  # SPEC §3: ≈0.74M
    draft = GPT(DRAFT)
    assert draft.n_params() == expected_params(DRAFT)[0]
    assert 0.05 < draft.n_params() / trunk < 0.08  # ≈7% of main


def test_causal_prefix_invariance(main_model):
    idx = torch.randint(65, (1, 64), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        short, h_short = main_model(idx[:, :56])
        full, h_full = main_model(idx)
        mtp_short = main_model.mtp_forward(h_short[:, :-1], idx[:, 1:56])
        mtp_full = main_model.mtp_forward(h_full[:, :-1], idx[:, 1:])
    assert (short - full[:, :56]).abs().max().item() <= 1e-5
    assert (mtp_short - mtp_full[:, :55]).abs().max().item() <= 1e-5
    # and the later positions do depend on what comes before them
    assert (main_model(idx[:, 8:])[0][:, -1] - full[:, -1]).abs().max().item() > 1e-3


@pytest.mark.parametrize("chunks", [[64], [1] * 64, [10, 1, 9, 44], [33, 31]])
def test_kvcache_matches_full_forward(main_model, chunks):
    idx = torch.randint(65, (1, 64), generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        full, h_full = main_model(idx)
        cache, mtp_cache, pieces, mtp_pieces, at = main_model.new_cache(), main_model.new_cache(mtp=True), [], [], 0
        for size in chunks:
            logits, h = main_model(idx[:, at:at + size], cache=cache)
            pieces.append(logits)
            end = min(at + size, 63)  # MTP pairs (h_j, x_{j+1}) need j + 1 < 64
            if end > at:
                mtp_pieces.append(main_model.mtp_forward(h[:, :end - at], idx[:, at + 1:end + 1], cache=mtp_cache))
            at += size
        mtp_full = main_model.mtp_forward(h_full[:, :-1], idx[:, 1:])
    assert (torch.cat(pieces, 1) - full).abs().max().item() <= 1e-5
    assert (torch.cat(mtp_pieces, 1) - mtp_full).abs().max().item() <= 1e-5


def test_sliding_window_is_independent_of_chunking(main_model):
    """Past 64 tokens each position sees itself and the 63 before it, however tokens arrive."""
    idx = torch.randint(65, (1, 300), generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        one_by_one = torch.cat([main_model(idx[:, i:i + 1], cache=c)[0]
                                for c in [main_model.new_cache()] for i in range(300)], 1)
        cache, pieces, at = main_model.new_cache(), [], 0
        for size in [50, 9, 1, 64, 3, 60, 7, 64, 42]:
            pieces.append(main_model(idx[:, at:at + size], cache=cache)[0])
            at += size
    assert at == 300
    assert (torch.cat(pieces, 1) - one_by_one).abs().max().item() <= 1e-5
    # Each layer looks back 63 positions, so position 299 of a 4-layer model cannot see
    # position 40 (299 - 4 * 63 = 47), while position 100 can.
    changed = idx.clone()
    changed[0, 40] = (changed[0, 40] + 1) % 65
    with torch.no_grad():
        other = main_model(changed, cache=main_model.new_cache())[0]
    assert (other[:, 299] - one_by_one[:, 299]).abs().max().item() <= 1e-6
    assert (other[:, 100] - one_by_one[:, 100]).abs().max().item() > 1e-3


@pytest.mark.parametrize("prefix", [30, 100, 141])
def test_rollback_equals_rebuilt_cache(main_model, prefix):
    idx = torch.randint(65, (1, prefix + 20), generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        cache = main_model.new_cache()
        main_model(idx[:, :prefix], cache=cache)
        main_model(idx[:, prefix:prefix + 9], cache=cache)  # 9 positions "verified" ...
        cache.rollback(prefix + 2)                          # ... 2 of them kept
        rebuilt = main_model.new_cache()
        main_model(idx[:, :prefix + 2], cache=rebuilt)
        for a, b in zip(cache.snapshot(), rebuilt.snapshot()):
            assert a.shape == b.shape
            assert (a - b).abs().max().item() <= 1e-5
        nxt = idx[:, prefix + 2:prefix + 6]
        after = main_model(nxt, cache=cache)[0]
        expected = main_model(nxt, cache=rebuilt)[0]
    assert (after - expected).abs().max().item() <= 1e-5
    assert cache.length == rebuilt.length == prefix + 6


def test_rollback_refuses_forgotten_positions(main_model):
    cache = main_model.new_cache()
    with torch.no_grad():
        for _ in range(4):
            main_model(torch.zeros(1, 60, dtype=torch.long), cache=cache)
    with pytest.raises(ValueError, match="cannot roll back"):
        cache.rollback(10)
    with pytest.raises(ValueError, match="cannot roll back"):
        cache.rollback(cache.length + 1)


def test_full_forward_refuses_more_than_block_size(main_model):
    with pytest.raises(ValueError, match="block_size"):
        main_model(torch.zeros(1, 65, dtype=torch.long))


def test_mtp_head_sees_the_next_char_and_nothing_later():
    """MTP logits at position t (predicting x_{t+2}) depend on x_{t+1} but not on x_{t+2}."""
    torch.manual_seed(0)
    model = GPT(replace(MAIN, n_layer=1, n_embd=32, mlp_hidden=64)).eval()
    idx = torch.randint(65, (1, 16), generator=torch.Generator().manual_seed(5))

    def mtp_logits(ids):
        with torch.no_grad():
            return model.mtp_forward(model(ids)[1][:, :-1], ids[:, 1:])

    base, t = mtp_logits(idx), 6
    for pos, should_change in [(t + 1, True), (t + 2, False), (t + 5, False)]:
        changed = idx.clone()
        changed[0, pos] = (changed[0, pos] + 7) % 65
        diff = (mtp_logits(changed)[0, t] - base[0, t]).abs().max().item()
        assert (diff > 1e-4) == should_change, (pos, diff)


def test_losses_report_mtp_only_with_a_head():
    cfg = replace(MAIN, n_layer=1, n_embd=32, mlp_hidden=64)
    idx = torch.randint(65, (2, 16))
    assert set(GPT(cfg).losses(idx[:, :-1], idx[:, 1:])) == {"main", "mtp"}
    assert set(GPT(replace(cfg, mtp=False)).losses(idx[:, :-1], idx[:, 1:])) == {"main"}


def test_rollback_after_single_token_drafts_across_buffer_shifts(main_model):
    """The draft's pattern: γ one-token forwards, then a rollback of up to γ-1 of them, many
    times over, so buffer shifts land between a forward and its rollback."""
    gen = torch.Generator().manual_seed(6)
    tokens = torch.randint(65, (1, 600), generator=gen)
    kept = []
    with torch.no_grad():
        cache = main_model.new_cache()
        while len(kept) < 400:
            gamma = int(torch.randint(1, 9, (1,), generator=gen))
            fed = tokens[0, len(kept):len(kept) + gamma].tolist()
            for t in fed:
                main_model(torch.tensor([[t]]), cache=cache)
            n_keep = int(torch.randint(1, gamma + 1, (1,), generator=gen))
            cache.rollback(len(kept) + n_keep)
            kept += fed[:n_keep]
        probe = torch.tensor([[7]])
        after = main_model(probe, cache=cache)[0]
        rebuilt = main_model.new_cache()
        main_model(torch.tensor([kept]), cache=rebuilt)
        expected = main_model(probe, cache=rebuilt)[0]
    assert (after - expected).abs().max().item() <= 1e-5


def test_mtp_prefill_longer_than_the_window_is_chunked(main_model):
    """Issue 8, bug 3: mtp_forward takes a long prefill in window-sized chunks, as forward does;
    its logits equal pairs fed one at a time, and a cache-free forward over the last window."""
    idx = torch.randint(65, (1, 151), generator=torch.Generator().manual_seed(7))
    with torch.no_grad():
        h = main_model(idx, cache=main_model.new_cache())[1]
        chunked = main_model.mtp_forward(h[:, :-1], idx[:, 1:], cache=main_model.new_cache(mtp=True))
        one_cache = main_model.new_cache(mtp=True)
        one_by_one = torch.cat([main_model.mtp_forward(h[:, t:t + 1], idx[:, t + 1:t + 2], cache=one_cache)
                                for t in range(150)], 1)
        last_window = main_model.mtp_forward(h[:, 150 - 64:150], idx[:, 151 - 64:151])
    assert chunked.shape == (1, 150, 65)
    assert (chunked - one_by_one).abs().max().item() <= 1e-5
    assert (chunked[:, -1] - last_window[:, -1]).abs().max().item() <= 1e-5


@pytest.fixture(scope="module")
def small_model():
    """A small window (16) makes the cache compact often; float64 keeps comparisons exact."""
    torch.manual_seed(0)
    return GPT(replace(MAIN, n_layer=2, n_embd=16, n_head=2, mlp_hidden=32, block_size=16)).double().eval()


def next_logits(model, cache, probe=7):
    return model(torch.tensor([[probe]]), cache=cache)[0][0, -1]


def rebuilt_logits(model, tokens):
    cache = model.new_cache()
    for chunk in torch.tensor([tokens]).split(model.cfg.block_size, dim=1):
        model(chunk, cache=cache)
    return next_logits(model, cache)


@pytest.mark.parametrize("margin", [0, 5, 40])
def test_rollback_reaches_margin_behind_the_furthest_forward(small_model, margin):
    """KVCache's bound: rollback(n) works for any n >= (furthest start of any forward) - margin.
    Random forwards of 1..window positions, random rollbacks as far back as the bound allows."""
    gen = torch.Generator().manual_seed(margin)
    window = small_model.cfg.block_size
    cache, kept, furthest = small_model.new_cache(margin=margin), [], 0
    with torch.no_grad():
        for step in range(200):
            size = int(torch.randint(1, window + 1, (1,), generator=gen))
            fed = torch.randint(65, (size,), generator=gen).tolist()
            furthest = max(furthest, cache.length)
            small_model(torch.tensor([fed]), cache=cache)
            kept += fed
            if torch.rand(1, generator=gen) < 0.7:
                lowest = max(0, furthest - margin)
                n = int(torch.randint(lowest, cache.length + 1, (1,), generator=gen))
                cache.rollback(n)
                del kept[n:]
            if step % 50 == 49:
                assert cache.length == len(kept)
                expected = rebuilt_logits(small_model, kept)
                # probing moves the cache one position on; roll it back to where it was
                assert (next_logits(small_model, cache) - expected).abs().max().item() <= 1e-10
                cache.rollback(len(kept))


@pytest.mark.parametrize("gamma", [3, 8, 20])
def test_draft_rollbacks_need_a_margin_of_gamma_minus_2(small_model, gamma):
    """The draft's pattern in speculative_decode when every draft is rejected: γ one-position
    forwards from m - 1 to m + γ - 2, then a rollback to m. Compaction lands on the last forward
    of a round (each round's peak is one past the last), so margin γ - 2 works and γ - 3 fails."""
    def rounds(margin):
        cache = small_model.new_cache(margin=margin)
        with torch.no_grad():
            small_model(torch.zeros(1, 5, dtype=torch.long), cache=cache)  # confirmed m = 6
            for _ in range(60):  # the first compaction comes after about 2 windows
                m = cache.length + 1
                for _ in range(gamma):
                    small_model(torch.zeros(1, 1, dtype=torch.long), cache=cache)
                cache.rollback(m)
    rounds(gamma - 2)
    if gamma >= 3:
        with pytest.raises(ValueError, match="cannot roll back"):
            rounds(gamma - 3)
