"""dbms_aqadm: Oracle's procedures, their validation and their all-or-nothing behaviour."""

from __future__ import annotations

import re

import asyncpg
import pytest

from .helpers import make_queue, subscribe


async def ora(conn: asyncpg.Connection, sql: str, *args: object) -> int:
    """Run `sql`, expecting an ORA-coded error; return its number."""
    with pytest.raises(asyncpg.PostgresError) as err:
        await conn.execute(sql, *args)
    m = re.search(r"ORA-(\d{5})", str(err.value))
    assert m, f"no ORA code in {err.value!r}"
    return int(m.group(1))


async def test_oracle_demo_setup_script(conn: asyncpg.Connection) -> None:
    await conn.execute(
        """
        CREATE ROLE aqxmladmn_demo LOGIN; CREATE SCHEMA aqxmladmn AUTHORIZATION aqxmladmn_demo;
        CREATE TYPE aqxmladmn.cars_typ AS (carno varchar(10), year numeric, model varchar(20),
          color varchar(10), car_details text, price numeric(12,2));
        CALL dbms_aqadm.create_queue_table(queue_table => 'aqxmladmn.cars_queue_tab',
          queue_payload_type => 'aqxmladmn.cars_typ', multiple_consumers => true);
        CALL dbms_aqadm.create_queue(queue_name => 'aqxmladmn.cars_q1',
          queue_table => 'aqxmladmn.cars_queue_tab');
        CALL dbms_aqadm.start_queue(queue_name => 'aqxmladmn.cars_q1');
        CALL dbms_aqadm.add_subscriber(queue_name => 'aqxmladmn.cars_q1',
          subscriber => sys.aq$_agent('DEALS', NULL, NULL), rule => 'tab.user_data.price > 30000');
        """
    )
    try:
        rows = await conn.fetch(
            "SELECT msg_id, msg_state, consumer_name FROM aqxmladmn.AQ$CARS_QUEUE_TAB"
        )
        assert rows == []
        owner = await conn.fetchval(
            "SELECT tableowner FROM pg_tables WHERE schemaname = 'aqxmladmn'"
            " AND tablename = 'cars_queue_tab'"
        )
        assert owner == "aqxmladmn_demo"
        subs = await conn.fetch("SELECT name, rule FROM aqxmladmn.aq$cars_queue_tab_r")
        assert [tuple(r) for r in subs] == [("DEALS", "tab.user_data.price > 30000")]
        exq = await conn.fetchval(
            "SELECT queue_type FROM aq.queues WHERE queue_name = 'aq$_cars_queue_tab_e'"
        )
        assert exq == "EXCEPTION_QUEUE"
    finally:
        await conn.execute("DROP SCHEMA aqxmladmn CASCADE; DROP OWNED BY aqxmladmn_demo;"
                           " DROP ROLE aqxmladmn_demo")


@pytest.mark.parametrize(
    "name",
    ["s.q; DROP TABLE x", "s.'q'", "s.q--", "a.b.c", "", "s.q/*x*/", '"unterminated', "1abc"],
)
async def test_hostile_queue_names_rejected(conn: asyncpg.Connection, name: str) -> None:
    await conn.execute("CREATE SCHEMA s")
    code = await ora(conn, "CALL dbms_aqadm.create_queue_table($1, 'RAW')", name)
    assert code in (25200, 24031)
    assert await conn.fetchval("SELECT count(*) FROM aq.queue_tables") == 0


async def test_quoted_names_are_data(conn: asyncpg.Connection) -> None:
    await conn.execute('CREATE SCHEMA s')
    await conn.execute("""CALL dbms_aqadm.create_queue_table('s."Odd; Name"', 'RAW')""")
    assert await conn.fetchval("""SELECT count(*) FROM s."Odd; Name" """) == 0


async def test_unknown_objects(conn: asyncpg.Connection) -> None:
    await conn.execute("CREATE SCHEMA s")
    assert await ora(conn, "CALL dbms_aqadm.create_queue('s.q', 's.nope')") == 24002
    assert await ora(conn, "CALL dbms_aqadm.start_queue('s.nope')") == 24010
    assert await ora(conn, "CALL dbms_aqadm.create_queue_table('s.t', 's.no_such_type')") == 902
    assert await ora(conn, "CALL dbms_aqadm.create_queue_table('s.t', 'integer')") == 902
    assert await ora(conn, "CALL dbms_aqadm.create_queue_table('nope.t', 'RAW')") == 1918


async def test_bad_arguments_leave_nothing(conn: asyncpg.Connection) -> None:
    await conn.execute("CREATE SCHEMA s")
    assert await ora(conn, "CALL dbms_aqadm.create_queue_table('s.t', 'RAW', sort_list => 'COLOR')") == 24005
    assert await ora(conn, "CALL dbms_aqadm.create_queue_table('s.t', 'RAW', message_grouping => 'X')") == 24005
    assert await conn.fetchval("SELECT count(*) FROM aq.queue_tables") == 0
    assert await conn.fetchval("SELECT to_regclass('s.t')") is None
    await make_queue(conn)
    assert await ora(conn, "CALL dbms_aqadm.create_queue_table('s.qt', 'RAW')") == 24001
    assert await ora(conn, "CALL dbms_aqadm.create_queue('s.q', 's.qt')") == 24006
    assert await ora(conn, "CALL dbms_aqadm.create_queue('s.q2', 's.qt', queue_type => 'WEIRD')") == 24005
    assert await ora(conn, "CALL dbms_aqadm.create_queue('s.q2', 's.qt', retention_time => -5)") == 24005
    assert await ora(conn, "CALL dbms_aqadm.alter_queue('s.q', max_retries => -1)") == 24005


async def test_subscribers_need_multi_consumer_queue(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    code = await ora(conn, "CALL dbms_aqadm.add_subscriber('s.q', sys.aq$_agent('A', NULL, NULL))")
    assert code == 24039
    code = await ora(conn, "CALL dbms_aqadm.add_subscriber('s.q', sys.aq$_agent('A', NULL, NULL), 'priority > 1')")
    assert code == 24039


async def test_subscriber_lifecycle(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "a")
    code = await ora(conn, "CALL dbms_aqadm.add_subscriber('s.q', sys.aq$_agent('A', NULL, NULL))")
    assert code == 24034
    code = await ora(conn, "CALL dbms_aqadm.add_subscriber('s.aq$_qt_e', sys.aq$_agent('B', NULL, NULL))")
    assert code == 24039
    code = await ora(conn, "CALL dbms_aqadm.add_subscriber('s.q', sys.aq$_agent(NULL, NULL, NULL))")
    assert code == 25216
    code = await ora(conn, "CALL dbms_aqadm.remove_subscriber('s.q', sys.aq$_agent('ZZ', NULL, NULL))")
    assert code == 24035
    await conn.execute("CALL dbms_aqadm.alter_subscriber('s.q', sys.aq$_agent('a', NULL, NULL), 'priority > 2')")
    assert await conn.fetchval("SELECT rule FROM s.aq$qt_r") == "priority > 2"
    await conn.execute("CALL dbms_aqadm.remove_subscriber('s.q', sys.aq$_agent('a', NULL, NULL))")
    assert await conn.fetchval("SELECT count(*) FROM s.aq$qt_s") == 0


async def test_drop_queue_and_table(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    assert await ora(conn, "CALL dbms_aqadm.drop_queue('s.q')") == 24011
    assert await ora(conn, "CALL dbms_aqadm.drop_queue_table('s.qt')") == 24005
    await conn.execute("CALL dbms_aqadm.stop_queue('s.q')")
    await conn.execute("CALL dbms_aqadm.drop_queue('s.q')")
    await conn.execute("CALL dbms_aqadm.drop_queue_table('s.qt')")
    assert await conn.fetchval("SELECT to_regclass('s.qt')") is None
    assert await conn.fetchval("SELECT count(*) FROM aq.queues") == 0
    await make_queue(conn)
    await conn.execute("CALL dbms_aqadm.drop_queue_table('s.qt', force => true)")
    assert await conn.fetchval("SELECT count(*) FROM aq.queue_tables") == 0
