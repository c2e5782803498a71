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

.PHONY: help venv constraints lint fmt test dev-up dev-down dev-status jars demo bench chaos

help:
	@echo "make venv | constraints | lint | fmt | test | dev-up | dev-down | dev-status | jars | demo | bench | chaos"

venv: $(STAMP)

# Installs the versions of constraints.txt (as deploy/Dockerfile does), so CI, every
# developer and the image run the same dependencies.
$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -c constraints.txt -e '.[dev]'
	touch $@

# After changing a dependency in pyproject.toml: install it, then pin what the venv holds.
constraints: venv
	$(PY) -m pip install -q -e '.[dev]'
	{ sed -n '/^#/p' constraints.txt; $(PY) -m pip freeze --exclude-editable; } > constraints.txt.new
	mv constraints.txt.new constraints.txt

# ruff (lint, complexity <= 13, format), mypy --strict, and the import contracts of
# pyproject.toml [tool.importlinter]: arrows point down, a pure domain, no cycles.
LINT_PATHS := streams tests bench chaos
lint: venv
	$(VENV)/bin/ruff check $(LINT_PATHS)
	$(VENV)/bin/ruff format --check $(LINT_PATHS)
	$(VENV)/bin/mypy --strict streams
	$(VENV)/bin/lint-imports --no-cache

fmt: venv
	$(VENV)/bin/ruff check --fix $(LINT_PATHS)
	$(VENV)/bin/ruff format $(LINT_PATHS)

# `dev up` is idempotent and prints `export ...` lines plus `# started: <services>`;
# the trap stops only the services this recipe started.
test: venv
	out="$$($(FS) dev up --quiet)"; \
	eval "$$out"; \
	started="$$(sed -n 's/^# started: //p' <<<"$$out")"; \
	if [ -n "$$started" ]; then trap '$(FS) dev down --only "$$started"' EXIT; fi; \
	command -v chromium >/dev/null || echo "page tests skipped: no chromium (apt-get install chromium)"; \
	$(PY) -m pytest $(PYTEST_ARGS)

dev-up: venv
	$(FS) dev up

dev-down: venv
	$(FS) dev down

dev-status: venv
	$(FS) dev status

# The Kafka jars for the Docker-free broker (`dev up` fetches them too when missing).
jars: venv
	$(PY) -c 'from pathlib import Path; from streams.dev import kafka_local as k; \
	  print(k.ensure_jars(Path(".cache/kafka/libs").resolve(), k.find_deploy_dir()))'

# Brings up what it needs, runs every stage worker + the sweeper on the bundled episodes,
# prints the facts, stops what it started. DEMO_ARGS="--provider gemini" etc.
demo: venv
	$(FS) demo $(DEMO_ARGS)

# The full-pipeline benchmark (bench/README.md): six stage workers as their own processes
# on real Kafka and Postgres (from `dev up`, like `make test`), ~10 min; writes
# bench/results.json and bench/results.md. BENCH_ARGS=--quick: the ~2 min smoke run.
# Then the read side's search bench (~4 min, bench/search_results.json).
BENCH_ARGS ?=
bench: venv
	out="$$($(FS) dev up --quiet)"; \
	eval "$$out"; \
	started="$$(sed -n 's/^# started: //p' <<<"$$out")"; \
	if [ -n "$$started" ]; then trap '$(FS) dev down --only "$$started"' EXIT; fi; \
	$(PY) -m bench.pipeline_bench $(BENCH_ARGS); \
	$(PY) -m bench.search_bench $(filter --quick,$(BENCH_ARGS))

# The fault drill (chaos/README.md): 500 episodes fault-free, then again under kill -9,
# broker and Postgres restarts, model faults, poison and a paused worker, on its own Kafka
# (127.0.0.1:39192) and Postgres; prints the reconciliation, exits 1 when it fails.
# CHAOS_ARGS="--profile short" runs the CI-sized drill; `--seed N` repeats a run.
CHAOS_ARGS ?=
chaos: venv
	$(PY) -m chaos $(CHAOS_ARGS)
