"""pgaq.jms and IDAP over real HTTP carry the same JMS messages (issue 22, interop): what
pgaq.jms sends, AQXmlReceive returns unchanged (Text, Bytes, Map and Object bodies, every JMS
property type, header fields), and what AQXmlSend sends (jms_text_message, jms_bytes_message,
jms_map_message, jms_object_message with typed properties and items), a pgaq.jms consumer
receives unchanged; both directions on the same inputs. Map items of type char and byte[], which
IDAP's schema has no element for, arrive as the <string_value> docs/gateway.md describes.
StreamMessage has no IDAP element at all (Oracle Streams Advanced Queuing User's Guide and
Reference 10g Release 2 (10.2), "Internet Access to Oracle Streams AQ": "not supported through
IDAP")."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pgaq.jms as jms
import pytest
from lxml import etree
from pgaq.idap.schema import load_schemas

from .gateway_support import Client, drop_roles, envelope, make_agent, op, running_gateway

# the same inputs both ways: (name, JMS type, value, the <type_value> IDAP writes)
TYPED: list[tuple[str, str, Any, str]] = [
    ("flag", "boolean", True, "true"),
    ("b", "byte", -128, "-128"),
    ("s", "short", 32767, "32767"),
    ("i", "int", -2147483648, "-2147483648"),
    ("l", "long", 9007199254740993, "9007199254740993"),  # beyond a double's 2**53
    ("f", "float", 1.5, "1.5"),
    ("d", "double", 2.718281828459045, "2.718281828459045"),
    ("str", "string", "Grüße <&> ]]>", "Grüße <&> ]]>"),
]
# map items IDAP has no element for, and the <string_value> each arrives as
NO_ELEMENT: list[tuple[str, str, Any, str]] = [
    ("ch", "char", "é", "é"),
    ("raw", "bytes", b"\x00\x01\xfe\xff", "0001FEFF"),
]
TEXT = "héllo <world> & ]]> \t\n end"
BYTES = bytes(range(256))
OBJECT = {"order": 7, "lines": [1.5, "two", None, True]}
BODIES = ("text", "bytes", "map", "object")
PAYLOAD_TYPE = {"text": "TEXT", "bytes": "BYTES", "map": "MAP", "object": "OBJECT"}
JAVA_NAME = {"boolean": "boolean", "byte": "byte", "short": "short", "int": "int",
             "long": "long", "float": "float", "double": "double", "string": "String"}
NS = {"aq": "http://ns.oracle.com/AQ/schemas/access"}
REPLY_TO = jms.AQjmsAgent("REPLIER", "interop.replies_q")
# the typed properties IDAP sent, as a JMS selector sees them (JMS 1.1 3.8)
SELECTOR = ("p_flag = TRUE AND p_b = -128 AND p_s = 32767 AND p_i = -2147483648 "
            "AND p_l = 9007199254740993 AND p_f = 1.5 AND p_d > 2.718 AND p_d < 2.719 "
            "AND p_str = 'Grüße <&> ]]>' AND JMSXGroupID LIKE 'group-%' AND JMSPriority = 3")


@pytest.fixture
async def gateway(conn: asyncpg.Connection, db_dsn: str) -> AsyncIterator[str]:
    roles = await make_agent(conn)
    await conn.execute(f'CREATE SCHEMA interop AUTHORIZATION "{roles[0]}"')
    for body in BODIES:
        kind = PAYLOAD_TYPE[body]
        await conn.execute(f"""
            CALL dbms_aqadm.create_queue_table('interop.{body}_qt', 'SYS.AQ$_JMS_{kind}_MESSAGE');
            CALL dbms_aqadm.create_queue('interop.{body}_q', 'interop.{body}_qt');
            CALL dbms_aqadm.start_queue('interop.{body}_q');""")
    async with running_gateway(db_dsn, session_timeout=5.0, max_wait=10.0) as url:
        yield url
    await drop_roles(conn, roles)


def _set(msg: jms.Message, method: str, name: str, value: Any) -> None:
    getattr(msg, method)(name, value)


def _jms_message(session: jms.Session, body: str) -> jms.Message:
    m: jms.Message
    if body == "text":
        m = session.create_text_message(TEXT)
    elif body == "bytes":
        bm = session.create_bytes_message()
        bm.write_bytes(BYTES)
        m = bm
    elif body == "map":
        mm = session.create_map_message()
        for name, kind, value, _ in TYPED + NO_ELEMENT:
            _set(mm, f"set_{kind}", name, value)
        m = mm
    else:
        m = session.create_object_message(OBJECT)
    for name, kind, value, _ in TYPED:
        _set(m, f"set_{kind}_property", f"p_{name}", value)
    m.jms_correlation_id = f"corr-{body}"
    m.jms_type = f"type-{body}"
    m.jms_reply_to = REPLY_TO
    m.set_string_property("JMSXGroupID", f"group-{body}")
    m.set_int_property("JMSXGroupSeq", 7)
    m.set_string_property("JMSXAppID", "interop-app")
    return m


def _typed_elements(parent: etree._Element | None, item: str) -> dict[str, tuple[str, str]]:
    """{name: (element, text)} of a <user_properties> or <map_data>."""
    out: dict[str, tuple[str, str]] = {}
    if parent is None:
        return out
    for it in parent.findall(f"aq:{item}", NS):
        name = it.findtext("aq:name", namespaces=NS)
        [value] = [c for c in it if isinstance(c.tag, str) and etree.QName(c).localname != "name"]
        out[str(name)] = (etree.QName(value).localname, value.text or "")
    return out


def _same(kind: str, text: str, want: str) -> bool:
    if kind in ("float_value", "double_value"):
        return math.isclose(float(text), float(want), rel_tol=0, abs_tol=0)
    return text == want


def _idap_payload(body: str) -> str:
    """The IDAP payload element for the same inputs, as an IDAP client writes it."""
    props = "".join(f"<property><name>p_{n}</name><{k}_value>{_xml(t)}</{k}_value></property>"
                    for n, k, _, t in TYPED)
    head = (f"<oracle_jms_properties><type>type-{body}</type>"
            "<reply_to><agent_name>REPLIER</agent_name><address>interop.replies_q</address></reply_to>"
            "<appid>interop-app</appid>"
            f"<groupid>group-{body}</groupid><group_sequence>7</group_sequence>"
            "</oracle_jms_properties>"
            f"<user_properties>{props}</user_properties>")
    if body == "text":
        return f"<jms_text_message>{head}<text_data>{_xml(TEXT)}</text_data></jms_text_message>"
    if body == "bytes":
        return f"<jms_bytes_message>{head}<bytes_data>{BYTES.hex()}</bytes_data></jms_bytes_message>"
    if body == "map":
        items = "".join(f"<item><name>{n}</name><{k}_value>{_xml(t)}</{k}_value></item>"
                        for n, k, _, t in TYPED)
        return f"<jms_map_message>{head}<map_data>{items}</map_data></jms_map_message>"
    data = jms.JsonSerializer().dumps(OBJECT).hex()
    return f"<jms_object_message>{head}<ser_object_data>{data}</ser_object_data></jms_object_message>"


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _check_jms(m: jms.Message | None, body: str) -> None:
    """A message received through pgaq.jms holds the inputs, each with its JMS type."""
    assert m is not None, body
    for name, kind, value, _ in TYPED:
        assert m.get_property_type(f"p_{name}") == JAVA_NAME[kind], (body, name)
        assert getattr(m, f"get_{kind}_property")(f"p_{name}") == value, (body, name)
    assert m.jms_correlation_id == f"corr-{body}" and m.jms_type == f"type-{body}"
    assert m.jms_reply_to == REPLY_TO
    assert m.get_string_property("JMSXGroupID") == f"group-{body}"
    assert m.get_int_property("JMSXGroupSeq") == 7
    assert m.get_string_property("JMSXAppID") == "interop-app"
    if body == "text":
        assert isinstance(m, jms.TextMessage) and m.text == TEXT
    elif body == "bytes":
        assert isinstance(m, jms.BytesMessage) and m.get_body_length() == len(BYTES)
        buf = bytearray(len(BYTES))
        assert m.read_bytes(buf) == len(BYTES) and bytes(buf) == BYTES
    elif body == "map":
        assert isinstance(m, jms.MapMessage)
        assert sorted(m.get_map_names()) == sorted(n for n, *_ in TYPED)
        for name, kind, value, _ in TYPED:
            assert m.get_item_type(name) == JAVA_NAME[kind], name
            assert getattr(m, f"get_{kind}")(name) == value, name
    else:
        assert isinstance(m, jms.ObjectMessage) and m.get_object() == OBJECT


async def test_every_body_and_property_type_both_ways(gateway: str, db_dsn: str) -> None:
    client = Client(gateway, "JOHN", "secret")
    factory = jms.ConnectionFactory(db_dsn, safety_poll=30.0)
    connection = await factory.create_connection()
    try:
        session = connection.create_session(False, jms.AUTO_ACKNOWLEDGE)
        await connection.start()
        for body in BODIES:
            queue = session.get_queue("interop", f"{body}_q")
            dest = f"INTEROP.{body.upper()}_Q"

            # pgaq.jms -> IDAP AQXmlReceive
            sent = _jms_message(session, body)
            await session.create_producer(queue).send(sent, priority=3, time_to_live=3600.0)
            r = await client.post(envelope(op("AQXmlReceive",
                f"<consumer_options><destination>{dest}</destination><wait_time>0</wait_time>"
                "</consumer_options><AQXmlCommit/>")))
            assert r.status == 200 and r.fault is None, r.body
            assert r.doc is not None
            load_schemas().validate(r.doc)  # what an IDAP client validates
            assert r.text("//aq:message_id") == [str(sent.jms_message_id)[3:]]
            assert r.text("//aq:message_header/aq:correlation") == [f"corr-{body}"]
            assert r.text("//aq:message_header/aq:priority") == ["3"]
            assert r.text("//aq:message_header/aq:expiration") == ["3600"]
            assert r.text("//aq:oracle_jms_properties/aq:type") == [f"type-{body}"]
            assert r.text("//aq:reply_to/aq:agent_name") == ["REPLIER"]
            assert r.text("//aq:reply_to/aq:address") == ["interop.replies_q"]
            assert r.text("//aq:oracle_jms_properties/aq:appid") == ["interop-app"]
            assert r.text("//aq:oracle_jms_properties/aq:groupid") == [f"group-{body}"]
            assert r.text("//aq:oracle_jms_properties/aq:group_sequence") == ["7"]
            assert r.doc is not None
            payload = r.doc.find(".//aq:message_payload", NS)
            assert payload is not None
            props = _typed_elements(payload.find(".//aq:user_properties", NS), "property")
            assert set(props) == {f"p_{n}" for n, *_ in TYPED}, body
            for name, kind, _, text in TYPED:
                element, got = props[f"p_{name}"]
                assert element == f"{kind}_value" and _same(element, got, text), (body, name, got)
            if body == "text":
                assert r.text("//aq:jms_text_message/aq:text_data") == [TEXT]
            elif body == "bytes":
                assert r.text("//aq:jms_bytes_message/aq:bytes_data") == [BYTES.hex().upper()]
            elif body == "map":
                items = _typed_elements(payload.find(".//aq:map_data", NS), "item")
                assert set(items) == {n for n, *_ in TYPED + NO_ELEMENT}
                for name, kind, _, text in TYPED:
                    element, got = items[name]
                    assert element == f"{kind}_value" and _same(element, got, text), (name, got)
                for name, _, _, text in NO_ELEMENT:  # no element: docs/gateway.md
                    assert items[name] == ("string_value", text), name
            else:
                [data] = r.text("//aq:jms_object_message/aq:ser_object_data")
                assert jms.JsonSerializer().loads(bytes.fromhex(data)) == OBJECT

            # IDAP AQXmlSend -> pgaq.jms, the same inputs
            r = await client.post(envelope(op("AQXmlSend",
                f"<producer_options><destination>{dest}</destination></producer_options>"
                "<message_set><message><message_header>"
                f"<correlation>corr-{body}</correlation><expiration>3600</expiration>"
                "<priority>3</priority>"
                "<sender_id><agent_name>JOHN</agent_name></sender_id></message_header>"
                f"<message_payload>{_idap_payload(body)}</message_payload></message>"
                "</message_set><AQXmlCommit/>")))
            assert r.status == 200 and r.fault is None, r.body
            [mid] = r.text("//aq:send_result/aq:message_id")
            consumer = await session.create_consumer(queue, message_selector=SELECTOR)
            received = await consumer.receive(5.0)
            _check_jms(received, body)
            assert received is not None
            assert received.jms_message_id == "ID:" + mid and received.jms_priority == 3
            assert received.jms_expiration == received.jms_timestamp + 3600 * 1000
            await consumer.close()
        # and the char / byte[] items IDAP has no element for stay typed between pgaq.jms
        # clients: only IDAP's view of them is a string
        queue = session.get_queue("interop", "map_q")
        await session.create_producer(queue).send(_jms_message(session, "map"))
        consumer = await session.create_consumer(queue)
        m = await consumer.receive(5.0)
        assert isinstance(m, jms.MapMessage)
        assert m.get_item_type("ch") == "char" and m.get_char("ch") == "é"
        assert m.get_item_type("raw") == "byte[]" and m.get_bytes("raw") == b"\x00\x01\xfe\xff"
    finally:
        await connection.close()
        await client.close()


async def test_a_queue_as_reply_to_crosses_to_idap_valid(gateway: str, db_dsn: str) -> None:
    """A reply-to that is a Queue is the agent aq$_agent(NULL, 'owner.queue', 0): IDAP writes
    it with the <agent_name> aq_access.xsd requires, empty (the NULL name), and reads that
    back as the same agent, so the message sent back over IDAP reaches pgaq.jms with the
    same Queue as its reply-to."""
    client = Client(gateway, "JOHN", "secret")
    connection = await jms.ConnectionFactory(db_dsn, safety_poll=30.0).create_connection()
    try:
        session = connection.create_session(False, jms.AUTO_ACKNOWLEDGE)
        queue = session.get_queue("interop", "text_q")
        m = session.create_text_message("reply to a queue")
        m.jms_reply_to = jms.Queue("interop", "text_q")
        await session.create_producer(queue).send(m)
        r = await client.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>INTEROP.TEXT_Q</destination><wait_time>0</wait_time>"
            "</consumer_options><AQXmlCommit/>")))
        assert r.status == 200 and r.fault is None and r.doc is not None, r.body
        load_schemas().validate(r.doc)
        assert r.text("//aq:reply_to/aq:agent_name") == [""]
        assert r.text("//aq:reply_to/aq:address") == ["interop.text_q"]
        # the document IDAP gave, sent back as it is
        [payload] = r.doc.xpath("//aq:jms_text_message", namespaces=NS)
        r = await client.post(envelope(op("AQXmlSend",
            "<producer_options><destination>INTEROP.TEXT_Q</destination></producer_options>"
            "<message_set><message><message_header><sender_id><agent_name>JOHN</agent_name>"
            "</sender_id></message_header><message_payload>"
            + etree.tostring(payload).decode() + "</message_payload></message></message_set>"
            "<AQXmlCommit/>")))
        assert r.status == 200 and r.fault is None, r.body
        consumer = await session.create_consumer(queue)
        await connection.start()
        back = await consumer.receive(5.0)
        assert isinstance(back, jms.TextMessage) and back.text == "reply to a queue"
        assert back.jms_reply_to == jms.Queue("interop", "text_q")
    finally:
        await connection.close()
        await client.close()
