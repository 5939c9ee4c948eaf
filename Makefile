# Tabletop Arbiter: the README's two commands are `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench venv clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

## demo: create the environment, install, and run the demo on embedded defaults
demo: $(STAMP)
	$(VENV)/bin/arbiter demo $(DEMO_ARGS)

## test: install everything the tests need and run the whole suite
test: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

## bench: run the benchmarks and print a table
bench: $(STAMP)
	$(PY) benchmarks/run.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
