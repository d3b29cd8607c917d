"""The chapter's build: the results JSON checked against its contract (schema), the views the page
computes from them (views), the code the page shows (listings, code_trail), all rendered into
site/16_speculative_decoding_viz.html by `python -m chapter.build` (what `make site` runs).
It needs jinja2, orjson and latex2mathml, not torch, and imports nothing from experiments/ but
records/ (every results file declared as typed records, torch-free)."""
