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


def test_a_terminated_session_is_a_lost_connection() -> None:
    """pg_terminate_backend or a fast shutdown (57P01) as the server's error: a lost
    connection, to retry, not a refused operation (it read as a QueueError, which waits
    and batches do not retry); no code of its own (the gateway says ORA-03113)."""
    exc = asyncpg.AdminShutdownError("terminating connection due to administrator command")
    err = wrap_db_error(exc)
    assert isinstance(err, ConnectionLost) and err.code is None and err.__cause__ is exc


def test_a_refused_connection_says_which_limit_with_oracles_code() -> None:
    """Every connection taken (max_connections, a role's CONNECTION LIMIT): ORA-00018 /
    ORA-02391, as ConnectionLost (retry later), never a bare driver error."""
    full = asyncpg.TooManyConnectionsError("sorry, too many clients already")
    role = asyncpg.TooManyConnectionsError('too many connections for role "app"')
    starting = asyncpg.CannotConnectNowError("the database system is starting up")
    got = [wrap_db_error(e) for e in (full, role, starting)]
    assert all(isinstance(e, ConnectionLost) for e in got)
    assert [e.ora for e in got] == ["ORA-00018", "ORA-02391", "ORA-01033"]
