"""Section ⑥'s engine ladder says what ladder.json's summary says: whether removing per-call
overhead gained more than speculation did on the reference rung, and whether speculation's gain
over its own plain decoding grew or shrank from that rung to the last, with the fastest row's round
taken apart (each engine's fastest row, named) and the part that grew most, or the parts that grew
alike; and the fresh-process check under the chart. The page is rendered from the committed
results, then with the summary's booleans flipped, and its sentences follow them."""
import copy
import html as html_lib
import re

import pytest

from chapter import build

DATA = build.load_results()
LADDER = DATA["ladder"]
KEYS = [f"T{t:g}" for t in LADDER["temperatures"]]
FAMILY_EN = {f["name"]: f["label"]["en"] for f in DATA["registry"]["families"]}
NAMES = {"eager": ("eager 引擎", "eager engine"), "compiled": ("编译引擎", "compiled engine"),
         "aot": ("AOT 引擎", "AOT engine"), "native": ("原生 C++ 引擎", "native C++ engine")}


def render(edit=None):
    data = copy.deepcopy(DATA)
    if edit:
        edit(data["ladder"])
    return build.render(data)


def words(fragment, lang):
    other = "en" if lang == "zh" else "zh"
    fragment = re.sub(rf'<span lang="{other}">.*?</span>', "", fragment, flags=re.S)
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", "", fragment)).split())  # one space per line break


def says(page, key, lang):
    """The sentences under the chart for one temperature, in one language."""
    block = re.search(rf'<div class="ladder-says" data-ladder-says="{key}"[^>]*>(.*?)</div>', page, re.S).group(1)
    return " ".join(words(p, lang) for p in re.findall(rf'<p lang="{lang}">(.*?)</p>', block, re.S))


def fresh(page, lang):
    return words(re.search(rf'<p class="caption ladder-fresh" lang="{lang}">(.*?)</p>', page, re.S).group(1), lang)


f2 = "{:.2f}".format


def expect(s, ref, last):
    """The phrases each language must hold for summary block `s`, and those it must not."""
    # after a Chinese character a name in Latin letters is set off by a space ("比 eager 引擎上")
    zh_ref, en_ref = NAMES[ref]
    zh_last, en_last = NAMES[last]
    zh_ref, zh_last = (" " + z if z[0].isascii() else z for z in (zh_ref, zh_last))
    beats, grows = s["overhead_beats_speculation"], s["speculation_grows"]
    rr, rl = s["round_ref"], s["round_last"]
    og, sg, sl, bor = (f2(s[f]) for f in ("overhead_gain", "speculation_gain", "speculation_last", "best_over_reference"))
    grew = s["grew_most"]
    fr, fl = s["fastest_ref"], s["fastest_last"]
    en = [f"from the {en_ref} to the {en_last}, makes plain decoding itself {og}× faster, "
          + ("more" if beats else "less") + f" than the {sg}× that the fastest speculative row buys on the {en_ref}",
          f"runs at {bor}× the speed of plain decoding on the {en_ref}",
          f"the verify costs {f2(rr['verify'])} on the {en_ref} and {f2(rl['verify'])} on the {en_last}, "
          f"drafting {f2(rr['drafting'])} and {f2(rl['drafting'])}, the rest of the loop (sampling, the rule, Python) "
          f"{f2(rr['other'])} and {f2(rl['other'])}",
          f"Take each engine's fastest row apart (the {FAMILY_EN[fr['family']]}, γ = {fr['size']}, on the {en_ref}; "
          f"the {FAMILY_EN[fl['family']]}, γ = {fl['size']}, on the {en_last})",
          GREW_EN[grew[0]] if len(grew) == 1 else "grew about alike",
          f"{'rises' if grows else 'falls'} from {sg}× to {sl}×"]
    en_not = [("less" if beats else "more") + f" than the {sg}×", f"{'falls' if grows else 'rises'} from",
              *(v for k, v in GREW_EN.items() if len(grew) > 1 or k != grew[0]), *(["grew about alike"] if len(grew) == 1 else [])]
    zh = [f"普通解码本身就快了 {og}×，" + (f"比{zh_ref}上最快的投机解码带来的 {sg}× 还多" if beats
                                       else f"还不及{zh_ref}上最快的投机解码带来的 {sg}×"),
          f"速度是{zh_ref}普通解码的 {bor}×",
          f"验收在{zh_ref}上是 {f2(rr['verify'])}，在{zh_last}上是 {f2(rl['verify'])}；起草分别是 {f2(rr['drafting'])} "
          f"和 {f2(rl['drafting'])}；其余（采样、接受规则、Python 循环）分别是 {f2(rr['other'])} 和 {f2(rl['other'])}",
          GREW_ZH[grew[0]] if len(grew) == 1 else "涨得差不多",
          f"从 {sg}× {'升到' if grows else '降到'} {sl}×"]
    zh_not = ["还不及" if beats else "还多", "降到" if grows else "升到",
              *(v for k, v in GREW_ZH.items() if len(grew) > 1 or k != grew[0]), *(["涨得差不多"] if len(grew) == 1 else [])]
    return en, en_not, zh, zh_not


GREW_EN = {"drafting": "Drafting grew most", "verify": "The verify grew most", "other": "The rest of the loop grew most"}
GREW_ZH = {"drafting": "涨得最多的是起草", "verify": "涨得最多的是验收", "other": "涨得最多的是其余部分"}


@pytest.mark.parametrize("flip", [False, True], ids=["as measured", "booleans flipped"])
def test_ladder_sentences_follow_the_summary(flip):
    def edit(ladder):
        if flip:
            for key in KEYS:
                s = ladder["summary"][key]
                s["overhead_beats_speculation"] = not s["overhead_beats_speculation"]
                s["speculation_grows"] = not s["speculation_grows"]
    page = render(edit)
    ref, last = LADDER["reference"], LADDER["engines"][-1]
    for key in KEYS:
        s = copy.deepcopy(LADDER["summary"][key])
        if "overhead_gain" not in s:
            pytest.skip("ladder.json has no rung after the reference rung")
        if flip:
            s["overhead_beats_speculation"] = not s["overhead_beats_speculation"]
            s["speculation_grows"] = not s["speculation_grows"]
        en, en_not, zh, zh_not = expect(s, ref, last)
        text_en, text_zh = says(page, key, "en"), says(page, key, "zh")
        assert text_en.startswith(f"At T = {key[1:]}, ") and text_zh.startswith(f"T = {key[1:]} 时，")
        for phrase in en:
            assert phrase in text_en, (phrase, text_en)
        for phrase in zh:
            assert phrase in text_zh, (phrase, text_zh)
        assert not any(p in text_en for p in en_not) and not any(p in text_zh for p in zh_not), (text_en, text_zh)
        # the caches are named only where the verify is what grew most
        assert ("MB of weights sit in its caches" in text_en) == (s["grew_most"] == ["verify"])
        assert ("MB 的权重就待在它的缓存里" in text_zh) == (s["grew_most"] == ["verify"])


def test_one_boolean_at_a_time_changes_only_its_own_clause():
    key = KEYS[0]
    if "overhead_gain" not in LADDER["summary"][key]:
        pytest.skip("ladder.json has no rung after the reference rung")
    base = says(render(), key, "en")

    def flip(field):
        def edit(ladder):
            ladder["summary"][key][field] = not ladder["summary"][key][field]
        return says(render(edit), key, "en")

    first, second = base.split(" Take each engine's fastest row apart")
    beats = flip("overhead_beats_speculation").split(" Take each engine's fastest row apart")
    grows = flip("speculation_grows").split(" Take each engine's fastest row apart")
    assert beats[0] != first and beats[1] == second
    assert grows[0] == first and grows[1] != second
    for part in GREW_EN:  # each part that can grow most has its own sentence, and only it changes
        def edit(ladder, part=part):
            ladder["summary"][key]["grew_most"] = [part]
        text = says(render(edit), key, "en")
        assert GREW_EN[part] in text and text.split(" Take each engine's fastest row apart")[0] == first
    # parts that grew alike are named together, with their growths, and no part is said to have grown most
    def alike(ladder):
        ladder["summary"][key]["grew_most"] = ["other", "drafting"]
        ladder["summary"][key]["growth"] = {"verify": 0.1, "drafting": 0.249, "other": 0.253}
    text = says(render(alike), key, "en")
    assert "The rest of the loop and drafting grew about alike (0.25 and 0.25 plain forwards more)" in text
    assert not any(v in text for v in GREW_EN.values())
    other = KEYS[-1]
    if other != key:  # the other temperature's block keeps its own summary
        assert says(render(lambda ladder: ladder["summary"][key].update(overhead_gain=9.876)), other, "en") \
            == says(render(), other, "en")
    assert "9.88× faster" in says(render(lambda ladder: ladder["summary"][key].update(overhead_gain=9.876)), key, "en")


def test_without_a_rung_past_the_reference_the_ladder_says_so():
    def edit(ladder):
        for key in KEYS:
            for field in ("overhead_gain", "speculation_gain", "overhead_beats_speculation", "best_over_reference",
                          "speculation_last", "speculation_grows", "round_ref", "round_last", "grew_most",
                          "growth", "fastest_ref", "fastest_last"):
                ladder["summary"][key].pop(field, None)
    page = render(edit)
    for key in KEYS:
        assert "so there is no rung with less overhead than the" in says(page, key, "en")
        assert "还没有比" in says(page, key, "zh")


@pytest.mark.parametrize("agrees", [True, False])
def test_the_fresh_process_check_says_whether_it_agrees(agrees):
    page = render(lambda ladder: ladder["fresh_check"].update(agrees=agrees))
    fc = LADDER["fresh_check"]
    tol = f"{100 * fc['tolerance']:.0f}%"
    en, zh = fresh(page, "en"), fresh(page, "zh")
    assert f"measured {f2(fc['fresh_speedup'])}× over plain decoding" in en and f"harness's {f2(fc['harness_speedup'])}×" in en
    assert (f"within the {tol} tolerance" in en) == agrees and (f"outside the {tol} tolerance" in en) == (not agrees)
    assert (f"相差在 {tol} 的容差以内" in zh) == agrees and (f"相差超出了 {tol} 的容差" in zh) == (not agrees)


@pytest.mark.parametrize("stem,key", [("regime", "fresh_check")])
def test_every_fresh_process_check_is_printed_and_a_failed_one_as_plainly(stem, key):
    """The dial's fresh-process check is on the page too (the same macro as the ladder's), and one
    that disagrees says so, naming its tolerance."""
    fc = DATA[stem][key]
    for agrees in (True, False):
        data = copy.deepcopy(DATA)
        data[stem][key]["agrees"] = agrees
        page = build.render(data)
        en = [words(p, "en") for p in re.findall(r'<p class="caption fresh-check" lang="en">(.*?)</p>', page, re.S)]
        (mine,) = [p for p in en if f"harness's {f2(fc['harness_speedup'])}×" in p and f"measured {f2(fc['fresh_speedup'])}×" in p]
        tol = f"{100 * fc['tolerance']:.0f}%"
        assert (f"within the {tol} tolerance" in mine) == agrees
        assert (f"outside the {tol} tolerance, so the harness's figure for this row is in doubt" in mine) == (not agrees)
