"""Propagation keeps transaction groups whole and applies remote subscribers'
transformations (issue 21, section 2), queue to queue inside one database.

Oracle Streams Advanced Queuing User's Guide and Reference 10g Release 2 (10.2), "Introducing
Oracle Streams AQ", "Message Grouping": "All messages belonging to a group must be created in
the same transaction, and all messages created in one transaction belong to the same group."
"The message grouping property is preserved across propagation. However, the destination queue
where messages are propagated must also be enabled for transactional grouping." "To transform a
message during propagation, specify a mapping when you add a subscriber."
"""

from __future__ import annotations

import asyncpg
import pytest
from pgaq import DequeueOptions, MessageProperties, Session

from .helpers import make_queue
from .test_propagation import Start, start_propagator  # noqa: F401  (the fixture)

GROUPS = [3, 2, 1]  # messages per source transaction


async def grouped_topology(conn: asyncpg.Connection) -> None:
    await make_queue(conn, "g.out_q", "g.out_t", multiple=True, grouping="TRANSACTIONAL")
    await make_queue(conn, "g.in_q", "g.in_t", grouping="TRANSACTIONAL")
    await conn.execute("CALL dbms_aqadm.add_subscriber('g.out_q', sys.aq$_agent(NULL, 'g.in_q', 0))")
    await conn.execute("CALL dbms_aqadm.schedule_propagation('g.out_q', destination_queue => 'g.in_q', "
                       "latency => 0)")


async def enqueue_groups(conn: asyncpg.Connection) -> list[list[str]]:
    """GROUPS transactions, each enqueuing its messages one call at a time; the first
    message of each group has priority 5, the others 1."""
    s = Session(conn)
    groups: list[list[str]] = []
    for g, n in enumerate(GROUPS):
        async with conn.transaction():
            groups.append([await s.enqueue("g.out_q", bytes([g, i]),
                                           MessageProperties(priority=5 if i == 0 else 1))
                           for i in range(n)])
    return groups


@pytest.mark.parametrize("batch", [2, 500])
async def test_a_group_arrives_as_one_group(conn: asyncpg.Connection, start_propagator: Start,  # noqa: F811
                                            batch: int) -> None:
    """AQ User's Guide (10.2), "Message Grouping": "The message grouping property is preserved
    across propagation." A batch smaller than a group (2 < 3) must not split it; a batch larger
    than all of them (500) must not merge them: each source transaction arrives as one
    transaction group, is dequeued as one group (a call returns one group's messages), and its
    members take the first message's priority (AQ User's Guide (10.2), "Message Grouping":
    "Group message properties priority, delay, and expiration are determined solely by the
    message properties specified for the first message in a group")."""
    await grouped_topology(conn)
    groups = await enqueue_groups(conn)
    running = await start_propagator(batch=batch)
    await running.moved(sum(GROUPS))
    # at the destination: one transaction group per source transaction, no more, no less
    rows = await conn.fetch("SELECT txn_group, upper(encode(original_msgid, 'hex')) AS src, priority "
                            "FROM g.in_t ORDER BY enq_seq")
    arrived: dict[int, list[str]] = {}
    for r in rows:
        arrived.setdefault(r["txn_group"], []).append(r["src"])
    assert sorted(arrived.values()) == sorted(groups)
    assert {r["priority"] for r in rows} == {5}
    # dequeued together: a batch dequeue returns exactly one group, in the source's order,
    # and NEXT_TRANSACTION moves on to the next group
    s = Session(conn)
    for i, want in enumerate(groups):
        nav = "NEXT_MESSAGE" if i == 0 else "NEXT_TRANSACTION"
        got = await s.dequeue("g.in_q", DequeueOptions(batch_size=10, navigation=nav))
        assert [m.original_msgid for m in got] == want
        assert len({m.transaction_group for m in got}) == 1
    assert await s.dequeue("g.in_q", DequeueOptions(batch_size=10, navigation="NEXT_TRANSACTION")) == []


async def test_a_group_arrives_as_one_group_through_a_postgresql_link(
        conn: asyncpg.Connection, remote_dsn: str, start_propagator: Start) -> None:  # noqa: F811
    """The same over a database link to another PostgreSQL database (each batch one remote
    transaction): AQ User's Guide (10.2), "Message Grouping": "The message grouping property is
    preserved across propagation"."""
    remote = await asyncpg.connect(remote_dsn)
    try:
        await make_queue(conn, "g.out_q", "g.out_t", multiple=True, grouping="TRANSACTIONAL")
        await make_queue(remote, "g.in_q", "g.in_t", grouping="TRANSACTIONAL")
        await conn.execute("CALL aq.create_database_link('eu', $1)", remote_dsn)
        await conn.execute("CALL dbms_aqadm.add_subscriber('g.out_q', sys.aq$_agent(NULL, 'g.in_q@eu', 0))")
        await conn.execute("CALL dbms_aqadm.schedule_propagation('g.out_q', 'eu', destination_queue => 'g.in_q', "
                           "latency => 0)")
        groups = await enqueue_groups(conn)
        running = await start_propagator(batch=2)
        await running.moved(sum(GROUPS))
        rows = await remote.fetch("SELECT txn_group, upper(encode(original_msgid, 'hex')) AS src "
                                  "FROM g.in_t ORDER BY enq_seq")
        arrived: dict[int, list[str]] = {}
        for r in rows:
            arrived.setdefault(r["txn_group"], []).append(r["src"])
        assert sorted(arrived.values()) == sorted(groups)
    finally:
        await remote.close()


async def test_sql_dequeue_navigates_a_propagated_group(conn: asyncpg.Connection,
                                                        start_propagator: Start) -> None:  # noqa: F811
    """AQ User's Guide (10.2), "Navigation of Messages in Dequeuing": "if NEXT_MESSAGE is
    requested, then the position is set to the next message in the same transaction" -- after
    the last message of a propagated group, NEXT_MESSAGE ends the group (ORA-25235) and
    NEXT_TRANSACTION moves to the next one."""
    await grouped_topology(conn)
    groups = await enqueue_groups(conn)
    running = await start_propagator(batch=2)
    await running.moved(sum(GROUPS))
    await conn.execute("""
        CREATE TEMP TABLE seen (src text, grp text);
        CREATE PROCEDURE pg_temp.take(nav text) LANGUAGE plpgsql AS $$
        DECLARE
          props dbms_aq.message_properties_t;
          payload bytea;
          id bytea;
        BEGIN
          CALL dbms_aq.dequeue('g.in_q', dbms_aq.dequeue_options(navigation => nav, wait => 0),
                               props, payload, id);
          INSERT INTO seen VALUES (upper(encode(props.original_msgid, 'hex')), props.transaction_group);
        END $$;
    """)
    for _ in range(GROUPS[0]):
        await conn.execute("CALL pg_temp.take('NEXT_MESSAGE')")
    with pytest.raises(asyncpg.PostgresError, match="ORA-25235"):
        await conn.execute("CALL pg_temp.take('NEXT_MESSAGE')")
    await conn.execute("CALL pg_temp.take('NEXT_TRANSACTION')")
    seen = await conn.fetch("SELECT src, grp FROM seen")
    assert [r["src"] for r in seen] == groups[0] + groups[1][:1]
    assert len({r["grp"] for r in seen[:3]}) == 1 and seen[3]["grp"] != seen[0]["grp"]


TYPES = """
    CREATE SCHEMA tx;
    CREATE TYPE tx.order_typ AS (orderno numeric(5), customer_name varchar(30), total numeric(9,2));
    CREATE TYPE tx.summary_typ AS (label varchar(60), total numeric(9,2));
    CREATE FUNCTION tx.order_to_summary(o tx.order_typ) RETURNS tx.summary_typ LANGUAGE sql IMMUTABLE
      AS $$ SELECT ROW(o.orderno || ':' || o.customer_name, o.total)::tx.summary_typ $$;
    CREATE FUNCTION tx.order_to_raw(o tx.order_typ) RETURNS bytea LANGUAGE sql IMMUTABLE
      AS $$ SELECT convert_to(o.customer_name, 'UTF8') $$;
    CALL dbms_transform.create_transformation('tx', 'order_to_summary', 'tx', 'order_typ',
                                              'tx', 'summary_typ', 'tx.order_to_summary');
    CALL dbms_transform.create_transformation('tx', 'order_to_raw', 'tx', 'order_typ',
                                              'SYS', 'RAW', 'tx.order_to_raw');
    CALL dbms_aqadm.create_queue_table('tx.out_t', 'tx.order_typ', multiple_consumers => true);
    CALL dbms_aqadm.create_queue('tx.out_q', 'tx.out_t');
    CALL dbms_aqadm.start_queue('tx.out_q');
    CALL dbms_aqadm.create_queue_table('tx.orders_t', 'tx.order_typ');
    CALL dbms_aqadm.create_queue('tx.orders_q', 'tx.orders_t');
    CALL dbms_aqadm.start_queue('tx.orders_q');
    CALL dbms_aqadm.create_queue_table('tx.summary_t', 'tx.summary_typ');
    CALL dbms_aqadm.create_queue('tx.summary_q', 'tx.summary_t');
    CALL dbms_aqadm.start_queue('tx.summary_q');
    CALL dbms_aqadm.create_queue_table('tx.raw_t', 'RAW');
    CALL dbms_aqadm.create_queue('tx.raw_q', 'tx.raw_t');
    CALL dbms_aqadm.start_queue('tx.raw_q');
    CALL dbms_aqadm.add_subscriber('tx.out_q', sys.aq$_agent('LOCAL', NULL, NULL));
    CALL dbms_aqadm.add_subscriber('tx.out_q', sys.aq$_agent(NULL, 'tx.orders_q', 0));
    CALL dbms_aqadm.add_subscriber('tx.out_q', sys.aq$_agent(NULL, 'tx.summary_q', 0),
                                   transformation => 'tx.order_to_summary');
    CALL dbms_aqadm.add_subscriber('tx.out_q', sys.aq$_agent(NULL, 'tx.raw_q', 0),
                                   transformation => 'tx.order_to_raw');
"""


async def test_a_remote_subscribers_transformation_is_applied_on_propagation(
        conn: asyncpg.Connection, start_propagator: Start) -> None:  # noqa: F811
    """AQ User's Guide (10.2), "Message Format Transformation": "To transform a message during
    propagation, specify a mapping when you add a subscriber." Each remote subscriber gets the
    message through its own mapping (to an object type, to RAW), one without a mapping gets it
    as enqueued, and the local subscriber's copy is untouched."""
    await conn.execute(TYPES)
    await conn.execute("CALL dbms_aqadm.schedule_propagation('tx.out_q', latency => 0)")
    running = await start_propagator()
    mid = await conn.fetchval("""
        CALL dbms_aq.enqueue('tx.out_q', payload => ROW(42, 'ACME', 99.5)::tx.order_typ, msgid => NULL)""")
    await running.moved(3)
    s = Session(conn)
    [summary] = await s.dequeue("tx.summary_q")
    assert summary.payload == {"label": "42:ACME", "total": 99.5}
    assert summary.original_msgid == mid.hex().upper()
    [raw] = await s.dequeue("tx.raw_q")
    assert raw.payload == b"ACME"
    [order] = await s.dequeue("tx.orders_q")
    assert order.payload == {"orderno": 42, "customer_name": "ACME", "total": 99.5}
    [local] = await s.dequeue("tx.out_q", DequeueOptions(consumer_name="LOCAL"))
    assert local.payload == order.payload
