"""Privilege escalation between agents and roles: an agent mapped to role A, or role A in
plain SQL, gets nothing of role B's queues and none of the administrator's powers until
an administrator grants it, and loses it again on revoke. Refusals are ORA errors and
leave the catalog exactly as it was."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator

import aiohttp
import asyncpg
import pytest

from tests.integration.gateway_support import envelope, op

from .support import Site, as_role, basic, catalog_digest, receive, send_raw

ALICE = basic("ALICE", "alice-pw-7Qz")


async def post(url: str, auth: str, body: bytes) -> tuple[int, bytes]:
    async with aiohttp.ClientSession() as http, \
            http.post(url, data=body, headers={"Content-Type": "text/xml", "Authorization": auth}) as r:
        return r.status, await r.read()


def error_code(body: bytes) -> str | None:
    m = re.search(rb"<error_code>(\d+)</error_code>", body)
    return m.group(1).decode() if m else None


def register(queue: str, url: str = "http://127.0.0.1:9/x") -> bytes:
    return envelope(op("AQXmlRegister",
        f"<register_options><destination>{queue}</destination><consumer_name>X</consumer_name>"
        f"<notify_url>{url}</notify_url></register_options><AQXmlCommit/>"))


async def test_an_agent_reaches_only_its_roles_queues_until_granted(site: Site,
                                                                   conn: asyncpg.Connection) -> None:
    s, body = await post(site.url, basic("BOB", "bob-pw-4Kx"), send_raw("B.Q", "B0"))
    assert s == 200, body
    before = await catalog_digest(conn)
    for doc in (send_raw("B.Q"), receive("B.Q"), register("B.Q"),
                send_raw(f"{site.role_b}.Q"), send_raw("b.q")):
        s, body = await post(site.url, ALICE, doc)
        assert s == 500 and error_code(body) in ("1031", "24010"), body
    assert await conn.fetchval("SELECT count(*) FROM b.qt") == 1  # BOB's message, untouched
    assert await catalog_digest(conn) == before
    # an administrator grants ENQUEUE on b.q to A: ALICE may send there, not receive
    await conn.execute("CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 'b.q', $1)", site.role_a)
    await conn.execute(f'GRANT USAGE ON SCHEMA b TO "{site.role_a}"')
    # a grant shows within the gateway's 2 s metadata cache (a refusal is cached that long)
    s, body = await granted(site.url, send_raw("B.Q", "A0"))
    assert s == 200, body
    s, body = await post(site.url, ALICE, receive("B.Q"))
    assert s == 500 and error_code(body) == "1031", body
    await conn.execute("CALL dbms_aqadm.grant_queue_privilege('DEQUEUE', 'b.q', $1)", site.role_a)
    s, body = await granted(site.url, receive("B.Q"))
    assert s == 200 and b"<message_count>1</message_count>" in body, body
    # a revoke holds at once: the operation runs as the role, PostgreSQL checks it
    await conn.execute("CALL dbms_aqadm.revoke_queue_privilege('ALL', 'b.q', $1)", site.role_a)
    for doc in (send_raw("B.Q"), receive("B.Q")):
        s, body = await post(site.url, ALICE, doc)
        assert s == 500 and error_code(body) == "1031", body
    assert await conn.fetchval("SELECT count(*) FROM b.qt WHERE state = 0") == 1


async def granted(url: str, doc: bytes, within: float = 5.0) -> tuple[int, bytes]:
    started = time.monotonic()
    while True:
        s, body = await post(url, ALICE, doc)
        if s == 200 or time.monotonic() - started > within:
            return s, body
        await asyncio.sleep(0.05)


ADMIN_CALLS = [
    ("CALL dbms_aqadm.create_queue_table('b.evil_qt', 'RAW')", ()),
    ("CALL dbms_aqadm.create_queue('b.evil', 'b.qt')", ()),
    ("CALL dbms_aqadm.drop_queue('b.q')", ()),
    ("CALL dbms_aqadm.stop_queue('b.q')", ()),
    ("CALL dbms_aqadm.alter_queue('b.q', max_retries => 1)", ()),
    ("CALL dbms_aqadm.drop_queue_table('b.qt', force => true)", ()),
    ("CALL dbms_aqadm.add_subscriber('b.q', sys.aq$_agent('X', NULL, NULL))", ()),
    ("CALL dbms_aqadm.grant_queue_privilege('ALL', 'b.q', $1)", ("A",)),
    ("CALL dbms_aqadm.revoke_queue_privilege('ALL', 'a.q', $1)", ("A",)),
    ("CALL dbms_aqadm.grant_system_privilege('MANAGE_ANY', $1)", ("A",)),
    ("CALL dbms_aqadm.grant_system_privilege('ENQUEUE_ANY', $1)", ("A",)),
    ("CALL dbms_aqadm.create_aq_agent('EVE', enable_http => true, password => 'x')", ()),
    ("CALL dbms_aqadm.alter_aq_agent('BOB', password => 'mine-now')", ()),
    ("CALL dbms_aqadm.drop_aq_agent('BOB')", ()),
    ("CALL dbms_aqadm.enable_db_access('ALICE', $1)", ("B",)),
    ("CALL dbms_aqadm.disable_db_access('BOB', $1)", ("B",)),
    ("CALL dbms_aqadm.add_alias_to_ldap('evil', 'b.q')", ()),
    ("CALL dbms_aqadm.add_alias_to_ldap('evil', 'a.q')", ()),
    ("CALL dbms_aqadm.add_agent_alias('evil', sys.aq$_agent('BOB', NULL, NULL))", ()),
    ("CALL dbms_aqadm.del_alias_from_ldap('B_ALIAS')", ()),
    ("CALL dbms_aqadm.schedule_propagation('b.q', destination_queue => 'a.q')", ()),
    ("CALL aq.create_database_link('evil', 'postgresql://x@127.0.0.1/x')", ()),
    ("CALL aq.allow_notification_host('*')", ()),
    ("CALL aq.allow_notification_host('0.0.0.0/0')", ()),
    ("CALL aq.set_max_registrations(1000000)", ()),
    ("CALL dbms_aqelm.set_mailhost('127.0.0.1')", ()),
    ("SELECT aq.verify_agent_password('BOB', 'bob-pw-4Kx')", ()),
]


@pytest.fixture
async def alice_sql(site: Site, db_dsn: str) -> AsyncIterator[asyncpg.Connection]:
    c = await as_role(db_dsn, site.role_a)
    yield c
    await c.close()


async def test_a_sql_role_cannot_call_what_it_has_no_right_to(
        site: Site, conn: asyncpg.Connection, alice_sql: asyncpg.Connection) -> None:
    await conn.execute("CALL dbms_aqadm.add_alias_to_ldap('B_ALIAS', 'b.q')")
    before = await catalog_digest(conn)
    roles = {"A": site.role_a, "B": site.role_b}
    passed = []
    for sql, args in ADMIN_CALLS:
        try:
            await alice_sql.execute(sql, *[roles[a] for a in args])
        except asyncpg.PostgresError as exc:
            # an ORA code of pgaq's, or PostgreSQL's own privilege error (42501)
            assert re.search(r"ORA-\d{5}", str(exc)) or exc.sqlstate == "42501", (sql, str(exc))
        else:
            passed.append(sql)
    assert passed == []
    assert await catalog_digest(conn) == before
    assert await conn.fetchval("SELECT to_regclass('b.qt') IS NOT NULL")


WRITES = [
    "INSERT INTO aq.agents (name, enable_http, password_hash) VALUES ('EVE', true, 'x')",
    "UPDATE aq.agents SET password_hash = NULL",
    "INSERT INTO aq.agent_db_access (agent_name, db_username) VALUES ('ALICE', '{B}')",
    "UPDATE aq.agent_db_access SET db_username = '{B}'",
    "INSERT INTO aq.queue_privileges SELECT * FROM aq.queue_privileges",
    "UPDATE aq.queues SET max_retries = 0 WHERE schema_name = 'b'",
    "DELETE FROM aq.queues WHERE schema_name = 'b'",
    "DELETE FROM aq.queue_tables WHERE schema_name = 'b'",
    "UPDATE aq.queues SET schema_name = 'b' WHERE schema_name = 'a'",  # moving into B's
    "UPDATE aq.queue_tables SET schema_name = 'b', table_name = 'qt' WHERE schema_name = 'a'",
    "UPDATE aq.registrations SET url = 'http://evil.example/'",
    "DELETE FROM aq.subscribers",
    "UPDATE aq.schedules SET owner = '{A}'",
    "INSERT INTO aq.notification_hosts (pattern, allow) VALUES ('*', true)",
    "UPDATE aq.notification_settings SET max_registrations = 1000000",
    "SELECT * FROM aq.db_links",
    "SELECT * FROM aq.callback_login",
    "SELECT password_hash FROM aq.agents",
    "UPDATE aq.directory SET queue_schema = 'a'",
    "DELETE FROM b.qt",
    "SELECT * FROM b.qt",
    "ALTER TABLE b.qt DISABLE ROW LEVEL SECURITY",
    "TRUNCATE aq.notifications",
]


async def test_a_sql_role_cannot_write_the_catalog_directly(
        site: Site, conn: asyncpg.Connection, alice_sql: asyncpg.Connection) -> None:
    """Refused outright, or (row security) affects no row; never a change. (A role may
    write the catalog rows of queues in its own schema, as it may drop its own tables:
    that harms only itself.)"""
    await conn.execute("CALL dbms_aqadm.add_alias_to_ldap('B_ALIAS', 'b.q')")
    before = await catalog_digest(conn)
    done = []
    for sql in WRITES:
        stmt = sql.replace("{A}", site.role_a).replace("{B}", site.role_b)
        try:
            result = await alice_sql.execute(stmt)
        except asyncpg.PostgresError:
            continue
        if not re.fullmatch(r"(UPDATE|DELETE|INSERT 0|SELECT) 0", result.strip()):
            done.append((stmt, result))
    assert done == [], "\n".join(map(str, done))
    assert await catalog_digest(conn) == before
