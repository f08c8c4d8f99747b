"""The listening connection lost while a waiter leaves (the pressure cell `kill`,
docs/chaos.md, terminates it at random): the reconnect closed the old connection while the
leaving waiter's UNREGISTER ran on it, and asyncpg refused one of the two ("another
operation is in progress", "unknown protocol state": a warning, the statement failed for
nothing). The close now waits its turn."""

from __future__ import annotations

import asyncio
import logging

import asyncpg
import pytest
from pgaq import Session
from pgaq.listener import Listener

from .helpers import make_queue


async def test_a_waiter_leaving_as_the_connection_is_replaced(
        conn: asyncpg.Connection, db_dsn: str, caplog: pytest.LogCaptureFixture) -> None:
    await make_queue(conn)
    channel = f"aq_{await Session(conn).queue_id('s.q')}"
    listener = Listener(db_dsn)
    await listener.start()
    caplog.set_level(logging.WARNING, logger="pgaq.listener")
    try:
        for _ in range(5):
            async with listener.subscribe(channel):
                listener._on_terminate(None)  # as asyncpg tells of a terminated backend
            await asyncio.wait_for(listener.connected.wait(), 10)  # the reconnect is done
        assert not [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
        async with listener.subscribe(channel) as woken:  # still woken by an enqueue
            await Session(conn).enqueue("s.q", b"x")
            await asyncio.wait_for(woken.wait(), 10)
    finally:
        await listener.close()
