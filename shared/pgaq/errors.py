"""One exception root for the library; Oracle error numbers travel with every error."""

from __future__ import annotations

import re
from typing import Any

_ORA = re.compile(r"ORA-(\d{5})")


class PgaqError(Exception):
    """Root of every error the library raises; `code` is Oracle's ORA number when known."""

    def __init__(self, message: str, code: int | None = None, sqlstate: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.sqlstate = sqlstate

    @property
    def ora(self) -> str | None:
        return f"ORA-{self.code:05d}" if self.code is not None else None


class QueueError(PgaqError):
    """An AQ operation refused by the engine (unknown queue, disabled, no recipients...)."""


class EndOfFetch(QueueError):
    """ORA-25228: nothing to dequeue (timeout or end of fetch)."""


class ConnectionLost(PgaqError):
    """The database connection failed; the operation may be retried."""


class InternalError(PgaqError):
    """A bug in pgaq (a driver call it should never make), never the database's fault:
    reported as ORA-00600 with its real message and logged with its traceback."""


class ConnectionMisuse(InternalError):
    """A statement on a connection its caller does not hold (given back to the pool, or
    busy with another operation)."""


class ConfigError(PgaqError):
    """Bad settings or a missing PostgreSQL installation."""


# what asyncpg says of a connection that is gone (closed by the server, or by us after a
# failure): the database connection really failed
_CLOSED = ("connection is closed", "connection was closed", "underlying connection is closed",
           "released back to the pool", "connection has been closed")


# the server ended the session (pg_terminate_backend or a fast shutdown mid-statement;
# another backend crashed): a lost connection, to retry, never a refused operation. No
# code of its own, as every lost connection: the gateway answers ORA-03113, JMS JMS-220
_SESSION_ENDED = ("57P01", "57P02")
# the server will not start a session: lost connections too, with Oracle's code
_NO_SESSION = {
    # starting up, shutting down or in recovery
    "57P03": (1033, "ORA-01033: initialization or shutdown in progress"),
    # max_connections (or a role's, a database's CONNECTION LIMIT) reached
    "53300": (18, "ORA-00018: maximum number of sessions exceeded"),
}


def ora_code(message: str) -> int | None:
    m = _ORA.search(message)
    return int(m.group(1)) if m else None


def wrap_db_error(exc: BaseException) -> PgaqError:
    """Turn a driver error into a library error, keeping the cause."""
    import asyncpg

    if isinstance(exc, PgaqError):
        return exc
    message = str(exc)
    sqlstate: str | None = getattr(exc, "sqlstate", None)
    code = ora_code(message)
    if code is None and sqlstate == "42501":
        code, message = 1031, f"ORA-01031: insufficient privileges ({message})"
    elif code is None and sqlstate == "42P01":
        code, message = 24010, f"ORA-24010: the queue's table is gone ({message})"
    elif code is None and sqlstate in ("22021", "22P05"):
        # NUL (or a character the database encoding lacks) in a string: PostgreSQL text
        # cannot hold it, so nothing ran
        code, message = 1482, f"ORA-01482: a string holds a character text cannot store ({message})"
    elif code is None and sqlstate == "42883" and "aq$_" in message:
        code, message = 24010, f"ORA-24010: the queue's table is gone ({message})"
    elif code is None and sqlstate in _NO_SESSION:
        code, text = _NO_SESSION[sqlstate]
        if sqlstate == "53300" and "for role" in message:
            code, text = 2391, "ORA-02391: exceeded simultaneous SESSIONS_PER_USER limit"
        message = f"{text} ({message})"

    err: PgaqError
    lowered = message.lower()
    if code == 25228:
        err = EndOfFetch(message, code, sqlstate)
    elif isinstance(exc, (asyncpg.PostgresConnectionError, ConnectionError, OSError,
                          asyncpg.InternalClientError, asyncpg.ConnectionDoesNotExistError)) or (
        sqlstate in _SESSION_ENDED or sqlstate in _NO_SESSION) or (
        # InternalClientError: the protocol of a connection the server dropped mid-operation;
        # a pool takes back a connection the server closed (pgaq's own holders reach theirs
        # through a Lease, which refuses before asyncpg is asked: see lease.py)
        isinstance(exc, asyncpg.InterfaceError) and any(
            m in lowered for m in _CLOSED)
    ):
        err = ConnectionLost(message, code, sqlstate)
    elif isinstance(exc, asyncpg.InterfaceError) and "another operation is in progress" in lowered:
        err = ConnectionMisuse(f"ORA-00600: internal error: two operations on one connection at "
                               f"once: {message}", 600, sqlstate)
    elif isinstance(exc, asyncpg.InterfaceError):
        err = InternalError(f"ORA-00600: internal error: {message}", 600, sqlstate)
    else:
        err = QueueError(message, code, sqlstate)
    err.__cause__ = exc
    return err


def describe(exc: BaseException) -> dict[str, Any]:
    """A JSON-able description of an error for APIs; never a traceback."""
    if isinstance(exc, PgaqError):
        return {"error": exc.message, "code": exc.ora, "sqlstate": exc.sqlstate}
    return {"error": str(exc) or type(exc).__name__, "code": None, "sqlstate": None}
