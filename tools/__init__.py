"""The chapter's tools: make bench (python -m tools.bench) and the headless browser the tests share (browser.py)."""
