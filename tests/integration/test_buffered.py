"""Buffered messages on UNLOGGED storage (issue 21 section 4; Oracle Streams Advanced Queuing
User's Guide and Reference 10g Release 2 (10.2), "Introducing Oracle Streams AQ", "Buffered
Messaging")."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from pgaq import DequeueOptions, MessageProperties, Session, client, waiting
from pgaq.errors import QueueError

from tests.routing import Pinned

from .helpers import raw
from .waiting import until

SETUP = """
CREATE SCHEMA b;
CALL dbms_aqadm.create_queue_table('b.st', 'RAW');
CALL dbms_aqadm.create_queue('b.sq', 'b.st'); CALL dbms_aqadm.start_queue('b.sq');
CALL dbms_aqadm.create_queue_table('b.mt', 'RAW', multiple_consumers => true);
CALL dbms_aqadm.create_queue('b.mq', 'b.mt'); CALL dbms_aqadm.start_queue('b.mq');
CALL dbms_aqadm.add_subscriber('b.mq', sys.aq$_agent('P', NULL, NULL));
CALL dbms_aqadm.add_subscriber('b.mq', sys.aq$_agent('B', NULL, NULL), delivery_mode => 'BUFFERED');
CALL dbms_aqadm.add_subscriber('b.mq', sys.aq$_agent('E', NULL, NULL), delivery_mode => 'PERSISTENT_OR_BUFFERED');
"""


async def test_smoke(conn: asyncpg.Connection) -> None:
    await conn.execute(SETUP)
    ids = await conn.fetchval("""SELECT aq.enqueue_array('b.sq', '[{"delivery_mode": "BUFFERED"}]', NULL, ARRAY['\\x01'::bytea])""")
    assert await conn.fetchval("SELECT count(*) FROM b.st") == 0
    assert await conn.fetchval('SELECT count(*) FROM b."aq$_st_b"') == 1
    assert await conn.fetchval("SELECT relpersistence FROM pg_class WHERE relname = 'aq$_st_b'") == b"u"
    assert await conn.fetchval("SELECT msg_state FROM b.\"aq$st\"") == "IN-MEMORY"
    assert await conn.fetchval("SELECT count(*) FROM aq.\"v$buffered_queues\" WHERE queue_name = 'sq'") == 1
    assert await conn.fetch("SELECT * FROM aq.dequeue_array('b.sq')") == []
    [d] = await conn.fetch("SELECT * FROM aq.dequeue_array('b.sq', p_delivery_mode => 'BUFFERED')")
    assert d["msgid"] == ids[0]
    ids = await conn.fetchval("""SELECT aq.enqueue_array('b.mq', '[{"delivery_mode": "BUFFERED"}]', NULL, ARRAY['\\x02'::bytea])""")
    names = await conn.fetch("SELECT consumer_name FROM b.\"aq$mt\" ORDER BY 1")
    assert [r[0] for r in names] == ["B", "E"]
    [d] = await conn.fetch("SELECT * FROM aq.dequeue_array('b.mq', 'E', p_delivery_mode => 'PERSISTENT_OR_BUFFERED')")
    [d] = await conn.fetch("SELECT * FROM aq.dequeue_array('b.mq', 'B', p_delivery_mode => 'BUFFERED')")
    assert await conn.fetchval('SELECT count(*) FROM b."aq$_mt_b"') == 0


# -- the Python library -------------------------------------------------------------------
IMM = "IMMEDIATE"


@pytest.mark.parametrize("routes", [None, frozenset()])  # the fast routes, and the general one only
async def test_library_buffered_round_trip(conn: asyncpg.Connection, routes: frozenset[str] | None) -> None:
    await conn.execute(SETUP)
    s = Session(conn, route_policy=Pinned(routes)) if routes is not None else Session(conn)
    p = await s.enqueue("b.sq", b"p", visibility=IMM)
    b = await s.enqueue("b.sq", b"b", visibility=IMM, delivery_mode="BUFFERED")
    # each class on its own
    [m] = await s.dequeue("b.sq", DequeueOptions(visibility=IMM, delivery_mode="BUFFERED"))
    assert (m.msgid, m.payload, m.delivery_mode) == (b, b"b", "BUFFERED")
    assert await s.dequeue("b.sq", DequeueOptions(visibility=IMM, delivery_mode="BUFFERED")) == []
    [m] = await s.dequeue("b.sq", DequeueOptions(visibility=IMM))
    assert (m.msgid, m.delivery_mode) == (p, "PERSISTENT")
    # both: buffered first
    await s.enqueue("b.sq", b"p2", visibility=IMM)
    await s.enqueue("b.sq", b"b2", visibility=IMM, delivery_mode="BUFFERED")
    got = [(await s.dequeue("b.sq", DequeueOptions(visibility=IMM, delivery_mode="PERSISTENT_OR_BUFFERED")))[0]
           for _ in range(2)]
    assert [(x.payload, x.delivery_mode) for x in got] == [(b"b2", "BUFFERED"), (b"p2", "PERSISTENT")]
    # nothing buffered is left behind (no retention of buffered messages)
    assert await conn.fetchval('SELECT count(*) FROM b."aq$_st_b"') == 0


@pytest.mark.parametrize("routes", [None, frozenset()])
async def test_library_buffered_subscribers(conn: asyncpg.Connection, routes: frozenset[str] | None) -> None:
    await conn.execute(SETUP)
    s = Session(conn, route_policy=Pinned(routes)) if routes is not None else Session(conn)
    await s.enqueue("b.mq", b"x", visibility=IMM, delivery_mode="BUFFERED")
    # P takes persistent messages only; B buffered only; E both
    assert await s.dequeue("b.mq", DequeueOptions("P", visibility=IMM, delivery_mode="PERSISTENT_OR_BUFFERED")) == []
    [m] = await s.dequeue("b.mq", DequeueOptions("B", visibility=IMM, delivery_mode="BUFFERED"))
    [m] = await s.dequeue("b.mq", DequeueOptions("E", visibility=IMM, delivery_mode="PERSISTENT_OR_BUFFERED"))
    assert m.payload == b"x"
    assert await conn.fetchval('SELECT count(*) FROM b."aq$_mt_b"') == 0  # settled and gone
    await s.enqueue("b.mq", b"y", visibility=IMM)
    assert await s.dequeue("b.mq", DequeueOptions("B", visibility=IMM, delivery_mode="PERSISTENT_OR_BUFFERED")) == []
    [m] = await s.dequeue("b.mq", DequeueOptions("P", visibility=IMM))
    assert m.payload == b"y"


async def test_buffered_refusals(conn: asyncpg.Connection) -> None:
    await conn.execute(SETUP)
    await conn.execute("""CALL dbms_aqadm.create_queue_table('b.gt', 'RAW', message_grouping => 'TRANSACTIONAL');
                          CALL dbms_aqadm.create_queue('b.gq', 'b.gt'); CALL dbms_aqadm.start_queue('b.gq');""")
    s = Session(conn)
    cases = [
        ("b.sq", dict(visibility="ON_COMMIT", delivery_mode="BUFFERED"), None, 25293),
        ("b.sq", dict(visibility=IMM, delivery_mode="SPILLED"), None, 25299),
        ("b.sq", dict(visibility=IMM, delivery_mode="PERSISTENT_OR_BUFFERED"), None, 25299),
        ("b.sq", dict(visibility=IMM, delivery_mode="BUFFERED"), MessageProperties(delay=5), 25293),
        ("b.gq", dict(visibility=IMM, delivery_mode="BUFFERED"), None, 25293),
    ]
    for queue, kw, props, code in cases:
        with pytest.raises(QueueError) as e:
            await s.enqueue(queue, b"x", props, **kw)
        assert e.value.code == code, (queue, kw)
    with pytest.raises(QueueError) as e:
        await s.dequeue("b.sq", DequeueOptions(delivery_mode="BUFFERED"))
    assert e.value.code == 25293
    assert await conn.fetchval('SELECT count(*) FROM b."aq$_st_b"') == 0
    assert await conn.fetchval("SELECT count(*) FROM b.st") == 0


async def test_flow_control(conn: asyncpg.Connection) -> None:
    """A queue's buffered backlog stops at pgaq.buffered_max_messages with ORA-25307; a
    dequeue makes room again."""
    await conn.execute(SETUP)
    await conn.execute("SET pgaq.buffered_max_messages = 200")
    s = Session(conn)
    n = 0
    with pytest.raises(QueueError) as e:
        for _ in range(10_000):
            await s.enqueue("b.sq", b"x" * 100, visibility=IMM, delivery_mode="BUFFERED")
            n += 1
    assert e.value.code == 25307
    assert n == 200
    await s.dequeue("b.sq", DequeueOptions(visibility=IMM, delivery_mode="BUFFERED"))
    await s.enqueue("b.sq", b"x", visibility=IMM, delivery_mode="BUFFERED")
    assert await conn.fetchval("SELECT num_msgs FROM aq.\"v$buffered_queues\" WHERE queue_name = 'sq'") == 200


async def test_crash_loses_buffered_messages_only_and_a_clean_restart_keeps_them() -> None:
    """AQ User's Guide (10.2), "Buffered Messaging": buffered messages are lost on an instance
    crash; persistent ones are not. On PostgreSQL: an immediate-mode stop (a crash: recovery
    resets UNLOGGED tables) loses the buffered messages and nothing else; a clean restart keeps
    them (docs/operations.md)."""
    import os
    import shutil
    import tempfile
    from pathlib import Path

    from pgaq.embedded import Cluster
    from pgaq.migrate import migrate

    base = Path(tempfile.mkdtemp(prefix="pgaq-buffered-"))
    os.chmod(base, 0o755)
    cluster = Cluster(base / "c", durable=False)
    cluster.init()
    cluster.start()
    try:
        conn = await asyncpg.connect(cluster.dsn())
        await migrate(conn)
        await conn.execute(SETUP)
        s = Session(conn)
        await s.enqueue("b.sq", b"kept", visibility=IMM)
        await s.enqueue("b.sq", b"buffered 1", visibility=IMM, delivery_mode="BUFFERED")
        await s.enqueue("b.mq", b"kept too", MessageProperties(), visibility=IMM)
        await s.enqueue("b.mq", b"buffered 2", visibility=IMM, delivery_mode="BUFFERED")
        await conn.close()

        await asyncio.to_thread(cluster.stop, "fast")  # a clean shutdown
        await asyncio.to_thread(cluster.start)
        conn = await asyncpg.connect(cluster.dsn())
        assert await conn.fetchval("SELECT count(*) FROM b.\"aq$st\" WHERE msg_state = 'IN-MEMORY'") == 1
        await conn.close()

        await asyncio.to_thread(cluster.stop, "immediate")  # a crash
        await asyncio.to_thread(cluster.start)
        conn = await asyncpg.connect(cluster.dsn())
        s = Session(conn)
        assert await conn.fetchval("SELECT count(*) FROM b.\"aq$st\" WHERE msg_state = 'IN-MEMORY'") == 0
        assert await conn.fetchval("SELECT count(*) FROM b.\"aq$mt\" WHERE msg_state = 'IN-MEMORY'") == 0
        assert await s.dequeue("b.sq", DequeueOptions(visibility=IMM, delivery_mode="BUFFERED")) == []
        [m] = await s.dequeue("b.sq", DequeueOptions(visibility=IMM, delivery_mode="PERSISTENT_OR_BUFFERED"))
        assert m.payload == b"kept"
        [m] = await s.dequeue("b.mq", DequeueOptions("P", visibility=IMM))
        assert m.payload == b"kept too"
        # the queue takes buffered messages again
        await s.enqueue("b.sq", b"after", visibility=IMM, delivery_mode="BUFFERED")
        [m] = await s.dequeue("b.sq", DequeueOptions(visibility=IMM, delivery_mode="BUFFERED"))
        assert m.payload == b"after"
        await conn.close()
    finally:
        cluster.destroy()
        shutil.rmtree(base, ignore_errors=True)


async def test_expired_buffered_message_moves_to_the_exception_queue_as_persistent(
        conn: asyncpg.Connection) -> None:
    """AQ User's Guide (10.2), "Buffered Messaging": "When a buffered message has been in the
    queue beyond its expiration period, it is moved into the exception queue as a persistent
    message." """
    await conn.execute(SETUP)
    s = Session(conn)
    mid = await s.enqueue("b.sq", b"old", MessageProperties(expiration=1), visibility=IMM,
                          delivery_mode="BUFFERED")
    await conn.execute(f"UPDATE b.\"aq$_st_b\" SET expire_at = now() - interval '1 second' "
                       f"WHERE msgid = decode('{mid}', 'hex')")
    await conn.fetchrow("SELECT * FROM aq.monitor_pass()")
    assert await conn.fetchval('SELECT count(*) FROM b."aq$_st_b"') == 0
    row = await conn.fetchrow("SELECT q_name, state, delivery_mode, expiration_reason FROM b.st")
    assert tuple(row) == ("aq$_st_e", 3, "PERSISTENT", "TIME_EXPIRATION")
    await conn.execute("CALL dbms_aqadm.start_queue('b.aq$_st_e', enqueue => false)")
    [m] = await s.dequeue("b.aq$_st_e", DequeueOptions(msgid=mid, visibility=IMM))
    assert m.payload == b"old" and m.delivery_mode == "PERSISTENT"


async def test_sql_listen_by_delivery_mode(conn: asyncpg.Connection) -> None:
    """Oracle's LISTEN with listen_delivery_mode: the first agent with a message of a mode
    listened to, and message_delivery_mode says which; the form without it hears
    persistent messages only."""
    await conn.execute(SETUP)
    s = Session(conn)
    await s.enqueue("b.mq", b"x", visibility=IMM, delivery_mode="BUFFERED")  # for B and E
    agents = "ARRAY[sys.aq$_agent('P', 'b.mq', NULL), sys.aq$_agent('B', 'b.mq', NULL)]"
    with pytest.raises(asyncpg.PostgresError, match="ORA-25254"):
        await conn.execute(f"CALL dbms_aq.listen({agents}, 0, NULL, NULL)")
    r = await conn.fetchrow(f"CALL dbms_aq.listen({agents}, 0, 'PERSISTENT_OR_BUFFERED', NULL, NULL)")
    assert (r["agent"]["name"], r["message_delivery_mode"]) == ("B", "BUFFERED")
    with pytest.raises(asyncpg.PostgresError, match="ORA-25254"):
        await conn.execute(f"CALL dbms_aq.listen({agents}, 0, 'PERSISTENT', NULL, NULL)")
    await s.enqueue("b.mq", b"y", visibility=IMM)  # persistent, for P and E
    r = await conn.fetchrow(f"CALL dbms_aq.listen({agents}, 0, 'PERSISTENT_OR_BUFFERED', NULL, NULL)")
    assert (r["agent"]["name"], r["message_delivery_mode"]) == ("P", "PERSISTENT")
    r = await conn.fetchrow(f"CALL dbms_aq.listen({agents}, 0, dbms_aq.buffered(), NULL, NULL)")
    assert (r["agent"]["name"], r["message_delivery_mode"]) == ("B", "BUFFERED")


async def test_plsql_buffered_enqueue_and_dequeue(conn: asyncpg.Connection) -> None:
    """The AQ User's Guide's PL/SQL, BEGIN .. END as CALL: enqueue_options.delivery_mode
    BUFFERED with IMMEDIATE visibility; a dequeue of BUFFERED messages (IMMEDIATE) gets it, and
    its message_properties.delivery_mode says BUFFERED; ON_COMMIT is refused for both."""
    await conn.execute(SETUP)
    enq = ("CALL dbms_aq.enqueue('b.sq', dbms_aq.enqueue_options(visibility => {vis}, "
           "delivery_mode => dbms_aq.buffered()), NULL, '\\x0102'::bytea, NULL)")
    deq = ("CALL dbms_aq.dequeue('b.sq', dbms_aq.dequeue_options(visibility => {vis}, "
           "delivery_mode => {mode}, wait => 0), NULL, NULL::bytea, NULL)")
    with pytest.raises(asyncpg.PostgresError, match="ORA-25293"):
        await conn.execute(enq.format(vis="dbms_aq.on_commit()"))
    mid = (await conn.fetchrow(enq.format(vis="dbms_aq.immediate()")))["msgid"]
    assert await conn.fetchval('SELECT count(*) FROM b."aq$_st_b"') == 1
    with pytest.raises(asyncpg.PostgresError, match="ORA-25293"):
        await conn.execute(deq.format(vis="dbms_aq.on_commit()", mode="dbms_aq.buffered()"))
    with pytest.raises(asyncpg.PostgresError, match="ORA-25228"):  # persistent only: nothing
        await conn.execute(deq.format(vis="dbms_aq.immediate()", mode="dbms_aq.persistent()"))
    got = await conn.fetchrow(deq.format(vis="dbms_aq.immediate()", mode="'2'"))  # DBMS_AQ.BUFFERED's number
    assert (got["msgid"], got["payload"]) == (mid, b"\x01\x02")
    assert got["message_properties"]["delivery_mode"] == "BUFFERED"
    with pytest.raises(asyncpg.PostgresError, match="ORA-25299"):
        await conn.execute(deq.format(vis="dbms_aq.immediate()", mode="'SPILLED'"))


@pytest.mark.parametrize("queue,consumer", [("b.sq", None), ("b.mq", "E")])
async def test_purge_by_delivery_mode(conn: asyncpg.Connection, queue: str, consumer: str | None) -> None:
    """purge_options.delivery_mode selects what a purge removes: persistent messages (the
    default), buffered ones, or both."""
    await conn.execute(SETUP)
    s = Session(conn)
    table = "b.st" if queue == "b.sq" else "b.mt"
    for mode in ("PERSISTENT", "BUFFERED"):
        await s.enqueue(queue, mode.encode(), visibility=IMM, delivery_mode=mode)

    async def states() -> list[str]:
        return sorted({r[0] for r in await conn.fetch(f'SELECT msg_state FROM b."aq${table[2:]}"')})

    assert await states() == ["IN-MEMORY", "READY"]
    await conn.execute(f"CALL dbms_aqadm.purge_queue_table('{table}', NULL)")
    assert await states() == ["IN-MEMORY"]
    await conn.execute(f"CALL dbms_aqadm.purge_queue_table('{table}', NULL, "
                       "dbms_aqadm.purge_options(delivery_mode => 'BUFFERED'))")
    assert await states() == []
    assert await conn.fetchval(f'SELECT count(*) FROM b."aq$_{table[2:]}_b"') == 0
    for mode in ("PERSISTENT", "BUFFERED"):
        await s.enqueue(queue, mode.encode(), visibility=IMM, delivery_mode=mode)
    await conn.execute(f"CALL dbms_aqadm.purge_queue_table('{table}', NULL, "
                       "dbms_aqadm.purge_options(block => true, delivery_mode => 'PERSISTENT_OR_BUFFERED'))")
    assert await states() == []
    assert await s.dequeue(queue, DequeueOptions(consumer, visibility=IMM,
                                                 delivery_mode="PERSISTENT_OR_BUFFERED")) == []


async def test_plsql_dequeue_array_of_buffered_messages(conn: asyncpg.Connection) -> None:
    await conn.execute(SETUP)
    s = Session(conn)
    await s.enqueue("b.sq", b"p", visibility=IMM)
    await s.enqueue_array("b.sq", [(b"b1", None), (b"b2", None)], visibility=IMM, delivery_mode="BUFFERED")
    call = ("CALL dbms_aq.dequeue_array('b.sq', dbms_aq.dequeue_options(visibility => {vis}, "
            "delivery_mode => {mode}, wait => 0), 10, NULL, NULL::bytea[], NULL, NULL)")
    with pytest.raises(asyncpg.PostgresError, match="ORA-25293"):
        await conn.execute(call.format(vis="dbms_aq.on_commit()", mode="dbms_aq.buffered()"))
    r = await conn.fetchrow(call.format(vis="dbms_aq.immediate()", mode="dbms_aq.persistent_or_buffered()"))
    assert r["payload_array"] == [b"b1", b"b2"] and r["dequeued"] == 2
    assert [p["delivery_mode"] for p in r["message_properties_array"]] == ["BUFFERED", "BUFFERED"]
    r = await conn.fetchrow(call.format(vis="dbms_aq.immediate()", mode="dbms_aq.persistent_or_buffered()"))
    assert r["payload_array"] == [b"p"]
    assert [p["delivery_mode"] for p in r["message_properties_array"]] == ["PERSISTENT"]


async def test_buffered_rules_and_priorities(conn: asyncpg.Connection) -> None:
    """AQ User's Guide (10.2), "Buffered Messaging": "Rule-based subscriptions are supported
    with buffered messaging"; "All ordering schemes available for persistent messages are also
    available for buffered messages"."""
    await conn.execute("""
        CREATE SCHEMA r;
        CALL dbms_aqadm.create_queue_table('r.pt', 'RAW', sort_list => 'PRIORITY,ENQ_TIME',
                                           multiple_consumers => true);
        CALL dbms_aqadm.create_queue('r.q', 'r.pt'); CALL dbms_aqadm.start_queue('r.q');
        CALL dbms_aqadm.add_subscriber('r.q', sys.aq$_agent('URGENT', NULL, NULL), rule => 'priority < 3',
                                       delivery_mode => 'BUFFERED');
        CALL dbms_aqadm.add_subscriber('r.q', sys.aq$_agent('ALL', NULL, NULL), delivery_mode => 'BUFFERED');""")
    s = Session(conn)
    for pri in (5, 1, 4, 2):
        await s.enqueue("r.q", str(pri).encode(), MessageProperties(priority=pri), visibility=IMM,
                        delivery_mode="BUFFERED")

    async def drain(consumer: str) -> list[bytes]:
        out: list[bytes] = []
        while got := await s.dequeue("r.q", DequeueOptions(consumer, visibility=IMM, delivery_mode="BUFFERED")):
            out.append(raw(got[0].payload))
        return out

    assert await drain("URGENT") == [b"1", b"2"]
    assert await drain("ALL") == [b"1", b"2", b"4", b"5"]
    assert await conn.fetchval('SELECT count(*) FROM r."aq$_pt_b"') == 0


async def test_library_listen_by_delivery_mode(conn: asyncpg.Connection) -> None:
    from pgaq import Agent

    await conn.execute(SETUP)
    s = Session(conn)
    agents = [Agent("P", "b.mq"), Agent("B", "b.mq")]
    await s.enqueue("b.mq", b"x", visibility=IMM, delivery_mode="BUFFERED")
    assert await s.listen(agents, 0) is None  # persistent messages only
    assert await s.listen_delivery(agents, 0, "PERSISTENT") is None
    assert await s.listen_delivery(agents, 0) == (agents[1], "BUFFERED")
    await s.enqueue("b.mq", b"y", visibility=IMM)
    assert await s.listen_delivery(agents, 0) == (agents[0], "PERSISTENT")
    assert await s.listen(agents, 0) == agents[0]
    assert await s.listen_delivery(agents, 0, "BUFFERED") == (agents[1], "BUFFERED")
    with pytest.raises(QueueError) as e:
        await s.listen_delivery(agents, 0, "SPILLED")
    assert e.value.code == 25299


async def test_library_wait_is_woken_by_a_buffered_enqueue(conn: asyncpg.Connection, db_dsn: str) -> None:
    await conn.execute(SETUP)
    other = await asyncpg.connect(db_dsn)
    try:
        waiter = Session(conn)
        got = asyncio.create_task(waiter.dequeue("b.sq", DequeueOptions(
            visibility=IMM, delivery_mode="BUFFERED", wait=30)))
        mid = await Session(other).enqueue("b.sq", b"now", visibility=IMM, delivery_mode="BUFFERED")
        [m] = await asyncio.wait_for(got, 10)
        assert (m.msgid, m.delivery_mode) == (mid, "BUFFERED")
    finally:
        await other.close()
        await waiting.shutdown()  # the process's shared listening connection


@pytest.mark.parametrize("mode", ["BUFFERED", "PERSISTENT_OR_BUFFERED"])
async def test_sql_wait_is_woken_by_a_buffered_enqueue(conn: asyncpg.Connection, waiter: asyncpg.Connection,
                                                       producer: asyncpg.Connection, mode: str) -> None:
    """A blocked dbms_aq.dequeue of buffered messages (or of both kinds) looks at the
    companion table too, and returns the buffered message once it is enqueued."""
    await conn.execute(SETUP)
    got = asyncio.create_task(waiter.fetchrow(
        "CALL dbms_aq.dequeue('b.sq', dbms_aq.dequeue_options(visibility => dbms_aq.immediate(), "
        f"delivery_mode => '{mode}', wait => dbms_aq.forever()), NULL, NULL::bytea, NULL)"))
    await until(lambda: conn.fetchval(
        "SELECT count(*) > 0 FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query LIKE 'CALL dbms_aq.dequeue%'"),
        "the waiter to wait")
    await Session(producer).enqueue("b.sq", b"woken", visibility=IMM, delivery_mode="BUFFERED")
    row = await asyncio.wait_for(got, 10)
    assert row["payload"] == b"woken" and row["message_properties"]["delivery_mode"] == "BUFFERED"


# -- concurrent buffered calls (REMOVEs taken together: pgaq.coalesce) -----------------------
async def _sessions(db_dsn: str, n: int, setup: str = "") -> tuple[list[asyncpg.Connection], list[Session]]:
    conns = [await asyncpg.connect(db_dsn) for _ in range(n)]
    for c in conns:
        if setup:
            await c.execute(setup)
    return conns, [Session(c) for c in conns]


@pytest.mark.parametrize("fast", [frozenset({"grouped"}), frozenset({"grouped", "removen"}), frozenset()])
async def test_grouping_is_a_route_a_policy_pins(conn: asyncpg.Connection, db_dsn: str,
                                                 fast: frozenset[str]) -> None:
    """Sessions under one route policy: their concurrent buffered REMOVEs are grouped
    (route "grouped") only where the policy allows it, and the combined statement takes
    only routes it allows; the messages handed out are the same whichever way."""
    await conn.execute(SETUP)
    ids = await Session(conn).enqueue_array("b.sq", [(f"m{i}".encode(), None) for i in range(8)],
                                            visibility=IMM, delivery_mode="BUFFERED")
    policy = Pinned(fast)
    conns = [await asyncpg.connect(db_dsn) for _ in range(6)]
    try:
        sessions = [Session(c, route_policy=policy) for c in conns]
        opts = DequeueOptions(visibility=IMM, delivery_mode="BUFFERED")
        got = await asyncio.gather(*(s.dequeue("b.sq", opts) for s in sessions))
        assert sorted(len(g) for g in got) == [1] * 6
        assert {g[0].msgid for g in got} == set(ids[:6])
        assert set(policy.counts) <= fast | {"general"}
        assert (policy.counts["grouped"] == 6) == ("grouped" in fast)
        if "grouped" in fast:  # one statement per group, on the routes after "grouped"
            inner = sum(n for r, n in policy.counts.items() if r != "grouped")
            assert 1 <= inner < 6
            assert ("removen" in policy.counts) == ("removen" in fast)
    finally:
        for c in conns:
            await c.close()


async def test_flow_control_holds_for_concurrent_and_array_sends(conn: asyncpg.Connection, db_dsn: str) -> None:
    """Concurrent sends into room for five: at least five stored, fewer than five more
    than that (racing checks), the rest ORA-25307; then all refused; an array that would
    pass the limit is refused whole."""
    await conn.execute(SETUP)
    conns, sessions = await _sessions(db_dsn, 8, "SET pgaq.buffered_max_messages = 5")
    try:
        # the size shortcut of the check must not skip it: fill the table's first page
        await conn.execute("SET pgaq.buffered_max_messages = 0")
        s0 = Session(conn)
        await s0.enqueue_array("b.sq", [(b"x", None)] * 200, visibility=IMM, delivery_mode="BUFFERED")
        await s0.dequeue("b.sq", DequeueOptions(visibility=IMM, delivery_mode="BUFFERED", batch_size=200))
        got = await asyncio.gather(*(
            s.enqueue("b.sq", b"y", visibility=IMM, delivery_mode="BUFFERED") for s in sessions),
            return_exceptions=True)
        # each check counts what is committed, so sends racing each other may each find
        # room: the backlog passes the limit by less than their number, never more
        stored = await conn.fetchval('SELECT count(*) FROM b."aq$_st_b"')
        assert 5 <= stored < 5 + 8
        assert all(isinstance(g, str) or (isinstance(g, QueueError) and g.code == 25307) for g in got)
        assert sum(isinstance(g, str) for g in got) == stored
        # at the limit, every further send is refused
        got = await asyncio.gather(*(
            s.enqueue("b.sq", b"y", visibility=IMM, delivery_mode="BUFFERED") for s in sessions),
            return_exceptions=True)
        assert [getattr(g, "code", None) for g in got] == [25307] * 8
        # an array over the limit is refused whole
        await conn.execute('DELETE FROM b."aq$_st_b"')
        with pytest.raises(QueueError) as e:
            await sessions[0].enqueue_array("b.sq", [(b"z", None)] * 6, visibility=IMM,
                                            delivery_mode="BUFFERED")
        assert e.value.code == 25307
        assert await conn.fetchval('SELECT count(*) FROM b."aq$_st_b"') == 0
    finally:
        for c in conns:
            await c.close()


async def test_concurrent_buffered_removes_share_a_dequeue(conn: asyncpg.Connection, db_dsn: str) -> None:
    """Six sessions taking one buffered message each at once: six different messages, the
    first six in queue order, in fewer statements than calls; with grouping off, one each."""
    await conn.execute(SETUP)
    s0 = Session(conn)
    ids = await s0.enqueue_array("b.sq", [(f"m{i}".encode(), None) for i in range(10)],
                                 visibility=IMM, delivery_mode="BUFFERED")
    conns, sessions = await _sessions(db_dsn, 6)
    try:
        opts = DequeueOptions(visibility=IMM, delivery_mode="BUFFERED")
        before = client.BUFFERED_REMOVES.stats()
        got = await asyncio.gather(*(s.dequeue("b.sq", opts) for s in sessions))
        after = client.BUFFERED_REMOVES.stats()
        assert all(len(g) == 1 for g in got)
        assert {g[0].msgid for g in got} == set(ids[:6])
        assert all(g[0].delivery_mode == "BUFFERED" for g in got)
        assert after["calls"] - before["calls"] == 6
        assert after["statements"] - before["statements"] < 6
        alone = [Session(c, group_buffered=False) for c in conns[:4]]
        got = await asyncio.gather(*(s.dequeue("b.sq", opts) for s in alone))
        assert client.BUFFERED_REMOVES.stats() == after
        assert {g[0].msgid for g in got} == set(ids[6:])
        # more callers than messages: the ones left over get none, nothing is lost
        await s0.enqueue_array("b.sq", [(b"a", None), (b"b", None)], visibility=IMM, delivery_mode="BUFFERED")
        got = await asyncio.gather(*(s.dequeue("b.sq", opts) for s in sessions))
        assert sorted(len(g) for g in got) == [0, 0, 0, 0, 1, 1]
        assert await conn.fetchval('SELECT count(*) FROM b."aq$_st_b"') == 0
    finally:
        for c in conns:
            await c.close()
