"""A subscriber's transformation is applied when that subscriber dequeues (issue 21,
section 2): through the Python library and through dbms_aq.dequeue.

Oracle Streams Advanced Queuing User's Guide and Reference 10g Release 2 (10.2), "Introducing
Oracle Streams AQ", "Message Format Transformation": "To transform a message during dequeue,
specify a mapping either in the dequeue options or when you add a subscriber. A dequeue mapping
overrides a subscriber mapping."
"""

from __future__ import annotations

import asyncpg
import pytest
from pgaq import DequeueOptions, Session

TYPES = """
    CREATE SCHEMA tx;
    CREATE TYPE tx.order_typ AS (orderno integer, customer_name varchar(30), total numeric(9,2));
    CREATE TYPE tx.summary_typ AS (label varchar(60), total numeric(9,2));
    CREATE FUNCTION tx.order_to_summary(o tx.order_typ) RETURNS tx.summary_typ LANGUAGE sql IMMUTABLE
      AS $$ SELECT ROW(o.orderno || ':' || o.customer_name, o.total)::tx.summary_typ $$;
    CREATE FUNCTION tx.order_to_raw(o tx.order_typ) RETURNS bytea LANGUAGE sql IMMUTABLE
      AS $$ SELECT convert_to(o.customer_name, 'UTF8') $$;
    CALL dbms_transform.create_transformation('tx', 'order_to_summary', 'tx', 'order_typ',
                                              'tx', 'summary_typ', 'tx.order_to_summary');
    CALL dbms_transform.create_transformation('tx', 'order_to_raw', 'tx', 'order_typ',
                                              'SYS', 'RAW', 'tx.order_to_raw');
    CALL dbms_aqadm.create_queue_table('tx.topic_t', 'tx.order_typ', multiple_consumers => true);
    CALL dbms_aqadm.create_queue('tx.topic', 'tx.topic_t');
    CALL dbms_aqadm.start_queue('tx.topic');
    CALL dbms_aqadm.add_subscriber('tx.topic', sys.aq$_agent('PLAIN', NULL, NULL));
    CALL dbms_aqadm.add_subscriber('tx.topic', sys.aq$_agent('SUMMARY', NULL, NULL),
                                   transformation => 'tx.order_to_summary');
"""

ORDER = {"orderno": 42, "customer_name": "ACME", "total": 99.5}
SUMMARY = {"label": "42:ACME", "total": 99.5}


@pytest.fixture
async def topic(conn: asyncpg.Connection) -> asyncpg.Connection:
    await conn.execute(TYPES)
    await Session(conn).enqueue("tx.topic", ORDER)
    return conn


async def test_the_library_applies_the_subscribers_mapping(topic: asyncpg.Connection) -> None:
    """AQ User's Guide (10.2): "To transform a message during dequeue, specify a mapping ...
    when you add a subscriber." SUMMARY gets its mapping's output, PLAIN the message as
    enqueued."""
    s = Session(topic)
    [summary] = await s.dequeue("tx.topic", DequeueOptions(consumer_name="SUMMARY"))
    assert summary.payload == SUMMARY
    [plain] = await s.dequeue("tx.topic", DequeueOptions(consumer_name="PLAIN"))
    assert plain.payload == ORDER


async def test_a_dequeue_mapping_overrides_the_subscribers(topic: asyncpg.Connection) -> None:
    """AQ User's Guide (10.2): "A dequeue mapping overrides a subscriber mapping." """
    s = Session(topic)
    [m] = await s.dequeue("tx.topic", DequeueOptions(consumer_name="SUMMARY",
                                                     transformation="tx.order_to_raw"))
    assert m.payload == b"ACME"


async def test_browse_applies_the_subscribers_mapping_too(topic: asyncpg.Connection) -> None:
    """The mapping is the subscriber's, whatever the dequeue mode: a BROWSE sees what a
    REMOVE would return."""
    s = Session(topic)
    [b] = await s.dequeue("tx.topic", DequeueOptions(consumer_name="SUMMARY", dequeue_mode="BROWSE"))
    [r] = await s.dequeue("tx.topic", DequeueOptions(consumer_name="SUMMARY", navigation="FIRST_MESSAGE"))
    assert b.payload == r.payload == SUMMARY


async def test_sql_dequeue_applies_the_subscribers_mapping(topic: asyncpg.Connection) -> None:
    """Through dbms_aq.dequeue: the payload argument is of the mapping's target type (the
    subscriber's, or the dequeue options' when given), and holds the transformed message."""
    row = await topic.fetchrow("""
        CALL dbms_aq.dequeue('tx.topic', dbms_aq.dequeue_options(consumer_name => 'SUMMARY', wait => 0),
                             NULL, NULL::tx.summary_typ, NULL)""")
    assert (row["payload"]["label"], float(row["payload"]["total"])) == ("42:ACME", 99.5)
    # PLAIN has no mapping: the queue's own type
    row = await topic.fetchrow("""
        CALL dbms_aq.dequeue('tx.topic', dbms_aq.dequeue_options(consumer_name => 'PLAIN', wait => 0),
                             NULL, NULL::tx.order_typ, NULL)""")
    assert row["payload"]["customer_name"] == "ACME"


async def test_sql_dequeue_wants_the_mappings_type(topic: asyncpg.Connection) -> None:
    """A payload argument of the queue's type for a subscriber whose mapping returns another
    type is refused (ORA-25215), not filled from the wrong type; the dequeue options' mapping
    overrides the subscriber's."""
    with pytest.raises(asyncpg.PostgresError, match="ORA-25215"):
        await topic.execute("""
            CALL dbms_aq.dequeue('tx.topic', dbms_aq.dequeue_options(consumer_name => 'SUMMARY', wait => 0),
                                 NULL, NULL::tx.order_typ, NULL)""")
    row = await topic.fetchrow("""
        CALL dbms_aq.dequeue('tx.topic', dbms_aq.dequeue_options(consumer_name => 'SUMMARY', wait => 0,
                                                                 transformation => 'tx.order_to_raw'),
                             NULL, NULL::bytea, NULL)""")
    assert row["payload"] == b"ACME"
