"""How driver errors are classified: a dropped connection must read as ConnectionLost so
waiting dequeues and service loops retry instead of dying."""

from __future__ import annotations

import asyncpg
from pgaq.errors import ConnectionLost, QueueError, wrap_db_error


def test_a_protocol_left_mid_operation_is_a_lost_connection() -> None:
    exc = asyncpg.InternalClientError("cannot switch to state 12; another operation (2) is in progress")
    err = wrap_db_error(exc)
    assert isinstance(err, ConnectionLost) and err.__cause__ is exc


def test_an_oserror_is_a_lost_connection_and_sql_errors_are_not() -> None:
    assert isinstance(wrap_db_error(ConnectionResetError("reset by peer")), ConnectionLost)
    err = wrap_db_error(asyncpg.PostgresError("ORA-24010: queue s.q does not exist"))
    assert isinstance(err, QueueError) and err.code == 24010
