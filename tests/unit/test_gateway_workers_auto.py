"""PGAQ_GATEWAY_WORKERS=auto: one worker per CPU, half as many when PostgreSQL shares the host."""

from __future__ import annotations

import pytest
from pgaq_services.gateway.settings import database_is_local, workers_for


@pytest.mark.parametrize("dsn", [
    "postgresql:///pgaq?host=/var/run/postgresql", "postgresql://u:p@localhost:5432/db",
    "postgresql://127.0.0.1/db", "postgresql://[::1]:5433/db", "dbname=pgaq",
    "host=/tmp dbname=pgaq", "postgresql://u@%2Fvar%2Frun%2Fpostgresql/db", "postgresql:///db",
])
def test_local_databases(dsn: str) -> None:
    assert database_is_local(dsn)


@pytest.mark.parametrize("dsn", [
    "postgresql://u:p@db.internal:5432/pgaq", "host=10.0.0.5 dbname=pgaq",
    "postgresql://localhost,db2.internal/pgaq", "postgresql://u:p@[2001:db8::1]/db",
])
def test_remote_databases(dsn: str) -> None:
    assert not database_is_local(dsn)


def test_auto_leaves_a_local_postgresql_its_cores() -> None:
    local, remote = "postgresql://127.0.0.1/db", "postgresql://db.internal/db"
    assert [workers_for("auto", local, cpus=c) for c in (1, 2, 4, 8, 16)] == [1, 1, 2, 4, 4]
    assert [workers_for("auto", remote, cpus=c) for c in (1, 2, 4, 8)] == [1, 2, 4, 4]
    assert workers_for("3", local, cpus=2) == 3


def test_fewer_than_one_worker_is_refused() -> None:
    with pytest.raises(SystemExit):
        workers_for("0", "postgresql:///db")
