# The two commands: `make run` (install, migrate, serve) and `make test` (install, run every test).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
export HOST PORT
# llama-cpp-python compiles llama.cpp from source. Its default build tunes for the build
# machine's CPU (GGML_NATIVE) and dies with SIGILL on machines without those instructions;
# this portable set works on any x86-64 CPU with AVX2. pip caches the built wheel.
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF

.PHONY: install install-local install-test run test test-fast migrate lint bench browser model

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first and pinned: an unpinned torch pulls a multi-GB CUDA build.
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e .
	touch $@

# The `local` provider (llama.cpp in-process): `make install-local model`, then DEFAULT_PROVIDER=local.
install-local: $(VENV)/.installed-local

$(VENV)/.installed-local: pyproject.toml $(VENV)/.installed
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip install --quiet -e '.[local]'
	touch $@

install-test: $(VENV)/.installed-test

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip install --quiet -e '.[test,local]'
	touch $@

model: install
	$(PY) manage.py fetch_model

migrate: install
	$(PY) manage.py migrate --noinput

run: migrate
	$(PY) manage.py runportal --host $(HOST) --port $(PORT)

browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; fi; }

# The tests write bytecode whatever the environment says (PYTHONDONTWRITEBYTECODE, set on some
# machines): otherwise every run compiles the project again in each test process and in each web,
# worker and model process a test starts, and pytest rewrites the asserts of every test module
# and plugin again. From the second run on, a test process's start (imports and collection) takes
# 10 s instead of 18 s; in a clean clone, the processes started after the first read what it
# compiled (a web or worker process starts about 0.3 s sooner).
TEST_ENV := PYTHONDONTWRITEBYTECODE=

test: install-test browser
	$(TEST_ENV) $(PY) -m pytest -n 2 --dist loadgroup --no-loadscope-reorder --durations=10

# The inner loop: every test that starts no process (web, worker, model server) and no browser.
test-fast: install-test
	$(TEST_ENV) $(PY) -m pytest -n 2 --dist loadgroup --no-loadscope-reorder -m "not slow"

lint: install-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
