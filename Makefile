# factstream developer commands. `make test` brings up Kafka + Postgres (unless
# FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS / FACTSTREAM_DATABASE_URL are set), runs every test and
# stops again whatever it started, also when tests fail.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
FS := $(VENV)/bin/factstream
STAMP := $(VENV)/.factstream-installed
PYTEST_ARGS ?= -q --timeout=300 tests

.PHONY: help venv lint fmt test dev-up dev-down dev-status jars demo bench chaos

help:
	@echo "make venv | lint | fmt | test | dev-up | dev-down | dev-status | jars | demo | bench | chaos"

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

lint: venv
	$(VENV)/bin/ruff check streams tests
	$(VENV)/bin/mypy --strict streams

fmt: venv
	$(VENV)/bin/ruff check --fix streams tests
	$(VENV)/bin/ruff format streams tests

# `dev up` is idempotent and prints `export ...` lines plus `# started: <services>`;
# the trap stops only the services this recipe started.
test: venv
	out="$$($(FS) dev up --quiet)"; \
	eval "$$out"; \
	started="$$(sed -n 's/^# started: //p' <<<"$$out")"; \
	if [ -n "$$started" ]; then trap '$(FS) dev down --only "$$started"' EXIT; fi; \
	$(PY) -m pytest $(PYTEST_ARGS)

dev-up: venv
	$(FS) dev up

dev-down: venv
	$(FS) dev down

dev-status: venv
	$(FS) dev status

# The Kafka jars for the Docker-free broker (`dev up` fetches them too when missing).
jars: venv
	$(PY) -c 'from pathlib import Path; from streams.ops import kafka_local as k; \
	  print(k.ensure_jars(Path(".cache/kafka/libs").resolve(), k.find_deploy_dir()))'

# Brings up what it needs, runs every stage worker + the sweeper on the bundled episodes,
# prints the facts, stops what it started. DEMO_ARGS="--provider gemini" etc.
demo: venv
	$(FS) demo $(DEMO_ARGS)

bench: venv
	$(PY) bench/run.py

chaos: venv
	@echo "make chaos: not written yet (kill -9 / restart scenarios belong in tests/e2e)" >&2
	@exit 2
