"""One owner at a time for a pooled connection, checked on every use.

A session that gives its connection back must not reach it again: the pool may already have
lent it to another session, whose transaction the stale statement would then join. A
`Lease` is the only handle the holder keeps; once given back, reaching the connection
through it raises `ConnectionMisuse` (a bug, reported as such) instead of running anything.
"""

from __future__ import annotations

import asyncpg

from .errors import ConnectionMisuse


class Lease:
    __slots__ = ("_conn", "owner")

    def __init__(self, conn: asyncpg.Connection, owner: str) -> None:
        self._conn: asyncpg.Connection | None = conn
        self.owner = owner

    @property
    def held(self) -> bool:
        return self._conn is not None

    @property
    def conn(self) -> asyncpg.Connection:
        """The connection, while held; a given-back lease raises rather than run anything."""
        if self._conn is None:
            raise ConnectionMisuse(
                f"ORA-00600: internal error: {self.owner} used a database connection it had "
                "given back to the pool (nothing was run on it)", 600)
        return self._conn

    def give_back(self) -> asyncpg.Connection:
        """End the lease: the caller returns the connection to its pool; this lease is dead."""
        conn = self.conn
        self._conn = None
        return conn
