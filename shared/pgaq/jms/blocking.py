"""`pgaq.jms.blocking`: the same JMS names as plain (synchronous) methods, for code that
is not async (many Python services are synchronous).

    from pgaq.jms import blocking as jms
    factory = jms.ConnectionFactory(dsn)
    with factory.create_connection() as conn:
        session = conn.create_session(False, jms.AUTO_ACKNOWLEDGE)
        queue = session.get_queue("shop", "orders_q")
        session.create_producer(queue).send(session.create_text_message("hello"))
        conn.start()
        msg = session.create_consumer(queue).receive(5.0)

Underneath, each factory runs one event loop in a background thread ("pgaq-jms-blocking")
where the async objects live; every call is handed to it and waited for. A message or
exception listener (a plain callable) is called in a worker thread of that loop, so it
may itself call these blocking methods (session.commit(), a producer's send); one
listener runs at a time per session, as in JMS. Messages are the async API's objects:
acknowledge with `session.acknowledge()` (or `blocking.acknowledge(msg)`), as
`msg.acknowledge()` is a coroutine.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

from . import browser as _browser
from . import connection as _connection
from . import consumer as _consumer
from . import factory as _factory
from . import message as _message
from . import producer as _producer
from . import session as _session
from ._support import AUTO_ACKNOWLEDGE, CLIENT_ACKNOWLEDGE, DUPS_OK_ACKNOWLEDGE, SESSION_TRANSACTED
from .errors import IllegalStateException
from .message import NON_PERSISTENT, PERSISTENT

T = TypeVar("T")

__all__ = [
    "AUTO_ACKNOWLEDGE", "CLIENT_ACKNOWLEDGE", "DUPS_OK_ACKNOWLEDGE", "NON_PERSISTENT",
    "PERSISTENT", "SESSION_TRANSACTED", "Connection", "ConnectionFactory", "MessageConsumer",
    "MessageProducer", "QueueBrowser", "Session", "acknowledge", "delete_temporary",
]


class _Loop:
    """An event loop running in a daemon thread of its own."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self.thread = threading.Thread(target=self._main, name="pgaq-jms-blocking", daemon=True)
        self.thread.start()
        self._ready.wait()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(self._ready.set)
        self.loop.run_forever()
        self.loop.close()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run `coro` on the loop and wait for its result (its exception re-raised here)."""
        if threading.current_thread() is self.thread:
            coro.close()
            raise IllegalStateException("a blocking JMS call from the JMS loop's own thread "
                                        "would wait for itself", "JMS-107")
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """A plain method of a loop-bound object, run on the loop (it may spawn tasks)."""
        async def inside() -> T:
            return fn(*args, **kwargs)

        return self.run(inside())

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
        if threading.current_thread() is not self.thread:
            self.thread.join(10.0)


class _Wrapper:
    """Forwards every attribute of an async object: coroutine methods become blocking calls,
    plain methods run on the loop, results that are JMS objects come back wrapped."""

    def __init__(self, target: Any, loop: _Loop) -> None:
        self._target = target
        self._loop = loop

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        if not callable(attr) or isinstance(attr, type):
            return attr

        def blocking(*args: Any, **kwargs: Any) -> Any:
            result = self._loop.call(attr, *args, **kwargs)
            if asyncio.iscoroutine(result):
                result = self._loop.run(result)
            return _wrap(result, self._loop)

        return blocking

    def __repr__(self) -> str:
        return f"<blocking {self._target!r}>"


def _wrap(obj: Any, loop: _Loop) -> Any:
    if isinstance(obj, _connection.Connection):
        return Connection(obj, loop)
    if isinstance(obj, _session.Session):
        return Session(obj, loop)
    if isinstance(obj, _consumer.MessageConsumer):
        return MessageConsumer(obj, loop)
    if isinstance(obj, _producer.MessageProducer):
        return MessageProducer(obj, loop)
    if isinstance(obj, _browser.QueueBrowser):
        return QueueBrowser(obj, loop)
    return obj


def _threaded(listener: Callable[..., Any] | None) -> Callable[..., Any] | None:
    """A plain listener called in a worker thread (it may make blocking calls)."""
    if listener is None:
        return None

    async def call(arg: Any) -> None:
        await asyncio.to_thread(listener, arg)

    return call


class ConnectionFactory:
    """`blocking.ConnectionFactory(dsn, ...)`: the arguments of pgaq.jms.ConnectionFactory."""

    def __init__(self, dsn: str | None = None, **kwargs: Any) -> None:
        self._loop = _Loop()
        self._async = self._loop.call(_factory.ConnectionFactory, dsn, **kwargs)

    def create_connection(self, user: str | None = None, password: str | None = None) -> Connection:
        conn = self._loop.run(self._async.create_connection(user, password))
        return Connection(conn, self._loop)

    create_queue_connection = create_connection
    create_topic_connection = create_connection

    def close(self) -> None:
        """Stop the factory's loop thread (close its connections first)."""
        self._loop.stop()

    def __enter__(self) -> ConnectionFactory:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


class Connection(_Wrapper):
    def __init__(self, target: _connection.Connection, loop: _Loop) -> None:
        super().__init__(target, loop)
        _LOOPS[id(target)] = loop

    def set_exception_listener(self, listener: Callable[..., Any] | None) -> None:
        self._loop.call(self._target.set_exception_listener, _threaded(listener))

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._loop.run(self._target.close())


class Session(_Wrapper):
    def _open(self, create: Callable[..., _consumer.MessageConsumer],
              *args: Any) -> MessageConsumer:
        """Create and await the consumer in one step on the loop, as Java's create call
        returns with the subscription made: a message published once this returns reaches
        it, and nothing runs on the loop between the two (a session's listener given to the
        consumer as it is created sees it awaited)."""
        async def opened() -> _consumer.MessageConsumer:
            return await create(*args)  # checked now, the subscription made (or nothing left)

        return MessageConsumer(self._loop.run(opened()), self._loop)

    def create_consumer(self, destination: Any, message_selector: str | None = None,
                        no_local: bool = False) -> MessageConsumer:
        return self._open(self._target.create_consumer, destination, message_selector, no_local)

    create_receiver = create_consumer

    def create_subscriber(self, topic: Any, message_selector: str | None = None,
                          no_local: bool = False) -> MessageConsumer:
        return self.create_consumer(topic, message_selector, no_local)

    def create_durable_subscriber(self, topic: Any, name: str, message_selector: str | None = None,
                                  no_local: bool = False) -> MessageConsumer:
        return self._open(self._target.create_durable_subscriber, topic, name,
                          message_selector, no_local)

    def create_topic_receiver(self, topic: Any, receiver_name: str,
                              message_selector: str | None = None) -> MessageConsumer:
        return self._open(self._target.create_topic_receiver, topic, receiver_name,
                          message_selector)

    def set_message_listener(self, listener: Callable[..., Any] | None) -> None:
        self._loop.call(self._target.set_message_listener, _threaded(listener))

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._loop.run(self._target.close())


class MessageConsumer(_Wrapper):
    def set_message_listener(self, listener: Callable[..., Any] | None) -> None:
        self._loop.call(self._target.set_message_listener, _threaded(listener))

    def __enter__(self) -> MessageConsumer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._loop.run(self._target.close())


class MessageProducer(_Wrapper):
    def __enter__(self) -> MessageProducer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._loop.run(self._target.close())


class QueueBrowser(_Wrapper):
    def __iter__(self) -> Iterator[_message.Message]:
        it = self._loop.call(self._target.__aiter__)
        while True:
            try:
                yield self._loop.run(it.__anext__())
            except StopAsyncIteration:
                return

    get_enumeration = __iter__


def acknowledge(msg: _message.Message) -> None:
    """msg.acknowledge() for blocking code: run on the loop of the session that delivered it."""
    ack = msg._acknowledger
    if ack is None:
        raise IllegalStateException("this message was not received through a session that "
                                    "acknowledges (nothing to acknowledge)", "JMS-107")
    owner = getattr(ack, "__self__", None)
    loop = _LOOPS.get(id(owner.connection)) if isinstance(owner, _session.Session) else None
    if loop is None:
        raise IllegalStateException("acknowledge(msg) takes a message received through "
                                    "pgaq.jms.blocking", "JMS-107")
    loop.run(msg.acknowledge())


def delete_temporary(dest: Any) -> None:
    """dest.delete() for blocking code (a TemporaryQueue / TemporaryTopic made through
    pgaq.jms.blocking: its delete() is a coroutine), on the loop of its connection."""
    loop = _LOOPS.get(id(getattr(dest, "_owner", None)))
    if loop is None:
        raise IllegalStateException("delete_temporary takes a temporary destination made "
                                    "through pgaq.jms.blocking", "JMS-107")
    loop.run(dest.delete())


_LOOPS: dict[int, _Loop] = {}
