"""Render templates/ + static/ + experiments/results/*.json into one self-contained page.

    python -m chapter.build [--results DIR] [--out FILE]
    # what `make site` runs (experiments/results -> site/); needs jinja2, orjson, latex2mathml, not torch

Every results file is checked first: against chapter/schema.py (each field's kind, the families and
engines registry.json declares) and chapter/facts.py (what the templates rely on across fields). CSS
is inlined; the JS modules in static/js/ are bundled into one classic script (chapter/bundle.py), each
module wrapped in its own function scope; the data goes in as <script type="application/json"> with every '<'
escaped; LaTeX becomes MathML here, at build time.

A failed build prints one line on stderr, `error: <what>`, and no traceback. Exit status 2: the input
is at fault (a flag, --out, a results file that is missing, unreadable, not JSON or breaks the
contract; the message names the file and field). Exit status 1: the project's own sources are (a
template, static/, the page's own checks check_figures and check_verdicts, or an error the checks
let through, named with the template line it arose at).
"""
import argparse
import functools
import html as html_lib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

import jinja2
import orjson
from latex2mathml.converter import convert as latex_to_mathml
from markupsafe import Markup

from chapter.bundle import STYLE_BREAKERS, bundle_js, refuse_inlining_breakers
from chapter.code_trail import CODE_TRAIL
from chapter.errors import BuildError, UsageError
from chapter.facts import check_facts
from chapter.listings import ListingError, listings
from chapter.schema import SCHEMA, ResultsError
from chapter.views import section_views
from chapter.views.choosing import published
from chapter.views.dial import dial_view, peer_view
from chapter.views.lab import lab_compare
from chapter.views.mtp import deepseek_scale
from chapter.views.rows import BADGE_SEP, paired_verdict, tag_regime, tag_rows, verdict_badge

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "experiments" / "results"
TEMPLATES = ROOT / "templates"
STATIC = ROOT / "static"
OUT = ROOT / "site" / "16_speculative_decoding_viz.html"
KERNEL = STATIC / "wasm"  # the lab's WebAssembly kernel: lab_kernel.mjs writes it, assemble.mjs assembles it
WABT = ROOT / ".cache" / "wabt" / "node_modules" / "wabt"  # `make wabt` puts it here; $WABT names another
WABT_VERSION = "1.0.39"  # the Makefile's pin (a test holds them equal): another wabt may write other bytes
TYPES = {"num": (int, float), "int": int, "str": str, "list": list, "obj": dict, "bool": bool,
         "family": str, "engine": str}  # family, engine: a name registry.json declares (registry_names)
# a family's or an engine's name, as the page uses it: a key of the scripts' objects (so never
# __proto__), a class, an attribute and part of the page's address (#lab-m=ngram)
PLACEABLE = re.compile(r"[a-z][a-z0-9_]*")


def check_value(value, kind, filename, where, names):
    """The value at the end of a declared path against its kind ('num', 'int+', 'family', ...)."""
    base = kind.removesuffix("+")
    expected = TYPES.get(base)
    if expected and (not isinstance(value, expected) or (base != "bool" and isinstance(value, bool))):
        raise ResultsError(f"{filename}: field '{where}' should be {base}, got {type(value).__name__}")
    if kind.endswith("+") and not value > 0:
        raise ResultsError(f"{filename}: field '{where}' should be above 0, got {value}")
    if base in names and value not in names[base]:
        raise ResultsError(f"{filename}: field '{where}' names the {base} {value!r}, which registry.json does not declare")


def check_field(obj, parts, kind, filename, where="", names=None):
    """Walk a dotted path ('*' = every key/item); fail naming the first missing piece. A part
    ending in '?' is optional: 'x?' may be absent or null (what follows it is checked when it is
    there), '*?' may be an empty object or list. names: {'family': the registry's names, 'engine':
    ...} (registry_names); without it a family or an engine is only checked to be a string."""
    if not parts:
        check_value(obj, kind, filename, where, names or {})
        return
    key, rest = parts[0], parts[1:]
    optional, key = key.endswith("?"), key.removesuffix("?")
    if key == "*":
        items = list(obj.items()) if isinstance(obj, dict) else list(enumerate(obj)) if isinstance(obj, list) else None
        if not items and not (optional and items == []):
            raise ResultsError(f"{filename}: field '{where}' should be a non-empty object or list")
    elif optional and (not isinstance(obj, dict) or obj.get(key) is None):
        return  # absent: a value that is not an object has no field either (costs.*.params? at costs.main_params)
    elif not isinstance(obj, dict) or key not in obj:
        raise ResultsError(f"{filename}: missing field '{where + '.' if where else ''}{key}'")
    else:
        items = [(key, obj[key])]
    for k, value in items:
        check_field(value, rest, kind, filename, f"{where}.{k}" if where else str(k), names)


WHOLE = None  # a declared path ends here: the value is passed on whole, whatever it holds


def declared_tree(fields):
    """The schema's paths of one file as a tree: {'rows': {'*': {'alpha': WHOLE, ...}}, ...}."""
    tree = {}
    for field in fields:
        parts = [part.removesuffix("?") for part in field.partition(":")[0].split(".")]
        node = tree
        for part in parts[:-1]:
            if node.get(part, {}) is WHOLE:
                break  # an ancestor is passed whole already
            node = node.setdefault(part, {})
        else:
            node[parts[-1]] = WHOLE
    return tree


def merge(a, b):
    if a is WHOLE or b is WHOLE:
        return WHOLE
    return {key: merge(a[key], b[key]) if key in a and key in b else a.get(key, b.get(key)) for key in {**a, **b}}


def keep_declared(obj, tree):
    """Only what the schema declares: what the page is given, so that a field the scripts read
    but the schema lacks fails in the browser test instead of working by accident."""
    if tree is WHOLE or obj is None:
        return obj
    if isinstance(obj, list):
        return [keep_declared(item, tree["*"]) for item in obj] if "*" in tree else []
    if not isinstance(obj, dict):
        return obj
    out = {}
    for key, value in obj.items():
        subtrees = [tree[k] for k in (key, "*") if k in tree]
        if subtrees:
            out[key] = keep_declared(value, subtrees[0] if len(subtrees) == 1 else merge(*subtrees))
    return out


def read_results(path):
    if not path.exists():
        raise ResultsError(f"missing results file {path}: run `make measure` (or `make data`)")
    if not path.is_file():
        raise ResultsError(f"results file {path} is not a file: remove it and run `make measure`")
    try:
        return orjson.loads(path.read_bytes())
    except OSError as err:
        raise ResultsError(f"cannot read results file {path}: {err.strerror or err}") from err
    except orjson.JSONDecodeError as err:
        raise ResultsError(f"results file {path} is not valid JSON: {err}") from err


def check_fields(obj, filename, names=None, shown=None):
    """obj against SCHEMA[filename]; an error names the file as `shown` (a rerun's own path) or filename."""
    for field in SCHEMA[filename]:
        path_part, _, kind = field.partition(":")
        check_field(obj, path_part.split("."), kind, shown or filename, names=names)


def registry_names(registry):
    """{'family': names, 'engine': names}: what registry.json declares, each name one the page can
    place (PLACEABLE) and declared once, or a ResultsError naming the entry."""
    names = {}
    for kind, entries in (("family", "families"), ("engine", "engines")):
        declared = []
        for i, entry in enumerate(registry[entries]):
            where = f"registry.json: field '{entries}.{i}.name'"
            if not PLACEABLE.fullmatch(entry["name"]):
                raise ResultsError(f"{where} is {entry['name']!r}: the page cannot place that {kind} (a name is "
                                   f"lowercase letters, digits and _, from a letter: a key, a class, part of an address)")
            if entry["name"] in declared:
                raise ResultsError(f"{where} declares the {kind} {entry['name']!r} a second time")
            declared.append(entry["name"])
        names[kind] = set(declared)
    return names


def load_results(results_dir=RESULTS):
    """Every results file, checked against the schema (registry.json first: the others name its
    families and engines) and its facts across fields (chapter/facts.py), cut down to the fields
    it declares."""
    files = {filename: read_results(Path(results_dir) / filename) for filename in SCHEMA}
    check_fields(files["registry.json"], "registry.json")
    names = registry_names(files["registry.json"])
    for filename, obj in files.items():
        check_fields(obj, filename, names)
    data = {filename.removesuffix(".json"): keep_declared(obj, declared_tree(SCHEMA[filename]))
            for filename, obj in files.items()}
    check_facts(data)
    return data


RERUNS = "reruns"  # experiments/results/reruns/regime_*.json: full reruns of the dial (load_rerun)


def load_rerun(data, results_dir=RESULTS):
    """The newest full rerun of the dial, or None when there is none: of the files
    experiments/results/reruns/regime_*.json, the one whose meta.date is latest, checked against
    regime.json's schema (a ResultsError names the file) and cut down to its fields. It is not part of
    the chapter data: render() passes it to ⑥'s dial view alone, which says what of the committed
    dial it does not reproduce, and never to the page's scripts."""
    names = registry_names(data["registry"])
    reruns = []
    for path in sorted((Path(results_dir) / RERUNS).glob("regime_*.json")):
        obj = read_results(path)
        if not isinstance(obj, dict):
            raise ResultsError(f"{RERUNS}/{path.name}: a rerun of the dial should be an object, as regime.json is")
        check_fields(obj, "regime.json", names, shown=f"{RERUNS}/{path.name}")
        reruns.append(keep_declared(obj, declared_tree(SCHEMA["regime.json"])))
    return max(reruns, key=lambda r: r["meta"]["date"], default=None)


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "+")


def ms_pair(a, b, places=3):
    """Two times in seconds as ms strings whose quotient, rounded to `places`, is a / b rounded so:
    the fewest decimals (at least 4) that let a reader divide the printed times to the printed ratio."""
    for decimals in range(4, 10):
        shown = [f"{1000 * x:.{decimals}f}" for x in (a, b)]
        if round(float(shown[0]) / float(shown[1]), places) == round(a / b, places):
            return shown
    return shown


def sci(x, digits=2):
    """The page's number style for small measured values, as static/js/format.js sci():
    3.8×10⁻⁶; values from 0.01 to 10,000 are written plainly."""
    if x == 0:
        return "0"
    if 0.01 <= abs(x) < 1e4:
        return f"{x:.{digits + 1}f}"
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    return f"{mantissa}×10{str(int(exponent)).translate(SUPERSCRIPT)}"


def tex(latex, display=False):
    """LaTeX to MathML, at build time. Display math sits in a box that scrolls sideways on a
    narrow screen instead of being cut off."""
    if display:
        return f'<div class="math-block">{latex_to_mathml(latex, display="block")}</div>'
    return latex_to_mathml(latex, display="inline")


def shuffled(items, key):
    """The items in an order fixed by `key` (a quiz question's id): answer positions vary from
    question to question, and every build writes the same page."""
    items = list(items)
    random.Random(key).shuffle(items)  # a str seed is hashed with SHA-512: the same on every run
    return items


def json_for_html(obj):
    """JSON safe inside <script type="application/json">: no '<' can close the tag."""
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS).decode().replace("<", "\\u003c")


LAB = "lab"                # its own <script id="lab-data">: the lab parses it once its fold is open and in view


def lab_meta(lab):
    """The lab's small facts, for the chapter data (the weights stay in lab-data)."""
    return {"meta": lab["meta"], "vocab": lab["vocab"], "model_seed": lab["model_seed"],
            "check_chars": lab["check_chars"], "rounding": lab["rounding"],
            "main_params": lab["main"]["params"], "draft_params": lab["draft"]["params"],
            "ngram": {k: v for k, v in lab["ngram"].items() if k != "blob"}}


def script_data(page_data):
    """The chapter data as the page's script gets it. The families' sweep is cut to the n-gram chains
    at T = 1 that the token tree reads, and the dial's choosing passes and the ladder's rows beside
    each rung's best are left out: the templates print them, and the HTML parser reads every byte
    of the data before the page's script can run."""
    families, regime, ladder = page_data["families"], page_data["regime"], page_data["ladder"]
    tree_rows = [r for r in families["sweep"] if r["family"] == "ngram" and r["temperature"] == 1]
    points = [{k: v for k, v in p.items() if k != "choose"} for p in regime["points"]]
    rungs = {key: [{k: v for k, v in r.items() if k != "rows"} for r in rs] for key, rs in ladder.get("rungs", {}).items()}
    return {**page_data, "families": {**families, "sweep": tree_rows}, "regime": {**regime, "points": points},
            "ladder": {**ladder, "rungs": rungs}}


def inline_css(css_dir=STATIC / "css"):
    """Every stylesheet in static/css/, in name order, checked to be safe inside <style>."""
    sources = []
    for path in sorted(Path(css_dir).glob("*.css")):
        source = path.read_text(encoding="utf-8")
        refuse_inlining_breakers(f"static/css/{path.name}", source, STYLE_BREAKERS)
        sources.append(source)
    return "\n".join(sources)


@functools.cache
def environment(templates):
    """The templates' environment, one per folder: compiling the templates is most of a render, and
    jinja2 keeps them compiled (recompiling one whose file changed)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(templates),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.globals["tex"] = lambda latex, display=False: Markup(tex(latex, display))
    env.filters["sci"] = sci
    env.globals["ms_pair"] = ms_pair
    env.filters["shuffled"] = shuffled
    env.globals["verdict_badge"] = verdict_badge  # chapter/views/rows.py: a verdict's badge words (macros.verdict)
    env.globals["badge_sep"] = BADGE_SEP  # and the separator a narrow column may wrap them at (macros.badge_text)
    env.globals["trails"] = CODE_TRAIL  # chapter/code_trail.py: the end of every section
    # Filled anew by every render, in place: jinja2 keeps an imported template (macros.html.j2) with
    # the globals it first saw, so a new object here would not reach it.
    env.globals["listings"], env.globals["registry"] = {}, {}
    return env


def lab_kernel():
    """The lab's WebAssembly kernel (static/wasm/lab_kernel.mjs), assembled by wabt, as base64."""
    wabt = Path(os.environ.get("WABT", WABT)).resolve()  # node resolves a relative path from static/wasm/
    if not (wabt / "package.json").is_file():
        raise UsageError(f"wabt is not installed at {wabt}: run `make wabt` (it installs the pinned version from npm)")
    version = json.loads((wabt / "package.json").read_text(encoding="utf-8")).get("version")
    if version != WABT_VERSION:  # the committed page is checked byte for byte against a rebuild
        raise UsageError(f"wabt at {wabt} is version {version}; the page is assembled with {WABT_VERSION}: run `make wabt`")
    if shutil.which("node") is None:
        raise UsageError("node is not on PATH: the build assembles the lab's WebAssembly kernel with it")
    sources = tuple((KERNEL / name).read_text(encoding="utf-8") for name in ("lab_kernel.mjs", "assemble.mjs"))
    return assembled(sources, str(wabt))


@functools.cache
def assembled(sources, wabt):  # keyed on the sources' text: a test that edits them gets a new module
    run = subprocess.run(["node", str(KERNEL / "assemble.mjs"), wabt], capture_output=True, text=True)
    if run.returncode != 0:
        lines = run.stderr.strip().splitlines()
        cause = next((line for line in lines if "Error" in line), lines[-1] if lines else f"exit status {run.returncode}")
        raise BuildError(f"assembling static/wasm/lab_kernel.mjs failed: {cause.strip()}")
    return run.stdout


def refill(mapping, new):
    mapping.clear()
    mapping.update(new)


def prepared(data):
    """The page data the templates, the views and the scripts read: the loaded results without the
    lab's weights, every timed row tagged, and the views the scripts read as well."""
    page_data = {k: v for k, v in data.items() if k != LAB}
    page_data["lab_meta"] = lab_meta(data[LAB])
    tag_rows(page_data)  # chapter/views/rows.py: the condition each timed row's figures are printed under
    tag_regime(page_data)  # chapter/views/rows.py: the same for the dial's rows, and each row's verdict
    page_data["dial"] = dial_view(page_data)  # chapter/views/dial.py: what ⑥'s dial says in words
    page_data["peer_twin"] = peer_view(page_data)  # chapter/views/dial.py: ⑥'s table of the library on the heaviest twin
    page_data["lab_compare"] = lab_compare(page_data)  # chapter/views/lab.py: the rows ⑧ holds the lab to
    page_data["published"] = published()  # static/data/published.json: papers' figures, for ⑦'s picker
    page_data["deepseek"] = deepseek_scale(page_data, page_data["published"])  # ④'s FAQ: the scales apart
    return page_data


def render(data, rerun=None):
    """The page from the loaded results; rerun: load_rerun's file or None, for ⑥'s dial view only."""
    env = environment(TEMPLATES)
    refill(env.globals["listings"], listings())  # chapter/listings.py: ①'s code, read from the source it shows
    refill(env.globals["registry"], {  # registry.json: every family's and engine's name (macros fname, engine_name)
        "families": {f["name"]: f for f in data["registry"]["families"]},
        "engines": {e["name"]: e["label"] for e in data["registry"]["engines"]}})
    css = inline_css()
    page_data = prepared(data)
    if rerun is not None:  # its rows' figures get a condition of their own: another measurement of the same rows
        tag_regime({"regime": rerun}, run=f"rerun-{rerun['meta']['git_commit'][:7]}")
    return join_chinese_lines(env.get_template("page.html.j2").render(
        data=page_data, view=section_views(page_data, {"dial": {"rerun": rerun}}), css=css, js=bundle_js(),
        data_parts=[(key, json_for_html(part)) for key, part in sorted(script_data(page_data).items())],
        lab_json=json_for_html(data[LAB]), lab_kernel=lab_kernel()))


# The templates hold one sentence per line. Between two Chinese sentences that line break would
# render as a space (CSS's segment-break rule that drops it between Chinese characters is not in
# every browser): it is taken out, outside scripts, styles and preformatted text; so is one after
# Chinese punctuation (。，；：）) before a Latin word or a figure, where a space would show as well.
CHINESE_BREAK = re.compile(r"<(script|style|pre)\b.*?</\1>|(?<=[\u3000-\u303f\u3400-\u9fff\uff00-\uffef])\n(?=[\u3400-\u9fff])"
                           r"|(?<=[\u3000-\u303f\uff00-\uffef])\n(?=\S)",  # after a Chinese full stop or comma, before anything
                           re.S)


def join_chinese_lines(html):
    return CHINESE_BREAK.sub(lambda m: m.group(0) if m.group(1) else "", html)


# a figure tagged by macros.fig: its quantity (a glossary id without "g-"), its condition, its text
FIGURE = re.compile(r'<span class="fig" data-q="([^"]+)" data-c="([^"]*)">([^<]*)</span>')


def decimals(text):
    return len(text.split(".")[1]) if "." in text else 0


def same_value(a, b):
    """Two printings of one figure agree when one value rounds to both: the intervals each text
    stands for overlap ("0.77" and "0.770"; "5.55" and "5.6", both from 5.5531, though 5.55 itself
    would round to 5.5). At one precision that means the same text."""
    try:
        x, y = float(a.replace(",", "")), float(b.replace(",", ""))
    except ValueError:
        return a == b
    half = lambda text: 0.5 * 10.0 ** -decimals(text)
    return abs(x - y) < half(a) + half(b) - 1e-12


def figure_clashes(figures, glossary):
    """One quantity, one definition, one value per condition: every figure, a (quantity, condition,
    text) triple, names a quantity the glossary defines, and no quantity is printed with two values
    under one condition. Raises BuildError; returns {(quantity, condition): the finest text}. The
    build checks the page as rendered (check_figures); the browser test, what the widgets drew."""
    seen = {}
    for quantity, condition, text in figures:
        if quantity not in glossary:
            raise BuildError(f"a figure is tagged with the quantity {quantity!r}, which the glossary does not define")
        seen.setdefault((quantity, condition), []).append(text)
    clashes = [f"{q} [{c}]: {' and '.join(sorted(set(texts)))}" for (q, c), texts in sorted(seen.items())
               if not all(same_value(texts[0], text) for text in texts)]
    if clashes:
        raise BuildError("one quantity printed with two values under one condition: " + "; ".join(clashes))
    return {key: max(texts, key=decimals) for key, texts in seen.items()}


def check_figures(html):
    """figure_clashes over the figures tagged in the rendered page (outside its scripts: the
    widgets' figures are checked in the browser), against its glossary's ids."""
    text = re.sub(r"<script\b.*?</script>", "", html, flags=re.S)
    return figure_clashes(FIGURE.findall(text), set(re.findall(r'id="g-([\w-]+)"', text)))


# a verdict badge printed by macros.verdict (or format.js verdictBadgeHTML), with the paired speedups
# it was judged on: its class, its verdict, min, max, n, and the words it shows in each language
VERDICT = re.compile(r'<a class="verdict v-(\w+)" href="#rule-verdict" data-v="(\w+)" data-min="([^"]+)" data-max="([^"]+)" '
                     r'data-n="(\d+)"[^>]*><span lang="zh">(.*?)</span><span lang="en">(.*?)</span></a>', re.S)
# a badge's words may sit in spans of their own (macros.badge_text), which VERDICT's groups hold as they are
TAGS = re.compile(r"<[^>]+>")
# wording that calls a row faster or slower than plain decoding: only macros.verdict may print it,
# or a sentence that states the rule itself ("in every paired repeat", 每次成对测量都/里都)
VERDICT_WORDS = re.compile(r"\b(?:(?:faster|slower) than|beats?) plain decoding(?! in (?:every|all \d+) paired repeats?)|"
                           r"(?<!成对测量都)(?<!成对测量里都)(?:比普通解码还?[快慢]|[快慢](?:过|于)普通解码)")


def verdict_clashes(html):
    """Every verdict badge on the page follows the one rule (views.paired_verdict) for the paired
    speedups it was printed with, and shows the words rows.verdict_badge gives them; no sentence calls
    a row faster or slower than plain decoding except through macros.verdict. Returns the problems,
    each in a line."""
    text = re.sub(r"<script\b.*?</script>|<style\b.*?</style>", "", html, flags=re.S)
    problems = []
    for cls, v, lo, hi, n, *words in VERDICT.findall(text):
        runs = {"min": float(lo), "max": float(hi), "n": int(n)}
        zh, en = (html_lib.unescape(TAGS.sub("", w)) for w in words)
        if v != (rule := paired_verdict(runs)) or cls != v:
            problems.append(f"a verdict says {v!r} (class v-{cls}) where the rule gives {rule!r} (paired repeats {lo}–{hi}, n = {n})")
        elif [zh, en] != [(want := verdict_badge(runs))["zh"], want["en"]]:
            problems.append(f"a verdict badge reads {en!r} / {zh!r} where its runs give {want['en']!r} / {want['zh']!r}")
    rest = TAGS.sub("", VERDICT.sub("", text))
    problems += [f"a sentence calls a row faster or slower outside the verdict rule: …{rest[max(0, m.start() - 80):m.end() + 20]}…"
                 for m in VERDICT_WORDS.finditer(rest)]
    return problems


def check_verdicts(html):
    problems = verdict_clashes(html)
    if problems:
        raise BuildError("verdicts off the rule (a row is faster or slower only when every paired repeat is on one "
                         "side of 1×; write it with macros.verdict): " + "; ".join(p.replace("\n", " ") for p in problems))


def template_error(err, what=None):
    """An error raised while rendering, with the template and line it arose at (jinja2 puts each
    template line it ran into the traceback as a frame of its own, the deepest last). what: the
    error's text (a jinja2 error's message by default)."""
    what = what or err.message or str(err)
    frames = [frame for frame in traceback.extract_tb(err.__traceback__)
              if Path(frame.filename).is_relative_to(TEMPLATES)]
    if not frames:
        return what
    path = Path(frames[-1].filename)
    return f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{frames[-1].lineno}: {what}"


def write_page(html, out):
    """Write the page via a temp file and a rename; a path that cannot take it is a UsageError
    and leaves nothing behind."""
    tmp = out.with_name(out.name + ".tmp")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(html, encoding="utf-8")
        os.replace(tmp, out)
    except OSError as err:
        if tmp.is_file():
            tmp.unlink()
        raise UsageError(f"cannot write --out {out}: {err.strerror or err}") from None


def build(results_dir=RESULTS, out=OUT):
    out = Path(out)
    if out.is_dir():  # before the build: the rename onto it would fail only at the end
        raise UsageError(f"--out {out} is a folder: give the page's file name, e.g. {out / OUT.name}")
    data = load_results(results_dir)
    html = render(data, load_rerun(data, results_dir))
    check_figures(html)
    check_verdicts(html)
    write_page(html, out)
    for name in unmeasured(data):  # after the page is written: a failed build prints its one error line alone
        print(f"note: registry.json declares family {name!r}, but families.json has no rows for it yet: "
              f"the page names it but shows none of its numbers until `make measure` sweeps it", file=sys.stderr)
    return out


def unmeasured(data):
    """The families the registry says families.json sweeps that it holds no rows for (declared since
    the last `make measure`)."""
    swept = set(data["families"]["families"])
    return [f["name"] for f in data["registry"]["families"] if f["measured"] and f["name"] not in swept]


def refuse(message, code):
    """The one line every failed build prints, `error: ...`, and its exit status."""
    print(f"error: {str(message).replace(chr(10), ' ')}", file=sys.stderr)
    return code


def main(results_dir=RESULTS, out=OUT):
    """Build the page; on failure one line on stderr and exit 2 when the input is at fault (the
    command line, a results file), 1 when the project's own sources are (a template, the page's own
    checks, the JS bundle)."""
    try:
        out = build(results_dir, out)
    except (UsageError, ResultsError) as err:
        return refuse(err, 2)
    except jinja2.TemplateError as err:
        return refuse(template_error(err), 1)
    except (BuildError, ListingError) as err:
        return refuse(err, 1)
    except Exception as err:  # a last resort: whatever the checks above let through is the build's own bug
        return refuse(f"building the page from {results_dir}: "
                      + template_error(err, f"{type(err).__name__}: {err}"), 1)
    shown = out.relative_to(ROOT) if out.resolve().is_relative_to(ROOT) else out
    print(f"wrote {shown} ({out.stat().st_size / 1024:.0f} KiB)")
    return 0


class OneLineParser(argparse.ArgumentParser):
    """argparse with experiments/cli.py ArgumentParser's one-line error (that module needs torch)."""

    def error(self, message):
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def parse_args(argv=None):
    parser = OneLineParser(prog="python -m chapter.build", description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS, help="the results JSON to build from")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the page")
    return parser.parse_args(argv)


if __name__ == "__main__":
    args = parse_args()
    sys.exit(main(args.results, args.out))
