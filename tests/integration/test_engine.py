"""The queue engine through the async library: AQ semantics on a real PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest
from pgaq import Agent, DequeueOptions, MessageProperties, Session
from pgaq.errors import PgaqError

from .helpers import make_queue, obj, subscribe


async def test_raw_enqueue_dequeue_roundtrip(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    s = Session(conn)
    mid = await s.enqueue("s.q", b"\x00\x01hello", MessageProperties(correlation="c1"))
    assert len(mid) == 32 and mid == mid.upper()
    [m] = await s.dequeue("s.q")
    assert m.msgid == mid and m.payload == b"\x00\x01hello" and m.correlation == "c1"
    assert m.state == "PROCESSED"
    assert await s.dequeue("s.q") == []
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


async def test_names_fold_like_postgres(conn: asyncpg.Connection) -> None:
    await make_queue(conn, "s.BOOK_Q1", "s.Books_QT")
    s = Session(conn)
    await s.enqueue("S.book_q1", b"x")
    assert await conn.fetchval('SELECT count(*) FROM s.AQ$BOOKS_QT') == 1
    [m] = await s.dequeue("s.Book_Q1")
    assert m.queue == "book_q1"


async def test_priority_sort_order(conn: asyncpg.Connection) -> None:
    await make_queue(conn, sort_list="PRIORITY,ENQ_TIME")
    s = Session(conn)
    for p in (5, 1, 3, 1, -2):
        await s.enqueue("s.q", str(p).encode(), MessageProperties(priority=p))
    got = [m.priority for m in await s.dequeue("s.q", DequeueOptions(batch_size=10))]
    assert got == [-2, 1, 1, 3, 5]


async def test_enq_time_sort_ignores_priority(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    s = Session(conn)
    for p in (5, 1, 3):
        await s.enqueue("s.q", str(p).encode(), MessageProperties(priority=p))
    got = [m.payload for m in await s.dequeue("s.q", DequeueOptions(batch_size=10))]
    assert got == [b"5", b"1", b"3"]


async def test_array_enqueue_is_all_or_nothing(conn: asyncpg.Connection) -> None:
    await conn.execute("CREATE SCHEMA s; CREATE TYPE s.t AS (a integer, b text)")
    await make_queue(conn, payload="s.t")
    s = Session(conn)
    with pytest.raises(PgaqError) as err:
        await s.enqueue_array("s.q", [({"a": 1}, None), ({"a": 2}, None), ({"a": "nope"}, None)])
    assert err.value.code == 25215
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0
    ids = await s.enqueue_array("s.q", [({"a": i, "b": str(i)}, None) for i in range(100)])
    assert len(set(ids)) == 100
    got = await s.dequeue("s.q", DequeueOptions(batch_size=100))
    assert [m.msgid for m in got] == ids
    assert [obj(m.payload)["a"] for m in got] == list(range(100))


async def test_unknown_attribute_and_wrong_kind(conn: asyncpg.Connection) -> None:
    await conn.execute("CREATE SCHEMA s; CREATE TYPE s.t AS (a integer)")
    await make_queue(conn, payload="s.t")
    s = Session(conn)
    with pytest.raises(PgaqError) as err:
        await s.enqueue("s.q", {"zzz": 1})
    assert err.value.code == 25215
    with pytest.raises(PgaqError) as err:
        await s.enqueue("s.q", b"raw")
    assert err.value.code == 25215


async def test_browse_locked_remove_nodata(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn)
    s = Session(conn)
    a = await s.enqueue("s.q", b"a")
    b = await s.enqueue("s.q", b"b")
    browsed = await s.dequeue("s.q", DequeueOptions(dequeue_mode="BROWSE", batch_size=5))
    assert [m.msgid for m in browsed] == [a, b]
    assert all(m.state == "READY" for m in browsed)
    # LOCKED holds the message for this transaction; another session skips it
    await s.begin()
    [locked] = await s.dequeue("s.q", DequeueOptions(dequeue_mode="LOCKED", navigation="FIRST_MESSAGE"))
    assert locked.msgid == a
    other = await asyncpg.connect(db_dsn)
    try:
        [m2] = await Session(other).dequeue("s.q")
        assert m2.msgid == b
    finally:
        await other.close()
    [m] = await s.dequeue("s.q", DequeueOptions(dequeue_mode="REMOVE_NODATA", msgid=a))
    assert m.msgid == a and m.payload is None
    await s.commit()
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


async def test_correlation_patterns_and_msgid(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    s = Session(conn)
    await s.enqueue("s.q", b"1", MessageProperties(correlation="order-1"))
    await s.enqueue("s.q", b"2", MessageProperties(correlation="invoice-2"))
    x = await s.enqueue("s.q", b"3", MessageProperties(correlation="order-3"))
    got = await s.dequeue("s.q", DequeueOptions(correlation="inv%"))
    assert [m.payload for m in got] == [b"2"]
    got = await s.dequeue("s.q", DequeueOptions(msgid=x.lower()))
    assert [m.payload for m in got] == [b"3"]
    got = await s.dequeue("s.q", DequeueOptions(correlation="order-_", batch_size=5))
    assert [m.payload for m in got] == [b"1"]


async def test_navigation_positions(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    s = Session(conn)
    for i in range(3):
        await s.enqueue("s.q", bytes([i]))
    browse = DequeueOptions(dequeue_mode="BROWSE")
    seen = [(await s.dequeue("s.q", browse))[0].payload for _ in range(3)]
    assert seen == [b"\x00", b"\x01", b"\x02"]
    # at the end with no wait: end of fetch, not a wrap-around
    assert await s.dequeue("s.q", browse) == []
    first = await s.dequeue("s.q", DequeueOptions(dequeue_mode="BROWSE", navigation="FIRST_MESSAGE"))
    assert first[0].payload == b"\x00"


async def test_multi_consumer_subscribers_and_rules(conn: asyncpg.Connection) -> None:
    await conn.execute("CREATE SCHEMA s; CREATE TYPE s.car AS (carno text, price numeric)")
    await make_queue(conn, payload="s.car", multiple=True)
    await subscribe(conn, "s.q", "DEALS", "tab.user_data.price > 30000")
    await subscribe(conn, "s.q", "all")
    s = Session(conn)
    cheap = await s.enqueue("s.q", {"carno": "c", "price": 100})
    dear = await s.enqueue("s.q", {"carno": "d", "price": 50000})
    rows = await conn.fetch(
        "SELECT msg_id, consumer_name FROM s.aq$qt ORDER BY msg_id, consumer_name"
    )
    assert sorted((r["msg_id"], r["consumer_name"]) for r in rows) == sorted(
        [(cheap, "ALL"), (dear, "ALL"), (dear, "DEALS")]
    )
    with pytest.raises(PgaqError) as err:
        await s.dequeue("s.q")
    assert err.value.code == 25231
    got = await s.dequeue("s.q", DequeueOptions(consumer_name="deals", batch_size=5))
    assert [m.msgid for m in got] == [dear]
    got = await s.dequeue("s.q", DequeueOptions(consumer_name="ALL", batch_size=5))
    assert [m.msgid for m in got] == [cheap, dear]
    # every recipient removed it: gone (retention 0)
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


async def test_recipient_list_overrides_subscribers(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "sub1")
    s = Session(conn)
    await s.enqueue("s.q", b"x", MessageProperties(recipient_list=[Agent("r1"), Agent("r2")]))
    assert await s.dequeue("s.q", DequeueOptions(consumer_name="sub1")) == []
    assert len(await s.dequeue("s.q", DequeueOptions(consumer_name="r1"))) == 1
    assert len(await s.dequeue("s.q", DequeueOptions(consumer_name="r2"))) == 1


async def test_no_recipients_is_an_error(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "rich", "priority > 5")
    s = Session(conn)
    with pytest.raises(PgaqError) as err:
        await s.enqueue("s.q", b"x", MessageProperties(priority=1))
    assert err.value.code == 24033
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


async def test_consumer_name_refused_on_single_consumer(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    with pytest.raises(PgaqError) as err:
        await Session(conn).dequeue("s.q", DequeueOptions(consumer_name="X"))
    assert err.value.code == 24039


async def test_rollback_counts_retries_then_exception_queue(conn: asyncpg.Connection) -> None:
    await make_queue(conn, max_retries=2)
    await conn.execute("CALL dbms_aqadm.start_queue('s.aq$_qt_e', enqueue => false)")
    s = Session(conn)
    mid = await s.enqueue("s.q", b"poison")
    for attempt in range(1, 4):
        await s.begin()
        [m] = await s.dequeue("s.q", DequeueOptions(navigation="FIRST_MESSAGE"))
        assert m.msgid == mid and m.attempts == attempt - 1
        await s.rollback()
    assert await s.dequeue("s.q") == []
    row = await conn.fetchrow(
        "SELECT queue, msg_state, retry_count, expiration_reason FROM s.aq$qt"
    )
    assert dict(row) == {
        "queue": "aq$_qt_e", "msg_state": "EXPIRED", "retry_count": 3,
        "expiration_reason": "MAX_RETRY_EXCEEDED",
    }
    # exception queues: dequeued exactly once, no consumer name
    [e] = await s.dequeue("s.aq$_qt_e")
    assert e.msgid == mid and e.payload == b"poison"
    assert await s.dequeue("s.aq$_qt_e") == []


async def test_retry_delay_holds_message_in_wait(conn: asyncpg.Connection) -> None:
    await make_queue(conn, retry_delay=3600)
    s = Session(conn)
    await s.enqueue("s.q", b"x")
    await s.begin()
    assert len(await s.dequeue("s.q")) == 1
    await s.rollback()
    assert await conn.fetchval("SELECT msg_state FROM s.aq$qt") == "WAIT"
    assert await s.dequeue("s.q") == []


async def test_multi_consumer_retries_per_recipient(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True, max_retries=0)
    await subscribe(conn, "s.q", "a")
    await subscribe(conn, "s.q", "b")
    s = Session(conn)
    mid = await s.enqueue("s.q", b"x")
    await s.begin()
    assert len(await s.dequeue("s.q", DequeueOptions(consumer_name="a"))) == 1
    await s.rollback()
    states = dict(await conn.fetch("SELECT consumer_name, msg_state FROM s.aq$qt"))
    assert states == {"A": "EXPIRED", "B": "READY"}  # A failed; B has not finished yet
    assert await s.dequeue("s.q", DequeueOptions(consumer_name="a")) == []
    assert len(await s.dequeue("s.q", DequeueOptions(consumer_name="b"))) == 1
    # all recipients done, one failed: the message is in the exception queue
    assert await conn.fetchval("SELECT DISTINCT queue FROM s.aq$qt WHERE msg_id = $1", mid) == "aq$_qt_e"


async def test_exception_queue_refuses_enqueue(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    with pytest.raises(PgaqError) as err:
        await Session(conn).enqueue("s.aq$_qt_e", b"x")
    assert err.value.code == 25207


async def test_stopped_queue(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    await conn.execute("CALL dbms_aqadm.stop_queue('s.q', enqueue => true, dequeue => false)")
    s = Session(conn)
    with pytest.raises(PgaqError) as err:
        await s.enqueue("s.q", b"x")
    assert err.value.code == 25207
    await conn.execute("CALL dbms_aqadm.stop_queue('s.q')")
    with pytest.raises(PgaqError) as err:
        await s.dequeue("s.q")
    assert err.value.code == 25226


async def test_retention_keeps_processed_messages(conn: asyncpg.Connection) -> None:
    await make_queue(conn, retention=3600)
    s = Session(conn, agent="APP")
    await s.enqueue("s.q", b"x")
    await s.dequeue("s.q")
    row = await conn.fetchrow("SELECT msg_state, deq_user_id, deq_agent, deq_txn_id, enq_txn_id FROM s.aq$qt")
    assert row["msg_state"] == "PROCESSED" and row["deq_user_id"] == "postgres"
    assert row["deq_agent"] == "APP" and row["deq_txn_id"] and row["enq_txn_id"]


@pytest.mark.parametrize("retention", [0, 3600])
async def test_multi_consumer_retention_keeps_processed_recipients(conn: asyncpg.Connection,
                                                                   retention: int) -> None:
    await make_queue(conn, multiple=True, retention=retention)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    s = Session(conn, agent="APP")
    mid = await s.enqueue("s.q", b"x")
    for name in ("A", "B"):
        [m] = await s.dequeue("s.q", DequeueOptions(consumer_name=name))
        assert m.msgid == mid and m.payload == b"x"
        assert await s.dequeue("s.q", DequeueOptions(consumer_name=name)) == []
    rows = await conn.fetch("SELECT consumer_name, msg_state, deq_agent FROM s.aq$qt ORDER BY 1")
    if retention:
        assert [tuple(r) for r in rows] == [("A", "PROCESSED", "APP"), ("B", "PROCESSED", "APP")]
    else:
        assert rows == []


async def test_error_in_transaction_keeps_it_usable(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    s = Session(conn)
    await s.begin()
    await s.enqueue("s.q", b"kept")
    with pytest.raises(PgaqError) as err:
        await s.enqueue("s.nope", b"x")
    assert err.value.code == 24010
    await s.commit()
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 1


async def test_on_commit_vs_immediate(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn)
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=2)
    try:
        s = Session(conn, pool=pool)
        await s.begin()
        await s.enqueue("s.q", b"on-commit")
        await s.enqueue("s.q", b"immediate", visibility="IMMEDIATE")
        async with pool.acquire() as other:
            assert await other.fetchval("SELECT count(*) FROM s.qt") == 1
        await s.rollback()
        assert await conn.fetchval("SELECT count(*) FROM s.qt") == 1
    finally:
        await pool.close()


async def test_transactional_grouping(conn: asyncpg.Connection) -> None:
    await make_queue(conn, grouping="TRANSACTIONAL")
    s = Session(conn)
    for group in ("a", "b"):
        await s.begin()
        for i in range(3):
            await s.enqueue("s.q", f"{group}{i}".encode(), MessageProperties(priority=i))
        await s.commit()
    browse = DequeueOptions(dequeue_mode="BROWSE")
    got = [(await s.dequeue("s.q", browse))[0].payload for _ in range(3)]
    assert got == [b"a0", b"a1", b"a2"]
    assert await s.dequeue("s.q", browse) == []  # end of this transaction's group
    nxt = await s.dequeue("s.q", DequeueOptions(dequeue_mode="BROWSE", navigation="NEXT_TRANSACTION"))
    assert nxt[0].payload == b"b0"
    whole = await s.dequeue("s.q", DequeueOptions(navigation="FIRST_MESSAGE", batch_size=10))
    assert [m.payload for m in whole] == [b"a0", b"a1", b"a2"]


async def test_concurrent_dequeuers_no_duplicates(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn)
    s = Session(conn)
    ids = await s.enqueue_array("s.q", [(str(i).encode(), None) for i in range(400)])
    pool = await asyncpg.create_pool(db_dsn, min_size=8, max_size=8)
    seen: list[str] = []

    async def worker() -> None:
        async with pool.acquire() as c:
            w = Session(c)
            while True:
                await w.begin()
                got = await w.dequeue("s.q", DequeueOptions(batch_size=3))
                await w.commit()
                if not got:
                    return
                seen.extend(m.msgid for m in got)

    try:
        await asyncio.gather(*(worker() for _ in range(8)))
    finally:
        await pool.close()
    assert sorted(seen) == sorted(ids)


async def test_blocking_dequeue_woken_by_notify(conn: asyncpg.Connection, db_dsn: str) -> None:
    from pgaq.listener import Listener

    await make_queue(conn)
    listener = Listener(db_dsn)
    await listener.start()
    waiter_conn = await asyncpg.connect(db_dsn)
    try:
        waiter = Session(waiter_conn, listener=listener, safety_poll=60)
        task = asyncio.create_task(waiter.dequeue("s.q", DequeueOptions(wait=30)))
        # enqueue once the waiter's LISTEN is in place
        await asyncio.wait_for(listener.subscribed.wait(), 10)
        await Session(conn).enqueue("s.q", b"wake")
        got = await asyncio.wait_for(task, 10)
        assert [m.payload for m in got] == [b"wake"]
    finally:
        await waiter_conn.close()
        await listener.close()


async def test_jms_text_message_roundtrip(conn: asyncpg.Connection) -> None:
    await make_queue(conn, payload="SYS.AQ$_JMS_TEXT_MESSAGE")
    s = Session(conn)
    msg: dict[str, Any] = {
        "header": {"type": "order", "userid": "u", "appid": "app", "groupid": "g", "groupseq": 1,
                   "properties": {"color": {"type": "string", "value": "red"},
                                  "n": {"type": "int", "value": 5},
                                  "f": {"type": "double", "value": 1.5},
                                  "ok": {"type": "boolean", "value": True}}},
        "text_len": 5, "text_vc": "hello",
    }
    await s.enqueue("s.q", msg, MessageProperties(priority=4, correlation="jms"))
    [m] = await s.dequeue("s.q")
    # JMSXUserID is the provider's, the enqueuing user (R__52); the client's appid stays
    me = await conn.fetchval("SELECT current_user")
    assert m.payload == {**msg, "header": {**msg["header"], "replyto": None, "userid": me}}


async def test_sql_interface_dbms_aq(conn: asyncpg.Connection) -> None:
    await conn.execute("CREATE SCHEMA s; CREATE TYPE s.t AS (a integer, b text)")
    await make_queue(conn, payload="s.t")
    mid = await conn.fetchval(
        "CALL dbms_aq.enqueue(queue_name => 's.q', payload => ROW(7, 'x')::s.t, msgid => NULL)"
    )
    row = await conn.fetchrow(
        "CALL dbms_aq.dequeue(queue_name => 's.q', payload => NULL::s.t, msgid => NULL)"
    )
    assert row["msgid"] == mid and tuple(row["payload"]) == (7, "x")
    with pytest.raises(asyncpg.PostgresError, match="ORA-25228"):  # (the default waits for ever)
        await conn.execute(
            "CALL dbms_aq.dequeue(queue_name => 's.q', dequeue_options => dbms_aq.dequeue_options("
            "wait => dbms_aq.no_wait()), payload => NULL::s.t, msgid => NULL)"
        )
    with pytest.raises(asyncpg.PostgresError, match="ORA-25215"):
        await conn.execute("CALL dbms_aq.enqueue(queue_name => 's.q', payload => 'x'::bytea, msgid => NULL)")


async def test_sql_interface_options_and_array(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True, sort_list="PRIORITY")
    await subscribe(conn, "s.q", "A")
    ids = await conn.fetchval(
        """CALL dbms_aq.enqueue_array(queue_name => 's.q', enqueue_options => NULL, array_size => 3,
             message_properties_array => ARRAY[dbms_aq.message_properties(priority => 3),
                                               dbms_aq.message_properties(priority => 1),
                                               dbms_aq.message_properties(priority => 2,
                                                   correlation => 'two')],
             payload_array => ARRAY['\\x03', '\\x01', '\\x02']::bytea[], msgid_array => NULL)"""
    )
    assert len(ids) == 3
    got = []
    for _ in range(3):
        row = await conn.fetchrow(
            """CALL dbms_aq.dequeue(queue_name => 's.q',
                 dequeue_options => dbms_aq.dequeue_options(consumer_name => 'A', wait => 0),
                 message_properties => NULL, payload => NULL::bytea, msgid => NULL)"""
        )
        got.append((row["payload"], row["message_properties"]["priority"]))
    assert got == [(b"\x01", 1), (b"\x02", 2), (b"\x03", 3)]


async def test_dequeue_condition_on_payload_and_properties(conn: asyncpg.Connection) -> None:
    await conn.execute("CREATE SCHEMA s; CREATE TYPE s.car AS (carno text, price numeric)")
    await make_queue(conn, payload="s.car")
    s = Session(conn)
    for i, price in enumerate((100, 40000, 90000)):
        await s.enqueue("s.q", {"carno": f"c{i}", "price": price},
                        MessageProperties(priority=i, correlation=f"k{i}"))
    got = await s.dequeue("s.q", DequeueOptions(
        condition="tab.user_data.price > 30000 AND priority < 2", batch_size=5))
    assert [obj(m.payload)["carno"] for m in got] == ["c1"]
    with pytest.raises(PgaqError) as err:
        await s.dequeue("s.q", DequeueOptions(condition="price >>> 3"))
    assert err.value.code == 936
    with pytest.raises(PgaqError) as err:
        await s.dequeue("s.q", DequeueOptions(condition="1 = 1; DROP TABLE s.qt"))
    assert err.value.code == 936
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 2


async def test_jms_selector_on_jms_queue(conn: asyncpg.Connection) -> None:
    await make_queue(conn, payload="SYS.AQ$_JMS_TEXT_MESSAGE", multiple=True)
    await subscribe(conn, "s.q", "REDS", "color = 'red' AND JMSPriority < 5")
    await subscribe(conn, "s.q", "ALL")
    s = Session(conn)

    def msg(color: object, kind: str = "string") -> dict[str, Any]:
        return {"header": {"type": "t", "properties": {"color": {"type": kind, "value": color}}},
                "text_vc": "x", "text_len": 1}

    await s.enqueue("s.q", msg("red"), MessageProperties(priority=1))
    await s.enqueue("s.q", msg("red"), MessageProperties(priority=7))
    await s.enqueue("s.q", msg(3, "int"), MessageProperties(priority=1))  # unlike type: FALSE
    reds = await s.dequeue("s.q", DequeueOptions(consumer_name="REDS", batch_size=10))
    assert len(reds) == 1 and reds[0].priority == 1
    # the int-typed color: compared with a string it is neither equal nor unequal (FALSE)
    none = await s.dequeue("s.q", DequeueOptions(
        consumer_name="ALL", batch_size=10, condition="color IS NULL OR color <> 'red'"))
    assert none == []
    three = await s.dequeue("s.q", DequeueOptions(
        consumer_name="ALL", batch_size=10, condition="color = 3 AND JMSType = 't'"))
    assert len(three) == 1 and obj(three[0].payload)["header"]["properties"]["color"]["value"] == 3


async def test_commit_time_order(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn, sort_list="COMMIT_TIME")
    first = Session(conn)
    other_conn = await asyncpg.connect(db_dsn)
    try:
        second = Session(other_conn)
        await first.begin()
        await first.enqueue("s.q", b"enqueued-first-committed-last")
        await second.enqueue("s.q", b"enqueued-second-committed-first")  # autocommit
        await first.commit()
    finally:
        await other_conn.close()
    got = await Session(conn).dequeue("s.q", DequeueOptions(batch_size=5))
    assert [m.payload for m in got] == [
        b"enqueued-second-committed-first", b"enqueued-first-committed-last"]


async def test_multi_consumer_concurrent_consumers(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn, multiple=True)
    for name in ("A", "B"):
        await subscribe(conn, "s.q", name)
    ids = await Session(conn).enqueue_array("s.q", [(bytes([i]), None) for i in range(60)])
    pool = await asyncpg.create_pool(db_dsn, min_size=6, max_size=6)
    seen: dict[str, list[str]] = {"A": [], "B": []}

    async def worker(consumer: str) -> None:
        async with pool.acquire() as c:
            w = Session(c)
            while got := await w.dequeue("s.q", DequeueOptions(consumer_name=consumer, batch_size=4)):
                seen[consumer].extend(m.msgid for m in got)

    try:
        await asyncio.gather(*(worker(n) for n in ("A", "B", "A", "B", "A", "B")))
    finally:
        await pool.close()
    assert sorted(seen["A"]) == sorted(ids) and sorted(seen["B"]) == sorted(ids)
    # a message whose recipient rows were busy at its last removal is left PROCESSED for
    # the monitor to delete, and one whose row another worker held at that moment is left
    # for the monitor to settle (finish_messages waits for no row): one pass does both
    assert await conn.fetchval("SELECT count(*) FROM s.aq$_qt_r WHERE state <> 2") == 0
    await conn.fetchval("SELECT done FROM aq.monitor_pass(1000)")
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0
