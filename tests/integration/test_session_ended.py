"""A session the server ends (pg_terminate_backend) or will not start (every connection
taken) reads as ConnectionLost, so callers retry; a refusal carries Oracle's code (the
pressure cell `exhaust`, docs/chaos.md, found it a QueueError with no code, which waits
and batched writers do not retry)."""

from __future__ import annotations

import asyncio
import os

import asyncpg
import pytest
from pgaq import Session
from pgaq.db import create_pool
from pgaq.errors import ConnectionLost

from .waiting import until


async def test_a_statement_whose_backend_is_terminated_is_a_lost_connection(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    victim = await asyncpg.connect(db_dsn, server_settings={"application_name": "victim"})
    try:
        s = Session(victim)
        pid = victim.get_server_pid()
        running = asyncio.ensure_future(s.run("ON_COMMIT", lambda c: c.fetchval("SELECT pg_sleep(60)")))
        await until(lambda: conn.fetchval(  # the statement is running: terminate it mid-way
            "SELECT wait_event = 'PgSleep' FROM pg_stat_activity WHERE pid = $1", pid), "the sleep")
        assert await conn.fetchval("SELECT pg_terminate_backend($1)", pid)
        with pytest.raises(ConnectionLost) as lost:
            await asyncio.wait_for(running, 30)
        assert "administrator command" in lost.value.message
    finally:
        await victim.close()


async def test_no_connection_left_is_refused_at_once_with_oracles_code(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    role = f"full_{os.getpid()}"
    await conn.execute(f"CREATE ROLE {role} LOGIN CONNECTION LIMIT 0")
    try:
        dsn = db_dsn.replace("postgres@", f"{role}@", 1)
        with pytest.raises(ConnectionLost) as refused:
            await asyncio.wait_for(create_pool(dsn, min_size=1, max_size=1, timeout=5), 10)
        assert refused.value.ora == "ORA-02391"
        pool = await create_pool(dsn, min_size=0, max_size=1, timeout=5)
        try:
            with pytest.raises(ConnectionLost) as pooled:  # a pooled Session's first call
                await asyncio.wait_for(Session(None, pool=pool).queue_id("none.q"), 10)
            assert pooled.value.ora == "ORA-02391"
        finally:
            await pool.close()
    finally:
        await conn.execute(f"DROP ROLE {role}")
