"""javax.jms.Connection over PostgreSQL: start/stop gating, sessions, the exception
listener, and the one listening database connection that serves every wait of its sessions.

A Connection is created stopped (Oracle Database Advanced Queuing User's Guide,
"Introduction to Oracle Java Message Service", "JMS Connection": "When a Connection is
created it is in stopped mode"): receives wait and listeners are not called until `start()`.
Its sessions each take one pooled database connection of their own; waits (blocking
receives, message listeners) do not hold that connection while they wait but subscribe to
the Connection's LISTEN connection, opened on the first wait and reconnected (with a wake-up
of every waiter) when the database comes back. The exception listener is told, once per
outage, when either the listening connection or a session's connection is lost.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

import asyncpg

from ..aio import TaskGroup
from ..db import DB_ERRORS
from ..listener import Listener, Wakeup
from . import errors as jerr
from ._support import (
    AUTO_ACKNOWLEDGE,
    CLIENT_ID_LATE,
    CONNECTION_CLOSED,
    CONNECTION_UNAVAILABLE,
    SESSION_TRANSACTED,
    call,
    fail,
    make,
)

if TYPE_CHECKING:
    from .factory import ConnectionFactory
    from .session import Session
    from .temporary import Temporaries

log = logging.getLogger("pgaq.jms")

# the session whose message listener is running in this task: stop()/close() from inside a
# listener would wait for itself (JMS 2.0 makes it an IllegalStateException)
in_listener: contextvars.ContextVar[Session | None] = contextvars.ContextVar(
    "pgaq_jms_in_listener", default=None)

ExceptionListener = Callable[[jerr.JMSException], Any]


@dataclass(frozen=True)
class ConnectionMetaData:
    """javax.jms.ConnectionMetaData."""

    jms_version: str = "1.1"
    jms_major_version: int = 1
    jms_minor_version: int = 1
    jms_provider_name: str = "pgaq (Oracle AQ JMS on PostgreSQL)"
    provider_version: str = "0.1.0"
    provider_major_version: int = 0
    provider_minor_version: int = 1
    jmsx_property_names: tuple[str, ...] = field(default=(
        "JMSXUserID", "JMSXAppID", "JMSXDeliveryCount", "JMSXGroupID", "JMSXGroupSeq",
        "JMSXRcvTimestamp", "JMSXState"))

    def get_jms_version(self) -> str:
        return self.jms_version

    def get_jms_provider_name(self) -> str:
        return self.jms_provider_name

    def get_provider_version(self) -> str:
        return self.provider_version

    def get_jmsx_property_names(self) -> list[str]:
        return list(self.jmsx_property_names)


class Parked(Protocol):
    """A holder of a pooled connection it is not using (a Session between operations)."""

    async def give_back_parked(self) -> None: ...


class BoundedPool:
    """The factory's pool with a bound on the wait for a connection: after
    `acquire_timeout` seconds a session gets ResourceAllocationException (JMS-221) instead
    of waiting for ever.

    A session keeps its connection between operations (no reset round trip per receive)
    but parks it here while it holds nothing on it (no transaction with work, nothing
    unacknowledged): a take that finds the pool exhausted has parked holders give theirs
    back first, so `max_pool_size` bounds the sessions working at once, not the sessions
    open (a Spring container opens dozens per login, most of them waiting)."""

    def __init__(self, pool: asyncpg.Pool, timeout: float) -> None:
        self.raw = pool
        self.timeout = timeout
        self._parked: dict[Parked, None] = {}  # insertion-ordered: the oldest gives first
        self.waiting = 0  # takes waiting for a connection: a holder done with one gives it back

    def park(self, holder: Parked) -> None:
        self._parked[holder] = None

    def unpark(self, holder: Parked) -> None:
        self._parked.pop(holder, None)

    async def take(self) -> asyncpg.Connection:
        while (self._parked and self.raw.get_idle_size() == 0
               and self.raw.get_size() >= self.raw.get_max_size()):
            holder = next(iter(self._parked))
            del self._parked[holder]
            await holder.give_back_parked()
        self.waiting += 1
        try:
            return await self.raw.acquire(timeout=self.timeout)
        except TimeoutError as exc:
            raise make(jerr.ResourceAllocationException, 221,
                       "Free physical database connection unavailable in connection pool "
                       f"(none within {self.timeout:g} s: every one is in a session's open "
                       "transaction; raise max_pool_size, or end transactions sooner)",
                       exc) from exc
        finally:
            self.waiting -= 1

    async def release(self, conn: asyncpg.Connection, *, timeout: float | None = None) -> None:
        await self.raw.release(conn, timeout=timeout)

    @asynccontextmanager
    async def acquire(self) -> AsyncIterator[asyncpg.Connection]:
        conn = await self.take()
        try:
            yield conn
        finally:
            await self.raw.release(conn)

    @property
    def for_engine(self) -> asyncpg.Pool:
        """This, for pgaq.client's Session (it only calls `acquire()` as a context manager)."""
        return cast(asyncpg.Pool, self)


class _ConnectionListener(Listener):
    """The Connection's LISTEN connection, telling it when the database goes away."""

    def __init__(self, owner: Connection, connect: Callable[[], Any]) -> None:
        super().__init__(connect=connect)
        self._owner = owner

    def _on_terminate(self, conn: Any) -> None:
        super()._on_terminate(conn)
        if not self._stop.is_set():
            self._owner.database_lost(make(jerr.JMSException, CONNECTION_UNAVAILABLE,
                                           "connection no longer available (the database "
                                           "closed the listening connection)"))

    async def _connect(self) -> None:
        await super()._connect()
        self._owner.database_back()


class Connection:
    """A JMS connection: create it with `await factory.create_connection()`."""

    def __init__(self, factory: ConnectionFactory, pool: asyncpg.Pool,
                 connect: Callable[[], Any]) -> None:
        self._factory = factory
        self._pool = BoundedPool(pool, factory.acquire_timeout)
        self._connect = connect
        self._sessions: list[Session] = []
        self._started = asyncio.Event()
        self._closed = False
        self._used = False
        self._client_id: str | None = None
        self._exception_listener: ExceptionListener | None = None
        self._listener: _ConnectionListener | None = None
        self._listener_lock = asyncio.Lock()
        self._listener_retry_at = 0.0
        self._outage = False
        # outages reported so far: a session's connection taken before the last one began
        # dies in an outage already told, however late the session finds out
        self.outages = 0
        self._tasks = TaskGroup("pgaq-jms-connection")
        # the name this connection's publications carry when one of its consumers is no_local
        self.local_name = "JMS" + uuid.uuid4().hex[:20].upper()
        self.no_local_topics: set[str] = set()
        # ids of messages taken by transactions lost with their connection: delivered again,
        # they carry JMSRedelivered (AQ counts no attempt for them)
        self.maybe_delivered: set[str] = set()
        self.meta_data = ConnectionMetaData()
        # Oracle's compliance mode (pgaq.jms.compliance), and the durable subscriber names
        # this connection made, by name, the topics ("owner.name", lower case): in
        # compliant mode only their maker may move a name to another topic
        self.j2ee_compliant: bool = factory.j2ee_compliant
        self.durable_made: dict[str, set[str]] = {}
        # its temporary destinations (pgaq.jms.temporary), made with the first of them;
        # the kinds of the JMSReplyTo addresses its sessions received (Queue or Topic)
        self.temporaries: Temporaries | None = None
        self.reply_kinds: dict[str, str] = {}

    # -- state ----------------------------------------------------------------------------
    @property
    def pool(self) -> BoundedPool:
        return self._pool

    @property
    def factory(self) -> ConnectionFactory:
        return self._factory

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def started(self) -> asyncio.Event:
        """Set while the connection delivers (between start() and stop())."""
        return self._started

    def check_open(self) -> None:
        if self._closed:
            fail(jerr.IllegalStateException, CONNECTION_CLOSED, "Connection is closed")

    # -- client id, metadata, exception listener ------------------------------------------
    @property
    def client_id(self) -> str | None:
        return self._client_id

    def get_client_id(self) -> str | None:
        return self._client_id

    def set_client_id(self, client_id: str) -> None:
        """Set once, before anything else is done with the connection (JMS 1.1 4.3.2)."""
        self.check_open()
        if self._client_id is not None or self._used:
            fail(jerr.IllegalStateException, CLIENT_ID_LATE,
                 "Illegal attempt to call set_client_id after other actions")
        if not client_id:
            fail(jerr.InvalidClientIDException, CLIENT_ID_LATE, "a client id must not be empty")
        self._client_id = client_id

    def get_meta_data(self) -> ConnectionMetaData:
        self.check_open()
        return self.meta_data

    @property
    def exception_listener(self) -> ExceptionListener | None:
        return self._exception_listener

    def get_exception_listener(self) -> ExceptionListener | None:
        return self._exception_listener

    def set_exception_listener(self, listener: ExceptionListener | None) -> None:
        """Told (a JMSException, once per outage) when the database connection is lost."""
        self.check_open()
        self._used = True
        self._exception_listener = listener

    def database_lost(self, exc: jerr.JMSException, since: int | None = None) -> None:
        """Report an outage to the exception listener once, until the database is back.
        `since`: `outages` when the lost database connection was opened (a session's, found
        dead after the listening connection came back is no new outage)."""
        if self._closed or self._outage or (since is not None and since < self.outages):
            return
        self._outage = True
        self.outages += 1
        log.warning("jms connection lost its database: %s", exc)
        listener = self._exception_listener
        if listener is not None:
            self._tasks.spawn("exception-listener", self._tell(listener, exc))

    def report(self, exc: jerr.JMSException) -> None:
        """Tell the exception listener of an error that no call of the application can
        raise (a message listener that can never deliver)."""
        listener = self._exception_listener
        if listener is not None and not self._closed:
            self._tasks.spawn("exception-listener", self._tell(listener, exc))

    def database_back(self) -> None:
        self._outage = False

    async def _tell(self, listener: ExceptionListener, exc: jerr.JMSException) -> None:
        try:
            await call(listener, exc)
        except Exception:  # the application's listener failing must not end the connection
            log.exception("the exception listener raised")

    # -- sessions -------------------------------------------------------------------------
    def create_session(self, transacted: bool = False,
                       acknowledge_mode: int = AUTO_ACKNOWLEDGE) -> Session:
        """A session; `transacted` wins over `acknowledge_mode` as in JMS 1.1."""
        from .session import Session

        self.check_open()
        self._used = True
        mode = SESSION_TRANSACTED if transacted else acknowledge_mode
        session = Session(self, transacted, mode)
        self._sessions.append(session)
        return session

    create_queue_session = create_session
    create_topic_session = create_session

    def forget(self, session: Session) -> None:
        if session in self._sessions:
            self._sessions.remove(session)

    # -- start, stop, close ---------------------------------------------------------------
    async def start(self) -> None:
        """Start (or restart) delivery to receives and message listeners."""
        self.check_open()
        self._used = True
        self._started.set()

    async def stop(self) -> None:
        """Pause delivery; returns once no message listener of this connection is running."""
        self.check_open()
        if in_listener.get() is not None:
            fail(jerr.IllegalStateException, 107,
                 "Operation not allowed: stop() from a message listener of this connection")
        self._started.clear()
        for session in list(self._sessions):
            await session.quiesce()

    async def close(self) -> None:
        """Close every session (rolling back what is uncommitted or unacknowledged), the
        listening connection and this connection's share of the factory's pool. Closing a
        closed connection does nothing."""
        if self._closed:
            return
        if in_listener.get() is not None:
            fail(jerr.IllegalStateException, 107,
                 "Operation not allowed: close() from a message listener of this connection")
        self._started.clear()
        for session in list(self._sessions):
            try:
                await session.close()
            except jerr.JMSException as exc:
                log.warning("closing a session: %s", exc)
        self._closed = True
        if self.temporaries is not None:  # JMS 1.1 4.4.3: they end with their connection
            await self.temporaries.close()
        await self._tasks.close(timeout=5.0)
        async with self._listener_lock:  # a listener being opened now is closed too
            if self._listener is not None:
                await self._listener.close()
                self._listener = None
        await self._factory.release(self)

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    # -- waiting --------------------------------------------------------------------------
    async def listening(self) -> Listener | None:
        """The connection's LISTEN connection, opened on first use; None while it cannot be
        opened (waits then poll every `safety_poll` seconds; the next wait tries again)."""
        if self._listener is not None:
            return self._listener
        loop = asyncio.get_running_loop()
        if loop.time() < self._listener_retry_at:
            return None
        async with self._listener_lock:
            if self._listener is None and not self._closed:
                listener = _ConnectionListener(self, self._connect)
                try:
                    await listener.start()
                except DB_ERRORS as exc:
                    await listener.close()
                    self._listener_retry_at = loop.time() + self._factory.safety_poll
                    self.database_lost(make(jerr.JMSException, CONNECTION_UNAVAILABLE,
                                            f"cannot open the listening connection: {exc!r}"))
                    return None
                if self._closed:  # closed while it connected
                    await listener.close()
                    return None
                self._listener = listener
        return self._listener

    @asynccontextmanager
    async def subscribe(self, channel: str,
                        share: Hashable | None = None) -> AsyncIterator[Wakeup | None]:
        """An event set on each NOTIFY of `channel` (and after each reconnect), or in turn
        with the other waiters of the `share` key (pgaq.listener, which also makes the
        key's safety looks: `Wakeup.polled`); None when the listening connection cannot be
        opened."""
        listener = await self.listening()
        if listener is None:
            yield None
            return
        async with listener.subscribe(channel, share=share,
                                      poll=self._factory.safety_poll) as event:
            yield event

    def spawn(self, name: str, coro: Any) -> asyncio.Task[Any]:
        """A named background task watched by the connection (closed with it)."""
        return self._tasks.spawn(name, coro)
