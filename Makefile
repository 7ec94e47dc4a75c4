# Two commands: `make run` (the demo) and `make test` (the whole suite, lint
# first). `make conformance` checks the surfaces against official schema files
# the repository does not carry (CI has them; see docs/ucp.md, "Tests").
# Everything else here is a step they depend on; each is idempotent.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
NODE_BIN := $(CURDIR)/tools/node_modules/.bin
PYTEST_ARGS ?= -n 2
# Where `make conformance` finds the official schemas (relative to this directory); UCP_SCHEMAS_DIR
# holds one folder per UCP release served (2026-04-08/ and 2026-08-25/), each one required.
UCP_SCHEMAS_DIR ?= ../shared/ucp
MCP_SERVER_CARD_SCHEMA_DIR ?= ../shared/mcp-server-card

.PHONY: run test fuzz lint lint-php conformance docs screenshots install install-test tools browser nginx wordpress wordpress-zip services bench-sync bench-serve bench-search clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.installed: requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install -q -r requirements.txt
	touch $@

$(VENV)/.installed-test: requirements.txt requirements-test.txt | $(VENV)/bin/python
	$(PY) -m pip install -q -r requirements-test.txt
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

# Node 22 and the JS clients/validators the tests drive (see tools/package.json).
tools/node_modules/.installed: tools/package.json tools/package-lock.json
	cd tools && npm ci --no-audit --no-fund
	tools/node_modules/.bin/node --version | grep -q '^v22\.'
	touch $@

tools: tools/node_modules/.installed

browser:
	bash scripts/install_browser.sh

nginx:
	bash scripts/install_nginx.sh

# Debian's WordPress, PHP and phpunit: the WordPress plugin (wordpress/) and its tests run on them.
wordpress:
	bash scripts/install_wordpress.sh

# The plugin as WordPress's "Upload Plugin" takes it: instance/contractor-pricing.zip holding contractor-pricing/.
wordpress-zip:
	@mkdir -p instance
	@rm -f instance/contractor-pricing.zip
	$(PYTHON) -c 'import pathlib, zipfile; z = zipfile.ZipFile("instance/contractor-pricing.zip", "w", zipfile.ZIP_DEFLATED); [z.write(p, "contractor-pricing/" + p.relative_to("wordpress").as_posix()) for p in sorted(pathlib.Path("wordpress").rglob("*")) if p.is_file()]; z.close()'
	@echo "instance/contractor-pricing.zip"

services:
	bash scripts/ensure_services.sh

# PORT and UPSTREAM_PORT (default 8000, 8001) choose the ports; see scripts/run_demo.sh.
run: install
	bash scripts/run_demo.sh

# House rules: ruff (lint + format check, pyproject.toml), the import
# layers (import-linter contracts, pyproject.toml) and `php -l` on every PHP file.
lint: install-test lint-php
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

# Every PHP file of the plugin, its scripts and its tests parses (a missing php fails, never skips).
lint-php: wordpress
	@files=$$(find wordpress scripts/wordpress tests/wordpress -name '*.php' | sort); \
	test -n "$$files" || { echo "lint-php: no PHP files found" >&2; exit 1; }; \
	for file in $$files; do php -l "$$file" >/dev/null || exit 1; done; \
	echo "lint-php: $$(echo "$$files" | wc -l) files parse"

# tests/conformance/ is left out here (pytest.ini ignores it): it needs files
# a fresh clone does not have.
test: lint tools browser nginx wordpress services
	PATH="$(NODE_BIN):$$PATH" $(PY) -m pytest $(PYTEST_ARGS)

# The long property-based run: tests/web/test_jsonrpc_fuzz.py (every JSON-RPC endpoint, any JSON in any
# field), tests/mirror/catalog/test_records_unstorable.py (the upstream record models, any JSON in any field)
# and tests/discovery/test_openapi.py's schemathesis runs (every HTTP operation) under the Hypothesis
# profile "fuzz" (tests/conftest.py), with the mix of answers it saw.
# `make test` runs the same tests with a bounded example count.
fuzz: install-test services
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest $(PYTEST_ARGS) tests/web/test_jsonrpc_fuzz.py tests/mirror/catalog/test_records_unstorable.py tests/discovery/test_openapi.py -k "fuzz or any_json or schemathesis" --hypothesis-show-statistics

# Only tests/conformance/: responses checked against the official UCP schemas
# and the MCP server-card schema. A missing directory fails, naming the variable.
conformance: install-test services
	@test -d "$(UCP_SCHEMAS_DIR)" || { echo "UCP_SCHEMAS_DIR=$(UCP_SCHEMAS_DIR) is not a directory (the official UCP schema releases)" >&2; exit 1; }
	@test -d "$(MCP_SERVER_CARD_SCHEMA_DIR)" || { echo "MCP_SERVER_CARD_SCHEMA_DIR=$(MCP_SERVER_CARD_SCHEMA_DIR) is not a directory (the MCP server-card schema)" >&2; exit 1; }
	UCP_SCHEMAS_DIR="$(abspath $(UCP_SCHEMAS_DIR))" MCP_SERVER_CARD_SCHEMA_DIR="$(abspath $(MCP_SERVER_CARD_SCHEMA_DIR))" \
		$(PY) -m pytest $(PYTEST_ARGS) tests/conformance

# The generated parts of the docs (the configuration table in README.md).
docs: install
	$(PY) scripts/build_docs.py

# The pricing page's screenshots in docs/images/ (docs/pricing-page.md): the suite's own Chromium
# test of the demo's Tudi Mechanical Systems at 1280 and 390 px (tests/feeds/test_pricing_page_content.py);
# and the WordPress plugin's (docs/wordpress.md): its page at 1280 and 390 px after wp-admin's
# "Check connection", and beside the hosted page (tests/wordpress/test_wordpress.py).
screenshots: install-test tools browser wordpress services
	SCREENSHOT_DIR=docs/images PATH="$(NODE_BIN):$$PATH" $(PY) -m pytest -q -n 0 -p no:cacheprovider \
		tests/feeds/test_pricing_page_content.py -k "screenshots"
	SCREENSHOT_DIR=docs/images WORDPRESS_SCREENSHOT=docs/images/wordpress-beside-hosted.png PATH="$(NODE_BIN):$$PATH" \
		$(PY) -m pytest -q -n 0 -p no:cacheprovider tests/wordpress/test_wordpress.py -k "contractor_connects or with_the_embed_on"

bench-sync: install-test services
	$(PY) bench/sync.py

bench-serve: install-test services
	$(PY) bench/serve.py

# Relevance of search_catalog on four catalog styles judged by a ground truth (bench/relevance/, issue 34), then
# relevance and speed on bench/search_queries.json, today's beside main's (bench/search.py).
bench-search: install-test services
	$(PY) bench/search.py

# The demo's database goes too: the embedded Postgres is stopped first (a no-op when none runs).
clean:
	-$(PY) -m mirror.store.embedded stop instance/postgres
	rm -rf instance/postgres
	rm -rf .pytest_cache
