# pinchpoint: `make run` builds everything and runs the bundled scenarios into results/;
# `make test` runs the Rust and Python tests. Both create the virtualenv they need.

VENV    ?= .venv
PYTHON  ?= python3
VPY     := $(abspath $(VENV))/bin/python
export PYO3_PYTHON := $(VPY)
# maturin installs into $VIRTUAL_ENV when set: point it at this checkout's virtualenv so an
# environment activated elsewhere is never the one written to.
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(VENV))/bin:$(PATH)
CARGO_TEST_FLAGS ?=

.PHONY: all build run test test-rust test-python test-slow bench fuzz clean

all: build

$(VENV)/.deps: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -c constraints.txt maturin numpy pandas pyarrow duckdb matplotlib rich typer tomli-w \
		pytest pytest-xdist hypothesis jsonschema dpkt "dask[distributed]"
	touch $@

# Release build of the native module, installed editable into the virtualenv.
build: $(VENV)/.deps
	$(VPY) -m maturin develop --release -q

# The main job: every seed reproduction (reports under results/reproductions/) and every
# bundled example (Parquet under results/examples/, summaries in results/pinchpoint.duckdb).
run: build
	@mkdir -p results
	$(VENV)/bin/pinchpoint reproduce all --out results/reproductions
	@for f in scenarios/examples/*.toml; do \
		name=$$(basename $$f .toml); \
		echo "== $$f -> results/examples/$$name"; \
		$(VENV)/bin/pinchpoint run $$f --out results/examples/$$name --store results/pinchpoint.duckdb || exit 1; \
	done

test: build test-rust test-python

test-rust:
	cargo test -p pinchpoint-core --release $(CARGO_TEST_FLAGS)

test-python: build
	$(VPY) -m pytest -q -n 2 tests

# Long reproductions and benchmarks (not part of `make test`).
test-slow: build
	$(VPY) -m pytest -q -m slow tests

# Long fuzz campaign (issue 14, docs/fuzzing.md): FUZZ_CASES parser cases and FUZZ_CASES / 50
# random scenarios (Rust, tests/fuzz_scenarios.rs, progress on stderr), then the Hypothesis
# profile "campaign" (2,000 examples). Niced: it shares the machine.
FUZZ_CASES ?= 100000
fuzz: build
	PINCHPOINT_FUZZ_CASES=$(FUZZ_CASES) PINCHPOINT_FUZZ_PROGRESS=1000 nice -n 10 cargo test -p pinchpoint-core --release --test fuzz_scenarios -- --nocapture
	HYPOTHESIS_PROFILE=campaign nice -n 10 $(VPY) -m pytest -q --hypothesis-show-statistics tests/test_fuzz_hypothesis.py

bench: build
	$(VENV)/bin/pinchpoint bench

clean:
	rm -rf target results $(VENV)
