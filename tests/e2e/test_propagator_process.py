"""The propagator as a process, SIGKILLed again and again while it moves a backlog to a
second database: afterwards every message is at the destination exactly once."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Awaitable
from datetime import timedelta

import asyncpg
from pgaq import Session

from .support import propagation_link


async def test_kill_9_during_batches_loses_and_duplicates_nothing(db_dsn: str, remote_dsn: str) -> None:
    c = await asyncpg.connect(db_dsn)
    r = await asyncpg.connect(remote_dsn)
    env = {**os.environ, "PGAQ_DSN": db_dsn, "PGAQ_LOG_LEVEL": "ERROR", "PGAQ_PROPAGATION_LEASE": "1",
           "PGAQ_PROPAGATION_BATCH": "50", "PGAQ_PROPAGATION_BACKOFF_BASE": "0.05"}
    proc: asyncio.subprocess.Process | None = None
    try:
        await propagation_link(c, r, remote_dsn)
        s = Session(c)
        ids: list[str] = []
        for i in range(0, 3000, 500):
            ids += await s.enqueue_array("oe.out_q", [(i.to_bytes(4, "big"), None)] * 500)
        await c.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', 'eu', latency => 0)")
        kills = 0
        while True:
            proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "pgaq_services.propagator", env=env)
            arrived = await r.fetchval("SELECT count(*) FROM oe.in_t")
            if kills >= 4 or arrived >= len(ids):
                break
            # let it get going, then kill it in the middle of whatever it is doing
            for _ in range(400):
                if await r.fetchval("SELECT count(*) FROM oe.in_t") > arrived:
                    break
                await asyncio.sleep(0.01)
            proc.send_signal(signal.SIGKILL)
            await proc.wait()
            proc = None
            kills += 1
        for _ in range(600):  # the last one finishes the backlog
            if await r.fetchval("SELECT count(*) FROM oe.in_t") >= len(ids):
                break
            await asyncio.sleep(0.05)
        got = await r.fetch("SELECT original_msgid FROM oe.aq$in_t")
        assert len(got) == len(ids), (len(got), kills)
        assert sorted(x["original_msgid"] for x in got) == sorted(ids)  # each exactly once
        assert kills >= 1
        for _ in range(200):  # and the source knows they all went
            if await c.fetchval("SELECT count(*) FROM oe.aq$_out_t_r WHERE state = 0") == 0:
                break
            await asyncio.sleep(0.05)
        assert await c.fetchval("SELECT count(*) FROM oe.aq$_out_t_r WHERE state = 0") == 0
    finally:
        if proc is not None and proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), 30)
        await c.close()
        await r.close()


async def _poll(conn: asyncpg.Connection, sql: str, timeout: float = 30.0) -> float:
    """Until the query is true (another process: nothing of ours to wait on but the
    database); returns the seconds it took."""
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    while not await conn.fetchval(sql):
        assert loop.time() - t0 < timeout, sql
        await asyncio.sleep(0.02)
    return loop.time() - t0


def _propagator(db_dsn: str, name: str, **env: str) -> Awaitable[asyncio.subprocess.Process]:
    return asyncio.create_subprocess_exec(
        sys.executable, "-m", "pgaq_services.propagator",
        env={**os.environ, "PGAQ_DSN": db_dsn, "PGAQ_LOG_LEVEL": "ERROR", "PGAQ_PROPAGATOR_NAME": name,
             "PGAQ_PROPAGATION_BACKOFF_BASE": "0.05", **env})


async def test_a_survivor_takes_over_a_killed_propagators_schedules(db_dsn: str, remote_dsn: str) -> None:
    """Two propagator processes share four schedules; one is SIGKILLed in the middle of a
    batch (its remote enqueue held up by a lock). Once its leases run out the other runs
    all four, and every message arrives exactly once."""
    c = await asyncpg.connect(db_dsn)
    r = await asyncpg.connect(remote_dsn)
    blocker = await asyncpg.connect(remote_dsn)
    procs: list[asyncio.subprocess.Process] = []
    try:
        await r.execute("""
            CREATE SCHEMA oe;
            CALL dbms_aqadm.create_queue_table('oe.in_t', 'RAW');
            CALL dbms_aqadm.create_queue('oe.in_a', 'oe.in_t'); CALL dbms_aqadm.start_queue('oe.in_a');
            CALL dbms_aqadm.create_queue_table('oe.in_bt', 'RAW');
            CALL dbms_aqadm.create_queue('oe.in_b', 'oe.in_bt'); CALL dbms_aqadm.start_queue('oe.in_b');
        """)
        await c.execute("CREATE SCHEMA oe; CALL dbms_aqadm.create_queue_table('oe.src_t', 'RAW', "
                        "multiple_consumers => true)")
        await c.execute("CALL aq.create_database_link('eu', $1)", remote_dsn)
        s = Session(c)
        ids: list[str] = []
        for i in range(4):  # the first two schedules (the victim's) to oe.in_a, the others to oe.in_b
            dest = "oe.in_a@eu" if i < 2 else "oe.in_b@eu"
            await c.execute(f"CALL dbms_aqadm.create_queue('oe.s{i}', 'oe.src_t'); "
                            f"CALL dbms_aqadm.start_queue('oe.s{i}'); "
                            f"CALL dbms_aqadm.add_subscriber('oe.s{i}', sys.aq$_agent(NULL, '{dest}', 0))")
            ids += await s.enqueue_array(f"oe.s{i}", [(i.to_bytes(4, "big"), None)] * 300)
            await c.execute(f"CALL dbms_aqadm.schedule_propagation('oe.s{i}', 'eu', latency => 0)")
        # oe.in_a takes no rows for now: the victim's first batch hangs half done
        blocking = blocker.transaction()
        await blocking.start()
        await blocker.execute("LOCK TABLE oe.in_t IN SHARE MODE")
        lease = {"PGAQ_PROPAGATION_LEASE": "1", "PGAQ_PROPAGATION_BATCH": "50"}
        procs.append(await _propagator(db_dsn, "victim", PGAQ_PROPAGATION_MAX_SCHEDULES="2", **lease))
        await _poll(c, "SELECT count(*) = 2 FROM aq.schedules WHERE lease_owner = 'victim'")
        await _poll(r, "SELECT count(*) >= 1 FROM pg_stat_activity WHERE datname = current_database() "
                       "AND wait_event_type = 'Lock'")
        procs.append(await _propagator(db_dsn, "survivor", **lease))
        await _poll(r, "SELECT count(*) = 600 FROM oe.in_bt")  # the survivor's own two
        procs[0].send_signal(signal.SIGKILL)
        await procs[0].wait()
        await blocking.commit()  # the dead propagator's remote enqueue may now commit, or not
        took = await _poll(c, "SELECT count(*) = 4 FROM aq.schedules WHERE lease_owner = 'survivor'")
        print(f"takeover after SIGKILL: {took:.2f} s")
        assert took < 10.0, took  # the lease (1 s) and a claim round, on a loaded machine
        await _poll(r, f"SELECT (SELECT count(*) FROM oe.in_t) + (SELECT count(*) FROM oe.in_bt) >= {len(ids)}",
                    timeout=120)
        got = await r.fetch("SELECT original_msgid FROM oe.aq$in_t UNION ALL SELECT original_msgid FROM oe.aq$in_bt")
        assert len(got) == len(ids)
        assert sorted(x["original_msgid"] for x in got) == sorted(ids)  # none lost, none twice
        await _poll(c, "SELECT count(*) = 0 FROM oe.aq$_src_t_r WHERE state = 0")
        assert await c.fetchval("SELECT sum(total_number) FROM aq.schedules") == len(ids)
    finally:
        for p in procs:
            if p.returncode is None:
                p.send_signal(signal.SIGTERM)
                await asyncio.wait_for(p.wait(), 30)
        await blocker.close()
        await c.close()
        await r.close()


async def test_a_window_closes_and_reopens(db_dsn: str) -> None:
    """A propagator process and a schedule of 1.5 s windows whose next_time is an
    expression its (non-administrator) owner wrote: a message enqueued while the window is
    closed waits for the next one."""
    c = await asyncpg.connect(db_dsn)
    role = f"win_{os.getpid()}"
    proc: asyncio.subprocess.Process | None = None
    a: asyncpg.Connection | None = None
    try:
        await c.execute(f'CREATE ROLE "{role}" LOGIN; CREATE SCHEMA al AUTHORIZATION "{role}"')
        a = await asyncpg.connect(db_dsn.replace("postgres@", f"{role}@"))
        await a.execute("""
            CALL dbms_aqadm.create_queue_table('al.out_t', 'RAW', multiple_consumers => true);
            CALL dbms_aqadm.create_queue('al.out_q', 'al.out_t'); CALL dbms_aqadm.start_queue('al.out_q');
            CALL dbms_aqadm.create_queue_table('al.in_t', 'RAW');
            CALL dbms_aqadm.create_queue('al.in_q', 'al.in_t'); CALL dbms_aqadm.start_queue('al.in_q');
            CALL dbms_aqadm.add_subscriber('al.out_q', sys.aq$_agent(NULL, 'al.in_q', 0));
            CALL dbms_aqadm.schedule_propagation('al.out_q', duration => 1.5,
                 next_time => 'now() + interval ''2 seconds''', latency => 0);
        """)
        first = await Session(a).enqueue("al.out_q", b"first")
        proc = await _propagator(db_dsn, "windows")
        await _poll(a, "SELECT count(*) = 1 FROM al.in_t")
        # the first window closes: the next one is 2 s after its end (the owner's expression)
        await _poll(c, "SELECT window_start > now() FROM aq.schedules")
        closed_at = await c.fetchval("SELECT clock_timestamp()")
        second = await Session(a).enqueue("al.out_q", b"second")
        await _poll(a, "SELECT count(*) = 2 FROM al.in_t")
        rows = await c.fetch("SELECT window_start, started_at, messages FROM aq.propagation_log "
                             "WHERE event = 'BATCH' ORDER BY id")
        assert [x["messages"] for x in rows] == [1, 1]
        w1, w2 = rows[0]["window_start"], rows[1]["window_start"]
        assert w2 - w1 >= timedelta(seconds=3.4)  # 1.5 s of window, then 2 s
        assert rows[1]["started_at"] >= w2 > closed_at  # it waited for the window
        assert rows[1]["started_at"] < w2 + timedelta(seconds=1.5)
        got = await a.fetch("SELECT original_msgid FROM al.aq$in_t ORDER BY enq_time")
        assert [x["original_msgid"] for x in got] == [first, second]
        assert await c.fetchval("SELECT count(*) FROM aq.propagation_log WHERE event <> 'BATCH'") == 0
    finally:
        if proc is not None and proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), 30)
        if a is not None:
            await a.close()
        await c.execute(f'DROP OWNED BY "{role}" CASCADE; DROP ROLE IF EXISTS "{role}"')
        await c.close()
