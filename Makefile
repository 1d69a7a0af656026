# The two entry points (see README): `make serve` and `make test`. Everything else is a step of those.
# `setup` installs what serving needs (Maven, the project, a Java 21+ for the node); `setup-test` adds
# the test tools (pytest, Playwright, Schemathesis, chromium, axe-core …): `make test` is a superset.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: serve test setup setup-test node sample lint clean images docker

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml scripts/system-packages.sh
	scripts/system-packages.sh
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	$(BIN)/papersearch-node java
	touch $@

setup-test: $(VENV)/.installed-test
	scripts/system-packages.sh --test
	scripts/test-assets.sh

$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/pip install -q -e '.[test]'
	touch $@

node: setup
	$(BIN)/papersearch-node start

# Loads the shipped sample only when the alias does not exist yet, so real data is never replaced.
sample: node
	$(BIN)/papersearch-admin reindex --if-missing --no-progress indexer/sample/papers.jsonl

# The query log's next days first: the webapp appends only to days that exist (DECISIONS.md D-188).
serve: sample
	$(BIN)/papersearch-admin querylog prepare
	$(BIN)/gunicorn -c config/gunicorn.conf.py webapp.wsgi:app

lint: setup-test
	$(BIN)/ruff check .

# The deploy tests (tests/deploy/) need a Docker engine and Compose v2: started or installed here when
# missing (as root; scripts/docker-engine.sh says what to do otherwise).
docker:
	scripts/docker-engine.sh
	scripts/compose-v2.sh >/dev/null

# Every image of the Docker stack from Debian, PyPI and Maven mirrors alone (docs/operations.md
# "Building without Docker Hub"); the deploy tests call the same script.
images:
	scripts/build-images.sh

# DOCKER_TESTS=0 leaves out the deploy tests and so the Docker engine: for machines that cannot run one
# (an unprivileged container, as in scripts/fresh-machine-check.sh).
DOCKER_TESTS ?= 1
test: setup-test lint node $(if $(filter 0,$(DOCKER_TESTS)),,docker)
	$(BIN)/python -m pytest $(if $(filter 0,$(DOCKER_TESTS)),-m "not deploy")

# Fresh random inputs where `make test` uses fixed ones (docs/testing.md): the unit tests that draw random values
# with a new seed, then SEEDS new Schemathesis seeds against the local node, each printed with its result. Any
# finding fails; its seed joins FIXED_SEEDS in tests/integration/test_api_contract.py with its fix.
SEEDS ?= 20
.PHONY: fuzz
fuzz: setup-test node
	PAPERSEARCH_TEST_SEED=fresh $(BIN)/python -m pytest -q tests/unit
	PAPERSEARCH_FUZZ_SEEDS=$(SEEDS) $(BIN)/python -m pytest -s tests/integration/test_api_contract.py

clean:
	-$(BIN)/papersearch-node stop
	rm -rf $(VENV) plugin/target

# The cost benchmark: our searches against plain BM25 anchors on a generated corpus (bench/query_cost.py; more
# options there, other benchmarks in BENCHMARKS.md). Needs a running node (`make node`): it never starts one.
BENCH_ARGS ?= --sizes 13033 --repeats 3
.PHONY: bench
bench: $(VENV)/.installed-bench
	$(BIN)/python -m bench.query_cost $(BENCH_ARGS)

$(VENV)/.installed-bench: $(VENV)/.installed
	$(BIN)/pip install -q -e '.[bench]'
	touch $@
