"""javax.jms.ConnectionFactory (AQjmsFactory's connection factories) over an asyncpg pool.

The factory owns one asyncpg pool per login (user, password): each JMS Session takes one
connection of it for its life (a connection has one owner at a time), IMMEDIATE work of a
transacted session borrows another for one statement. A pool opens with the first
Connection of its login and closes when the last one closes, so an application that
closes its connections leaves nothing open.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import asyncpg

from . import compliance
from . import errors as jerr
from ._support import CONNECTION_UNAVAILABLE, make
from .connection import Connection


@dataclass
class _Pool:
    pool: asyncpg.Pool
    users: int = 0


class ConnectionFactory:
    """`jms.ConnectionFactory(dsn)`; also `user`/`password` (overriding the DSN's),
    `max_pool_size` (the sessions that may be open at once per login, plus one for
    IMMEDIATE work), `safety_poll` (seconds between the safety looks of waiting receives
    besides their wake-ups: one of a key's waiters each time), `dups_ok_batch`/
    `dups_ok_delay` (how many messages, or how many seconds,
    a DUPS_OK_ACKNOWLEDGE session consumes before committing), `transacted_prefetch` (at
    most how many messages a transacted session locks ahead per look, sized by what its
    last transaction took), `acquire_timeout` (seconds
    a session waits for a pooled connection before ResourceAllocationException JMS-221),
    `j2ee_compliant` (Oracle's oracle.jms.j2eeCompliant: JMSPriority 0-9 with 9 the highest
    and durable subscriber names unique; False, the default, is Oracle's non-compliant
    mode, where JMSPriority is AQ's priority: see pgaq.jms.compliance), `temporary_schema`
    (the schema of temporary queues and topics; by default the one named after the user,
    else the current schema), and any further asyncpg connect arguments."""

    def __init__(self, dsn: str | None = None, *, user: str | None = None,
                 password: str | None = None, min_pool_size: int = 1, max_pool_size: int = 10,
                 safety_poll: float = 5.0, dups_ok_batch: int = 50, dups_ok_delay: float = 0.1,
                 transacted_prefetch: int = 32, acquire_timeout: float = 5.0,
                 j2ee_compliant: bool = False, temporary_schema: str | None = None,
                 **connect_kwargs: Any) -> None:
        self.dsn = dsn
        self.user = user
        self.password = password
        self.min_pool_size = min_pool_size
        self.max_pool_size = max_pool_size
        self.safety_poll = safety_poll
        self.dups_ok_batch = max(1, dups_ok_batch)
        self.dups_ok_delay = dups_ok_delay
        self.transacted_prefetch = max(1, transacted_prefetch)
        self.acquire_timeout = acquire_timeout
        self.j2ee_compliant = compliance.check_flag(j2ee_compliant)
        self.temporary_schema = temporary_schema
        self.connect_kwargs = connect_kwargs
        self._pools: dict[tuple[str | None, str | None], _Pool] = {}
        self._owners: dict[int, tuple[str | None, str | None]] = {}
        self._lock = asyncio.Lock()

    def _args(self, user: str | None, password: str | None) -> dict[str, Any]:
        args = dict(self.connect_kwargs)
        if self.dsn is not None:
            args["dsn"] = self.dsn
        if user is not None:
            args["user"] = user
        if password is not None:
            args["password"] = password
        return args

    async def create_connection(self, user: str | None = None,
                                password: str | None = None) -> Connection:
        """A new Connection, stopped; `user`/`password` default to the factory's."""
        login = (user or self.user, password or self.password)
        args = self._args(*login)
        async with self._lock:
            entry = self._pools.get(login)
            if entry is None:
                try:
                    pool = await asyncpg.create_pool(min_size=min(self.min_pool_size, self.max_pool_size),
                                                     max_size=self.max_pool_size, **args)
                except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                    if isinstance(exc, (asyncpg.InvalidAuthorizationSpecificationError,
                                        asyncpg.InvalidPasswordError)):
                        raise make(jerr.JMSSecurityException, 232, "an invalid user/password "
                                   f"was specified for the JMS connection: {exc}") from exc
                    raise make(jerr.JMSException, CONNECTION_UNAVAILABLE,
                               f"cannot connect to the database: {exc!r}") from exc
                entry = _Pool(pool)
                self._pools[login] = entry
            entry.users += 1

        async def connect() -> asyncpg.Connection:
            return await asyncpg.connect(**args)

        conn = Connection(self, entry.pool, connect)
        self._owners[id(conn)] = login
        return conn

    create_queue_connection = create_connection
    create_topic_connection = create_connection

    async def release(self, conn: Connection) -> None:
        """A Connection closed: its pool closes with the last one of its login."""
        login = self._owners.pop(id(conn), None)
        if login is None:
            return
        async with self._lock:
            entry = self._pools.get(login)
            if entry is None:
                return
            entry.users -= 1
            if entry.users <= 0:
                del self._pools[login]
                try:
                    await asyncio.wait_for(entry.pool.close(), 10.0)
                except (TimeoutError, OSError, asyncpg.InterfaceError):
                    entry.pool.terminate()


# AQjmsFactory's names for the same factory
QueueConnectionFactory = ConnectionFactory
TopicConnectionFactory = ConnectionFactory
