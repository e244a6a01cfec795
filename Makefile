# Two commands for a fresh machine with only Python 3.11, git and make:
#   make demo       sets everything up and runs `distfix fix --diff --unsafe-fixes` over corpus/ (writes nothing)
#   make test       sets everything up and runs the whole test suite
#   make test-fast  the same without the tests that start TensorFlow (marker `tensorflow`)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.distfix-installed

.PHONY: venv browser demo test test-fast generate clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all,dev]'
	touch $(STAMP)

# `fix --diff` exits 1 when it has changes to show; that is the expected outcome here.
demo: venv
	$(BIN)/distfix fix --diff --unsafe-fixes corpus/ ; status=$$?; [ $$status -le 1 ]

test: venv browser
	$(BIN)/python -m pytest

# A stand-in `tensorflow` that refuses to import comes first on the path (of the test
# subprocesses too), so a test that starts TensorFlow without the marker fails here.
test-fast: venv browser
	PYTHONPATH=$(CURDIR)/tests/no_tensorflow $(BIN)/python -m pytest -m "not tensorflow"

# Debian's chromium and chromium-driver for tests/lsp/test_jupyterlab.py, installed when missing and
# possible (root with apt-get). Never fails the build: without them that test skips and says why.
browser:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null) \
	    || echo "browser: apt-get could not install chromium chromium-driver; tests/lsp/test_jupyterlab.py will skip"; \
	else echo "browser: chromium/chromedriver missing and not root with apt-get; tests/lsp/test_jupyterlab.py will skip"; fi

# The code table (fixer/codes.py), the README rule table and docs/rules.md, from the rule registry.
generate: venv
	$(BIN)/distfix dev generate

clean:
	rm -rf $(VENV) .distfix_cache .pytest_cache
