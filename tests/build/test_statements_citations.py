"""What the page cites for what (issue 18, items 10 and 13): each claim names the source that says
it. Rendered in memory from templates/ and the results JSON, in both languages."""
import re

import pytest

ZH = re.compile(r'<p lang="zh">(.*?)</p>', re.S)
EN = re.compile(r'<p lang="en">(.*?)</p>', re.S)


def paragraphs(html, section, lang):
    body = re.search(rf'<section id="{section}".*?</section>', html, re.S).group(0)
    body = re.sub(r"<math.*?</math>", "[math]", body, flags=re.S)
    body = body.replace("<wbr>", "")  # line-break hints inside long names
    return [" ".join(p.split()) for p in (ZH if lang == "zh" else EN).findall(body)]  # one space per line break


def the_one(paras, *needles):
    found = [p for p in paras if all(n in p for n in needles)]
    assert len(found) == 1, f"expected one paragraph with {needles}, found {len(found)}"
    return found[0]


# the paper's theorem and corollary as each language names them
THEOREM_3_5 = {"zh": "定理 3.5", "en": "Theorem 3.5"}
COROLLARY_3_6 = {"zh": "推论 3.6", "en": "Corollary 3.6"}


@pytest.mark.parametrize("lang, needle", [("zh", "草稿被接受的概率"), ("en", "probability that a draft is accepted")])
def test_one_position_acceptance_is_theorem_3_5(rendered_page, lang, needle):
    """Σ min(p, q) at one position is Theorem 3.5 of arXiv 2211.17192 (β there); Corollary 3.6 is
    its expectation over positions, and the page says so rather than citing it for the result."""
    p = the_one(paragraphs(rendered_page, "s-accept", lang), needle)
    assert "2211.17192" in p and THEOREM_3_5[lang] in p
    assert p.index(THEOREM_3_5[lang]) < p.index(COROLLARY_3_6[lang])
    assert "β" in p  # the paper's letter for the one-position rate


def test_no_paragraph_cites_corollary_3_6_for_a_single_position(rendered_page):
    for lang in ("zh", "en"):
        for section in re.findall(r'<section id="([^"]+)"', rendered_page):
            for p in paragraphs(rendered_page, section, lang):
                if COROLLARY_3_6[lang] in p:
                    assert THEOREM_3_5[lang] in p, f"{section} ({lang}) cites {COROLLARY_3_6[lang]} alone: {p[:200]}"


@pytest.mark.parametrize("lang, own_norm", [("zh", "自己的末层 RMSNorm"), ("en", "has its own final RMSNorm")])
def test_deepseek_own_final_norm_cites_the_released_weights(rendered_page, lang, own_norm):
    """DeepSeek-V3's MTP module has its own final norm in the released weights
    (shared_head.norm of the MTP layer); §2.2 of the report shows the shared embedding and output
    head, not that norm."""
    p = the_one(paragraphs(rendered_page, "s-mtp", lang), own_norm)
    after = p[p.index(own_norm):]
    clause = after[:after.index("；" if lang == "zh" else ";")]
    assert "model.layers.61.shared_head.norm.weight" in clause
    assert "huggingface.co/deepseek-ai/DeepSeek-V3" in clause
    assert "§2.2" not in clause  # the report is cited for what it says: the shared embedding and head
    assert "§2.2" in p[:p.index(own_norm)]


@pytest.mark.parametrize("lang, needles", [
    ("zh", ("arXiv 2401.10774", "每个头还有自己的输出层", "共用主模型", "输出头")),
    ("en", ("arXiv 2401.10774", "each head also has an output layer of its own", "share the main model's output head")),
])
def test_medusa_heads_share_the_output_head_unlike_the_paper(rendered_page, lang, needles):
    """In arXiv 2401.10774 each Medusa head has its own output layer; here the heads share the main
    model's tied output head (experiments/heads.py), and the page says so where the heads are drawn."""
    figure = re.search(r'<figure class="fam-diagram" id="medusa-diagram">.*?</figure>', rendered_page, re.S).group(0)
    caption = re.search(r"<figcaption>(.*?)</figcaption>", figure, re.S).group(1).replace("&#39;", "'")
    part = "".join(re.findall(rf'<span lang="{lang}">(.*?)</span>', caption, re.S))
    for needle in needles:
        assert needle in part, (needle, part)


def test_medusa_heads_have_no_output_layer_of_their_own():
    """What the sentence above says of the code: a head is one d×d residual matrix, and its logits
    go through the main model's embedding matrix (the tied output head)."""
    import torch
    from experiments.heads import FeatureDrafter, HeadsConfig
    from experiments.model import GPT, GPTConfig
    main = GPT(GPTConfig(vocab_size=65, n_layer=1, n_embd=16, n_head=2, mlp_hidden=32, block_size=64))
    heads = FeatureDrafter(main, HeadsConfig("medusa", main="x", n_heads=3))
    assert heads.n_params() == 3 * 16 * 16
    with torch.no_grad():
        h = torch.randn(5, 16)
        expected = heads.net(main.norm(h)) @ main.tok_emb.weight.T
        assert torch.allclose(heads.medusa_logits(h), expected, atol=1e-6)
