"""javax.jms.MessageConsumer (QueueReceiver, TopicSubscriber, TopicReceiver): receive,
receive(timeout), receive_no_wait, and the message listener's delivery loop.

A receive looks once, then waits on the Connection's LISTEN connection (woken by the
enqueue's NOTIFY, or by a reconnect, and for a safety look every `safety_poll` seconds:
one of the consumers of a shared key each time, pgaq.listener) until a
message it may take is there, its time is up, or the consumer closes; while the connection
is stopped it does not look. A message listener is the same loop in a named task of the
connection, one message at a time per session (the session's delivery lock).

A topic subscriber (durable or not) is an AQ subscriber, and AQ keeps for a subscriber only
what is published once it exists. In JMS 1.1 (TopicSubscriber) a subscriber gets what
is published while it is active, which is from the return of createSubscriber /
createDurableSubscriber: here, from the return of `await session.create_...(...)`.
A subscriber that was never awaited refuses to receive or take a listener (JMS-107), for a
subscription made then would silently miss what was published in between. Queue receivers
and topic receivers make nothing in the database (their messages wait for them anyway), so
they may still open at their first receive.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Generator, Hashable
from typing import TYPE_CHECKING, Any, Literal

import asyncpg

from .. import client
from ..errors import wrap_db_error
from . import compliance
from . import errors as jerr
from . import message as jmsg
from ._support import (
    CONSUMER_CLOSED,
    INVALID_QUEUE,
    INVALID_TOPIC,
    LISTENER_SET,
    NAVIGATION_NAMES,
    NAVIGATION_NEXT_MESSAGE,
    NOT_SUBSCRIBED,
    as_jms,
    call,
    fail,
    lost_connection,
    make,
)
from .connection import in_listener
from .destination import Destination, Queue, Topic
from .temporary import check_consumer as check_temporary

if TYPE_CHECKING:
    from .session import DestinationInfo, Session

log = logging.getLogger("pgaq.jms")

MessageListener = Callable[[jmsg.Message], Any]


class MessageConsumer:
    """Made by Session.create_consumer / create_durable_subscriber / create_receiver."""

    def __init__(self, session: Session, destination: Destination, message_selector: str | None,
                 *, consumer_name: str | None = None, no_local: bool = False,
                 durable: bool = False, temporary: bool = False) -> None:
        self.session = session
        self.destination = destination
        self.message_selector = message_selector if message_selector and message_selector.strip() else None
        # the selector as the database evaluates it (Session.selector_for_mode), once open
        self.sql_selector = self.message_selector
        self.no_local = no_local
        self.durable = durable
        self.temporary = temporary  # a non-durable topic subscriber: a subscriber of its own
        if temporary:
            import uuid

            consumer_name = "TSUB_" + uuid.uuid4().hex[:24].upper()
        self.consumer_name = consumer_name
        # the selector is the AQ subscriber's rule (durable and temporary subscribers), or
        # a dequeue condition (queue receivers, topic receivers)
        self.subscribed = durable or temporary
        self.buffered = True  # receives look at NON_PERSISTENT (buffered) messages too
        self.looks = 0
        # AQjmsConsumer.setNavigationMode (NAVIGATION_*); None: Oracle's default, the first
        # message for the first receive and the next one after it
        self.navigation: int | None = None
        self.closed = False
        self._closing = asyncio.Event()
        self._info: DestinationInfo | None = None
        self._opening = asyncio.Lock()
        # open() was called (`await`, `async with`): a subscriber may receive from then on
        self.open_called = False
        self._listener: MessageListener | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop_listener: asyncio.Event | None = None

    # -- opening --------------------------------------------------------------------------
    def __await__(self) -> Generator[Any, None, MessageConsumer]:
        """`consumer = await session.create_consumer(...)`: open it now."""
        return self._awaited().__await__()

    async def _awaited(self) -> MessageConsumer:
        try:
            await self.open()
        except jerr.JMSException:
            # `consumer = await session.create_consumer(...)` raised: no one holds the
            # consumer, so it leaves nothing behind in its session (no partial effect)
            await self.close()
            raise
        return self

    async def open(self) -> DestinationInfo:
        """Check the destination and selector, make the subscription (topics); once."""
        self.open_called = True
        if self._info is not None:
            return self._info
        async with self._opening:
            if self._info is not None:
                return self._info
            self._check_open()
            s = self.session
            check_temporary(s.connection, self.destination)
            info = await s.destination_info(self.destination)
            if isinstance(self.destination, Topic) and not info.multiple_consumers:
                fail(jerr.InvalidDestinationException, INVALID_TOPIC,
                     f"Invalid Topic specified: {info.qualified} is a single-consumer queue")
            if (isinstance(self.destination, Queue) and info.multiple_consumers
                    and self.consumer_name is None and info.queue_type != "EXCEPTION_QUEUE"):
                # a topic's exception queue is read point-to-point (Oracle Database Advanced
                # Queuing User's Guide, "Exception Queues"), as AQ dequeues it: no consumer
                fail(jerr.InvalidDestinationException, INVALID_QUEUE,
                     f"Invalid Queue specified: {info.qualified} is a multi-consumer queue "
                     "(get_topic, or a topic receiver with a name)")
            self.sql_selector = await s.selector_for_mode(self.message_selector)
            if self.subscribed:
                await self._subscribe(info)
            else:
                await s.check_selector(self.destination, self.sql_selector)
            if self.no_local:
                s.connection.no_local_topics.add(info.qualified.lower())
            self._info = info
            return info

    async def _subscribe(self, info: DestinationInfo) -> None:
        """The AQ subscriber behind a topic subscriber, its rule the selector (Oracle's
        Database Advanced Queuing User's Guide, "Introduction to Oracle Java Message
        Service", DurableSubscriber: the same name on the same topic with another selector
        alters the subscription, the messages it holds kept)."""
        from ..queries import load

        if self.durable and self.session.connection.j2ee_compliant:
            await compliance.claim_durable_name(self, info)  # a name is one subscription
        try:
            async with self.session.connection.pool.acquire() as c:
                rule = None
                exists = False
                if self.durable:
                    row = await c.fetchrow(load("jms_subscriber"), info.queue_id, self.consumer_name)
                    exists = row is not None
                    rule = row["rule"] if row is not None else None
                if not exists:
                    await c.execute(
                        "CALL dbms_aqadm.add_subscriber(queue_name => $1, subscriber => "
                        "sys.aq$_agent($2, NULL, NULL), rule => $3, "
                        "delivery_mode => 'PERSISTENT_OR_BUFFERED')",
                        info.qualified, self.consumer_name, self.sql_selector)
                    if self.durable:
                        compliance.durable_made(self, info)
                elif (rule or None) != self.sql_selector:
                    await c.execute(
                        "CALL dbms_aqadm.alter_subscriber(queue_name => $1, subscriber => "
                        "sys.aq$_agent($2, NULL, NULL), rule => $3)",
                        info.qualified, self.consumer_name, self.sql_selector)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            err = as_jms(wrap_db_error(exc))
            if isinstance(err, jerr.InvalidSelectorException) or err.code in (936, 904, 909, 932):
                # as Session.check_selector says it: JMS-159, the ORA error linked
                raise make(jerr.InvalidSelectorException, 159,
                           f"Invalid selector {self.message_selector!r}: {err.message}", err) from exc
            raise err from exc

    def _check_open(self) -> None:
        if self.closed:
            fail(jerr.IllegalStateException, CONSUMER_CLOSED, "Consumer is closed")
        self.session.check_open()

    @property
    def unsubscribed(self) -> bool:
        """A topic subscriber whose subscription was never asked for (not awaited)."""
        return self.subscribed and not self.open_called and not self.closed

    def check_subscribed(self, what: str) -> None:
        """Refuse `what` on a topic subscriber that was not awaited (see the module's doc)."""
        if self.unsubscribed:
            call_ = ("create_durable_subscriber" if self.durable else "create_subscriber")
            fail(jerr.IllegalStateException, NOT_SUBSCRIBED,
                 f"Operation not allowed on a subscriber of {self.destination.qualified} that "
                 f"has no subscription: {what} needs `consumer = await session.{call_}(...)` "
                 "(or create_consumer on a topic, awaited), which makes the subscription before "
                 "it returns; one made now would have missed what was published meanwhile")

    # -- JMS getters ----------------------------------------------------------------------
    def get_message_selector(self) -> str | None:
        self._check_open()
        return self.message_selector

    def get_destination(self) -> Destination:
        return self.destination

    def get_queue(self) -> Destination:
        return self.destination

    def get_topic(self) -> Destination:
        return self.destination

    def get_no_local(self) -> bool:
        return self.no_local

    def get_name(self) -> str | None:
        """The durable subscription's (or topic receiver's) name."""
        return self.consumer_name

    # -- receiving ------------------------------------------------------------------------
    async def receive(self, timeout: float | None = None) -> jmsg.Message | None:
        """The next message: waits for ever (`timeout` None), else up to `timeout` seconds
        (None when none came, or when the consumer closes meanwhile)."""
        self._no_listener()
        return await self._receive(timeout)

    async def receive_no_wait(self) -> jmsg.Message | None:
        """The next message if one is there now (None also while the connection is stopped)."""
        self._no_listener()
        return await self._receive(0.0)

    async def receive_by_message_id(self, message_id: str,
                                    timeout: float | None = None) -> jmsg.Message | None:
        """AQjmsConsumer.receive by message id ("ID:<hex>" or the hex of AQ's msgid)."""
        self._no_listener()
        return await self._receive(timeout, msgid=message_id)

    def _no_listener(self) -> None:
        self._check_open()
        self.check_subscribed("receive()")
        if self._listener is not None:
            fail(jerr.IllegalStateException, LISTENER_SET,
                 "receive() on a consumer that has a message listener")

    async def receive_no_data(self, timeout: float | None = 0.0) -> str | None:
        """AQjmsConsumer.receiveNoData: remove the next message without fetching its body
        (AQ's REMOVE_NODATA; the Oracle JMS guide, "Remove No Data": for a message already
        looked at, say through a browser); under the session's acknowledge mode as a
        receive. Waits as `receive(timeout)` does (by default not at all); the removed
        message's JMSMessageID, or None when there was none."""
        self._no_listener()
        got = await self.next(timeout, no_data=True)
        return None if got is None else "ID:" + got[0].msgid

    def set_navigation_mode(self, mode: int) -> None:
        """AQjmsConsumer.setNavigationMode: NAVIGATION_FIRST_MESSAGE (each receive from the
        head: the most urgent message of a priority-ordered queue), NAVIGATION_NEXT_MESSAGE
        (after the last one; in a transaction group, the group's next) or
        NAVIGATION_NEXT_TRANSACTION (the next transaction group's first: grouped queues
        only, else ORA-25237 at receive)."""
        self._check_open()
        if mode not in NAVIGATION_NAMES or mode is None or isinstance(mode, bool):
            raise jerr.JMSException(
                f"ORA-25237: invalid navigation mode {mode!r}: use NAVIGATION_FIRST_MESSAGE (1), "
                "NAVIGATION_NEXT_TRANSACTION (2) or NAVIGATION_NEXT_MESSAGE (3)", "ORA-25237")
        self.navigation = mode

    def get_navigation_mode(self) -> int:
        self._check_open()
        return NAVIGATION_NEXT_MESSAGE if self.navigation is None else self.navigation

    async def _receive(self, timeout: float | None, *, msgid: str | None = None,
                       listener: bool = False) -> jmsg.Message | None:
        got = await self.next(timeout, msgid=msgid, listener=listener)
        return None if got is None else got[1]

    async def next(self, timeout: float | None, *, msgid: str | None = None,
                   listener: bool = False, stop: asyncio.Event | None = None,
                   no_data: bool = False) -> tuple[client.Message, jmsg.Message] | None:
        """The receive loop (see the module's doc); `timeout` 0: look once."""
        info = await self.open()
        blocking = timeout != 0
        conn = self.session.connection
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + max(0.0, timeout)
        poll = conn.factory.safety_poll
        stops = [self._closing] + ([stop] if stop is not None else [])
        if timeout == 0:
            if not conn.started.is_set():
                return None
            return await self._look(info, msgid, listener, no_data=no_data)
        retry = 0.0  # after a look that lost the database: look again this soon
        if conn.started.is_set() and not any(s.is_set() for s in stops):
            # a message already there needs no subscription (its LISTEN round trips)
            got, retry = await self._look_waiting(info, msgid, listener, blocking, no_data, retry)
            if got is not None:
                return got
        async with conn.subscribe(info.channel, None if msgid else self._share(info)) as event:
            while True:
                if self.closed or any(s.is_set() for s in stops):
                    return None
                remaining = None if deadline is None else deadline - loop.time()
                if not conn.started.is_set():
                    if remaining is not None and remaining <= 0:
                        return None
                    await _wait_any([conn.started, *stops], remaining)
                    continue
                if event is not None:
                    event.clear()
                got, retry = await self._look_waiting(info, msgid, listener, blocking, no_data,
                                                      retry)
                if got is not None:
                    if event is not None:
                        event.took()
                    return got
                if not retry:
                    await self.session.ack.idle()
                remaining = None if deadline is None else deadline - loop.time()
                if remaining is not None and remaining <= 0:
                    return None
                # (a shared key's safety looks are the listener's: pgaq.listener)
                own: float | None = poll if event is None or not event.polled else None
                pause = own if not retry else min(poll, retry)
                if remaining is not None:
                    pause = remaining if pause is None else min(remaining, pause)
                waits = [*stops] if event is None else [event, *stops]
                await _wait_any(waits, pause)

    def _share(self, info: DestinationInfo) -> Hashable | None:
        """The key of this connection's waiters that compete for the same messages: the
        listener wakes one of them per NOTIFY (pgaq.listener). A look starts from the first
        message its consumer may take (a look that finds nothing says so for them all); a
        consumer with a navigation mode of its own waits on its own."""
        if self.navigation is not None:
            return None
        return ("jms", info.qualified.lower(), self.consumer_name,
                None if self.subscribed else self.sql_selector, self.no_local, self.buffered)

    async def _look_waiting(self, info: DestinationInfo, msgid: str | None, listener: bool,
                            blocking: bool, no_data: bool, retry: float
                            ) -> tuple[tuple[client.Message, jmsg.Message] | None, float]:
        """A waiting receive's look and when to look again if the database was lost (0.0:
        it was not). A receive waits through an outage, as a listener does: the session
        has dropped its connection and told the exception listener, and the look after the
        reconnect takes a new one (a reconnect that came first wakes nobody again, so the
        receive looks again on its own, backing off)."""
        try:
            return await self._look(info, msgid, listener, blocking, no_data), 0.0
        except jerr.JMSException as exc:
            if not lost_connection(exc) or self.closed or self.session.connection.closed:
                raise
            log.info("a receive on %s lost the database; waiting on: %s",
                     self.destination.qualified, exc)
            return None, min(max(retry * 2, 0.05), 5.0)

    async def _look(self, info: DestinationInfo, msgid: str | None, listener: bool,
                    blocking: bool = False,
                    no_data: bool = False) -> tuple[client.Message, jmsg.Message] | None:
        while True:
            self._check_open()
            got = await self.session.take(self, info, listener=listener, msgid=msgid,
                                          blocking=blocking, no_data=no_data)
            if got is False:
                continue  # one of this connection's own publications, for a no_local consumer
            if got is None or got is True:
                return None
            return got

    # -- the message listener -------------------------------------------------------------
    @property
    def message_listener(self) -> MessageListener | None:
        return self._listener

    def get_message_listener(self) -> MessageListener | None:
        self._check_open()
        return self._listener

    def set_message_listener(self, listener: MessageListener | None) -> None:
        """Deliver each message to `listener` (a plain or async callable) once the
        connection is started, one at a time per session; None stops (after the message
        being delivered, if any). A topic subscriber must have been awaited."""
        self._check_open()
        if listener is not None:
            self.check_subscribed("set_message_listener()")
        self.listen(listener)

    def listen(self, listener: MessageListener | None) -> None:
        """set_message_listener without the check: the session-wide listener, given to a
        subscriber as it is created (Session._adopt), before it can have been awaited; its
        delivery loop waits for that await (see _deliver)."""
        self._check_open()
        if self._stop_listener is not None:
            self._stop_listener.set()
        self._listener = listener
        if listener is None:
            self._task = None
            self._stop_listener = None
            return
        stop = asyncio.Event()
        self._stop_listener = stop
        self._task = self.session.connection.spawn(
            f"listener:{self.destination.qualified}:{self.consumer_name or ''}",
            self._deliver(listener, stop))

    async def _deliver(self, listener: MessageListener, stop: asyncio.Event) -> None:
        """The delivery loop. A database outage (reported to the exception listener by the
        session or the listening connection) is waited out with backoff; delivery goes on
        after the reconnect, which wakes the loop."""
        s = self.session
        conn = s.connection
        in_listener.set(s)
        if self.unsubscribed:
            # the session-wide listener on a subscriber made without `await`: the creating
            # code ran on without awaiting it (an await would have begun open() before this
            # task first ran), so it never subscribes; say so rather than deliver nothing
            exc = make(jerr.IllegalStateException, NOT_SUBSCRIBED,
                       f"a subscriber of {self.destination.qualified} created in a session with "
                       "a message listener was not awaited: it has no subscription and delivers "
                       "nothing (`await session.create_subscriber(...)`)")
            log.error("%s", exc)
            conn.report(exc)
            return
        backoff = 0.05
        while not (stop.is_set() or self._closing.is_set()):
            try:
                info = await self.open()
                async with conn.subscribe(info.channel, self._share(info)) as event:
                    while not (stop.is_set() or self._closing.is_set()):
                        if not conn.started.is_set():
                            await _wait_any([conn.started, stop, self._closing], None)
                            continue
                        if event is not None:
                            event.clear()
                        delivered = await self._deliver_one(info, listener, stop,
                                                            None if event is None else event.took)
                        if delivered is not None:
                            backoff = 0.05
                            if delivered == "again":
                                continue
                        if not conn.started.is_set():
                            continue  # stopped meanwhile: wait for start()
                        await s.ack.idle()
                        waits = [stop, self._closing] + ([event] if event is not None else [])
                        await _wait_any(waits, None if event is not None and event.polled
                                        else conn.factory.safety_poll)
            except asyncio.CancelledError:
                raise
            except jerr.JMSException as exc:
                if self.closed or s.closed or conn.closed or stop.is_set():
                    return
                log.warning("message listener of %s: %s; trying again in %.2f s",
                            self.destination.qualified, exc, backoff)
                await _wait_any([stop, self._closing], backoff)
                backoff = min(backoff * 2, 5.0)

    async def _deliver_one(self, info: DestinationInfo, listener: MessageListener,
                           stop: asyncio.Event, took: Callable[[], bool] | None = None
                           ) -> Literal["again", "passed"] | None:
        """Take one message and hand it to the listener, holding the session's delivery
        lock (one listener at a time per session; stop() waits for it). `took` is told
        as soon as a message is taken (the next waiting listener looks meanwhile). None
        when there was no message; "again" when this loop looks again at once; "passed"
        when it waits for its turn instead: the message was settled, the session holds
        nothing, and `took` woke an idle listener of the key to look for the next one
        (both looking made 256 listeners' every message cost one more empty look: a
        BEGIN, two REMOVEs, a savepoint and a COMMIT, on a backend gone cold). A busy one
        woken looks only once its own listener returns: this one looks meanwhile."""
        s = self.session
        async with s.delivery:
            if stop.is_set() or self._closing.is_set() or not s.connection.started.is_set():
                return None
            got = await self._look(info, None, True, True)
            if got is None:
                return None
            passed = took() if took is not None else False
            ok = True
            try:
                await call(listener, got[1])
            except Exception:
                ok = False
                log.exception("the message listener of %s raised: the message comes again",
                              self.destination.qualified)
            await s.ack.settle(ok, look_next=not (ok and passed))
            # a rolled-back message is not announced again: this loop looks for it
            return "passed" if ok and passed and s.holds_nothing_open() else "again"

    # -- close ----------------------------------------------------------------------------
    async def close(self) -> None:
        """Stop the listener (after its current message), wake a waiting receive (it
        returns None), and remove a non-durable topic subscriber's AQ subscription."""
        if self.closed:
            return
        self._closing.set()
        if self._stop_listener is not None:
            self._stop_listener.set()
        task = self._task
        if task is not None and task is not asyncio.current_task():
            try:
                await asyncio.wait_for(asyncio.shield(task), 30.0)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
            except Exception:  # the task's own failure was logged by its TaskGroup
                pass
        self.closed = True
        try:
            await self.session.release(self)
        except jerr.JMSException as exc:
            log.warning("closing a consumer of %s: %s", self.destination.qualified, exc)
        if self.temporary and self._info is not None and self.consumer_name is not None:
            await self.session.remove_subscriber_when_free(self._info.qualified, self.consumer_name)
        self.session.forget(self)

    async def __aenter__(self) -> MessageConsumer:
        await self.open()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()


# JMS's domain-specific names for the same object
QueueReceiver = MessageConsumer
TopicSubscriber = MessageConsumer
TopicReceiver = MessageConsumer


async def _wait_any(events: list[asyncio.Event], timeout: float | None) -> None:
    """Until one of `events` is set or `timeout` seconds pass."""
    if any(e.is_set() for e in events):
        return
    waiters = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waiters:
            w.cancel()
