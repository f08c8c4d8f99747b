"""pgaq.jms.blocking's loop thread without a database: results and exceptions come back to
the caller, a blocking call from the loop's own thread is refused (it would wait for
itself), an unreachable database is a JMSException, and the thread stops with its factory."""

from __future__ import annotations

import asyncio
import socket
import threading

import pgaq.jms as jms
import pytest
from pgaq.jms import blocking


def test_loop_runs_coroutines_and_raises_their_errors() -> None:
    loop = blocking._Loop()
    try:
        async def double(x: int) -> int:
            await asyncio.sleep(0)
            return 2 * x

        assert loop.run(double(21)) == 42

        async def boom() -> None:
            raise jms.InvalidSelectorException("bad", "JMS-159")

        with pytest.raises(jms.InvalidSelectorException):
            loop.run(boom())

        async def inside() -> None:
            with pytest.raises(jms.IllegalStateException):
                loop.run(double(1))

        loop.run(inside())
        assert loop.thread.name == "pgaq-jms-blocking" and loop.thread.daemon
    finally:
        loop.stop()
    assert not loop.thread.is_alive()


def test_unreachable_database_is_a_jms_exception() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    before = set(threading.enumerate())
    factory = blocking.ConnectionFactory(f"postgresql://nobody@127.0.0.1:{port}/none")
    try:
        with pytest.raises(jms.JMSException) as e:
            factory.create_connection()
        assert e.value.error_code == "JMS-220"
    finally:
        factory.close()
    # the factory's loop thread ended with it
    assert not [t for t in threading.enumerate() if t.name == "pgaq-jms-blocking" and t not in before]


def test_acknowledge_needs_a_received_message() -> None:
    with pytest.raises(jms.IllegalStateException):
        blocking.acknowledge(jms.TextMessage("never received"))
