"""IMMEDIATE visibility from SQL: the operation is its own transaction, as in Oracle, even
inside the caller's transaction block (an autonomous session through dblink)."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
from pgaq.web import db_health

from .helpers import make_queue

ENQ = ("CALL dbms_aq.enqueue(queue_name => $1, enqueue_options => dbms_aq.enqueue_options("
       "visibility => 'IMMEDIATE'), payload => $2::bytea, msgid => NULL)")
DEQ = ("CALL dbms_aq.dequeue(queue_name => 's.q', dequeue_options => dbms_aq.dequeue_options("
       "visibility => 'IMMEDIATE', wait => 0), payload => NULL::bytea, msgid => NULL)")


@pytest.fixture
async def client(conn: asyncpg.Connection, db_dsn: str) -> AsyncIterator[asyncpg.Connection]:
    """A plain SQL user with ENQUEUE/DEQUEUE on s.q (no superuser powers)."""
    await make_queue(conn, "s.q")
    role = f"imm_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{role}" LOGIN')
    await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('ALL', 's.q', '{role}')")
    c = await asyncpg.connect(db_dsn.replace("postgres@", f"{role}@"))
    try:
        yield c
    finally:
        await c.close()
        await conn.execute(f'DROP OWNED BY "{role}" CASCADE')
        await conn.execute(f'DROP ROLE "{role}"')


async def test_immediate_enqueue_survives_rollback(conn: asyncpg.Connection, client: asyncpg.Connection) -> None:
    tx = client.transaction()
    await tx.start()
    row = await client.fetchrow(ENQ, "s.q", b"\x01")
    # committed already: another session sees it while the caller's transaction is open
    assert await conn.fetchval("SELECT count(*) FROM s.aq$qt WHERE msg_state = 'READY'") == 1
    await tx.rollback()
    got = await conn.fetchrow("SELECT msg_id, enq_user_id, user_data FROM s.aq$qt")
    assert got is not None and got["user_data"] == b"\x01"
    assert got["msg_id"] == row["msgid"].hex().upper()
    assert got["enq_user_id"] == client.get_settings().session_authorization  # the caller, not the link


async def test_immediate_remove_survives_rollback(conn: asyncpg.Connection, client: asyncpg.Connection) -> None:
    await conn.execute(ENQ, "s.q", b"\x02")
    tx = client.transaction()
    await tx.start()
    row = await client.fetchrow(DEQ)
    assert row["payload"] == b"\x02"
    await tx.rollback()
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0  # removed for good
    assert await conn.fetchval("SELECT count(*) FROM aq.pending_attempts") == 0  # not a failed attempt


async def test_on_commit_still_joins_the_transaction(conn: asyncpg.Connection, client: asyncpg.Connection) -> None:
    async with client.transaction():
        await client.execute("CALL dbms_aq.enqueue(queue_name => 's.q', payload => '\\x03'::bytea, msgid => NULL)")
        assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 1


async def test_immediate_errors_and_privileges_are_the_callers(
    conn: asyncpg.Connection, client: asyncpg.Connection
) -> None:
    await make_queue(conn, "s.other", "s.ot")  # no privilege granted on this one
    async with client.transaction():
        with pytest.raises(asyncpg.PostgresError, match="ORA-01031"):
            await client.execute(ENQ, "s.other", b"\x04")
    async with client.transaction():
        with pytest.raises(asyncpg.PostgresError, match="ORA-24010"):
            await client.execute(ENQ, "s.nosuch", b"\x04")
    async with client.transaction():
        with pytest.raises(asyncpg.PostgresError, match="ORA-25228"):
            await client.execute(DEQ)
    # the link was not given to the caller: its connection is out of the caller's reach
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await client.fetchval("SELECT aq.dblink_exec('aq_attempts', 'SELECT 1')")
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0 and await conn.fetchval("SELECT count(*) FROM s.ot") == 0


async def test_immediate_waiting_on_the_callers_own_lock_fails_cleanly(
    conn: asyncpg.Connection, client: asyncpg.Connection
) -> None:
    await conn.execute("SET pgaq.autonomous_lock_timeout = '200ms'")
    await conn.execute(ENQ, "s.q", b"\x05")
    async with conn.transaction():
        # the link is another session: it would wait for ever for the caller's lock
        await conn.execute("LOCK TABLE s.qt IN ACCESS EXCLUSIVE MODE")
        with pytest.raises(asyncpg.PostgresError, match="ORA-25236"):
            await conn.execute(DEQ)


async def test_without_dblink_immediate_is_refused(
    conn: asyncpg.Connection, client: asyncpg.Connection, db_dsn: str
) -> None:
    await conn.execute("DROP EXTENSION dblink")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=1)
    try:  # core's /health says so
        assert json.loads((await db_health(pool, features="core_features")).text or "") == \
            {"status": "ok", "dblink": False}
    finally:
        await pool.close()
    async with client.transaction():
        with pytest.raises(asyncpg.FeatureNotSupportedError, match="ORA-25236"):
            await client.execute(ENQ, "s.q", b"\x06")
    with pytest.raises(asyncpg.FeatureNotSupportedError, match="ORA-25236"):
        await client.execute(DEQ)
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0
    # ON_COMMIT needs no link
    await client.execute("CALL dbms_aq.enqueue(queue_name => 's.q', payload => '\\x07'::bytea, msgid => NULL)")
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 1
