"""A message sent through pgaq.jms is what dbms_aq.dequeue in SQL receives, and one
dbms_aq.enqueue'd in SQL is what a pgaq.jms consumer receives (issue 22, interop): body,
JMS header fields and typed properties."""

from __future__ import annotations

import json
from typing import Any

import asyncpg
import pgaq.jms as jms

from .helpers import make_queue


def _json(v: Any) -> Any:
    return json.loads(v) if isinstance(v, str) else v


DEQUEUE = """CALL dbms_aq.dequeue(queue_name => $1,
               dequeue_options => dbms_aq.dequeue_options(wait => 0),
               message_properties => NULL, payload => NULL::{type}, msgid => NULL)"""


async def test_text_message_to_sql(conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await make_queue(conn, "shop.orders_q", "shop.orders_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    s = connection.create_session()
    m = s.create_text_message("héllo")
    m.set_string_property("country", "UK")
    m.set_int_property("qty", 3)
    m.set_double_property("price", 9.5)
    m.set_boolean_property("gift", True)
    m.jms_type = "order"
    m.jms_correlation_id = "c-7"
    await s.create_producer(s.get_queue("shop", "orders_q")).send(m, priority=2)
    row = await conn.fetchrow(DEQUEUE.format(type="sys.aq$_jms_text_message"), "shop.orders_q")
    assert row is not None
    assert "ID:" + row["msgid"].hex().upper() == m.jms_message_id
    payload = row["payload"]
    assert payload["text_vc"] == "héllo" and payload["text_len"] == len("héllo")
    header = payload["header"]
    assert header["type"] == "order"
    props = _json(header["properties"])
    assert {k: (v["type"], v["value"]) for k, v in props.items()} == {
        "country": ("string", "UK"), "qty": ("int", 3), "price": ("double", 9.5),
        "gift": ("boolean", True)}
    mp = row["message_properties"]
    assert mp["priority"] == 2 and mp["correlation"] == "c-7"


async def test_sql_messages_to_jms(conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await make_queue(conn, "shop.orders_q", "shop.orders_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    await make_queue(conn, "shop.maps_q", "shop.maps_t", "SYS.AQ$_JMS_MAP_MESSAGE")
    props = {"country": {"type": "string", "value": "FR"}, "qty": {"type": "long", "value": 12}}
    mid = await conn.fetchval(
        """CALL dbms_aq.enqueue(queue_name => 'shop.orders_q',
             message_properties => dbms_aq.message_properties(priority => 1, correlation => 'sql-1'),
             payload => ROW(ROW(NULL, 'fromsql', NULL, NULL, NULL, NULL, $1::jsonb)::sys.aq$_jms_header,
                            3, 'sql')::sys.aq$_jms_text_message, msgid => NULL)""", json.dumps(props))
    await conn.execute(
        """CALL dbms_aq.enqueue(queue_name => 'shop.maps_q',
             payload => ROW(ROW(NULL, NULL, NULL, NULL, NULL, NULL, '{}')::sys.aq$_jms_header,
                            $1::jsonb)::sys.aq$_jms_map_message, msgid => NULL)""",
        json.dumps({"n": {"type": "int", "value": 42}, "s": {"type": "string", "value": "x"}}))
    s = connection.create_session()
    await connection.start()
    consumer = await s.create_consumer(s.get_queue("shop", "orders_q"),
                                       message_selector="country = 'FR' AND qty > 10")
    got = await consumer.receive(1.0)
    assert isinstance(got, jms.TextMessage)
    assert got.text == "sql" and got.jms_type == "fromsql"
    assert got.jms_message_id == "ID:" + mid.hex().upper()
    assert got.jms_priority == 1 and got.jms_correlation_id == "sql-1"
    assert got.get_string_property("country") == "FR" and got.get_long_property("qty") == 12
    assert got.get_string_property("qty") == "12"  # JMS 3.5.4 conversions
    maps = await s.create_consumer(s.get_queue("shop", "maps_q"))
    mm = await maps.receive(1.0)
    assert isinstance(mm, jms.MapMessage)
    assert mm.get_int("n") == 42 and mm.get_long("n") == 42 and mm.get_string("s") == "x"
    # and back: a map message sent through jms is what SQL reads
    out = s.create_map_message()
    out.set_int("n", 7)
    out.set_string("s", "y")
    await s.create_producer(s.get_queue("shop", "maps_q")).send(out)
    row = await conn.fetchrow(DEQUEUE.format(type="sys.aq$_jms_map_message"), "shop.maps_q")
    assert row is not None
    items = _json(row["payload"]["map"])
    assert {k: (v["type"], v["value"]) for k, v in items.items()} == {"n": ("int", 7), "s": ("string", "y")}
