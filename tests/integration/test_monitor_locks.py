"""The monitor against concurrent dequeuers on a multi-consumer queue: no deadlock.

A dequeuer holds the recipient row it removed and then locks the message row to settle it
(aq.finish_messages, msgid order; a row someone else holds is left to the monitor). The monitor's expiry held the message rows and then
updated their recipient rows, waiting for the one the dequeuer holds: a cycle (40P01).
Here expiry runs (on a clock an hour ahead, so everything is due) while workers dequeue
the same messages; each recipient ends dequeued or expired, never both, never twice.
"""

from __future__ import annotations

import asyncio
import time

import asyncpg
from pgaq import DequeueOptions, MessageProperties, Session
from pgaq.listener import Listener
from pgaq.monitor import Monitor, MonitorSettings

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
    await _expire_during_dequeues(conn, db_dsn)


async def test_expiry_during_dequeues_of_an_audience_catching_up(db_dsn: str) -> None:
    """The same with every publish to the audience (no row per subscriber) and subscribers
    that read their backlog as rows from a window of 2: the catch-up writes rows for
    messages the expiry may hold (docs/architecture.md, "Topics without a row per
    subscriber")."""
    admin = await asyncpg.connect(db_dsn)
    try:
        name = await admin.fetchval("SELECT current_database()")
        await admin.execute(f'ALTER DATABASE "{name}" SET pgaq.audience_min = 1')
        await admin.execute(f'ALTER DATABASE "{name}" SET pgaq.audience_window = 2')
    finally:
        await admin.close()
    conn = await asyncpg.connect(db_dsn)
    try:
        # the messages went to the audience: no row per subscriber at publish
        assert await _expire_during_dequeues(conn, db_dsn) == MESSAGES
    finally:
        await conn.close()


async def _expire_during_dequeues(conn: asyncpg.Connection, db_dsn: str) -> int:
    """Returns how many messages of the first round were published to the audience."""
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
            if len(all_ids) == MESSAGES:
                to_audience = await conn.fetchval("SELECT count(*) FROM s.qt WHERE audience IS NOT NULL")
            finished = asyncio.Event()

            async def worker(consumer: str, batch: int) -> None:
                async with pool.acquire() as c:
                    w = Session(c)
                    opts = DequeueOptions(consumer_name=consumer, batch_size=batch)
                    try:
                        while got := await w.dequeue("s.q", opts):
                            seen[consumer].extend(m.msgid for m in got)
                    except Exception as exc:  # recorded, asserted on below
                        errors.append(exc)

            async def monitor(finished: asyncio.Event = finished) -> None:
                async with pool.acquire() as c:
                    try:
                        while not finished.is_set():
                            await c.fetchval(EXPIRE_AHEAD, 7)
                    except Exception as exc:  # recorded, asserted on below
                        errors.append(exc)

            mon = asyncio.create_task(monitor())
            await asyncio.gather(
                *(worker(n, 1 + k) for n in CONSUMERS for k in range(WORKERS_PER_CONSUMER))
            )
            finished.set()
            await mon
    finally:
        await pool.close()
    assert [getattr(e, "sqlstate", repr(e)) for e in errors] == []
    # whatever the monitor skipped (busy rows) is expired by later passes
    while await conn.fetchval(EXPIRE_AHEAD, 100000):
        pass
    # a dequeue that finished a message while the monitor held its row left it for the
    # monitor to settle (it does not wait for the row): the monitor's deferred pass
    await conn.fetchval("SELECT done FROM aq.settle_deferred(100000)")
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
    return int(to_audience)


async def test_a_held_overdue_message_does_not_make_the_monitor_spin(conn: asyncpg.Connection, db_dsn: str) -> None:
    """An overdue message a transaction holds is retried after busy_retry, not in a loop,
    and handled as soon as the transaction ends (the monitor waits for it)."""
    await make_queue(conn)
    await conn.execute("CALL dbms_aqadm.start_queue('s.aq$_qt_e', enqueue => false)")
    mid = await Session(conn).enqueue("s.q", b"x", MessageProperties(expiration=3600))
    # the stored expiry time is the monitor's input: put it in the past
    await conn.execute("UPDATE s.qt SET expire_at = clock_timestamp() - interval '1 minute'")
    holder = await asyncpg.connect(db_dsn)
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=4)
    listener = Listener(db_dsn)
    await listener.start()
    stop = asyncio.Event()
    settings = MonitorSettings(safety_poll=30, busy_retry=10.0)
    monitor = Monitor(pool, listener, settings)
    try:
        tx = holder.transaction()
        await tx.start()
        await holder.execute("SELECT 1 FROM s.qt FOR UPDATE")
        task = asyncio.create_task(monitor.run(stop))
        window = 2.0
        await asyncio.sleep(window)  # a bounded observation window, not a synchronisation
        passes = monitor.passes
        assert monitor.busy_passes >= 1
        assert passes <= window / settings.busy_retry + 2, passes  # was 1,589 in 2 s
        assert await conn.fetchval("SELECT msg_state FROM s.aq$qt") == "READY"
        # the transaction ends: the monitor, waiting for it, expires the message at once
        async with pool.acquire() as c:
            receiver = Session(c, listener=listener, safety_poll=30)
            got = asyncio.create_task(receiver.dequeue("s.aq$_qt_e", DequeueOptions(wait=20)))
            await asyncio.sleep(0)
            started = time.monotonic()
            await tx.rollback()
            [m] = await asyncio.wait_for(got, 10)
            elapsed = time.monotonic() - started
        assert m.msgid == mid
        assert elapsed < 5.0, elapsed  # well before the next retry (10 s after the last pass)
    finally:
        stop.set()
        if "task" in locals():
            await task
        await holder.close()
        await listener.close()
        await pool.close()
