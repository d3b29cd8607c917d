"""The build: deterministic, self-contained, and loud about missing results."""
import copy
import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser

import orjson
import pytest
from markupsafe import escape

from chapter import build as site_build
from chapter.listings import ListingError, listings, region
from chapter.schema import ResultsError
from chapter.views.dial import rerun_note
from chapter.views.rows import paired_verdict, tag_regime, verdict_badge
from tests.helpers import ROOT, dipped


def test_committed_site_matches_its_sources(tmp_path):
    out = site_build.build(out=tmp_path / "page.html")  # its < 10 s budget (SPEC §8) is make bench's
    committed = ROOT / "site" / "16_speculative_decoding_viz.html"
    assert out.read_text(encoding="utf-8") == committed.read_text(encoding="utf-8"), \
        "site/ is stale: run `make site` and commit the page"


def test_page_is_self_contained():
    html = (ROOT / "site" / "16_speculative_decoding_viz.html").read_text(encoding="utf-8")
    # nothing loads from elsewhere: no external src, no <link> but the one that holds the first frame
    # for the page's own script, no CSS import or url();
    # plain <a href> links to papers are fine, they are only followed when clicked
    assert not re.search(r'src\s*=\s*["\']?(https?:)?//', html), "external resource in the page"
    assert re.findall(r"<link[^>]*>", html) == ['<link rel="expect" href="#chapter-script-done" blocking="render">']
    # ... and that first frame waits for the script to have run: its target comes right after it
    assert re.search(r'<script id="chapter-script">.*?</script>\s*<span id="chapter-script-done" hidden>', html, re.S)
    assert "@import" not in html
    assert not re.search(r"url\(\s*['\"]?(?!#)", html), "url() that is not a same-page #fragment"
    lab = re.search(r'<script type="application/json" id="lab-data">(.*?)</script>', html, re.S)
    assert lab and "<" not in lab.group(1)
    assert len(html.encode()) <= 4 * 1024 * 1024  # SPEC §8: with the lab's weights
    assert len(html.encode()) - len(lab.group(1).encode()) <= 1.5 * 1024 * 1024  # ... and without them
    parts = dict(re.findall(r'<script type="application/json" data-chapter="(\w+)">(.*?)</script>', html, re.S))
    assert parts and not any("<" in part for part in parts.values())
    assert orjson.loads(parts["models"])["meta"]["torch"]


def test_missing_file_is_named(tmp_path):
    with pytest.raises(site_build.ResultsError, match="missing results file .*models.json"):
        site_build.load_results(tmp_path)


def test_missing_field_is_named(tmp_path):
    copy_results(tmp_path)
    models = orjson.loads((ROOT / "experiments/results/models.json").read_bytes())
    first = next(iter(models["runs"]))
    del models["runs"][first]["val_loss_full"]
    (tmp_path / "models.json").write_bytes(orjson.dumps(models))
    with pytest.raises(site_build.ResultsError, match=f"models.json: missing field 'runs.{first}.val_loss_full'"):
        site_build.load_results(tmp_path)


def test_build_needs_no_torch(tmp_path):
    code = ("import sys; sys.modules['torch'] = None; from chapter import build; "
            f"build.build(out={str(tmp_path / 'p.html')!r})")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_page_contains_every_section_and_math():
    html = (ROOT / "site" / "16_speculative_decoding_viz.html").read_text(encoding="utf-8")
    for section in ("s-verify", "s-accept"):
        assert f'<section id="{section}"' in html
    assert "<math" in html and "\\frac" not in html  # LaTeX became MathML at build time
    assert 'lang="zh"' in html and 'lang="en"' in html


def test_page_gets_only_declared_fields():
    fields = ["meta.device:str", "rows.*.alpha", "rows.*.burst.p?", "costs.*.c:num", "costs.kv.extra", "curves:obj", "x?.y"]
    tree = site_build.declared_tree(fields)
    obj = {"meta": {"device": "cpu", "command": "secret"}, "rows": [{"alpha": 0.5, "beta": 1, "burst": {"p": None, "chi2": 2}}],
           "costs": {"kv": {"c": 0.1, "extra": [1], "more": 2}, "rc": {"c": 0.2, "extra": 3}},
           "curves": {"a": [1, 2], "b": {"deep": 1}}, "undeclared": 1}
    assert site_build.keep_declared(obj, tree) == {
        "meta": {"device": "cpu"}, "rows": [{"alpha": 0.5, "burst": {"p": None}}],
        "costs": {"kv": {"c": 0.1, "extra": [1]}, "rc": {"c": 0.2}},
        "curves": {"a": [1, 2], "b": {"deep": 1}}}  # a declared obj passes whole; 'x?' is simply absent


def test_build_passes_only_declared_fields(tmp_path):
    for name in site_build.SCHEMA:
        shutil.copy(ROOT / "experiments/results" / name, tmp_path / name)
    models = orjson.loads((tmp_path / "models.json").read_bytes())
    models["not_in_the_schema"] = {"value": 1}
    models["meta"]["not_in_the_schema"] = 2
    (tmp_path / "models.json").write_bytes(orjson.dumps(models))
    data = site_build.load_results(tmp_path)
    assert "not_in_the_schema" not in data["models"] and "not_in_the_schema" not in data["models"]["meta"]
    assert data["models"]["meta"]["device"] == models["meta"]["device"]


def test_wrong_type_is_named(tmp_path):
    for name in site_build.SCHEMA:
        shutil.copy(ROOT / "experiments/results" / name, tmp_path / name)
    causal = orjson.loads((tmp_path / "causal.json").read_bytes())
    causal["verify_example"]["rows"][3]["top"] = "oops"
    (tmp_path / "causal.json").write_bytes(orjson.dumps(causal))
    with pytest.raises(site_build.ResultsError, match=r"causal.json: field 'verify_example.rows.3.top' should be list"):
        site_build.load_results(tmp_path)


def write_modules(folder, **sources):
    for name, source in sources.items():
        (folder / f"{name}.js").write_text(source)


def run_bundle(js):
    """Run a bundle in node and return what it printed."""
    out = subprocess.run(["node", "--input-type=module", "-e", js], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_bundler_runs_dependencies_first_and_keeps_each_module_in_its_own_scope(tmp_path):
    # a.js and b.js both declare `helper` and `count` at top level: fine, each has its own scope
    write_modules(tmp_path,
                  a='const helper = () => "a";\nlet count = 0;\nexport function fromA() { count += 1; return helper() + count; }\n',
                  b='import { fromA } from "./a.js";\nconst helper = () => "b";\nconst count = 10;\n'
                    'export const fromB = () => helper() + count + fromA();\nexport class Box {}\n',
                  main='import { fromB, Box } from "./b.js";\nimport { fromA as again } from "./a.js";\n'
                       'console.log(fromB(), again(), typeof Box);\n')
    js = site_build.bundle_js(tmp_path, "main.js")
    assert js.index("// ---- a.js") < js.index("// ---- b.js") < js.index("// ---- main.js")
    assert js.count("// ---- a.js") == 1  # imported twice, bundled once
    assert not re.search(r"^\s*(import|export)\b", js, re.M)
    assert run_bundle(js) == ["b10a1", "a2", "function"]
    assert site_build.bundle_js(tmp_path, "main.js") == js  # deterministic


def test_bundler_errors_are_clear(tmp_path):
    write_modules(tmp_path, a="export function shared() { return 1; }\n",
                  main='import { shared, missing } from "./a.js";\n')
    with pytest.raises(site_build.BuildError, match="static/js/main.js imports 'missing' from static/js/a.js, which does not export it"):
        site_build.bundle_js(tmp_path, "main.js")
    write_modules(tmp_path, main='import { y } from "./nowhere.js";\n')
    with pytest.raises(site_build.BuildError, match="static/js/main.js imports missing module static/js/nowhere.js"):
        site_build.bundle_js(tmp_path, "main.js")
    write_modules(tmp_path, a='import { b } from "./b.js";\nexport const a = 1;\n', b='import { a } from "./a.js";\nexport const b = 2;\n',
                  main='import { a } from "./a.js";\n')
    with pytest.raises(site_build.BuildError, match=r"import cycle: main.js -> a.js -> b.js -> a.js"):
        site_build.bundle_js(tmp_path, "main.js")
    for line, what in (('import a from "./a.js";', "only `import"), ('import * as a from "./a.js";', "only `import"),
                       ("export default 3;", "not `export default 3;`"), ("export { x };", "not `export { x };`"),
                       ("const __modules = 1;", "reserved")):
        write_modules(tmp_path, main=line + "\n")
        with pytest.raises(site_build.BuildError, match=re.escape(what)):
            site_build.bundle_js(tmp_path, "main.js")


def test_page_modules_declare_no_clash_prefixes():
    """With one scope per module the mtp*/MTP_ name prefixes have no reason to exist."""
    for path in (ROOT / "static" / "js").glob("*.js"):
        names = re.findall(r"^(?:export\s+)?(?:function|const|let|class)\s+(\w+)", path.read_text(encoding="utf-8"), re.M)
        assert not [n for n in names if re.match(r"(mtp|MTP_)", n)], path.name


def test_quiz_answers_sit_at_varied_positions():
    """The closing quiz's right answers are not all among the first two options."""
    html = (ROOT / "site" / "16_speculative_decoding_viz.html").read_text(encoding="utf-8")
    questions = re.findall(r'<fieldset class="closing-q".*?</fieldset>', html, re.S)
    positions = [re.findall(r'data-correct="(true|false)"', q).index("true") + 1 for q in questions]
    assert len(questions) >= 4 and len(set(positions)) >= 3 and max(positions) >= 3, positions


def test_python_and_js_number_styles_agree():
    """build.sci (prose) and format.js sci (widgets) print the same strings; the JS side is
    pinned to these values in tests/js/helpers.test.mjs."""
    assert site_build.sci(3.814697265625e-6) == "3.8×10⁻⁶"
    assert site_build.sci(1.06e-5) == "1.1×10⁻⁵"
    assert site_build.sci(0.121) == "0.121"
    assert site_build.sci(0) == "0"


def test_quiz_shuffle_is_a_fixed_permutation():
    """The build shuffles each question's options by its id: the same order on every build,
    different orders for different questions, nothing lost or repeated."""
    options = list(range(4))
    orders = [site_build.shuffled(options, f"closing-q{i}") for i in range(1, 11)]
    assert all(sorted(order) == options for order in orders)
    assert orders == [site_build.shuffled(options, f"closing-q{i}") for i in range(1, 11)]
    assert len({order.index(0) for order in orders}) >= 3  # the first option (often the right one) moves


def copy_results(folder):
    for name in site_build.SCHEMA:
        shutil.copy(ROOT / "experiments/results" / name, folder / name)
    if (ROOT / "experiments/results" / site_build.RERUNS).exists():  # the dial's reruns, where there are any
        shutil.copytree(ROOT / "experiments/results" / site_build.RERUNS, folder / site_build.RERUNS)


@pytest.mark.parametrize("damage, what", [
    (lambda path: (path.unlink(), path.mkdir()), "is not a file"),
    (lambda path: path.write_text('{"meta": '), "is not valid JSON"),
    (lambda path: path.write_bytes(b'{"meta": "\xff"}'), "is not valid JSON"),
])
def test_unreadable_results_file_is_named_in_one_line(tmp_path, capsys, damage, what):
    """`make site` with a results path that is a folder, or a file that is not JSON: one line
    naming the file and what is wrong, exit status 2 (the input is at fault), no traceback, nothing written."""
    results = tmp_path / "results"
    results.mkdir()
    copy_results(results)
    damage(results / "families.json")
    out = tmp_path / "page.html"
    assert site_build.main(results, out) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: results file ") and err.count("\n") == 1, err
    assert f"{results / 'families.json'} {what}" in err
    assert not out.exists()


def test_the_build_takes_a_results_folder_and_an_output_from_its_command_line(tmp_path):
    """`python -m chapter.build --results DIR --out FILE` builds from DIR into FILE (a path outside
    the repository included) and says so; it ignored its arguments and rebuilt site/ before."""
    results = tmp_path / "results"
    results.mkdir()
    copy_results(results)
    out = tmp_path / "page.html"
    run = subprocess.run([sys.executable, "-m", "chapter.build", "--results", str(results), "--out", str(out)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0 and run.stdout.startswith(f"wrote {out} "), run.stderr
    assert out.read_bytes() == (ROOT / "site" / "16_speculative_decoding_viz.html").read_bytes()
    (results / "families.json").unlink()
    (results / "families.json").mkdir()
    run = subprocess.run([sys.executable, "-m", "chapter.build", "--results", str(results), "--out", str(out)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 2 and run.stderr.startswith("error: results file ") and "families.json is not a file" in run.stderr
    run = subprocess.run([sys.executable, "-m", "chapter.build", "--bogus"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert (run.returncode, run.stdout) == (2, "") and run.stderr == (
        "error: unrecognized arguments: --bogus (see python -m chapter.build --help)\n")  # no usage dump


def test_bundler_refuses_what_would_end_the_inlined_script(tmp_path):
    """A `</script>` (any case) or `<!--` in a module's text would end or break the page's one
    <script> element: the build names the file and line instead of writing a dead page."""
    for line in ('const tag = "</script>";', "const x = `</SCRIPT >`;", "// <!-- old browsers"):
        write_modules(tmp_path, main=f"const a = 1;\n\n{line}\n")
        with pytest.raises(site_build.BuildError, match=r"^static/js/main\.js:3: `(</script|<!--)` "):
            site_build.bundle_js(tmp_path, "main.js")
    write_modules(tmp_path, main='const fine = "<\\/script>";\n')
    assert "<\\/script>" in site_build.bundle_js(tmp_path, "main.js")


def test_css_that_would_end_the_inlined_style_is_refused(tmp_path):
    (tmp_path / "a.css").write_text("body { color: red; }\n")
    (tmp_path / "b.css").write_text('p { color: blue; }\n.x::after { content: "</style>"; }\n')
    with pytest.raises(site_build.BuildError, match=r"^static/css/b\.css:2: `</style` "):
        site_build.inline_css(tmp_path)
    (tmp_path / "b.css").write_text("p { color: blue; }\n")
    assert site_build.inline_css(tmp_path) == "body { color: red; }\n\np { color: blue; }\n"


def test_bundler_leaves_import_and_export_lines_inside_literals_alone_or_refuses(tmp_path):
    """The bundler rewrites lines that start with `import`/`export`; inside a template literal,
    a string or a block comment such a line is text, so the build refuses it, naming file:line."""
    for source, number in (("export const help = `Write\nexport const x = 1;\nin your module`;\n", 2),
                           ("const a = `${1 + `\n`}\nimport { b } from \"./b.js\";\n`;\n", 3),
                           ("/* notes\n   export function f() {}\n*/\nexport const y = 2;\n", 2),
                           ('const s = "one \\\nexport two";\n', 2)):
        write_modules(tmp_path, main=source)
        with pytest.raises(site_build.BuildError, match=rf"^static/js/main\.js:{number}: a line inside a string, template literal or comment starts with `(export|import)`"):
            site_build.bundle_js(tmp_path, "main.js")
    # the same words in code after literals, regexes and ${...} are real statements
    write_modules(tmp_path, main='const t = `a ${ {k: `b`}.k } c`, r = /[`/]"/, d = 6 / 3 / 2;\n'
                                 "export const out = `${t}|${r.source}|${d}`;\nconsole.log(out);\n")
    assert run_bundle(site_build.bundle_js(tmp_path, "main.js")) == ['a', 'b', 'c|[`/]"|1']


def test_the_page_shows_the_decoder_as_the_source_has_it():
    """①'s listing is read from the marked regions of the decoder and the rule when the page is
    built: the page holds each region exactly, and the regions hold the steps the prose names."""
    html = (ROOT / "site" / "16_speculative_decoding_viz.html").read_text(encoding="utf-8")
    shown = listings()
    for item in shown.values():
        assert str(escape(item["code"])) in html, item["path"]
    assert "drafter.propose(" in shown["round"]["code"] and "main.truncate(m + n_acc)" in shown["round"]["code"]
    assert "u[n] * q_d[n] < p_d[n]" in shown["rule"]["code"] and "residual(p[n], q[n])" in shown["rule"]["code"]


def test_a_broken_listing_marker_is_a_clear_error():
    with pytest.raises(ListingError, match="f.py: the listing 'x' has no '# end page listing' line"):
        region("# page listing: x\ncode\n", "x", "f.py")
    with pytest.raises(ListingError, match="f.py: expected one '# page listing: x' line, found 0"):
        region("code\n", "x", "f.py")
    assert region("  # page listing: x (why)\n    a = 1\n      b\n  # end page listing\n", "x", "f.py") == "a = 1\n  b"


def test_one_quantity_and_condition_is_printed_with_one_value():
    fig = '<span class="fig" data-q="{}" data-c="{}">{}</span>'
    glossary = '<dt id="g-alpha-tf">α</dt>'
    page = glossary + fig.format("alpha-tf", "ngram|T1|own", "0.770") * 2 + fig.format("alpha-tf", "ngram|T0|own", "0.812")
    assert site_build.check_figures(page) == {("alpha-tf", "ngram|T1|own"): "0.770", ("alpha-tf", "ngram|T0|own"): "0.812"}
    with pytest.raises(site_build.BuildError, match=r"alpha-tf \[ngram\|T1\|own\]: 0.769 and 0.770"):
        site_build.check_figures(page + fig.format("alpha-tf", "ngram|T1|own", "0.769"))
    with pytest.raises(site_build.BuildError, match="'speedup', which the glossary does not define"):
        site_build.check_figures(page + fig.format("speedup", "x", "1.2×"))
    # the same value at another precision is one value; a rounding that disagrees is not
    assert site_build.check_figures(page + fig.format("alpha-tf", "ngram|T1|own", "0.77"))[("alpha-tf", "ngram|T1|own")] == "0.770"
    with pytest.raises(site_build.BuildError, match=r"0.76 and 0.770"):
        site_build.check_figures(page + fig.format("alpha-tf", "ngram|T1|own", "0.76"))
    # 5.5531 prints as 5.55 and as 5.6: one value, though 5.55 rounded again would be 5.5
    assert site_build.same_value("5.55", "5.6") and site_build.same_value("5.6", "5.55")
    assert not site_build.same_value("5.54", "5.6") and not site_build.same_value("0.78", "0.77")


def test_ms_pair_prints_times_that_divide_to_the_printed_ratio():
    """0.1543 / 0.6363 = 0.2425 would not reproduce c = 0.243 (0.15434 / 0.63634): one more decimal does."""
    for a, b in [(0.00015432, 0.00063634), (0.0008, 0.004), (1.23456e-4, 5.4321e-4)]:
        shown = site_build.ms_pair(a, b)
        assert round(float(shown[0]) / float(shown[1]), 3) == round(a / b, 3)
        assert all(len(s.split(".")[1]) >= 4 for s in shown)
    assert site_build.ms_pair(0.00015432, 0.00063634) == ["0.15432", "0.63634"]


def test_templates_hold_one_sentence_per_line_and_no_line_over_500_characters():
    for path in sorted((ROOT / "templates").rglob("*.j2")):
        long = [n for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1) if len(line) > 500]
        assert not long, f"{path.relative_to(ROOT)}: lines {long} are over 500 characters"


def test_a_line_break_between_chinese_sentences_renders_as_nothing():
    """The templates break lines after each sentence; between two Chinese characters that break
    would show as a space, so the build takes it out (never inside scripts, styles or <pre>)."""
    html = "<p>第一句。\n第二句，\n第三句</p><p>One.\nTwo.</p><pre>一\n二</pre><script>'一\n二'</script>"
    assert site_build.join_chinese_lines(html) == (
        "<p>第一句。第二句，第三句</p><p>One.\nTwo.</p><pre>一\n二</pre><script>'一\n二'</script>")
    # after Chinese punctuation a Latin word or a figure follows without a space too
    assert site_build.join_chinese_lines("<p>对照。\nT = 1 时最快。\n2.10× 快。</p>") == "<p>对照。T = 1 时最快。2.10× 快。</p>"


def test_a_declared_family_families_json_has_not_swept_yet_is_named():
    data = site_build.load_results()
    assert site_build.unmeasured(data) == []
    data["registry"]["families"].append({**data["registry"]["families"][1], "name": "echo"})
    assert site_build.unmeasured(data) == ["echo"]


def verdict_html(runs):
    """What macros.verdict prints for a row with these paired speedups (its verdict from views), in the
    build's own template environment, with the committed registry's names."""
    env = site_build.environment(site_build.TEMPLATES)
    registry = site_build.load_results()["registry"]
    env.globals["registry"].update({"families": {f["name"]: f for f in registry["families"]},
                                    "engines": {e["name"]: e["label"] for e in registry["engines"]}})
    row = {"speedup_runs": runs, "verdict": paired_verdict(runs)}
    return env.from_string('{% from "macros.html.j2" import verdict %}{{ verdict(row) }}').render(row=row)


def test_every_verdict_follows_the_rule_and_only_the_verdict_macro_words_one():
    faster, straddling = {"min": 1.05, "max": 1.4, "n": 7}, {"min": 0.87, "max": 1.77, "n": 7}
    page = f"<p>The draft model ran 1.13× {verdict_html(straddling)}; the n-gram table, {verdict_html(faster)}.</p>"
    assert site_build.verdict_clashes(page) == []
    # a badge: the verdict, the range, the pairs, in each language; a link to the rule stated once in ⑥
    shown = lambda html: [re.sub(r"<[^>]+>", "", s) for s in re.findall(r'<span lang="(?:zh|en)">((?:(?!</a>).)*?)</span>(?=<span lang="en">|</a>)', html)]
    assert shown(page) == ["分不出 · 0.87–1.77× · 7 对", "can&#39;t tell · 0.87–1.77× · 7 pairs", "更快 · 1.05–1.40× · 7 对", "faster · 1.05–1.40× · 7 pairs"]
    # each part stays on one line: a narrow column wraps a badge only between its parts
    assert '<span class="nowrap">0.87–1.77×</span> · <span class="nowrap">7 pairs</span>' in page
    assert page.count('href="#rule-verdict"') == 2
    # ...and screen readers hear the words shown, then the full sentence, in both languages
    assert 'data-aria-en="faster · 1.05–1.40× · 7 pairs: faster than plain decoding in all 7 paired repeats"' in page
    assert 'data-aria-zh="更快 · 1.05–1.40× · 7 对：7 次成对测量都比普通解码快"' in page
    # a verdict badge that says faster for repeats that cross 1x is caught
    lying = verdict_html(faster).replace('data-min="1.05"', 'data-min="0.95"')
    assert "rule gives 'unclear'" in site_build.verdict_clashes(lying)[0]
    # so is one whose words are not its runs' (the range, or the word)
    for wrong in (verdict_html(faster).replace(">1.05–1.40×<", ">1.25–1.40×<"), verdict_html(faster).replace(">faster<", ">slower<")):
        assert "a verdict badge reads" in site_build.verdict_clashes(wrong)[0]
    # so is a sentence that calls a row faster without the macro, in either language
    for sentence in ("<p>It is 1.13× faster than plain decoding.</p>", "<p>草稿模型比普通解码快。</p>",
                     "<p>the draft model beats plain decoding</p>"):
        assert "outside the verdict rule" in site_build.verdict_clashes(sentence)[0], sentence
        with pytest.raises(site_build.BuildError, match="verdicts off the rule"):
            site_build.check_verdicts(sentence)
    # ...unless the sentence states the rule itself
    assert site_build.verdict_clashes("<p>9 families beat plain decoding in every paired repeat.</p>") == []
    assert site_build.verdict_clashes("<p>每次成对测量都比普通解码快。</p>") == []


def test_a_verdict_badge_words_its_runs_as_the_widgets_twin_does():
    """rows.verdict_badge, as tests/js/helpers.test.mjs holds format.js verdictBadgeText to the same words."""
    assert verdict_badge({"min": 2.16, "max": 3.02, "n": 3}) == {"zh": "更快 · 2.16–3.02× · 3 对", "en": "faster · 2.16–3.02× · 3 pairs"}
    assert verdict_badge({"min": 0.61, "max": 0.7, "n": 5}) == {"zh": "更慢 · 0.61–0.70× · 5 对", "en": "slower · 0.61–0.70× · 5 pairs"}
    assert verdict_badge({"min": 0.95, "max": 1.1, "n": 3}) == {"zh": "分不出 · 0.95–1.10× · 3 对", "en": "can't tell · 0.95–1.10× · 3 pairs"}
    assert verdict_badge({"min": 1.0, "max": 1.2, "n": 3})["en"] == "can't tell · 1.00–1.20× · 3 pairs"  # 1× itself is not above 1×
    assert verdict_badge({"min": 1.4, "max": 1.4, "n": 1}) == {"zh": "只测一次", "en": "one run"}
    js = (site_build.ROOT / "static/js/format.js").read_text(encoding="utf-8")
    for word in ("更快", "更慢", "分不出", "只测一次", "faster", "slower", "can't tell", "one run"):
        assert f'"{word}"' in js, word


def test_a_second_render_in_one_process_reads_its_own_registry():
    """The template environment is kept between renders; the names macros.html.j2 prints must
    still come from the results of each render, not the first one's."""
    data = site_build.load_results()
    site_build.render(data)
    family = data["registry"]["families"][0]
    data["registry"]["families"][0] = {**family, "label": {**family["label"], "en": "Renamed-in-this-test"}}
    html = re.sub(r"<script\b.*?</script>", "", site_build.render(data), flags=re.S)
    assert "Renamed-in-this-test" in html


def test_the_build_assembles_the_kernel_with_the_makefiles_wabt_and_names_any_other(tmp_path, monkeypatch):
    pin = re.search(r"^WABT_VERSION := (\S+)$", (ROOT / "Makefile").read_text(), re.M).group(1)
    assert pin == site_build.WABT_VERSION
    other = tmp_path / "wabt"
    other.mkdir()
    (other / "package.json").write_text('{"name": "wabt", "version": "1.0.30"}')
    monkeypatch.setenv("WABT", str(other))
    with pytest.raises(site_build.UsageError, match=r"version 1\.0\.30; the page is assembled with .*make wabt"):
        site_build.lab_kernel()
    monkeypatch.setenv("WABT", str(tmp_path / "nowhere"))
    with pytest.raises(site_build.UsageError, match="not installed.*make wabt"):
        site_build.lab_kernel()


def rerun_folder(tmp_path, **files):
    """A results folder with the committed files and reruns/ holding the given {name: object}."""
    copy_results(tmp_path)
    shutil.rmtree(tmp_path / site_build.RERUNS, ignore_errors=True)
    (tmp_path / site_build.RERUNS).mkdir()
    for name, obj in files.items():
        (tmp_path / site_build.RERUNS / name).write_text(json.dumps(obj))
    return tmp_path


def committed_regime():
    return json.loads((ROOT / "experiments/results/regime.json").read_text())


def test_without_a_rerun_of_the_dial_the_build_reads_none(tmp_path):
    copy_results(tmp_path)
    shutil.rmtree(tmp_path / site_build.RERUNS, ignore_errors=True)
    assert site_build.load_rerun(site_build.load_results(tmp_path), tmp_path) is None
    rerun_folder(tmp_path)  # an empty reruns/ folder
    assert site_build.load_rerun(site_build.load_results(tmp_path), tmp_path) is None


def test_the_newest_rerun_of_the_dial_is_read_by_its_date(tmp_path):
    old, new = committed_regime(), committed_regime()
    old["meta"] |= {"date": "2026-01-01T00:00:00Z", "git_commit": "aaaaaaa0"}
    new["meta"] |= {"date": "2026-02-01T00:00:00Z", "git_commit": "bbbbbbb0"}
    folder = rerun_folder(tmp_path, **{"regime_zzz.json": old, "regime_aaa.json": new})
    assert site_build.load_rerun(site_build.load_results(folder), folder)["meta"]["git_commit"] == "bbbbbbb0"


@pytest.mark.parametrize("damage, what", [
    (lambda obj: obj["meta"].pop("git_commit"), "missing field 'meta.git_commit'"),
    (lambda obj: obj["points"][0].pop("r"), "missing field 'points.0.r'"),
])
def test_a_malformed_rerun_of_the_dial_is_named_in_one_line(tmp_path, capsys, damage, what):
    """A rerun file that breaks regime.json's schema stops the build with one line naming the file."""
    obj = committed_regime()
    damage(obj)
    folder = rerun_folder(tmp_path, **{"regime_bad.json": obj})
    with pytest.raises(ResultsError, match=f"reruns/regime_bad.json: {re.escape(what)}"):
        site_build.load_rerun(site_build.load_results(folder), folder)
    assert site_build.main(folder, tmp_path / "page.html") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: reruns/regime_bad.json") and err.count("\n") == 1
    assert not (tmp_path / "page.html").exists()


def test_the_rerun_reaches_the_dial_view_but_never_the_page_data():
    """The rerun's sentence is on the page (its commit, short), while no script data holds the rerun (its date)."""
    data, rerun, _ = dipped()
    page = site_build.render(data, rerun)
    scripts = "".join(re.findall(r"<script\b.*?</script>", page, flags=re.S))
    assert rerun["meta"]["git_commit"][:7] in re.sub(r"<script\b.*?</script>", "", page, flags=re.S)
    assert rerun["meta"]["date"] not in scripts and rerun["meta"]["git_commit"] not in scripts


def test_the_rerun_sentence_prints_both_runs_figures_under_the_dial():
    """Above the dial: how many lines dip in the rerun; in the deep dive "What sets each
    row's speedup": the rerun's commit, and the dip's verify in the committed run against the family's
    other scales and its verify in the rerun, each as the view computed it."""
    data, rerun, family = dipped()
    page = site_build.render(copy.deepcopy(data), copy.deepcopy(rerun))
    tag_regime(data)
    tag_regime({"regime": rerun}, run="rerun")
    note = rerun_note(data["regime"], rerun, family)
    english = re.search(r'<p class="rerun-note" lang="en">(.*?)</p>', page, flags=re.S)
    text = re.sub(r"<[^>]+>", "", english.group(1))
    assert f"{note['dipping_rerun']} of {note['families']} lines dipped" in text
    assert note["rerun_commit"] not in text  # the main path's sentence names no commit; the deep dive below does
    priced = re.search(r'<p lang="en" class="rerun-verify">(.*?)</p>', page, flags=re.S)
    text = re.sub(r"<[^>]+>", "", priced.group(1))
    figures = [note["row"]["verify_over_main"], note["verify_elsewhere"]["min"], note["verify_elsewhere"]["max"],
               note["rerun_row"]["verify_over_main"]]
    assert note["verify_dear"] and all(f"{x:.2f}" in text for x in figures), text
    assert note["rerun_commit"] in text
    # a rerun from another machine says nothing of this dip: neither sentence is printed
    elsewhere = {**rerun, "meta": {**rerun["meta"], "device": "another CPU"}}
    page = site_build.render(copy.deepcopy(data), elsewhere)
    assert 'class="rerun-note"' not in page and 'class="rerun-verify"' not in page


class _Boxes(HTMLParser):
    """Each element with an id: whether a <details> holds it, and its data-hash-keys."""

    def __init__(self):
        super().__init__()
        self.open_details, self.found = 0, {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.found[attrs["id"]] = (self.open_details > 0, attrs.get("data-hash-keys"))
        self.open_details += tag == "details"

    def handle_endtag(self, tag):
        self.open_details -= tag == "details"


def test_a_boxed_widget_declares_the_hash_keys_it_writes(rendered_page):
    """deep.js opens a box when the address holds a key of a widget inside it, so the box's widget must
    declare (data-hash-keys) exactly the keys its init function writes with hashSet; a widget on the
    main path declares none."""
    js = ROOT / "static" / "js"
    main = (js / "main.js").read_text()
    module = {name.strip(): path for names, path in re.findall(r'import \{([^}]*)\} from "\./(\w+\.js)"', main)
              for name in names.split(",")}
    parser = _Boxes()
    parser.feed(re.sub(r"<script\b.*?</script>", "", rendered_page, flags=re.S))
    checked = 0
    for widget, init in re.findall(r'\["([\w-]+)", \(\) => (init\w+)\(', main):
        source = (js / module[init]).read_text()
        start = source.index(f"export function {init}(")
        end = source.find("\nexport ", start + 1)
        body = source[start:end if end > 0 else None]
        writes = set(re.findall(r'hashSet\("(\w+)"', body))
        for table in re.findall(r'hashSet\((\w+_HASH)\[', body):  # keys from a table (lab_text.js LAB_HASH): its values
            text = "".join(f.read_text() for f in js.glob("*.js"))
            entries = re.search(rf"export const {table} = \{{([^}}]*)\}}", text).group(1)
            writes |= set(re.findall(r':\s*"([\w-]+)"', entries))
        boxed, declared = parser.found[widget]
        if boxed and writes:
            assert declared and set(declared.split()) == writes, widget
            checked += 1
        else:
            assert declared is None, widget
    assert checked >= 5
