"""The PL/SQL surface ported scripts call (issue 21 section 2): dbms_aq.dequeue_array and
dbms_aqadm.purge_queue_table, at the level their user meets them (CALL over a connection,
and PL/pgSQL blocks written as the Oracle ones are).

Oracle Streams Advanced Queuing User's Guide and Reference 10g Release 2 (10.2), "Introducing
Oracle Streams AQ", "Dequeue Features": "When dequeuing an array of messages from a queue, each
message shares the same dequeue options, but each message can have different message
properties"; "If you are dequeuing from a transactional queue, you can dequeue all the messages
for a transaction with a single call"; a consumer "may wait when trying to dequeue a message if
no message is available". Oracle's purge_queue_table removes what its purge_condition selects
over the AQ$<queue_table> view aliased qtview (NULL: everything); block => TRUE locks the queue
table so that every selected message goes, FALSE does not lock enqueuers out.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid

import asyncpg
import pytest
from pgaq import DequeueOptions, Session

from .helpers import make_queue, subscribe
from .waiting import connected, looked_again, until

ENQ_ARRAY = ("CALL dbms_aq.enqueue_array('s.q', NULL, cardinality($1::bytea[]),"
             " array_fill(NULL::dbms_aq.message_properties_t, ARRAY[cardinality($1::bytea[])]), $1::bytea[], NULL)")
DEQ_ARRAY = ("CALL dbms_aq.dequeue_array('s.q', dbms_aq.dequeue_options(consumer_name => $1, wait => $2,"
             " dequeue_mode => $3), $4, payload_array => NULL::bytea[])")
PURGE = "CALL dbms_aqadm.purge_queue_table($1, $2, dbms_aqadm.purge_options(block => $3))"


async def enqueue(conn: asyncpg.Connection, *payloads: bytes) -> list[bytes]:
    ids: list[bytes] = await conn.fetchval(ENQ_ARRAY, list(payloads))
    return ids


# -- dbms_aq.dequeue_array ---------------------------------------------------------------

async def test_dequeue_array_returns_up_to_array_size_in_queue_order(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    ids = await enqueue(conn, b"\x01", b"\x02", b"\x03", b"\x04", b"\x05")
    first = await conn.fetchrow(DEQ_ARRAY, None, 0, "REMOVE", 3)
    assert first["dequeued"] == 3
    assert first["payload_array"] == [b"\x01", b"\x02", b"\x03"]
    assert first["msgid_array"] == ids[:3]
    assert [p["state"] for p in first["message_properties_array"]] == [2, 2, 2]  # PROCESSED
    rest = await conn.fetchrow(DEQ_ARRAY, None, 0, "REMOVE", 10)  # fewer than asked: what there is
    assert (rest["dequeued"], rest["payload_array"], rest["msgid_array"]) == (2, [b"\x04", b"\x05"], ids[3:])
    with pytest.raises(asyncpg.PostgresError, match="ORA-25228"):
        await conn.execute(DEQ_ARRAY, None, 0, "REMOVE", 10)
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


async def test_each_message_keeps_its_own_properties(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    await conn.execute("""
        CALL dbms_aq.enqueue_array('s.q', NULL, 2,
             ARRAY[dbms_aq.message_properties(priority => 7, correlation => 'first'),
                   dbms_aq.message_properties(priority => 3, correlation => 'second')],
             ARRAY['\\x0a', '\\x0b']::bytea[], NULL)""")
    got = await conn.fetchrow(DEQ_ARRAY, None, 0, "BROWSE", 5)
    props = got["message_properties_array"]
    assert [(p["priority"], p["correlation"]) for p in props] == [(7, "first"), (3, "second")]
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 2  # browsed, still there


async def test_a_ported_plsql_block_with_an_object_payload(conn: asyncpg.Connection) -> None:
    """The Oracle block, BEGIN ... END kept as a DO block; the function's result is the
    last argument of the CALL."""
    await conn.execute("CREATE SCHEMA s; CREATE TYPE s.msg AS (id integer, body text)")
    await make_queue(conn, payload="s.msg", create_table=True)
    await conn.execute("""
        DO $$
        DECLARE
          enqopt   dbms_aq.enqueue_options_t;
          deqopt   dbms_aq.dequeue_options_t;
          props    dbms_aq.message_properties_t[];
          payloads s.msg[] := ARRAY[ROW(1, 'one'), ROW(2, 'two'), ROW(3, 'three')]::s.msg[];
          ids      bytea[];
          retval   integer;
        BEGIN
          CALL dbms_aq.enqueue_array(queue_name => 's.q', enqueue_options => enqopt, array_size => 3,
                                     message_properties_array => array_fill(NULL::dbms_aq.message_properties_t, ARRAY[3]),
                                     payload_array => payloads, msgid_array => ids);
          payloads := NULL;
          deqopt.wait := 0;
          CALL dbms_aq.dequeue_array(queue_name => 's.q', dequeue_options => deqopt, array_size => 2,
                                     message_properties_array => props, payload_array => payloads,
                                     msgid_array => ids, dequeued => retval);
          PERFORM set_config('test.result', json_build_object('n', retval, 'payloads', payloads,
                                                              'ids', cardinality(ids),
                                                              'props', cardinality(props))::text, false);
        END $$""")
    got = json.loads(await conn.fetchval("SELECT current_setting('test.result')"))
    assert got == {"n": 2, "payloads": [{"id": 1, "body": "one"}, {"id": 2, "body": "two"}],
                   "ids": 2, "props": 2}
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 1


async def test_multi_consumer_array_dequeue_takes_one_consumers_deliveries(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    await enqueue(conn, b"\x01", b"\x02", b"\x03")
    a = await conn.fetchrow(DEQ_ARRAY, "A", 0, "REMOVE", 10)
    assert a["payload_array"] == [b"\x01", b"\x02", b"\x03"]
    with pytest.raises(asyncpg.PostgresError, match="ORA-25228"):
        await conn.execute(DEQ_ARRAY, "A", 0, "REMOVE", 10)
    b = await conn.fetchrow(DEQ_ARRAY, "B", 0, "REMOVE", 2)
    assert b["payload_array"] == [b"\x01", b"\x02"]
    with pytest.raises(asyncpg.PostgresError, match="ORA-25231"):  # a consumer is needed
        await conn.execute(DEQ_ARRAY, None, 0, "REMOVE", 2)


async def test_array_dequeue_of_a_transaction_group_takes_that_group(conn: asyncpg.Connection) -> None:
    await make_queue(conn, grouping="TRANSACTIONAL")
    await enqueue(conn, b"\x01", b"\x02", b"\x03")  # one transaction: one group
    await enqueue(conn, b"\x04")
    got = await conn.fetchrow(DEQ_ARRAY, None, 0, "REMOVE", 10)
    assert got["payload_array"] == [b"\x01", b"\x02", b"\x03"]
    assert len({p["transaction_group"] for p in got["message_properties_array"]}) == 1


async def test_array_size_is_checked(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    for size in (0, -1, 10001):
        with pytest.raises(asyncpg.PostgresError, match="ORA-25240"):
            await conn.execute(DEQ_ARRAY, None, 0, "REMOVE", size)


async def test_dequeue_array_waits_for_a_commit(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn)
    async with connected(db_dsn) as waiter, connected(db_dsn) as producer:
        pid = waiter.get_server_pid()
        task = asyncio.create_task(waiter.fetchrow(DEQ_ARRAY, None, -1, "REMOVE", 10))
        await until(lambda: conn.fetchval(
            "SELECT wait_event = 'PgSleep' FROM pg_stat_activity WHERE pid = $1", pid), "the waiter to sleep")
        tx = producer.transaction()
        await tx.start()
        await enqueue(producer, b"\x01", b"\x02")
        # the waiter has looked since the uncommitted enqueue, and is still waiting
        await looked_again(conn, pid)
        assert not task.done()
        await tx.commit()
        got = await asyncio.wait_for(task, 10)
        assert got["payload_array"] == [b"\x01", b"\x02"] and got["dequeued"] == 2


async def test_a_waiting_array_dequeue_does_not_hold_back_vacuum(conn: asyncpg.Connection, db_dsn: str) -> None:
    """As dbms_aq.dequeue's wait (R__21): a CALL outside a transaction block looks in
    transactions of its own, so its backend_xmin advances while it waits."""
    await make_queue(conn)
    async with connected(db_dsn) as waiter:
        pid = waiter.get_server_pid()
        task = asyncio.create_task(waiter.fetchrow(DEQ_ARRAY, None, -1, "REMOVE", 10))

        async def xmin() -> int | None:
            v = await conn.fetchval("SELECT backend_xmin::text FROM pg_stat_activity WHERE pid = $1"
                                    " AND wait_event = 'PgSleep'", pid)
            return None if v is None else int(v)

        await until(xmin, "the waiter to sleep")
        first = await xmin()
        assert first is not None

        async def advanced() -> bool:
            await conn.execute("SELECT pg_current_xact_id()")  # a transaction ends: a new look
            x = await xmin()
            return x is not None and x > first

        await until(advanced, "backend_xmin to advance")
        await enqueue(conn, b"\x01")
        assert (await asyncio.wait_for(task, 10))["payload_array"] == [b"\x01"]


async def test_dequeue_array_wait_runs_out(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    t = time.monotonic()
    with pytest.raises(asyncpg.PostgresError, match="ORA-25228"):
        await conn.execute(DEQ_ARRAY, None, 1, "REMOVE", 10)
    assert 0.9 <= time.monotonic() - t < 5


async def test_a_rolled_back_array_dequeue_counts_an_attempt_per_message(conn: asyncpg.Connection) -> None:
    """AQ User's Guide (10.2), "Retries with Delays": a dequeue whose transaction fails is an
    unsuccessful attempt."""
    await make_queue(conn)
    await enqueue(conn, b"\x01", b"\x02")
    tx = conn.transaction()
    await tx.start()
    await conn.execute(DEQ_ARRAY, None, 0, "REMOVE", 10)
    await tx.rollback()
    await conn.fetchval("SELECT aq.settle_pending_attempts()")  # the monitor's part
    assert await conn.fetchval("SELECT array_agg(retry_count) FROM s.qt") == [1, 1]


# -- dbms_aqadm.purge_queue_table --------------------------------------------------------

async def _two_queues(conn: asyncpg.Connection, multiple: bool = False, retention: float = 0) -> None:
    await make_queue(conn, "s.q1", multiple=multiple, retention=retention)
    await make_queue(conn, "s.q2", create_table=False, retention=retention)
    if multiple:
        for q in ("s.q1", "s.q2"):
            await subscribe(conn, q, "A")
            await subscribe(conn, q, "B")


async def _put(conn: asyncpg.Connection, queue: str, *payloads: bytes) -> None:
    for p in payloads:
        await conn.execute("CALL dbms_aq.enqueue($1, NULL, NULL, $2::bytea, NULL)", queue, p)


async def _rows(conn: asyncpg.Connection, multiple: bool = False) -> list[tuple[object, ...]]:
    if multiple:
        return [tuple(r) for r in await conn.fetch(
            "SELECT queue, user_data, consumer_name, msg_state FROM s.aq$qt ORDER BY 1, 2, 3")]
    return [tuple(r) for r in await conn.fetch("SELECT queue, user_data, msg_state FROM s.aq$qt ORDER BY 1, 2")]


@pytest.mark.parametrize("block", [False, True])
async def test_purge_one_queue_with_oracles_spelling(conn: asyncpg.Connection, block: bool) -> None:
    await _two_queues(conn)
    await _put(conn, "s.q1", b"\x01", b"\x02")
    await _put(conn, "s.q2", b"\x03")
    await conn.execute(PURGE, "s.qt", "qtview.queue = 'Q1'", block)  # Oracle's upper-case name
    assert await _rows(conn) == [("q2", b"\x03", "READY")]
    await conn.execute(PURGE, "S.QT", None, block)  # NULL: everything
    assert await _rows(conn) == []


async def test_purge_by_state_keeps_what_is_not_selected(conn: asyncpg.Connection) -> None:
    await _two_queues(conn, retention=3600)
    await _put(conn, "s.q1", b"\x01", b"\x02", b"\x03")
    await conn.execute("CALL dbms_aq.dequeue('s.q1', dbms_aq.dequeue_options(wait => 0), payload => NULL::bytea,"
                       " msgid => NULL)")
    assert await _rows(conn) == [("q1", b"\x01", "PROCESSED"), ("q1", b"\x02", "READY"), ("q1", b"\x03", "READY")]
    await conn.execute(PURGE, "s.qt", "qtview.msg_state = 'PROCESSED'", False)
    assert await _rows(conn) == [("q1", b"\x02", "READY"), ("q1", b"\x03", "READY")]
    # Oracle's date arithmetic and functions over the view's other columns
    await conn.execute(PURGE, "s.qt", "qtview.enq_time > SYSDATE - 1 AND UPPER(qtview.queue) IN ('Q1', 'Q9')"
                       " AND qtview.msg_id = '" + (await conn.fetchval(
                           "SELECT msg_id FROM s.aq$qt WHERE user_data = '\\x02'::bytea")) + "'", False)
    assert await _rows(conn) == [("q1", b"\x03", "READY")]
    await conn.execute(PURGE, "s.qt", "qtview.enq_time < SYSDATE - 1", False)  # nothing that old
    assert await _rows(conn) == [("q1", b"\x03", "READY")]


async def test_purge_of_one_consumer_on_a_multi_consumer_table(conn: asyncpg.Connection) -> None:
    await _two_queues(conn, multiple=True)
    await _put(conn, "s.q1", b"\x01", b"\x02")
    await conn.execute(PURGE, "s.qt", "qtview.consumer_name = 'A'", False)
    # A's deliveries are gone, B's are untouched
    assert await _rows(conn, True) == [("q1", b"\x01", "B", "READY"), ("q1", b"\x02", "B", "READY")]
    with pytest.raises(asyncpg.PostgresError, match="ORA-25228"):
        await conn.execute("CALL dbms_aq.dequeue('s.q1', dbms_aq.dequeue_options(consumer_name => 'A', wait => 0),"
                           " payload => NULL::bytea, msgid => NULL)")
    got = await conn.fetchrow("CALL dbms_aq.dequeue('s.q1', dbms_aq.dequeue_options(consumer_name => 'B', wait => 0),"
                              " payload => NULL::bytea, msgid => NULL)")
    assert got["payload"] == b"\x01"
    # B took the first: it is settled (processed, retention 0: gone); purging B's second
    # delivery leaves its message without a recipient, and the message goes too
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 1
    await conn.execute(PURGE, "s.qt", "qtview.consumer_name = 'B'", True)
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0
    assert await conn.fetchval("SELECT count(*) FROM s.aq$_qt_r") == 0


async def test_purging_the_last_pending_delivery_settles_the_message(conn: asyncpg.Connection) -> None:
    await _two_queues(conn, multiple=True, retention=3600)
    await _put(conn, "s.q1", b"\x01")
    await conn.execute("CALL dbms_aq.dequeue('s.q1', dbms_aq.dequeue_options(consumer_name => 'A', wait => 0),"
                       " payload => NULL::bytea, msgid => NULL)")
    await conn.execute(PURGE, "s.qt", "qtview.consumer_name = 'B' AND qtview.msg_state = 'READY'", False)
    # every remaining recipient is done: the message is PROCESSED, as the dequeue of its
    # last recipient would have made it (kept for its retention time)
    assert await conn.fetchval("SELECT state FROM s.qt") == 2
    assert await _rows(conn, True) == [("q1", b"\x01", "A", "PROCESSED")]


async def test_purge_forgets_the_notes_about_purged_messages(conn: asyncpg.Connection) -> None:
    await _two_queues(conn, multiple=True)
    await _put(conn, "s.q1", b"\x01", b"\x02")
    qid = await conn.fetchval("SELECT id FROM aq.queues WHERE queue_name = 'q1'")
    await conn.execute("INSERT INTO aq.deferred_settlements (queue_id, msgid) SELECT $1, msgid FROM s.qt", qid)
    await conn.execute("INSERT INTO aq.pending_attempts (xid, queue_id, consumer, msgid)"
                       " SELECT '1'::xid8, $1, 'A', msgid FROM s.qt", qid)
    await conn.execute(PURGE, "s.qt", "qtview.user_data = '01'", False)  # (RAW as hex, as Oracle)
    left = await conn.fetchval("SELECT msgid FROM s.qt")
    assert await conn.fetchval("SELECT array_agg(msgid) FROM aq.deferred_settlements") == [left]
    assert await conn.fetchval("SELECT array_agg(msgid) FROM aq.pending_attempts") == [left]


async def test_purge_without_block_does_not_lock_enqueuers_out(conn: asyncpg.Connection, db_dsn: str) -> None:
    await _two_queues(conn)
    await _put(conn, "s.q1", b"\x01", b"\x02")
    async with connected(db_dsn) as admin, connected(db_dsn) as producer:
        tx = admin.transaction()
        await tx.start()
        await admin.execute(PURGE, "s.qt", None, False)
        # the purge's transaction is open: an enqueue goes through at once
        await asyncio.wait_for(_put(producer, "s.q1", b"\x03"), 5)
        await tx.commit()
    assert await _rows(conn) == [("q1", b"\x03", "READY")]


async def test_purge_with_block_holds_enqueuers_until_it_ends(conn: asyncpg.Connection, db_dsn: str) -> None:
    await _two_queues(conn)
    await _put(conn, "s.q1", b"\x01")
    async with connected(db_dsn) as admin, connected(db_dsn) as producer:
        tx = admin.transaction()
        await tx.start()
        await admin.execute(PURGE, "s.qt", None, True)
        pid = producer.get_server_pid()
        put = asyncio.create_task(_put(producer, "s.q1", b"\x03"))
        await until(lambda: conn.fetchval(
            "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = $1", pid), "the enqueue to wait")
        assert not put.done()
        await tx.commit()
        await asyncio.wait_for(put, 5)
    assert await _rows(conn) == [("q1", b"\x03", "READY")]


async def test_purge_without_block_skips_a_message_being_dequeued_and_block_waits_for_it(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    await _two_queues(conn)
    await _put(conn, "s.q1", b"\x01", b"\x02")
    async with connected(db_dsn) as consumer, connected(db_dsn) as admin:
        s = Session(consumer)
        await s.begin()
        [m] = await s.dequeue("s.q1", DequeueOptions(dequeue_mode="LOCKED"))
        await asyncio.wait_for(admin.execute(PURGE, "s.qt", None, False), 5)
        assert await conn.fetchval("SELECT array_agg(user_data) FROM s.qt") == [b"\x01"]  # the locked one
        pid = admin.get_server_pid()
        purge = asyncio.create_task(admin.execute(PURGE, "s.qt", None, True))
        await until(lambda: conn.fetchval(
            "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = $1", pid), "the purge to wait")
        await s.commit()
        await asyncio.wait_for(purge, 5)
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0
    assert m.payload == b"\x01"


@pytest.mark.parametrize("condition,code", [
    ("qtview.queue = ", "ORA-00936"),
    ("1=1); DROP TABLE s.canary; --", "ORA-00936"),
    ("qtview.queue = 'q1' OR (SELECT count(*) FROM s.canary) > 0", "ORA-00936"),
    ("pg_sleep(1) IS NULL", "ORA-00904"),
    ("s.canary.x = 1", "ORA-00904"),
    ("qtview.nope = 1", "ORA-00904"),
    ("qtview.queue = 1", "ORA-00932"),
    ("qtview.enq_time < 'not a date'", "ORA-00932"),
    ("$$ || 'x' || $$ = 'x'", "ORA-00904|ORA-00936"),
])
async def test_a_hostile_or_wrong_condition_is_refused_and_runs_nothing(
        conn: asyncpg.Connection, condition: str, code: str) -> None:
    """purge_condition is parsed by pgaq's grammar and written back as SQL from its parts:
    no statement, subquery or function of the caller's text runs (docs/security.md)."""
    await _two_queues(conn)
    await conn.execute("CREATE TABLE s.canary (x integer); INSERT INTO s.canary VALUES (1)")
    await _put(conn, "s.q1", b"\x01")
    with pytest.raises(asyncpg.PostgresError, match=code):
        await conn.execute(PURGE, "s.qt", condition, False)
    assert await conn.fetchval("SELECT count(*) FROM s.canary") == 1
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 1


async def test_purge_options_are_checked(conn: asyncpg.Connection) -> None:
    await _two_queues(conn)
    await _put(conn, "s.q1", b"\x01")
    with pytest.raises(asyncpg.PostgresError, match="ORA-25299"):
        await conn.execute("CALL dbms_aqadm.purge_queue_table('s.qt', NULL,"
                           " dbms_aqadm.purge_options(delivery_mode => 'SOMETIMES'))")
    # only buffered messages: the persistent one stays
    await conn.execute("CALL dbms_aqadm.purge_queue_table('s.qt', NULL,"
                       " dbms_aqadm.purge_options(delivery_mode => 'BUFFERED'))")
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 1
    with pytest.raises(asyncpg.PostgresError, match="ORA-24002"):
        await conn.execute(PURGE, "s.nope", None, False)
    # the Oracle block form: a declared record, one field set
    await conn.execute("""
        DO $$ DECLARE po dbms_aqadm.aq$_purge_options_t; BEGIN
          po.block := true;
          CALL dbms_aqadm.purge_queue_table(queue_table => 's.qt', purge_condition => NULL, purge_options => po);
        END $$""")
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


async def test_who_may_purge(conn: asyncpg.Connection) -> None:
    await _two_queues(conn, multiple=True)
    await _put(conn, "s.q1", b"\x01", b"\x02")
    plain = f"plain_{uuid.uuid4().hex[:8]}"
    admin = f"aqadm_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{plain}"; CREATE ROLE "{admin}" IN ROLE aq_administrator_role')
    try:
        await conn.execute(f'GRANT USAGE ON SCHEMA s TO "{plain}"')
        await conn.execute(f'SET ROLE "{plain}"')
        with pytest.raises(asyncpg.PostgresError, match="ORA-01031"):
            await conn.execute(PURGE, "s.qt", None, False)
        await conn.execute("RESET ROLE")
        # an AQ administrator who does not own the queue table purges it
        await conn.execute(f'SET ROLE "{admin}"')
        await conn.execute(PURGE, "s.qt", "qtview.consumer_name = 'A'", False)
        await conn.execute("RESET ROLE")
        assert await conn.fetchval("SELECT count(*) FROM s.aq$qt") == 2
    finally:
        await conn.execute("RESET ROLE")
        await conn.execute(f'REVOKE ALL ON SCHEMA s FROM "{plain}"')
        await conn.execute(f'DROP ROLE "{plain}"; DROP ROLE "{admin}"')


async def test_purge_through_the_admin_api(conn: asyncpg.Connection) -> None:
    """The JSON admin API finds the procedure by its name (R__90): nothing to register."""
    await _two_queues(conn)
    await _put(conn, "s.q1", b"\x01")
    await _put(conn, "s.q2", b"\x02")
    await conn.execute("SELECT aq.admin_call('purge_queue_table', $1::jsonb)", json.dumps(
        {"queue_table": "s.qt", "purge_condition": "qtview.queue = 'Q2'", "purge_options": {"block": True}}))
    assert await _rows(conn) == [("q1", b"\x01", "READY")]


async def test_array_dequeue_applies_the_subscribers_mapping(conn: asyncpg.Connection) -> None:
    """AQ User's Guide (10.2), "Message Format Transformation": a mapping given "when you add a
    subscriber" transforms on dequeue; the payload array is of the mapping's target type."""
    await conn.execute("""
        CREATE SCHEMA tx;
        CREATE TYPE tx.order_typ AS (orderno integer, customer_name varchar(30));
        CREATE TYPE tx.summary_typ AS (label varchar(60));
        CREATE FUNCTION tx.order_to_summary(o tx.order_typ) RETURNS tx.summary_typ LANGUAGE sql IMMUTABLE
          AS $$ SELECT ROW(o.orderno || ':' || o.customer_name)::tx.summary_typ $$;
        CALL dbms_transform.create_transformation('tx', 'order_to_summary', 'tx', 'order_typ',
                                                  'tx', 'summary_typ', 'tx.order_to_summary');
        CALL dbms_aqadm.create_queue_table('tx.topic_t', 'tx.order_typ', multiple_consumers => true);
        CALL dbms_aqadm.create_queue('tx.topic', 'tx.topic_t');
        CALL dbms_aqadm.start_queue('tx.topic');
        CALL dbms_aqadm.add_subscriber('tx.topic', sys.aq$_agent('SUMMARY', NULL, NULL),
                                       transformation => 'tx.order_to_summary');
        CALL dbms_aq.enqueue_array('tx.topic', NULL, 2, array_fill(NULL::dbms_aq.message_properties_t, ARRAY[2]),
                                   ARRAY[ROW(1, 'ACME'), ROW(2, 'INITECH')]::tx.order_typ[], NULL)""")
    got = await conn.fetchrow(
        "CALL dbms_aq.dequeue_array('tx.topic', dbms_aq.dequeue_options(consumer_name => 'SUMMARY', wait => 0),"
        " 10, payload_array => NULL::tx.summary_typ[])")
    assert [dict(p) for p in got["payload_array"]] == [{"label": "1:ACME"}, {"label": "2:INITECH"}]
    with pytest.raises(asyncpg.PostgresError, match="ORA-25265"):  # as dbms_aq.dequeue refuses it
        await conn.execute("CALL dbms_aq.dequeue_array('tx.topic', dbms_aq.dequeue_options("
                           "consumer_name => 'SUMMARY', wait => 0, signature => 'x'), 10,"
                           " payload_array => NULL::tx.summary_typ[])")
