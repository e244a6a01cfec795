# Two commands for a fresh machine with only Python 3.11, git and make:
#   make demo       sets everything up and runs `distfix fix --diff --unsafe-fixes` over corpus/ (writes nothing)
#   make test       sets everything up and runs the whole test suite
#   make test-fast  the same without the tests that start TensorFlow (marker `tensorflow`)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.distfix-installed

.PHONY: venv demo test test-fast generate clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all,dev]'
	touch $(STAMP)

# `fix --diff` exits 1 when it has changes to show; that is the expected outcome here.
demo: venv
	$(BIN)/distfix fix --diff --unsafe-fixes corpus/ ; status=$$?; [ $$status -le 1 ]

test: venv
	$(BIN)/python -m pytest

# A stand-in `tensorflow` that refuses to import comes first on the path (of the test
# subprocesses too), so a test that starts TensorFlow without the marker fails here.
test-fast: venv
	PYTHONPATH=$(CURDIR)/tests/no_tensorflow $(BIN)/python -m pytest -m "not tensorflow"

# The code table (fixer/codes.py), the README rule table and docs/rules.md, from the rule registry.
generate: venv
	$(BIN)/distfix dev generate

clean:
	rm -rf $(VENV) .distfix_cache .pytest_cache
