# Two set-up commands: `make run` (the service) and `make test` (the whole suite).
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: run test lint conformance bench messages

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

# The web client's texts (web/locale/): extract from its templates and scripts, then compile. Run from
# web/ with no settings, so the files land in web/locale/ and not in the server's locale/.
messages: $(VENV)/.installed
	cd web && env -u DJANGO_SETTINGS_MODULE ../$(VENV)/bin/django-admin makemessages -l es -l ja -d django --no-location
	cd web && env -u DJANGO_SETTINGS_MODULE ../$(VENV)/bin/django-admin makemessages -l es -l ja -d djangojs --no-location
	cd web && env -u DJANGO_SETTINGS_MODULE ../$(VENV)/bin/django-admin compilemessages
