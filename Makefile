# Two commands on a fresh machine (Python 3.11 + pip): `make dev` and `make test`.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Debian packages WeasyPrint renders with, the fonts embedded in the PDFs, pdftoppm for
# looking at rendered pages.
DEB_PACKAGES := libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core poppler-utils

.PHONY: dev test test-sqlite test-postgres contracts install system-deps openapi-examples bench clean-dev help

help:
	@echo "make dev    start Temporal, the worker and the API on http://127.0.0.1:8000"
	@echo "make test   run the whole test suite on SQLite, then on PostgreSQL"
	@echo "make test-sqlite, make test-postgres   the suite on one database"
	@echo "make bench  run the benchmarks under bench/"

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON)"; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

install: system-deps $(STAMP)

system-deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

dev: install
	$(BIN)/parametric dev

# Both runs happen even when the first fails; `make test` fails if either did.
test: install contracts
	@status=0; \
	$(MAKE) --no-print-directory test-sqlite || status=1; \
	$(MAKE) --no-print-directory test-postgres || status=1; \
	exit $$status

# The fault tests that build and shut down stacks of workers with replaced activities run in
# a pytest process of their own: after many worker shutdowns in one process, the SDK core
# panics on a local activity's timeout (local_activities.rs: "receive half not dropped") and
# the next stack's workflow tasks stall (docs/runbook.md, "Known SDK faults").
OWN_PROCESS = tests/test_lifecycle_faults.py

test-sqlite: install
	@status=0; \
	TEST_DATABASE_URL= $(BIN)/python -m pytest -q $(addprefix --ignore=,$(OWN_PROCESS)) || status=1; \
	TEST_DATABASE_URL= $(BIN)/python -m pytest -q $(OWN_PROCESS) || status=1; \
	exit $$status

# A throwaway PostgreSQL cluster and a fresh database per run (installs Debian's postgresql
# if missing); see the script's header.
test-postgres: install
	@status=0; \
	.ci/postgres-test-cluster $(BIN)/python -m pytest -q $(addprefix --ignore=,$(OWN_PROCESS)) || status=1; \
	.ci/postgres-test-cluster $(BIN)/python -m pytest -q $(OWN_PROCESS) || status=1; \
	exit $$status

# The dependency rules between the layers (pyproject.toml, [tool.importlinter]).
contracts: install
	$(BIN)/lint-imports

# The OpenAPI document's recorded answers (api/openapi_answers.json): the first 2xx JSON answer
# of every operation the SQLite suite calls (tests/openapi/recorder.py).
openapi-examples: install
	TEST_DATABASE_URL= OPENAPI_RECORD_EXAMPLES=$(CURDIR)/api/openapi_answers.json $(BIN)/python -m pytest -q $(addprefix --ignore=,$(OWN_PROCESS))

bench: install
	$(BIN)/python bench/pricing.py
	$(BIN)/python bench/documents.py
	$(BIN)/python bench/api.py

clean-dev:
	rm -rf var/
