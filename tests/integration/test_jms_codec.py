"""pgaq.jms.codec against the real engine: a JMS message crosses between pgaq.jms, SQL
(`dbms_aq.enqueue` / `dbms_aq.dequeue` of sys.aq$_jms_*) and IDAP unchanged, for every body
type and every property type (issue 22, "Interop").

The inputs are written once, by hand: a JMS message built through the API (`build`), and the
sys.aq$_jms_* value it is (`STORED`: the layout of V0001__catalog.sql, typed properties as
pgaq.idap.payload keeps them, Java's DataOutputStream bytes for a BytesMessage).
`test_every_path_on_the_same_inputs` runs each path on them.
"""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import asyncpg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree
from pgaq import DequeueOptions, Session
from pgaq.idap.payload import xml_to_payload
from pgaq.jms import codec
from pgaq.jms.destination import AQjmsAgent, Queue, Topic
from pgaq.jms.errors import MessageEOFException, MessageFormatException
from pgaq.jms.message import (
    AdtMessage,
    BytesMessage,
    MapMessage,
    Message,
    ObjectMessage,
    StreamMessage,
    TextMessage,
)

from .helpers import make_queue

TYPES = {"JMS_TEXT": "sys.aq$_jms_text_message", "JMS_BYTES": "sys.aq$_jms_bytes_message",
         "JMS_MAP": "sys.aq$_jms_map_message", "JMS_STREAM": "sys.aq$_jms_stream_message",
         "JMS_OBJECT": "sys.aq$_jms_object_message"}
SHORT = {"JMS_TEXT": "text", "JMS_BYTES": "bytes", "JMS_MAP": "map", "JMS_STREAM": "stream",
         "JMS_OBJECT": "object"}
PROVIDER = {"JMSXUserID", "JMSXDeliveryCount", "JMSXRcvTimestamp", "JMSXState",
            "JMS_OracleOriginalMessageID"}

# every property type, with values that test the edges: a float that is not a double, a
# double of 17 digits, a long beyond 2^53, float and double special values
PROPERTIES: list[tuple[str, str, Any]] = [
    ("flag", "boolean", True), ("small", "byte", -5), ("mid", "short", 300),
    ("count", "int", -70000), ("big", "long", 2 ** 60 + 1), ("ratio", "float", 1.1),
    ("sum", "double", 0.1 + 0.2), ("country", "string", "UK"), ("empty", "string", ""),
    ("huge", "float", math.inf), ("odd", "double", math.nan), ("neg", "double", -1e-300),
]
STORED_PROPERTIES = {
    "flag": {"type": "boolean", "value": True, "seq": 1},
    "small": {"type": "byte", "value": -5, "seq": 2},
    "mid": {"type": "short", "value": 300, "seq": 3},
    "count": {"type": "int", "value": -70000, "seq": 4},
    "big": {"type": "long", "value": 1152921504606846977, "seq": 5},
    "ratio": {"type": "float", "value": 1.1, "seq": 6},
    "sum": {"type": "double", "value": 0.30000000000000004, "seq": 7},
    "country": {"type": "string", "value": "UK", "seq": 8},
    "empty": {"type": "string", "value": "", "seq": 9},
    "huge": {"type": "float", "value": "INF", "seq": 10},
    "odd": {"type": "double", "value": "NaN", "seq": 11},
    "neg": {"type": "double", "value": -1e-300, "seq": 12},
}
HEADER = {"replyto": {"name": None, "address": "j.replies", "protocol": 0}, "type": "order",
          "userid": None, "appid": "billing-app", "groupid": "grp", "groupseq": 2,
          "properties": STORED_PROPERTIES}
OBJECT = b'{"order":7,"lines":["a","b"]}'
STREAM = bytes.fromhex(
    "0101"                  # boolean true
    "0500000005"            # int 5
    "09000000026869"        # String "hi"
    "0a000000020102"        # byte[] {1, 2}
    "00"                    # null String
    "030078"                # char 'x'
    "074004000000000000"    # double 2.5
    "083fc00000"            # float 1.5
    "06ffffffffffffffff"    # long -1
    "040007"                # short 7
    "02fe"                  # byte -2
)
BYTES = bytes.fromhex("01" "00000001" "00036f6b21" "c0200000")  # true, 1, "ok!", -2.5f
MAP_ITEMS: dict[str, dict[str, Any]] = {
    "b": {"type": "boolean", "value": False}, "y": {"type": "byte", "value": 127},
    "s": {"type": "short", "value": -32768}, "i": {"type": "int", "value": 2147483647},
    "l": {"type": "long", "value": -9223372036854775808}, "f": {"type": "float", "value": 0.1},
    "d": {"type": "double", "value": 1e300}, "t": {"type": "string", "value": "zoë"},
}
STORED: dict[str, dict[str, Any]] = {
    "JMS_TEXT": {"header": HEADER, "text_len": 11, "text_vc": "héllo wörld"},
    "JMS_BYTES": {"header": HEADER, "bytes_len": len(BYTES), "bytes_raw": "\\x" + BYTES.hex()},
    "JMS_MAP": {"header": HEADER, "map": MAP_ITEMS},
    "JMS_STREAM": {"header": HEADER, "bytes_len": len(STREAM), "bytes_raw": "\\x" + STREAM.hex()},
    "JMS_OBJECT": {"header": HEADER, "bytes_len": len(OBJECT), "bytes_raw": "\\x" + OBJECT.hex()},
}


def build(kind: str) -> Message:
    """The JMS message STORED[kind] is, built through pgaq.jms."""
    m: Message
    if kind == "JMS_TEXT":
        m = TextMessage("héllo wörld")
    elif kind == "JMS_BYTES":
        b = BytesMessage()
        b.write_boolean(True)
        b.write_int(1)
        b.write_utf("ok!")
        b.write_float(-2.5)
        m = b
    elif kind == "JMS_MAP":
        mm = MapMessage()
        mm.set_boolean("b", False)
        mm.set_byte("y", 127)
        mm.set_short("s", -32768)
        mm.set_int("i", 2147483647)
        mm.set_long("l", -9223372036854775808)
        mm.set_float("f", 0.1)
        mm.set_double("d", 1e300)
        mm.set_string("t", "zoë")
        m = mm
    elif kind == "JMS_STREAM":
        s = StreamMessage()
        s.write_boolean(True)
        s.write_int(5)
        s.write_string("hi")
        s.write_bytes(b"\x01\x02")
        s.write_string(None)
        s.write_char("x")
        s.write_double(2.5)
        s.write_float(1.5)
        s.write_long(-1)
        s.write_short(7)
        s.write_byte(-2)
        m = s
    else:
        m = ObjectMessage({"order": 7, "lines": ["a", "b"]})
    for name, kind_, value in PROPERTIES:
        getattr(m, f"set_{kind_}_property")(name, value)
    m.set_string_property("JMSXAppID", "billing-app")
    m.set_string_property("JMSXGroupID", "grp")
    m.set_int_property("JMSXGroupSeq", 2)
    m.set_int_property("JMS_OracleDelay", 0)
    m.set_string_property("JMS_OracleExcpQ", f"j.{SHORT[kind]}_eq")
    m.jms_type = "order"
    m.jms_reply_to = Queue("j", "replies")
    m.jms_correlation_id = "corr-1"
    m.jms_priority = 3
    m.jms_timestamp = 1_700_000_000_000
    m.jms_expiration = 1_700_000_060_000  # a time to live of 60 s
    return m


def _norm(value: Any) -> Any:
    return repr(value) if isinstance(value, float) else value


def snapshot(m: Message) -> dict[str, Any]:
    """What a JMS application sees of a message: class, client headers, properties with their
    types, body (a sent Bytes/Stream body is reset to read it)."""
    props = {n: (m.get_property_type(n), _norm(m.get_object_property(n)))
             for n in m.get_property_names() if n not in PROVIDER}
    out: dict[str, Any] = {"class": type(m).__name__, "type": m.jms_type,
                           "reply_to": m.jms_reply_to, "correlation": m.jms_correlation_id,
                           "priority": m.jms_priority, "properties": props}
    if isinstance(m, TextMessage):
        out["body"] = m.text
    elif isinstance(m, BytesMessage):
        m.reset()
        buf = bytearray(m.get_body_length())
        m.read_bytes(buf)
        out["body"] = bytes(buf)
    elif isinstance(m, MapMessage):
        out["body"] = {n: (m.get_item_type(n), _norm(m.get_object(n))) for n in m.get_map_names()}
    elif isinstance(m, StreamMessage):
        m.reset()
        items = []
        while True:
            try:
                items.append(_norm(m.read_object()))
            except MessageEOFException:
                break
        out["body"] = items
    elif isinstance(m, ObjectMessage):
        out["body"] = m.get_object()
    return out


async def _queues(conn: asyncpg.Connection) -> None:
    for kind, type_name in TYPES.items():
        k = SHORT[kind]
        await make_queue(conn, f"j.{k}_q", f"j.{k}_qt", type_name)
        await conn.execute("CALL dbms_aqadm.create_queue($1, $2, queue_type => 'EXCEPTION_QUEUE')",
                           f"j.{k}_eq", f"j.{k}_qt")
    await conn.execute("""
        CREATE FUNCTION pg_temp.deq(q text, p anyelement) RETURNS jsonb LANGUAGE plpgsql AS $$
        DECLARE mp dbms_aq.message_properties_t; id bytea;
        BEGIN
          CALL dbms_aq.dequeue(queue_name => q, dequeue_options => dbms_aq.dequeue_options(wait => 0),
                               message_properties => mp, payload => p, msgid => id);
          RETURN jsonb_build_object('payload', to_jsonb(p), 'props', to_jsonb(mp),
                                    'msgid', upper(encode(id, 'hex')));
        END $$""")


def _floats(value: Any) -> Any:
    """jsonb prints a numeric without an exponent (1e300 as 1 and 300 zeros): a float or
    double item's number read back as the float it is."""
    if isinstance(value, dict):
        if value.get("type") in ("float", "double") and isinstance(value.get("value"), int):
            return {**value, "value": float(value["value"])}
        return {k: _floats(v) for k, v in value.items()}
    return value


async def _sql_dequeue(conn: asyncpg.Connection, kind: str) -> dict[str, Any]:
    got = await conn.fetchval(f"SELECT pg_temp.deq($1, NULL::{TYPES[kind]})", f"j.{SHORT[kind]}_q")
    return _floats(json.loads(got))  # type: ignore[no-any-return]


async def _sql_enqueue(conn: asyncpg.Connection, kind: str, payload: dict[str, Any]) -> None:
    k = SHORT[kind]
    await conn.execute(
        f"CALL dbms_aq.enqueue(queue_name => $1, message_properties => dbms_aq.message_properties("
        f"priority => 3, expiration => 60, correlation => 'corr-1', exception_queue => $3),"
        f" payload => jsonb_populate_record(NULL::{TYPES[kind]}, $2::jsonb), msgid => NULL)",
        f"j.{k}_q", json.dumps(payload), f"j.{k}_eq")


def _idap_document(kind: str) -> etree._Element:
    """The message as an IDAP client sends it (Oracle Streams Advanced Queuing User's Guide and
    Reference, Release 10.1, chapter 17 "Internet Access to Oracle Streams AQ": the
    <jms_*_message> elements)."""
    tag = {"JMS_TEXT": "jms_text_message", "JMS_BYTES": "jms_bytes_message",
           "JMS_MAP": "jms_map_message", "JMS_OBJECT": "jms_object_message"}[kind]
    def text(kind: str, v: Any) -> str:
        if kind == "boolean":
            return "true" if v else "false"
        if kind in ("float", "double"):
            return "NaN" if v != v else "INF" if v == math.inf else repr(v)
        return str(v)

    props = "".join(f"<property><name>{n}</name><{t}_value>{text(t, v)}</{t}_value></property>"
                    for n, t, v in PROPERTIES)
    body = {
        "JMS_TEXT": "<text_data>héllo wörld</text_data>",
        "JMS_BYTES": f"<bytes_data>{BYTES.hex().upper()}</bytes_data>",
        "JMS_OBJECT": f"<ser_object_data>{OBJECT.hex()}</ser_object_data>",
        "JMS_MAP": "<map_data>" + "".join(
            f"<item><name>{n}</name><{i['type']}_value>{text(str(i['type']), i['value'])}"
            f"</{i['type']}_value></item>" for n, i in MAP_ITEMS.items()) + "</map_data>",
    }[kind]
    doc = f"""<message_payload><{tag}>
        <oracle_jms_properties><reply_to><address>j.replies</address></reply_to>
          <type>order</type><appid>billing-app</appid><groupid>grp</groupid>
          <group_sequence>2</group_sequence></oracle_jms_properties>
        <user_properties>{props}</user_properties>{body}</{tag}></message_payload>"""
    return etree.fromstring(doc.encode("utf-8"))


@pytest.mark.parametrize("kind", list(TYPES))
async def test_every_path_on_the_same_inputs(conn: asyncpg.Connection, kind: str) -> None:
    await _queues(conn)
    user = await conn.fetchval("SELECT current_user")
    queue = f"j.{SHORT[kind]}_q"
    sent = build(kind)
    stored_by_provider = {**STORED[kind], "header": {**HEADER, "userid": user}}

    # 1. the codec writes exactly the stored value, the AQ properties beside it
    payload, props = codec.to_engine(sent, kind)
    assert payload == STORED[kind]
    assert (props.priority, props.delay, props.expiration, props.correlation,
            props.exception_queue) == (3, 0, 60, "corr-1", f"j.{SHORT[kind]}_eq")

    # 2. pgaq.jms -> engine -> dbms_aq.dequeue: SQL sees the same header, properties, body
    s = Session(conn)
    msgid = await s.enqueue(queue, payload, props)
    got = await _sql_dequeue(conn, kind)
    assert got["msgid"] == msgid and got["payload"] == stored_by_provider
    mp = got["props"]
    assert (mp["priority"], mp["delay"], mp["expiration"], mp["correlation"]) == (3, 0, 60, "corr-1")
    assert mp["exception_queue"].lower() == f"{SHORT[kind]}_eq"  # dbms_aq gives the name alone

    # 3. dbms_aq.enqueue of the sys.aq$_jms_* value -> engine -> from_engine: the same message
    await _sql_enqueue(conn, kind, STORED[kind])
    [m] = await s.dequeue(queue)
    received = codec.from_engine(m, kind, Queue("j", f"{SHORT[kind]}_q"))
    assert snapshot(received) == snapshot(build(kind))
    assert received.get_string_property("JMSXUserID") == user
    assert received.jms_message_id == "ID:" + m.msgid
    assert received.jms_expiration == received.jms_timestamp + 60_000
    assert received.get_string_property("JMS_OracleExcpQ").lower() == f"j.{SHORT[kind]}_eq"  # type: ignore[union-attr]
    # and what was received sends again as it came
    again, _ = codec.to_engine(received, kind)
    assert again == STORED[kind]

    # 4. IDAP: the gateway's parse of the same message is the codec's payload
    if kind == "JMS_STREAM":
        return  # IDAP carries no StreamMessage (pgaq.idap.payload refuses it)
    assert xml_to_payload(kind, _idap_document(kind), None) == payload


async def test_map_items_idap_cannot_carry(conn: asyncpg.Connection) -> None:
    """char and byte[] map items (table 11-2's rows IDAP's schema has no element for) cross
    between pgaq.jms and SQL: stored as {"type": "char"} and {"type": "bytes"} (hex)."""
    await _queues(conn)
    m = MapMessage()
    m.set_char("c", "€")
    m.set_bytes("raw", b"\x00\xff")
    m.set_bytes("none", None)
    m.set_string("null", None)
    encoded, props = codec.to_engine(m, "JMS_MAP")
    assert isinstance(encoded, dict)
    payload: dict[str, Any] = encoded
    assert payload["map"] == {"c": {"type": "char", "value": "€"},
                              "raw": {"type": "bytes", "value": "00FF"},
                              "none": {"type": "bytes", "value": None},
                              "null": {"type": "string", "value": None}}
    s = Session(conn)
    await s.enqueue("j.map_q", payload, props)
    got = await _sql_dequeue(conn, "JMS_MAP")
    assert got["payload"]["map"] == payload["map"]
    await _sql_enqueue(conn, "JMS_MAP", payload)
    [e] = await s.dequeue("j.map_q")
    r = codec.from_engine(e, "JMS_MAP", None)
    assert isinstance(r, MapMessage)
    assert (r.get_char("c"), r.get_bytes("raw"), r.get_bytes("none"), r.get_string("null")) == (
        "€", b"\x00\xff", None, None)


async def test_what_sql_producers_write_reads_as_jms(conn: asyncpg.Connection) -> None:
    """A SQL producer's own spelling: properties without a seq, plain JSON scalars, numbers
    as strings, an agent as reply-to; a text message with no header fields at all."""
    await _queues(conn)
    await conn.execute("""
        CALL dbms_aq.enqueue('j.text_q', payload => ROW(ROW(ROW('APP', 'j.replies', 0)::sys.aq$_agent,
              NULL, NULL, NULL, NULL, NULL,
              '{"plain": 5, "word": "w", "yes": true, "n": {"type": "int", "value": "12"}}')::sys.aq$_jms_header,
              2, 'hi')::sys.aq$_jms_text_message, msgid => NULL)""")
    [m] = await Session(conn).dequeue("j.text_q")
    r = codec.from_engine(m, "JMS_TEXT", Queue("j", "text_q"))
    assert isinstance(r, TextMessage) and r.text == "hi"
    assert r.jms_reply_to == AQjmsAgent("APP", "j.replies", 0)
    assert r.get_property_type("plain") == "long" and r.get_int_property("n") == 12
    assert r.get_string_property("word") == "w" and r.get_boolean_property("yes") is True
    assert r.jms_priority == 1 and r.jms_expiration == 0 and r.jms_type is None


async def test_a_topic_reply_to(conn: asyncpg.Connection) -> None:
    """A Topic as JMSReplyTo is stored as Oracle's agent with an address alone; it reads
    back as a Topic where the caller tells which addresses are topics."""
    await _queues(conn)
    t = TextMessage("ask")
    t.jms_reply_to = Topic("j", "answers")
    payload, props = codec.to_engine(t, "JMS_TEXT")
    assert payload["header"]["replyto"] == {"name": None, "address": "j.answers", "protocol": 0}  # type: ignore[index,call-overload]
    s = Session(conn)
    await s.enqueue("j.text_q", payload, props)
    [e] = await s.dequeue("j.text_q")
    assert codec.from_engine(e, "JMS_TEXT", None).jms_reply_to == Queue("j", "answers")
    got = codec.from_engine(e, "JMS_TEXT", None, is_topic=lambda a: a == "j.answers")
    assert got.jms_reply_to == Topic("j", "answers")


async def test_header_only_and_nonpersistent_messages(conn: asyncpg.Connection) -> None:
    """A Message with no body goes to any JMS queue as that queue's empty body; a
    NON_PERSISTENT message is a BUFFERED one and comes back NON_PERSISTENT."""
    await _queues(conn)
    s = Session(conn)
    m = Message()
    m.set_string_property("k", "v")
    payload, props = codec.to_engine(m, "JMS_BYTES")
    await s.enqueue("j.bytes_q", payload, props)
    [e] = await s.dequeue("j.bytes_q")
    r = codec.from_engine(e, "JMS_BYTES", None)
    assert isinstance(r, BytesMessage) and r.get_body_length() == 0
    assert r.get_string_property("k") == "v"

    t = TextMessage("fast")
    t.jms_delivery_mode = 1
    payload, props = codec.to_engine(t, "JMS_TEXT")
    await s.enqueue("j.text_q", payload, props, visibility="IMMEDIATE",
                    delivery_mode=codec.engine_delivery_mode(t))
    [e] = await s.dequeue("j.text_q", DequeueOptions(delivery_mode="BUFFERED",
                                                     visibility="IMMEDIATE"))
    r = codec.from_engine(e, "JMS_TEXT", None)
    assert isinstance(r, TextMessage) and r.text == "fast" and r.jms_delivery_mode == 1


async def test_a_selector_reads_what_the_codec_wrote(conn: asyncpg.Connection) -> None:
    """The JMS selector (R__20_conditions_5) reads the header and properties the codec
    stores: a message the codec wrote is selected by its typed properties and headers."""
    await _queues(conn)
    s = Session(conn)
    payload, props = codec.to_engine(build("JMS_TEXT"), "JMS_TEXT")
    await s.enqueue("j.text_q", payload, props)
    selector = ("country = 'UK' AND count < -69999 AND big > 1152921504606846976 AND flag "
                "AND JMSType = 'order' AND JMSXGroupID = 'grp' AND JMSXGroupSeq = 2 "
                "AND JMSXAppID = 'billing-app' AND JMSPriority = 3 AND JMSCorrelationID = 'corr-1'")
    [m] = await s.dequeue("j.text_q", DequeueOptions(condition=selector))
    received = codec.from_engine(m, "JMS_TEXT", None)
    assert received.get_long_property("big") == 2 ** 60 + 1


async def test_a_wrong_body_changes_nothing(conn: asyncpg.Connection) -> None:
    await _queues(conn)
    with pytest.raises(MessageFormatException) as info:
        codec.to_engine(TextMessage("x"), "JMS_MAP")
    assert info.value.error_code == "JMS-108"
    assert await conn.fetchval("SELECT count(*) FROM j.map_qt") == 0


# -- random messages through the database ----------------------------------------------------
_chars = st.characters(blacklist_categories=["Cs"], blacklist_characters="\0")
_names = st.from_regex(r"\A[a-z][a-zA-Z0-9_]{0,8}\Z").filter(lambda n: n.upper() not in {
    "NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE"})
_scalars = [
    ("boolean", st.booleans()), ("byte", st.integers(-128, 127)),
    ("short", st.integers(-(2 ** 15), 2 ** 15 - 1)), ("int", st.integers(-(2 ** 31), 2 ** 31 - 1)),
    ("long", st.integers(-(2 ** 63), 2 ** 63 - 1)), ("float", st.floats(width=32)),
    ("double", st.floats()), ("string", st.text(_chars, max_size=12)),
]
_property = st.one_of(*[st.tuples(st.just(k), v) for k, v in _scalars])
_item = st.one_of(_property, st.tuples(st.just("char"), st.characters(
    max_codepoint=0xFFFF, blacklist_categories=["Cs"], blacklist_characters="\0")),
    st.tuples(st.just("bytes"), st.binary(max_size=8) | st.none()))


async def _round_trip(db_dsn: str, props: dict[str, tuple[str, Any]],
                      items: dict[str, tuple[str, Any]]) -> None:
    conn = await asyncpg.connect(db_dsn)
    try:
        if not await conn.fetchval("SELECT count(*) FROM aq.queues WHERE queue_name = 'map_q'"):
            await make_queue(conn, "j.map_q", "j.map_qt", TYPES["JMS_MAP"])
        m = MapMessage()
        for name, (kind, value) in items.items():
            getattr(m, f"set_{kind}")(name, value)
        for name, (kind, value) in props.items():
            getattr(m, f"set_{kind}_property")(name, value)
        expected = snapshot(m)
        payload, mp = codec.to_engine(m, "JMS_MAP")
        s = Session(conn)
        await s.enqueue("j.map_q", payload, mp)
        [e] = await s.dequeue("j.map_q")
        got = snapshot(codec.from_engine(e, "JMS_MAP", None))
        got["properties"].pop("JMS_OracleDelay")
        assert got == expected
    finally:
        await conn.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(props=st.dictionaries(_names, _property, max_size=6),
       items=st.dictionaries(st.text(_chars, min_size=1, max_size=6), _item, max_size=8))
def test_random_properties_and_map_items_cross_the_database(
        db_dsn: str, props: dict[str, tuple[str, Any]], items: dict[str, tuple[str, Any]]) -> None:
    """Any property and map value of any type comes back from the database as it went in
    (floats at their edges, longs past 2^53, NaN and infinities, any text)."""
    asyncio.run(_round_trip(db_dsn, props, items))


def test_strings_the_database_cannot_store_are_refused() -> None:
    """U+0000 and lone surrogates (Java strings may hold them) cannot be text or jsonb: the
    codec refuses them before the send; a Stream body, being bytes, carries both."""
    for bad in ("a\0b", "\ud800"):
        with pytest.raises(MessageFormatException):
            codec.to_engine(TextMessage(bad), "JMS_TEXT")
    s = StreamMessage()
    s.write_string("a\0b\ud800")
    payload, _ = codec.to_engine(s, "JMS_STREAM")
    assert isinstance(payload, dict) and payload["bytes_len"] == 1 + 4 + 6


@dataclass
class Car:
    carno: str
    year: int
    price: Decimal


async def test_adt_and_raw_queues(conn: asyncpg.Connection) -> None:
    """AdtMessage on an object-typed queue (Oracle Database Advanced Queuing User's Guide,
    "Introduction to Oracle Java Message Service", "AdtMessage": "create the queue table with
    payload type as the Oracle object type"), both ways with SQL; a BytesMessage on a RAW queue
    is its body alone, and delay and exception queue still travel as AQ properties."""
    await conn.execute("CREATE SCHEMA cars; CREATE TYPE cars.car_typ AS "
                       "(carno varchar(10), year numeric, price numeric(12,2))")
    await make_queue(conn, "cars.q", "cars.qt", "cars.car_typ")
    s = Session(conn)
    adt = AdtMessage(Car("C1", 2024, Decimal("45000.50")))
    adt.set_int_property("JMS_OracleDelay", 0)
    adt.jms_correlation_id = "car-1"
    payload, props = codec.to_engine(adt, "OBJECT")
    await s.enqueue("cars.q", payload, props)
    row = await conn.fetchrow("SELECT (user_data).carno, (user_data).year, (user_data).price, corrid "
                              "FROM cars.qt")
    assert tuple(row) == ("C1", 2024, Decimal("45000.50"), "car-1")
    await s.dequeue("cars.q")
    await conn.execute("CALL dbms_aq.enqueue('cars.q', payload => ROW('C2', 2025, 9.99)::cars.car_typ,"
                       " msgid => NULL)")
    [e] = await s.dequeue("cars.q")
    got = codec.from_engine(e, "OBJECT", Queue("cars", "q"))
    assert isinstance(got, AdtMessage)
    assert got.get_adt_payload(lambda **a: (a["carno"], int(a["year"]), str(a["price"]))) == (
        "C2", 2025, "9.99")

    await make_queue(conn, "r.q", "r.qt", "RAW")
    b = BytesMessage()
    b.write_int(7)
    payload, props = codec.to_engine(b, "RAW")
    assert payload == b"\x00\x00\x00\x07"
    await s.enqueue("r.q", payload, props)
    [e] = await s.dequeue("r.q")
    r = codec.from_engine(e, "RAW", None)
    assert isinstance(r, BytesMessage) and r.read_int() == 7
    b2 = BytesMessage()
    b2.set_string_property("country", "UK")
    with pytest.raises(MessageFormatException):
        codec.to_engine(b2, "RAW")  # a RAW queue cannot carry properties
