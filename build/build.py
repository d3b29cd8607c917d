"""Render templates/ + static/ + experiments/results/*.json into one self-contained page.

    python build/build.py      # what `make site` runs; needs jinja2 and orjson, not torch

Every results file is checked against SCHEMA first: a missing file or field stops the build
with a message that names both.
"""
import os
import sys
from pathlib import Path

import jinja2
import orjson

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "experiments" / "results"
TEMPLATES = ROOT / "templates"
STATIC = ROOT / "static"
OUT = ROOT / "site" / "16_speculative_decoding_viz.html"

META_FIELDS = ["meta.device", "meta.threads", "meta.torch", "meta.seeds", "meta.date",
               "meta.git_commit", "meta.command"]
# file -> dotted paths that must exist; "*" stands for every key of a mapping
SCHEMA = {
    "models.json": META_FIELDS + [
        "data.name", "data.chars", "data.vocab_size", "data.sha256",
        "runs.*.kind", "runs.*.seed", "runs.*.params", "runs.*.config.n_layer",
        "runs.*.config.n_embd", "runs.*.config.block_size", "runs.*.mtp_weight",
        "runs.*.val_loss_full.main", "runs.*.val_loss_train_log.main", "runs.*.train_wall_s",
        "mtp_parts.proj", "mtp_parts.block", "mtp_head_params",
    ],
}


class BuildError(Exception):
    pass


def check_fields(obj, path, filename, where=""):
    if not path:
        return
    key, rest = path[0], path[1:]
    if not isinstance(obj, dict):
        raise BuildError(f"{filename}: field '{where}' should be an object")
    keys = list(obj) if key == "*" else [key]
    if key == "*" and not keys:
        raise BuildError(f"{filename}: field '{where}' is empty")
    for k in keys:
        name = f"{where}.{k}" if where else k
        if k not in obj:
            raise BuildError(f"{filename}: missing field '{name}'")
        check_fields(obj[k], rest, filename, name)


def load_results(results_dir=RESULTS):
    data = {}
    for filename, fields in SCHEMA.items():
        path = Path(results_dir) / filename
        if not path.exists():
            raise BuildError(f"missing results file {path}: run `make measure` (or `make data`)")
        try:
            obj = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError as err:
            raise BuildError(f"{path} is not valid JSON: {err}") from err
        for field in fields:
            check_fields(obj, field.split("."), filename)
        data[filename.removesuffix(".json")] = obj
    return data


def json_for_html(obj):
    """JSON safe inside <script type="application/json">: no '<' can close the tag."""
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS).decode().replace("<", "\\u003c")


def render(data):
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    js = (STATIC / "page.js").read_text(encoding="utf-8")
    return env.get_template("page.html.j2").render(
        data=data, css=css, js=js, data_json=json_for_html(data))


def build(results_dir=RESULTS, out=OUT):
    html = render(load_results(results_dir))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(html, encoding="utf-8")
    os.replace(tmp, out)
    return out


def main():
    try:
        out = build()
    except BuildError as err:
        print(f"build error: {err}", file=sys.stderr)
        return 1
    print(f"wrote {out.relative_to(ROOT)} ({out.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
