"""The propagator as a process, SIGKILLed again and again while it moves a backlog to a
second database: afterwards every message is at the destination exactly once."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import asyncpg
from pgaq.engine import Session


async def test_kill_9_during_batches_loses_and_duplicates_nothing(db_dsn: str, remote_dsn: str) -> None:
    c = await asyncpg.connect(db_dsn)
    r = await asyncpg.connect(remote_dsn)
    env = {**os.environ, "PGAQ_DSN": db_dsn, "PGAQ_LOG_LEVEL": "ERROR", "PGAQ_PROPAGATION_LEASE": "1",
           "PGAQ_PROPAGATION_BATCH": "50", "PGAQ_PROPAGATION_BACKOFF_BASE": "0.05"}
    proc: asyncio.subprocess.Process | None = None
    try:
        await c.execute("""
            CREATE SCHEMA oe;
            CALL dbms_aqadm.create_queue_table('oe.out_t', 'RAW', multiple_consumers => true);
            CALL dbms_aqadm.create_queue('oe.out_q', 'oe.out_t'); CALL dbms_aqadm.start_queue('oe.out_q');
            CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q@eu', 0));
        """)
        await r.execute("""
            CREATE SCHEMA oe;
            CALL dbms_aqadm.create_queue_table('oe.in_t', 'RAW');
            CALL dbms_aqadm.create_queue('oe.in_q', 'oe.in_t'); CALL dbms_aqadm.start_queue('oe.in_q');
        """)
        await c.execute("CALL aq.create_database_link('eu', $1)", remote_dsn)
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
