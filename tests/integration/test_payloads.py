"""Payload types: object types with nested objects and collections, JMS bodies, RAW."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest
from pgaq import DequeueOptions, MessageProperties, Session

from .helpers import make_queue

ORDER_TYPES = """
CREATE SCHEMA qs;
CREATE TYPE qs.customer_typ AS (custno numeric, custid varchar(20), name varchar(100),
    street varchar(100), city varchar(30), state varchar(2), zip numeric, country varchar(20));
CREATE TYPE qs.book_typ AS (title varchar(100), authors varchar(100), isbn varchar(20),
    price numeric);
CREATE TYPE qs.orderitem_typ AS (quantity numeric, item qs.book_typ, subtotal numeric);
CREATE TYPE qs.order_typ AS (orderno numeric, status varchar(30), ordertype varchar(30),
    orderregion varchar(30), customer qs.customer_typ, paymentmethod varchar(30),
    items qs.orderitem_typ[], ccnumber varchar(20), order_date timestamp);
"""

# Example 17-1's ORDER_TYP, as the gateway hands it to the engine
ORDER = {
    "orderno": 100, "status": "NEW", "ordertype": "URGENT", "orderregion": "EAST",
    "customer": {"custno": 1001233, "custid": "MA1234555623212", "name": "AMERICAN EXPRESS",
                 "street": "EXPRESS STREET", "city": "REDWOOD CITY", "state": "CA",
                 "zip": 94065, "country": "USA"},
    "paymentmethod": "CREDIT",
    "items": [
        {"quantity": 10, "item": {"title": "Perl", "authors": "Randal", "isbn": "ISBN20200",
                                  "price": 19}, "subtotal": 190},
        {"quantity": 20, "item": {"title": "XML", "authors": "Micheal", "isbn": "ISBN20212",
                                  "price": 59}, "subtotal": 590},
    ],
    "ccnumber": "NUMBER01", "order_date": "2000-08-23 0:0:0",
}


async def test_order_typ_roundtrip(conn: asyncpg.Connection) -> None:
    await conn.execute(ORDER_TYPES)
    await make_queue(conn, "qs.new_orders_que", "qs.orders_qt", "qs.order_typ")
    s = Session(conn)
    mid = await s.enqueue("QS.NEW_ORDERS_QUE", ORDER, MessageProperties(correlation="ORDER1"))
    # the payload is a real composite value: SQL sees its nested attributes
    row = await conn.fetchrow(
        "SELECT (user_data).customer.name AS cust, ((user_data).items)[2].item.title AS title,"
        " (user_data).order_date AS d FROM qs.orders_qt WHERE msgid = decode($1, 'hex')",
        mid,
    )
    assert row["cust"] == "AMERICAN EXPRESS" and row["title"] == "XML"
    assert str(row["d"]) == "2000-08-23 00:00:00"
    [m] = await s.dequeue("qs.new_orders_que")
    p = m.payload
    assert isinstance(p, dict)
    assert p["customer"]["city"] == "REDWOOD CITY"
    assert [i["item"]["isbn"] for i in p["items"]] == ["ISBN20200", "ISBN20212"]
    assert p["order_date"] == "2000-08-23T00:00:00"
    assert m.correlation == "ORDER1"


@pytest.mark.parametrize(
    ("type_name", "body"),
    [
        ("SYS.AQ$_JMS_BYTES_MESSAGE", {"bytes_len": 3, "bytes_raw": "\\x010203"}),
        ("SYS.AQ$_JMS_MAP_MESSAGE", {"map": {"k": {"type": "long", "value": 9007199254740993}}}),
        ("SYS.AQ$_JMS_OBJECT_MESSAGE", {"bytes_len": 1, "bytes_raw": "\\xff"}),
        ("SYS.AQ$_JMS_STREAM_MESSAGE", {"bytes_len": 1, "bytes_raw": "\\x00"}),
    ],
)
async def test_jms_bodies(conn: asyncpg.Connection, type_name: str, body: dict[str, Any]) -> None:
    await make_queue(conn, payload=type_name)
    s = Session(conn)
    header = {"type": "t", "userid": None, "appid": None, "groupid": None, "groupseq": None,
              "replyto": {"name": "R", "address": "s.reply", "protocol": 0},
              "properties": {"b": {"type": "byte", "value": -3},
                             "s": {"type": "short", "value": 300}}}
    await s.enqueue("s.q", {"header": header, **body})
    [m] = await s.dequeue("s.q")
    # JMSXUserID is the provider's: the enqueuing user (R__52; Oracle JMS guide, "JMS Message
    # Properties")
    header["userid"] = await conn.fetchval("SELECT current_user")
    assert m.payload == {"header": header, **body}


async def test_raw_payload_and_null_properties(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    s = Session(conn)
    big = bytes(range(256)) * 4096  # 1 MiB
    await s.enqueue("s.q", big, MessageProperties(priority=-5, expiration=60, delay=0))
    [m] = await s.dequeue("s.q", DequeueOptions())
    assert m.payload == big and m.priority == -5 and m.expiration == 60
