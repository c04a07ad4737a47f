# Two commands for a newcomer: `make demo` and `make test`. Both set everything up first.
PY := .venv/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Jupyter refuses to run as root without this flag (containers and CI machines run as root).
AS_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

.PHONY: demo test setup lint build bench screenshot

demo: setup
	.venv/bin/jupyter lab $(AS_ROOT) notebooks/quickstart.ipynb

test: setup build lint
	npm run typecheck
	npx vitest run
	$(PY) -m pytest -q

setup: .venv/.installed node_modules/.installed /usr/bin/chromium

# npm first: installing the package builds the front end (hatch_build.py).
.venv/.installed: pyproject.toml hatch_build.py node_modules/.installed
	python3 -m venv .venv
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

/usr/bin/chromium:
	$(SUDO) apt-get update -q
	$(SUDO) apt-get install -y -q chromium

build: node_modules/.installed
	npm run build

lint: .venv/.installed
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy
	.venv/bin/lint-imports

bench: setup build
	$(PY) -m benchmarks.storage
	$(PY) -m benchmarks.recording
	$(PY) -m benchmarks.branch
	$(PY) -m benchmarks.record_many
	$(PY) -m benchmarks.gridworld
	$(PY) -m benchmarks.library
	$(PY) -m benchmarks.compare
	$(PY) -m benchmarks.viewer
	$(PY) -m benchmarks.panels
	$(PY) -m benchmarks.torch_panels
	$(PY) -m benchmarks.page
	$(PY) -m benchmarks.hostile

screenshot: setup build
	$(PY) docs/screenshot.py
