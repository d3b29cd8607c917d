"""A trained drafter added as README's "Adding a drafter family" says: one FeatureDrafter subclass
registered in heads.KINDS (its network, loss and probes) and one Family record. Nothing else is
edited: `train --model skip` trains it, load_models loads it beside the committed drafters, the
teacher-forced probes score it, the registry names it and `generate` decodes with it, greedy text
equal to plain decoding's. What the test monkeypatches (KINDS, FAMILIES) is what adding the class
to experiments/heads.py and the record to experiments/methods.py changes."""
import orjson
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from experiments.data import CharData
from experiments.generate import main as generate
from experiments.heads import KINDS, FeatureDrafter, HeadsConfig
from experiments.measure.families import drafting_families
from experiments.methods import FAMILIES, Family, heads_drafter, heads_first, load_models
from experiments.probes import alpha_by_depth, first_draft_logits
from experiments.train import arg_parser
from experiments.train import main as train
from tests.helpers import CHECKPOINTS


class SkipDrafter(FeatureDrafter):
    """x_{t+2} from the main model's normed feature h_t: one linear map, then the tied output head
    (a one-head Medusa without the residual)."""

    kind, parallel = "skip", True

    def make_net(self, cfg):
        return nn.Linear(cfg.n_embd, cfg.n_embd, bias=False)

    @property
    def max_drafts(self):
        return 1

    def skip_logits(self, h):
        return F.linear(self.net(self.main.norm(h)), self.main.tok_emb.weight)

    def parallel_logits(self, h, next_token, g):
        return self.skip_logits(h)[None][:g]

    def losses(self, x, y):
        with torch.no_grad():
            h = self.main.trunk(x)
        return {"skip": F.cross_entropy(self.skip_logits(h[:, :-1]).flatten(0, 1), y[:, 1:].flatten())}

    def first_draft_logits(self, ids, main_pass, start):
        return self.skip_logits(main_pass[2][0, start - 2:-2])

    def depth_logits(self, x, h, anchors, depth):
        return [self.skip_logits(h)]


SKIP = Family("skip", {"zh": "跳一格的头", "en": "skip head"},
              {"zh": "主模型最后隐状态上的一个线性映射，猜后面第二个字", "en": "one linear map on the main model's last hidden state, guessing the character after next"},
              group="head", chain=True, source="heads", optional=True, build=heads_drafter, first_draft=heads_first("skip"))


@pytest.fixture(scope="module")
def skip_trained(tmp_path_factory):
    """The committed checkpoints beside a skip head trained for 3 steps on the committed main model,
    with the kind and its family registered while the module's tests run."""
    folder = tmp_path_factory.mktemp("checkpoints")
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(KINDS, "skip", SkipDrafter)
        mp.setitem(FAMILIES, "skip", SKIP)
        for path in CHECKPOINTS.glob("*_s0.pt"):
            (folder / path.name).symlink_to(path)
        assert train(["--model", "skip", "--seed", "0", "--steps", "3", "--batch", "2", "--threads", "1",
                      "--out", str(folder)]) == 0
        yield folder


def test_a_new_trained_kind_trains_loads_and_is_scored(skip_trained):
    assert "skip" in arg_parser().parse_args(["--model", "skip"]).model
    data = CharData()
    models = load_models(skip_trained, 0, train_tokens=data.train.tolist(), vocab_size=data.vocab_size)
    assert isinstance(models.heads["skip"], SkipDrafter)
    ids = torch.tensor([data.encode("ROMEO:\nWhat say you to this?")])
    with torch.inference_mode():
        first = first_draft_logits(models, ids, 8)
        depth = alpha_by_depth(models, [data.val[:200].tolist()], 1.0, "cpu", depth=2)
    assert first["skip"].shape == first["main"].shape
    assert len(depth["skip"]) == 1 and 0 < depth["skip"][0] < 1  # one draft a call: depth 1 only
    assert "skip" not in drafting_families(models, range(1, 9))  # one draft: no chain to price against γ
    record = SKIP.record(models)
    assert record["label"]["en"] == "skip head" and record["group"] == "head"


def test_a_new_trained_kind_decodes_greedy_text_equal_to_plain(skip_trained, capsys):
    texts = {}
    for method in ("plain", "skip"):
        extra = ["--gamma", "1", "--heads-checkpoint", str(skip_trained / "skip_s0.pt")] if method == "skip" else []
        assert generate(["--method", method, "--n", "40", "--temperature", "0", *extra]) == 0
        texts[method] = orjson.loads(capsys.readouterr().out)
    assert texts["skip"]["proposed"] > 0
    assert texts["skip"]["text"] == texts["plain"]["text"]


@pytest.mark.parametrize("engine", ["native"])
def test_an_engine_without_a_kernel_for_its_heads_runs_them_eagerly(skip_trained, capsys, engine):
    """The native engine computes Medusa's and the block's heads in C++; a new kind's run eagerly
    beside the native main model, and the text is still plain decoding's."""
    texts = {}
    for method in ("plain", "skip"):
        extra = ["--gamma", "1", "--heads-checkpoint", str(skip_trained / "skip_s0.pt")] if method == "skip" else []
        assert generate(["--method", method, "--engine", engine, "--n", "30", "--temperature", "0", *extra]) == 0
        texts[method] = orjson.loads(capsys.readouterr().out)["text"]
    assert texts["skip"] == texts["plain"]


def test_a_kind_that_cannot_be_made_heavy_says_so_in_one_line(skip_trained, capsys):
    args = ["--method", "skip", "--gamma", "1", "--n", "5", "--scale", "2", "--heads-checkpoint", str(skip_trained / "skip_s0.pt")]
    assert generate(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.splitlines()) == 1 and "no SwiGLU block" in err, err


def test_a_chain_kind_must_be_shaped_like_the_mtp_head(monkeypatch, models64):
    class Chain(SkipDrafter):
        kind, parallel = "chain", False
    monkeypatch.setitem(KINDS, "chain", Chain)
    with pytest.raises(TypeError, match="must be an MTPHead"):
        FeatureDrafter(models64[0], HeadsConfig("chain", main="main_s0"))
