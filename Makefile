# The two commands a user needs: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: java install system-deps test-deps bench-deps run test check unit integration e2e fuzz bench chaos pressure soak lint typecheck clean compose-test ha-test

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,stats]'
	touch $(STAMP)

install: $(STAMP)

# the benchmark's Python peers (procrastinate, PgQueuer, pgmq, pgque-py, aio-pika): only `make bench` needs them
$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(BIN)/pip install --quiet -e '.[dev,stats,bench]'
	touch $(BENCH_STAMP)

# Debian packages beside Python (JDBC driver and JRE for the statistics job; Chromium and
# docker-compose for the tests): installed when missing, quick when present.
system-deps:
	@deploy/system-deps.sh

test-deps:
	@deploy/system-deps.sh --test

# and Debian's ActiveMQ broker, the java suite's peer
bench-deps:
	@deploy/system-deps.sh --bench

run: $(STAMP) system-deps
	$(BIN)/pgaq up --data-dir .pgaq --port $${PGAQ_PORT:-8080}

# Every test: first all but the `alone` ones in parallel (pytest-xdist, TEST_WORKERS
# processes, each with its own PostgreSQL cluster and template database), then the
# `alone` ones (the HA run, a stop under Spark: tests/conftest.py) one at a time, as
# their pass rules time a whole stack on a machine of its own. Both phases run; either
# failing fails the target.
TEST_WORKERS ?= 4
# Compiled modules are kept (__pycache__) even where the environment says not to: without
# them each xdist worker rewrites every test module's asserts and compiles pgaq again, about
# 8 s of CPU per worker and per `python -m pgaq...` process a test starts.
unexport PYTHONDONTWRITEBYTECODE
test: $(STAMP) test-deps
	@status=0; \
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) -m "not alone" tests || status=$$?; \
	$(BIN)/python -m pytest -q -m alone tests/e2e || status=$$?; \
	exit $$status

# docker-compose.yml for real (tests/e2e/test_compose_up.py, also part of `make test`): the
# base image (debootstrap, kept in podman's store), the images, `up` of the default profile
# on podman with host networking, a user's round trip, a SIGKILLed container, `down -v`;
# then the profile `ha` (test_compose_ha.py): Patroni, etcd, HAProxy, the round trip, the
# leader's container killed, the round trip again on the new leader.
# Here podman missing is a failure, not a skip.
compose-test: $(STAMP) test-deps
	PGAQ_COMPOSE_TEST=1 $(BIN)/python -m pytest -q -s tests/e2e/test_compose_up.py tests/e2e/test_compose_ha.py

unit: $(STAMP)
	$(BIN)/python -m pytest -q tests/unit

# A developer's loop, under 2 minutes: lint, the unit tests and the integration tests of
# the engine's core (generated SQL, routes' rules, templates, migrations), in parallel.
CHECK_TESTS := tests/unit tests/integration/test_generated_sql.py \
	tests/integration/test_sql_templates.py tests/integration/test_engine.py \
	tests/integration/test_migration_schema.py
check: lint
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) $(CHECK_TESTS)

# The fuzz suite runs bounded inside `make test`; this runs the same properties long
# (PGAQ_FUZZ_EXAMPLES examples each, default 5000, exploring rather than derandomised).
fuzz: $(STAMP) test-deps
	PGAQ_FUZZ_EXAMPLES=$${PGAQ_FUZZ_EXAMPLES:-5000} $(BIN)/python -m pytest -q -o timeout=7200 tests/fuzz

# the Node.js peers (graphile-worker, pg-boss) from bench/node's lockfile, when missing or
# older than it; a failed install leaves them reported as missing in the table
bench: $(BENCH_STAMP) bench-deps
	@if [ ! -f bench/node/node_modules/.package-lock.json ] || \
	    [ bench/node/package-lock.json -nt bench/node/node_modules/.package-lock.json ]; then \
	  npm ci --prefix bench/node --no-audit --no-fund || \
	    echo "bench: npm ci --prefix bench/node failed: graphile-worker, pg-boss reported missing"; \
	fi
	$(BIN)/python -m bench

# Load through every path while services are SIGKILLed, PostgreSQL restarts, the remote
# link is cut and the receivers fail; then every message id accounted for (docs/chaos.md).
# CHAOS_MESSAGES (10000), CHAOS_SEED (1), CHAOS_KILLS (3 per service), CHAOS_DRAIN_TIMEOUT.
chaos: $(STAMP)
	$(BIN)/python -m chaos

# The fault classes chaos has not: backends terminated at 2/s, every connection taken,
# xmin pinned by an idle transaction, REPEATABLE READ readers, a 1.5x surge then a burst of
# 100,000; each cell's figure against its pass rule, every id accounted for (docs/chaos.md,
# "Pressure cells"). PRESSURE_CELLS, PRESSURE_RATE (150 msg/s), PRESSURE_STRICT (1) and the
# durations: `python -m pressure --settings` lists them all. About 30 minutes.
pressure: $(STAMP)
	$(BIN)/python -m pressure

# The mesh at a steady rate, sampled, then judged: memory flat, tables bounded by retention,
# dead tuples cleared (docs/operations.md). SOAK_RATE (20 msg/s), SOAK_SECONDS (3600),
# SOAK_SAMPLE (30), SOAK_RETENTION (60), SOAK_TOLERANCE (0.25), SOAK_MAX_MIB_PER_HOUR (10).
soak: $(STAMP)
	$(BIN)/python -m soak

# pgaq on a Patroni cluster (three PostgreSQL members, three etcd members, HAProxy; each
# member in a network namespace of its own when run as root): a SIGKILLed primary, a
# switchover and a primary cut off from the network, each under load from IDAP, pgaq.jms,
# dbms_aq.dequeue, propagation and notifications; every acknowledged id accounted for
# (docs/deployment.md, "High availability"). `python -m ha --settings` lists the HA_* knobs.
# `make test` runs it bounded (tests/e2e/test_ha.py: one etcd member, shorter windows).
ha-test: $(STAMP) test-deps
	$(BIN)/python -m ha

# mypy checks bench/ against its peers' own types (procrastinate, PgQueuer, psycopg, pgmq,
# aio-pika): the bench extras are installed first, so the result is the same on every machine.
# services/ is checked as pgaq_services, its installed name (.ci/mypy/, pyproject.toml).
lint: $(BENCH_STAMP)
	$(BIN)/ruff check shared services tests bench chaos pressure soak ha
	$(BIN)/mypy shared/pgaq .ci/mypy/pgaq_services chaos pressure soak ha tests bench

clean:
	rm -rf $(VENV) .pgaq

# The Java JMS provider (java/README.md): build/java/pgaq-jms.jar from Debian's OpenJDK and
# jars only; `make test` builds it and runs its tests (tests/java).
java: system-deps
	java/build jar
