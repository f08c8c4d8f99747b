"""Agents, database access and queue privileges, enforced by PostgreSQL itself."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
from pgaq import DequeueOptions, MessageProperties, Session
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


# --- plain SQL, as the brief's scripts would do it -----------------------------------------

ENQ = "SELECT aq.enqueue_array($1, '[{}]', NULL, ARRAY['\\x01'::bytea])"


async def ora(awaitable: object) -> int:
    with pytest.raises(asyncpg.PostgresError) as err:
        await awaitable  # type: ignore[misc]
    m = re.search(r"ORA-(\d{5})", str(err.value))
    assert m, f"no ORA code in {err.value!r}"
    return int(m.group(1))


@pytest.fixture
async def role2(conn: asyncpg.Connection) -> AsyncIterator[str]:
    name = f"bob_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{name}" LOGIN')
    yield name
    await conn.execute(f'DROP OWNED BY "{name}" CASCADE')
    await conn.execute(f'DROP ROLE "{name}"')


async def test_agent_admin_rules(conn: asyncpg.Connection, role: str, db_dsn: str) -> None:
    await conn.execute("CALL dbms_aqadm.create_aq_agent('ann', password => 'pw1')")
    await conn.execute("CALL dbms_aqadm.alter_aq_agent('ANN', password => 'pw2', enable_smtp => true)")
    assert not await conn.fetchval("SELECT aq.verify_agent_password('ann', 'pw1')")
    assert await conn.fetchval("SELECT aq.verify_agent_password('ann', 'pw2')")
    assert not await conn.fetchval("SELECT aq.verify_agent_password('ann', NULL)")
    assert not await conn.fetchval("SELECT aq.verify_agent_password(NULL, 'pw2')")
    assert not await conn.fetchval("SELECT aq.verify_agent_password('x''; DROP TABLE y', 'pw2')")
    # an agent without a password never authenticates
    await conn.execute('CALL dbms_aqadm.create_aq_agent(\'"nopw"\')')
    assert not await conn.fetchval("SELECT aq.verify_agent_password('\"nopw\"', '')")
    # unknown agents cost one bcrypt comparison too
    t0 = time.perf_counter()
    await conn.fetchval("SELECT aq.verify_agent_password('ann', 'wrong')")
    known = time.perf_counter() - t0
    t0 = time.perf_counter()
    await conn.fetchval("SELECT aq.verify_agent_password('nobody_at_all', 'wrong')")
    unknown = time.perf_counter() - t0
    assert unknown > known * 0.4, (known, unknown)
    assert await ora(conn.execute("CALL dbms_aqadm.alter_aq_agent('ghost', enable_http => true)")) == 24088
    assert await ora(conn.execute("CALL dbms_aqadm.drop_aq_agent('ghost')")) == 24088
    assert await ora(conn.execute("CALL dbms_aqadm.create_aq_agent('x; DROP TABLE y')")) == 24047
    assert await ora(conn.execute("CALL dbms_aqadm.create_aq_agent('e', password => '')")) == 24031
    assert await ora(conn.execute("CALL dbms_aqadm.enable_db_access('ann', 'x; DROP TABLE y')")) == 25200
    assert await ora(conn.execute("CALL dbms_aqadm.enable_db_access('ann', '\"Ghost\"')")) == 1918
    assert await ora(conn.execute("CALL dbms_aqadm.enable_db_access('ghost', $1)", role)) == 24088
    assert await ora(conn.execute("CALL dbms_aqadm.disable_db_access('ann', $1)", role)) == 24093
    # unquoted database user names fold like PostgreSQL identifiers
    await conn.execute("CALL dbms_aqadm.enable_db_access('ann', $1)", role.upper())
    rows = await conn.fetch("SELECT * FROM aq.\"aq$internet_users\" ORDER BY agent_name")
    assert [tuple(r) for r in rows] == [
        ("ANN", role, "NO", "YES", "NO"), ("nopw", None, "NO", "NO", "NO")]
    alice = await as_role(db_dsn, role)
    try:
        # not an administrator: only the agents mapped to her visible, none manageable
        assert [tuple(r) for r in await alice.fetch('SELECT * FROM "aq$internet_users"')] == [
            ("ANN", role, "NO", "YES", "NO")]
        assert await alice.fetch("SELECT * FROM aq.agents") == []
        for sql in ("CALL dbms_aqadm.alter_aq_agent('ann', password => 'mine')",
                    "CALL dbms_aqadm.drop_aq_agent('ann')",
                    f"CALL dbms_aqadm.enable_db_access('ann', '{role}')",
                    f"CALL dbms_aqadm.disable_db_access('ann', '{role}')"):
            assert await ora(alice.execute(sql)) == 1031, sql
    finally:
        await alice.close()
    # an AQ administrator manages agents and sees them
    await conn.execute(f'GRANT aq_administrator_role TO "{role}"')
    alice = await as_role(db_dsn, role)
    try:
        await alice.execute("CALL dbms_aqadm.create_aq_agent('by_admin', password => 'p')")
        assert await alice.fetchval("SELECT aq.verify_agent_password('by_admin', 'p')")
        assert await alice.fetchval('SELECT count(*) FROM "aq$internet_users"') == 3
    finally:
        await alice.close()
        await conn.execute(f'REVOKE aq_administrator_role FROM "{role}"')


async def test_plain_sql_privileges(conn: asyncpg.Connection, role: str, db_dsn: str) -> None:
    await conn.execute("""
        CREATE SCHEMA s;
        CALL dbms_aqadm.create_queue_table(queue_table => 's.qt', queue_payload_type => 'RAW');
        CALL dbms_aqadm.create_queue(queue_name => 's.q', queue_table => 's.qt');
        CALL dbms_aqadm.start_queue(queue_name => 's.q');
    """)
    await conn.fetchval(ENQ, "s.q")  # the owner's message
    alice = await as_role(db_dsn, role)
    try:
        assert await ora(alice.fetchval(ENQ, "s.q")) == 1031
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await alice.fetch("SELECT * FROM s.qt")
        await conn.execute("CALL dbms_aqadm.grant_queue_privilege('enqueue', 's.q', $1)", role)
        await alice.fetchval(ENQ, "s.q")
        # ENQUEUE does not allow browsing: only the rows of one's own transaction are visible
        assert await alice.fetch("SELECT * FROM s.qt") == []
        async with alice.transaction():
            await alice.fetchval(ENQ, "s.q")
            assert await alice.fetchval("SELECT count(*) FROM s.qt") == 1
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await alice.execute("UPDATE s.qt SET priority = 5")
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await alice.execute("DELETE FROM s.qt")
        # no INSERT into another queue of the table, not even the exception queue
        with pytest.raises(asyncpg.PostgresError):
            await alice.execute(
                "INSERT INTO s.qt (q_name, msgid, ready_time, enq_seq, enq_time, user_data)"
                " VALUES ('aq$_qt_e', '\\x00', now(), 0, now(), '\\x00')")
        assert await ora(alice.fetch("SELECT * FROM aq.dequeue_array('s.q')")) == 1031
        await conn.execute("CALL dbms_aqadm.grant_queue_privilege('DEQUEUE', 's.q', $1)", role)
        rows = await alice.fetch("SELECT * FROM aq.dequeue_array('s.q', p_batch => 10)")
        assert len(rows) == 3
        await conn.execute("CALL dbms_aqadm.revoke_queue_privilege('DEQUEUE', 's.q', $1)", role)
        assert await ora(alice.fetch("SELECT * FROM aq.dequeue_array('s.q')")) == 1031
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await alice.execute("DELETE FROM s.qt")
        await alice.fetchval(ENQ, "s.q")   # ENQUEUE is still there
        await conn.execute("CALL dbms_aqadm.revoke_queue_privilege('ENQUEUE', 's.q', $1)", role)
        assert await ora(alice.fetchval(ENQ, "s.q")) == 1031
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await alice.fetch("SELECT * FROM s.qt")
    finally:
        await alice.close()
    # nothing of the role is left on the table
    acl = await conn.fetchval("SELECT relacl::text FROM pg_class WHERE oid = 's.qt'::regclass")
    assert role not in (acl or "")
    assert await ora(conn.execute(
        "CALL dbms_aqadm.revoke_queue_privilege('ENQUEUE', 's.q', $1)", role)) == 1927


async def test_multi_consumer_grouped_and_exception_moves(conn: asyncpg.Connection, role: str,
                                                         role2: str, db_dsn: str) -> None:
    await make_queue(conn, "s.mq", "s.mqt", multiple=True, grouping="TRANSACTIONAL", max_retries=0)
    await conn.execute("CALL dbms_aqadm.add_subscriber('s.mq', sys.aq$_agent('C1', NULL, NULL))")
    await conn.execute("CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 's.mq', $1)", role)
    await conn.execute("CALL dbms_aqadm.grant_queue_privilege('DEQUEUE', 's.mq', $1)", role2)
    producer = await as_role(db_dsn, role)
    consumer = await as_role(db_dsn, role2)
    try:
        async with producer.transaction():   # grouping updates the group's rows: own rows only
            await producer.fetchval(ENQ, "s.mq")
            await producer.fetchval(ENQ, "s.mq")
        await producer.fetchval(
            "SELECT aq.enqueue_array('s.mq', '[{\"recipient_list\": [{\"name\": \"C2\"}]}]',"
            " NULL, ARRAY['\\x02'::bytea])")
        assert await producer.fetch('SELECT * FROM s."aq$_mqt_r"') == []
        assert await ora(consumer.fetchval(ENQ, "s.mq")) == 1031
        got = await consumer.fetch("SELECT * FROM aq.dequeue_array('s.mq', 'c1', p_batch => 10)")
        assert len(got) == 2
        # a failed attempt past max_retries moves the message to the exception queue
        await consumer.execute("SELECT aq.record_failed_attempts('s.mq', 'c2', ARRAY(SELECT msgid FROM s.mqt))")
        assert await conn.fetchval("SELECT q_name FROM s.mqt WHERE user_data = '\\x02'") == "aq$_mqt_e"
        # it still sees (read only) what failed out of its queue, not what the producer sent
        assert await consumer.fetchval("SELECT count(*) FROM s.mqt WHERE user_data = '\\x02'") == 1
        assert await consumer.fetchval(
            "UPDATE s.mqt SET priority = 9 WHERE user_data = '\\x02' RETURNING 1") is None
        await conn.execute("CALL dbms_aqadm.start_queue('s.aq$_mqt_e', enqueue => false)")
        assert await ora(consumer.fetch("SELECT * FROM aq.dequeue_array('s.aq$_mqt_e')")) == 1031
    finally:
        await producer.close()
        await consumer.close()


async def test_grant_option(conn: asyncpg.Connection, role: str, role2: str, db_dsn: str) -> None:
    await make_queue(conn)
    await conn.execute("CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 's.q', $1, true)", role)
    alice = await as_role(db_dsn, role)
    bob = await as_role(db_dsn, role2)
    try:
        assert await ora(alice.execute(
            "CALL dbms_aqadm.grant_queue_privilege('DEQUEUE', 's.q', $1)", role2)) == 1031
        assert await ora(alice.execute(
            "CALL dbms_aqadm.grant_queue_privilege('ALL', 's.q', $1)", role2)) == 1031
        await alice.execute("CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 's.q', $1)", role2)
        await bob.fetchval(ENQ, "s.q")
        assert await ora(bob.execute(
            "CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 's.q', $1)", role)) == 1031
        # only the grantor (or the schema's managers) revokes
        assert await ora(bob.execute(
            "CALL dbms_aqadm.revoke_queue_privilege('ENQUEUE', 's.q', $1)", role)) == 1927
        await alice.execute("CALL dbms_aqadm.revoke_queue_privilege('ENQUEUE', 's.q', $1)", role2)
        assert await ora(bob.fetchval(ENQ, "s.q")) == 1031
        assert await ora(alice.execute("CALL dbms_aqadm.create_queue('s.q2', 's.qt')")) == 1031
        # writing the catalog directly passes on no more than the grant holds
        qid = await conn.fetchval("SELECT id FROM aq.queues WHERE queue_name = 'q'")
        with pytest.raises(asyncpg.InsufficientPrivilegeError):  # DEQUEUE for itself
            await alice.execute("UPDATE aq.queue_privileges SET dequeue = true WHERE grantee = $1", role)
        with pytest.raises(asyncpg.InsufficientPrivilegeError):  # DEQUEUE for someone else
            await alice.execute("INSERT INTO aq.queue_privileges (queue_id, grantee, enqueue, dequeue) "
                                "VALUES ($1, $2, false, true)", qid, role2)
        with pytest.raises(asyncpg.InsufficientPrivilegeError):  # in another's name
            await alice.execute("INSERT INTO aq.queue_privileges (queue_id, grantee, enqueue, grantor) "
                                "VALUES ($1, $2, true, 'postgres')", qid, role2)
        row = await conn.fetchrow("SELECT enqueue, dequeue FROM aq.queue_privileges WHERE grantee = $1", role)
        assert tuple(row) == (True, False)
    finally:
        await alice.close()
        await bob.close()


async def test_acl_belongs_to_aq(conn: asyncpg.Connection, role: str, role2: str) -> None:
    await make_queue(conn)
    await conn.execute(f'GRANT SELECT, TRUNCATE ON s.qt TO "{role2}"')
    await conn.execute("CALL dbms_aqadm.grant_queue_privilege('ALL', 's.q', $1)", role)
    acl = "SELECT relacl::text FROM pg_class WHERE oid = 's.qt'::regclass"
    first = await conn.fetchval(acl)
    assert role2 not in first and role in first
    await conn.execute("SELECT aq.apply_queue_grants(id) FROM aq.queue_tables")
    assert await conn.fetchval(acl) == first
    pols = await conn.fetch("SELECT polname FROM pg_policy WHERE polrelid = 's.qt'::regclass ORDER BY 1")
    assert [p["polname"] for p in pols] == ["aq_delete_v2", "aq_insert_v3", "aq_select_v2", "aq_update_v2"]
    assert not await conn.fetchval("SELECT relforcerowsecurity FROM pg_class WHERE oid = 's.qt'::regclass")


async def test_system_privilege_errors(conn: asyncpg.Connection, role: str, db_dsn: str) -> None:
    await make_queue(conn)
    assert await ora(conn.execute("CALL dbms_aqadm.grant_system_privilege('SELECT_ANY', $1)", role)) == 24100
    assert await ora(conn.execute("CALL dbms_aqadm.grant_system_privilege('ENQUEUE_ANY', 'x; DROP TABLE y')")) == 25200
    assert await ora(conn.execute("CALL dbms_aqadm.grant_system_privilege('ENQUEUE_ANY', 'no_such_role_q')")) == 1918
    assert await ora(conn.execute("CALL dbms_aqadm.revoke_system_privilege('ENQUEUE_ANY', $1)", role)) == 1952
    assert await ora(conn.execute("CALL dbms_aqadm.grant_queue_privilege('READ', 's.q', $1)", role)) == 24100
    assert await ora(conn.execute(
        "CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 's.q; DROP TABLE y', $1)", role)) == 25200
    assert await ora(conn.execute(
        "CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 's.q', 'x; DROP TABLE y')")) == 25200
    assert await ora(conn.execute(
        "CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 's.q', '\"a\"\"b\"')")) == 1918
    assert await ora(conn.execute("CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 's.nope', $1)", role)) == 24010
    assert await conn.fetchval("SELECT count(*) FROM aq.queue_privileges") == 0
    alice = await as_role(db_dsn, role)
    try:
        assert await ora(alice.execute(
            "CALL dbms_aqadm.grant_system_privilege('ENQUEUE_ANY', $1)", role)) == 1031
        assert await ora(alice.execute(
            "CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 's.q', $1)", role)) == 1031
    finally:
        await alice.close()
    # MANAGE_ANY: an AQ administrator enqueues, dequeues and grants on any queue
    await conn.execute("CALL dbms_aqadm.grant_system_privilege('MANAGE_ANY', $1)", role)
    alice = await as_role(db_dsn, role)
    try:
        await alice.fetchval(ENQ, "s.q")
        assert len(await alice.fetch("SELECT * FROM aq.dequeue_array('s.q')")) == 1
        await alice.execute("CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 's.q', $1)", role)
    finally:
        await alice.close()
        await conn.execute("CALL dbms_aqadm.revoke_system_privilege('MANAGE_ANY', $1)", role)


async def test_transformation_validation(conn: asyncpg.Connection, role: str, db_dsn: str) -> None:
    await conn.execute("""
        CREATE SCHEMA s;
        CREATE TYPE s.v1 AS (name text);
        CREATE TYPE s.v2 AS (name text, upper_name text);
        CREATE FUNCTION s.v1_to_v2(x s.v1) RETURNS s.v2 LANGUAGE sql IMMUTABLE
          AS $$ SELECT ROW(x.name, upper(x.name))::s.v2 $$;
        CREATE FUNCTION s.two(x s.v1, y int) RETURNS s.v2 LANGUAGE sql IMMUTABLE
          AS $$ SELECT ROW(x.name, NULL)::s.v2 $$;
        CREATE FUNCTION s.raw_to_v2(x bytea) RETURNS s.v2 LANGUAGE sql IMMUTABLE
          AS $$ SELECT ROW(encode(x, 'hex'), NULL)::s.v2 $$;
    """)
    ct = "CALL dbms_transform.create_transformation($1, $2, $3, $4, $5, $6, $7)"
    assert await ora(conn.execute(ct, "s", "t", "s", "v1", "s", "v2", "s.nope")) == 24184
    assert await ora(conn.execute(ct, "s", "t", "s", "v1", "s", "v2", "s.two")) == 24184
    assert await ora(conn.execute(ct, "s", "t", "s", "v2", "s", "v2", "s.v1_to_v2")) == 24184
    assert await ora(conn.execute(ct, "s", "t", "s", "nope", "s", "v2", "s.v1_to_v2")) == 902
    assert await ora(conn.execute(ct, "s", "t; DROP TABLE y", "s", "v1", "s", "v2", "s.v1_to_v2")) == 25200
    assert await ora(conn.execute(ct, "s", "t", "s", "v1", "s", "v2", "s.v1_to_v2(x); DROP TABLE y")) == 25200
    # Oracle's expression form and RAW
    await conn.execute(ct, "S", "T", "S", "V1", "S", "V2", "s.v1_to_v2(source.user_data)")
    await conn.execute(ct, "s", "r", None, "RAW", "s", "v2", "s.raw_to_v2")
    rows = await conn.fetch("SELECT name, from_type::text, to_type::text, function_name::text"
                            " FROM aq.transformations ORDER BY name")
    assert [tuple(r) for r in rows] == [("r", "bytea", "s.v2", "s.raw_to_v2"),
                                        ("t", "s.v1", "s.v2", "s.v1_to_v2")]
    assert await ora(conn.execute(ct, "s", "t", "s", "v1", "s", "v2", "s.v1_to_v2")) == 24181
    assert await ora(conn.execute(
        "CALL dbms_transform.modify_transformation('s', 't', 0, 's.two')")) == 24184
    assert await ora(conn.execute("CALL dbms_transform.drop_transformation('s', 'nope')")) == 24185
    alice = await as_role(db_dsn, role)
    try:
        assert await ora(alice.execute(ct, "s", "u", "s", "v1", "s", "v2", "s.v1_to_v2")) == 1031
        assert await ora(alice.execute("CALL dbms_transform.drop_transformation('s', 't')")) == 1031
    finally:
        await alice.close()
    await conn.execute("CALL dbms_transform.drop_transformation('s', 't')")
    assert await conn.fetchval("SELECT count(*) FROM aq.transformations") == 1


async def test_dictionary_views_per_role(conn: asyncpg.Connection, role: str, db_dsn: str) -> None:
    await make_queue(conn, "s.qa")
    await make_queue(conn, "s.qb", create_table=False)
    await conn.execute("CALL dbms_aqadm.alter_queue('s.qb', retention_time => 3600, comment => 'b')")
    s = Session(conn)
    await s.enqueue("s.qa", b"a")
    await s.enqueue("s.qb", b"b")
    await s.enqueue("s.qb", b"b", MessageProperties(delay=3600))
    depths = {(r["queue_name"], r["state"]): r["messages"] for r in await conn.fetch("SELECT * FROM aq.queue_depths")}
    assert depths == {("qa", "READY"): 1, ("qb", "READY"): 1, ("qb", "WAIT"): 1}
    qb = await conn.fetchrow("SELECT * FROM aq.dba_queues WHERE name = 'qb'")
    assert (qb["retention"], qb["user_comment"], qb["network_name"]) == ("3600", "b", None)
    names = {r["name"] for r in await conn.fetch("SELECT name FROM user_queues")}
    assert names == {"qa", "qb", "aq$_qt_e"}
    await conn.execute("CALL dbms_aqadm.grant_queue_privilege('DEQUEUE', 's.qa', $1)", role)
    alice = await as_role(db_dsn, role)
    try:
        assert await alice.fetch("SELECT * FROM user_queues") == []
        assert await alice.fetch("SELECT * FROM user_queue_tables") == []
        assert [r["name"] for r in await alice.fetch("SELECT name FROM all_queues")] == ["qa"]
        assert [r["queue_table"] for r in await alice.fetch("SELECT * FROM all_queue_tables")] == ["qt"]
        assert await alice.fetchval("SELECT count(*) FROM dba_queues") == 3
        got = [tuple(r) for r in await alice.fetch("SELECT queue_name, state, messages FROM aq.queue_depths")]
        assert got == [("qa", "READY", 1)]
    finally:
        await alice.close()
    t = await conn.fetchrow("SELECT * FROM user_queue_tables")
    assert (t["type"], t["object_type"], t["recipients"], t["compatible"]) == ("RAW", None, "SINGLE", "10.0.0")


async def test_a_dropped_grantee_does_not_break_access_checks(conn: asyncpg.Connection) -> None:
    import uuid as _uuid

    from pgaq import Session as _Session

    from .helpers import make_queue as _make_queue

    await _make_queue(conn, "s.q9", "s.qt9")
    gone = f"gone_{_uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{gone}"')
    await conn.execute("CALL dbms_aqadm.grant_queue_privilege('ALL', 's.q9', $1)", gone)
    await conn.execute(f'DROP OWNED BY "{gone}"; DROP ROLE "{gone}"')
    nobody = f"nobody_{_uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{nobody}"')
    try:
        q = await conn.fetchval(
            "SELECT aq.has_access_as(aq.resolve_queue('s.q9'), 'ENQUEUE', $1)", nobody)
        assert q is False
        await _Session(conn).enqueue("s.q9", b"still works")
    finally:
        await conn.execute(f'DROP ROLE "{nobody}"')


async def test_role_set_inside_the_fast_statement(conn: asyncpg.Connection, role: str,
                                                  db_dsn: str) -> None:
    """A session with `role` on a privileged pool runs an autocommit fast-path call as one
    statement that sets the role itself: the role's privileges apply, the message records
    the role as its enqueuer, and the pooled connection is back to its own user after."""
    await make_queue(conn, "s.qa")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=1)
    try:
        s = Session(None, pool=pool, role=role)
        for visibility in ("IMMEDIATE", "ON_COMMIT"):  # no transaction: both autocommit
            with pytest.raises(PgaqError) as err:
                await s.enqueue("s.qa", b"x", visibility=visibility)
            assert err.value.code == 1031
            with pytest.raises(PgaqError) as err:
                await s.enqueue("s.qa", b"x", MessageProperties(correlation="c", exception_queue="s.aq$_qt_e"),
                                visibility=visibility)
            assert err.value.code == 1031
            with pytest.raises(PgaqError) as err:
                await s.dequeue("s.qa", DequeueOptions(visibility=visibility, correlation="c", wait=0))
            assert err.value.code == 1031
            with pytest.raises(PgaqError) as err:
                await s.dequeue("s.qa", DequeueOptions(visibility=visibility, wait=0))
            assert err.value.code == 1031
        await conn.execute("CALL dbms_aqadm.grant_queue_privilege('ALL', 's.qa', $1)", role)
        await s.enqueue("s.qa", b"one", visibility="IMMEDIATE")
        await s.enqueue_array("s.qa", [(b"two", None), (b"three", None)], visibility="IMMEDIATE")
        assert await conn.fetchval("SELECT array_agg(DISTINCT enq_uid) FROM s.qt") == [role]
        # the general paths (a correlation, a transformation...) set the role the same way
        await s.enqueue("s.qa", b"four", MessageProperties(correlation="c4",
                        exception_queue="s.aq$_qt_e"), visibility="IMMEDIATE")
        got = await s.dequeue("s.qa", DequeueOptions(visibility="IMMEDIATE", correlation="c4", wait=0))
        assert [m.payload for m in got] == [b"four"]
        assert await conn.fetchval("SELECT deq_uid FROM s.qt WHERE corrid = 'c4'") in (role, None)
        got = await s.dequeue("s.qa", DequeueOptions(visibility="IMMEDIATE", batch_size=5, wait=0))
        assert [m.payload for m in got] == [b"one", b"two", b"three"]
        async with pool.acquire() as c:
            assert await c.fetchval("SELECT current_user") == "postgres"
    finally:
        await pool.close()
