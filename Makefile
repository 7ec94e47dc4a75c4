# Two commands: `make run` (the demo) and `make test` (the whole suite).
# Everything else here is a step they depend on; each is idempotent.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
NODE_BIN := $(CURDIR)/tools/node_modules/.bin
PYTEST_ARGS ?= -n 2

.PHONY: run test install install-test tools browser nginx services bench-sync bench-serve clean

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

services:
	bash scripts/ensure_services.sh

run: install
	bash scripts/run_demo.sh

test: install-test tools browser nginx services
	PATH="$(NODE_BIN):$$PATH" $(PY) -m pytest $(PYTEST_ARGS)

bench-sync: install-test services
	$(PY) bench/sync.py

bench-serve: install-test services
	$(PY) bench/serve.py

clean:
	rm -rf instance/*.sqlite3* .pytest_cache
