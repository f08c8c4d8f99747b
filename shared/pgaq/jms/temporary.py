"""Temporary queues and topics (JMS 1.1 section 4.4.3) and the kind of a JMSReplyTo.

A connection's temporary destinations are made, named and dropped by SQL any JMS client
shares (aq.jms_create_temporary and its neighbours, R__52_jms_provider.sql): generic JMS
queues (SYS.AQ$_JMS_MESSAGE) in the schema the factory's `temporary_schema` names, else
the user's, in two queue tables made on first use. The connection holds a lease on one
database connection of its own, opened with its first temporary destination: an advisory
lock whose key each of its temporaries' names carries. Closing the connection drops them;
if the process dies or that database connection is lost, the lock goes with it and the
next aq.jms_create_temporary in the schema (or aq.jms_drop_orphaned_temporaries) drops
them.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import asyncpg

from ..errors import PgaqError, wrap_db_error
from . import errors as jerr
from . import message as jmsg
from ._support import (
    CONNECTION_CLOSED,
    CONNECTION_UNAVAILABLE,
    INVALID_DESTINATION,
    as_jms,
    fail,
    make,
)
from .destination import Queue, TemporaryQueue, TemporaryTopic, Topic, temporary_kind

if TYPE_CHECKING:
    from .connection import Connection

log = logging.getLogger("pgaq.jms")

_DB_ERRORS = (OSError, asyncpg.PostgresError, asyncpg.InterfaceError)


class Temporaries:
    """One connection's temporary destinations and the lease that keeps them."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.names: set[str] = set()  # "owner.name" of those it made and has not dropped
        self._db: asyncpg.Connection | None = None
        self._lease: int | None = None
        self._lock = asyncio.Lock()  # one statement at a time on the lease's connection

    async def _ensure(self) -> tuple[asyncpg.Connection, int]:
        if self._db is not None and not self._db.is_closed() and self._lease is not None:
            return self._db, self._lease
        if self._db is not None:
            # the lease died with its connection: what it held may be dropped as orphans
            log.warning("the lease of this connection's temporary destinations was lost")
            self._db.terminate()
            self._db = None
        try:
            db = await self.connection._connect()
        except _DB_ERRORS as exc:
            raise make(jerr.JMSException, CONNECTION_UNAVAILABLE,
                       f"connection no longer available: {exc!r}", exc) from exc
        try:
            self._lease = await db.fetchval("SELECT aq.jms_temporary_lease()")
        except _DB_ERRORS:
            db.terminate()
            raise
        self._db = db
        assert self._lease is not None
        return db, self._lease

    async def create(self, topic: bool) -> TemporaryQueue | TemporaryTopic:
        self.connection.check_open()
        schema = self.connection.factory.temporary_schema
        async with self._lock:
            try:
                db, lease = await self._ensure()
                qualified = await db.fetchval("SELECT aq.jms_create_temporary($1, $2, $3)",
                                              topic, lease, schema)
            except _DB_ERRORS as exc:
                raise as_jms(wrap_db_error(exc)) from exc
        owner, _, name = str(qualified).partition(".")
        self.names.add(qualified)
        if topic:
            return TemporaryTopic(owner, name, self.connection)
        return TemporaryQueue(owner, name, self.connection)

    async def drop(self, qualified: str) -> None:
        async with self._lock:
            try:
                db, lease = await self._ensure()
                await db.execute("SELECT aq.jms_drop_temporary($1, $2)", qualified, lease)
            except _DB_ERRORS as exc:
                raise as_jms(wrap_db_error(exc)) from exc
        self.names.discard(qualified)
        for s in self.connection._sessions:  # its sessions must look it up afresh (and fail)
            s._destinations.pop(qualified.lower(), None)

    async def close(self) -> None:
        """The connection closes: drop its temporaries and give the lease up."""
        async with self._lock:
            db, self._db = self._db, None
            if db is None:
                return
            try:
                if not db.is_closed() and self.names:
                    # bounded: a database gone silent must not hold close() up
                    await asyncio.wait_for(
                        db.fetchval("SELECT aq.jms_drop_temporaries($1)", self._lease), 10.0)
                await asyncio.wait_for(db.close(), 5.0)
            except (*_DB_ERRORS, TimeoutError) as exc:
                # the lease ends with the connection: a later call drops them as orphans
                log.warning("closing a connection's temporary destinations: %r", exc)
                db.terminate()
            self.names.clear()


def registry(connection: Connection) -> Temporaries:
    if connection.temporaries is None:
        connection.temporaries = Temporaries(connection)
    return connection.temporaries


async def create(connection: Connection, topic: bool) -> TemporaryQueue | TemporaryTopic:
    """Session.create_temporary_queue / create_temporary_topic."""
    return await registry(connection).create(topic)


async def delete(dest: TemporaryQueue | TemporaryTopic) -> None:
    """TemporaryQueue.delete(): only its connection's copy deletes it (JMS 1.1 4.4.3), and
    not while a consumer of that connection is open on it (the TemporaryQueue javadoc)."""
    owner = dest._owner
    if owner is None:
        fail(jerr.IllegalStateException, 107, f"Operation not allowed on {dest.qualified}: only "
             "the connection that created a temporary destination deletes it")
    if owner.closed:
        fail(jerr.IllegalStateException, CONNECTION_CLOSED, "Connection is closed")
    for s in owner._sessions:
        for c in s._consumers:
            if not c.closed and c.destination == dest:
                fail(jerr.JMSException, 207, f"temporary destination {dest.qualified} has an "
                     "open consumer: close it before delete()")
    temps = owner.temporaries
    if temps is None or dest.qualified not in temps.names:
        fail(jerr.InvalidDestinationException, INVALID_DESTINATION,
             f"Invalid Destination: temporary destination {dest.qualified} was deleted")
    await temps.drop(dest.qualified)


def check_consumer(connection: Connection, dest: object) -> None:
    """A consumer on a temporary destination: only its own connection's (JMS 1.1 4.4.3)."""
    if not isinstance(dest, (Queue, Topic)) or temporary_kind(dest.name) is None:
        return
    temps = connection.temporaries
    if temps is None or dest.qualified not in temps.names:
        fail(jerr.InvalidDestinationException, INVALID_DESTINATION,
             f"Invalid Destination: {dest.qualified} is a temporary destination of another "
             "connection (or deleted); only the connection that created it may consume from it")


async def settle_reply_to(db: asyncpg.Connection | None, connection: Connection,
                          msg: jmsg.Message) -> None:
    """A received message's JMSReplyTo read as a Queue (an address alone): a Topic when the
    catalog has a multi-consumer queue there (aq.jms_reply_to_kind, which never raises, so
    an open transaction of the session is safe). Known addresses are asked once per
    connection; a deleted temporary one needs no asking (the codec knows it by its name)."""
    rt = msg._reply_to
    if type(rt) is not Queue:
        return
    kinds = connection.reply_kinds
    kind = kinds.get(rt.qualified)
    if kind is None and db is not None:
        try:
            kind = await db.fetchval(
                "SELECT aq.jms_reply_to_kind(sys.aq$_agent(NULL, $1, 0))", rt.qualified)
        except _DB_ERRORS as exc:
            raise wrap_db_error(exc) from exc  # the session's using() sees a lost connection
        if kind is None:
            return
        kinds[rt.qualified] = kind
    if kind == "TOPIC":
        msg._reply_to = Topic(rt.owner, rt.name)


async def settle_reply_to_pooled(connection: Connection, msg: jmsg.Message) -> None:
    """settle_reply_to on a pooled connection (a browser has no session connection)."""
    if type(msg._reply_to) is not Queue or msg._reply_to.qualified in connection.reply_kinds:
        await settle_reply_to(None, connection, msg)
        return
    try:
        async with connection.pool.acquire() as c:
            await settle_reply_to(c, connection, msg)
    except PgaqError as exc:
        raise as_jms(exc) from exc
