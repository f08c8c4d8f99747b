"""Oracle Database Advanced Queuing User's Guide, "Introduction to Oracle Java Message Service",
"Java EE Compliance": "Multiple JMS messages types on a single JMS queue or topic (using Oracle
Database Advanced Queuing queues of the AQ$_JMS_MESSAGE type)"; every message type's section
says to use its own SYS.AQ$_JMS_*_MESSAGE "or AQ$_JMS_MESSAGE payload types". A queue table of
the generic type (AQjmsSession.createQueueTable's default here) takes every body type, each
received as the class it was sent as, with its headers and properties, selectors and browsing as
on the typed tables; an AdtMessage is refused (JMS-108)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pgaq.jms as jms
import pytest

from .gateway_support import Client, drop_roles, envelope, make_agent, op, running_gateway
from .helpers import make_queue

NS = {"aq": "http://ns.oracle.com/AQ/schemas/access"}


def _messages(session: jms.Session) -> list[jms.Message]:
    text = session.create_text_message("héllo")
    data = session.create_bytes_message()
    data.write_int(-7)
    data.write_bytes(b"\x00\xff")
    mapped = session.create_map_message()
    mapped.set_int("qty", 3)
    mapped.set_string("sku", "A-1")
    stream = session.create_stream_message()
    stream.write_long(2**40)
    stream.write_string("s")
    obj = session.create_object_message({"order": 7, "lines": [1.5, None]})
    plain = session.create_message()
    out: list[jms.Message] = [text, data, mapped, stream, obj, plain]
    for i, m in enumerate(out):
        m.set_int_property("i", i)
        m.set_string_property("kind", type(m).__name__)
        m.jms_type = f"T{i}"
        m.jms_correlation_id = f"c{i}"
    return out


def _check(got: jms.Message | None, i: int) -> None:
    assert got is not None
    assert got.get_int_property("i") == i and got.jms_type == f"T{i}"
    assert got.jms_correlation_id == f"c{i}"
    if i == 0:
        assert isinstance(got, jms.TextMessage) and got.text == "héllo"
    elif i == 1:
        assert isinstance(got, jms.BytesMessage)
        buf = bytearray(3)
        assert got.read_int() == -7 and got.read_bytes(buf) == 2 and buf[:2] == b"\x00\xff"
    elif i == 2:
        assert isinstance(got, jms.MapMessage)
        assert got.get_int("qty") == 3 and got.get_string("sku") == "A-1"
    elif i == 3:
        assert isinstance(got, jms.StreamMessage)
        assert got.read_long() == 2**40 and got.read_string() == "s"
    elif i == 4:
        assert isinstance(got, jms.ObjectMessage)
        assert got.get_object() == {"order": 7, "lines": [1.5, None]}
    else:  # a header-only Message: an empty text body on the generic type
        assert got.get_string_property("kind") == "Message"


async def test_every_body_type_on_one_generic_queue(conn: asyncpg.Connection,
                                                    connection: jms.Connection) -> None:
    await conn.execute("CREATE SCHEMA shop")
    session = connection.create_session()
    table = await session.create_queue_table("shop", "mixed_qt")  # SYS.AQ$_JMS_MESSAGE
    assert await conn.fetchval("SELECT payload_kind FROM aq.queue_tables "
                               "WHERE table_name = 'mixed_qt'") == "JMS_MESSAGE"
    queue = await session.create_queue(table, "mixed_q")
    producer = session.create_producer(queue)
    sent = _messages(session)
    for m in sent:
        await producer.send(m)
    # browsing sees them all, in order, unremoved
    seen = [m async for m in session.create_browser(queue)]
    assert [m.get_int_property("i") for m in seen] == list(range(len(sent)))
    await connection.start()
    # a selector over the properties and headers of the generic type
    consumer = await session.create_consumer(
        queue, message_selector="kind IN ('MapMessage', 'StreamMessage') AND JMSType <> 'T2'")
    _check(await consumer.receive(5.0), 3)
    assert await consumer.receive_no_wait() is None
    await consumer.close()
    everything = await session.create_consumer(queue)
    for i in (0, 1, 2, 4, 5):
        _check(await everything.receive(5.0), i)
    assert await everything.receive_no_wait() is None
    assert await conn.fetchval("SELECT count(*) FROM shop.mixed_qt") == 0
    with pytest.raises(jms.MessageFormatException) as e:
        await producer.send(session.create_adt_message({"a": 1}))
    assert e.value.error_code == "JMS-108"


async def test_a_generic_topic_with_a_durable_subscriber(conn: asyncpg.Connection,
                                                         connection: jms.Connection) -> None:
    await make_queue(conn, "shop.mixed_t", "shop.mixed_tt", "SYS.AQ$_JMS_MESSAGE", multiple=True)
    session = connection.create_session(True)
    topic = session.get_topic("shop", "mixed_t")
    audit = await session.create_durable_subscriber(topic, "AUDIT", message_selector="i >= 2")
    every = await session.create_durable_subscriber(topic, "EVERY")
    publisher = session.create_publisher(topic)
    for m in _messages(session):
        await publisher.publish(m)
    await session.commit()
    await connection.start()
    for i in range(2, 6):
        _check(await audit.receive(5.0), i)
    assert await audit.receive_no_wait() is None
    for i in range(6):
        _check(await every.receive(5.0), i)
    await session.commit()
    for sub in (audit, every):
        await sub.close()
        await session.unsubscribe(sub.get_name() or "")
    assert await conn.fetchval("SELECT count(*) FROM aq.subscribers") == 0


@pytest.fixture
async def gateway(conn: asyncpg.Connection, db_dsn: str) -> AsyncIterator[str]:
    roles = await make_agent(conn)
    await conn.execute(f'CREATE SCHEMA mixed AUTHORIZATION "{roles[0]}"')
    await conn.execute("""
        CALL dbms_aqadm.create_queue_table('mixed.any_qt', 'SYS.AQ$_JMS_MESSAGE');
        CALL dbms_aqadm.create_queue('mixed.any_q', 'mixed.any_qt');
        CALL dbms_aqadm.start_queue('mixed.any_q');""")
    async with running_gateway(db_dsn, session_timeout=5.0, max_wait=10.0) as url:
        yield url
    await drop_roles(conn, roles)


IDAP_BODIES: dict[str, tuple[str, type[jms.Message]]] = {  # element: its body element and text, the class pgaq.jms reads it as
    "jms_text_message": ("<text_data>over IDAP</text_data>", jms.TextMessage),
    "jms_bytes_message": ("<bytes_data>00FF10</bytes_data>", jms.BytesMessage),
    "jms_map_message": ("<map_data><item><name>qty</name><int_value>3</int_value></item>"
                        "</map_data>", jms.MapMessage),
    "jms_object_message": ("<ser_object_data>7B7D</ser_object_data>", jms.ObjectMessage),
}


async def test_a_generic_queue_over_idap_both_ways(gateway: str, db_dsn: str) -> None:
    """pgaq.jms -> AQXmlReceive: each message as the element of its body (a StreamMessage,
    which IDAP has no element for, as the bytes of its body); AQXmlSend of any JMS element
    -> pgaq.jms: the class of that element. Every response validates."""
    from pgaq.idap.schema import load_schemas

    schemas = load_schemas()
    client = Client(gateway, "JOHN", "secret")
    connection = await jms.ConnectionFactory(db_dsn, safety_poll=30.0).create_connection()
    try:
        session = connection.create_session()
        queue = session.get_queue("mixed", "any_q")
        producer = session.create_producer(queue)
        sent = _messages(session)
        for m in sent:
            await producer.send(m)
        expected = ["jms_text_message", "jms_bytes_message", "jms_map_message",
                    "jms_bytes_message", "jms_object_message", "jms_text_message"]
        for i, element in enumerate(expected):
            r = await client.post(envelope(op("AQXmlReceive",
                "<consumer_options><destination>MIXED.ANY_Q</destination><wait_time>0</wait_time>"
                "</consumer_options><AQXmlCommit/>")))
            assert r.status == 200 and r.fault is None and r.doc is not None, r.body
            schemas.validate(r.doc)
            [payload] = r.doc.xpath("//aq:message_payload/*", namespaces=NS)
            assert payload.tag == f"{{{NS['aq']}}}{element}", (i, r.body)
            assert r.text(f"//aq:{element}/aq:oracle_jms_properties/aq:type") == [f"T{i}"]
        await connection.start()
        consumer = await session.create_consumer(queue)
        for element, (body, cls) in IDAP_BODIES.items():
            r = await client.post(envelope(op("AQXmlSend",
                "<producer_options><destination>MIXED.ANY_Q</destination></producer_options>"
                "<message_set><message><message_header><sender_id><agent_name>JOHN</agent_name>"
                f"</sender_id></message_header><message_payload><{element}>"
                "<oracle_jms_properties><type>FROM_IDAP</type></oracle_jms_properties>"
                f"{body}</{element}></message_payload></message></message_set><AQXmlCommit/>")))
            assert r.status == 200 and r.fault is None, r.body
            got = await consumer.receive(5.0)
            assert isinstance(got, cls) and got.jms_type == "FROM_IDAP", (element, got)
            if isinstance(got, jms.TextMessage):
                assert got.text == "over IDAP"
            elif isinstance(got, jms.BytesMessage):
                buf = bytearray(4)
                assert got.read_bytes(buf) == 3 and buf[:3] == b"\x00\xff\x10"
            elif isinstance(got, jms.MapMessage):
                assert got.get_int("qty") == 3
            else:
                assert isinstance(got, jms.ObjectMessage) and got.get_object() == {}
        # an element that is no JMS message is refused, nothing enqueued
        r = await client.post(envelope(op("AQXmlSend",
            "<producer_options><destination>MIXED.ANY_Q</destination></producer_options>"
            "<message_set><message><message_header><sender_id><agent_name>JOHN</agent_name>"
            "</sender_id></message_header><message_payload><RAW>00</RAW>"
            "</message_payload></message></message_set><AQXmlCommit/>")))
        assert r.fault is not None and "ORA-25215" in r.body.decode(), r.body
        assert await consumer.receive_no_wait() is None
    finally:
        await connection.close()
        await client.close()
