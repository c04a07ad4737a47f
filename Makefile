# Two commands for a newcomer: `make demo` and `make test`. Both set everything up first.
PY := .venv/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Jupyter refuses to run as root without this flag (containers and CI machines run as root).
AS_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

# make demo DEMO_IP=0.0.0.0 listens on every interface (the token still guards it).
DEMO_IP ?= 127.0.0.1
DEMO_PORT ?= 8888
# A count on each line of dots ([ 120/1040]), and the slowest tests at the end.
PYTEST_PROGRESS := -q -o console_output_style=count --durations=15

.PHONY: demo test setup demo-setup test-system egl lint build docs release bench screenshot theme-screenshots tensorboard-screenshot

# JupyterLab on the quickstart notebook: the URL it prints (with its token) is the
# notebook's own; no browser is opened (servers have none). How to reach it from
# another machine is printed first.
demo: demo-setup
	@host=$$(hostname -f 2>/dev/null || hostname); user=$${USER:-$$(id -un)}; \
	echo; \
	echo "  JupyterLab prints the quickstart notebook's URL below (Ctrl-C stops it)."; \
	echo "  To open it from another machine, run there"; \
	echo "      ssh -N -L $(DEMO_PORT):127.0.0.1:$(DEMO_PORT) $$user@$$host"; \
	echo "  and open the URL in its browser; or run make demo DEMO_IP=0.0.0.0 (every"; \
	echo "  interface, still behind the token) and put this machine's address in the URL."; \
	echo
	SDL_VIDEODRIVER=dummy .venv/bin/jupyter lab $(AS_ROOT) --no-browser \
		--ip=$(DEMO_IP) --port=$(DEMO_PORT) --ServerApp.port_retries=0 --ServerApp.root_dir=. \
		--LabApp.default_url=/lab/tree/notebooks/quickstart.ipynb

# The wheel test (a fresh venv installed from PyPI: mostly network waits) runs in the
# background beside the rest of pytest; its log is printed when both are done.
test: setup test-system build lint docs
	@echo "==> typecheck, vitest"
	npm run typecheck
	npx vitest run
	@echo "==> pytest (the wheel test in the background, its log: .venv/wheel-test.log)"
	@$(PY) -m pytest -q -p no:cacheprovider -m wheel > .venv/wheel-test.log 2>&1 & wheel=$$!; \
	$(PY) -m pytest $(PYTEST_PROGRESS) -m "not wheel"; status=$$?; \
	wait $$wheel; wheel_status=$$?; \
	echo "==> the wheel test:"; cat .venv/wheel-test.log; \
	[ $$status -eq 0 ] && [ $$wheel_status -eq 0 ]

# The venv holds one of two installs, each with its marker: the demo's (.venv/.demo:
# the package and JupyterLab) or the developer's (.venv/.dev: every extra and tool, the
# tests' and the demo's). make test after make demo installs the rest; make demo after
# make test uses what is there. The tests need a browser and MuJoCo's renderer from the
# system too (test-system), which the demo does not.
setup: .venv/.dev node_modules/.installed
demo-setup: $(if $(wildcard .venv/.dev),.venv/.dev,.venv/.demo) node_modules/.installed

test-system: /usr/bin/chromium egl

# npm first: installing the package builds the front end (hatch_build.py). Versions from
# constraints.txt, so that a fresh machine gets what the tests last passed with; pip
# shows its progress (a fresh install downloads for a minute or more).
# The demo's: what the quickstart notebook imports (the package: gymnasium, numpy), and
# JupyterLab. No torch.
.venv/.demo: pyproject.toml hatch_build.py constraints.txt node_modules/.installed
	@echo "==> the package and JupyterLab, into .venv"
	python3 -m venv .venv
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -c constraints.txt -e . jupyterlab
	touch $@

# The developer's: torch first, alone, from PyTorch's CPU index (PyPI's torch for Linux
# is the CUDA build, several GB), with PyPI as the fallback; pinned on this line, never in
# the package's metadata. On the dev machine, whose disk holds this torch's CPU file, pip
# takes that file when the CPU index is out of reach. Then the dev extra beside it: pip
# keeps the torch installed, and installs what it needs.
TORCH_CPU := torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu --extra-index-url https://pypi.org/simple
.venv/.dev: pyproject.toml hatch_build.py constraints.txt node_modules/.installed
	@echo "==> torch (CPU), the package, every extra and the dev tools, into .venv"
	python3 -m venv .venv
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install --no-deps $(TORCH_CPU)
	$(PY) -m pip install -c constraints.txt -e ".[dev]"
	touch $@

node_modules/.installed: package.json package-lock.json
	@echo "==> the front end's build tools (npm ci)"
	npm ci --no-audit --no-fund
	touch $@

# Waits (up to 10 minutes) for another apt or dpkg to let go of its lock, as on a
# fresh cloud machine at boot, instead of failing.
APT := $(SUDO) apt-get -o DPkg::Lock::Timeout=600
/usr/bin/chromium:
	@echo "==> apt-get install chromium (waits for another apt to finish, if one runs)"
	$(APT) update -q
	$(APT) install -y -q chromium

# MuJoCo renders offscreen (HalfCheetah's frames, MUJOCO_GL=egl) with Mesa's EGL.
egl:
	@dpkg -s libegl1 libegl-mesa0 libgl1-mesa-dri >/dev/null 2>&1 || { \
		echo "==> apt-get install Mesa's EGL (MuJoCo's offscreen rendering)"; \
		$(APT) update -q && $(APT) install -y -q libegl1 libegl-mesa0 libgl1-mesa-dri; }

build: node_modules/.installed
	npm run build

lint: .venv/.dev
	@echo "==> lint: ruff, mypy, import-linter"
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy
	.venv/bin/lint-imports

# The documentation site (mkdocs.yml) into site/; --strict turns every warning (a
# docstring's broken reference, a page's dead link) into a failure.
docs: .venv/.dev
	@echo "==> docs: mkdocs build --strict"
	NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict

# The wheel and the sdist into dist/ (the wheel built from the sdist, the front end
# inside both), checked: twine check, and the wheel test on that very wheel. make release
# UPLOAD=1 then uploads them to PyPI (twine: TWINE_USERNAME=__token__,
# TWINE_PASSWORD=<token>): a tagged version only, whose section (the release notes) is
# CHANGELOG.md's first version (docs/contributing/index.md#releasing).
release: setup
	rm -rf dist
	$(PY) -m build --outdir dist .
	$(PY) -m twine check --strict dist/*
	AGENT_WIDGET_WHEEL=$$(ls dist/*.whl) $(PY) -m pytest -q -p no:cacheprovider -m wheel tests/test_wheel_install.py
ifeq ($(UPLOAD),1)
	@version=$$(ls dist/*.whl | cut -d- -f2); \
	case $$version in *dev*|*+*) echo "$$version is no release: tag the commit (git tag v1.2.3)"; exit 1;; esac; \
	grep -m1 '^## \[[0-9]' CHANGELOG.md | grep -qF "## [$$version]" || \
		{ echo "CHANGELOG.md's first version is not [$$version]"; exit 1; }
	$(PY) -m twine upload dist/*
endif

bench: setup build
	$(PY) -m benchmarks.storage
	$(PY) -m benchmarks.recording
	$(PY) -m benchmarks.recording_cpu
	$(PY) -m benchmarks.recording_cpu --busy 2
	$(PY) -m benchmarks.run_finder
	$(PY) -m benchmarks.recording_parts
	$(PY) -m benchmarks.recording_agents
	$(PY) -m benchmarks.branch
	$(PY) -m benchmarks.record_many
	$(PY) -m benchmarks.checkpoints
	$(PY) -m benchmarks.gridworld
	$(PY) -m benchmarks.library
	$(PY) -m benchmarks.bucket
	$(PY) -m benchmarks.compare
	$(PY) -m benchmarks.viewer
	$(PY) -m benchmarks.frame_ahead
	$(PY) -m benchmarks.server_extension
	$(PY) -m benchmarks.panels
	$(PY) -m benchmarks.torch_panels
	$(PY) -m benchmarks.page
	$(PY) -m benchmarks.hostile
	$(PY) -m benchmarks.recording_faults

screenshot: setup test-system build
	$(PY) docs/screenshot.py

# The picture of docs/guides/tensorboard.md: the Agent tab in a real TensorBoard.
tensorboard-screenshot: setup test-system build
	$(PY) docs/tensorboard_screenshot.py

# The pictures of docs/guides/appearance.md: each widget in JupyterLab's light and dark themes.
theme-screenshots: setup test-system build
	$(PY) docs/theme_screenshots.py
