"""The page's JavaScript, bundled: static/js's ES modules into one classic script for the page's
<script>, each module in its own function scope and its exports in one table, dependencies first.
Only the module syntax the page's sources use is accepted (`import { a, b } from "./x.js";` lines
and `export function/const/let/class`); anything else, an import cycle or a missing name is a
BuildError naming the file and line. The same check keeps a page's inlined <script> and <style>
from being ended early by their own text."""
import re
from pathlib import Path

from chapter.errors import BuildError

STATIC = Path(__file__).resolve().parent.parent / "static"
ENTRY = "main.js"

IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"\./([\w.-]+\.js)";[ \t]*$', re.M)
EXPORT = re.compile(r"^export\s+(?:async\s+)?(?:function\*?|const|let|class)\s+([A-Za-z_$][\w$]*)", re.M)
NAME = re.compile(r"^[A-Za-z_$][\w$]*$")
EXPORT_KEYWORD = re.compile(r"^export\s+", re.M)
REGISTRY = "__modules"  # the bundle's table of module exports, keyed by file name


# Text that ends (or, for `<!--`, can keep open) the element it is inlined into, whatever the
# JS or CSS around it means: the page would lose the rest of its script or styles.
SCRIPT_BREAKERS = {"</script": "would end the page's <script> early; write it as `<\\/script`",
                   "<!--": "can keep the page's <script> from ending; write it as `<\\!--`"}
STYLE_BREAKERS = {"</style": "would end the page's <style> early; write it as `<\\/style`"}


def refuse_inlining_breakers(where, source, breakers):
    """A BuildError naming file:line for the first text that would break the inlined element."""
    for number, line in enumerate(source.splitlines(), 1):
        for text, why in breakers.items():
            if text in line.lower():
                raise BuildError(f"{where}:{number}: `{text}` {why}")


REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^")  # after one of these (or at the start) a '/' opens a regex
REGEX_AFTER_WORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void",
                     "throw", "yield", "await", "instanceof"}
CLOSER = {"'": "'", '"': '"', "regex": "/", "class": "]"}  # a string, a regex, a regex's [...]
WORD = re.compile(r"[\w$.]+")


def lines_inside_literals(source):
    """The numbers (from 1) of the lines of a JS source that begin inside a string, a template
    literal, a regex or a block comment: a line there that starts with `import` or `export` is
    text, not a statement. A small lexer; a template's ${...} is code again, nested to any depth."""
    inside = set()
    stack = [["code", 0]]  # [mode, open braces]; a "code" entry above a "template" is its ${...}
    previous = ""  # the last token of code: decides whether a '/' is a division or opens a regex
    line, i, n = 1, 0, len(source)
    while i < n:
        char, mode = source[i], stack[-1][0]
        if char == "\n":
            line += 1
            if mode == "line comment":
                stack.pop()
            elif mode != "code":
                inside.add(line)
            i += 1
            continue
        if mode in CLOSER:
            if char == "\\" and source[i + 1:i + 2] != "\n":  # an escaped newline still starts a line
                i += 1
            elif mode == "regex" and char == "[":
                stack.append(["class", 0])
            elif char == CLOSER[mode]:
                stack.pop()
                previous = "x"  # a literal is a value: a '/' after it divides
        elif mode == "template":
            if char == "\\" and source[i + 1:i + 2] != "\n":  # an escaped newline still starts a line
                i += 1
            elif char == "`":
                stack.pop()
                previous = "x"
            elif source.startswith("${", i):
                stack.append(["code", 0])
                i += 1
        elif mode == "block comment":
            if source.startswith("*/", i):
                stack.pop()
                i += 1
        elif mode == "code":
            if source.startswith("//", i):
                stack.append(["line comment", 0])
            elif source.startswith("/*", i):
                stack.append(["block comment", 0])
                i += 1
            elif char in "'\"`":
                stack.append(["template" if char == "`" else char, 0])
            elif char == "/":
                opens_regex = previous == "" or previous in REGEX_AFTER or previous in REGEX_AFTER_WORDS
                if opens_regex:
                    stack.append(["regex", 0])
                previous = "/"
            elif char.isalnum() or char in "_$":
                word = WORD.match(source, i).group(0)
                previous = word
                i += len(word)
                continue
            elif not char.isspace():
                if char == "{":
                    stack[-1][1] += 1
                elif char == "}":
                    if stack[-1][1] == 0 and len(stack) > 1:
                        stack.pop()  # the end of a template's ${...}
                        previous = "x"
                        i += 1
                        continue
                    stack[-1][1] -= 1
                previous = char
        i += 1
    return inside


def parse_imports(name, names_text):
    """'a, b as c' -> [('a', 'a'), ('b', 'c')]: (exported name, local name)."""
    pairs = []
    for item in filter(None, (x.strip() for x in names_text.split(","))):
        exported, _, local = (part.strip() for part in item.partition(" as "))
        local = local or exported
        if not (NAME.match(exported) and NAME.match(local)):
            raise BuildError(f"static/js/{name}: cannot read the import '{item}'")
        pairs.append((exported, local))
    return pairs


def read_module(js_dir, name, importer):
    path = Path(js_dir) / name
    if not path.exists():
        raise BuildError(f"{f'static/js/{importer}' if importer else 'build'} imports missing module static/js/{name}")
    source = path.read_text(encoding="utf-8")
    refuse_inlining_breakers(f"static/js/{name}", source, SCRIPT_BREAKERS)
    inside = lines_inside_literals(source)
    for number, line in enumerate(source.splitlines(), 1):
        statement = re.match(r"\s*(import|export)\b", line)
        if statement and number in inside:
            raise BuildError(f"static/js/{name}:{number}: a line inside a string, template literal or comment "
                             f"starts with `{statement.group(1)}`, which the bundler would rewrite; reword that line")
    imports = [(dep, parse_imports(name, names)) for names, dep in IMPORT.findall(source)]
    body = IMPORT.sub("", source)
    if re.search(r"^\s*import\b", body, re.M):
        raise BuildError(f'static/js/{name}: only `import {{ ... }} from "./x.js";` lines are supported')
    exports = EXPORT.findall(body)
    leftover = re.search(r"^\s*export\b(?!\s+(?:async\s+)?(?:function\*?|const|let|class)\s)", body, re.M)
    if leftover:
        raise BuildError(f"static/js/{name}: only `export function/const/let/class name` is supported, "
                         f"not `{body[leftover.start():].splitlines()[0].strip()}`")
    if re.search(rf"\b{REGISTRY}\b", body):
        raise BuildError(f"static/js/{name}: the name {REGISTRY} is reserved for the bundle")
    return {"imports": imports, "exports": exports, "body": EXPORT_KEYWORD.sub("", body).strip()}


def bundle_js(js_dir=STATIC / "js", entry=ENTRY):
    """The ES modules reachable from `entry` as one script. Each module becomes a function
    that reads its imports from a registry and returns its exports, so every module keeps its own
    scope; dependencies run first, in the order their imports are written."""
    modules, order = {}, []

    def visit(name, chain):
        if name in chain:
            raise BuildError(f"import cycle: {' -> '.join(chain + [name])}")
        if name in modules:
            return
        module = modules[name] = read_module(js_dir, name, chain[-1] if chain else None)
        for dep, _ in module["imports"]:
            visit(dep, chain + [name])
        order.append(name)

    visit(entry, [])
    parts = [f"const {REGISTRY} = {{}};"]
    for name in order:
        module = modules[name]
        lines = []
        for dep, pairs in module["imports"]:
            for exported, _ in pairs:
                if exported not in modules[dep]["exports"]:
                    raise BuildError(f"static/js/{name} imports '{exported}' from static/js/{dep}, "
                                     f"which does not export it")
            names = ", ".join(e if e == local else f"{e}: {local}" for e, local in pairs)
            lines.append(f'const {{ {names} }} = {REGISTRY}["{dep}"];')
        lines.append(module["body"])
        lines.append(f"return {{ {', '.join(module['exports'])} }};" if module["exports"] else "return {};")
        parts.append(f'// ---- {name} ----\n{REGISTRY}["{name}"] = (() => {{\n' + "\n".join(lines) + "\n})();")
    return "\n\n".join(parts) + "\n"
