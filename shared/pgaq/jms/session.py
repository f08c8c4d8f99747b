"""javax.jms.Session (AQjmsSession): one database connection, its transaction, and what it
has consumed but not yet acknowledged.

How each acknowledge mode maps onto AQ (pgaq.client's Session underneath):

=====================  ===================================================================
mode                   receive / listener
=====================  ===================================================================
SESSION_TRANSACTED     REMOVE in the session's transaction; commit() commits it, rollback()
                       rolls it back and AQ counts a failed attempt (redelivered with
                       JMSRedelivered and JMSXDeliveryCount + 1, or moved to the exception
                       queue past the queue's max_retries, after its retry_delay)
AUTO_ACKNOWLEDGE       receive(): REMOVE in a transaction committed before receive returns
                       (a COMMIT lost with the connection still returns the message: at
                       least once; NON_PERSISTENT ones in autocommit, at most once);
                       a listener: REMOVE in a transaction committed when the listener
                       returns and rolled back (a failed attempt) when it raises
CLIENT_ACKNOWLEDGE     REMOVE in a transaction that acknowledge() commits (everything the
                       session consumed) and recover() rolls back
DUPS_OK_ACKNOWLEDGE    `dups_ok_batch` messages REMOVEd by one dequeue in a transaction
                       and handed out one by one; committed once all are handed out (at
                       the next dequeue, before a receive waits, or `dups_ok_delay` seconds
                       later); a listener that raises, a close before the batch is handed
                       out, or a crash redelivers the batch (the duplicates DUPS_OK allows)
=====================  ===================================================================

Each mode's part, from receive to settle, is its class in `pgaq.jms.acknowledge`.

Sends of a non-transacted session are committed at once (IMMEDIATE: outside any open
acknowledge transaction). NON_PERSISTENT messages live in the queue table's UNLOGGED
companion (AQ's buffered messages: no WAL, gone after a crash of PostgreSQL) but keep the
whole contract above, as the Oracle JMS guide asks ("Buffered Messaging with Oracle JMS",
"Transaction Commits and Client Acknowledgments"): a transacted session sends and receives
them in its transaction, CLIENT_ACKNOWLEDGE removes them at acknowledge() and recover()
brings them back, a listener's failure redelivers them. An UNLOGGED table is as
transactional as any other, so the pgaq.client session is made `buffered_in_transactions`;
dbms_aq keeps Oracle's IMMEDIATE-only rule for BUFFERED (ORA-25293).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import asyncpg

from .. import client
from ..errors import ConnectionLost, PgaqError
from ..lease import Lease
from ..queries import load
from . import codec
from . import errors as jerr
from . import message as jmsg
from ._support import (
    ACK_MODES,
    COMMIT_NOT_TRANSACTED,
    CONNECTION_UNAVAILABLE,
    INVALID_DESTINATION,
    INVALID_TOPIC,
    NAVIGATION_NAMES,
    RECOVER_TRANSACTED,
    ROLLBACK_NOT_TRANSACTED,
    SESSION_CLOSED,
    SESSION_TRANSACTED,
    UNSUBSCRIBE_ACTIVE,
    UNSUBSCRIBE_UNKNOWN,
    as_jms,
    fail,
    make,
)
from .acknowledge import AckMode, for_mode
from .admin import Administration, split_qualified
from .browser import QueueBrowser
from .connection import in_listener
from .consumer import MessageConsumer
from .destination import Destination, Queue, TemporaryQueue, TemporaryTopic, Topic
from .producer import MessageProducer
from .selector import check_syntax
from .temporary import create as create_temporary
from .temporary import settle_reply_to

if TYPE_CHECKING:
    from .connection import Connection

log = logging.getLogger("pgaq.jms")


BUFFERED_EVERY = 16  # a receive looks at buffered messages first once every so many looks


@dataclass(frozen=True)
class DestinationInfo:
    """What the runtime needs of a queue: its id (the wake-up channel), kind, consumers."""

    queue_id: int
    qualified: str
    payload_kind: str
    multiple_consumers: bool
    queue_type: str

    @property
    def channel(self) -> str:
        return f"aq_{self.queue_id}"


class Session(Administration):
    """Created by `Connection.create_session(transacted, acknowledge_mode)`."""

    def __init__(self, connection: Connection, transacted: bool, acknowledge_mode: int) -> None:
        if not transacted and acknowledge_mode not in ACK_MODES:
            fail(jerr.JMSException, 152, f"invalid acknowledge mode {acknowledge_mode!r}")
        self._connection = connection
        self.transacted = transacted
        self.acknowledge_mode = SESSION_TRANSACTED if transacted else acknowledge_mode
        # what the mode decides, from receive to settle
        self.ack: AckMode = for_mode(self, self.acknowledge_mode)
        self._engine: client.Session | None = None
        self._db: asyncpg.Connection | None = None
        self._lock = asyncio.Lock()  # one operation on the session's connection at a time
        self.delivery = asyncio.Lock()  # one message listener of this session at a time
        self._closed = False
        self._consumers: list[MessageConsumer] = []
        self._producers: list[MessageProducer] = []
        # ids of the messages taken in the open transaction, not yet acknowledged
        self._taken_ids: list[str] = []
        self._work = False  # the open transaction holds work of the application's
        self._tx_lost = False  # the open transaction died with the database connection
        self._pinned = False  # get_db_connection handed the connection out: kept for life
        self._db_since = 0  # the connection's `outages` when `_db` was taken
        # non-durable subscribers closed while the transaction held their messages
        self._unsubscribe: list[tuple[str, str]] = []
        # ids a transacted session sent in its open transaction, per queue: its own receives
        # must not see them before the commit (JMS 1.1 4.4.7), though the database would
        self._sent_ids: dict[str, list[str]] = {}
        # DUPS_OK: messages dequeued in the open transaction, not yet handed to a consumer;
        # transacted: messages it locked (LOCKED), not yet handed out
        self._prefetched: dict[MessageConsumer, list[client.Message]] = {}
        # transacted: per (queue, consumer name), the messages the open transaction holds
        # LOCKED (handed out or prefetched) and those of them handed out, which its commit
        # removes in one statement; `_last_tx` messages the last transaction took
        self._locked: dict[tuple[str, str | None], set[str]] = {}
        self._held: dict[tuple[str, str | None], list[str]] = {}
        self._tx_taken = 0
        self._last_tx = 0
        self._destinations: dict[str, DestinationInfo] = {}
        self._durable: dict[str, Topic] = {}
        self._message_listener: Callable[..., Any] | None = None

    # -- state ----------------------------------------------------------------------------
    @property
    def _consumed(self) -> int:
        return len(self._taken_ids)

    @property
    def connection(self) -> Connection:
        return self._connection

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def consumers(self) -> tuple[MessageConsumer, ...]:
        """The consumers open on this session, in the order made: what close() closes and
        a session-wide message listener feeds (a consumer leaves when it closes, or when
        its create fails)."""
        return tuple(self._consumers)

    def get_transacted(self) -> bool:
        self.check_open()
        return self.transacted

    def get_acknowledge_mode(self) -> int:
        self.check_open()
        return self.acknowledge_mode

    def check_open(self) -> None:
        if self._closed:
            fail(jerr.IllegalStateException, SESSION_CLOSED, "Session is closed")
        self._connection.check_open()

    # -- the database connection ----------------------------------------------------------
    async def _ensure(self) -> client.Session:
        if self._db is not None and _closed(self._db) and self._holds_nothing():
            # closed under the session while it held nothing (a failover): nothing is in
            # flight, so the operation goes on with a new connection; the outage is told
            since = self._db_since
            await self._drop_db()
            self._connection.database_lost(make(jerr.JMSException, CONNECTION_UNAVAILABLE,
                                                "connection no longer available: the "
                                                "session's database connection was closed"),
                                           since)
        if self._db is None:
            pool = self._connection.pool
            try:
                self._db = await pool.take()
                self._db_since = self._connection.outages
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                self._connection.database_lost(make(jerr.JMSException, CONNECTION_UNAVAILABLE,
                                                    f"connection no longer available: {exc!r}",
                                                    exc))
                raise make(jerr.JMSException, CONNECTION_UNAVAILABLE,
                           f"connection no longer available: {exc!r}", exc) from exc
            if self._engine is None:
                self._engine = client.Session(self._db, pool=pool.for_engine,
                                              safety_poll=self._connection.factory.safety_poll,
                                              buffered_in_transactions=True)
            else:  # taken again after `_give_back`: positions and statements kept
                self._engine.bind(Lease(self._db, "a pgaq.jms Session"))
        assert self._engine is not None
        return self._engine

    def _holds_nothing(self) -> bool:
        """Whether the session's connection holds nothing of its own: no transaction with
        work in it, nothing unacknowledged, locked or prefetched, not handed out by
        `get_db_connection` (an empty transaction left by `COMMIT; BEGIN` is nothing)."""
        return not (self._pinned or self._work or self._consumed or self._holds_locks()
                    or any(self._prefetched.values()) or self._closed)

    def holds_nothing_open(self) -> bool:
        """No transaction open on the session's connection (an empty one included) and
        nothing prefetched: a message listener may wait for its turn before its next look."""
        return (not (self._engine is not None and self._engine.in_transaction)
                and not any(self._prefetched.values()))

    async def _park(self) -> None:
        """After an operation (under the session's lock): a connection that holds nothing
        is parked with the pool, or given back at once if another session waits for one."""
        if self._db is None or not self._holds_nothing():
            return
        pool = self._connection.pool
        if pool.waiting:
            await self._give_back()
        else:
            pool.park(self)

    async def remove_subscriber_when_free(self, queue: str, name: str) -> None:
        """Remove a closed non-durable subscriber's AQ subscriber: now, or, while this
        session's transaction holds messages (whose recipient rows it locks: a removal on
        another connection would wait for it for ever), once that transaction ends."""
        self._unsubscribe.append((queue, name))
        if self._engine is None or not self._engine.in_transaction or self._holds_nothing():
            await self._remove_subscribers()

    async def _remove_subscribers(self) -> None:
        """The removals `remove_subscriber_when_free` left (outside the session's lock: the
        pool may take back a connection this session parked)."""
        while self._unsubscribe:
            queue, name = self._unsubscribe.pop()
            try:
                async with self._connection.pool.acquire() as c:
                    await c.execute(load("jms_remove_subscriber"), queue, name)
            except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError,
                    jerr.JMSException) as exc:
                log.warning("removing the temporary subscriber %s of %s: %r", name, queue, exc)

    async def give_back_parked(self) -> None:
        """The pool is exhausted and this session parked its connection (BoundedPool):
        give it back, if it still holds nothing."""
        async with self._lock:
            if self._db is not None and self._holds_nothing():
                await self._give_back()

    async def _give_back(self) -> None:
        """The connection back to the pool (an empty transaction left by `COMMIT; BEGIN`
        committed first); the next operation takes one again, with the client session's
        positions and statements kept."""
        eng = self._engine
        assert eng is not None and self._db is not None
        try:
            if eng.in_transaction:
                await eng.commit()
        except PgaqError:
            await self._drop_db()  # (the next operation reports a lost database)
            return
        eng.unbind()
        conn, self._db = self._db, None
        try:
            await self._connection.pool.release(conn, timeout=5.0)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
            conn.terminate()

    async def _drop_db(self) -> None:
        self._connection.pool.unpark(self)
        conn, self._db, self._engine = self._db, None, None
        if conn is not None:
            try:
                await self._connection.pool.release(conn, timeout=5.0)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
                conn.terminate()

    async def _lost(self, exc: PgaqError) -> None:
        """The session's connection is gone: what it held uncommitted rolled back with it."""
        if self._engine is not None and (self._engine.in_transaction or self._consumed):
            self._tx_lost = True
        self._connection.maybe_delivered.update(self._taken_ids)
        self._taken_ids.clear()
        self._prefetched.clear()
        self._end_locked()
        self._sent_ids.clear()
        self._work = False
        since = self._db_since
        await self._drop_db()
        self._connection.database_lost(make(jerr.JMSException, CONNECTION_UNAVAILABLE,
                                            f"connection no longer available: {exc.message}",
                                            exc), since)

    @asynccontextmanager
    async def using(self) -> AsyncIterator[client.Session]:
        """The engine session, alone, with library errors turned into JMS exceptions."""
        self.check_open()
        async with self._lock:
            pool = self._connection.pool
            pool.unpark(self)
            eng = await self._ensure()
            try:
                yield eng
                if self._db_since == self._connection.outages:
                    # a connection opened since the last outage began has worked: the next
                    # outage is told (a JMS connection that never waits has no listening
                    # connection to say the database is back)
                    self._connection.database_back()
                await self._park()
            except ConnectionLost as exc:
                await self._lost(exc)
                raise as_jms(exc) from exc
            except jerr.JMSException:
                raise
            except PgaqError as exc:
                raise as_jms(exc) from exc

    async def get_db_connection(self) -> asyncpg.Connection:
        """AQjmsSession.getDBConnection: the session's own connection, for SQL of yours in
        the same transaction (a transacted session's transaction is begun); the session
        keeps it from now on (it is no longer given back while waiting)."""
        async with self.using() as eng:
            self._pinned = True
            if self.transacted:
                await eng.begin()
                self._work = True
            assert self._db is not None
            return self._db

    # -- destinations ---------------------------------------------------------------------
    def get_queue(self, owner: str, name: str | None = None) -> Queue:
        """AQjmsSession.getQueue(owner, name) (or "owner.name"): a single-consumer queue."""
        self.check_open()
        return Queue(owner, name) if name is not None else Queue(*split_qualified(owner))

    def get_topic(self, owner: str, name: str | None = None) -> Topic:
        """AQjmsSession.getTopic(owner, name) (or "owner.name"): a multi-consumer queue."""
        self.check_open()
        return Topic(owner, name) if name is not None else Topic(*split_qualified(owner))

    async def create_temporary_queue(self) -> TemporaryQueue:
        """A TemporaryQueue, deleted when this session's connection closes (JMS 1.1 4.4.3)."""
        self.check_open()
        dest = await create_temporary(self._connection, topic=False)
        assert isinstance(dest, TemporaryQueue)
        return dest

    async def create_temporary_topic(self) -> TemporaryTopic:
        """A TemporaryTopic, deleted when this session's connection closes."""
        self.check_open()
        dest = await create_temporary(self._connection, topic=True)
        assert isinstance(dest, TemporaryTopic)
        return dest

    async def destination_info(self, dest: Destination) -> DestinationInfo:
        key = dest.qualified.lower()
        hit = self._destinations.get(key)
        if hit is None:
            self.check_open()
            try:
                async with self._connection.pool.acquire() as c:
                    row = await c.fetchrow(load("jms_destination"), dest.qualified)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                from ..errors import wrap_db_error

                err = as_jms(wrap_db_error(exc))
                if isinstance(dest, Topic) and isinstance(err, jerr.InvalidDestinationException):
                    raise make(jerr.InvalidDestinationException, INVALID_TOPIC,
                               f"Invalid Topic specified: {err.message}", err) from exc
                raise err from exc
            assert row is not None
            hit = DestinationInfo(row["queue_id"], f"{row['schema_name']}.{row['queue_name']}",
                                  row["payload_kind"], row["multiple_consumers"], row["queue_type"])
            self._destinations[key] = hit
        return hit

    async def selector_for_mode(self, selector: str | None) -> str | None:
        """The selector as the database evaluates it for this connection's compliance mode
        (aq.jms_selector_for_mode: in Java EE compliant mode JMSPriority is 9 - AQ's
        priority); a round trip only when compliant and the selector names JMSPriority."""
        if selector is None or not self._connection.j2ee_compliant or "JMSPriority" not in selector:
            return selector
        try:
            async with self._connection.pool.acquire() as c:
                text: str = await c.fetchval(load("jms_selector_for_mode"), selector, True)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            from ..errors import wrap_db_error

            raise as_jms(wrap_db_error(exc)) from exc
        return text

    async def check_selector(self, dest: Destination, selector: str | None) -> None:
        """A selector that does not parse or type-check: InvalidSelectorException now."""
        if selector is None or not selector.strip():
            return
        try:
            async with self._connection.pool.acquire() as c:
                await c.fetchval(load("jms_check_selector"), selector, dest.qualified)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            from ..errors import wrap_db_error

            err = as_jms(wrap_db_error(exc))
            if isinstance(err, jerr.InvalidDestinationException):
                raise err from exc
            raise make(jerr.InvalidSelectorException, 159,
                       f"Invalid selector {selector!r}: {err.message}", err) from exc

    # -- message factories ----------------------------------------------------------------
    def create_message(self) -> jmsg.Message:
        self.check_open()
        return jmsg.Message()

    def create_text_message(self, text: str | None = None) -> jmsg.TextMessage:
        self.check_open()
        return jmsg.TextMessage(text)

    def create_bytes_message(self, data: bytes | None = None) -> jmsg.BytesMessage:
        self.check_open()
        return jmsg.BytesMessage(data)

    def create_map_message(self) -> jmsg.MapMessage:
        self.check_open()
        return jmsg.MapMessage()

    def create_stream_message(self) -> jmsg.StreamMessage:
        self.check_open()
        return jmsg.StreamMessage()

    def create_object_message(self, obj: Any = None,
                              serializer: jmsg.Serializer | None = None) -> jmsg.ObjectMessage:
        self.check_open()
        return jmsg.ObjectMessage(obj, serializer)

    def create_adt_message(self, payload: Any = None) -> jmsg.AdtMessage:
        """AQjmsSession.createAdtMessage: a message for an object-typed queue."""
        self.check_open()
        return jmsg.AdtMessage(payload)

    # -- producers, consumers, browsers ----------------------------------------------------
    def create_producer(self, destination: Destination | None = None) -> MessageProducer:
        self.check_open()
        p = MessageProducer(self, destination)
        self._producers.append(p)
        return p

    def create_sender(self, queue: Queue | None = None) -> MessageProducer:
        """QueueSession.createSender."""
        return self.create_producer(queue)

    def create_publisher(self, topic: Topic | None = None) -> MessageProducer:
        """TopicSession.createPublisher."""
        return self.create_producer(topic)

    def create_consumer(self, destination: Destination, message_selector: str | None = None,
                        no_local: bool = False) -> MessageConsumer:
        """A consumer. A selector that does not parse raises InvalidSelectorException
        here (selector.check_syntax, no database); `await` the consumer to have the database
        check the rest (the destination, the selector's types and names). On a Topic it is
        a non-durable subscriber: an AQ subscriber of its own ("TSUB_<hex>", the selector
        its rule), made before `await session.create_consumer(topic)` returns and removed
        when it closes (a process that dies without closing it leaves it behind:
        dbms_aqadm.remove_subscriber removes it). A topic subscriber must be awaited: one
        that was not refuses receive and set_message_listener (IllegalStateException,
        JMS-107), as a subscription made then would miss what was published meanwhile. On
        a Queue, without `await`, the first receive checks and opens it (a queue keeps its
        messages for whoever comes)."""
        self.check_open()
        if not isinstance(destination, Destination):
            fail(jerr.InvalidDestinationException, INVALID_DESTINATION,
                 f"Invalid Destination {destination!r}")
        check_syntax(message_selector)
        c = MessageConsumer(self, destination, message_selector, no_local=no_local,
                            temporary=isinstance(destination, Topic))
        return self._adopt(c)

    def create_receiver(self, queue: Queue, message_selector: str | None = None) -> MessageConsumer:
        """QueueSession.createReceiver."""
        return self.create_consumer(queue, message_selector)

    def create_subscriber(self, topic: Topic, message_selector: str | None = None,
                          no_local: bool = False) -> MessageConsumer:
        """TopicSession.createSubscriber: a non-durable subscriber."""
        return self.create_consumer(topic, message_selector, no_local)

    def create_durable_subscriber(self, topic: Topic, name: str,
                                  message_selector: str | None = None,
                                  no_local: bool = False) -> MessageConsumer:
        """A durable subscriber: the AQ subscriber `name` of the topic with the selector as
        its rule, made (or altered to this selector, keeping its messages) before `await
        session.create_durable_subscriber(...)` returns; not awaited, it refuses receive and
        set_message_listener. It keeps receiving messages while no consumer is open, until
        unsubscribe."""
        self.check_open()
        if not name:
            fail(jerr.JMSException, 116, "Subscriber name must be specified")
        if not isinstance(topic, Topic):
            fail(jerr.InvalidDestinationException, INVALID_TOPIC, f"Invalid Topic specified: {topic!r}")
        if isinstance(topic, TemporaryTopic):
            # a durable subscription outlives its subscriber; a temporary topic does not
            # outlive its connection (JMS 1.1 4.4.3, 6.11.1), so ActiveMQ refuses it too
            fail(jerr.InvalidDestinationException, INVALID_TOPIC,
                 f"a durable subscription cannot be made on temporary topic {topic.qualified}")
        check_syntax(message_selector)
        c = MessageConsumer(self, topic, message_selector, consumer_name=name, no_local=no_local,
                            durable=True)
        self._durable[name.upper()] = topic
        return self._adopt(c)

    def create_topic_receiver(self, topic: Topic, receiver_name: str,
                              message_selector: str | None = None) -> MessageConsumer:
        """AQjmsSession.createTopicReceiver: receive the messages sent to `receiver_name`
        in a recipient list (no subscription is made)."""
        self.check_open()
        if not isinstance(topic, Topic):
            fail(jerr.InvalidDestinationException, INVALID_TOPIC, f"Invalid Topic specified: {topic!r}")
        if not receiver_name:
            fail(jerr.JMSException, 116, "Subscriber name must be specified")
        check_syntax(message_selector)
        c = MessageConsumer(self, topic, message_selector, consumer_name=receiver_name)
        return self._adopt(c)

    def _adopt(self, c: MessageConsumer) -> MessageConsumer:
        self._consumers.append(c)
        if self._message_listener is not None:
            # unchecked: a subscriber cannot have been awaited yet; its delivery starts
            # once it is, and reports it if it never is (MessageConsumer._deliver)
            c.listen(self._message_listener)
        return c

    def create_browser(self, destination: Destination, message_selector: str | None = None,
                       subscription_name: str | None = None, locked: bool = False) -> QueueBrowser:
        """A browser (`async for m in ...`); on a topic, of a durable subscription's
        messages (`subscription_name`), as Oracle's TopicBrowser. `locked` (Oracle's
        extension, AQjmsSession.createBrowser(..., locked)): in a transacted session the
        messages shown stay locked until it commits or rolls back; a non-transacted
        session's operations commit at once, so there it is a plain browse."""
        self.check_open()
        if not isinstance(destination, Destination):
            fail(jerr.InvalidDestinationException, INVALID_DESTINATION,
                 f"Invalid Destination {destination!r}")
        if isinstance(destination, Topic) and not subscription_name:
            # Oracle's guide, TopicBrowser: "Only durable subscribers are allowed to create
            # a TopicBrowser"
            fail(jerr.JMSException, 116, "a TopicBrowser needs a durable subscriber's name")
        check_syntax(message_selector)
        return QueueBrowser(self, destination, message_selector, subscription_name, locked)

    def create_topic_browser(self, topic: Topic, subscription_name: str,
                             message_selector: str | None = None,
                             locked: bool = False) -> QueueBrowser:
        """AQjmsSession.createBrowser(topic, consumerName, selector, locked): a TopicBrowser
        of the durable subscription `subscription_name`, with `purge()`."""
        if not isinstance(topic, Topic):
            fail(jerr.InvalidDestinationException, INVALID_TOPIC, f"Invalid Topic specified: {topic!r}")
        return self.create_browser(topic, message_selector, subscription_name, locked)

    def browsed(self) -> None:
        """A locked browse or a purge did work in the open transaction: commit or rollback
        ends it."""
        self._work = True

    def forget(self, item: MessageConsumer | MessageProducer) -> None:
        if isinstance(item, MessageConsumer):
            if item in self._consumers:
                self._consumers.remove(item)
            self._prefetched.pop(item, None)
        elif item in self._producers:
            self._producers.remove(item)

    async def unsubscribe(self, name: str, topic: Topic | None = None) -> None:
        """Remove the durable subscription `name` (AQ's remove_subscriber): on `topic`, on
        the topic this session subscribed it to, or on the one topic that has it."""
        self.check_open()
        for c in self._connection_consumers():
            if c.durable and (c.consumer_name or "").upper() == name.upper() and not c.closed:
                fail(jerr.IllegalStateException, UNSUBSCRIBE_ACTIVE,
                     "Illegal operation on durable subscription with active TopicSubscriber")
        target = topic or self._durable.get(name.upper())
        pool = self._connection.pool
        try:
            async with pool.acquire() as c:
                if target is None:
                    rows = await c.fetch(load("jms_subscriptions"), name)
                    if len(rows) != 1:
                        fail(jerr.InvalidDestinationException, UNSUBSCRIBE_UNKNOWN,
                             f"Can not link the durable subscriber name {name!r} with a topic "
                             f"in unsubscribe method ({len(rows)} topics have it)")
                    target = Topic(rows[0]["schema_name"], rows[0]["queue_name"])
                await c.execute("CALL dbms_aqadm.remove_subscriber(queue_name => $1, "
                                "subscriber => sys.aq$_agent($2, NULL, NULL))",
                                target.qualified, name)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            from ..errors import wrap_db_error

            raise as_jms(wrap_db_error(exc)) from exc
        self._durable.pop(name.upper(), None)

    async def release(self, consumer: MessageConsumer) -> None:
        """A consumer closes: DUPS_OK rolls back a batch it had not handed out whole (the
        rest of it would hold the commit back for ever; the batch comes again, as the
        duplicates DUPS_OK allows)."""
        if self.transacted:  # its locked messages stay so until the transaction ends
            self._prefetched.pop(consumer, None)
        elif self._prefetched.get(consumer) and not self._closed:
            await self._rollback()

    def _connection_consumers(self) -> list[MessageConsumer]:
        out: list[MessageConsumer] = []
        for s in list(self._connection._sessions):
            out.extend(s._consumers)
        return out

    # -- the session-wide message listener (JMS's Session.setMessageListener) -------------
    def get_message_listener(self) -> Callable[..., Any] | None:
        return self._message_listener

    def set_message_listener(self, listener: Callable[..., Any] | None) -> None:
        """Every consumer of the session delivers to `listener` (those created later too).
        Refused, changing nothing, while a topic subscriber of the session was not awaited
        (it has no subscription: MessageConsumer.set_message_listener)."""
        self.check_open()
        if listener is not None:
            for c in self._consumers:
                c.check_subscribed("Session.set_message_listener()")
        self._message_listener = listener
        for c in self._consumers:
            c.set_message_listener(listener)

    # -- consuming (called by consumers and browsers) -------------------------------------
    async def take(self, consumer: MessageConsumer, info: DestinationInfo, *, listener: bool,
                   msgid: str | None = None, blocking: bool = False,
                   no_data: bool = False) -> tuple[client.Message, jmsg.Message] | bool | None:
        """One look for the consumer's next message, no wait: (engine message, JMS message),
        None when there is none, False for one of this connection's own publications that
        a no_local consumer drops (the caller looks again). `blocking`: the look of a
        receive that waits (navigation goes back to the first message at the end of the
        queue); `no_data`: AQ's REMOVE_NODATA (receive_no_data), the body not fetched.

        Persistent messages are looked at first and buffered ones when there is none (or
        every BUFFERED_EVERY looks, so a steady persistent flow does not starve them): AQ
        orders each class on its own (Oracle Database Advanced Queuing User's Guide,
        "Introduction to Oracle Java Message Service", "Enqueuing JMS Buffered Messages"),
        and a buffered look in an open transaction costs a borrowed connection. DUPS_OK
        takes `dups_ok_batch` messages per dequeue and hands them out one by one, committing
        when every consumer has handed out its share."""
        async with self.using() as eng:
            taken = await self._take(eng, consumer, info, listener, msgid, blocking, no_data)
        if self.ack.batches:
            await self.ack.handed_out()
        return taken

    async def _take(self, eng: client.Session, consumer: MessageConsumer, info: DestinationInfo,
                    listener: bool, msgid: str | None, blocking: bool, no_data: bool
                    ) -> tuple[client.Message, jmsg.Message] | bool | None:
        """`take` under the session's lock. An AUTO_ACKNOWLEDGE receive that took a message
        in a transaction (`_dequeue`) commits it last, once the message is made: a message
        that cannot be made is rolled back (a failed attempt) rather than removed."""
        if not (self.ack.settles_receive and not listener):
            return await self._take_one(eng, consumer, info, listener, msgid, blocking, no_data)
        try:
            got = await self._take_one(eng, consumer, info, listener, msgid, blocking, no_data)
        except BaseException:
            if self._work and eng.in_transaction:
                try:
                    await eng.rollback()
                except ConnectionLost:
                    raise  # `using` drops the connection, the ids flagged maybe delivered
                except PgaqError:
                    pass  # the first failure is the one to report
                self._taken_ids.clear()
                self._work = False
            raise
        if self._work:
            await self._settle_receive(eng)
        return got

    async def _settle_receive(self, eng: client.Session) -> None:
        """Commit an AUTO_ACKNOWLEDGE receive's REMOVE, the message in hand. A connection
        lost during the COMMIT leaves its outcome unknown: the message is returned all the
        same (if the server did not commit, it comes again flagged JMSRedelivered: a
        duplicate, never a loss) and the outage is reported as any other. A COMMIT the
        server refused took nothing: the receive fails and the message stays."""
        try:
            await eng.commit()
        except ConnectionLost as exc:
            await self._lost(exc)  # the ids go to maybe_delivered, the outage is told
            self._tx_lost = False  # nothing of the application's was in the transaction
        finally:
            self._taken_ids.clear()
            self._work = False

    async def _take_one(self, eng: client.Session, consumer: MessageConsumer,
                        info: DestinationInfo, listener: bool, msgid: str | None,
                        blocking: bool, no_data: bool
                        ) -> tuple[client.Message, jmsg.Message] | bool | None:
        queued = self._prefetched.get(consumer)
        key = (info.qualified, consumer.consumer_name)
        if queued and msgid is None:
            m = queued.pop(0)
        else:
            got = self._prefetched_by_id(consumer, _engine_id(msgid)) if msgid else []
            got = got or await self._dequeue(eng, consumer, info, listener, msgid,
                                             blocking, no_data)
            if not got:
                return None
            m = got[0]
            if len(got) > 1:
                self._prefetched[consumer] = got[1:]
        if m.msgid in self._locked.get(key, ()):
            self._held.setdefault(key, []).append(m.msgid)  # removed by the commit
            eng.hold(info.qualified, consumer.consumer_name, m.msgid)
            self._taken_ids.append(m.msgid)
            self._work = True
        if self.transacted:
            self._tx_taken += 1
        if (consumer.no_local and m.sender_id is not None
                and m.sender_id.name == self._connection.local_name):
            return False
        msg = codec.from_engine(m, info.payload_kind, consumer.destination,
                                j2ee_compliant=self._connection.j2ee_compliant)
        # JMSXState (JMS 1.1 3.5.9) as the message was when received: the engine gives
        # the state a REMOVE left (PROCESSED), which is not what the receiver took
        msg._provider_property("JMSXState", "int", jmsg.JMSX_STATE[
            "EXPIRED" if info.queue_type == "EXCEPTION_QUEUE" else "READY"])
        await settle_reply_to(self._db, self._connection, msg)
        msg._acknowledger = self._acknowledger
        if m.msgid in self._connection.maybe_delivered and not msg.jms_redelivered:
            # taken by a transaction that died with its connection, which AQ does not
            # count as an attempt (Oracle Streams Advanced Queuing User's Guide and Reference
            # 10g Release 2 (10.2), "Introducing Oracle Streams AQ", "Retries with Delays"):
            # JMS wants it flagged as redelivered
            self._connection.maybe_delivered.discard(m.msgid)
            msg._redelivered = True
            msg._provider_property("JMSXDeliveryCount", "int", m.attempts + 2)
        return m, msg

    async def _dequeue(self, eng: client.Session, consumer: MessageConsumer,
                       info: DestinationInfo, listener: bool, msgid: str | None,
                       blocking: bool = False, no_data: bool = False) -> list[client.Message]:
        in_tx = self.ack.receive_in_transaction or listener
        # persistent messages in a transaction: the session's, or (AUTO_ACKNOWLEDGE) one
        # that `_take` commits before the receive returns
        tx = in_tx or self.ack.settles_receive
        condition = None if consumer.subscribed else consumer.sql_selector
        own = self._sent_ids.get(info.qualified) if self.transacted else None
        if own and info.payload_kind.startswith("JMS"):
            mine = "JMSMessageID NOT IN (" + ", ".join(f"'ID:{i}'" for i in own) + ")"
            condition = mine if condition is None else f"({condition}) AND {mine}"
        base = client.DequeueOptions(
            consumer_name=consumer.consumer_name, wait=0, condition=condition,
            msgid=_engine_id(msgid) if msgid else None,
            navigation=NAVIGATION_NAMES.get(consumer.navigation, "NEXT_MESSAGE"),
            dequeue_mode="REMOVE_NODATA" if no_data else "REMOVE")
        buffered = consumer.buffered and not msgid
        consumer.looks += 1
        got: list[client.Message] = []
        if buffered and _buffered_turn(consumer, consumer.looks):
            got = await self._buffered(eng, info, base, in_tx, last=False)
            if got:
                return got
        key = (info.qualified, consumer.consumer_name)
        if msgid and _engine_id(msgid).upper() in self._locked.get(key, ()):
            return []  # this transaction has it locked and handed it out already
        ahead = min(self._connection.factory.transacted_prefetch,
                    max(self._last_tx, self._tx_taken))
        if (self.transacted and not msgid and not no_data and consumer.navigation is None
                and (ahead > 1 or self._locked.get(key))):
            got = await self._lock_ahead(eng, key, base, ahead)
            if got or not buffered:
                return got
            return await self._buffered(eng, info, base, in_tx)
        batch = 1
        if self.ack.batches and not msgid and not no_data:  # DupsOk
            batch = self._connection.factory.dups_ok_batch
            if self._consumed and not any(self._prefetched.values()):
                # the last batch was handed out whole; this look's BEGIN rides on the COMMIT
                await self._commit_consumed(eng, begin_next=True)
        if tx:
            await eng.begin()
        opts = replace(base, visibility="ON_COMMIT" if tx else "IMMEDIATE",
                       delivery_mode="PERSISTENT", batch_size=batch)
        got = await eng.dequeue(info.qualified, opts)
        if (not got and not msgid and (consumer.navigation is None or blocking)
                and eng.has_position(info.qualified, consumer.consumer_name)):
            # at the end of the queue, or of a transaction group, navigation starts again
            # from the first message (the Oracle JMS guide, "Message Navigation in
            # Receive": for a blocking receive; and by default, where the first receive is
            # FIRST_MESSAGE, so that a consumer of a grouped queue goes on to the next
            # group instead of stalling after the first)
            eng.forget_position(info.qualified, consumer.consumer_name)
            if tx and not (self._work or self._consumed or self._holds_locks()):
                # the transaction holds nothing: begun afresh in the COMMIT's round trip
                # rather than a savepoint's two
                await eng.commit(begin_next=True)
            got = await eng.dequeue(info.qualified, opts)
        if got:
            if tx:
                self._taken_ids.extend(m.msgid for m in got)
                self._work = True
            return got
        if tx and not in_tx:
            await self._end_idle(eng)  # the autocommit look below runs on this connection
        if buffered or (msgid and consumer.buffered):
            # a receive by id looks at both kinds too (Oracle JMS guide, "Dequeuing JMS
            # Buffered Messages": the dequeue "checks for both persistent and buffered")
            got = await self._buffered(eng, info, base, in_tx)
        elif in_tx:
            await self._end_idle(eng)
        return got

    async def _lock_ahead(self, eng: client.Session, key: tuple[str, str | None],
                          base: client.DequeueOptions, ahead: int) -> list[client.Message]:
        """A transacted session's look: up to `ahead` messages LOCKED in its transaction (AQ's
        LOCKED dequeue mode), handed out one by one and removed together by the commit, so a
        transaction of n messages costs one look and one removal instead of n savepointed
        REMOVEs; a rollback leaves them in the queue, each handed-out one a failed attempt.
        FIRST_MESSAGE each time: rows this transaction locked are not skipped by its own
        SKIP LOCKED, so it asks for as many more as it holds and leaves those out."""
        mine = self._locked.setdefault(key, set())
        await eng.begin()
        got = await eng.dequeue(key[0], replace(
            base, dequeue_mode="LOCKED", navigation="FIRST_MESSAGE", visibility="ON_COMMIT",
            delivery_mode="PERSISTENT", batch_size=len(mine) + ahead))
        eng.forget_position(*key)  # a later REMOVE starts from the head, as receive does
        fresh = [m for m in got if m.msgid not in mine]
        mine.update(m.msgid for m in fresh)
        if not fresh and not self._work and not self._consumed and not self._holds_locks():
            await eng.commit()  # nothing held: no idle transaction left open
            self._locked.clear()
        return fresh

    def _holds_locks(self) -> bool:
        return any(self._locked.values())

    def _prefetched_by_id(self, consumer: MessageConsumer, msgid: str) -> list[client.Message]:
        """A receive by message id of a message the open transaction already took ahead
        (locked, or a DUPS_OK batch's) for this consumer's queue and name: that one, not
        another dequeue (which would find the row the transaction holds and hand it out
        twice, or not find a removed one)."""
        where = (consumer.destination.qualified.lower(), consumer.consumer_name)
        for other, queued in self._prefetched.items():
            if (other.destination.qualified.lower(), other.consumer_name) == where:
                for i, m in enumerate(queued):
                    if m.msgid.upper() == msgid.upper():
                        del queued[i]
                        return [m]
        return []

    def _end_locked(self) -> None:
        """The transaction ended: what it locked is free again (or removed), and a
        transacted session's prefetched messages are all locked ones."""
        if self.transacted:
            self._prefetched.clear()
        self._locked.clear()
        self._held.clear()
        self._last_tx, self._tx_taken = self._tx_taken, 0

    async def _remove_held(self, eng: client.Session) -> None:
        for (queue, consumer), ids in self._held.items():
            if ids:
                await eng.remove_held(queue, consumer, ids)

    async def _buffered(self, eng: client.Session, info: DestinationInfo,
                        base: client.DequeueOptions, in_tx: bool,
                        last: bool = True) -> list[client.Message]:
        """A NON_PERSISTENT message (the buffered companion's), taken as a persistent one
        is: in the session's transaction when its mode holds one (so commit, acknowledge,
        rollback and recover settle it with the rest), else IMMEDIATE. `last`: no look at
        persistent messages follows in this transaction, so an empty one ends (a look that
        does follow would only BEGIN it again: two round trips)."""
        if not in_tx:
            return await eng.dequeue(info.qualified, replace(base, visibility="IMMEDIATE",
                                                             delivery_mode="BUFFERED"))
        await eng.begin()
        got = await eng.dequeue(info.qualified, replace(base, visibility="ON_COMMIT",
                                                        delivery_mode="BUFFERED"))
        if got:
            self._taken_ids.extend(m.msgid for m in got)
            self._work = True
        elif last:
            await self._end_idle(eng)
        return got

    async def _end_idle(self, eng: client.Session) -> None:
        """A look found nothing: a transaction that holds nothing is not left open."""
        if eng.in_transaction and not self._work and not self._consumed and not self._holds_locks():
            await eng.commit()

    async def _commit_consumed(self, eng: client.Session, *, begin_next: bool = False) -> None:
        await eng.commit(begin_next=begin_next)
        self._taken_ids.clear()
        self._work = False

    async def _acknowledger(self) -> None:
        await self.acknowledge()

    async def quiesce(self) -> None:
        """Wait for the message listener running in this session, if any, to return."""
        async with self.delivery:
            pass

    # -- producing (called by producers) ---------------------------------------------------
    async def send_engine(self, queue: str, payload: client.Payload,
                          props: client.MessageProperties, persistent: bool) -> str:
        """Enqueue one message as the session's mode wants it (a transacted session's in
        its transaction, whatever the delivery mode: the Oracle JMS guide's "Transactions
        Support" for buffered messages); its id."""
        mode = "PERSISTENT" if persistent else "BUFFERED"
        async with self.using() as eng:
            if self.transacted:
                await eng.begin()
                self._work = True
                mid = await eng.enqueue(queue, payload, props, visibility="ON_COMMIT",
                                        delivery_mode=mode)
                self._sent_ids.setdefault(queue, []).append(mid)
                return mid
            return await eng.enqueue(queue, payload, props, visibility="IMMEDIATE",
                                     delivery_mode=mode)

    # -- transactions and acknowledgement -------------------------------------------------
    async def commit(self) -> None:
        """Commit what the session sent and received (TransactionRolledBackException when
        the transaction was lost with its database connection)."""
        self.check_open()
        if not self.transacted:
            fail(jerr.IllegalStateException, COMMIT_NOT_TRANSACTED,
                 "Illegal attempt to commit on a non transacted JMS Session")
        async with self._lock:
            if self._tx_lost:
                await self.rollback_locked()
                raise make(jerr.TransactionRolledBackException, 207, "the transaction was "
                           "rolled back: its database connection was lost")
            eng = self._engine
            try:
                if eng is not None:
                    await self._remove_held(eng)
                    # a listener's session looks again at once: its BEGIN rides on the COMMIT
                    await eng.commit(begin_next=in_listener.get() is self
                                     and self._connection.started.is_set())
            except ConnectionLost as exc:
                await self._lost(exc)
                self._tx_lost = False
                raise make(jerr.TransactionRolledBackException, 207,
                           f"the transaction was rolled back: {exc.message}", exc) from exc
            except PgaqError as exc:
                await self._restart_after_failure()
                raise make(jerr.TransactionRolledBackException, 207,
                           f"the transaction was rolled back: {exc.message}", exc) from exc
            finally:
                self._taken_ids.clear()
                self._sent_ids.clear()
                self._work = False
                self._end_locked()
                await self._park()
        await self._remove_subscribers()

    async def _restart_after_failure(self) -> None:
        if self._engine is not None and self._engine.in_transaction:
            try:
                await self._engine.rollback()
            except PgaqError:
                await self._drop_db()

    async def rollback(self) -> None:
        """Roll back what the session sent and received: the received messages come again
        (JMSRedelivered, JMSXDeliveryCount + 1; past max_retries to the exception queue)."""
        self.check_open()
        if not self.transacted:
            fail(jerr.IllegalStateException, ROLLBACK_NOT_TRANSACTED,
                 "Illegal attempt to rollback on a non transacted JMS Session")
        await self._rollback()

    async def _rollback(self) -> None:
        async with self._lock:
            await self.rollback_locked()
        await self._remove_subscribers()

    async def rollback_locked(self) -> None:
        """Roll back under the session's lock (held by the caller): also what a commit or
        acknowledge does when the transaction was lost with its connection, so that the
        work done since, on a new connection, goes with the rest (comes again too)."""
        self._sent_ids.clear()
        self._prefetched.clear()
        self._end_locked()
        self._tx_lost = False
        self._taken_ids.clear()
        self._work = False
        eng = self._engine
        if eng is None or not eng.in_transaction:
            return
        try:
            await eng.rollback()
        except ConnectionLost as exc:
            await self._lost(exc)
            self._tx_lost = False
        except PgaqError as exc:
            raise as_jms(exc) from exc
        await self._park()

    async def recover(self) -> None:
        """Redeliver every message consumed and not acknowledged (a rollback in AQ, so each
        counts a failed attempt)."""
        self.check_open()
        if self.transacted:
            fail(jerr.IllegalStateException, RECOVER_TRANSACTED,
                 "Illegal attempt to recover on a transacted JMS Session")
        await self._rollback()

    async def acknowledge(self) -> None:
        """CLIENT_ACKNOWLEDGE: acknowledge everything the session consumed so far (its
        transaction commits); in other modes nothing to do."""
        self.check_open()
        await self.ack.acknowledge()

    # -- close ----------------------------------------------------------------------------
    async def close(self) -> None:
        """Close consumers and producers, roll back what is uncommitted (a transacted
        session) or unacknowledged (CLIENT_ACKNOWLEDGE: it comes again), commit what a
        DUPS_OK session consumed, give the database connection back."""
        if self._closed:
            return
        if in_listener.get() is self:
            fail(jerr.IllegalStateException, SESSION_CLOSED,
                 "close() of a session from its own message listener")
        for c in list(self._consumers):
            await c.close()
        for p in list(self._producers):
            p.closed = True
        self.ack.closing()
        async with self._lock:
            eng = self._engine
            try:
                if eng is not None and eng.in_transaction:
                    if self.ack.commits_on_close():
                        await eng.commit()
                    else:
                        await eng.rollback()
            except PgaqError as exc:
                log.warning("closing a session: %s", exc)
            self._closed = True
            await self._drop_db()
        await self._remove_subscribers()
        self._connection.forget(self)

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()


def _buffered_turn(consumer: MessageConsumer, look: int) -> bool:
    """Whether the consumer's look number `look` is at buffered messages first."""
    return consumer.buffered and look % BUFFERED_EVERY == 0


def _engine_id(message_id: str) -> str:
    return message_id[3:] if message_id.upper().startswith("ID:") else message_id


def _closed(conn: asyncpg.Connection) -> bool:
    """Whether the driver knows `conn` is closed (a pool takes back a connection the server
    closed: its proxy then refuses every call)."""
    try:
        return bool(conn.is_closed())
    except asyncpg.InterfaceError:
        return True
