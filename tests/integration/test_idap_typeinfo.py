"""Object payload types read from the catalog, and IDAP XML through a real queue and back."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import asyncpg
import pytest
from lxml import etree
from pgaq import MessageProperties, Session
from pgaq.idap import typeinfo
from pgaq.idap.payload import payload_to_xml, xml_to_payload
from pgaq.idap.typeinfo import TypeInfo, load_type_info
from pgaq.idap.xmlsafe import parse

from tests.unit import idap_examples as ex

from .helpers import make_queue
from .test_payloads import ORDER_TYPES

AQ = "http://ns.oracle.com/AQ/schemas/access"


def payload_of(doc: str) -> etree._Element:
    [el] = parse(doc.encode()).xpath("//*[local-name()='message_payload']")
    return el


def _value(text: str) -> Any:
    """Numbers compared numerically, dates normalised, other text as is."""
    t = text.strip()
    try:
        return Decimal(t)
    except ArithmeticError:
        pass
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.strptime(t, fmt)
        except ValueError:
            pass
    return t


def assert_same(a: etree._Element, b: etree._Element, path: str = "") -> None:
    """Element by element: names case-insensitively and without namespaces."""
    name_a, name_b = etree.QName(a).localname.lower(), etree.QName(b).localname.lower()
    where = f"{path}/{name_a}"
    assert name_a == name_b, where
    kids_a = [c for c in a if isinstance(c.tag, str)]
    kids_b = [c for c in b if isinstance(c.tag, str)]
    assert len(kids_a) == len(kids_b), where
    if not kids_a:
        assert _value(a.text or "") == _value(b.text or ""), where
    for x, y in zip(kids_a, kids_b, strict=True):
        assert_same(x, y, where)


async def roundtrip(conn: asyncpg.Connection, queue: str, doc: str, info: TypeInfo) -> etree._Element:
    """Example XML -> engine enqueue -> dequeue -> XML (a <message_payload>)."""
    payload = xml_to_payload("OBJECT", payload_of(doc), info)
    s = Session(conn)
    await s.enqueue(queue, payload, MessageProperties(correlation="C"))
    [m] = await s.dequeue(queue)
    assert isinstance(m.payload, dict)
    out = etree.Element(f"{{{AQ}}}message_payload")
    payload_to_xml("OBJECT", m.payload, info, out, AQ)
    # and what the engine gave back maps onto the type again
    assert xml_to_payload("OBJECT", out, info) == xml_to_payload("OBJECT", payload_of(doc), info)
    return out


async def test_order_typ_shape(conn: asyncpg.Connection) -> None:
    await conn.execute(ORDER_TYPES)
    info = await load_type_info(conn, "qs.order_typ")
    assert info.name == "order_typ" and info.regtype == "qs.order_typ"
    assert [a.name for a in info.attrs] == [
        "orderno", "status", "ordertype", "orderregion", "customer", "paymentmethod", "items",
        "ccnumber", "order_date"]
    status = info.attr("STATUS")
    assert status is not None and status.kind == "scalar" and status.scalar == "varchar"
    assert status.sql_type == "character varying(30)" and status.max_length == 30
    customer = info.attr("customer")
    assert customer is not None and customer.kind == "composite" and customer.element is not None
    assert customer.element.name == "customer_typ" and len(customer.element.attrs) == 8
    items = info.attr("items")
    assert items is not None and items.kind == "array" and items.element is not None
    assert items.element.name == "orderitem_typ"
    book = items.element.attr("item")
    assert book is not None and book.element is not None and book.element.name == "book_typ"
    date = info.attr("order_date")
    assert date is not None and date.scalar == "timestamp"
    # cached until invalidated
    assert await load_type_info(conn, "qs.order_typ") is info
    typeinfo.invalidate("qs.order_typ")
    again = await load_type_info(conn, "qs.order_typ")
    assert again is not info and again == info


async def test_scalar_arrays_domains_and_precision(conn: asyncpg.Connection) -> None:
    await conn.execute("""
        CREATE SCHEMA t;
        CREATE DOMAIN t.code AS varchar(3);
        CREATE TYPE t.empty_typ AS ();
        CREATE TYPE t.x AS (tags varchar(5)[], nums integer[], c t.code, amount numeric(7,2),
                            e t.empty_typ, n bigint);
    """)
    info = await load_type_info(conn, "t.x")
    tags, nums, c, amount, e, n = info.attrs
    assert (tags.kind, tags.scalar, tags.max_length) == ("array", "varchar", 5)
    assert (nums.kind, nums.scalar, nums.element) == ("array", "int4", None)
    assert (c.kind, c.scalar, c.max_length) == ("scalar", "varchar", 3)
    assert amount.precision_scale == (7, 2)
    assert e.kind == "composite" and e.element is not None and e.element.name == "empty_typ"
    assert n.scalar == "int8"
    typeinfo.invalidate()


async def test_example_17_1_through_a_queue(conn: asyncpg.Connection) -> None:
    await conn.execute(ORDER_TYPES)
    await make_queue(conn, "qs.new_orders_que", "qs.orders_qt", "qs.order_typ")
    info = await load_type_info(conn, "qs.order_typ")
    out = await roundtrip(conn, "QS.NEW_ORDERS_QUE", ex.EXAMPLE_17_1, info)
    original = payload_of(ex.EXAMPLE_17_1)
    assert_same(out, original)
    order = out[0]
    assert order.tag == f"{{{AQ}}}ORDER_TYP"
    assert order.findtext(f"{{{AQ}}}ORDER_DATE") == "2000-08-23 0:0:0"
    assert [i.tag for i in order.find(f"{{{AQ}}}ITEMS")] == [f"{{{AQ}}}ITEMS_ITEM"] * 2


async def test_example_17_2_gives_example_17_18(conn: asyncpg.Connection) -> None:
    # numeric(7,2) comes back as 10000.00: written as Oracle does, 10000
    await conn.execute("""
        CREATE SCHEMA aquser;
        CREATE TYPE aquser.emp_typ AS (empno numeric(4), ename varchar(10), job varchar(9),
            mgr numeric(4), hiredate timestamp, sal numeric(7,2), comm numeric(7,2),
            deptno numeric(2));
    """)
    await make_queue(conn, "aquser.emp_q", "aquser.emp_qt", "aquser.emp_typ")
    info = await load_type_info(conn, "aquser.emp_typ")
    out = await roundtrip(conn, "aquser.emp_q", ex.EXAMPLE_17_2, info)
    got = [(etree.QName(c).localname, c.text) for c in out[0]]
    want = [(etree.QName(c).localname, (c.text or "").strip()) for c in payload_of(ex.EXAMPLE_17_18)[0]]
    assert got == want


async def test_every_scalar_type_enqueues(conn: asyncpg.Connection) -> None:
    await conn.execute("""
        CREATE SCHEMA t;
        CREATE TYPE t.all_typ AS (i2 smallint, i4 integer, i8 bigint, n numeric, f4 real,
            f8 double precision, b boolean, t text, d date, ts timestamp, tz timestamptz,
            raw bytea, tags varchar(5)[], nums integer[]);
        SET TIME ZONE 'UTC';
    """)
    await make_queue(conn, "t.q", "t.qt", "t.all_typ")
    info = await load_type_info(conn, "t.all_typ")
    doc = ("<message_payload><all_typ><i2>-32768</i2><i4>7</i4><i8>9223372036854775807</i8>"
           "<n>12345678901234567890.123456789</n><f4>1.5</f4><f8>INF</f8><b>false</b>"
           "<t>" + "x" * 100_000 + "</t><d>2024-02-29 0:0:0</d><ts>2024-02-29 13:5:7.25</ts>"
           "<tz>2024-02-29 13:5:7+02:00</tz><raw>00ff</raw>"
           "<tags><tags_item>a</tags_item><tags_item/></tags><nums><nums_item>3</nums_item></nums>"
           "</all_typ></message_payload>")
    s = Session(conn)
    await s.enqueue("t.q", xml_to_payload("OBJECT", parse(doc.encode()), info))
    row = await conn.fetchrow(
        "SELECT (user_data).n::text AS n, (user_data).f8 AS f8, (user_data).tz AS tz,"
        " (user_data).raw AS raw, length((user_data).t) AS tlen, (user_data).tags AS tags"
        " FROM t.qt")
    assert row["n"] == "12345678901234567890.123456789" and row["f8"] == float("inf")
    assert row["raw"] == b"\x00\xff" and row["tlen"] == 100_000 and row["tags"] == ["a", None]
    assert row["tz"].isoformat() == "2024-02-29T11:05:07+00:00"
    [m] = await s.dequeue("t.q")
    out = etree.Element("message_payload")
    assert isinstance(m.payload, dict)
    payload_to_xml("OBJECT", m.payload, info, out, None)
    text = {c.tag: c.text for c in out[0]}
    assert text["I8"] == "9223372036854775807" and text["F8"] == "INF" and text["B"] == "false"
    assert text["D"] == "2024-02-29 0:0:0" and text["TS"] == "2024-02-29 13:5:7.25"
    assert text["TZ"] == "2024-02-29 11:5:7+00:00" and text["RAW"] == "00FF"
    # (numeric beyond a double's 17 digits comes back rounded: the engine decodes JSON
    # numbers as floats; the XML side writes whatever it is given exactly)


async def test_unknown_type(conn: asyncpg.Connection) -> None:
    with pytest.raises(asyncpg.PostgresError):
        await load_type_info(conn, "t.missing_typ")
