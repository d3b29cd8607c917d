"""Every drafter keeps the main model's law: at T = 1 the first three characters that speculative
decoding writes follow those of plain decoding (exact_law_of_three, by enumeration), by a
chi-square test of 1200 draws, p > 1e-3 for each character.

One case for every family experiments/methods.py declares and every shape it drafts (a chain, a
token tree), so that a family is checked here as soon as it is declared; each runs through
decode(), as generate runs it, on the committed seed-0 models in float64. Beside them, the chain
loop on every other engine and in recompute mode (the draft model's chain and the MTP head's).
The heavy twin's law (tests/core/test_heavy_twin.py), recompute decoding past the window
(tests/core/test_decoding.py), the n-gram chain at the lowest temperature and the match drafter
that copies a single character (tests/drafters/test_ngram.py, test_match.py) check something
else and stay with their subjects.

make test keeps one case per path through the rule: every chain goes through accept_reject and
every tree through tree_accept (exact by enumeration and by construction,
tests/core/test_accept_reject.py and test_trees.py), so the cases in SLOW, whose path a kept case
already takes, run with `pytest -m slow`; a family declared later runs in make test until it is
added there."""
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest
import torch

from experiments.data import CharData
from experiments.engine import ENGINES
from experiments.methods import DECLARED, FAMILIES, Models, Spec, decode, drafter
from tests.helpers import chi_square_pvalue, exact_law_of_three

DRAWS = 1200
PROMPT = "ROMEO:\nI "  # a high-entropy next character
REPEATS = "the the the t"  # it recurs: the drafters that copy from the text draft from the first round


def copies_both_drafts(models, prompt):
    """The match drafter's first round copies both of its drafts ("the the t" recurs)."""
    first = drafter(Spec("match", 2), models)
    first.propose(prompt, len(prompt) - 1, 2, 1.0, torch.Generator().manual_seed(0))
    return first.copied == 2


def drafts_both(models, prompt):
    """Suffix decoding's first round drafts both positions the law is checked at."""
    _, first = drafter(Spec("suffix", 2), models).propose(prompt, len(prompt) - 1, 2, 1.0)
    return len(first) == 2


@dataclass(frozen=True)
class Case:
    """spec decoded after prompt on engine in mode, with sampling seed `seed`; `first_round`, where
    given, holds of the prompt's first round (that the draws test the path the case is for)."""
    spec: Spec
    prompt: str = PROMPT
    seed: int = 11
    engine: str = "eager"
    mode: str = "kvcache"
    first_round: Callable | None = field(default=None, compare=False)

    def __str__(self):
        return " ".join([str(self.spec), self.engine] + ([self.mode] if self.mode != "kvcache" else []))


# A family's case is a chain of γ = 2 (at most its max_gamma) or a tree of 16 nodes after PROMPT,
# seed 11, unless it is here: the drafters that copy get a text they can copy from; the seeds are
# those each check was first written with.
TUNED = {
    ("draft", "chain"): Case(Spec("draft", 2), seed=123),
    ("mtp", "chain"): Case(Spec("mtp", 1), seed=123),
    ("ngram", "chain"): Case(Spec("ngram", 2), seed=5),
    ("ngram", "tree"): Case(Spec("ngram", tree=16), seed=21),
    ("lookup", "chain"): Case(Spec("lookup", 2, order=3), REPEATS, seed=9),
    ("lookup", "tree"): Case(Spec("lookup", tree=8), REPEATS, seed=21),
    ("match", "chain"): Case(Spec("match", 2), REPEATS, first_round=copies_both_drafts),
    ("suffix", "chain"): Case(Spec("suffix", 2), "KING RICHARD", seed=5, first_round=drafts_both),
    ("suffix", "tree"): Case(Spec("suffix", tree=6), "KING RICHARD", seed=5, first_round=drafts_both),
    ("medusa", "tree"): Case(Spec("medusa", tree=8), seed=21),
    ("eagle", "tree"): Case(Spec("eagle", tree=16), seed=21),
    # lookahead's first window copies the text 4 back: a text of period 4 makes it right often
    ("lookahead", "tree"): Case(Spec("lookahead", 4, tree=13, order=3), REPEATS, seed=21),
}


def family_case(name, shape):
    if (name, shape) in TUNED:
        return TUNED[name, shape]
    gamma = min(2, FAMILIES[name].max_gamma or 2)
    return Case(Spec(name, gamma) if shape == "chain" else Spec(name, tree=16))


FAMILY_CASES = [family_case(name, shape) for name in DECLARED for shape in ("chain", "tree")
                if getattr(FAMILIES[name], shape)]
# the chain loop on every engine that is not eager, and the MTP head's in recompute mode
ENGINE_CASES = ([Case(Spec("draft", 3), seed=123, engine=engine) for engine in ENGINES if engine != "eager"]
                + [Case(Spec("mtp", 1), seed=123, engine="compiled"), Case(Spec("mtp", 1), seed=123, mode="recompute")])

# Each of these takes a path through the rule that a kept case takes: the MTP head's chains follow
# the draft model's (and match plain greedy on every engine); EAGLE and EAGLE-3 draft through the
# chain drafter the MTP head does, Medusa through the block's parallel one; the n-gram and suffix
# chains' drafts go through the rule as the draft model's and prompt lookup's do; every tree
# through tree_accept as the n-gram's and suffix decoding's; the compiled and AOT engines' round
# is the native one's (tests/engines/ holds their logits and drafts to eager's).
SLOW = {"mtp γ=1 eager", "ngram γ=2 eager", "suffix γ=2 eager", "medusa γ=2 eager", "eagle γ=2 eager",
        "eagle3 γ=2 eager", "lookup tree=8 eager", "medusa tree=8 eager", "block tree=16 eager",
        "eagle tree=16 eager", "eagle3 tree=16 eager", "lookahead tree=13 eager",
        "draft γ=3 compiled", "draft γ=3 aot", "mtp γ=1 compiled", "mtp γ=1 eager recompute"}
CASES = [pytest.param(case, id=str(case), marks=[pytest.mark.slow] if str(case) in SLOW else [])
         for case in FAMILY_CASES + ENGINE_CASES]


def test_slow_names_only_cases_that_exist():
    assert SLOW <= {str(case) for case in FAMILY_CASES + ENGINE_CASES}


@pytest.fixture(scope="module")
def models(models64, drafters):
    """Every drafter a family needs: the seed-0 models in float64 and the training text."""
    data = CharData()
    return Models(*models64, heads=drafters, train_tokens=data.train.tolist(), vocab_size=data.vocab_size)


@pytest.mark.sampled  # about 10 s a case on one core: make test runs those not in SLOW, make test-fast none
@pytest.mark.parametrize("case", CASES)
def test_the_first_three_characters_follow_the_main_models_law(models, case):
    prompt = CharData().encode(case.prompt)
    assert case.first_round is None or case.first_round(models, prompt), case.first_round.__doc__
    laws = exact_law_of_three(models.main, prompt)
    gen = torch.Generator().manual_seed(case.seed)
    with torch.inference_mode():
        runs = [decode(case.spec, models, prompt, 3, temperature=1.0, mode=case.mode, engine=case.engine, generator=gen)
                for _ in range(DRAWS)]
    assert sum(r.accepted for r in runs) > 0  # drafts were made and some were kept: the rule was exercised
    if FAMILIES[case.spec.method].source == "heads" and case.spec.shape == "chain":
        assert sum(r.proposed for r in runs) == DRAWS  # a trained drafter's chain: the third char is always drafted
    samples = np.array([r.tokens for r in runs])
    for position, law in enumerate(laws):
        assert chi_square_pvalue(samples[:, position], law) > 1e-3, f"char {position + 1}"
