"""The monitor against concurrent dequeuers on a multi-consumer queue: no deadlock.

A dequeuer holds the recipient row it removed and then locks the message row to settle it
(aq.finish_messages, msgid order). The monitor's expiry held the message rows and then
updated their recipient rows, waiting for the one the dequeuer holds: a cycle (40P01).
Here expiry runs (on a clock an hour ahead, so everything is due) while workers dequeue
the same messages; each recipient ends dequeued or expired, never both, never twice.
"""

from __future__ import annotations

import asyncio

import asyncpg
from pgaq.engine import DequeueOptions, MessageProperties, Session

from .helpers import make_queue, subscribe

CONSUMERS = ("A", "B", "C")
WORKERS_PER_CONSUMER = 3
MESSAGES = 300
ROUNDS = 3

EXPIRE_AHEAD = (
    "SELECT m.done FROM aq.queue_tables t,"
    " aq.monitor_table(t, clock_timestamp() + interval '1 hour', $1) m WHERE t.table_name = 'qt'"
)


async def test_expiry_during_dequeues_no_deadlock(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn, multiple=True, retention=3600)
    for name in CONSUMERS:
        await subscribe(conn, "s.q", name)
    size = len(CONSUMERS) * WORKERS_PER_CONSUMER + 1
    pool = await asyncpg.create_pool(db_dsn, min_size=size, max_size=size)
    errors: list[BaseException] = []
    seen: dict[str, list[str]] = {n: [] for n in CONSUMERS}
    all_ids: list[str] = []
    try:
        for _ in range(ROUNDS):
            ids = await Session(conn).enqueue_array(
                "s.q", [(i.to_bytes(2, "big"), MessageProperties(expiration=1)) for i in range(MESSAGES)]
            )
            all_ids.extend(ids)
            running = True

            async def worker(consumer: str, batch: int) -> None:
                async with pool.acquire() as c:
                    w = Session(c)
                    opts = DequeueOptions(consumer_name=consumer, batch_size=batch)
                    try:
                        while got := await w.dequeue("s.q", opts):
                            seen[consumer].extend(m.msgid for m in got)
                    except Exception as exc:  # noqa: BLE001 - recorded and asserted on
                        errors.append(exc)

            async def monitor() -> None:
                async with pool.acquire() as c:
                    try:
                        while running:
                            await c.fetchval(EXPIRE_AHEAD, 7)
                    except Exception as exc:  # noqa: BLE001 - recorded and asserted on
                        errors.append(exc)

            mon = asyncio.create_task(monitor())
            await asyncio.gather(
                *(worker(n, 1 + k) for n in CONSUMERS for k in range(WORKERS_PER_CONSUMER))
            )
            running = False
            await mon
    finally:
        await pool.close()
    assert [getattr(e, "sqlstate", repr(e)) for e in errors] == []
    # whatever the monitor skipped (busy rows) is expired by later passes
    while await conn.fetchval(EXPIRE_AHEAD, 100000):
        pass
    expired = await conn.fetch(
        "SELECT consumer_name, upper(encode(msgid, 'hex')) AS msg_id FROM s.aq$_qt_r"
        " WHERE state = 3 AND failure_reason = 'TIME_EXPIRATION'")
    for name in CONSUMERS:
        got = seen[name]
        assert len(got) == len(set(got)), f"{name} dequeued a message twice"
        gone = [r["msg_id"] for r in expired if r["consumer_name"] == name]
        assert not set(got) & set(gone), f"{name}: a message both dequeued and expired"
        assert sorted(got + gone) == sorted(all_ids), f"{name}: a message lost"
    # each expired message is in the exception queue exactly once
    moved = [r[0] for r in await conn.fetch(
        "SELECT upper(encode(msgid, 'hex')) FROM s.qt WHERE q_name = 'aq$_qt_e'")]
    assert len(moved) == len(set(moved))
    assert set(moved) == {r["msg_id"] for r in expired}
    assert await conn.fetchval("SELECT count(*) FROM s.qt WHERE state IN (0, 1)") == 0
