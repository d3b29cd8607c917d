# make site     build site/16_speculative_decoding_viz.html from templates/, static/ and results JSON
# make test     install what the tests need (venv, pip packages, Debian chromium) and run them all
# make test-fast  the quick subset: tests/core, drafters and build, no browser, no compiling engine,
#               no long sampled checks (under 90 s on 2 cores); make test is the full suite
# make data     train the models that are missing for SEEDS (default 0; FORCE=1: retrain), then make measure
# make measure  rerun every measurement from the committed checkpoints (DEVICE=cpu|cuda, ENGINE=a list of
#               eager compiled aot native: eager is always measured, as the baseline; the default measures all)
# make bench    the page's time and size budgets in headless Chromium -> bench/bench.json (not part of make test)
SHELL := /bin/bash
PY := .venv/bin/python
STAMP := .venv/.installed
SEEDS ?= 0
DEVICE ?= cpu
ENGINE ?= eager compiled aot native
FORCE ?=

.PHONY: site test test-fast bench data measure train chromium axe wabt clean-venv

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

site: $(STAMP) wabt
	$(PY) -m chapter.build

# wabt, pinned, to assemble the lab's WebAssembly kernel at build time (kept out of git under .cache/)
WABT_VERSION := 1.0.39
wabt:
	@test "$$(node -p "require('./.cache/wabt/node_modules/wabt/package.json').version" 2>/dev/null)" = "$(WABT_VERSION)" || \
	  npm install --no-save --no-audit --no-fund --prefix .cache/wabt wabt@$(WABT_VERSION)

# Debian chromium for the browser test, and a CJK font so the screenshots show the Chinese text
chromium:
	@if ! command -v chromium >/dev/null || ! fc-list :lang=zh | grep -q .; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null; \
	  else echo "run 'sudo apt-get install -y chromium fonts-wqy-microhei' first"; exit 1; fi; \
	fi

# axe-core, pinned, for the accessibility check in the browser test (kept out of git under .cache/)
AXE_VERSION := 4.14.1
axe:
	@test "$$(node -p "require('./.cache/axe/node_modules/axe-core/package.json').version" 2>/dev/null)" = "$(AXE_VERSION)" || \
	  npm install --no-save --no-audit --no-fund --prefix .cache/axe axe-core@$(AXE_VERSION)

# one worker per core, each file whole on one worker (its module fixtures run once); the tests are single-threaded
test: $(STAMP) chromium axe wabt
	$(PY) -m pytest -n auto --dist loadfile
	@if ls tests/js/*.test.mjs >/dev/null 2>&1; then node --test tests/js/; fi

# the subjects whose tests are quick (tests/build holds the views), without the markers that take
# time: a browser, an engine that compiles, the long sampled checks (slow, sampled); not the node
# tests (about 23 s here, half of it lab_clock's)
FAST_TESTS := tests/core tests/drafters tests/build
test-fast: $(STAMP) wabt
	$(PY) -m pytest -n auto --dist loadfile -m 'not slow and not browser and not compiles and not sampled' $(FAST_TESTS)

bench: site chromium
	$(PY) -m tools.bench

train: $(STAMP)
	$(PY) -m experiments.train --model all --seeds $(SEEDS) --device $(DEVICE) $(if $(FORCE),--fresh --force)

data: train
	$(MAKE) measure

PEER_STAMP := .venv/.peer-installed
$(PEER_STAMP): $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[peer]'
	touch $(PEER_STAMP)

# measure every seed that has checkpoints, unless SEEDS is given on the command line
measure: $(STAMP) $(PEER_STAMP)
	$(PY) -m experiments.measure --device $(DEVICE) --engines $(ENGINE) $(if $(filter command line,$(origin SEEDS)),--seeds $(SEEDS))

clean-venv:
	rm -rf .venv
