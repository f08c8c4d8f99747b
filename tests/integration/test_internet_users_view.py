"""SYSTEM.AQ$INTERNET_USERS (Oracle Streams Advanced Queuing User's Guide and Reference, Release
10.1, chapter 17 "Internet Access to Oracle Streams AQ", Table 17-7): the AQ agents, the
protocols they are enabled for and the database users they map to; every row to an AQ
administrator, to any other user only the rows that map an agent to itself."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest

COLUMNS = ["agent_name", "db_username", "http_enabled", "smtp_enabled", "ftp_enabled"]
# the names Oracle scripts use, unquoted (PostgreSQL folds them to lower case)
NAMES = ("SYSTEM.AQ$INTERNET_USERS", "AQ$INTERNET_USERS", "system.aq$internet_users",
         "aq$internet_users")


async def as_role(dsn: str, role: str) -> asyncpg.Connection:
    return await asyncpg.connect(dsn.replace("postgres@", f"{role}@"))


async def rows(conn: asyncpg.Connection, name: str = "SYSTEM.AQ$INTERNET_USERS") -> list[tuple[object, ...]]:
    got = await conn.fetch(f"SELECT * FROM {name} ORDER BY agent_name, db_username")
    return [tuple(r.values()) for r in got]


@pytest.fixture
async def roles(conn: asyncpg.Connection) -> AsyncIterator[dict[str, str]]:
    """Login roles: two plain users (buyer, seller), an AQ administrator, a user mapped to
    no agent, and a member of the seller role."""
    tag = uuid.uuid4().hex[:8]
    made = {k: f"{k}_{tag}" for k in ("buyer", "seller", "admin", "nobody", "clerk")}
    for name in made.values():
        await conn.execute(f'CREATE ROLE "{name}" LOGIN')
    await conn.execute(f'GRANT aq_administrator_role TO "{made["admin"]}"')
    await conn.execute(f'GRANT "{made["seller"]}" TO "{made["clerk"]}"')
    # the agents of Table 17-7: SCOTT maps to two users, BOOKSTORE to none (and no HTTP)
    await conn.execute("CALL dbms_aqadm.create_aq_agent('scott', enable_http => true)")
    await conn.execute("CALL dbms_aqadm.create_aq_agent('aqadmin', enable_http => true, enable_smtp => true)")
    await conn.execute("CALL dbms_aqadm.create_aq_agent('bookstore')")
    await conn.execute("CALL dbms_aqadm.enable_db_access('scott', $1)", made["buyer"])
    await conn.execute("CALL dbms_aqadm.enable_db_access('scott', $1)", made["seller"])
    await conn.execute("CALL dbms_aqadm.enable_db_access('aqadmin', $1)", made["seller"])
    yield made
    for name in made.values():
        await conn.execute(f'DROP OWNED BY "{name}" CASCADE')
        await conn.execute(f'DROP ROLE IF EXISTS "{name}"')


async def test_columns_are_oracles(conn: asyncpg.Connection, roles: dict[str, str]) -> None:
    cols = await conn.fetch(
        "SELECT column_name FROM information_schema.columns "
        "WHERE table_schema = 'system' AND table_name = 'aq$internet_users' ORDER BY ordinal_position")
    assert [c["column_name"] for c in cols] == COLUMNS


async def test_administrator_sees_every_row(db_dsn: str, roles: dict[str, str]) -> None:
    buyer, seller = roles["buyer"], roles["seller"]
    expected = sorted([
        ("AQADMIN", seller, "YES", "YES", "NO"),
        ("BOOKSTORE", None, "NO", "NO", "NO"),  # Table 17-7's "bookstore - NO"
        ("SCOTT", buyer, "YES", "NO", "NO"),
        ("SCOTT", seller, "YES", "NO", "NO"),
    ], key=lambda r: (r[0], r[1] or ""))
    admin = await as_role(db_dsn, roles["admin"])
    try:
        for name in NAMES:
            assert await rows(admin, name) == expected, name
    finally:
        await admin.close()


async def test_user_sees_only_its_own_rows(db_dsn: str, roles: dict[str, str]) -> None:
    buyer, seller = roles["buyer"], roles["seller"]
    c = await as_role(db_dsn, buyer)
    try:
        for name in NAMES:
            assert await rows(c, name) == [("SCOTT", buyer, "YES", "NO", "NO")], name
    finally:
        await c.close()
    c = await as_role(db_dsn, seller)
    try:
        for name in NAMES:
            assert await rows(c, name) == [("AQADMIN", seller, "YES", "YES", "NO"),
                                           ("SCOTT", seller, "YES", "NO", "NO")], name
        # the buyer's mapping and the unmapped agent stay hidden, however asked
        assert await c.fetchval("SELECT count(*) FROM aq$internet_users WHERE db_username = $1", buyer) == 0
        assert await c.fetchval("SELECT count(*) FROM aq$internet_users WHERE agent_name = 'BOOKSTORE'") == 0
    finally:
        await c.close()


async def test_member_of_a_mapped_role_sees_its_rows(db_dsn: str, roles: dict[str, str]) -> None:
    """A user holding the mapped role's privileges (a member of it) sees that mapping."""
    c = await as_role(db_dsn, roles["clerk"])
    try:
        assert [r[:2] for r in await rows(c)] == [("AQADMIN", roles["seller"]), ("SCOTT", roles["seller"])]
    finally:
        await c.close()


async def test_unmapped_user_sees_nothing(db_dsn: str, roles: dict[str, str]) -> None:
    c = await as_role(db_dsn, roles["nobody"])
    try:
        for name in NAMES:
            assert await rows(c, name) == [], name
        # nor through the tables behind the view
        assert await c.fetch("SELECT * FROM aq.agents") == []
        assert await c.fetch("SELECT * FROM aq.agent_db_access") == []
    finally:
        await c.close()


async def test_hidden_rows_do_not_leak_through_a_function(db_dsn: str, roles: dict[str, str]) -> None:
    """security_barrier: a cheap function of the caller's in WHERE runs only on the rows the
    caller may see, so it cannot print the others."""
    c = await as_role(db_dsn, roles["buyer"])
    seen: list[str] = []
    c.add_log_listener(lambda _c, msg: seen.append(msg.message))
    try:
        await c.execute("""
            CREATE FUNCTION pg_temp.peek(text) RETURNS boolean LANGUAGE plpgsql COST 0.0000001 AS
            $$ BEGIN RAISE NOTICE 'saw %', $1; RETURN true; END $$""")
        got = await c.fetch("SELECT agent_name FROM aq$internet_users WHERE pg_temp.peek(agent_name || '/' || coalesce(db_username, '-'))")
        assert [r["agent_name"] for r in got] == ["SCOTT"]
        await c.execute("SELECT 1")  # notices arrive before the command completes
        assert seen == [f"saw SCOTT/{roles['buyer']}"]
    finally:
        await c.close()


async def test_view_is_read_only(db_dsn: str, roles: dict[str, str]) -> None:
    c = await as_role(db_dsn, roles["buyer"])
    try:
        with pytest.raises(asyncpg.PostgresError):
            await c.execute("DELETE FROM system.aq$internet_users")
        with pytest.raises(asyncpg.PostgresError):
            await c.execute("INSERT INTO aq$internet_users (agent_name) VALUES ('MALLORY')")
    finally:
        await c.close()


async def test_follows_enable_and_disable_db_access(conn: asyncpg.Connection, db_dsn: str,
                                                    roles: dict[str, str]) -> None:
    buyer = roles["buyer"]
    c = await as_role(db_dsn, buyer)
    try:
        await conn.execute("CALL dbms_aqadm.enable_db_access('bookstore', $1)", buyer)
        assert [r[0] for r in await rows(c)] == ["BOOKSTORE", "SCOTT"]
        await conn.execute("CALL dbms_aqadm.disable_db_access('scott', $1)", buyer)
        assert await rows(c) == [("BOOKSTORE", buyer, "NO", "NO", "NO")]
        # a mapping whose role is gone is not an error for anyone reading the view
        await conn.execute("CREATE ROLE gone_role_x")
        await conn.execute("CALL dbms_aqadm.enable_db_access('bookstore', 'gone_role_x')")
        await conn.execute("DROP ROLE gone_role_x")
        assert await rows(c) == [("BOOKSTORE", buyer, "NO", "NO", "NO")]
        assert ("BOOKSTORE", "gone_role_x", "NO", "NO", "NO") in await rows(conn)
    finally:
        await c.close()
