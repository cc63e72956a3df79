# benchnb — the two commands a newcomer needs are `make demo` and `make test`.
SHELL := /bin/bash
.ONESHELL:
.SHELLFLAGS := -e -o pipefail -c   # with .ONESHELL a recipe is one script: stop at its first failing line
.DEFAULT_GOAL := help
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
PYTHON ?= python3
STAMP := $(VENV)/.benchnb-installed
export PATH := $(abspath $(BIN)):$(PATH)

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' Makefile | sed 's/:.*##/\t/'

$(STAMP): settings.ini setup.py
	@echo "== installing benchnb[all] into $(VENV)"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip setuptools wheel
	$(PY) -m pip install -q -e ".[all]"
	$(PY) -m pip check
	$(PY) -m ipykernel install --sys-prefix --name benchnb --display-name "Python (benchnb)" >/dev/null
	@echo "== compiling the numba kernels ahead (benchnb warmup: a minute or two, once), so first runs compile nothing"
	$(BIN)/benchnb warmup
	touch $(STAMP)

install: $(STAMP)  ## create .venv with benchnb[all], register the `benchnb` Jupyter kernel, compile the kernels (idempotent)

lab: install  ## open JupyterLab on nbs/ with the `benchnb` kernel (Run All works on a CPU-only, offline machine)
	$(BIN)/jupyter lab --ServerApp.root_dir=nbs --MappingKernelManager.default_kernel_name=benchnb $$([ "$$(id -u)" = 0 ] && echo --allow-root)

chromium:  ## make sure headless Chromium is available for the docs test (Debian package)
	@bash tools/ensure_chromium.sh

test: install chromium  ## notebook tests, pytest (CLI, reports, packaging, export sync, docs in Chromium)
	BENCHNB_PROGRESS=0 $(BIN)/nbdev_test --n_workers 2 --do_print --timing
	BENCHNB_PROGRESS=0 $(BIN)/pytest -q tests

demo: install  ## every family's report on demo data, the example sweep (and its controls) on Dask, its leaderboard report and site, into reports/out/
	$(BIN)/benchnb sweep example --out reports/out/sweep/plan.yaml
	$(PY) -c "from benchnb.resultsdb.demo import write_controls_plan as w; w('reports/out/sweep/plan.yaml', 'reports/out/sweep/controls.yaml')"
	$(BIN)/benchnb sweep run reports/out/sweep/plan.yaml --results reports/out/sweep/results
	$(BIN)/benchnb sweep run reports/out/sweep/controls.yaml --results reports/out/sweep/results
	$(BIN)/benchnb report leaderboard -p results=reports/out/sweep/results -o reports/out/sweep
	$(BIN)/benchnb results site reports/out/sweep/results --out reports/out/site
	$(BIN)/benchnb demo --out reports/out    # last: its index.html links the sweep's leaderboard and the site

docs: install  ## build the static docs site into _site/ (and README.md from nbs/index.ipynb)
	$(PY) tools/build_docs.py

readme: install  ## regenerate README.md from nbs/index.ipynb
	$(PY) tools/build_docs.py --readme

export: install  ## nbdev_export + nbdev_clean (after editing notebooks)
	$(BIN)/nbdev_export && $(BIN)/nbdev_clean

nbs: install  ## re-execute the notebooks so the outputs shown in the docs are fresh
	BENCHNB_PROGRESS=0 $(PY) tools/run_nbs.py

clean:  ## remove build products (keeps .venv)
	rm -rf _proc _docs _site mkdocs.yml build dist *.egg-info reports/out

.PHONY: help install lab chromium test demo docs readme export nbs clean
