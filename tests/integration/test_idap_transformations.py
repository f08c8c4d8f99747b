"""Transformations through IDAP (issue 18, part 2), over real HTTP against PostgreSQL.

The specification (Oracle Streams Advanced Queuing User's Guide and Reference, Release 10.1,
chapter 17 "Internet Access to Oracle Streams AQ", Table 17-1 and the consumer options; the 11.1
guide's same chapter): the producer_options' `transformation` is "the PL/SQL transformation to
be invoked before the message is enqueued", the consumer_options' one "to be invoked after the
message is dequeued"; message_payload's sub-element follows the payload type (<ORDER_TYP> for an
ORDER_TYP payload, <RAW> for RAW). Oracle Streams Advanced Queuing User's Guide and Reference
10g Release 2 (10.2), "Introducing Oracle Streams AQ", "Message Format Transformation": a
transformation is "a SQL function that takes the source data type as input and returns an object
of the target data type"; "to transform a message during dequeue, specify a mapping either in
the dequeue options or when you add a subscriber. A dequeue mapping overrides a subscriber
mapping". So an enqueue's payload is written in the transformation's source type and stored as
the queue's type, and a dequeued payload is written in (and named after) the transformation's
target type.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import asyncpg
import pytest

from .gateway_support import Client, Reply, drop_roles, envelope, make_agent, op, running_gateway

TYPES = """
    CREATE TYPE tx.order_in_typ AS (orderno numeric(5), customer varchar(10), amount numeric(7,2));
    CREATE TYPE tx.order_typ AS (orderno numeric(5), customer_name varchar(30),
                                 total numeric(9,2), currency varchar(3));
    CREATE TYPE tx.summary_typ AS (label varchar(60), total numeric(9,2));
    CREATE FUNCTION tx.in_to_order(o tx.order_in_typ) RETURNS tx.order_typ LANGUAGE sql IMMUTABLE
      AS $$ SELECT ROW(o.orderno, upper(o.customer), o.amount, 'EUR')::tx.order_typ $$;
    CREATE FUNCTION tx.order_to_summary(o tx.order_typ) RETURNS tx.summary_typ LANGUAGE sql IMMUTABLE
      AS $$ SELECT ROW(o.orderno || ':' || o.customer_name, o.total)::tx.summary_typ $$;
    CREATE FUNCTION tx.order_to_raw(o tx.order_typ) RETURNS bytea LANGUAGE sql IMMUTABLE
      AS $$ SELECT convert_to(o.customer_name, 'UTF8') $$;
    CREATE FUNCTION tx.raw_to_order(b bytea) RETURNS tx.order_typ LANGUAGE sql IMMUTABLE
      AS $$ SELECT ROW(length(b), convert_from(b, 'UTF8'), 0, 'RAW')::tx.order_typ $$;
    CALL dbms_transform.create_transformation('tx', 'raw_to_order', 'SYS', 'RAW',
                                              'tx', 'order_typ', 'tx.raw_to_order');
    CALL dbms_transform.create_transformation('tx', 'in_to_order', 'tx', 'order_in_typ',
                                              'tx', 'order_typ', 'tx.in_to_order');
    CALL dbms_transform.create_transformation('tx', 'order_to_summary', 'tx', 'order_typ',
                                              'tx', 'summary_typ', 'tx.order_to_summary');
    CALL dbms_transform.create_transformation('tx', 'order_to_raw', 'tx', 'order_typ',
                                              'SYS', 'RAW', 'tx.order_to_raw');
    CALL dbms_aqadm.create_queue_table('tx.orders_qt', 'tx.order_typ');
    CALL dbms_aqadm.create_queue('tx.orders_q', 'tx.orders_qt');
    CALL dbms_aqadm.start_queue('tx.orders_q');
    CALL dbms_aqadm.create_queue_table('tx.topic_qt', 'tx.order_typ', multiple_consumers => true);
    CALL dbms_aqadm.create_queue('tx.orders_topic', 'tx.topic_qt');
    CALL dbms_aqadm.start_queue('tx.orders_topic');
    CALL dbms_aqadm.add_subscriber('tx.orders_topic', sys.aq$_agent('PLAIN', NULL, NULL));
    CALL dbms_aqadm.add_subscriber('tx.orders_topic', sys.aq$_agent('SUMMARY', NULL, NULL),
                                   transformation => 'tx.order_to_summary');
"""


@dataclass
class Env:
    conn: asyncpg.Connection
    dsn: str
    roles: list[str]


@pytest.fixture
async def env(conn: asyncpg.Connection, db_dsn: str) -> AsyncIterator[Env]:
    roles = await make_agent(conn)
    await conn.execute(f'CREATE SCHEMA tx AUTHORIZATION "{roles[0]}"')
    await conn.execute(TYPES)
    yield Env(conn, db_dsn, roles)
    await drop_roles(conn, roles)


@pytest.fixture
async def client(env: Env) -> AsyncIterator[Client]:
    async with running_gateway(env.dsn, session_timeout=5.0, max_wait=10.0) as url:
        c = Client(url, "JOHN", "secret")
        try:
            yield c
        finally:
            await c.close()


def order_in(orderno: str, customer: str, amount: str) -> str:
    return (f"<ORDER_IN_TYP><ORDERNO>{orderno}</ORDERNO><CUSTOMER>{customer}</CUSTOMER>"
            f"<AMOUNT>{amount}</AMOUNT></ORDER_IN_TYP>")


def send(payload: str, *, queue: str = "TX.ORDERS_Q", transformation: str | None = "TX.IN_TO_ORDER",
         visibility: str | None = None, commit: bool = True, operation: str = "AQXmlSend") -> bytes:
    opts = f"<destination>{queue}</destination>"
    if visibility is not None:
        opts += f"<visibility>{visibility}</visibility>"
    if transformation is not None:
        opts += f"<transformation>{transformation}</transformation>"
    body = (f"<producer_options>{opts}</producer_options><message_set><message>"
            f"<message_payload>{payload}</message_payload></message></message_set>")
    return envelope(op(operation, body + ("<AQXmlCommit/>" if commit else "")))


def receive(*, queue: str = "TX.ORDERS_Q", consumer: str | None = None,
            transformation: str | None = None, mode: str | None = None,
            visibility: str | None = None, commit: bool = True) -> bytes:
    opts = f"<destination>{queue}</destination>"
    if consumer is not None:
        opts += f"<consumer_name>{consumer}</consumer_name>"
    opts += "<wait_time>0</wait_time>"
    if visibility is not None:
        opts += f"<visibility>{visibility}</visibility>"
    if mode is not None:
        opts += f"<dequeue_mode>{mode}</dequeue_mode>"
    # from the start each time: a NEXT_MESSAGE after a BROWSE goes on past what it browsed
    opts += "<navigation_mode>FIRST_MESSAGE</navigation_mode>"
    if transformation is not None:
        opts += f"<transformation>{transformation}</transformation>"
    return envelope(op("AQXmlReceive", f"<consumer_options>{opts}</consumer_options>"
                       + ("<AQXmlCommit/>" if commit else "")))


def payload_elements(r: Reply) -> list[str]:
    """The names of each received message's payload element."""
    assert r.doc is not None, r.body
    return [str(e.xpath("local-name()")) for e in r.doc.xpath("//*[local-name()='message_payload']/*")]


def field(r: Reply, element: str) -> list[str]:
    return r.text(f"//*[local-name()='message_payload']/*/*[local-name()='{element}']")


async def ok(c: Client, document: bytes) -> Reply:
    r = await c.post(document)
    assert r.status == 200 and r.fault is None, r.fault or r.body
    return r


async def fault(c: Client, document: bytes) -> Reply:
    r = await c.post(document)
    assert r.status == 500 and r.fault is not None, r.body
    assert r.text("//*[local-name()='faultcode']") == ["SOAP-ENV:Client"], r.body
    return r


async def stored(conn: asyncpg.Connection, table: str = "tx.orders_qt") -> list[tuple[object, ...]]:
    rows = await conn.fetch(f"SELECT (user_data).* FROM {table} ORDER BY enq_seq")
    return [tuple(r.values()) for r in rows]


# -- 1. enqueue --------------------------------------------------------------------------
async def test_send_in_the_source_type_is_stored_as_the_queue_type(env: Env, client: Client) -> None:
    r = await ok(client, send(order_in("1001", "acme", "12.50")))
    assert len(r.text("//*[local-name()='message_id']")[0]) == 32
    # the function ran in SQL: the queue holds an ORDER_TYP
    assert await stored(env.conn) == [(1001, "ACME", Decimal("12.50"), "EUR")]
    # and dequeued without a transformation it is the queue's type, named after it
    r = await ok(client, receive())
    assert payload_elements(r) == ["ORDER_TYP"]
    assert field(r, "CUSTOMER_NAME") == ["ACME"] and field(r, "CURRENCY") == ["EUR"]
    assert field(r, "TOTAL") == ["12.5"]


async def test_publish_in_the_source_type(env: Env, client: Client) -> None:
    await ok(client, send(order_in("7", "bo", "3"), queue="TX.ORDERS_TOPIC", operation="AQXmlPublish"))
    assert await stored(env.conn, "tx.topic_qt") == [(7, "BO", Decimal("3.00"), "EUR")]
    r = await ok(client, receive(queue="TX.ORDERS_TOPIC", consumer="PLAIN"))
    assert payload_elements(r) == ["ORDER_TYP"] and field(r, "CUSTOMER_NAME") == ["BO"]


async def test_a_raw_source_type(env: Env, client: Client) -> None:
    """The source type decides the element: <RAW> hex (example 17-5's form) for a RAW one."""
    await ok(client, send(f"<RAW>{b'abc'.hex().upper()}</RAW>", transformation="TX.RAW_TO_ORDER"))
    assert await stored(env.conn) == [(3, "abc", Decimal("0.00"), "RAW")]
    r = await fault(client, send(order_in("1", "a", "1"), transformation="TX.RAW_TO_ORDER"))
    assert r.error_code == "25215" and "takes RAW payloads" in (r.fault or "")


async def test_payload_is_checked_against_the_source_type(env: Env, client: Client) -> None:
    # the queue's own type is not what the transformation takes
    queue_typed = ("<ORDER_TYP><ORDERNO>1</ORDERNO><CUSTOMER_NAME>X</CUSTOMER_NAME>"
                   "<TOTAL>1</TOTAL><CURRENCY>EUR</CURRENCY></ORDER_TYP>")
    r = await fault(client, send(queue_typed))
    assert r.error_code == "25215"
    assert "ORA-25215" in (r.fault or "") and "ORDER_IN_TYP" in (r.fault or "")
    assert "TX.IN_TO_ORDER" in (r.fault or "")
    # the source type's limits, not the queue's: CUSTOMER is varchar(10) (CUSTOMER_NAME 30)
    r = await fault(client, send(order_in("2", "x" * 11, "1")))
    assert r.error_code == "12899" and "ORDER_IN_TYP.CUSTOMER" in (r.fault or "")
    r = await fault(client, send(order_in("abc", "x", "1")))
    assert r.error_code == "1722"
    # an attribute of the queue's type that the source type does not have
    r = await fault(client, send("<ORDER_IN_TYP><CURRENCY>EUR</CURRENCY></ORDER_IN_TYP>"))
    assert r.error_code == "25215" and "CURRENCY" in (r.fault or "")
    assert await stored(env.conn) == []


async def test_unknown_transformation_is_named(env: Env, client: Client) -> None:
    r = await fault(client, send(order_in("1", "a", "1"), transformation="TX.NO_SUCH_THING"))
    assert r.error_code == "24185" and "no_such_thing" in (r.fault or "").lower()
    r = await fault(client, receive(transformation="TX.NO_SUCH_THING"))
    assert r.error_code == "24185" and "no_such_thing" in (r.fault or "").lower()
    assert await stored(env.conn) == []


async def test_transformation_must_produce_the_queue_type(env: Env, client: Client) -> None:
    # ORDER_TYP -> SUMMARY_TYP: a valid ORDER_TYP payload, but the queue holds ORDER_TYP
    payload = ("<ORDER_TYP><ORDERNO>1</ORDERNO><CUSTOMER_NAME>X</CUSTOMER_NAME>"
               "<TOTAL>1</TOTAL><CURRENCY>EUR</CURRENCY></ORDER_TYP>")
    r = await fault(client, send(payload, transformation="TX.ORDER_TO_SUMMARY"))
    assert r.error_code == "25215" and "does not produce" in (r.fault or "")
    assert await stored(env.conn) == []
    # and on dequeue it must take the queue's type
    await ok(client, send(order_in("1", "a", "1")))
    r = await fault(client, receive(transformation="TX.IN_TO_ORDER"))
    assert r.error_code == "25215" and "does not take" in (r.fault or "")
    assert len(await stored(env.conn)) == 1  # nothing was taken


async def test_unqualified_name_is_the_agents_database_user_s(env: Env, client: Client) -> None:
    """As for queue names (Table 17-1: destination is schema.queue_name), an unqualified
    name is in the schema of the agent's database user, as PL/SQL's enqueue resolves it."""
    role = env.roles[0]
    await env.conn.execute(f'CREATE SCHEMA "{role}" AUTHORIZATION "{role}"')
    await env.conn.execute("CALL dbms_transform.create_transformation($1, 'mine', 'tx', 'order_in_typ',"
                           " 'tx', 'order_typ', 'tx.in_to_order')", role)
    await ok(client, send(order_in("5", "me", "1"), transformation="mine"))
    assert await stored(env.conn) == [(5, "ME", Decimal("1.00"), "EUR")]


# -- 2. dequeue --------------------------------------------------------------------------
async def test_receive_names_the_payload_after_the_target_type(env: Env, client: Client) -> None:
    await ok(client, send(order_in("42", "zed", "9.99")))
    r = await ok(client, receive(transformation="TX.ORDER_TO_SUMMARY", mode="BROWSE"))
    assert payload_elements(r) == ["SUMMARY_TYP"]
    assert field(r, "LABEL") == ["42:ZED"] and field(r, "TOTAL") == ["9.99"]
    assert field(r, "CUSTOMER_NAME") == []
    # to RAW: the payload is a <RAW> element of hex
    r = await ok(client, receive(transformation="tx.order_to_raw", mode="BROWSE"))
    assert payload_elements(r) == ["RAW"]
    assert r.text("//*[local-name()='message_payload']/*")[0] == b"ZED".hex().upper()
    # what the queue holds did not change
    r = await ok(client, receive())
    assert payload_elements(r) == ["ORDER_TYP"] and field(r, "CUSTOMER_NAME") == ["ZED"]


# -- 4. a subscriber's transformation ----------------------------------------------------
async def test_subscriber_transformation_applies_and_a_request_one_overrides(
        env: Env, client: Client) -> None:
    for n in ("1", "2"):
        await ok(client, send(order_in(n, "sub", "2"), queue="TX.ORDERS_TOPIC",
                              operation="AQXmlPublish"))
    r = await ok(client, receive(queue="TX.ORDERS_TOPIC", consumer="PLAIN"))
    assert payload_elements(r) == ["ORDER_TYP"]
    r = await ok(client, receive(queue="TX.ORDERS_TOPIC", consumer="SUMMARY"))
    assert payload_elements(r) == ["SUMMARY_TYP"] and field(r, "LABEL") == ["1:SUB"]
    # "a dequeue mapping overrides a subscriber mapping" (AQ User's Guide (10.2), "Message
    # Format Transformation")
    r = await ok(client, receive(queue="TX.ORDERS_TOPIC", consumer="SUMMARY",
                                 transformation="TX.ORDER_TO_RAW"))
    assert payload_elements(r) == ["RAW"]
    assert r.text("//*[local-name()='message_payload']/*") == [b"SUB".hex().upper()]


# -- 3. every path the gateway has -------------------------------------------------------
SEND_WAYS: dict[str, dict[str, Any]] = {
    # AQXmlCommit with no open transaction: the batch writer (batching.py)
    "commit": {"commit": True},
    # IMMEDIATE: the batch writer too
    "immediate": {"visibility": "IMMEDIATE", "commit": False},
    # the HTTP session's transaction, committed by a later AQXmlCommit
    "session": {"commit": False},
}
RECEIVE_WAYS: dict[str, dict[str, Any]] = {  # three messages: one for each way that removes one
    "browse": {"mode": "BROWSE", "commit": False},
    "remove+commit": {"commit": True},  # the dequeue batcher's kind of request
    "immediate": {"visibility": "IMMEDIATE", "commit": False},
    "session": {"commit": False},
}


@pytest.mark.parametrize("fastpath", [True, False], ids=["fastpath", "aiohttp"])
async def test_the_same_documents_on_every_path(env: Env, fastpath: bool) -> None:
    """The lean HTTP server (fastpath.py) and aiohttp, the batch writers and the session's
    transaction: each way a document can take gives the same outcome. Each way is a client
    (an HTTP session) of its own, as independent applications would be."""
    async with running_gateway(env.dsn, session_timeout=5.0, max_wait=10.0,
                               fastpath=fastpath) as url:
        async def each(documents: list[bytes]) -> list[Reply]:
            c = Client(url, "JOHN", "secret")
            try:
                return [await ok(c, d) for d in documents]
            finally:
                await c.close()

        commit = envelope(op("AQXmlCommit", ""))
        for i, (way, kw) in enumerate(SEND_WAYS.items(), start=1):
            finish = [commit] if not kw.get("commit") and kw.get("visibility") != "IMMEDIATE" else []
            await each([send(order_in(str(i), way[:10], "1"), **kw),
                        send(order_in(str(i), way[:10], "1"), queue="TX.ORDERS_TOPIC",
                             operation="AQXmlPublish", **kw), *finish])
        expect = [(1, "COMMIT", Decimal("1.00"), "EUR"), (2, "IMMEDIATE", Decimal("1.00"), "EUR"),
                  (3, "SESSION", Decimal("1.00"), "EUR")]
        assert await stored(env.conn) == expect
        assert await stored(env.conn, "tx.topic_qt") == expect
        # BROWSE leaves the first message; each REMOVE then takes the first one left
        labels = ["1:COMMIT", "1:COMMIT", "2:IMMEDIATE", "3:SESSION"]
        for (way, kw), label in zip(RECEIVE_WAYS.items(), labels, strict=True):
            finish = [commit] if not kw.get("commit") and kw.get("visibility") != "IMMEDIATE" else []
            single, topic, *_ = await each([
                receive(transformation="TX.ORDER_TO_SUMMARY", **kw),
                receive(queue="TX.ORDERS_TOPIC", consumer="SUMMARY", **kw), *finish])
            for r in (single, topic):
                assert payload_elements(r) == ["SUMMARY_TYP"], way
                assert field(r, "LABEL") == [label] and field(r, "TOTAL") == ["1"], way


async def test_a_propagated_batch_naming_a_transformation_is_refused(env: Env, client: Client) -> None:
    """A pgaq propagator's batch is stored as it came (the source applied any subscriber's
    transformation, AQ User's Guide (10.2), "Message Format Transformation": "to transform a
    message during propagation, specify a mapping when you add a subscriber"): a transformation
    in one is refused, not ignored."""
    header = ('<Header><p:propagation xmlns:p="urn:pgaq:propagation">'
              "<p:schedule_key>test-schedule</p:schedule_key>"
              f"<p:source_msgid>{'AB' * 16}</p:source_msgid></p:propagation></Header>")
    document = send(order_in("1", "a", "1")).decode().replace("<Body>", header + "<Body>", 1)
    r = await fault(client, document.encode())
    assert r.error_code == "25200" and "TRANSFORMATION" in (r.fault or "")
    assert await stored(env.conn) == []
