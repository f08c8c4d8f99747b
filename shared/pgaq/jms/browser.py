"""javax.jms.QueueBrowser and Oracle's TopicBrowser (of a durable subscription):
`async for m in session.create_browser(queue, message_selector=...)`.

Each enumeration browses from the first message (AQ's BROWSE dequeue, in batches),
removing nothing. Its snapshot (Oracle Database Advanced Queuing User's Guide,
"Introduction to Oracle Java Message Service", QueueBrowser: "The first call to nextElement
gets a snapshot of the queue") is taken by the first look: messages committed after it are
not shown, messages removed by others meanwhile are not shown once they are gone, and none
is shown twice. A plain browse reads committed messages on pooled connections; a locked
browse (Oracle's extension, `locked=True`) takes AQ's LOCKED mode in a transacted session's
own transaction, so the messages it shows stay locked until the session commits or rolls
back ("Browsing Messages").
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

import asyncpg

from .. import client
from ..errors import PgaqError, wrap_db_error
from . import codec
from . import errors as jerr
from . import message as jmsg
from ._support import INVALID_QUEUE, INVALID_TOPIC, as_jms, fail
from .destination import Destination, Queue, Topic
from .temporary import settle_reply_to_pooled

if TYPE_CHECKING:
    from .session import DestinationInfo, Session

BATCH = 50
# a selector that names one message by its id (JMS 1.1's JMSMessageID = 'ID:...')
_BY_ID = re.compile(r"\s*JMSMessageID\s*=\s*'ID:([0-9A-Fa-f]{32})'\s*")
PURGE = "SELECT aq.jms_topic_browser_purge($1, $2, $3::bytea[])"


class QueueBrowser:
    def __init__(self, session: Session, destination: Destination, message_selector: str | None,
                 subscription_name: str | None = None, locked: bool = False) -> None:
        self.session = session
        self.destination = destination
        self.message_selector = message_selector if message_selector and message_selector.strip() else None
        self._sql_selector = self.message_selector  # as the database evaluates it (once browsed)
        self.subscription_name = subscription_name
        self.locked = locked
        self.closed = False
        # the messages the current enumeration has shown, for purge: (persistent, buffered)
        self._seen: tuple[list[str], list[str]] = ([], [])

    def get_queue(self) -> Destination:
        return self.destination

    get_topic = get_queue

    def get_message_selector(self) -> str | None:
        return self.message_selector

    def __aiter__(self) -> AsyncIterator[jmsg.Message]:
        return self._browse()

    get_enumeration = __aiter__

    async def _browse(self) -> AsyncIterator[jmsg.Message]:
        s = self.session
        if self.closed:
            fail(jerr.IllegalStateException, 131, "Browser is closed")
        s.check_open()
        info = await s.destination_info(self.destination)
        if isinstance(self.destination, Queue) and info.multiple_consumers \
                and info.queue_type != "EXCEPTION_QUEUE":
            # an exception queue of a multi-consumer table is read point-to-point (Oracle's
            # guide, "Exception Queues")
            fail(jerr.InvalidDestinationException, INVALID_QUEUE,
                 f"Invalid Queue specified: {info.qualified} is a multi-consumer queue")
        if isinstance(self.destination, Topic) and not info.multiple_consumers:
            fail(jerr.InvalidDestinationException, INVALID_TOPIC,
                 f"Invalid Topic specified: {info.qualified} is a single-consumer queue")
        self._sql_selector = await s.selector_for_mode(self.message_selector)
        await s.check_selector(self.destination, self._sql_selector)
        if self.subscription_name is not None:
            await self._check_subscriber(info)
        seen: tuple[list[str], list[str]] = ([], [])
        self._seen = seen
        snapshot: datetime | None = None
        plain = client.Session(None, pool=s.connection.pool.for_engine)
        for mode in ("BUFFERED", "PERSISTENT"):
            shown: set[str] = set()
            first = True
            while True:
                s.check_open()
                # a locked look locks all it reads: one more at a time, so it locks what it shows
                asked = len(shown) + 1 if self.locked and s.transacted else BATCH
                got, at = await self._look(plain, info, mode, first, asked, snapshot is None)
                snapshot = snapshot or at
                first = False
                fresh = [m for m in got if m.msgid not in shown]
                for m in fresh:
                    shown.add(m.msgid)
                    if snapshot is not None and m.enqueue_time > snapshot:
                        continue  # committed after the first look: not in this snapshot
                    msg = codec.from_engine(m, info.payload_kind, self.destination,
                                            j2ee_compliant=s.connection.j2ee_compliant)
                    await settle_reply_to_pooled(s.connection, msg)
                    seen[mode == "BUFFERED"].append(m.msgid)
                    yield msg
                if len(got) < asked or not fresh:
                    break

    async def _check_subscriber(self, info: DestinationInfo) -> None:
        """Oracle's guide, TopicBrowser: "Only durable subscribers are allowed to create a
        TopicBrowser"."""
        from ..queries import load

        try:
            async with self.session.connection.pool.acquire() as c:
                row = await c.fetchrow(load("jms_subscriber"), info.queue_id, self.subscription_name)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            raise as_jms(wrap_db_error(exc)) from exc
        if row is None:
            fail(jerr.InvalidDestinationException, INVALID_TOPIC,
                 f"{self.subscription_name!r} is not a durable subscriber of {info.qualified}")

    async def _look(self, plain: client.Session, info: DestinationInfo, mode: str, first: bool,
                    asked: int, clock: bool) -> tuple[list[client.Message], datetime | None]:
        """The next batch, with the database's clock at the first look (the snapshot). A
        plain browse navigates on an engine session of its own (NEXT_MESSAGE after the
        first). A locked one runs in the session's transaction, from the first message each
        time, asking for as many more as it has shown: the session's positions are its
        receivers', and its own locks do not hide rows from it."""
        s = self.session
        opts = client.DequeueOptions(
            consumer_name=self.subscription_name, dequeue_mode="BROWSE",
            navigation="FIRST_MESSAGE" if first else "NEXT_MESSAGE", wait=0,
            condition=self._sql_selector, batch_size=asked, delivery_mode=mode,
            visibility="IMMEDIATE" if mode == "BUFFERED" else "ON_COMMIT")
        by_id = _BY_ID.fullmatch(self.message_selector or "")
        if by_id is not None:
            # a browse of one message by its id also shows it WAITING (a delay) or RETAINED
            # (processed, kept by the queue's retention): the Oracle JMS guide's
            # "QueueReceiver", "dequeued by specifying the message identifier of the
            # processed message in a QueueBrowser"; JMSXState says which
            opts = replace(opts, msgid=by_id.group(1), condition=None)
        at: datetime | None = None
        try:
            if self.locked and s.transacted:
                async with s.using() as eng:
                    await eng.begin()
                    s.browsed()  # the locks are the transaction's work
                    if clock:
                        assert eng.conn is not None
                        at = await eng.conn.fetchval("SELECT clock_timestamp()")
                    got = await eng.dequeue(info.qualified, replace(
                        opts, dequeue_mode="LOCKED", navigation="FIRST_MESSAGE",
                        visibility="ON_COMMIT"))
                    eng.forget_position(info.qualified, self.subscription_name)
                    return got, at
            if clock:
                async with s.connection.pool.acquire() as c:
                    at = await c.fetchval("SELECT clock_timestamp()")
            return await plain.dequeue(info.qualified, opts), at
        except PgaqError as exc:
            raise as_jms(exc) from exc
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            raise as_jms(wrap_db_error(exc)) from exc

    async def purge(self) -> int:
        """TopicBrowser.purge: a destructive receive, by the durable subscriber, of the
        messages this browser's enumeration has shown (Oracle's guide, TopicBrowser); in a
        transacted session in its transaction (stable at its commit, undone by its
        rollback), else at once. May be called again: it purges what was shown since.
        Returns how many messages it removed."""
        s = self.session
        if self.closed:
            fail(jerr.IllegalStateException, 131, "Browser is closed")
        s.check_open()
        if not isinstance(self.destination, Topic) or self.subscription_name is None:
            fail(jerr.IllegalStateException, 131, "purge is a TopicBrowser's")
        persistent, buffered = list(self._seen[0]), list(self._seen[1])
        self._seen[0].clear()
        self._seen[1].clear()
        topic = self.destination.qualified
        name = self.subscription_name
        ids = [bytes.fromhex(i) for i in persistent]
        try:
            if s.transacted:
                async with s.using() as eng:
                    await eng.begin()
                    s.browsed()
                    assert eng.conn is not None
                    n = int(await eng.conn.fetchval(PURGE, topic, name, ids)) if ids else 0
                    return n + await _purge_buffered(eng, topic, name, buffered, "ON_COMMIT")
            n = 0
            if ids:
                async with s.connection.pool.acquire() as c:
                    n = int(await c.fetchval(PURGE, topic, name, ids))
            eng = client.Session(None, pool=s.connection.pool.for_engine)
            return n + await _purge_buffered(eng, topic, name, buffered, "IMMEDIATE")
        except PgaqError as exc:
            raise as_jms(exc) from exc
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            raise as_jms(wrap_db_error(exc)) from exc

    async def close(self) -> None:
        self.closed = True


async def _purge_buffered(eng: client.Session, topic: str, name: str | None, msgids: list[str],
                          visibility: str) -> int:
    """The NON_PERSISTENT messages a purge removes: by id, as the subscriber's receive
    would (the buffered companion is not the queue table aq.jms_topic_browser_purge reads)."""
    n = 0
    for i in msgids:
        n += len(await eng.dequeue(topic, client.DequeueOptions(
            consumer_name=name, dequeue_mode="REMOVE_NODATA", navigation="FIRST_MESSAGE",
            wait=0, msgid=i, delivery_mode="BUFFERED", visibility=visibility)))
    return n


TopicBrowser = QueueBrowser
