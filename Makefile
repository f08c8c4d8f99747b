# The two commands a user needs: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test unit integration e2e bench lint typecheck clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/pgaq up --data-dir .pgaq --port $${PGAQ_PORT:-8080}

test: $(STAMP)
	$(BIN)/python -m pytest -q tests

unit: $(STAMP)
	$(BIN)/python -m pytest -q tests/unit

bench: $(STAMP)
	$(BIN)/python -m bench

lint: $(STAMP)
	$(BIN)/ruff check shared services tests bench
	$(BIN)/mypy shared/pgaq services

clean:
	rm -rf $(VENV) .pgaq
