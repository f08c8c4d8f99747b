"""javax.jms.QueueBrowser (and Oracle's TopicBrowser of a durable subscription):
`async for m in session.create_browser(queue, message_selector=...)`.

Each iteration browses from the first message (AQ's BROWSE dequeue, FIRST_MESSAGE then
NEXT_MESSAGE) on pooled connections, in batches, removing nothing; it sees committed
messages, whatever the session's own transaction holds.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from .. import engine
from ..errors import PgaqError
from . import codec
from . import errors as jerr
from . import message as jmsg
from ._support import INVALID_QUEUE, as_jms, fail
from .destination import Destination, Queue
from .temporary import settle_reply_to_pooled

if TYPE_CHECKING:
    from .session import Session

BATCH = 50


class QueueBrowser:
    def __init__(self, session: Session, destination: Destination, message_selector: str | None,
                 subscription_name: str | None = None) -> None:
        self.session = session
        self.destination = destination
        self.message_selector = message_selector if message_selector and message_selector.strip() else None
        self.subscription_name = subscription_name
        self.closed = False

    def get_queue(self) -> Destination:
        return self.destination

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
        if isinstance(self.destination, Queue) and info.multiple_consumers:
            fail(jerr.InvalidDestinationException, INVALID_QUEUE,
                 f"Invalid Queue specified: {info.qualified} is a multi-consumer queue")
        await s.check_selector(self.destination, self.message_selector)
        eng = engine.Session(None, pool=s.connection.pool.for_engine)
        navigation = "FIRST_MESSAGE"
        for mode in ("BUFFERED", "PERSISTENT"):
            navigation = "FIRST_MESSAGE"
            while True:
                s.check_open()
                opts = engine.DequeueOptions(
                    consumer_name=self.subscription_name, dequeue_mode="BROWSE",
                    navigation=navigation, wait=0, condition=self.message_selector,
                    batch_size=BATCH, delivery_mode=mode,
                    visibility="IMMEDIATE" if mode == "BUFFERED" else "ON_COMMIT")
                try:
                    got = await eng.dequeue(info.qualified, opts)
                except PgaqError as exc:
                    raise as_jms(exc) from exc
                for m in got:
                    msg = codec.from_engine(m, info.payload_kind, self.destination,
                                            j2ee_compliant=self.session.connection.j2ee_compliant)
                    await settle_reply_to_pooled(s.connection, msg)
                    yield msg
                if len(got) < BATCH:
                    break
                navigation = "NEXT_MESSAGE"

    async def close(self) -> None:
        self.closed = True


TopicBrowser = QueueBrowser
