# plandvc — `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.plandvc-setup
CHROMIUM ?= $(or $(PLANDVC_CHROMIUM),/usr/bin/chromium)
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DOCKER ?= docker
PYTEST_ARGS ?=

.PHONY: help setup chromium test test-all lint format gen bench lock push pull docker-base docker-build docker-gen docker-test clean

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  \033[1m%-13s\033[0m %s\n", $$1, $$2}'

$(STAMP): requirements.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check --require-hashes -r requirements.lock
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@

chromium: ## install Debian's chromium when $(CHROMIUM) is missing
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  echo "chromium not found at $(CHROMIUM): installing Debian's chromium"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium fonts-dejavu-core >/dev/null; \
	fi

setup: $(STAMP) chromium ## venv from the lock file (with hashes) and Debian chromium; quick when done

test: setup ## run the test suite (sets itself up first)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: setup ## ruff lint and format check
	$(BIN)/ruff check plandvc tests bench
	$(BIN)/ruff format --check plandvc tests bench

format: setup ## ruff fix and format
	$(BIN)/ruff check --fix plandvc tests bench
	$(BIN)/ruff format plandvc tests bench

gen: setup ## make the planner rows on the embedded default (dvc repro)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/dvc repro

bench: setup ## throughput benchmark of run-chains (writes bench/results.json)
	$(BIN)/python bench/run_bench.py

lock: ## re-pin requirements.lock with hashes from requirements.in
	uv pip compile --python-version 3.11 --generate-hashes requirements.in -o requirements.lock

push: setup ## dvc push the outputs (remote from .dvc/config or PLANDVC_REMOTE)
	$(BIN)/dvc push $(if $(PLANDVC_REMOTE),-r $(PLANDVC_REMOTE))

pull: setup ## dvc pull the outputs (remote from .dvc/config or PLANDVC_REMOTE)
	$(BIN)/dvc pull $(if $(PLANDVC_REMOTE),-r $(PLANDVC_REMOTE))

docker-build: ## build the pinned image (comes with the Docker issue)
	@echo "docker-build: not built yet (the Docker image comes with its own issue)"; exit 1

docker-gen: ## dvc repro inside the pinned image (comes with the Docker issue)
	@echo "docker-gen: not built yet (the Docker image comes with its own issue)"; exit 1

clean: ## remove caches (keeps the venv and data)
	rm -rf .pytest_cache .ruff_cache .hypothesis
