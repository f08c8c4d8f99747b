"""Many concurrent consumers on one multi-consumer queue: no deadlock, nothing lost or doubled.

Several workers share each consumer name, so one worker's candidate scan can lock a
recipient row a sibling has just removed (PostgreSQL keeps the lock when the re-check
fails); settling a message must never wait for such a row while holding a message row
that worker waits for. Before the fix this deadlocked (40P01) within a few rounds.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from pgaq import DequeueOptions, Session

from .helpers import make_queue, subscribe

CONSUMERS = ("A", "B", "C", "D")
WORKERS_PER_CONSUMER = 4
MESSAGES = 300
ROUNDS = 4


@pytest.mark.parametrize("retention", [0, 3600])
async def test_many_consumers_no_deadlock(conn: asyncpg.Connection, db_dsn: str, retention: int) -> None:
    await make_queue(conn, multiple=True, retention=retention)
    for name in CONSUMERS:
        await subscribe(conn, "s.q", name)
    size = len(CONSUMERS) * WORKERS_PER_CONSUMER
    pool = await asyncpg.create_pool(db_dsn, min_size=size, max_size=size)
    try:
        for _ in range(ROUNDS):
            ids = await Session(conn).enqueue_array(
                "s.q", [(i.to_bytes(2, "big"), None) for i in range(MESSAGES)]
            )
            seen: dict[str, list[str]] = {n: [] for n in CONSUMERS}

            async def worker(consumer: str, batch: int, seen: dict[str, list[str]] = seen) -> None:
                async with pool.acquire() as c:
                    w = Session(c)
                    opts = DequeueOptions(consumer_name=consumer, batch_size=batch)
                    while got := await w.dequeue("s.q", opts):
                        seen[consumer].extend(m.msgid for m in got)

            await asyncio.gather(
                *(worker(n, 1 + k) for n in CONSUMERS for k in range(WORKERS_PER_CONSUMER))
            )
            for name in CONSUMERS:
                assert sorted(seen[name]) == sorted(ids), name
    finally:
        await pool.close()
    states = dict(await conn.fetch("SELECT msg_state, count(*) FROM s.aq$qt GROUP BY 1"))
    assert set(states) <= {"PROCESSED"}
    if retention:
        assert states["PROCESSED"] == MESSAGES * ROUNDS * len(CONSUMERS)
    # processed messages whose rows were busy at the last removal: the monitor deletes them
    await conn.fetchval("SELECT done FROM aq.monitor_pass(100000)")
    left = await conn.fetchval("SELECT count(*) FROM s.qt")
    assert left == (MESSAGES * ROUNDS if retention else 0)
