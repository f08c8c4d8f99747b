"""pgaq.jms messages without a database: the conversion tables 11-1 and 11-2 of Oracle Database
Advanced Queuing User's Guide, "Introduction to Oracle Java Message Service", cell by cell, JMS
1.1's property conversions and name rules, BytesMessage bytes as Java's DataOutputStream writes
them, StreamMessage's byte[] reads, read/write modes, and an ObjectMessage that never unpickles
unless told to. Expected values are written from the guide, the JMS 1.1 specification and the
Java SE documentation, not from the code."""

from __future__ import annotations

import json
import math
import pickle
import struct
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pgaq import Agent
from pgaq import Message as EngineMessage
from pgaq.errors import PgaqError, QueueError
from pgaq.jms import codec
from pgaq.jms.destination import AQjmsAgent, Queue, Topic
from pgaq.jms.errors import (
    IllegalArgumentException,
    IllegalStateException,
    InvalidDestinationException,
    InvalidSelectorException,
    JMSException,
    JMSSecurityException,
    MessageEOFException,
    MessageFormatException,
    MessageNotReadableException,
    MessageNotWriteableException,
    NumberFormatException,
    ResourceAllocationException,
    from_pgaq_error,
)
from pgaq.jms.message import (
    NON_PERSISTENT,
    PERSISTENT,
    AdtMessage,
    BytesMessage,
    MapMessage,
    Message,
    ObjectMessage,
    PickleSerializer,
    StreamMessage,
    TextMessage,
)

# -- Oracle JMS guide, tables 11-1 (StreamMessage) and 11-2 (MapMessage), copied as printed --
COLUMNS = ["boolean", "byte", "short", "char", "int", "long", "float", "double", "String", "byte[]"]
TABLE_11_1 = """
boolean X - - - - - - - X -
byte    - X X - X X - - X -
short   - - X - X X - - X -
char    - - - X - - - - X -
int     - - - - X X - - X -
long    - - - - - X - - X -
float   - - - - - - X X X -
double  - - - - - - - X X -
string  X X X X X X X X X -
byte[]  - - - - - - - - - X
"""
TABLE_11_2 = TABLE_11_1  # the guide prints the same marks for MapMessage


def _cells(table: str) -> list[tuple[str, str, bool]]:
    out = []
    for line in table.strip().splitlines():
        row, *marks = line.split()
        assert len(marks) == len(COLUMNS)
        out += [(row, col, mark == "X") for col, mark in zip(COLUMNS, marks, strict=True)]
    return out


# what each row writes, and what each allowed column reads back (Java's widening and
# String.valueOf; a String row writes a string that parses as the column's type)
WRITTEN: dict[str, Any] = {"boolean": True, "byte": -100, "short": 1000, "char": "Z",
                           "int": 100000, "long": 2 ** 40, "float": 1.5, "double": 2.25,
                           "byte[]": b"\x01\x02"}
STRING_FOR = {"boolean": ("true", True), "byte": ("12", 12), "short": ("-1234", -1234),
              "char": ("Q", "Q"), "int": ("123456", 123456), "long": ("12345678901", 12345678901),
              "float": ("1.5", 1.5), "double": ("2.5", 2.5), "String": ("hello", "hello"),
              "byte[]": ("AB", None)}
AS_STRING = {"boolean": "true", "byte": "-100", "short": "1000", "char": "Z", "int": "100000",
             "long": "1099511627776", "float": "1.5", "double": "2.25"}


def _expected(row: str, col: str) -> Any:
    if row == "string":
        return STRING_FOR[col][1]
    if col == "String":
        return AS_STRING[row]
    return WRITTEN[row]  # same value, widened


def _written(row: str, col: str) -> Any:
    return STRING_FOR[col][0] if row == "string" else WRITTEN[row]


STREAM_WRITE = {"boolean": "write_boolean", "byte": "write_byte", "short": "write_short",
                "char": "write_char", "int": "write_int", "long": "write_long",
                "float": "write_float", "double": "write_double", "string": "write_string",
                "byte[]": "write_bytes"}
STREAM_READ = {"boolean": "read_boolean", "byte": "read_byte", "short": "read_short",
               "char": "read_char", "int": "read_int", "long": "read_long",
               "float": "read_float", "double": "read_double", "String": "read_string"}
MAP_SET = {k: v.replace("write_", "set_") for k, v in STREAM_WRITE.items()}
MAP_SET["byte[]"] = "set_bytes"
MAP_GET = {k: v.replace("read_", "get_") for k, v in STREAM_READ.items()}
MAP_GET["byte[]"] = "get_bytes"


def _read_stream_bytes(m: StreamMessage) -> bytes | None:
    buf = bytearray(64)
    n = m.read_bytes(buf)
    return None if n < 0 else bytes(buf[:n])


@pytest.mark.parametrize(("row", "col", "allowed"), _cells(TABLE_11_1))
def test_stream_message_table_11_1(row: str, col: str, allowed: bool) -> None:
    m = StreamMessage()
    getattr(m, STREAM_WRITE[row])(_written(row, col))
    m.write_string("after")
    m.reset()
    read = (lambda: _read_stream_bytes(m)) if col == "byte[]" else getattr(m, STREAM_READ[col])
    if allowed:
        got = read()
        assert got == _expected(row, col) and type(got) is type(_expected(row, col))
    else:
        with pytest.raises(MessageFormatException):
            read()
        # JMS 1.1 StreamMessage: a read that raises MessageFormatException does not move on
        assert m.read_object() == (b"\x01\x02" if row == "byte[]" else _written(row, col))
    assert m.read_string() == "after"


@pytest.mark.parametrize(("row", "col", "allowed"), _cells(TABLE_11_2))
def test_map_message_table_11_2(row: str, col: str, allowed: bool) -> None:
    m = MapMessage()
    getattr(m, MAP_SET[row])("v", _written(row, col))
    get = getattr(m, MAP_GET[col])
    if allowed:
        got = get("v")
        assert got == _expected(row, col) and type(got) is type(_expected(row, col))
    else:
        with pytest.raises(MessageFormatException):
            get("v")


@pytest.mark.parametrize(("col", "text"), [("byte", "128"), ("byte", "x"), ("short", "40000"),
                                          ("int", "1.5"), ("int", " 1"), ("long", "9223372036854775808"),
                                          ("float", "one"), ("double", "")])
def test_a_string_that_does_not_parse_is_a_number_format_exception(col: str, text: str) -> None:
    """Java's valueOf raises NumberFormatException: a MessageFormatException and a
    ValueError here; a stream read that fails so leaves the position where it was."""
    m = StreamMessage()
    m.write_string(text)
    m.reset()
    with pytest.raises(NumberFormatException) as info:
        getattr(m, STREAM_READ[col])()
    assert isinstance(info.value, ValueError) and isinstance(info.value, MessageFormatException)
    assert m.read_string() == text


@pytest.mark.parametrize(("text", "expected"), [("true", True), ("TRUE", True), ("True", True),
                                                ("yes", False), ("1", False), ("", False)])
def test_string_to_boolean_is_boolean_value_of(text: str, expected: bool) -> None:
    m = MapMessage()
    m.set_string("b", text)
    assert m.get_boolean("b") is expected


@pytest.mark.parametrize(("text", "expected"), [(" 1.5 ", 1.5), ("1e3", 1000.0), ("2.5d", 2.5),
                                                ("-Infinity", -math.inf), ("+7", 7.0)])
def test_string_to_double_is_double_value_of(text: str, expected: float) -> None:
    m = MapMessage()
    m.set_string("d", text)
    assert m.get_double("d") == expected


def test_string_to_float_rounds_to_a_float() -> None:
    m = MapMessage()
    m.set_string("f", "1.1")
    assert m.get_float("f") == struct.unpack(">f", struct.pack(">f", 1.1))[0]


# -- null values (JMS 1.1: a null read as a primitive is valueOf(null)) ---------------------
def test_null_values_in_a_stream() -> None:
    m = StreamMessage()
    m.write_string(None)
    m.write_string(None)
    m.write_string(None)
    m.write_bytes(None)
    m.reset()
    assert m.read_boolean() is False  # Boolean.valueOf(null)
    with pytest.raises(NumberFormatException):
        m.read_int()  # Integer.valueOf(null)
    assert m.read_string() is None
    assert m.read_string() is None
    assert _read_stream_bytes(m) is None  # a null byte[]: -1
    with pytest.raises(MessageEOFException):
        m.read_object()


def test_missing_map_items_read_as_null() -> None:
    m = MapMessage()
    assert m.get_boolean("nope") is False
    assert m.get_string("nope") is None and m.get_bytes("nope") is None
    assert m.get_object("nope") is None and not m.item_exists("nope")
    for getter in ("get_byte", "get_short", "get_int", "get_long", "get_float", "get_double"):
        with pytest.raises(NumberFormatException):
            getattr(m, getter)("nope")



def test_a_string_read_as_char_is_one_utf16_code_unit() -> None:
    """A Java char holds no character beyond the BMP (one Python character, two UTF-16
    units): such a String cannot be read as a char, as in the Java provider."""
    m = MapMessage()
    m.set_string("bmp", "\u4e2d")
    m.set_string("beyond", "\U0001F600")
    assert m.get_char("bmp") == "\u4e2d"
    with pytest.raises(MessageFormatException):
        m.get_char("beyond")
    s = StreamMessage()
    s.write_string("\U0001F600")
    s.reset()
    with pytest.raises(MessageFormatException):
        s.read_char()
    assert s.read_string() == "\U0001F600"  # the failed read did not move on

# -- JMS 1.1 section 3.5.4: property value conversions ---------------------------------------
PROPERTY_TABLE = """
boolean X - - - - - - X
byte    - X X X X - - X
short   - - X X X - - X
int     - - - X X - - X
long    - - - - X - - X
float   - - - - - X X X
double  - - - - - - X X
String  X X X X X X X X
"""
PROPERTY_COLUMNS = ["boolean", "byte", "short", "int", "long", "float", "double", "String"]
PROPERTY_WRITTEN = {"boolean": False, "byte": 7, "short": -300, "int": 70000, "long": -(2 ** 50),
                    "float": -0.5, "double": 1e100}
PROPERTY_AS_STRING = {"boolean": "false", "byte": "7", "short": "-300", "int": "70000",
                      "long": "-1125899906842624", "float": "-0.5", "double": "1.0E100"}
PROPERTY_STRING_FOR = {"boolean": ("TRUE", True), "byte": ("-8", -8), "short": ("300", 300),
                       "int": ("-70000", -70000), "long": ("1125899906842624", 1125899906842624),
                       "float": ("0.25", 0.25), "double": ("1e-5", 1e-5), "String": ("s", "s")}


def _property_cells() -> list[tuple[str, str, bool]]:
    out = []
    for line in PROPERTY_TABLE.strip().splitlines():
        row, *marks = line.split()
        out += [(row, col, mark == "X") for col, mark in zip(PROPERTY_COLUMNS, marks, strict=True)]
    return out


@pytest.mark.parametrize(("row", "col", "allowed"), _property_cells())
def test_property_conversions(row: str, col: str, allowed: bool) -> None:
    m = TextMessage()
    value = PROPERTY_STRING_FOR[col][0] if row == "String" else PROPERTY_WRITTEN[row]
    getattr(m, f"set_{row.lower()}_property")("p", value)
    get = getattr(m, f"get_{col.lower()}_property")
    if not allowed:
        with pytest.raises(MessageFormatException):
            get("p")
        return
    expected = (PROPERTY_STRING_FOR[col][1] if row == "String"
                else PROPERTY_AS_STRING[row] if col == "String" else PROPERTY_WRITTEN[row])
    got = get("p")
    assert got == expected and type(got) is type(expected)


def test_missing_properties() -> None:
    """JMS 1.1 3.5.4 and the Message javadoc: a property not set is null."""
    m = TextMessage()
    assert m.get_boolean_property("x") is False
    assert m.get_string_property("x") is None and m.get_object_property("x") is None
    for getter in ("byte", "short", "int", "long", "float", "double"):
        with pytest.raises(NumberFormatException):
            getattr(m, f"get_{getter}_property")("x")
    assert not m.property_exists("x") and m.get_property_names() == []


@pytest.mark.parametrize(("value", "single", "text"), [
    (1.1, True, "1.1"), (100.0, False, "100.0"), (0.001, False, "0.001"), (1e7, False, "1.0E7"),
    (1e-4, False, "1.0E-4"), (12345678.0, False, "1.2345678E7"), (1e20, False, "1.0E20"),
    (-0.0, False, "-0.0"), (math.nan, False, "NaN"), (math.inf, True, "Infinity"),
    (0.1 + 0.2, False, "0.30000000000000004"), (3.4028234663852886e38, True, "3.4028235E38"),
])
def test_floats_read_as_strings_as_java_prints_them(value: float, single: bool, text: str) -> None:
    m = TextMessage()
    (m.set_float_property if single else m.set_double_property)("f", value)
    assert m.get_string_property("f") == text


def test_a_float_widens_to_the_double_java_gives() -> None:
    m = TextMessage()
    m.set_float_property("f", 1.1)
    assert m.get_double_property("f") == 1.100000023841858  # (double) 1.1f


def test_set_object_property_types() -> None:
    m = TextMessage()
    m.set_object_property("b", True)
    m.set_object_property("i", 5)
    m.set_object_property("l", 2 ** 40)
    m.set_object_property("d", 0.5)
    m.set_object_property("s", "x")
    assert [m.get_property_type(n) for n in "bilds"] == ["boolean", "int", "long", "double", "String"]
    bad: Any
    for bad in (b"x", None, [1], {"a": 1}):
        with pytest.raises(MessageFormatException):
            m.set_object_property("z", bad)


@pytest.mark.parametrize(("setter", "value"), [("byte", 128), ("byte", -129), ("short", 2 ** 15),
                                               ("int", 2 ** 31), ("long", 2 ** 63), ("int", 1.0),
                                               ("int", True), ("float", 1e39), ("boolean", 1),
                                               ("string", 5)])
def test_values_outside_their_java_type(setter: str, value: Any) -> None:
    with pytest.raises(MessageFormatException):
        getattr(TextMessage(), f"set_{setter}_property")("p", value)


# -- property names ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["country", "_x", "$y", "a1", "Größe", "JMS_IBM_Format", "nulls"])
def test_valid_property_names(name: str) -> None:
    m = TextMessage()
    m.set_int_property(name, 1)
    assert m.property_exists(name) and m.get_property_names() == [name]


@pytest.mark.parametrize("name", ["", "1a", "a-b", "a b", "NULL", "true", "False", "not", "AND",
                                  "or", "Between", "like", "IN", "is", "ESCAPE"])
def test_invalid_property_names(name: str) -> None:
    with pytest.raises(IllegalArgumentException) as info:
        TextMessage().set_string_property(name, "v")
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("name", ["JMSType", "JMSFoo", "JMSXFoo", "JMS_OracleFoo", "JMSPriority"])
def test_names_reserved_for_jms_and_oracle(name: str) -> None:
    with pytest.raises(IllegalArgumentException):
        TextMessage().set_string_property(name, "v")


# Oracle JMS guide, "Using Message Properties with Different Message Types"
CLIENT_SETS: dict[str, str | int] = {"JMSXAppID": "app", "JMSXGroupID": "g", "JMSXGroupSeq": 3,
               "JMS_OracleExcpQ": "s.eq", "JMS_OracleDelay": 10}
PROVIDER_SETS = ["JMSXUserID", "JMSXDeliveryCount", "JMSXRcvTimestamp", "JMSXState",
                 "JMS_OracleOriginalMessageID"]


@pytest.mark.parametrize("name", sorted(CLIENT_SETS))
def test_properties_the_client_sets(name: str) -> None:
    m = BytesMessage()
    m.set_object_property(name, CLIENT_SETS[name])
    assert m.get_object_property(name) == CLIENT_SETS[name]


@pytest.mark.parametrize("name", PROVIDER_SETS)
def test_properties_only_the_provider_sets(name: str) -> None:
    with pytest.raises(MessageNotWriteableException):
        TextMessage().set_string_property(name, "1")


def test_adt_message_properties() -> None:
    """For AdtMessage the client can set JMS_OracleExcpQ and JMS_OracleDelay only."""
    m = AdtMessage({"a": 1})
    m.set_string_property("JMS_OracleExcpQ", "s.eq")
    m.set_int_property("JMS_OracleDelay", 5)
    for name in ("JMSXAppID", "JMSXGroupID"):
        with pytest.raises(MessageNotWriteableException):
            m.set_string_property(name, "x")
    with pytest.raises(JMSException):
        m.set_string_property("country", "UK")


def test_the_seeds_other_spellings_name_the_same_property() -> None:
    m = TextMessage()
    m.set_string_property("JMSXGroupid", "g")
    assert m.get_string_property("JMSXGroupID") == "g"


def test_a_special_property_takes_its_type() -> None:
    m = TextMessage()
    m.set_string_property("JMS_OracleDelay", "7")
    assert m.get_property_type("JMS_OracleDelay") == "int" and m.get_int_property("JMS_OracleDelay") == 7
    with pytest.raises(NumberFormatException):
        m.set_string_property("JMSXGroupSeq", "first")


# -- BytesMessage: java.io.DataOutputStream's bytes ------------------------------------------
@pytest.mark.parametrize(("write", "value", "data"), [
    ("write_boolean", True, b"\x01"), ("write_boolean", False, b"\x00"),
    ("write_byte", -1, b"\xff"), ("write_byte", 127, b"\x7f"),
    ("write_short", -2, b"\xff\xfe"), ("write_short", 258, b"\x01\x02"),
    ("write_char", "A", b"\x00\x41"), ("write_char", "\u20ac", b"\x20\xac"),
    ("write_int", 1, b"\x00\x00\x00\x01"), ("write_int", -2, b"\xff\xff\xff\xfe"),
    ("write_long", -1, b"\xff" * 8), ("write_long", 2 ** 32, b"\x00\x00\x00\x01\x00\x00\x00\x00"),
    ("write_float", 1.0, b"\x3f\x80\x00\x00"), ("write_float", -2.5, b"\xc0\x20\x00\x00"),
    ("write_double", 1.0, b"\x3f\xf0" + b"\x00" * 6),
    ("write_utf", "", b"\x00\x00"), ("write_utf", "hi", b"\x00\x02hi"),
    ("write_utf", "é", b"\x00\x02\xc3\xa9"), ("write_utf", "€", b"\x00\x03\xe2\x82\xac"),
    ("write_utf", "\0", b"\x00\x02\xc0\x80"),  # modified UTF-8: U+0000 in two bytes
    ("write_utf", "😀", b"\x00\x06\xed\xa0\xbd\xed\xb8\x80"),  # as two surrogates, 3 bytes each
    ("write_bytes", b"\x00\x01", b"\x00\x01"),
    ("write_object", 5, b"\x00\x00\x00\x05"), ("write_object", "é", b"\x00\x02\xc3\xa9"),
])
def test_bytes_message_layout(write: str, value: Any, data: bytes) -> None:
    m = BytesMessage()
    getattr(m, write)(value)
    m.reset()
    assert m.get_body_length() == len(data)
    buf = bytearray(len(data) + 4)
    assert m.read_bytes(buf) == len(data) and bytes(buf[:len(data)]) == data
    m.reset()
    read = {"write_object": "read_int" if isinstance(value, int) else "read_utf",
            "write_bytes": None}.get(write, write.replace("write_", "read_"))
    if read is not None:
        assert getattr(m, read)() == value


def test_bytes_message_reads() -> None:
    m = BytesMessage()
    m.write_bytes(b"\xff\xfe\x00\x41", 0, 4)
    m.write_bytes(b"abcdef", 2, 3)
    m.reset()
    assert m.read_unsigned_byte() == 255
    assert m.read_byte() == -2
    assert m.read_unsigned_short() == 0x41
    assert m.get_body_length() == 7
    buf = bytearray(2)
    assert m.read_bytes(buf) == 2 and buf == b"cd"
    assert m.read_bytes(buf) == 1 and buf[:1] == b"e"
    assert m.read_bytes(buf) == -1  # the end
    with pytest.raises(MessageEOFException):
        m.read_byte()


def test_bytes_message_eof_leaves_the_position() -> None:
    m = BytesMessage()
    m.write_short(7)
    m.reset()
    with pytest.raises(MessageEOFException):
        m.read_int()
    assert m.read_short() == 7


def test_bytes_message_utf_too_long() -> None:
    with pytest.raises(MessageFormatException):
        BytesMessage().write_utf("x" * 65536)


def test_read_and_write_modes() -> None:
    for m in (BytesMessage(), StreamMessage()):
        with pytest.raises(MessageNotReadableException):
            m.read_boolean()
        m.write_boolean(True)
        m.reset()
        with pytest.raises(MessageNotWriteableException):
            m.write_boolean(False)
        assert m.read_boolean() is True
        m.clear_body()
        m.write_int(3)
        m.reset()
        assert m.read_int() == 3
        with pytest.raises(MessageEOFException):
            m.read_int()
    with pytest.raises(MessageNotReadableException):
        BytesMessage().get_body_length()


# -- StreamMessage: byte[] fields ------------------------------------------------------------
def test_stream_byte_array_read_in_parts() -> None:
    """JMS 1.1 StreamMessage.readBytes: call again until the count is below the buffer's
    length; -1 when the field ended exactly at the buffer's end; no other read meanwhile."""
    m = StreamMessage()
    m.write_bytes(b"12345")
    m.write_bytes(b"abcd")
    m.write_bytes(b"")
    m.write_int(9)
    m.reset()
    buf = bytearray(2)
    assert m.read_bytes(buf) == 2 and buf == b"12"
    with pytest.raises(MessageFormatException):
        m.read_int()  # the field is not read to its end
    assert m.read_bytes(buf) == 2 and buf == b"34"
    assert m.read_bytes(buf) == 1 and buf[:1] == b"5"
    assert m.read_bytes(buf) == 2 and buf == b"ab"
    assert m.read_bytes(buf) == 2 and buf == b"cd"
    assert m.read_bytes(buf) == -1
    assert m.read_bytes(buf) == 0  # an empty byte[]
    assert m.read_int() == 9
    with pytest.raises(MessageEOFException):
        m.read_bytes(buf)


def test_stream_write_bytes_slice_and_object() -> None:
    m = StreamMessage()
    m.write_bytes(b"abcdef", 1, 3)
    m.write_object(None)
    m.write_object(2 ** 40)
    m.write_object(b"z")
    m.reset()
    assert m.read_object() == b"bcd"
    assert m.read_object() is None
    assert m.read_long() == 2 ** 40
    assert m.read_object() == b"z"


# -- received messages are read-only ---------------------------------------------------------
def _engine_message(payload: Any, **kw: Any) -> EngineMessage:
    fields: dict[str, Any] = dict(
        msgid="00112233445566778899AABBCCDDEEFF", queue="s.q", consumer_name=None,
        correlation=None, priority=1, delay=0, expiration=None,
        enqueue_time=datetime(2026, 1, 2, 3, 4, 5, 678900, tzinfo=UTC), state="PROCESSED",
        attempts=0, exception_queue=None, sender_id=None, original_msgid=None,
        transaction_group=None, payload=payload)
    fields.update(kw)
    return EngineMessage(**fields)


def _through_json(payload: Any) -> Any:
    """What the engine's JSON does to a payload (pgaq.client reads floats beyond 15 digits
    as Decimal)."""
    from pgaq.client import load_json_payload

    return load_json_payload(json.dumps(payload))


def _received(msg: Message, kind: str, **kw: Any) -> Message:
    payload, _ = codec.to_engine(msg, kind)
    return codec.from_engine(_engine_message(_through_json(payload), **kw), kind, Queue("s", "q"))


def test_a_received_message_is_read_only_until_cleared() -> None:
    sent = TextMessage("hello")
    sent.set_string_property("country", "UK")
    got = _received(sent, "JMS_TEXT")
    assert isinstance(got, TextMessage) and got.text == "hello"
    with pytest.raises(MessageNotWriteableException):
        got.set_string_property("country", "FR")
    with pytest.raises(MessageNotWriteableException):
        got.text = "x"
    got.clear_properties()
    assert got.get_property_names() == []
    got.set_string_property("country", "FR")
    got.clear_body()
    got.text = "x"
    # headers stay settable (JMS lets a client set them on a received message)
    got.jms_correlation_id = "c"


def test_a_received_stream_is_ready_to_read() -> None:
    sent = StreamMessage()
    sent.write_int(1)
    got = _received(sent, "JMS_STREAM")
    assert isinstance(got, StreamMessage) and got.read_int() == 1
    with pytest.raises(MessageNotWriteableException):
        got.write_int(2)


def test_a_stream_tells_the_type_of_its_next_field() -> None:
    """read_object gives a Python int for byte, short, int and long alike; the type is asked
    apart, without moving (Java: readObject() instanceof Long)."""
    sent = StreamMessage()
    sent.write_byte(1)
    sent.write_long(1)
    sent.write_bytes(None)
    with pytest.raises(MessageNotReadableException):
        sent.get_next_item_type()  # write-only until reset(), as every read
    got = _received(sent, "JMS_STREAM")
    assert isinstance(got, StreamMessage)
    assert got.get_next_item_type() == "byte" and got.get_next_item_type() == "byte"
    assert got.read_object() == 1 and got.get_next_item_type() == "long"
    assert got.read_long() == 1 and got.get_next_item_type() == "byte[]"
    assert got.read_object() is None and got.get_next_item_type() is None


def test_the_sender_id_set_is_sent_and_a_received_one_is_not_sent_on() -> None:
    """Oracle's AQjmsMessage.setSenderID/getSenderID: what is set goes in AQ's sender_id; a
    received message shows the sender the database recorded, and sent on it is the
    forwarder's (none unless set again)."""
    m = TextMessage("x")
    assert m.get_sender_id() is None
    m.set_sender_id(AQjmsAgent("ME", "s.q"))
    _, props = codec.to_engine(m, "JMS_TEXT")
    assert props.sender_id is not None and (props.sender_id.name, props.sender_id.address) == ("ME", "s.q")
    with pytest.raises(IllegalArgumentException):
        m.set_sender_id("ME")  # type: ignore[arg-type]
    got = _received(TextMessage("y"), "JMS_TEXT", sender_id=Agent("THEM", None, 0))
    assert got.get_sender_id() == AQjmsAgent("THEM")
    _, props = codec.to_engine(got, "JMS_TEXT")
    assert props.sender_id is None
    got.set_sender_id(AQjmsAgent("FWD"))
    assert got.get_sender_id() == AQjmsAgent("FWD")


def test_received_headers() -> None:
    """Oracle JMS guide, "JMS Message Headers": JMSMessageID starts with ID:, JMSTimestamp is
    the enqueue time (ms), JMSRedelivered and JMSXDeliveryCount come from the attempts, BUFFERED
    is NON_PERSISTENT."""
    sent = TextMessage("x")
    got = _received(sent, "JMS_TEXT", attempts=2, delivery_mode="BUFFERED", expiration=60,
                    priority=3, correlation="c1", delay=5, exception_queue="s.eq",
                    state="READY")
    assert got.jms_message_id == "ID:00112233445566778899AABBCCDDEEFF"
    stamp = 1767323045678  # 2026-01-02T03:04:05.678900Z, floored to the ms
    assert got.jms_timestamp == stamp and got.jms_expiration == stamp + 60_000
    assert got.jms_redelivered is True and got.get_int_property("JMSXDeliveryCount") == 3
    assert got.jms_delivery_mode == NON_PERSISTENT and got.jms_priority == 3
    assert got.jms_correlation_id == "c1" and got.jms_destination == Queue("s", "q")
    assert got.get_int_property("JMS_OracleDelay") == 5
    assert got.get_string_property("JMS_OracleExcpQ") == "s.eq"
    assert got.get_string_property("JMS_OracleOriginalMessageID") == got.jms_message_id
    assert got.get_int_property("JMSXState") == 2  # JMS 1.1: READY
    assert got.property_exists("JMSXRcvTimestamp")
    fresh = _received(sent, "JMS_TEXT")
    assert fresh.jms_redelivered is False and fresh.jms_delivery_mode == PERSISTENT
    assert fresh.jms_expiration == 0


async def test_acknowledge_without_a_session() -> None:
    """A message no session received has nothing to acknowledge (a received one's
    acknowledge() is the session's: tests/integration/test_jms_ack_modes.py)."""
    with pytest.raises(IllegalStateException):
        await TextMessage("x").acknowledge()


# -- ObjectMessage never unpickles by default ------------------------------------------------
UNPICKLED: list[str] = []


def _record(tag: str) -> str:
    UNPICKLED.append(tag)
    return tag


class _Trap:
    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return _record, ("unpickled!",)


def test_object_message_json_by_default() -> None:
    m = ObjectMessage({"order": 1, "items": ["a", "b"]})
    assert m.get_object_bytes() == b'{"order":1,"items":["a","b"]}'
    assert m.object == {"order": 1, "items": ["a", "b"]}
    with pytest.raises(MessageFormatException):
        ObjectMessage({1, 2})  # a set is no JSON


def test_object_message_never_unpickles_by_default() -> None:
    UNPICKLED.clear()
    data = pickle.dumps(_Trap())
    sent = ObjectMessage()
    sent.set_object_bytes(data)
    got = _received(sent, "JMS_OBJECT")
    assert isinstance(got, ObjectMessage) and got.get_object_bytes() == data
    with pytest.raises(MessageFormatException):
        got.get_object()  # JSON: not a pickle
    got.serializer = PickleSerializer()
    with pytest.raises(MessageFormatException):
        got.get_object()  # a PickleSerializer refuses unless allowed
    assert UNPICKLED == []
    got.serializer = PickleSerializer(allow_unpickling=True)
    assert got.get_object() == "unpickled!" and UNPICKLED == ["unpickled!"]


# -- AdtMessage ------------------------------------------------------------------------------
@dataclass
class Car:
    carno: str
    price: float


def test_adt_message_payloads() -> None:
    payload, props = codec.to_engine(AdtMessage(Car("C1", 45000.0)), "OBJECT")
    assert payload == {"carno": "C1", "price": 45000.0} and props.priority == 4
    got = codec.from_engine(_engine_message({"carno": "C2", "price": 1}), "OBJECT", None)
    assert isinstance(got, AdtMessage) and got.adt_payload == {"carno": "C2", "price": 1}
    assert got.get_adt_payload(Car) == Car("C2", 1)
    with pytest.raises(MessageFormatException):
        AdtMessage(Car)  # the class, not an instance


# -- destinations and errors -----------------------------------------------------------------
def test_destinations() -> None:
    q, t = Queue("shop", "orders_q"), Topic("shop", "orders_q")
    assert q.qualified == "shop.orders_q" and q.get_queue_name() == "orders_q"
    assert t.get_topic_name() == "orders_q" and len({q, t}) == 2  # a queue is no topic
    assert Queue.parse("a.b") == Queue("a", "b")
    with pytest.raises(InvalidDestinationException):
        Queue.parse("nodot")
    assert AQjmsAgent("A", "s.q").to_engine().address == "s.q"


@pytest.mark.parametrize(("exc", "cls", "code"), [
    (QueueError("ORA-24010: QUEUE s.nope does not exist", 24010), InvalidDestinationException,
     "ORA-24010"),
    (QueueError("ORA-00936: missing expression at 3", 936), InvalidSelectorException, "ORA-00936"),
    (QueueError("ORA-01031: insufficient privileges", 1031), JMSSecurityException, "ORA-01031"),
    (QueueError("ORA-25215: user_data type and queue type do not match", 25215),
     MessageFormatException, "ORA-25215"),
    (QueueError("ORA-25307: Enqueue rate too high", 25307), ResourceAllocationException,
     "ORA-25307"),
    (QueueError("ORA-25207: enqueue failed, queue s.q is disabled", 25207), JMSException,
     "ORA-25207"),
])
def test_from_pgaq_error(exc: PgaqError, cls: type[JMSException], code: str) -> None:
    got = from_pgaq_error(exc)
    assert type(got) is cls and got.error_code == code and got.linked_exception is exc
    assert got.__cause__ is exc and got.code == exc.code and isinstance(got, PgaqError)
    assert from_pgaq_error(got) is got


def test_jms_exception_codes() -> None:
    e = MessageEOFException("end")
    assert e.error_code == "JMS-160" and str(e) == "JMS-160: end" and e.code is None


# -- the codec's body checks -----------------------------------------------------------------
@pytest.mark.parametrize(("msg", "kinds"), [
    (TextMessage("x"), {"JMS_TEXT", "JMS_MESSAGE"}),
    (BytesMessage(), {"JMS_BYTES", "JMS_MESSAGE", "RAW"}),
    (MapMessage(), {"JMS_MAP", "JMS_MESSAGE"}),
    (StreamMessage(), {"JMS_STREAM", "JMS_MESSAGE"}),
    (ObjectMessage(1), {"JMS_OBJECT", "JMS_MESSAGE"}),
    (AdtMessage({"a": 1}), {"OBJECT"}),
    (Message(), {"JMS_TEXT", "JMS_BYTES", "JMS_MAP", "JMS_STREAM", "JMS_OBJECT", "JMS_MESSAGE"}),
])
def test_which_payload_types_take_which_messages(msg: Message, kinds: set[str]) -> None:
    for kind in ("JMS_TEXT", "JMS_BYTES", "JMS_MAP", "JMS_STREAM", "JMS_OBJECT", "JMS_MESSAGE",
                 "OBJECT", "RAW"):
        assert codec.payload_type_accepts(kind, msg) is (kind in kinds)
        if kind not in kinds:
            with pytest.raises(MessageFormatException) as info:
                codec.to_engine(msg, kind)
            assert info.value.error_code == "JMS-108"


def test_a_nul_character_is_refused_before_the_send() -> None:
    for msg in (TextMessage("a\0b"), MapMessage()):
        if isinstance(msg, MapMessage):
            msg.set_string("k", "\0")
        with pytest.raises(MessageFormatException):
            codec.to_engine(msg, msg.body_kind or "")


def test_time_to_live_and_delay_in_seconds() -> None:
    m = TextMessage("x")
    m.jms_timestamp = 1_000_000
    m.jms_expiration = 1_000_000 + 1500  # 1.5 s: AQ counts whole seconds, rounded up
    m.set_int_property("JMS_OracleDelay", 3)
    m.set_string_property("JMS_OracleExcpQ", "s.eq")
    m.jms_correlation_id = "c"
    _, props = codec.to_engine(m, "JMS_TEXT", recipients=[AQjmsAgent("A"), AQjmsAgent(None, "x.y")])
    assert (props.expiration, props.delay, props.exception_queue, props.correlation) == (2, 3, "s.eq", "c")
    assert [(a.name, a.address) for a in props.recipient_list or []] == [("A", None), (None, "x.y")]
    assert codec.engine_delivery_mode(m) == "PERSISTENT"
    m.jms_delivery_mode = NON_PERSISTENT
    assert codec.engine_delivery_mode(m) == "BUFFERED"


# -- round trips (hypothesis) ----------------------------------------------------------------
_ints = {"byte": st.integers(-128, 127), "short": st.integers(-(2 ** 15), 2 ** 15 - 1),
         "int": st.integers(-(2 ** 31), 2 ** 31 - 1), "long": st.integers(-(2 ** 63), 2 ** 63 - 1)}
_f32 = st.floats(width=32, allow_nan=False)
# U+0000: PostgreSQL's text and jsonb cannot hold it (the codec refuses it, tested above)
_chars = st.characters(blacklist_categories=["Cs"], blacklist_characters="\0")
_text = st.text(_chars, max_size=20)
_typed = st.one_of(
    st.tuples(st.just("boolean"), st.booleans()),
    *[st.tuples(st.just(k), s) for k, s in _ints.items()],
    st.tuples(st.just("char"), st.characters(max_codepoint=0xFFFF, blacklist_categories=["Cs"],
                                             blacklist_characters="\0")),
    st.tuples(st.just("float"), _f32),
    st.tuples(st.just("double"), st.floats(allow_nan=False)),
    st.tuples(st.just("string"), st.none() | _text),
    st.tuples(st.just("bytes"), st.none() | st.binary(max_size=20)),
)


@given(st.lists(_typed, max_size=12))
def test_stream_round_trip(values: list[tuple[str, Any]]) -> None:
    m = StreamMessage()
    for kind, value in values:
        getattr(m, f"write_{kind}")(value)
    got = _received(m, "JMS_STREAM")
    assert isinstance(got, StreamMessage)
    for kind, value in values:
        if kind == "bytes":
            assert _read_stream_bytes(got) == value
        else:
            assert getattr(got, f"read_{kind}")() == value
    with pytest.raises(MessageEOFException):
        got.read_object()


@given(st.dictionaries(st.text(_chars, min_size=1, max_size=8), _typed, max_size=10))
def test_map_round_trip(items: dict[str, tuple[str, Any]]) -> None:
    m = MapMessage()
    for name, (kind, value) in items.items():
        getattr(m, f"set_{kind}")(name, value)
    got = _received(m, "JMS_MAP")
    assert isinstance(got, MapMessage) and set(got.get_map_names()) == set(items)
    for name, (kind, value) in items.items():
        assert getattr(got, f"get_{kind}")(name) == value


_property_names = st.from_regex(r"\A[a-z_][a-zA-Z0-9_]{0,10}\Z").filter(
    lambda n: n.upper() not in {"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE",
                                "IN", "IS", "ESCAPE"})
_property_values = st.one_of(
    st.tuples(st.just("boolean"), st.booleans()),
    *[st.tuples(st.just(k), s) for k, s in _ints.items()],
    st.tuples(st.just("float"), st.floats(width=32)),
    st.tuples(st.just("double"), st.floats()),
    st.tuples(st.just("string"), _text),
)


@given(st.dictionaries(_property_names, _property_values, max_size=8))
def test_property_round_trip(props: dict[str, tuple[str, Any]]) -> None:
    m = TextMessage("t")
    for name, (kind, value) in props.items():
        getattr(m, f"set_{kind}_property")(name, value)
    got = _received(m, "JMS_TEXT")
    user = [n for n in got.get_property_names() if not n.startswith("JMS")]
    assert user == list(props)  # in the order set
    for name, (kind, value) in props.items():
        read = getattr(got, f"get_{kind}_property")(name)
        assert read == value or (math.isnan(read) and math.isnan(value))
        assert got.get_property_type(name) == ("String" if kind == "string" else kind)


_writes = st.one_of(
    st.tuples(st.just("boolean"), st.booleans()),
    *[st.tuples(st.just(k), s) for k, s in _ints.items()],
    st.tuples(st.just("char"), st.characters(max_codepoint=0xFFFF)),
    st.tuples(st.just("float"), _f32),
    st.tuples(st.just("double"), st.floats(allow_nan=False)),
    st.tuples(st.just("utf"), st.text(max_size=30)),
)


@given(st.lists(_writes, max_size=12))
def test_bytes_round_trip(values: list[tuple[str, Any]]) -> None:
    m = BytesMessage()
    for kind, value in values:
        getattr(m, f"write_{kind}")(value)
    got = _received(m, "JMS_BYTES")
    assert isinstance(got, BytesMessage)
    for kind, value in values:
        assert getattr(got, f"read_{kind}")() == value
    assert got.read_bytes(bytearray(1)) == -1


@given(st.text(max_size=300))
def test_modified_utf8_matches_java_for_every_string(text: str) -> None:
    """Java's modified UTF-8 is CESU-8 with U+0000 as C0 80: check against that spelling."""
    m = BytesMessage()
    m.write_utf(text)
    m.reset()
    body = bytearray(m.get_body_length())
    m.read_bytes(body)
    cesu = b"".join(
        b"\xc0\x80" if ch == "\0"
        else ch.encode("utf-8") if ord(ch) < 0x10000
        else b"".join(s.encode("utf-8", "surrogatepass") for s in _surrogates(ch))
        for ch in text)
    assert bytes(body) == struct.pack(">H", len(cesu)) + cesu
    m.reset()
    assert m.read_utf() == text


def _surrogates(ch: str) -> list[str]:
    v = ord(ch) - 0x10000
    return [chr(0xD800 + (v >> 10)), chr(0xDC00 + (v & 0x3FF))]
