"""A queue's registration as waited on (aq.waiters) outlives its last waiter by the
listener's linger: consumers waiting between messages no longer insert and delete that row
per message (under a pinned xmin horizon the dead rows slowed every enqueue's look at
aq.waiters, the pressure cell `idle`). What must hold is aq.wake's promise: a waiter is
woken by every message committed after it began to wait."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
from pgaq import Session
from pgaq.listener import Listener

from .helpers import make_queue
from .waiting import until


async def registered(conn: asyncpg.Connection, qid: int) -> int:
    return int(await conn.fetchval("SELECT count(*) FROM aq.waiters WHERE queue_id = $1", qid))


@asynccontextmanager
async def listening(conn: asyncpg.Connection, db_dsn: str, linger: float) -> AsyncIterator[tuple[Listener, int]]:
    """A queue s.q and a listener with the given linger: (the listener, the queue's id)."""
    await make_queue(conn)
    qid = await Session(conn).queue_id("s.q")
    listener = Listener(db_dsn, linger=linger)
    await listener.start()
    try:
        yield listener, qid
    finally:
        await listener.close()


async def test_a_waiter_coming_back_within_the_linger_is_woken_without_registering_again(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    async with listening(conn, db_dsn, 30.0) as (listener, qid):
        async with listener.subscribe(f"aq_{qid}"):
            assert await registered(conn, qid) == 1
        assert await registered(conn, qid) == 1  # lingering
        xmin_before = await conn.fetchval("SELECT xmin::text FROM aq.waiters WHERE queue_id = $1", qid)
        async with listener.subscribe(f"aq_{qid}") as woken:
            await Session(conn).enqueue("s.q", b"x")
            await asyncio.wait_for(woken.wait(), 10)
        # the same row all along: not deleted and inserted again
        assert await conn.fetchval("SELECT xmin::text FROM aq.waiters WHERE queue_id = $1", qid) == xmin_before
    assert await registered(conn, qid) == 0  # close() lets go of lingering registrations


async def test_the_registration_goes_once_the_linger_has_passed(conn: asyncpg.Connection, db_dsn: str) -> None:
    async with listening(conn, db_dsn, 0.2) as (listener, qid):
        async with listener.subscribe(f"aq_{qid}"):
            pass

        async def gone() -> bool:
            return await registered(conn, qid) == 0
        await until(gone, "the registration to go once the linger passed")
        async with listener.subscribe(f"aq_{qid}") as woken:  # registered again, and woken
            assert await registered(conn, qid) == 1
            await Session(conn).enqueue("s.q", b"x")
            await asyncio.wait_for(woken.wait(), 10)
