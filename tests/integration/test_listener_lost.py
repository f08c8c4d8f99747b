"""The listening connection killed while a waiter leaves (the pressure cell `kill`,
docs/chaos.md, terminates it at random, as pg_terminate_backend here): the listener
connects again, wakes its waiters to look again, and the queue's wake-ups work after it.
The leaving waiter's UNREGISTER may meet the killed connection and fail with a warning
(asyncpg: "another operation is in progress" while it consumes the server's FATAL); the
row goes with the backend (aq.forget_dead_waiters). Nothing fails louder than that."""

from __future__ import annotations

import asyncio
import logging

import asyncpg
import pytest
from pgaq import Session
from pgaq.listener import Listener

from .helpers import make_queue


async def test_a_waiter_leaving_as_the_connection_is_killed(
        conn: asyncpg.Connection, db_dsn: str, caplog: pytest.LogCaptureFixture) -> None:
    await make_queue(conn)
    qid = await Session(conn).queue_id("s.q")
    channel = f"aq_{qid}"
    listener = Listener(db_dsn, linger=0)  # the last waiter's UNREGISTER runs as it leaves
    await listener.start()
    caplog.set_level(logging.WARNING, logger="pgaq.listener")
    try:
        # a waiter on another channel stays throughout: woken after each reconnect
        async with listener.subscribe("pgaq_test_keeper") as reconnected:
            for _ in range(5):
                reconnected.clear()
                async with listener.subscribe(channel):
                    pid = await conn.fetchval(  # the listener's backend now (a killed one's row may stay)
                        "SELECT pid FROM aq.waiters WHERE queue_id = $1 ORDER BY since DESC LIMIT 1", qid)
                    assert await conn.fetchval("SELECT pg_terminate_backend($1)", pid)
                await asyncio.wait_for(reconnected.wait(), 10)  # the reconnect is done
            assert listener.waiters == 1
        said = [(r.levelno, r.getMessage()) for r in caplog.records]
        assert all(level < logging.ERROR for level, _ in said), said
        assert all("unregistering" in m for level, m in said if level == logging.WARNING), said
        async with listener.subscribe(channel) as woken:  # still woken by an enqueue
            await Session(conn).enqueue("s.q", b"x")
            await asyncio.wait_for(woken.wait(), 10)
    finally:
        await listener.close()
