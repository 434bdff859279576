# First commands on a fresh checkout: `make run` and `make test`.
# Everything installs into .venv; nothing is installed system-wide.

PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	$$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1 && { echo $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
TS := resources/i18n/gradacc_pt_BR.ts resources/i18n/gradacc_en.ts
# Translations of Qt's own strings that Qt's catalogue lacks (hand-written; not lupdate's)
TS += resources/i18n/qt_extra_pt_BR.ts
QM := $(TS:.ts=.qm)
SOURCES := $(shell find gradacc_desktop -name '*.py' 2>/dev/null)

MEASURE_VENV := .venv-measure
MEASURE_PYTHON ?= $(shell for p in python3.11 python3; do \
	$$p -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' >/dev/null 2>&1 && { echo $$p; break; }; done)

.PHONY: time-table measured-table measured-fit run test test-desktop test-desktop-bundle test-measure test-trainers lint typecheck check i18n \
	i18n-update screenshots clean

run: $(VENV)/.run-installed i18n
	$(PY) -m gradacc_desktop

test: $(VENV)/.test-installed i18n
	$(PY) -m pytest --ignore=tests/desktop --ignore=tests/trainers

# The desktop tier: the real app on Xvfb + openbox, driven only through X input
# (xdotool keys, typing, clicks, wheel; the X clipboard through xclip; screenshots with
# ImageMagick). Needs: xvfb openbox xdotool xclip x11-utils imagemagick.
# GRADACC_SAVE_SCREENSHOTS=1 also keeps screenshots for a human look in docs/desktop/.
test-desktop: $(VENV)/.test-installed i18n
	GRADACC_DESKTOP_TESTS=1 $(PY) -m pytest tests/desktop

# The same scenarios against the built bundle (after make bundle).
test-desktop-bundle: $(VENV)/.test-installed
	@test -x $(BUNDLE_EXE) || { echo "no bundle at $(BUNDLE_EXE): run make bundle" >&2; exit 1; }
	GRADACC_DESKTOP_TESTS=1 GRADACC_BUNDLE=$(BUNDLE_EXE) $(PY) -m pytest tests/desktop

# The activation estimator checked against what autograd really saves (needs torch).
test-measure: i18n
	@test -n "$(MEASURE_PYTHON)" || { echo "test-measure needs Python 3.11 (torch's CPU wheel)" >&2; exit 1; }
	test -x $(MEASURE_VENV)/bin/python || $(MEASURE_PYTHON) -m venv $(MEASURE_VENV)
	$(MEASURE_VENV)/bin/python -m pip install --quiet -e '.[test,measure]'
	$(MEASURE_VENV)/bin/python -m pytest tests/measure

# The trainer tier: every export read by DeepSpeed, transformers, accelerate, Lightning
# and megatron-core themselves, and real two-process CPU (gloo) runs (needs Python 3.11,
# for torch's CPU wheel). DeepSpeed's optional C++ ops are not built (DS_BUILD_OPS=0).
TRAINERS_VENV := .venv-trainers
test-trainers:
	@test -n "$(MEASURE_PYTHON)" || { echo "test-trainers needs Python 3.11 (torch's CPU wheel)" >&2; exit 1; }
	test -x $(TRAINERS_VENV)/bin/python || $(MEASURE_PYTHON) -m venv $(TRAINERS_VENV)
	$(TRAINERS_VENV)/bin/python -m pip install --quiet torch==2.13.0
	DS_BUILD_OPS=0 $(TRAINERS_VENV)/bin/python -m pip install --quiet -e '.[test,trainers]'
	$(TRAINERS_VENV)/bin/python -m pytest -p no:cacheprovider tests/trainers

# The time model against published training runs: rewrites the table in docs/TIME.md
# (tests/test_published_runs.py fails when it is stale).
time-table: $(VENV)/.test-installed
	$(PY) benchmarks/time_table.py

# The plan against measured runs (benchmarks/measured_runs.json): rewrites the tables and
# goals in docs/TIME.md and docs/MEMORY.md (tests/test_measured_runs.py fails when they are
# stale or a goal breaks).
measured-table: $(VENV)/.test-installed
	$(PY) benchmarks/measured_table.py

# Fit the step model's constants on the measured runs that are not held out and write them
# into gradacc_desktop/core/time/kernels.py (SciPy, for this target only).
measured-fit: $(VENV)/.test-installed
	$(PY) -m pip install --quiet 'scipy>=1.11'
	$(PY) benchmarks/measured_table.py --fit --write
	$(PY) benchmarks/measured_table.py
	$(PY) benchmarks/time_table.py

lint: $(VENV)/.test-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.test-installed
	$(BIN)/mypy

check: lint typecheck test

$(VENV)/bin/python:
	@test -n "$(PYTHON)" || { echo "Python 3.11 or newer is required" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.run-installed: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e '.[test,dev]'
	touch $@ $(VENV)/.run-installed

# Compiled catalogues (.qm) are built from the committed .ts files.
i18n: $(QM)

resources/i18n/%.qm: resources/i18n/%.ts | $(VENV)/.run-installed
	$(BIN)/pyside6-lrelease -silent $< -qm $@

# Re-scan the sources for tr() strings after changing user-visible text.
i18n-update: $(VENV)/.run-installed
	$(BIN)/pyside6-lupdate -extensions py -tr-function-alias QT_TRANSLATE_NOOP+=trans_late -no-obsolete -locations none gradacc_desktop -ts resources/i18n/gradacc_pt_BR.ts
	$(BIN)/pyside6-lupdate -extensions py -tr-function-alias QT_TRANSLATE_NOOP+=trans_late -no-obsolete -locations none -pluralonly gradacc_desktop -ts resources/i18n/gradacc_en.ts

screenshots: $(VENV)/.run-installed i18n
	QT_QPA_PLATFORM=offscreen $(PY) scripts/screenshots.py

clean:
	rm -rf $(VENV) $(MEASURE_VENV) build dist .pytest_cache .mypy_cache .ruff_cache resources/i18n/*.qm

# bundle, bundle-test, bundle-archive, install-desktop, bench, icons
include packaging/Makefile.inc
