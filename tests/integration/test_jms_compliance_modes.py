"""Oracle JMS's two compliance modes (issue 32, item 7), selected by the factory option
`j2ee_compliant` (Oracle's Java property oracle.jms.j2eeCompliant; False, the default).

What is expected, from Oracle's "Oracle Database Advanced Queuing User's Guide" ("JMS
Message Headers", "DurableSubscriber", "Java EE Compliance"), the Oracle9i "Application
Developer's Guide - Advanced Queuing" ("J2EE Compliance": non-compliant priorities are any
Java int, smaller is more urgent, 1 the default) and JMS 1.1 (3.4.9, 3.4.10, 4.7, 6.11.1):

- compliant: JMSPriority 0-9, 9 the highest, 4 the default; anything else is refused.
  On a priority-ordered queue a higher JMSPriority is received first, and JMSPriority is
  read back as it was sent (AQ's priority, where smaller is first, is 9 - JMSPriority).
- non-compliant: JMSPriority is AQ's priority itself (any Java int; smaller first), 1 the
  default.
- JMSExpiration: non-compliant, the enqueue time plus the time to live; compliant,
  JMSTimestamp (the enqueue time, ms) plus the time to live (ms): the same number here,
  since JMSTimestamp is the enqueue time. 0 when the message never expires.
- durable subscribers: non-compliant, one name may be active on two topics at once;
  compliant, a name is one subscription: the client that made it moves it to the other
  topic (the old one is dropped, as JMS 1.1 6.11.1's change of topic), another client
  gets an error and the subscription stays.
- non-durable subscribers: the same in both modes (the guide names no difference), and
  ordered by priority as the mode says.

The priority mapping's test vectors (jms_priority_vectors.json) are shared with any other
client: the SQL functions aq.jms_priority_to_aq / aq.jms_priority_from_aq are checked
against them too.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pgaq.jms as jms
import pytest
from pgaq.jms import compliance

from .helpers import make_queue

VECTORS: dict[str, Any] = json.loads(
    (Path(__file__).parent / "jms_priority_vectors.json").read_text())
MODES = {"noncompliant": False, "compliant": True}


@pytest.fixture(params=["noncompliant", "compliant"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def connection(db_dsn: str, mode: str) -> AsyncIterator[jms.Connection]:
    factory = jms.ConnectionFactory(db_dsn, safety_poll=30.0, j2ee_compliant=MODES[mode])
    c = await factory.create_connection()
    try:
        yield c
    finally:
        await c.close()


async def priority_queue(conn: asyncpg.Connection, queue: str = "shop.prio_q", *,
                         multiple: bool = False) -> None:
    await make_queue(conn, queue, queue + "_t", "SYS.AQ$_JMS_TEXT_MESSAGE",
                     sort_list="PRIORITY,ENQ_TIME", multiple=multiple)


# -- the mapping, against the shared vectors ------------------------------------------------
@pytest.mark.parametrize("case", VECTORS["send"], ids=lambda c: f"{c['mode']}-{c['jms']}")
def test_send_vectors_in_python(case: dict[str, Any]) -> None:
    compliant = MODES[case["mode"]]
    if case.get("error"):
        with pytest.raises(jms.JMSException) as err:
            compliance.to_aq_priority(case["jms"], compliant)
        assert "priority" in err.value.message.lower()
    else:
        assert compliance.to_aq_priority(case["jms"], compliant) == case["aq"]


@pytest.mark.parametrize("case", VECTORS["receive"], ids=lambda c: f"{c['mode']}-{c['aq']}")
def test_receive_vectors_in_python(case: dict[str, Any]) -> None:
    assert compliance.from_aq_priority(case["aq"], MODES[case["mode"]]) == case["jms"]


def test_default_priority_vectors() -> None:
    for name, compliant in MODES.items():
        assert compliance.default_priority(compliant) == VECTORS["default"][name]


async def test_vectors_in_sql(conn: asyncpg.Connection) -> None:
    """The same mapping in the database, for a client that is not pgaq.jms."""
    for case in VECTORS["send"]:
        compliant = MODES[case["mode"]]
        if case.get("error"):
            if abs(case["jms"]) >= 2**31:
                continue  # not an SQL integer: the call itself cannot be made
            with pytest.raises(asyncpg.PostgresError, match="priority"):
                await conn.fetchval("SELECT aq.jms_priority_to_aq($1, $2)", case["jms"], compliant)
        else:
            got = await conn.fetchval("SELECT aq.jms_priority_to_aq($1, $2)", case["jms"], compliant)
            assert got == case["aq"], case
    for case in VECTORS["receive"]:
        got = await conn.fetchval("SELECT aq.jms_priority_from_aq($1, $2)", case["aq"],
                                  MODES[case["mode"]])
        assert got == case["jms"], case
    for name, compliant in MODES.items():
        got = await conn.fetchval("SELECT aq.jms_default_priority($1)", compliant)
        assert got == VECTORS["default"][name]


# -- the option ---------------------------------------------------------------------------
async def test_non_compliant_is_the_default(db_dsn: str) -> None:
    factory = jms.ConnectionFactory(db_dsn)
    assert factory.j2ee_compliant is False
    c = await factory.create_connection()
    try:
        assert c.j2ee_compliant is False
        producer = c.create_session().create_producer(None)
        assert producer.get_priority() == 1
    finally:
        await c.close()


def test_the_option_takes_a_bool_only() -> None:
    with pytest.raises(jms.JMSException, match="j2ee_compliant"):
        jms.ConnectionFactory("postgresql://x", j2ee_compliant="TRUE")  # type: ignore[arg-type]


# -- ordering -----------------------------------------------------------------------------
ORDER_CASES = {
    # sent JMS priorities, and the order they are received in
    "noncompliant": ([5, -3, 1, 9], [-3, 1, 5, 9]),
    "compliant": ([0, 9, 4, 7], [9, 7, 4, 0]),
}


async def test_priority_order_on_a_queue(conn: asyncpg.Connection, connection: jms.Connection,
                                         mode: str) -> None:
    await priority_queue(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "prio_q")
    producer = session.create_producer(queue)
    sent, expected = ORDER_CASES[mode]
    for p in sent:
        m = session.create_text_message(str(p))
        await producer.send(m, priority=p)
        assert m.jms_priority == p  # the header as sent, in the mode's terms
    stored = sorted(await conn.fetch("SELECT priority, user_data FROM shop.prio_q_t"),
                    key=lambda r: r["priority"])
    expect_stored = [compliance.to_aq_priority(p, MODES[mode]) for p in sent]
    assert [r["priority"] for r in stored] == sorted(expect_stored)
    consumer = await session.create_consumer(queue)
    await connection.start()
    got = [await consumer.receive(timeout=5.0) for _ in sent]
    assert [m.jms_priority for m in got if m is not None] == expected
    assert [m.text for m in got if isinstance(m, jms.TextMessage)] == [str(p) for p in expected]


async def test_default_priority(conn: asyncpg.Connection, connection: jms.Connection,
                                mode: str) -> None:
    await priority_queue(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "prio_q")
    producer = session.create_producer(queue)
    default = VECTORS["default"][mode]
    assert producer.get_priority() == default
    m = session.create_text_message("d")
    await producer.send(m)
    assert m.jms_priority == default
    assert await conn.fetchval("SELECT priority FROM shop.prio_q_t") == \
        compliance.to_aq_priority(default, MODES[mode])
    await connection.start()
    got = await (await session.create_consumer(queue)).receive(timeout=5.0)
    assert got is not None and got.jms_priority == default


BAD_PRIORITIES = {
    "noncompliant": [2**31, -(2**31) - 1, True, 1.5, "1"],
    "compliant": [-1, 10, 100, True, 4.0, "4"],
}


async def test_out_of_range_priority_is_refused(conn: asyncpg.Connection,
                                                connection: jms.Connection, mode: str) -> None:
    await priority_queue(conn)
    session = connection.create_session()
    producer = session.create_producer(session.get_queue("shop", "prio_q"))
    for bad in BAD_PRIORITIES[mode]:
        with pytest.raises(jms.JMSException, match="priority"):
            producer.set_priority(bad)  # type: ignore[arg-type]
        with pytest.raises(jms.JMSException, match="priority"):
            await producer.send(session.create_text_message("x"), priority=bad)  # type: ignore[arg-type]
    assert producer.get_priority() == VECTORS["default"][mode]
    assert await conn.fetchval("SELECT count(*) FROM shop.prio_q_t") == 0


async def test_a_plsql_enqueue_read_in_each_mode(conn: asyncpg.Connection,
                                                 connection: jms.Connection, mode: str) -> None:
    """AQ's own priorities (any integer, 1 AQ's default) as each mode reads them."""
    await priority_queue(conn)
    for aq_priority in (1, -10, 25):
        await conn.execute(
            "CALL dbms_aq.enqueue(queue_name => 'shop.prio_q', "
            "message_properties => dbms_aq.message_properties(priority => $1), "
            "payload => ROW(ROW(NULL, NULL, NULL, NULL, NULL, NULL, '{}')::sys.aq$_jms_header, "
            "3, 'sql')::sys.aq$_jms_text_message, msgid => NULL)",
            aq_priority)
    session = connection.create_session()
    consumer = await session.create_consumer(session.get_queue("shop", "prio_q"))
    await connection.start()
    got = [await consumer.receive(timeout=5.0) for _ in range(3)]
    expected = [compliance.from_aq_priority(p, MODES[mode]) for p in (-10, 1, 25)]
    assert [m.jms_priority for m in got if m is not None] == expected
    if MODES[mode]:
        assert expected == [9, 8, 0]


# -- expiration ---------------------------------------------------------------------------
async def monitor_at(conn: asyncpg.Connection, ms: int) -> None:
    """The queue monitor's pass over every queue table as if it were `ms` (since the epoch):
    its clock is a parameter."""
    await conn.fetchval("SELECT sum(x.done) FROM aq.queue_tables t, "
                        "aq.monitor_table(t, to_timestamp($1::float8 / 1000), 1000) x", ms)


async def test_expiration_in_each_mode(conn: asyncpg.Connection, connection: jms.Connection,
                                       mode: str) -> None:
    """Compliant: JMSTimestamp + the time to live in ms, exact. Non-compliant: the enqueue
    time + the time to live AQ keeps (its EXPIRATION, whole seconds rounded up). The sender
    reads after the send what its mode's receivers read."""
    await priority_queue(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "prio_q")
    producer = session.create_producer(queue)
    compliant = MODES[mode]
    # name, time to live (s), AQ's expiration (s), the life JMSExpiration adds (ms)
    lives = [("60 s", 60.0, 60, 60_000), ("never", 0.0, None, None),
             ("1.5 s", 1.5, 2, 1_500 if compliant else 2_000),
             ("2.001 s", 2.001, 3, 2_001 if compliant else 3_000)]
    sent: dict[str, tuple[int, int]] = {}
    for name, ttl, _, life in lives:
        m = session.create_text_message(name)
        await producer.send(m, time_to_live=ttl)
        assert m.jms_expiration == (m.jms_timestamp + life if life else 0)
        sent[name] = (m.jms_timestamp, m.jms_expiration)
    stored = dict(await conn.fetch(
        "SELECT (user_data).text_vc, expiration FROM shop.prio_q_t"))
    assert stored == {name: aq for name, _, aq, _ in lives}  # what PL/SQL and IDAP see
    consumer = await session.create_consumer(queue)
    await connection.start()
    for _ in lives:
        got = await consumer.receive(timeout=5.0)
        assert isinstance(got, jms.TextMessage) and got.text is not None
        _, _, _, life = next(x for x in lives if x[0] == got.text)
        assert got.jms_expiration == (got.jms_timestamp + life if life else 0)
        assert (got.jms_timestamp, got.jms_expiration) == sent[got.text]


async def test_a_message_does_not_expire_before_its_jms_expiration(
        conn: asyncpg.Connection, connection: jms.Connection, mode: str) -> None:
    """JMS 1.1 3.4.9: a message is destroyed once GMT is past JMSExpiration, not before. AQ
    expires it at the enqueue time + its whole seconds (rounded up): at or after it."""
    await priority_queue(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "prio_q")
    m = session.create_text_message("short")
    await session.create_producer(queue).send(m, time_to_live=1.5)
    await monitor_at(conn, m.jms_expiration - 1)
    assert await conn.fetchval("SELECT state FROM shop.prio_q_t") == 0
    await monitor_at(conn, m.jms_timestamp + 2_001)  # AQ's 2 s are past, whatever the µs
    assert await conn.fetchval("SELECT state FROM shop.prio_q_t") == 3


async def test_a_plsql_expiration_is_read_from_aq(conn: asyncpg.Connection,
                                                  connection: jms.Connection) -> None:
    """A message whose expiration PL/SQL set (no JMS time to live recorded) reads AQ's."""
    await priority_queue(conn)
    await conn.execute(
        "CALL dbms_aq.enqueue(queue_name => 'shop.prio_q', "
        "message_properties => dbms_aq.message_properties(expiration => 7), "
        "payload => ROW(ROW(NULL, NULL, NULL, NULL, NULL, NULL, '{}')::sys.aq$_jms_header, "
        "1, 'x')::sys.aq$_jms_text_message, msgid => NULL)")
    session = connection.create_session()
    consumer = await session.create_consumer(session.get_queue("shop", "prio_q"))
    await connection.start()
    got = await consumer.receive(timeout=5.0)
    assert got is not None and got.jms_expiration == got.jms_timestamp + 7_000


# -- JMSTimestamp --------------------------------------------------------------------------
async def test_the_sender_reads_the_timestamp_receivers_and_selectors_see(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    """JMS 1.1 3.4.4: JMSTimestamp is when the message was handed to the provider; Oracle
    maps it to the enqueue time. The sender's value after the send is that same number, so
    a selector on it finds the message."""
    await priority_queue(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "prio_q")
    producer = session.create_producer(queue)
    stamps = []
    for i in range(5):
        m = session.create_text_message(str(i))
        await producer.send(m)
        stamps.append(m.jms_timestamp)
    enq = await conn.fetch("SELECT (user_data).text_vc AS t,"
                           " floor(extract(epoch FROM enq_time) * 1000)::bigint AS ms"
                           " FROM shop.prio_q_t")
    assert {int(r["t"]): r["ms"] for r in enq} == dict(enumerate(stamps))
    await connection.start()
    for stamp in stamps:
        async with await session.create_consumer(queue, f"JMSTimestamp = {stamp}") as c:
            got = await c.receive_no_wait()
            assert isinstance(got, jms.TextMessage) and got.jms_timestamp == stamp


# -- selectors ----------------------------------------------------------------------------
async def test_a_selector_compares_the_jms_priority_compliant(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    """JMS 1.1 3.8.1.1: a selector's JMSPriority is the header's value, which compliant mode
    defines as 0-9, 9 the highest."""
    await priority_queue(conn)
    factory = jms.ConnectionFactory(db_dsn, safety_poll=30.0, j2ee_compliant=True)
    connection = await factory.create_connection()
    try:
        session = connection.create_session()
        queue = session.get_queue("shop", "prio_q")
        producer = session.create_producer(queue)
        for p in (1, 8):
            await producer.send(session.create_text_message(str(p)), priority=p)
        consumer = await session.create_consumer(queue, "JMSPriority >= 7")
        await connection.start()
        got = await consumer.receive_no_wait()
        assert isinstance(got, jms.TextMessage) and got.text == "8"
    finally:
        await connection.close()


@pytest.mark.parametrize("compliant", [False, True])
async def test_selectors_read_jms_priority_in_each_mode_everywhere(
        conn: asyncpg.Connection, db_dsn: str, compliant: bool) -> None:
    """A queue consumer, a browser, a durable and a non-durable subscriber, each with a
    JMSPriority selector, see the priorities their mode's headers show."""
    await priority_queue(conn)
    await priority_queue(conn, "shop.prio_mt", multiple=True)
    factory = jms.ConnectionFactory(db_dsn, safety_poll=30.0, j2ee_compliant=compliant)
    connection = await factory.create_connection()
    try:
        s = connection.create_session()
        queue = s.get_queue("shop", "prio_q")
        topic = s.get_topic("shop", "prio_mt")
        urgent = "JMSPriority >= 7" if compliant else "JMSPriority <= 2"
        await s.create_durable_subscriber(topic, "ALL")  # every message has a recipient
        durable = await s.create_durable_subscriber(topic, "URGENT", urgent)
        plain = await s.create_subscriber(topic, f"JMSPriority BETWEEN 0 AND 9 AND {urgent}")
        for p in (1, 8):
            for dest in (queue, topic):
                m = s.create_text_message(str(p))
                m.set_string_property("note", "JMSPriority >= 7")  # a literal is not rewritten
                await s.create_producer(dest).send(m, priority=p)
        expected = "8" if compliant else "1"
        seen = [m async for m in s.create_browser(queue, urgent)]
        assert [m.text for m in seen if isinstance(m, jms.TextMessage)] == [expected]
        consumer = await s.create_consumer(queue, f"{urgent} AND note = 'JMSPriority >= 7'")
        await connection.start()
        for c in (consumer, durable, plain):
            got = await c.receive(1.0)
            assert isinstance(got, jms.TextMessage) and got.text == expected
            assert (got.jms_priority >= 7) if compliant else (got.jms_priority <= 2)
            assert await c.receive_no_wait() is None
        assert durable.get_message_selector() == urgent  # the application's own text
    finally:
        await connection.close()


async def test_the_selector_rewrite_vectors(conn: asyncpg.Connection) -> None:
    """aq.jms_selector_for_mode, the one rewrite every JMS client of these queues uses."""
    vectors = [
        ("JMSPriority > 5", True, "(9 - JMSPriority) > 5"),
        ("JMSPriority > 5", False, "JMSPriority > 5"),
        ("JMSPriority BETWEEN 7 AND 9 OR JMSPriority=0", True,
         "(9 - JMSPriority) BETWEEN 7 AND 9 OR (9 - JMSPriority)=0"),
        ("x = 'JMSPriority' AND JMSPriority IN (9)", True, "x = 'JMSPriority' AND (9 - JMSPriority) IN (9)"),
        ("JMSPriorityX = 1 AND jmspriority = 2", True, "JMSPriorityX = 1 AND jmspriority = 2"),
        ("tab.user_data.JMSPriority = 1", True, "tab.user_data.JMSPriority = 1"),
        (None, True, None),
    ]
    for text, compliant, expected in vectors:
        got = await conn.fetchval("SELECT aq.jms_selector_for_mode($1, $2)", text, compliant)
        assert got == expected, (text, compliant)


# -- subscribers --------------------------------------------------------------------------
async def test_non_durable_subscriber_priority_order(conn: asyncpg.Connection,
                                                     connection: jms.Connection,
                                                     mode: str) -> None:
    await priority_queue(conn, "shop.prio_t", multiple=True)
    session = connection.create_session()
    topic = session.get_topic("shop", "prio_t")
    subscriber = await session.create_subscriber(topic)
    publisher = session.create_publisher(topic)
    sent, expected = ORDER_CASES[mode]
    for p in sent:
        await publisher.publish(session.create_text_message(str(p)), priority=p)
    await connection.start()
    got = [await subscriber.receive(timeout=5.0) for _ in sent]
    assert [m.jms_priority for m in got if m is not None] == expected
    await subscriber.close()
    assert await conn.fetchval("SELECT count(*) FROM aq.subscribers s JOIN aq.queue_info q "
                               "ON q.queue_id = s.queue_id WHERE q.queue_name = 'prio_t'") == 0


async def topics(conn: asyncpg.Connection, *names: str) -> None:
    for name in names:
        await make_queue(conn, f"shop.{name}", f"shop.{name}_t", "SYS.AQ$_JMS_TEXT_MESSAGE",
                         multiple=True)


async def subscribed_on(conn: asyncpg.Connection, name: str) -> list[str]:
    rows = await conn.fetch("SELECT q.queue_name FROM aq.subscribers s JOIN aq.queue_info q "
                            "ON q.queue_id = s.queue_id WHERE upper(s.name) = upper($1) "
                            "ORDER BY 1", name)
    return [r["queue_name"] for r in rows]


async def test_durable_name_on_two_topics_non_compliant(db_dsn: str,
                                                        conn: asyncpg.Connection) -> None:
    """Non-compliant: the same name is active on two topics at once, each its own."""
    await topics(conn, "t1", "t2")
    factory = jms.ConnectionFactory(db_dsn, safety_poll=30.0)
    async with await factory.create_connection() as c:
        session = c.create_session()
        t1, t2 = session.get_topic("shop", "t1"), session.get_topic("shop", "t2")
        s1 = await session.create_durable_subscriber(t1, "AUDIT")
        s2 = await session.create_durable_subscriber(t2, "AUDIT")
        assert await subscribed_on(conn, "AUDIT") == ["t1", "t2"]
        await session.create_publisher(t1).publish(session.create_text_message("one"))
        await session.create_publisher(t2).publish(session.create_text_message("two"))
        await c.start()
        got1, got2 = await s1.receive(timeout=5.0), await s2.receive(timeout=5.0)
        assert isinstance(got1, jms.TextMessage) and got1.text == "one"
        assert isinstance(got2, jms.TextMessage) and got2.text == "two"
        # another connection may use the name on a third topic too
        async with await factory.create_connection() as other:
            await other.create_session().create_durable_subscriber(
                other.create_session().get_topic("shop", "t1"), "AUDIT")
        assert await subscribed_on(conn, "AUDIT") == ["t1", "t2"]


async def test_durable_name_is_one_subscription_compliant(db_dsn: str,
                                                          conn: asyncpg.Connection) -> None:
    """Compliant: the client that made the name moves it to the new topic; another client
    is refused and the subscription stays where it is."""
    await topics(conn, "t1", "t2", "t3")
    factory = jms.ConnectionFactory(db_dsn, safety_poll=30.0, j2ee_compliant=True)
    async with await factory.create_connection() as c:
        session = c.create_session()
        t1, t2 = session.get_topic("shop", "t1"), session.get_topic("shop", "t2")
        s1 = await session.create_durable_subscriber(t1, "AUDIT")
        # while it is active, it cannot move (the same as unsubscribing it)
        with pytest.raises(jms.IllegalStateException) as err:
            await session.create_durable_subscriber(t2, "AUDIT")
        assert err.value.error_code == "JMS-230"
        assert await subscribed_on(conn, "AUDIT") == ["t1"]
        await session.create_publisher(t1).publish(session.create_text_message("old"))
        await s1.close()
        s2 = await session.create_durable_subscriber(t2, "AUDIT")
        assert await subscribed_on(conn, "AUDIT") == ["t2"]  # t1's dropped, its message too
        assert await conn.fetchval("SELECT count(*) FROM shop.t1_t") == 0
        await session.create_publisher(t2).publish(session.create_text_message("new"))
        await c.start()
        got = await s2.receive(timeout=5.0)
        assert isinstance(got, jms.TextMessage) and got.text == "new"
        await s2.close()
        # another client did not make the name: refused, the subscription left as it is
        async with await factory.create_connection() as other:
            os_ = other.create_session()
            with pytest.raises(jms.JMSException, match="AUDIT") as err2:
                await os_.create_durable_subscriber(os_.get_topic("shop", "t3"), "AUDIT")
            assert not isinstance(err2.value, jms.IllegalStateException)
        assert await subscribed_on(conn, "AUDIT") == ["t2"]
        # the same topic again, another selector: altered in place, in either mode
        again = await session.create_durable_subscriber(t2, "AUDIT", message_selector="JMSType = 'x'")
        assert await subscribed_on(conn, "AUDIT") == ["t2"]
        await again.close()


async def test_durable_name_made_outside_jms_is_not_dropped(db_dsn: str,
                                                            conn: asyncpg.Connection) -> None:
    """Compliant: a subscriber added with dbms_aqadm (not known to be JMS's) is never
    dropped for a JMS subscriber of the same name on another topic."""
    await topics(conn, "t1", "t2")
    await conn.execute("CALL dbms_aqadm.add_subscriber(queue_name => 'shop.t1', "
                       "subscriber => sys.aq$_agent('AUDIT', NULL, NULL))")
    factory = jms.ConnectionFactory(db_dsn, safety_poll=30.0, j2ee_compliant=True)
    async with await factory.create_connection() as c:
        session = c.create_session()
        with pytest.raises(jms.JMSException, match="AUDIT"):
            await session.create_durable_subscriber(session.get_topic("shop", "t2"), "AUDIT")
    assert await subscribed_on(conn, "AUDIT") == ["t1"]
