"""The one-statement REMOVE (aq.fast_remove_sql) behaves exactly like the general path:
it applies only while the queue allows it, and otherwise leaves the call to the general
path, which raises the proper error or keeps the message for retention."""

from __future__ import annotations

import uuid

import asyncpg
import pytest
from pgaq import DequeueOptions, MessageProperties, Session
from pgaq.errors import PgaqError

from .helpers import make_queue


async def test_fast_remove_follows_queue_changes(conn: asyncpg.Connection) -> None:
    await make_queue(conn, sort_list="PRIORITY,ENQ_TIME")
    s = Session(conn)
    await s.enqueue_array("s.q", [(bytes([i]), MessageProperties(priority=5 - i)) for i in range(4)])
    assert (await s.fast_path("s.q")).remove is not None
    [m] = await s.dequeue("s.q")
    assert m.payload == b"\x03" and m.state == "PROCESSED"  # priority order
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 3  # deleted (retention 0)
    # stopped for dequeue: the general path's error, nothing removed
    await conn.execute("CALL dbms_aqadm.stop_queue('s.q', enqueue => false, dequeue => true)")
    with pytest.raises(PgaqError) as err:
        await s.dequeue("s.q")
    assert err.value.code == 25226
    await conn.execute("CALL dbms_aqadm.start_queue('s.q')")
    # a removed message leaves no position: the next REMOVE starts from the first message,
    # so one enqueued since with a higher priority comes first (as on the gateway's
    # batched route; a browsed or locked message does move NEXT_MESSAGE on)
    await s.enqueue("s.q", b"\x09", MessageProperties(priority=0))
    assert [m.payload for m in await s.dequeue("s.q")] == [b"\x09"]
    assert [m.payload for m in await s.dequeue("s.q")] == [b"\x02"]
    await s.enqueue("s.q", b"\x08", MessageProperties(priority=9))
    assert [m.payload for m in await s.dequeue("s.q")] == [b"\x01"]
    assert [m.payload for m in await s.dequeue("s.q")] == [b"\x00"]
    assert [m.payload for m in await s.dequeue("s.q")] == [b"\x08"]
    assert await s.dequeue("s.q") == []
    # (a wait wraps NEXT_MESSAGE to the start; 10 ms of it: a wait with no listener wired
    # waits, on the process's shared listening connection)
    assert await s.dequeue("s.q", DequeueOptions(wait=0.01)) == []
    assert (await s.fast_path("s.q")).remove is not None  # all of it on the fast path
    # a retention time set after the statement was cached: the message is kept PROCESSED,
    # and the session stops trying the statement on this queue
    await conn.execute("CALL dbms_aqadm.alter_queue('s.q', retention_time => 3600)")
    await s.enqueue("s.q", b"\x07")
    [m] = await s.dequeue("s.q", DequeueOptions(wait=None))
    assert m.payload == b"\x07"
    assert await conn.fetchval("SELECT msg_state FROM s.aq$qt WHERE msg_id = $1", m.msgid) == "PROCESSED"
    assert (await s.fast_path("s.q")).remove is None
    assert await s.dequeue("s.q", DequeueOptions(wait=0.01)) == []


async def test_single_enqueue_checks_its_values(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    s = Session(conn)
    mid = await s.enqueue("s.q", b"a", MessageProperties(priority=-3, correlation="c", delay=0))
    row = await conn.fetchrow("SELECT msg_priority, corr_id, msg_state, expiration FROM s.aq$qt WHERE msg_id = $1", mid)
    assert tuple(row) == (-3, "c", "READY", None)
    mid = await s.enqueue("s.q", b"b", MessageProperties(delay=60, expiration=5))
    row = await conn.fetchrow("SELECT msg_state, expiration FROM s.aq$qt WHERE msg_id = $1", mid)
    assert tuple(row) == ("WAIT", 5)
    for props, code in ((MessageProperties(delay=-1), 25208), (MessageProperties(expiration=-2), 25209),
                        (MessageProperties(correlation="x" * 129), 24005)):
        with pytest.raises(PgaqError) as err:
            await s.enqueue("s.q", b"c", props)
        assert err.value.code == code
    await conn.execute("CALL dbms_aqadm.stop_queue('s.q', enqueue => true, dequeue => false)")
    with pytest.raises(PgaqError) as err:
        await s.enqueue("s.q", b"d")
    assert err.value.code == 25207
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 2


async def test_fast_remove_checks_the_callers_privileges(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn)
    await Session(conn).enqueue_array("s.q", [(b"a", None), (b"b", None)])
    role = f"fr_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{role}" LOGIN')
    other = await asyncpg.connect(db_dsn.replace("postgres@", f"{role}@"))
    try:
        s = Session(other)
        with pytest.raises(PgaqError) as err:
            await s.dequeue("s.q")
        assert err.value.code == 1031
        await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('DEQUEUE', 's.q', '{role}')")
        assert [m.payload for m in await s.dequeue("s.q")] == [b"a"]
        await conn.execute(f"CALL dbms_aqadm.revoke_queue_privilege('DEQUEUE', 's.q', '{role}')")
        with pytest.raises(PgaqError) as err:
            await s.dequeue("s.q")
        assert err.value.code == 1031
        assert await conn.fetchval("SELECT count(*) FROM s.qt") == 1
    finally:
        await other.close()
        await conn.execute(f'DROP OWNED BY "{role}" CASCADE')
        await conn.execute(f'DROP ROLE "{role}"')


async def test_fast_remove_after_the_table_was_recreated(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    s = Session(conn)
    await s.enqueue("s.q", b"old")
    assert [m.payload for m in await s.dequeue("s.q")] == [b"old"]
    await conn.execute("CALL dbms_aqadm.drop_queue_table('s.qt', force => true)")
    await make_queue(conn)
    await s.enqueue("s.q", b"new")
    assert [m.payload for m in await s.dequeue("s.q")] == [b"new"]


async def test_fast_remove_for_a_role_switched_autocommit_session(conn: asyncpg.Connection, db_dsn: str) -> None:
    """A gateway's session acting as an agent's role (autocommit) takes the one-statement
    REMOVE too: the owner's function, checking the acting role, not the login's."""
    await make_queue(conn)
    await Session(conn).enqueue_array("s.q", [(b"a", None), (b"b", None), (b"c", None)])
    role = f"fr_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{role}"; GRANT USAGE ON SCHEMA s TO "{role}"')
    login = await asyncpg.connect(db_dsn)  # a superuser login acting as the role
    try:
        await login.execute("SET track_functions = 'all'")
        s = Session(login, role=role)
        fast = await s.fast_path("s.q")
        assert fast.remove_role is not None
        with pytest.raises(PgaqError) as err:
            await s.dequeue("s.q")
        assert err.value.code == 1031
        await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('DEQUEUE', 's.q', '{role}')")
        assert [m.payload for m in await s.dequeue("s.q")] == [b"a"]
        assert [m.payload for m in await s.dequeue("s.q")] == [b"b"]  # after the position
        assert await login.fetchval("SELECT current_user") == "postgres"  # the role ended with it
        await login.execute("SELECT pg_stat_force_next_flush()")
        calls = await login.fetchval(
            "SELECT calls FROM pg_stat_user_functions WHERE schemaname = 's' AND funcname = 'aq$_qt_rm1'")
        assert calls == 3  # the refused one (ok = false: the general path raised) and both REMOVEs
        # the function itself: nothing without an acting role, nothing for a role without DEQUEUE
        row = await login.fetchrow('SELECT * FROM s."aq$_qt_rm1"(\'q\', NULL)')
        assert (row["ok"], row["msgid"]) == (False, None)
        await conn.execute(f"CALL dbms_aqadm.revoke_queue_privilege('DEQUEUE', 's.q', '{role}')")
        with pytest.raises(PgaqError) as err:
            await s.dequeue("s.q")
        assert err.value.code == 1031
        async with login.transaction():
            await login.execute(f'SET LOCAL ROLE "{role}"')
            row = await login.fetchrow('SELECT * FROM s."aq$_qt_rm1"(\'q\', NULL)')
        assert (row["ok"], row["msgid"]) == (False, None)
        assert await conn.fetchval("SELECT count(*) FROM s.qt") == 1
    finally:
        await login.close()
        await conn.execute(f'DROP OWNED BY "{role}" CASCADE')
        await conn.execute(f'DROP ROLE "{role}"')
