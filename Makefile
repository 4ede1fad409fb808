# Twenty-One Ledger: every target works from a fresh clone (the venv is built on demand).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PYTEST := $(BIN)/python -m pytest
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench

.DEFAULT_GOAL := test
.PHONY: venv test test-unit test-application test-integration test-api test-e2e run bench \
	lint fmt clean openapi browser test-browser

venv: $(STAMP)

# Re-installs only when pyproject.toml changes (or the venv is new).
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

# Debian's chromium for tests/browser (Playwright drives it and never downloads a browser of its
# own). Installed only when missing; sudo only when not root. DejaVu gives the screenshots a font
# on a machine that has none.
# An empty CHROMIUM counts as unset, as every variable does (`?=` would keep it empty).
CHROMIUM := $(or $(CHROMIUM),/usr/bin/chromium)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

browser:
	@test -x $(CHROMIUM) || { \
	  $(SUDO) apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
	    chromium fonts-dejavu-core; }

test: venv browser
	$(PYTEST)

test-unit: venv
	$(PYTEST) -m unit

test-application: venv
	$(PYTEST) -m application

test-integration: venv
	$(PYTEST) -m integration

test-api: venv
	$(PYTEST) -m api

test-e2e: venv
	$(PYTEST) -m e2e

test-browser: venv browser
	$(PYTEST) -m browser

run: venv
	$(BIN)/python -m api

$(BENCH_STAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	touch $@

bench: $(BENCH_STAMP)
	$(BIN)/python -m benchmarks

# The committed OpenAPI document, regenerated from the code (a test fails when it is stale).
openapi: venv
	$(BIN)/python -m api.openapi

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

fmt: venv
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Keeps .venv and var/ (var/ holds the ledger's events: delete it by hand if you mean to). Removes
# the install stamps too, so the next target reinstalls the package into the kept .venv.
clean:
	rm -rf build dist *.egg-info .pytest_cache .ruff_cache .hypothesis
	find . -path ./$(VENV) -prune -o -type d -name __pycache__ -exec rm -rf {} +
	rm -f $(STAMP) $(BENCH_STAMP)
