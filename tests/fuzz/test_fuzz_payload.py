"""Fuzzing the payload mappers: RAW hex, JMS text/bytes/map/object with properties, and
object types of random shape, read from random typed values (matching and mismatching)
and written from whatever a SQL producer may have stored. Reading either yields a payload
that fits the type or a PayloadError; writing never fails with anything else; what was
read writes back and reads again to the same payload."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from lxml import etree
from pgaq.idap.payload import (
    JMS_ELEMENT,
    PayloadError,
    payload_to_xml,
    unresolved_reply_to,
    xml_to_payload,
)
from pgaq.idap.typeinfo import Attr, TypeInfo
from pgaq.idap.xmlsafe import parse

from .conftest import TIMEOUT, fuzz
from .strategies import AQ

VALUE_KINDS = ("int", "string", "long", "double", "boolean", "float", "short", "byte")
INT_BITS = {"byte": 8, "short": 16, "int": 32, "long": 64, "int2": 16, "int4": 32, "int8": 64}

# values as a client may write them: well-formed ones of every kind and the usual suspects
VALUE_TEXT = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.decimals(allow_nan=False, allow_infinity=False, places=None).map(str),
    st.sampled_from(["", " ", "true", "FALSE", "1", "0", "-0", "+7", "1e3", "1E-3", "1e309",
                     "-1e309", "1e-400", "NaN", "INF", "-inf", "Infinity", "0x1F", "1_000", "\u0661",
                     " 12 ", "1.", ".5", "5e", "e5", "--1", "9" * 40, "2147483647", "2147483648",
                     "-9223372036854775809", "3.5e38", "1e100000", "1e-100000", "0e99999999999",
                     "1e999999999999999999999", "2000-01-01 0:0:0", "2000-02-30", "0000-01-01",
                     "2000-01-01T25:00:00", "2024-02-29 23:59:60", "1999-12-31 1:2:3.1234567890",
                     "2000-01-01 0:0:0+99:99", "CAFE", "cafe", "ABC", "G0", "00 11\n22"]),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x2FF), max_size=12),
)


def xml_escape(t: str) -> str:
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def wrap(inner: str) -> etree._Element:
    return parse(f'<message_payload xmlns="{AQ}">{inner}</message_payload>'.encode())


# -- RAW ----------------------------------------------------------------------------------
@pytest.mark.timeout(TIMEOUT)
@fuzz(200)
@given(st.one_of(st.binary(max_size=64).map(lambda b: b.hex()), VALUE_TEXT,
                 st.text("0123456789abcdefABCDEF \n\t", max_size=40)))
def test_raw_hex(text: str) -> None:
    try:
        raw = xml_to_payload("RAW", wrap(f"<RAW>{xml_escape(text)}</RAW>"), None)
    except PayloadError as exc:
        assert exc.code == 25215
        return
    assert isinstance(raw, bytes)
    out = etree.Element(f"{{{AQ}}}message_payload")
    payload_to_xml("RAW", raw, None, out, AQ)
    assert xml_to_payload("RAW", out, None) == raw


# -- JMS ----------------------------------------------------------------------------------
@st.composite
def typed_items(draw: st.DrawFn, item: str) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(VALUE_KINDS))
        name = draw(st.sampled_from(["p", "color", "JMSXGroupID", "a b", "é", ""]))
        parts.append(f"<{item}><name>{name}</name><{kind}_value>{xml_escape(draw(VALUE_TEXT))}"
                     f"</{kind}_value></{item}>")
    return "".join(parts)


@st.composite
def jms_documents(draw: st.DrawFn) -> tuple[str, str]:
    kind = draw(st.sampled_from(sorted(JMS_ELEMENT)))
    props = []
    for tag in draw(st.lists(st.sampled_from(["type", "userid", "appid", "groupid",
                                              "group_sequence", "timestamp"]), max_size=4,
                             unique=True)):
        props.append(f"<{tag}>{xml_escape(draw(VALUE_TEXT))}</{tag}>")
    if draw(st.booleans()):
        rt = draw(st.sampled_from([
            "<agent_name>a</agent_name><address>q</address><protocol>{v}</protocol>",
            "<agent_alias>{v}</agent_alias>", "<agent_name>{v}</agent_name>",
        ]))
        props.append(f"<reply_to>{rt.format(v=xml_escape(draw(VALUE_TEXT)))}</reply_to>")
    body = {"JMS_TEXT": "text_data", "JMS_BYTES": "bytes_data", "JMS_MAP": "map_data",
            "JMS_OBJECT": "ser_object_data"}[kind]
    content = draw(typed_items("item")) if kind == "JMS_MAP" else xml_escape(draw(VALUE_TEXT))
    user = f"<user_properties>{draw(typed_items('property'))}</user_properties>"
    el = JMS_ELEMENT[kind]
    # sometimes the queue's kind and the document's element disagree
    queue_kind = kind if draw(st.integers(0, 5)) else draw(st.sampled_from(sorted(JMS_ELEMENT)))
    return queue_kind, (f"<{el}><oracle_jms_properties>{''.join(props)}</oracle_jms_properties>"
                        f"{user}<{body}>{content}</{body}></{el}>")


def same(a: Any, b: Any) -> bool:
    """Equality that holds NaN equal to itself."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


@pytest.mark.timeout(TIMEOUT)
@fuzz(300)
@example(case=("JMS_BYTES", "<jms_bytes_message><oracle_jms_properties><reply_to><agent_name>a</agent_name>"
                            "<protocol>1e999999999999999999999</protocol></reply_to>"
                            "</oracle_jms_properties><bytes_data>0</bytes_data></jms_bytes_message>"))
@example(case=("JMS_MAP", "<jms_map_message><map_data><item><name>n</name>"
                          "<int_value>1e999999999999999999999</int_value></item></map_data></jms_map_message>"))
@example(case=("JMS_TEXT", "<jms_text_message><oracle_jms_properties><reply_to><address>Q</address>"
                           "</reply_to></oracle_jms_properties><text_data>t</text_data></jms_text_message>"))
@example(case=("JMS_MAP", "<jms_map_message><oracle_jms_properties><reply_to><agent_name></agent_name>"
                          "</reply_to></oracle_jms_properties><map_data></map_data></jms_map_message>"))
@example(case=("JMS_MAP", "<jms_map_message><user_properties>"
                          "<property><name>p</name><int_value>0</int_value></property>"
                          "<property><name>p</name><int_value>0</int_value></property>"
                          "</user_properties><map_data></map_data></jms_map_message>"))
@given(jms_documents())
def test_jms_read_then_write_round_trips(case: tuple[str, str]) -> None:
    kind, inner = case
    try:
        payload = xml_to_payload(kind, wrap(inner), None)
    except PayloadError as exc:
        assert exc.code is not None and str(exc).startswith("ORA-")
        return
    assert isinstance(payload, dict)
    if unresolved_reply_to(payload) is not None:
        return  # the gateway resolves a reply_to alias through the directory first
    out = etree.Element(f"{{{AQ}}}message_payload")
    payload_to_xml(kind, payload, None, out, AQ)
    again = xml_to_payload(kind, parse(etree.tostring(out)), None)
    assert same(again, payload), (payload, again)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
TYPED_JSON = st.fixed_dictionaries({"type": st.sampled_from([*VALUE_KINDS, "date", "x"]),
                                    "value": JSON})


TEXT = st.none() | st.text(max_size=8)
AGENT = st.none() | st.fixed_dictionaries({"name": TEXT, "address": TEXT,
                                           "protocol": st.none() | st.integers(0, 3)})


@pytest.mark.timeout(TIMEOUT)
@fuzz(300)
@example(kind="JMS_TEXT", properties=[1], body=None, text=None, reply_to=None)
@example(kind="JMS_MAP", properties={}, body="x", text="t", reply_to={"name": None, "address": "Q", "protocol": 0})
@given(st.sampled_from(sorted(JMS_ELEMENT)),
       st.one_of(JSON, st.dictionaries(st.text(max_size=5), st.one_of(TYPED_JSON, JSON), max_size=4)),
       st.one_of(JSON, st.dictionaries(st.text(max_size=5), st.one_of(TYPED_JSON, JSON), max_size=3)),
       TEXT, AGENT)
def test_jms_write_what_sql_producers_stored(kind: str, properties: Any, body: Any,
                                             text: str | None, reply_to: Any) -> None:
    """A stored JMS payload has the shape of its composite type, but its properties and
    map are jsonb a SQL producer fills freely: writing them never fails with anything but a
    PayloadError (a traceback here would be a 500 for the receiving client)."""
    header = {"type": text, "userid": text, "appid": None, "groupid": text, "groupseq": None,
              "replyto": reply_to, "properties": properties}
    payload = {"header": header, "text_vc": text, "text_len": len(text or ""), "map": body,
               "bytes_raw": "\\xcafe", "bytes_len": 2}
    out = etree.Element(f"{{{AQ}}}message_payload")
    try:
        payload_to_xml(kind, payload, None, out, AQ)
    except PayloadError as exc:
        assert exc.code is not None and str(exc).startswith("ORA-")


# -- object types -------------------------------------------------------------------------
SCALARS = st.sampled_from([
    ("numeric", "numeric"), ("numeric(4,0)", "numeric"), ("numeric(7,2)", "numeric"),
    ("numeric(3,5)", "numeric"), ("numeric(2,-3)", "numeric"), ("integer", "int4"),
    ("smallint", "int2"), ("bigint", "int8"), ("real", "float4"), ("double precision", "float8"),
    ("boolean", "bool"), ("date", "date"), ("timestamp without time zone", "timestamp"),
    ("timestamp with time zone", "timestamptz"), ("character varying(5)", "varchar"),
    ("text", "text"), ("character(3)", "bpchar"), ("bytea", "bytea"), ("uuid", "uuid"),
])


def type_infos(depth: int = 2) -> st.SearchStrategy[TypeInfo]:
    @st.composite
    def build(draw: st.DrawFn) -> TypeInfo:
        attrs: list[Attr] = []
        names = draw(st.lists(st.sampled_from(["a", "b", "c", "Mixed", "x_y"]), min_size=1,
                              max_size=4, unique_by=str.lower))
        for n in names:
            shape = draw(st.sampled_from(["scalar", "scalar", "array", "composite"]
                                         if depth else ["scalar", "array"]))
            if shape == "composite":
                attrs.append(Attr(n, "t.sub", "composite", draw(type_infos(depth - 1))))
            else:
                sql, base = draw(SCALARS)
                if shape == "array":
                    attrs.append(Attr(n, sql + "[]", "array", None, base))
                else:
                    attrs.append(Attr(n, sql, "scalar", None, base))
        return TypeInfo(draw(st.sampled_from(["t", "obj_typ"])), tuple(attrs))
    return build()


@st.composite
def object_xml(draw: st.DrawFn, info: TypeInfo, tag: str) -> str:
    parts = []
    for a in info.attrs:
        if not draw(st.integers(0, 4)):
            continue  # left out: NULL
        name = a.name.upper() if draw(st.booleans()) else a.name
        if a.kind == "composite" and a.element is not None:
            parts.append(draw(object_xml(a.element, name)))
        elif a.kind == "array":
            items = "".join(f"<{name}_ITEM>{xml_escape(draw(VALUE_TEXT))}</{name}_ITEM>"
                            for _ in range(draw(st.integers(0, 3))))
            parts.append(f"<{name}>{items}</{name}>")
        else:
            parts.append(f"<{name}>{xml_escape(draw(VALUE_TEXT))}</{name}>")
    if draw(st.integers(0, 9)) == 0:  # a mismatch: unknown, repeated or misplaced element
        parts.insert(draw(st.integers(0, len(parts))), draw(st.sampled_from(
            ["<nope>1</nope>", parts[0] if parts else "<A>1</A>", "<X><Y>1</Y></X>", "text"])))
    return f"<{tag}>{''.join(parts)}</{tag}>"


def fits(attr: Attr, value: Any) -> None:
    """A value the mapper accepted is within the attribute's declared bounds."""
    if value is None:
        return
    if attr.kind == "composite":
        assert isinstance(value, dict)
        assert attr.element is not None
        for a in attr.element.attrs:
            fits(a, value[a.name])
        return
    if attr.kind == "array":
        assert isinstance(value, list)
        for v in value:
            fits(Attr(attr.name, attr.sql_type[:-2], "scalar", attr.element, attr.scalar), v)
        return
    if attr.scalar in INT_BITS:
        assert -(2 ** (INT_BITS[attr.scalar] - 1)) <= value < 2 ** (INT_BITS[attr.scalar] - 1)
    if attr.max_length is not None:
        assert len(value) <= attr.max_length
    ps = attr.precision_scale
    if ps is not None and attr.scalar == "numeric":
        d = Decimal(str(value))
        p, s = ps
        assert abs(d.quantize(Decimal(1).scaleb(-s))) < Decimal(10) ** (p - s)


@pytest.mark.timeout(TIMEOUT)
@fuzz(300)
@given(type_infos().flatmap(lambda info: st.tuples(st.just(info), object_xml(info, info.name.upper()))))
@example(case=(TypeInfo("t", (Attr("a", "numeric(7,2)", "scalar", None, "numeric"),)),
               "<T><A>1e999999999999999999999</A></T>"))
def test_object_values_fit_or_are_refused(case: tuple[TypeInfo, str]) -> None:
    info, doc = case
    try:
        value = xml_to_payload("OBJECT", wrap(doc), info)
    except PayloadError as exc:
        assert exc.code is not None and str(exc).startswith("ORA-")
        return
    assert isinstance(value, dict)
    for a in info.attrs:
        fits(a, value[a.name])
