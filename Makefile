# deepsim: `make run` plays the default scenario, `make test` runs the test suite.
# Both create .venv (if missing) and install the package with its dev extras first.

PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
SCENARIO ?= scenarios/deepfall-4p.yaml

# numba's on-disk compile cache stays inside the project.
export NUMBA_CACHE_DIR := $(CURDIR)/.numba_cache

.PHONY: run test clean venv bench

venv: $(STAMP)

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall whenever pyproject.toml changes.
$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(VENV)/bin/python -m pip install -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/deepsim run $(SCENARIO)

test: $(STAMP)
	$(VENV)/bin/pytest -q

clean:
	rm -rf $(VENV) .numba_cache .pytest_cache .hypothesis *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

bench: $(STAMP)
	$(VENV)/bin/deepsim bench
