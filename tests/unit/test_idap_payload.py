"""IDAP payload mapping without a database: Oracle's examples both ways, every JMS type, RAW,
and clear errors for values that do not fit the queue's type."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree
from pgaq.idap.payload import PayloadError, oracle_date, oracle_number, payload_to_xml, xml_to_payload
from pgaq.idap.typeinfo import Attr, TypeInfo
from pgaq.idap.xmlsafe import parse

from . import idap_examples as ex

AQ = "http://ns.oracle.com/AQ/schemas/access"


def scalar(name: str, sql_type: str, base: str) -> Attr:
    return Attr(name, sql_type, "scalar", None, base)


# Example 17-2's EMP_TYP as PostgreSQL declares it (Oracle's DATE carries a time: timestamp)
EMP_TYP = TypeInfo("emp_typ", (
    scalar("empno", "numeric(4,0)", "numeric"),
    scalar("ename", "character varying(10)", "varchar"),
    scalar("job", "character varying(9)", "varchar"),
    scalar("mgr", "numeric(4,0)", "numeric"),
    scalar("hiredate", "timestamp without time zone", "timestamp"),
    scalar("sal", "numeric(7,2)", "numeric"),
    scalar("comm", "numeric(7,2)", "numeric"),
    scalar("deptno", "numeric(2,0)", "numeric"),
))

# Example 17-1's ORDER_TYP, as tests/integration/test_payloads.py creates it
CUSTOMER_TYP = TypeInfo("customer_typ", (
    scalar("custno", "numeric", "numeric"),
    scalar("custid", "character varying(20)", "varchar"),
    scalar("name", "character varying(100)", "varchar"),
    scalar("street", "character varying(100)", "varchar"),
    scalar("city", "character varying(30)", "varchar"),
    scalar("state", "character varying(2)", "varchar"),
    scalar("zip", "numeric", "numeric"),
    scalar("country", "character varying(20)", "varchar"),
))
BOOK_TYP = TypeInfo("book_typ", (
    scalar("title", "character varying(100)", "varchar"),
    scalar("authors", "character varying(100)", "varchar"),
    scalar("isbn", "character varying(20)", "varchar"),
    scalar("price", "numeric", "numeric"),
))
ORDERITEM_TYP = TypeInfo("orderitem_typ", (
    scalar("quantity", "numeric", "numeric"),
    Attr("item", "qs.book_typ", "composite", BOOK_TYP),
    scalar("subtotal", "numeric", "numeric"),
))
ORDER_TYP = TypeInfo("order_typ", (
    scalar("orderno", "numeric", "numeric"),
    scalar("status", "character varying(30)", "varchar"),
    scalar("ordertype", "character varying(30)", "varchar"),
    scalar("orderregion", "character varying(30)", "varchar"),
    Attr("customer", "qs.customer_typ", "composite", CUSTOMER_TYP),
    scalar("paymentmethod", "character varying(30)", "varchar"),
    Attr("items", "qs.orderitem_typ[]", "array", ORDERITEM_TYP),
    scalar("ccnumber", "character varying(20)", "varchar"),
    scalar("order_date", "timestamp without time zone", "timestamp"),
))

# every scalar kind the mapping converts
ALL_TYP = TypeInfo("all_typ", (
    scalar("i2", "smallint", "int2"),
    scalar("i4", "integer", "int4"),
    scalar("i8", "bigint", "int8"),
    scalar("n", "numeric", "numeric"),
    scalar("f4", "real", "float4"),
    scalar("f8", "double precision", "float8"),
    scalar("b", "boolean", "bool"),
    scalar("t", "text", "text"),
    scalar("c", "character(3)", "bpchar"),
    scalar("d", "date", "date"),
    scalar("ts", "timestamp without time zone", "timestamp"),
    scalar("tz", "timestamp with time zone", "timestamptz"),
    scalar("raw", "bytea", "bytea"),
    Attr("tags", "character varying(5)[]", "array", None, "varchar"),
    Attr("nums", "integer[]", "array", None, "int4"),
))


def payload_of(doc: str) -> etree._Element:
    """The <message_payload> element of an example document."""
    [el] = parse(doc.encode()).xpath("//*[local-name()='message_payload']")
    return el


def wrap(inner: str, ns: str | None = AQ) -> etree._Element:
    xmlns = f' xmlns="{ns}"' if ns else ""
    return parse(f"<message_payload{xmlns}>{inner}</message_payload>".encode())


def shape(el: etree._Element) -> Any:
    """An element tree modulo namespaces, case of names and surrounding whitespace."""
    kids = [c for c in el if isinstance(c.tag, str)]
    name = etree.QName(el).localname.lower()
    if kids:
        return (name, [shape(c) for c in kids])
    return (name, (el.text or "").strip())


def to_xml(kind: str, payload: Any, info: TypeInfo | None = None, ns: str | None = AQ
           ) -> etree._Element:
    parent = etree.Element(f"{{{ns}}}message_payload" if ns else "message_payload")
    payload_to_xml(kind, payload, info, parent, ns)
    return parent


def error(kind: str, inner: str, info: TypeInfo | None = None) -> PayloadError:
    with pytest.raises(PayloadError) as exc:
        xml_to_payload(kind, wrap(inner), info)
    return exc.value


# -- object payloads ----------------------------------------------------------------------
EMP = {"empno": 1111, "ename": "Mary", "job": None, "mgr": 5000,
       "hiredate": "1996-01-01T00:00:00", "sal": 10000, "comm": "100.12", "deptno": 60}


def test_example_17_2_emp_typ() -> None:
    assert xml_to_payload("OBJECT", payload_of(ex.EXAMPLE_17_2), EMP_TYP) == EMP


def test_emp_typ_response_is_example_17_18() -> None:
    out = to_xml("OBJECT", EMP, EMP_TYP)
    assert shape(out) == shape(payload_of(ex.EXAMPLE_17_18))
    [emp] = out
    assert emp.tag == f"{{{AQ}}}EMP_TYP" and emp[0].tag == f"{{{AQ}}}EMPNO"


def test_example_17_1_order_typ() -> None:
    p = xml_to_payload("OBJECT", payload_of(ex.EXAMPLE_17_1), ORDER_TYP)
    assert isinstance(p, dict)
    assert p["orderno"] == 100 and p["customer"]["zip"] == 94065
    assert p["customer"]["name"] == "AMERICAN EXPRESS"
    assert [i["item"]["title"] for i in p["items"]] == ["Perl", "XML"]
    assert p["items"][1] == {"quantity": 20, "subtotal": 590, "item": {
        "title": "XML", "authors": "Micheal", "isbn": "ISBN20212", "price": 59}}
    assert p["order_date"] == "2000-08-23T00:00:00"
    # and back: the same document, modulo whitespace
    assert shape(to_xml("OBJECT", p, ORDER_TYP)) == shape(payload_of(ex.EXAMPLE_17_1))


def test_names_ignore_namespace_and_case() -> None:
    doc = ("<order_typ><OrderNo>7</OrderNo><customer><Name>x</Name></customer>"
           "<items><items_item><quantity>1</quantity></items_item><whatever/></items></order_typ>")
    for ns in (None, AQ, "urn:other"):
        p = xml_to_payload("OBJECT", wrap(doc, ns), ORDER_TYP)
        assert isinstance(p, dict)
        assert p["orderno"] == 7 and p["customer"]["name"] == "x"
        assert p["items"][0]["quantity"] == 1 and p["items"][1] is None


def test_engine_output_maps_back() -> None:
    # what the engine dequeues: to_jsonb() decoded by json.loads (floats, ISO dates, NULLs)
    dequeued = {"empno": 1111, "ename": "Mary", "job": None, "mgr": 5000,
                "hiredate": "1996-01-01T00:00:00", "sal": 10000.0, "comm": 100.12, "deptno": 60}
    out = to_xml("OBJECT", dequeued, EMP_TYP, None)
    assert shape(out) == shape(payload_of(ex.EXAMPLE_17_18))
    assert etree.tostring(out[0][0]) == b"<EMPNO>1111</EMPNO>"
    again = xml_to_payload("OBJECT", out, EMP_TYP)
    assert again == {**EMP, "sal": 10000}


def test_nulls_empty_objects_and_collections() -> None:
    p = xml_to_payload("OBJECT", wrap("<ORDER_TYP><ORDERNO>1</ORDERNO><CUSTOMER/><ITEMS/>"
                                      "<STATUS></STATUS></ORDER_TYP>"), ORDER_TYP)
    assert isinstance(p, dict)
    assert p["customer"] is None and p["items"] == [] and p["status"] is None
    assert set(p) == {a.name for a in ORDER_TYP.attrs}  # every attribute, as to_jsonb() has
    out = to_xml("OBJECT", p, ORDER_TYP)
    assert shape(out) == ("message_payload", [("order_typ", [("orderno", "1"), ("items", "")])])
    empty = xml_to_payload("OBJECT", wrap("<EMP_TYP/>"), EMP_TYP)
    assert empty == dict.fromkeys(EMP, None)


def test_every_scalar_type() -> None:
    doc = ("<ALL_TYP><I2>-32768</I2><I4>2147483647</I4><I8>-9223372036854775808</I8>"
           "<N>123456789012345678901234567890.000000001</N><F4>1.5</F4><F8>-2.5E-300</F8>"
           "<B>TRUE</B><T> spaced </T><C>ab</C><D>2024-02-29 13:5:7</D>"
           "<TS>2024-02-29T13:05:07.250</TS><TZ>2024-02-29 1:2:3.5+02:00</TZ>"
           "<RAW>0a ff</RAW><TAGS><TAGS_ITEM>a</TAGS_ITEM><TAGS_ITEM/></TAGS>"
           "<NUMS><NUMS_ITEM>1</NUMS_ITEM><NUMS_ITEM>1e3</NUMS_ITEM></NUMS></ALL_TYP>")
    p = xml_to_payload("OBJECT", wrap(doc), ALL_TYP)
    assert p == {
        "i2": -32768, "i4": 2147483647, "i8": -9223372036854775808,
        "n": "123456789012345678901234567890.000000001", "f4": 1.5, "f8": -2.5e-300,
        "b": True, "t": " spaced ", "c": "ab", "d": "2024-02-29",
        "ts": "2024-02-29T13:05:07.250", "tz": "2024-02-29T01:02:03.5+02:00",
        "raw": "\\x0aff", "tags": ["a", None], "nums": [1, 1000],
    }
    out = {c.tag: c for c in to_xml("OBJECT", p, ALL_TYP, None)[0]}
    text = {k: (v.text or "") for k, v in out.items()}
    assert text["N"] == "123456789012345678901234567890.000000001"
    assert text["D"] == "2024-02-29 0:0:0"
    assert text["TS"] == "2024-02-29 13:5:7.25"
    assert text["TZ"] == "2024-02-29 1:2:3.5+02:00"
    assert text["RAW"] == "0AFF" and text["B"] == "true" and text["F8"] == "-2.5e-300"
    assert [i.text for i in out["NUMS"]] == ["1", "1000"]
    # and what was written reads back the same (the date lost its time in PostgreSQL's date)
    assert xml_to_payload("OBJECT", to_xml("OBJECT", p, ALL_TYP), ALL_TYP) == {
        **p, "ts": "2024-02-29T13:05:07.25", "n": "123456789012345678901234567890.000000001"}


def test_long_text() -> None:
    big = "x" * 100_000
    p = xml_to_payload("OBJECT", wrap(f"<ALL_TYP><T>{big}</T></ALL_TYP>"), ALL_TYP)
    assert isinstance(p, dict) and p["t"] == big
    p = xml_to_payload("JMS_TEXT", wrap(f"<jms_text_message><text_data>{big}</text_data>"
                                        "</jms_text_message>"), None)
    assert isinstance(p, dict) and p["text_vc"] == big and p["text_len"] == 100_000


def test_number_and_date_formats() -> None:
    assert oracle_number(10000.0) == "10000"
    assert oracle_number("10000.00") == "10000"
    assert oracle_number(100.1) == "100.1"
    assert oracle_number(1e-05) == "0.00001"
    assert oracle_number("1E+3") == "1000"
    assert oracle_number(-0.0) == "0"
    assert oracle_date("2000-08-23T00:00:00") == "2000-08-23 0:0:0"
    assert oracle_date("2000-08-23") == "2000-08-23 0:0:0"
    assert oracle_date("2000-08-23T10:09:08.120000") == "2000-08-23 10:9:8.12"
    assert oracle_date("2000-08-23T10:09:08Z") == "2000-08-23 10:9:8+00:00"


# -- RAW ----------------------------------------------------------------------------------
def test_raw_example_17_5() -> None:
    p = xml_to_payload("RAW", payload_of(ex.EXAMPLE_17_5), None)
    assert isinstance(p, bytes)
    assert p.startswith(b"\x04&\xc6\xf6\"\x06") and len(p) == 70  # 139 digits: HEXTORAW's leading 0


def test_raw_case_whitespace_and_output() -> None:
    p = xml_to_payload("RAW", wrap("<raw>\n  0a Ff\r\n\t10  </raw>", None), None)
    assert p == b"\x0a\xff\x10"
    out = to_xml("RAW", p, None, None)
    assert etree.tostring(out) == b"<message_payload><RAW>0AFF10</RAW></message_payload>"
    assert xml_to_payload("RAW", wrap("<RAW/>"), None) == b""


def test_raw_errors() -> None:
    assert "not hexadecimal" in error("RAW", "<RAW>0G</RAW>").message
    assert error("RAW", "<RAW>0G</RAW>").code == 25215
    assert "takes RAW" in error("RAW", "<EMP_TYP/>").message
    assert "exactly one" in error("RAW", "<RAW>00</RAW><RAW>01</RAW>").message
    assert "exactly one" in error("RAW", "").message


# -- JMS ----------------------------------------------------------------------------------
def test_example_17_3_text_message() -> None:
    p = xml_to_payload("JMS_TEXT", payload_of(ex.EXAMPLE_17_3), None)
    assert p == {
        "header": {"replyto": None, "type": None, "userid": None, "appid": "AQProduct",
                   "groupid": "AQ", "groupseq": None,
                   "properties": {"Country": {"type": "string", "value": "USA", "seq": 1},
                                  "State": {"type": "string", "value": "California", "seq": 2}}},
        "text_len": 31, "text_vc": "All things bright and beautiful",
    }
    assert shape(to_xml("JMS_TEXT", p)) == shape(payload_of(ex.EXAMPLE_17_3))


def test_example_17_4_map_message() -> None:
    p = xml_to_payload("JMS_MAP", payload_of(ex.EXAMPLE_17_4), None)
    assert isinstance(p, dict)
    assert p["header"]["replyto"] == {"name": "oracle", "address": None, "protocol": 0}
    assert p["map"] == {"Car": {"type": "string", "value": "Toyota"},
                        "Color": {"type": "string", "value": "Blue"},
                        "Price": {"type": "int", "value": 20000}}
    assert shape(to_xml("JMS_MAP", p)) == shape(payload_of(ex.EXAMPLE_17_4))


def test_example_17_19_text_response() -> None:
    original = payload_of(ex.EXAMPLE_17_19)
    p = xml_to_payload("JMS_TEXT", original, None)
    assert isinstance(p, dict)
    assert p["header"]["replyto"] == {"name": "oracle", "address": "redwoodshores", "protocol": 100}
    assert p["header"]["userid"] == "AQUSER"
    # timestamps are the queue's, not the payload's: everything else comes back
    for el in original.xpath("//*[local-name()='timestamp' or local-name()='recv_timestamp']"):
        el.getparent().remove(el)
    assert shape(to_xml("JMS_TEXT", p)) == shape(original)


TYPED = ("<user_properties>"
         "<property><name>i</name><int_value>-2147483648</int_value></property>"
         "<property><name>l</name><long_value>9223372036854775807</long_value></property>"
         "<property><name>s</name><short_value>32767</short_value></property>"
         "<property><name>b</name><byte_value>-128</byte_value></property>"
         "<property><name>f</name><float_value>1.25</float_value></property>"
         "<property><name>d</name><double_value>-INF</double_value></property>"
         "<property><name>t</name><boolean_value>1</boolean_value></property>"
         "<property><name>e</name><string_value/></property>"
         "</user_properties>")


def test_typed_properties_every_type() -> None:
    doc = ("<jms_bytes_message><oracle_jms_properties><type>T</type><reply_to>"
           "<agent_name>R</agent_name><address>s.reply</address></reply_to><userid>u</userid>"
           "<group_sequence>3</group_sequence><timestamp>x</timestamp></oracle_jms_properties>"
           f"{TYPED}<bytes_data>01 02\nFF</bytes_data></jms_bytes_message>")
    p = xml_to_payload("JMS_BYTES", wrap(doc), None)
    assert p == {
        "header": {"replyto": {"name": "R", "address": "s.reply", "protocol": 0}, "type": "T",
                   "userid": "u", "appid": None, "groupid": None, "groupseq": 3,
                   "properties": {"i": {"type": "int", "value": -2147483648, "seq": 1},
                                  "l": {"type": "long", "value": 9223372036854775807, "seq": 2},
                                  "s": {"type": "short", "value": 32767, "seq": 3},
                                  "b": {"type": "byte", "value": -128, "seq": 4},
                                  "f": {"type": "float", "value": 1.25, "seq": 5},
                                  "d": {"type": "double", "value": "-INF", "seq": 6},
                                  "t": {"type": "boolean", "value": True, "seq": 7},
                                  "e": {"type": "string", "value": "", "seq": 8}}},
        "bytes_len": 3, "bytes_raw": "\\x0102ff",
    }
    out = to_xml("JMS_BYTES", p, None, None)
    assert out.findtext("jms_bytes_message/bytes_data") == "0102FF"
    values = [v.text or "" for v in out.iter() if v.tag.endswith("_value")]
    # written in the order sent (i l s b f d t e): each property keeps its "seq"
    assert values == ["-2147483648", "9223372036854775807", "32767", "-128", "1.25", "-INF",
                      "true", ""]
    assert xml_to_payload("JMS_BYTES", out, None) == p


def test_object_message_and_engine_dict() -> None:
    # as the engine dequeues it (test_payloads.py): a plain JSON property is typed by its value
    engine = {"header": {"type": "t", "userid": None, "appid": None, "groupid": None,
                         "groupseq": None, "replyto": None,
                         "properties": {"n": 5, "x": 1.5, "ok": False, "s": "v"}},
              "bytes_len": 1, "bytes_raw": "\\xff"}
    out = to_xml("JMS_OBJECT", engine)
    assert shape(out)[1][0][1][-1] == ("ser_object_data", "FF")
    p = xml_to_payload("JMS_OBJECT", out, None)
    assert isinstance(p, dict)
    assert p["bytes_raw"] == "\\xff" and p["bytes_len"] == 1
    # written by name (no seq from SQL), read back with the places they were written at
    assert p["header"]["properties"] == {"n": {"type": "long", "value": 5, "seq": 1},
                                         "x": {"type": "double", "value": 1.5, "seq": 4},
                                         "ok": {"type": "boolean", "value": False, "seq": 2},
                                         "s": {"type": "string", "value": "v", "seq": 3}}


def test_wrong_jms_kind_and_stream() -> None:
    e = error("JMS_TEXT", "<jms_map_message><map_data/></jms_map_message>")
    assert e.code == 25215 and "jms_text_message" in e.message and "jms_map_message" in e.message
    assert "StreamMessage" in error("JMS_STREAM", "<jms_bytes_message/>").message
    assert "unexpected element <bytes_data>" in error(
        "JMS_TEXT", "<jms_text_message><bytes_data>00</bytes_data></jms_text_message>").message


@pytest.mark.parametrize(("kind", "value", "code"), [
    ("int", "2147483648", 1438), ("short", "32768", 1438), ("byte", "128", 1438),
    ("long", "9223372036854775808", 1438), ("long", "9" * 5000, 1438), ("int", "1.5", 1722),
    ("int", "ten", 1722), ("float", "1e39", 1438), ("double", "1e309", 1438),
    ("float", "3.4028236e38", 1438), ("float", "-3.4028235677973366e38", 1438),
    ("double", "x", 1722), ("boolean", "yes", 25215), ("boolean", "", 25215),
])
def test_typed_value_errors(kind: str, value: str, code: int) -> None:
    e = error("JMS_MAP", f"<jms_map_message><map_data><item><name>k</name><{kind}_value>{value}"
                         f"</{kind}_value></item></map_data></jms_map_message>")
    assert e.code == code, e.message
    assert "map_data k" in e.message and len(e.message) < 250


# -- object errors ------------------------------------------------------------------------
def test_unknown_element_is_named() -> None:
    e = error("OBJECT", "<EMP_TYP><EMPNO>1</EMPNO><SALARY>3</SALARY></EMP_TYP>", EMP_TYP)
    assert e.code == 25215 and "SALARY" in e.message
    e = error("OBJECT", "<ORDER_TYP><CUSTOMER><PHONE>1</PHONE></CUSTOMER></ORDER_TYP>", ORDER_TYP)
    assert "PHONE" in e.message and "ORDER_TYP.CUSTOMER" in e.message
    e = error("OBJECT", "<DEPT_TYP/>", EMP_TYP)
    assert "EMP_TYP" in e.message and "DEPT_TYP" in e.message
    e = error("OBJECT", "<EMP_TYP><EMPNO>1</EMPNO><empno>2</empno></EMP_TYP>", EMP_TYP)
    assert "twice" in e.message
    e = error("OBJECT", "<EMP_TYP><ENAME><X/></ENAME></EMP_TYP>", EMP_TYP)
    assert "not a structure" in e.message
    e = error("OBJECT", "<ORDER_TYP><CUSTOMER>text</CUSTOMER></ORDER_TYP>", ORDER_TYP)
    assert "CUSTOMER" in e.message


@pytest.mark.parametrize(("attr", "value", "code", "words"), [
    ("EMPNO", "12345", 1438, "too large for numeric(4,0)"),
    ("EMPNO", "9999.5", 1438, "too large"),  # rounds to 10000
    ("SAL", "100000", 1438, "numeric(7,2)"),
    ("SAL", "12,5", 1722, "not a number"),
    ("SAL", "1_000", 1722, "not a number"),
    ("ENAME", "Maximilian1", 12899, "actual: 11, maximum: 10"),
    ("HIREDATE", "23-AUG-2000", 1861, "not a date"),
    ("HIREDATE", "2000-02-30 0:0:0", 1861, "not a valid date"),
])
def test_scalar_errors(attr: str, value: str, code: int, words: str) -> None:
    e = error("OBJECT", f"<EMP_TYP><{attr}>{value}</{attr}></EMP_TYP>", EMP_TYP)
    assert e.code == code and words in e.message and f"EMP_TYP.{attr}" in e.message, e.message
    assert e.message.startswith(f"ORA-{code:05d}")


@pytest.mark.parametrize(("attr", "value", "code"), [
    ("I2", "40000", 1438), ("I4", "-2147483649", 1438), ("I8", "1e30", 1438),
    ("I4", "1.5", 1722), ("B", "maybe", 25215), ("F4", "1e40", 1438),
    ("RAW", "abc!", 25215), ("C", "abcd", 12899), ("NUMS", "<NUMS_ITEM>x</NUMS_ITEM>", 1722),
    ("TAGS", "<TAGS_ITEM>abcdef</TAGS_ITEM>", 12899), ("TAGS", "loose text", 25215),
])
def test_more_scalar_errors(attr: str, value: str, code: int) -> None:
    e = error("OBJECT", f"<ALL_TYP><{attr}>{value}</{attr}></ALL_TYP>", ALL_TYP)
    assert e.code == code, e.message


def test_errors_never_echo_much_input() -> None:
    junk = "Z" * 10_000
    for kind, inner, info in (
        ("OBJECT", f"<EMP_TYP><SAL>{junk}</SAL></EMP_TYP>", EMP_TYP),
        ("OBJECT", f"<EMP_TYP><{junk}>1</{junk}></EMP_TYP>", EMP_TYP),
        ("OBJECT", f"<{junk}/>", EMP_TYP),
        ("RAW", f"<RAW>{junk}</RAW>", None),
        ("JMS_MAP", f"<jms_map_message><map_data><item><name>{junk}</name><int_value>{junk}"
                    "</int_value></item></map_data></jms_map_message>", None),
    ):
        e = error(kind, inner, info)
        assert junk[:150] not in e.message and len(e.message) < 300, e.message[:400]


def test_text_xml_cannot_carry() -> None:
    with pytest.raises(PayloadError) as exc:
        to_xml("JMS_TEXT", {"header": {}, "text_vc": "bell\x07"})
    assert "text_data" in exc.value.message


# characters XML 1.0 can carry (PostgreSQL text never holds NUL)
XML_TEXT = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00")
                   .filter(lambda c: c in "\t\n\r" or (c >= " " and c not in "\ufffe\uffff")))


@given(text=XML_TEXT, props=st.dictionaries(
    st.text("abcXYZ_", min_size=1, max_size=8),
    st.one_of(st.builds(lambda v: {"type": "int", "value": v}, st.integers(-2**31, 2**31 - 1)),
              st.builds(lambda v: {"type": "long", "value": v}, st.integers(-2**63, 2**63 - 1)),
              st.builds(lambda v: {"type": "double", "value": v},
                        st.floats(allow_nan=False, allow_infinity=False)),
              st.builds(lambda v: {"type": "boolean", "value": v}, st.booleans()),
              st.builds(lambda v: {"type": "string", "value": v}, XML_TEXT)),
    max_size=5))
def test_jms_text_roundtrip_through_bytes(text: str, props: dict[str, Any]) -> None:
    """What the gateway writes, serialised and parsed again, reads back as the same message
    (user properties in their order, as the gateway stores them: with their "seq")."""
    props = {k: {**v, "seq": i} for i, (k, v) in enumerate(props.items(), start=1)}
    message = {"header": {"replyto": None, "type": None, "userid": None, "appid": None,
                          "groupid": None, "groupseq": None, "properties": props},
               "text_len": len(text), "text_vc": text}
    doc = etree.tostring(to_xml("JMS_TEXT", message))
    assert xml_to_payload("JMS_TEXT", parse(doc), None) == message


def test_reply_to_alias_is_left_for_the_directory() -> None:
    """The payload keeps the alias for the gateway to resolve; mixing it with a name is
    refused, as the schema's choice says."""
    from pgaq.idap.payload import unresolved_reply_to

    def msg(reply_to: str) -> str:
        return (f"<jms_text_message><oracle_jms_properties><reply_to>{reply_to}</reply_to>"
                "</oracle_jms_properties><text_data>t</text_data></jms_text_message>")

    p = xml_to_payload("JMS_TEXT", wrap(msg("<agent_alias>cn=x</agent_alias>")), None)
    assert unresolved_reply_to(p) == "cn=x"
    named = xml_to_payload("JMS_TEXT", wrap(msg("<agent_name>a</agent_name>")), None)
    assert unresolved_reply_to(named) is None
    with pytest.raises(PayloadError):
        xml_to_payload("JMS_TEXT", wrap(msg("<agent_name>a</agent_name><agent_alias>cn=x</agent_alias>")),
                       None)


@pytest.mark.parametrize("agent", [
    {"name": None, "address": "s.reply_q", "protocol": 0},  # a JMS Queue or Topic
    {"name": "R", "address": "s.reply_q", "protocol": 0},   # an AQjmsAgent
    {"name": "R", "address": None, "protocol": 0},
    {"name": None, "address": "s.remote@dblink", "protocol": 100},
])
def test_reply_to_is_written_as_the_schema_says_and_reads_back(agent: dict[str, Any]) -> None:
    """aq_access.xsd's reply_to: <agent_name> first and required (empty for an agent that is
    a bare address, as Oracle has a NULL name), then <address> and <protocol>."""
    from pgaq.idap.schema import load_schemas

    payload = {"header": {"replyto": agent, "type": None, "userid": None, "appid": None,
                          "groupid": None, "groupseq": None, "properties": {}},
               "text_vc": "t", "text_len": 1}
    out = to_xml("JMS_TEXT", payload)
    [rt] = out.iter(f"{{{AQ}}}reply_to")
    assert etree.QName(rt[0]).localname == "agent_name"
    assert rt.findtext(f"{{{AQ}}}agent_name") == (agent["name"] or "")
    load_schemas().validate(out[0])  # the jms_text_message element, a global declaration
    again = xml_to_payload("JMS_TEXT", parse(etree.tostring(out)), None)
    assert isinstance(again, dict) and again["header"]["replyto"] == agent


GENERIC_CASES = [  # (element, body XML, the generic payload's body fields)
    ("jms_text_message", "<text_data>hi</text_data>",
     {"message_type": 0, "text_len": 2, "text_vc": "hi", "bytes_len": 0, "bytes_raw": None, "map": None}),
    ("jms_bytes_message", "<bytes_data>00FF</bytes_data>",
     {"message_type": 1, "text_len": 0, "text_vc": None, "bytes_len": 2, "bytes_raw": "\\x00ff", "map": None}),
    ("jms_map_message", "<map_data><item><name>q</name><int_value>3</int_value></item></map_data>",
     {"message_type": 3, "text_len": 0, "text_vc": None, "bytes_len": 0, "bytes_raw": None,
      "map": {"q": {"type": "int", "value": 3}}}),
    ("jms_object_message", "<ser_object_data>7B7D</ser_object_data>",
     {"message_type": 4, "text_len": 0, "text_vc": None, "bytes_len": 2, "bytes_raw": "\\x7b7d", "map": None}),
]


@pytest.mark.parametrize(("element", "body", "fields"), GENERIC_CASES)
def test_generic_jms_message_crosses_as_its_bodys_element(element: str, body: str,
                                                          fields: dict[str, Any]) -> None:
    """A queue of SYS.AQ$_JMS_MESSAGE (payload kind JMS_MESSAGE) takes any jms_*_message
    element, stored with the message_type of its body, and writes each message back as the
    element of its body."""
    from pgaq.idap.schema import load_schemas

    doc = (f"<{element}><oracle_jms_properties><type>T</type></oracle_jms_properties>"
           f"<user_properties><property><name>p</name><string_value>v</string_value></property>"
           f"</user_properties>{body}</{element}>")
    p = xml_to_payload("JMS_MESSAGE", wrap(doc), None)
    assert isinstance(p, dict)
    assert {k: v for k, v in p.items() if k != "header"} == fields
    assert p["header"]["type"] == "T" and p["header"]["properties"]["p"]["value"] == "v"
    out = to_xml("JMS_MESSAGE", p)
    assert shape(out[0]) == shape(wrap(doc)[0])
    load_schemas().validate(out[0])
    assert xml_to_payload("JMS_MESSAGE", parse(etree.tostring(out)), None) == p


def test_generic_jms_message_refuses_what_is_no_jms_element() -> None:
    e = error("JMS_MESSAGE", "<RAW>00</RAW>")
    assert e.code == 25215 and "jms_text_message" in str(e)


def test_a_generic_stream_message_crosses_as_bytes() -> None:
    """IDAP has no StreamMessage element; a message already taken is not refused: its
    stream body's bytes cross in a jms_bytes_message."""
    p = {"header": {"replyto": None, "type": None, "userid": None, "appid": None,
                    "groupid": None, "groupseq": None, "properties": {}},
         "message_type": 2, "text_len": 0, "text_vc": None, "bytes_len": 2,
         "bytes_raw": "\\x0102", "map": None}
    out = to_xml("JMS_MESSAGE", p)
    assert out.findtext(f"{{{AQ}}}jms_bytes_message/{{{AQ}}}bytes_data") == "0102"
    # a message_type no JMS type has reads as text, as pgaq.jms reads it
    out = to_xml("JMS_MESSAGE", {**p, "message_type": 9, "text_vc": "t", "text_len": 1})
    assert out.findtext(f"{{{AQ}}}jms_text_message/{{{AQ}}}text_data") == "t"


def test_the_time_to_live_in_ms_is_no_user_property() -> None:
    """A JMS sender keeps a time to live that is not whole seconds as JMS_OracleTimeToLive
    in the header's properties (pgaq.jms.codec, the Java provider's ToEngine); JMS receivers
    do not show it as a property, and neither does AQXmlReceive (its <expiration> is AQ's
    whole seconds)."""
    from pgaq.idap.payload import TIME_TO_LIVE_PROPERTY
    from pgaq.jms.codec import TIME_TO_LIVE_PROPERTY as CODECS

    assert TIME_TO_LIVE_PROPERTY == CODECS
    header: dict[str, Any] = {
        "replyto": None, "type": None, "userid": None, "appid": None, "groupid": None,
        "groupseq": None, "properties": {"u": {"type": "int", "value": 1, "seq": 1},
                                         CODECS: {"type": "long", "value": 1500, "seq": 2}}}
    p = {"header": header, "text_len": 1, "text_vc": "t"}
    out = to_xml("JMS_TEXT", p)
    names = [n.text for n in out.iter(f"{{{AQ}}}name")]
    assert names == ["u"]
    header["properties"] = {CODECS: {"type": "long", "value": 1500, "seq": 1}}
    assert out.find(f".//{{{AQ}}}user_properties") is not None
    assert to_xml("JMS_TEXT", p).find(f".//{{{AQ}}}user_properties") is None


@pytest.mark.parametrize("text", ["3.4028235E38", "3.4028235e+38", "-3.4028235e38",
                                  "3.4028235677973362e38", "1.4E-45"])
def test_the_largest_and_smallest_floats_read_as_written(text: str) -> None:
    """Float.MAX_VALUE as Java's Float.toString writes it, 3.4028235E38, and as pgaq's codecs
    store it (3.4028235e+38), is a little above the float's exact value but rounds to it:
    AQXmlReceive writes it so and AQXmlSend takes it back (XML Schema's float is binary32);
    only a text rounding to infinity is out of range."""
    p = xml_to_payload("JMS_MAP", wrap(
        f"<jms_map_message><map_data><item><name>f</name><float_value>{text}</float_value>"
        "</item></map_data></jms_map_message>"), None)
    assert isinstance(p, dict) and p["map"]["f"] == {"type": "float", "value": float(text)}
    out = to_xml("JMS_MAP", p, None, None)
    assert xml_to_payload("JMS_MAP", out, None) == p


@pytest.mark.parametrize("kind", ["float", "double"])
def test_negative_zero_reads_as_the_codecs_keep_it(kind: str) -> None:
    """jsonb's numeric has no -0: pgaq.jms and the Java provider store a float or double
    negative zero as "-0.0", AQXmlReceive writes that, and AQXmlSend reads it back so (a
    property and a map item alike); a positive zero stays a number."""
    p = xml_to_payload("JMS_MAP", wrap(
        f"<jms_map_message><user_properties><property><name>p</name><{kind}_value>-0.0"
        f"</{kind}_value></property><property><name>z</name><{kind}_value>0</{kind}_value>"
        f"</property></user_properties><map_data><item><name>m</name><{kind}_value>-0"
        f"</{kind}_value></item></map_data></jms_map_message>"), None)
    assert isinstance(p, dict)
    assert p["header"]["properties"]["p"]["value"] == "-0.0"
    assert p["header"]["properties"]["z"]["value"] == 0
    assert p["map"]["m"] == {"type": kind, "value": "-0.0"}
    out = to_xml("JMS_MAP", p, None, None)
    assert [v.text for v in out.iter(f"{kind}_value")] == ["-0.0", "0", "-0.0"]
    assert xml_to_payload("JMS_MAP", out, None) == p
