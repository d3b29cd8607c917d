"""transformers on our weights (experiments/peer.py): the converted models give our logits and,
through transformers' own generate(), our greedy text. Needs the optional [peer] extra; without
it the tests are skipped and say so."""
import copy

import pytest
import torch

pytest.importorskip("transformers", reason="the optional [peer] extra is not installed "
                                           "(pip install -e '.[peer]'; make measure installs it)")

from experiments.data import CharData  # noqa: E402
from experiments.peer import PEER_METHODS, peer_decode, peer_models, to_transformers  # noqa: E402
from experiments.runners import Runner
from experiments.speculative import plain_decode  # noqa: E402


def test_converted_logits_match_ours(models64):
    main = copy.deepcopy(models64[0]).float()  # float32, as measured: the check is about its rounding
    text = CharData().val[:150].tolist()
    with torch.inference_mode():
        window = main.cfg.block_size
        mistral = to_transformers(main)(torch.tensor([text])).logits[0]
        llama = to_transformers(main, sliding=False)(torch.tensor([text[:window]])).logits[0]
        assert (mistral - Runner(main, "kvcache").extend(text)[0]).abs().max() < 1e-4  # past the window
        assert (llama - main(torch.tensor([text[:window]]))[0][0]).abs().max() < 1e-4


@pytest.mark.parametrize("method", PEER_METHODS)
def test_transformers_greedy_text_equals_ours(models64, method):
    main, draft = models64
    prompt = CharData().encode("ROMEO:\n")  # ends in "\n", token 0: the attention mask must not hide it
    with torch.inference_mode():
        hf_main, hf_draft, counters = peer_models(main, draft)
        theirs = peer_decode(method, hf_main, hf_draft, counters, prompt, 200, temperature=0, gamma=3)
        assert theirs.tokens == plain_decode(main, prompt, 200, temperature=0).tokens
    assert theirs.main_forwards <= 200 and (theirs.draft_forwards > 0) == (method == "assisted")
