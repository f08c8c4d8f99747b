"""A ROLLBACK of dbms_aq.dequeue in plain SQL counts a failed attempt, as in Oracle: the
attempt is noted outside the transaction and the monitor counts it once it aborted."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import asyncpg
from pgaq.listener import Listener
from pgaq.monitor import Monitor, MonitorSettings

from .helpers import make_queue

DEQUEUE = "CALL dbms_aq.dequeue(queue_name => 's.q', payload => NULL::bytea, msgid => NULL)"


async def test_a_rolled_back_sql_dequeue_counts_an_attempt(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn, "s.q", max_retries=1)
    role = f"sqlc_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{role}" LOGIN')
    await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('ALL', 's.q', '{role}')")
    client = await asyncpg.connect(db_dsn.replace("postgres@", f"{role}@"))  # a plain SQL user
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=2)
    listener = Listener(db_dsn)
    await listener.start()
    try:
        await conn.execute("CALL dbms_aq.enqueue(queue_name => 's.q', payload => '\\x01'::bytea, msgid => NULL)")
        monitor = Monitor(pool, listener, MonitorSettings())
        for attempt in (1, 2):
            tx = client.transaction()
            await tx.start()
            await client.execute(DEQUEUE)
            await tx.rollback()
            await monitor.run_once()  # the monitor's pass counts it
            row = await conn.fetchrow("SELECT queue, msg_state, retry_count, expiration_reason FROM s.aq$qt")
            if attempt == 1:
                assert (row["queue"], row["msg_state"], row["retry_count"]) == ("q", "READY", 1)
        # past max_retries (1): the exception queue, as after any failed attempt
        assert (row["queue"], row["msg_state"], row["expiration_reason"]) == \
            ("aq$_qt_e", "EXPIRED", "MAX_RETRY_EXCEEDED")
        # a committed dequeue counts nothing, and leaves no note behind
        await conn.execute("CALL dbms_aq.enqueue(queue_name => 's.q', payload => '\\x02'::bytea, msgid => NULL)")
        await client.execute(DEQUEUE)
        await monitor.run_once()
        assert await conn.fetchval("SELECT count(*) FROM aq.pending_attempts") == 0
        # BROWSE notes nothing
        await conn.execute("CALL dbms_aq.enqueue(queue_name => 's.q', payload => '\\x03'::bytea, msgid => NULL)")
        async with client.transaction():
            await client.execute("CALL dbms_aq.dequeue(queue_name => 's.q', dequeue_options => "
                                 "dbms_aq.dequeue_options(dequeue_mode => 'BROWSE'), payload => NULL::bytea, "
                                 "msgid => NULL)")
        assert await conn.fetchval("SELECT count(*) FROM aq.pending_attempts") == 0
        # nobody but the monitor (an administrator) settles attempts
        try:
            await client.fetchval("SELECT aq.settle_pending_attempts()")
            raise AssertionError("a plain user settled attempts")
        except asyncpg.InsufficientPrivilegeError:
            pass
    finally:
        await client.close()
        await listener.close()
        await pool.close()
        await conn.execute(f'DROP OWNED BY "{role}" CASCADE')
        await conn.execute(f'DROP ROLE "{role}"')


class _Passes(Monitor):
    """A monitor that says when a pass is over (a pass sends no event of its own)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.passed = asyncio.Event()

    async def run_once(self) -> float:
        delay = await super().run_once()
        self.passed.set()
        return delay


async def test_a_rolled_back_sql_dequeue_is_counted_at_once(conn: asyncpg.Connection, db_dsn: str) -> None:
    """The note wakes the monitor, which waits for the transaction's end: no pass needed."""
    await make_queue(conn, "s.q", max_retries=1)
    qid, eid = await conn.fetchrow(
        "SELECT (SELECT id FROM aq.queues WHERE queue_name = 'q'),"
        " (SELECT id FROM aq.queues WHERE queue_name = 'aq$_qt_e')")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=3)
    listener = Listener(db_dsn)
    await listener.start()
    stop = asyncio.Event()
    # a safety poll of an hour: only the notification can make the monitor count in time
    monitor = _Passes(pool, listener, MonitorSettings(safety_poll=3600))
    client = await asyncpg.connect(db_dsn)
    running = None
    try:
        await conn.execute("CALL dbms_aq.enqueue(queue_name => 's.q', payload => '\\x01'::bytea, msgid => NULL)")
        async with listener.subscribe(f"aq_{qid}") as ready, listener.subscribe(f"aq_{eid}") as moved, \
                listener.subscribe("aq_attempt") as noted:
            running = asyncio.create_task(monitor.run(stop))
            # its first pass is over: any later one is counted below
            await asyncio.wait_for(monitor.passed.wait(), 30)
            for count, expected in ((1, "READY"), (2, "EXPIRED")):
                noted.clear()
                tx = client.transaction()
                await tx.start()
                await client.execute(DEQUEUE)
                await asyncio.wait_for(noted.wait(), 30)  # the note is out: the monitor waits on us
                passes = monitor.passes
                await tx.rollback()
                # READY again (its queue woken), then past max_retries: the exception queue. A
                # wake-up may also come from the monitor's first pass: each one is checked
                woken = ready if expected == "READY" else moved
                while True:
                    await asyncio.wait_for(woken.wait(), 30)
                    woken.clear()
                    row = await conn.fetchrow("SELECT msg_state, retry_count FROM s.aq$qt")
                    if row["retry_count"] == count:
                        break
                assert row["msg_state"] == expected and monitor.passes == passes
            assert await conn.fetchval("SELECT count(*) FROM aq.pending_attempts") == 0
    finally:
        stop.set()
        if running is not None:
            await running
        await client.close()
        await listener.close()
        await pool.close()


async def test_rolled_back_sql_dequeues_on_a_multi_consumer_queue(conn: asyncpg.Connection) -> None:
    """Settling locks recipient rows, then message rows (dequeue settlement's order), and
    counts each consumer's attempt: past max_retries the message moves for that one."""
    await make_queue(conn, "s.q", multiple=True, max_retries=0)
    for name in ("A", "B"):
        await conn.execute("CALL dbms_aqadm.add_subscriber(queue_name => 's.q',"
                           " subscriber => sys.aq$_agent($1, NULL, NULL))", name)
    await conn.execute("CALL dbms_aq.enqueue(queue_name => 's.q', payload => '\\x01'::bytea, msgid => NULL)")
    await conn.execute("CALL dbms_aq.enqueue(queue_name => 's.q', payload => '\\x02'::bytea, msgid => NULL)")
    for name in ("A", "B"):
        tx = conn.transaction()
        await tx.start()
        await conn.execute("CALL dbms_aq.dequeue(queue_name => 's.q', dequeue_options =>"
                           f" dbms_aq.dequeue_options(consumer_name => '{name}'),"
                           " payload => NULL::bytea, msgid => NULL)")
        await tx.rollback()
    assert await conn.fetchval("SELECT aq.settle_pending_attempts()") == 2
    rows = await conn.fetch("SELECT consumer_name, msg_state, retry_count FROM s.aq$qt"
                            " ORDER BY enq_time, consumer_name")
    # the first message failed for both (max_retries 0): expired; the second untouched
    assert [tuple(r) for r in rows] == [("A", "EXPIRED", 1), ("B", "EXPIRED", 1),
                                        ("A", "READY", 0), ("B", "READY", 0)]
    assert await conn.fetchval("SELECT count(*) FROM aq.pending_attempts") == 0
