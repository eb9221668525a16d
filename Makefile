# Two set-up commands: `make run` (the service) and `make test` (the whole suite).
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: run test lint conformance bench

# PyICU (TR39 look-alike names, config/textpolicy.py) builds against ICU: its development files, pkg-config
# and a C++ compiler come from apt when missing.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

$(VENV)/.installed: pyproject.toml
	@pkg-config --exists icu-i18n 2>/dev/null && command -v g++ >/dev/null || \
		($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends libicu-dev pkg-config g++)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@

run: $(VENV)/.installed
	$(PY) scripts/serve.py

test: $(VENV)/.installed
	$(PY) -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .

conformance: $(VENV)/.installed
	$(PY) ../shared/conformance/check.py ../shared/conformance/public.jsonl
