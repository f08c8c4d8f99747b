"""Selectors on the header fields JMS lets a selector name, on messages of both delivery
modes (issue 32): a queue consumer's selector and a durable subscriber's selector (its
rule) through pgaq.jms, as an application uses them.

Expectations come from JMS 1.1 section 3.8.1.1 ("Message header field references are
restricted to JMSDeliveryMode, JMSPriority, JMSMessageID, JMSTimestamp, JMSCorrelationID,
and JMSType"; JMSDeliveryMode's values are 'PERSISTENT' and 'NON_PERSISTENT'; JMSMessageID,
JMSCorrelationID and JMSType may be null) and from Oracle Streams Advanced Queuing User's
Guide, Oracle JMS, "MessageSelector" (JMSMessageID = 'ID:...', JMSPriority < 3 AND
JMSCorrelationID = 'Fiction', JMSCorrelationID LIKE 'RE%') and "Dequeuing JMS Buffered
Messages" (the dequeue call, and so its selector, sees persistent and buffered messages).
A NON_PERSISTENT message is a buffered one, stored apart (R__11_buffered.sql); a selector
reads the same header values from it as from a PERSISTENT one.
"""

from __future__ import annotations

import asyncpg
import pgaq.jms as jms
import pytest
from pgaq import DequeueOptions, MessageProperties, Session
from pgaq.migrate import migrate

from .helpers import make_queue

MODES = [pytest.param(jms.PERSISTENT, id="PERSISTENT"),
         pytest.param(jms.NON_PERSISTENT, id="NON_PERSISTENT")]
OTHER = {jms.PERSISTENT: jms.NON_PERSISTENT, jms.NON_PERSISTENT: jms.PERSISTENT}


async def _destinations(conn: asyncpg.Connection) -> None:
    await make_queue(conn, "shop.orders_q", "shop.orders_q_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    await make_queue(conn, "shop.events", "shop.events_t", "SYS.AQ$_JMS_TEXT_MESSAGE",
                     multiple=True)


async def _now_ms(conn: asyncpg.Connection) -> int:
    """The database's clock, which stamps JMSTimestamp (the enqueue time), in ms."""
    return int(await conn.fetchval("SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)"))


async def _send(session: jms.Session, producer: jms.MessageProducer, text: str, mode: int, *,
                priority: int = 4, corrid: str | None = None,
                jms_type: str | None = None) -> jms.Message:
    m = session.create_text_message(text)
    if corrid is not None:
        m.jms_correlation_id = corrid
    if jms_type is not None:
        m.jms_type = jms_type
    await producer.send(m, delivery_mode=mode, priority=priority)
    return m


async def _drain(consumer: jms.MessageConsumer) -> list[str]:
    """Every message the consumer's selector lets through now, by text."""
    got: list[str] = []
    while (m := await consumer.receive_no_wait()) is not None:
        got.append(m.text)  # type: ignore[attr-defined]
    return sorted(got)


# (selector, the texts it selects) over the messages _header_messages sends
def _header_cases(ids: dict[str, str], stamp: dict[str, int]) -> list[tuple[str, list[str]]]:
    return [
        ("JMSPriority = 2", ["fiction"]),
        ("JMSPriority < 3 AND JMSCorrelationID = 'Fiction'", ["fiction"]),
        ("JMSPriority BETWEEN 5 AND 9", ["plain", "reply"]),
        ("JMSCorrelationID = 'Fiction'", ["fiction"]),
        ("JMSCorrelationID LIKE 'RE%'", ["reply"]),
        ("JMSCorrelationID IS NULL", ["plain"]),
        ("JMSType = 'book'", ["fiction"]),
        ("JMSType IN ('news', 'book')", ["fiction", "reply"]),
        ("JMSType IS NULL", ["plain"]),
        (f"JMSMessageID = '{ids['reply']}'", ["reply"]),
        (f"JMSMessageID <> '{ids['reply']}'", ["fiction", "plain"]),
        (f"JMSMessageID IN ('{ids['plain']}', 'ID:0')", ["plain"]),
        ("JMSMessageID LIKE 'ID:%'", ["fiction", "plain", "reply"]),
        # (messages sent within one millisecond share their JMSTimestamp)
        (f"JMSTimestamp = {stamp['plain']}", sorted(t for t, v in stamp.items() if v == stamp["plain"])),
        (f"JMSTimestamp >= {stamp['fiction']}", ["fiction", "plain", "reply"]),
        (f"JMSTimestamp < {stamp['fiction']}", []),
    ]


async def _header_messages(session: jms.Session, producer: jms.MessageProducer,
                           mode: int) -> dict[str, str]:
    """Three messages of the mode with different headers; their JMSMessageIDs by text."""
    sent = [await _send(session, producer, "fiction", mode, priority=2, corrid="Fiction",
                        jms_type="book"),
            await _send(session, producer, "reply", mode, priority=7, corrid="RE: order 1",
                        jms_type="news"),
            await _send(session, producer, "plain", mode, priority=5)]
    for m in sent:
        assert m.jms_delivery_mode == mode and m.jms_message_id is not None
    return {m.text: m.jms_message_id for m in sent}  # type: ignore[attr-defined,misc]


@pytest.mark.parametrize("mode", MODES)
async def test_queue_consumer_selects_on_each_header(conn: asyncpg.Connection,
                                                     connection: jms.Connection,
                                                     mode: int) -> None:
    """A queue receiver's selector on JMSPriority, JMSCorrelationID, JMSType, JMSMessageID
    and JMSTimestamp selects the same messages whatever their delivery mode."""
    await _destinations(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "orders_q")
    producer = session.create_producer(queue)
    await connection.start()
    ids = await _header_messages(session, producer, mode)
    browse_all = "JMSMessageID LIKE 'ID:%'"
    # JMSTimestamp as the consumer sees it: the enqueue time (Oracle JMS, "JMS Message
    # Headers": it "maps to Oracle Database Advanced Queuing message enqueue time")
    stamps = {m.text: m.jms_timestamp  # type: ignore[attr-defined]
              async for m in session.create_browser(queue, message_selector=browse_all)}
    for selector, expected in _header_cases(ids, stamps):
        browser = session.create_browser(queue, message_selector=selector)
        seen = sorted([m.text async for m in browser])  # type: ignore[attr-defined]
        assert seen == expected, (selector, mode)
    # and a receive takes them (each message once, by its own selector)
    for text in ("fiction", "reply", "plain"):
        consumer = await session.create_consumer(
            queue, message_selector=f"JMSMessageID = '{ids[text]}' AND JMSDeliveryMode = "
            + ("'PERSISTENT'" if mode == jms.PERSISTENT else "'NON_PERSISTENT'"))
        assert await _drain(consumer) == [text]
        await consumer.close()
    everything = await session.create_consumer(queue, message_selector=browse_all)
    assert await _drain(everything) == []


@pytest.mark.parametrize("mode", MODES)
async def test_durable_subscriber_selects_on_each_header(conn: asyncpg.Connection,
                                                         connection: jms.Connection,
                                                         mode: int) -> None:
    """A durable subscriber's selector is evaluated when the message is published (it is
    the subscription's rule): the same header values as a consumer's, in both modes."""
    await _destinations(conn)
    session = connection.create_session()
    topic = session.get_topic("shop", "events")
    start = await _now_ms(conn)
    # JMSMessageID and JMSTimestamp are set by the send: a rule made before it names them
    # by their form and by the clock
    cases = [
        ("JMSPriority = 2", ["fiction"]),
        ("JMSPriority < 3 AND JMSCorrelationID = 'Fiction'", ["fiction"]),
        ("JMSPriority BETWEEN 5 AND 9", ["plain", "reply"]),
        ("JMSCorrelationID LIKE 'RE%'", ["reply"]),
        ("JMSCorrelationID IS NULL", ["plain"]),
        ("JMSType = 'book'", ["fiction"]),
        ("JMSType IN ('news', 'book')", ["fiction", "reply"]),
        ("JMSType IS NULL", ["plain"]),
        ("JMSMessageID LIKE 'ID:%'", ["fiction", "plain", "reply"]),
        ("JMSMessageID = 'ID:23452345'", []),
        ("JMSMessageID IS NULL", []),
        (f"JMSTimestamp >= {start}", ["fiction", "plain", "reply"]),
        (f"JMSTimestamp < {start}", []),
    ]
    subscribers = {}
    for i, (selector, _) in enumerate(cases):
        subscribers[selector] = await session.create_durable_subscriber(
            topic, f"SUB{i}", message_selector=selector)
    # a subscriber that takes everything, so that a message no rule selects is published
    catch_all = await session.create_durable_subscriber(topic, "EVERYONE")
    producer = session.create_producer(topic)
    await _header_messages(session, producer, mode)
    await connection.start()
    for selector, expected in cases:
        assert await _drain(subscribers[selector]) == expected, (selector, mode)
    assert await _drain(catch_all) == ["fiction", "plain", "reply"]


async def test_queue_consumer_selects_on_delivery_mode(conn: asyncpg.Connection,
                                                       connection: jms.Connection) -> None:
    """JMSDeliveryMode is 'PERSISTENT' or 'NON_PERSISTENT', as the message was sent (JMS
    1.1 3.8.1.1); persistent and buffered messages share the queue (Oracle JMS "Enqueuing
    JMS Buffered Messages")."""
    await _destinations(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "orders_q")
    producer = session.create_producer(queue)
    await connection.start()
    cases = [
        ("JMSDeliveryMode = 'PERSISTENT'", ["kept"]),
        ("JMSDeliveryMode = 'NON_PERSISTENT'", ["fleeting"]),
        ("JMSDeliveryMode <> 'PERSISTENT'", ["fleeting"]),
        ("NOT (JMSDeliveryMode = 'NON_PERSISTENT')", ["kept"]),
        ("JMSDeliveryMode IN ('NON_PERSISTENT')", ["fleeting"]),
        ("JMSDeliveryMode NOT IN ('NON_PERSISTENT')", ["kept"]),
        ("JMSDeliveryMode LIKE 'NON%'", ["fleeting"]),
        ("JMSDeliveryMode LIKE '%PERSISTENT'", ["fleeting", "kept"]),
        ("JMSDeliveryMode IS NOT NULL", ["fleeting", "kept"]),
        ("JMSDeliveryMode = 'BUFFERED'", []),   # Oracle's engine word is not JMS's value
        ("JMSDeliveryMode = 'non_persistent'", []),
        ("JMSDeliveryMode = 1", []),            # a string, not the Java constant
        ("JMSDeliveryMode = JMSCorrelationID", ["fleeting", "kept"]),
        ("JMSDeliveryMode = 'NON_PERSISTENT' AND JMSPriority = 6", ["fleeting"]),
        ("JMSDeliveryMode = 'NON_PERSISTENT' OR JMSPriority = 3", ["fleeting", "kept"]),
    ]
    await _send(session, producer, "fleeting", jms.NON_PERSISTENT, priority=6,
                corrid="NON_PERSISTENT")
    await _send(session, producer, "kept", jms.PERSISTENT, priority=3, corrid="PERSISTENT")
    for selector, expected in cases:
        browser = session.create_browser(queue, message_selector=selector)
        seen = sorted([m.text async for m in browser])  # type: ignore[attr-defined]
        assert seen == expected, selector
    for selector, expected in [("JMSDeliveryMode = 'NON_PERSISTENT'", ["fleeting"]),
                               ("JMSDeliveryMode = 'PERSISTENT'", ["kept"])]:
        consumer = await session.create_consumer(queue, message_selector=selector)
        assert await _drain(consumer) == expected, selector
        await consumer.close()


async def test_durable_subscriber_selects_on_delivery_mode(conn: asyncpg.Connection,
                                                           connection: jms.Connection) -> None:
    """A durable subscriber's selector on JMSDeliveryMode sees each published message's
    own mode ("Dequeuing JMS Buffered Messages": JMS subscribers can be interested in
    both message types)."""
    await _destinations(conn)
    session = connection.create_session()
    topic = session.get_topic("shop", "events")
    cases = [
        ("JMSDeliveryMode = 'PERSISTENT'", ["kept"]),
        ("JMSDeliveryMode = 'NON_PERSISTENT'", ["fleeting"]),
        ("JMSDeliveryMode <> 'NON_PERSISTENT'", ["kept"]),
        ("JMSDeliveryMode IN ('PERSISTENT', 'NON_PERSISTENT')", ["fleeting", "kept"]),
        ("JMSDeliveryMode LIKE 'NON\\_%' ESCAPE '\\'", ["fleeting"]),
        ("JMSDeliveryMode = 'BUFFERED'", []),
        ("JMSDeliveryMode = JMSCorrelationID", ["fleeting", "kept"]),
        ("JMSDeliveryMode = 'NON_PERSISTENT' AND JMSType = 'news'", ["fleeting"]),
    ]
    subscribers = [await session.create_durable_subscriber(topic, f"SUB{i}", message_selector=sel)
                   for i, (sel, _) in enumerate(cases)]
    catch_all = await session.create_durable_subscriber(topic, "EVERYONE")
    producer = session.create_producer(topic)
    await _send(session, producer, "fleeting", jms.NON_PERSISTENT, corrid="NON_PERSISTENT",
                jms_type="news")
    await _send(session, producer, "kept", jms.PERSISTENT, corrid="PERSISTENT", jms_type="news")
    await connection.start()
    for (selector, expected), sub in zip(cases, subscribers, strict=True):
        assert await _drain(sub) == expected, selector
    assert await _drain(catch_all) == ["fleeting", "kept"]


@pytest.mark.parametrize("mode", MODES)
async def test_alter_subscriber_selector_on_delivery_mode(conn: asyncpg.Connection,
                                                          connection: jms.Connection,
                                                          mode: int) -> None:
    """A subscription altered to another selector (the same name, the Oracle JMS guide's
    DurableSubscriber) selects by the new one, for the mode each message has."""
    await _destinations(conn)
    session = connection.create_session()
    topic = session.get_topic("shop", "events")
    wanted = "'PERSISTENT'" if mode == jms.PERSISTENT else "'NON_PERSISTENT'"
    sub = await session.create_durable_subscriber(topic, "AUDIT",
                                                  message_selector="JMSPriority = 0")
    await sub.close()
    sub = await session.create_durable_subscriber(
        topic, "AUDIT", message_selector=f"JMSDeliveryMode = {wanted}")
    await session.create_durable_subscriber(topic, "EVERYONE")
    producer = session.create_producer(topic)
    await _send(session, producer, "wanted", mode)
    await _send(session, producer, "other", OTHER[mode])
    await connection.start()
    assert await _drain(sub) == ["wanted"]


async def test_rules_cached_by_the_previous_compiler_are_recompiled(
        conn: asyncpg.Connection) -> None:
    """A database upgraded from a release whose compiler made JMSDeliveryMode the constant
    'PERSISTENT' holds that SQL in aq.rule_cache; the migration replays the compiler and
    recompiles every cached rule, so an existing durable subscription on NON_PERSISTENT
    starts receiving buffered messages."""
    await _destinations(conn)
    for name, rule in [("EVERYONE", None), ("FLEETING", "'PERSISTENT' = 'NON_PERSISTENT'")]:
        await conn.execute(
            "CALL dbms_aqadm.add_subscriber(queue_name => 'shop.events', subscriber =>"
            " sys.aq$_agent($1, NULL, NULL), rule => $2,"
            " delivery_mode => 'PERSISTENT_OR_BUFFERED')", name, rule)
    # the previous compiler's output for JMSDeliveryMode = 'NON_PERSISTENT' is exactly the
    # current one's for the two constants: the catalog now says the rule, the cache the old SQL
    await conn.execute("UPDATE aq.subscribers SET rule = 'JMSDeliveryMode = ''NON_PERSISTENT'''"
                       " WHERE name = 'FLEETING'")
    s = Session(conn)
    buffered = {"delivery_mode": "BUFFERED", "visibility": "IMMEDIATE"}
    take = DequeueOptions(consumer_name="FLEETING", wait=0, delivery_mode="BUFFERED",
                          visibility="IMMEDIATE")
    payload = {"header": {"properties": {}}, "text_len": 1, "text_vc": "x"}
    await s.enqueue("shop.events", payload, MessageProperties(), **buffered)
    assert await s.dequeue("shop.events", take) == []  # what the old cache does

    await conn.execute("UPDATE aq.schema_migrations SET checksum = 'previous release'"
                       " WHERE name = 'R__20_conditions_5_sql_jms.sql'")
    assert "R__20_conditions_7_compile.sql" in await migrate(conn)

    mid = await s.enqueue("shop.events", payload, MessageProperties(), **buffered)
    assert [m.msgid for m in await s.dequeue("shop.events", take)] == [mid]
