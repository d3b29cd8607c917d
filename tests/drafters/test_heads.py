"""Medusa heads, the EAGLE drafter and the block drafter (experiments/heads.py): what they compute, that training
them leaves the main model alone, that decoding with them keeps the main model's output (their law
at T = 1: tests/drafters/test_law.py), and what a drafter records of its main model."""
import pytest
import torch

from experiments.data import CharData
from experiments.heads import KINDS, FeatureDrafter, HeadsConfig, load_drafter
from experiments.methods import Models, Spec, decode
from experiments.model import GPT, GPTConfig, fingerprint, load_checkpoint, save_checkpoint
from experiments.speculative import plain_decode
from experiments.train import train
from tests.helpers import CHECKPOINTS, FlakyData, Interrupted


def tiny_main(seed=0, n_embd=32):
    torch.manual_seed(seed)
    return GPT(GPTConfig(n_layer=1, n_embd=n_embd, n_head=2, mlp_hidden=48, block_size=16, mtp=True)).eval()


def train_tiny_drafter(root, kind, main, steps=30, data=None, **kw):
    return train(None, f"{kind}_tiny", 0.0, steps, 8, 0, 3e-3, eval_batches=2, data=data or CharData(),
                 checkpoint_dir=root, results_dir=root, log_every=1000,
                 build=lambda: FeatureDrafter(main, HeadsConfig(kind, main="tiny", block_size=16)), **kw)


def test_medusa_heads_start_as_the_next_token_head():
    main = tiny_main()
    drafter = FeatureDrafter(main, HeadsConfig("medusa", main="tiny"))
    x = torch.randint(0, 65, (2, 16))
    with torch.no_grad():
        logits, h = main(x)
        heads = drafter.medusa_logits(h)
    assert heads.shape == (2, 16, 3, 65)
    for k in range(3):  # zero-initialized residual blocks: z + SiLU(0) = z
        torch.testing.assert_close(heads[:, :, k], logits)


def test_eagle_drafter_reads_features_and_next_token_like_the_mtp_head():
    """With the MTP head's weights, the EAGLE drafter computes exactly what the MTP head does."""
    main = tiny_main()
    drafter = FeatureDrafter(main, HeadsConfig("eagle", main="tiny"))
    drafter.net.load_state_dict(main.mtp.state_dict())
    x = torch.randint(0, 65, (1, 16))
    with torch.no_grad():
        _, h = main(x)
        torch.testing.assert_close(main.head(main.mtp_features(h[:, :-1], x[:, 1:], head=drafter.net)),
                                   main.mtp_forward(h[:, :-1], x[:, 1:]))


def test_the_block_drafts_in_one_call_and_its_first_drafts_ignore_the_masks_after_them():
    main = tiny_main()
    drafter = FeatureDrafter(main, HeadsConfig("block", main="tiny"))
    x = torch.randint(0, 65, (1, 16))
    with torch.no_grad():
        _, h = main(x)
        all_masks = drafter.block_logits(h[0], x[0], 8)
        for g in (1, 3):  # causal: output i sees the anchor and the masks before it only
            torch.testing.assert_close(drafter.block_logits(h[0], x[0], g), all_masks[:, :g])
        # the anchor reads the pending token: another next char changes every draft
        other = drafter.block_logits(h[0], (x[0] + 1) % 65, 8)
    assert not torch.allclose(other, all_masks)
    assert all_masks.shape == (16, 8, 65)


def test_training_time_test_sees_what_the_drafter_sees_when_it_drafts():
    """EAGLE-3's step j at anchor a equals the drafter run as it drafts: the real pairs up to a
    through its cache, then its own output fed back j - 1 times (with the true next characters)."""
    main = tiny_main()
    drafter = FeatureDrafter(main, HeadsConfig("eagle3", main="tiny", ttt_steps=3))
    torch.nn.init.normal_(drafter.net.fuse.weight, std=0.1)
    x = torch.randint(0, 65, (1, 16))
    with torch.no_grad():
        layers = drafter.main_features(x)
        steps = drafter.test_time_features(layers, x)
        for a in (0, 5, 11):
            cache = main.new_cache(mtp=True)
            feature = main.mtp_features(drafter.net.read(layers[:, :a + 1]), x[:, 1:a + 2], cache, drafter.net)[:, -1:]
            torch.testing.assert_close(feature[0, 0], steps[0][0, a])
            for j in (2, 3):
                feature = main.mtp_features(feature, x[:, a + j:a + j + 1], cache, drafter.net)
                torch.testing.assert_close(feature[0, 0], steps[j - 1][0, a])


@pytest.mark.parametrize("kind", KINDS)
def test_training_moves_the_drafter_and_not_the_main_model(tmp_path, kind):
    main = tiny_main()
    before = {k: v.clone() for k, v in main.state_dict().items()}
    result = train_tiny_drafter(tmp_path, kind, main, eval_interval=30)
    for k, v in main.state_dict().items():
        assert torch.equal(v, before[k]), f"the main model's {k} changed"
    val = result["curves"]["val"]
    first_loss = next(iter(val))  # the kind's first loss (its first head, step or position; EAGLE's regression)
    assert val[first_loss][-1] < val[first_loss][0]
    saved = torch.load(tmp_path / f"{kind}_tiny.pt", weights_only=True)
    assert saved["config"]["kind"] == kind
    assert not any(k.startswith("main") for k in saved["model"])  # only the drafter is stored


GREEDY = [("medusa", 3, "eager"), ("medusa", 2, "compiled"), ("eagle", 4, "eager"), ("eagle", 3, "compiled"),
          ("block", 6, "eager"), ("block", 3, "compiled"), ("eagle3", 4, "eager"), ("eagle3", 3, "compiled")]


@pytest.mark.parametrize("kind,gamma,engine", GREEDY)
def test_greedy_equals_plain_greedy(models64, drafters, plain_greedy, kind, gamma, engine):
    prompt, plain = plain_greedy
    with torch.inference_mode():
        result = decode(Spec(kind, gamma), Models(models64[0], heads=drafters), prompt, 300, temperature=0, engine=engine)
    assert result.tokens == plain
    assert result.main_forwards + result.accepted == 300
    assert result.accepted > 0.2 * result.proposed  # trained: an untrained drafter accepts about 1%


def test_eagle_chain_greedy_in_recompute_mode_within_the_window(models64, drafters):
    prompt = CharData().encode("ROMEO:\n")
    n = 64 - len(prompt) - 4
    with torch.inference_mode():
        plain = plain_decode(models64[0], prompt, n, temperature=0, mode="recompute").tokens
        result = decode(Spec("eagle", 4), Models(models64[0], heads=drafters), prompt, n, temperature=0, mode="recompute")
    assert result.tokens == plain


def test_medusa_gamma_is_at_most_its_heads_and_the_block_s_at_most_its_masks(models64, drafters):
    with pytest.raises(ValueError, match="at most 3 for medusa: one draft per head"):
        decode(Spec("medusa", 4), Models(models64[0], heads=drafters), [0, 1], 10)
    with pytest.raises(ValueError, match="at most 8 for block: one draft per mask position"):
        decode(Spec("block", 9), Models(models64[0], heads=drafters), [0, 1], 10)


@pytest.mark.parametrize("kind", KINDS)
def test_a_resumed_drafter_run_equals_an_uninterrupted_one(tmp_path, kind):
    """Issue 18, item 20: EAGLE's feature noise has its own generator, kept in the resume state."""
    main, data = tiny_main(), CharData()
    straight = train_tiny_drafter(tmp_path / "a", kind, main, eval_interval=10)
    with pytest.raises(Interrupted):
        train_tiny_drafter(tmp_path / "b", kind, main, data=FlakyData(data, fail_after=25), eval_interval=10)
    resumed = train_tiny_drafter(tmp_path / "b", kind, main, eval_interval=10)
    assert resumed["curves"]["val"] == straight["curves"]["val"]
    a, b = (torch.load(root / f"{kind}_tiny.pt", weights_only=True)["model"] for root in (tmp_path / "a", tmp_path / "b"))
    assert all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def tiny_eagle(tmp_path_factory):
    """A drafter trained on tiny.pt, saved beside it, and that main model as loaded from there."""
    root = tmp_path_factory.mktemp("tiny_eagle")
    save_checkpoint(root / "tiny.pt", tiny_main())
    main = load_checkpoint(root / "tiny.pt")[0]
    train_tiny_drafter(root, "eagle", main, steps=5, eval_interval=5)
    return root / "eagle_tiny.pt", main


def test_a_drafter_records_and_loads_on_its_main_model(tiny_eagle):
    path, main = tiny_eagle
    for given in (None, main, main.double()):  # None: the main checkpoint it names, beside it
        _, payload = load_drafter(path, main=given)
    assert payload["trained_on"] == {"checkpoint": "tiny.pt", "fingerprint": fingerprint(main)}


def test_a_truncated_drafter_is_one_line(tiny_eagle, tmp_path):
    path, main = tiny_eagle
    whole, cut = path.read_bytes(), tmp_path / "cut.pt"
    for twentieths in range(1, 20):  # torch.load fails with a RuntimeError or an OSError, by where it is cut
        cut.write_bytes(whole[:len(whole) * twentieths // 20])
        with pytest.raises(ValueError, match="is not a drafter checkpoint"):
            load_drafter(cut, main=main)


def test_a_drafter_refuses_another_main_model(tiny_eagle, tmp_path):
    """Issue 18, item 17: same shapes, other weights (another seed's main model)."""
    path, _ = tiny_eagle
    save_checkpoint(tmp_path / "other.pt", tiny_main(seed=1))
    with pytest.raises(ValueError) as refused:
        load_drafter(path, main=load_checkpoint(tmp_path / "other.pt")[0])
    message = str(refused.value)
    assert len(message.splitlines()) == 1 and str(path) in message and str(tmp_path / "other.pt") in message
    assert "trained on tiny.pt" in message


def test_a_drafter_without_a_record_loads_unchecked_but_not_on_another_shape(tiny_eagle, tmp_path):
    """Drafters saved before `trained_on` existed still load; a shape mismatch is one line."""
    path, main = tiny_eagle
    payload = torch.load(path, weights_only=True)
    del payload["trained_on"]
    old = tmp_path / "eagle_old.pt"
    torch.save(payload, old)
    load_drafter(old, main=tiny_main(seed=1))
    save_checkpoint(tmp_path / "wide.pt", tiny_main(n_embd=16))
    with pytest.raises(ValueError) as refused:
        load_drafter(old, main=load_checkpoint(tmp_path / "wide.pt")[0])
    message = str(refused.value)
    assert len(message.splitlines()) == 1 and str(old) in message and str(tmp_path / "wide.pt") in message


@pytest.mark.parametrize("kind,seed", [(kind, seed) for kind in ("medusa", "eagle") for seed in (0, 1, 2)]
                         + [("block", 0), ("eagle3", 0)])  # the newer two are trained for seed 0
def test_the_committed_drafters_record_their_main_model(kind, seed):
    _, payload = load_drafter(CHECKPOINTS / f"{kind}_s{seed}.pt")  # checks the record against main_s<seed>.pt
    assert payload["trained_on"]["checkpoint"] == f"main_s{seed}.pt"
