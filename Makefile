# Tabletop Arbiter: the README's two commands are `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The suite runs on every core (pytest-xdist); PYTEST_ARGS= runs it in one process. A worker
# that runs out of tests takes half of another's queue (worksteal): the long tests go first
# (tests/conftest.py), and none is left to one worker at the end.
PYTEST_ARGS ?= -n auto --dist worksteal

.PHONY: demo test bench venv clean system-deps

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

## demo: create the environment, install, and run the demo on embedded defaults
demo: $(STAMP)
	$(VENV)/bin/arbiter demo $(DEMO_ARGS)

## system-deps: the Debian packages the tests need (scripts/apt-packages.txt)
system-deps:
	scripts/system-deps.sh

## test: install everything the tests need and run the whole suite
test: $(STAMP) system-deps
	$(PY) -m pytest $(PYTEST_ARGS)

## bench: run the benchmarks and print a table
bench: $(STAMP)
	$(PY) benchmarks/run.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
