"""Agents, database access and queue privileges, enforced by PostgreSQL itself."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
from pgaq.engine import DequeueOptions, Session
from pgaq.errors import PgaqError

from .helpers import make_queue


@pytest.fixture
async def role(conn: asyncpg.Connection) -> AsyncIterator[str]:
    name = f"alice_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{name}" LOGIN')
    yield name
    await conn.execute(f'DROP OWNED BY "{name}" CASCADE')
    await conn.execute(f'DROP ROLE "{name}"')


async def as_role(db_dsn: str, role: str) -> asyncpg.Connection:
    return await asyncpg.connect(db_dsn.replace("postgres@", f"{role}@"))


async def test_agents(conn: asyncpg.Connection, role: str, db_dsn: str) -> None:
    await conn.execute("CALL dbms_aqadm.create_aq_agent('john', enable_http => true, password => 's3cret')")
    h = await conn.fetchval("SELECT password_hash FROM aq.agents WHERE name = 'JOHN'")
    assert h.startswith("$2") and "s3cret" not in h
    assert await conn.fetchval("SELECT aq.verify_agent_password('JOHN', 's3cret')")
    assert not await conn.fetchval("SELECT aq.verify_agent_password('john', 'wrong')")
    assert not await conn.fetchval("SELECT aq.verify_agent_password('nobody', 's3cret')")
    await conn.execute("CALL dbms_aqadm.enable_db_access('john', $1)", role)
    rows = await conn.fetch('SELECT * FROM "aq$internet_users"')
    assert [(r["agent_name"], r["db_username"], r["http_enabled"]) for r in rows] == [("JOHN", role, "YES")]
    with pytest.raises(asyncpg.PostgresError, match="ORA-01918"):
        await conn.execute("CALL dbms_aqadm.enable_db_access('john', 'no_such_role_x')")
    with pytest.raises(asyncpg.PostgresError, match="ORA-24089"):
        await conn.execute("CALL dbms_aqadm.create_aq_agent('JOHN')")
    await conn.execute("CALL dbms_aqadm.alter_aq_agent('john', enable_http => false)")
    assert not await conn.fetchval("SELECT enable_http FROM aq.agents WHERE name = 'JOHN'")
    await conn.execute("CALL dbms_aqadm.disable_db_access('john', $1)", role)
    await conn.execute("CALL dbms_aqadm.drop_aq_agent('john')")
    assert await conn.fetchval("SELECT count(*) FROM aq.agents") == 0
    alice = await as_role(db_dsn, role)
    try:
        with pytest.raises(asyncpg.PostgresError, match="ORA-01031"):
            await alice.execute("CALL dbms_aqadm.create_aq_agent('sneaky')")
        with pytest.raises(asyncpg.PostgresError):
            await alice.fetchval("SELECT aq.verify_agent_password('x', 'y')")
    finally:
        await alice.close()


async def test_queue_privileges_are_enforced(conn: asyncpg.Connection, role: str, db_dsn: str) -> None:
    await make_queue(conn, "s.qa")
    await make_queue(conn, "s.qb", create_table=False)
    s = Session(conn)
    await s.enqueue("s.qa", b"a")
    await s.enqueue("s.qb", b"b")
    alice_conn = await as_role(db_dsn, role)
    alice = Session(alice_conn)
    try:
        with pytest.raises(PgaqError) as err:
            await alice.enqueue("s.qa", b"x")
        assert err.value.code == 1031
        with pytest.raises(asyncpg.PostgresError):
            await alice_conn.fetch("SELECT * FROM s.qt")
        await conn.execute("CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 's.qa', $1)", role)
        await alice.enqueue("s.qa", b"from alice")
        with pytest.raises(PgaqError) as err:
            await alice.dequeue("s.qa")
        assert err.value.code == 1031
        await conn.execute("CALL dbms_aqadm.grant_queue_privilege('DEQUEUE', 's.qa', $1)", role)
        got = await alice.dequeue("s.qa", DequeueOptions(batch_size=10))
        assert [m.payload for m in got] == [b"a", b"from alice"]
        # per-queue isolation inside one queue table, even with plain SQL
        rows = await alice_conn.fetch("SELECT q_name FROM s.qt")
        assert {r["q_name"] for r in rows} <= {"qa"}
        assert await alice_conn.fetchval("DELETE FROM s.qt WHERE q_name = 'qb' RETURNING 1") is None
        with pytest.raises(PgaqError) as err:
            await alice.dequeue("s.qb")
        assert err.value.code == 1031
        await conn.execute("CALL dbms_aqadm.revoke_queue_privilege('ALL', 's.qa', $1)", role)
        with pytest.raises(PgaqError):
            await alice.enqueue("s.qa", b"x")
        with pytest.raises(asyncpg.PostgresError):
            await alice_conn.fetch("SELECT * FROM s.qt")
    finally:
        await alice_conn.close()
    assert await conn.fetchval("SELECT count(*) FROM s.qt WHERE q_name = 'qb'") == 1


async def test_system_privileges(conn: asyncpg.Connection, role: str, db_dsn: str) -> None:
    await make_queue(conn)
    await conn.execute("CALL dbms_aqadm.grant_system_privilege('ENQUEUE_ANY', $1)", role)
    alice_conn = await as_role(db_dsn, role)
    try:
        await Session(alice_conn).enqueue("s.q", b"any")
        with pytest.raises(PgaqError):
            await Session(alice_conn).dequeue("s.q")
        await conn.execute("CALL dbms_aqadm.grant_system_privilege('DEQUEUE_ANY', $1)", role)
        assert len(await Session(alice_conn).dequeue("s.q")) == 1
    finally:
        await alice_conn.close()
        await conn.execute("CALL dbms_aqadm.revoke_system_privilege('ENQUEUE_ANY', $1)", role)
        await conn.execute("CALL dbms_aqadm.revoke_system_privilege('DEQUEUE_ANY', $1)", role)


async def test_transformations(conn: asyncpg.Connection) -> None:
    await conn.execute("""
        CREATE SCHEMA s;
        CREATE TYPE s.v1 AS (name text);
        CREATE TYPE s.v2 AS (name text, upper_name text);
        CREATE FUNCTION s.v1_to_v2(x s.v1) RETURNS s.v2 LANGUAGE sql IMMUTABLE
          AS $$ SELECT ROW(x.name, upper(x.name))::s.v2 $$;
        CREATE FUNCTION s.v2_to_v1(x s.v2) RETURNS s.v1 LANGUAGE sql IMMUTABLE
          AS $$ SELECT ROW(x.upper_name)::s.v1 $$;
    """)
    await make_queue(conn, payload="s.v2")
    await conn.execute("CALL dbms_transform.create_transformation('s', 'up', 's', 'v1', 's', 'v2', 's.v1_to_v2')")
    await conn.execute("CALL dbms_transform.create_transformation('s', 'down', 's', 'v2', 's', 'v1', 's.v2_to_v1')")
    with pytest.raises(asyncpg.PostgresError, match="ORA-24184"):
        await conn.execute("CALL dbms_transform.create_transformation('s', 'bad', 's', 'v1', 's', 'v2', 's.v2_to_v1')")
    s = Session(conn)
    await s.enqueue("s.q", {"name": "ada"}, transformation="s.up")
    [m] = await s.dequeue("s.q", DequeueOptions(dequeue_mode="BROWSE"))
    assert m.payload == {"name": "ada", "upper_name": "ADA"}
    [m] = await s.dequeue("s.q", DequeueOptions(transformation="s.down", navigation="FIRST_MESSAGE"))
    assert m.payload == {"name": "ADA"}


async def test_dictionary_views(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True, retention=-1)
    q = await conn.fetchrow("SELECT * FROM dba_queues WHERE name = 'q'")
    assert (q["owner"], q["queue_table"], q["queue_type"], q["enqueue_enabled"], q["retention"]) == (
        "s", "qt", "NORMAL_QUEUE", "YES", "FOREVER")
    t = await conn.fetchrow("SELECT * FROM dba_queue_tables")
    assert (t["recipients"], t["type"], t["sort_order"]) == ("MULTIPLE", "RAW", "ENQ_TIME")
    assert await conn.fetchval("SELECT count(*) FROM all_queues") == 2
    depths = await conn.fetch("SELECT * FROM aq.queue_depths")
    assert depths == []
