# The two commands of the README: `make serve` and `make test`. Everything installs itself:
# Python packages into .venv, Pagefind (and the test tools) from npm into node_modules.
PY      := .venv/bin/python
MKDOCS  := .venv/bin/mkdocs
PORT    ?= 8000
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve site pages test lint unit browser quality search-eval bench pdf clean translation translations translation-reviewed

# --dirty: after an edit MkDocs renders only the pages whose Markdown changed (the generator rewrites
# exactly those), and the hook finishes search, downloads and offline files in the background.
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
	$(PY) scripts/build_site.py

test: .venv/.dev node_modules/.dev system-deps        ## everything CI runs
	$(PY) -m ruff check studysite scripts tests
	$(PY) -m ruff format --check studysite scripts tests
	$(PY) -m mypy studysite
	$(PY) -m pytest -p no:cacheprovider tests

search-eval: .venv/.dev node_modules/.dev system-deps ## search ranking on a synthetic 1,000-question corpus
	$(PY) scripts/search_eval.py

bench: .venv/.dev node_modules/.dev system-deps      ## the performance benchmark (not part of make test)
	$(PY) scripts/bench.py

pdf: site .venv/.dev                                 ## PDF editions of every bank (needs chromium, fonts-noto-cjk)
	$(PY) scripts/build_pdf.py

system-deps:
	@bash scripts/ensure_system_deps.sh

.venv/.runtime: requirements.txt
	@test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

.venv/.dev: requirements.txt requirements-dev.txt .venv/.runtime
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@

node_modules/.runtime: package.json package-lock.json
	npm ci --omit=dev --no-audit --no-fund --loglevel=error
	@touch $@

node_modules/.dev: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@ node_modules/.runtime

clean:
	rm -rf site docs .venv node_modules .pytest_cache
