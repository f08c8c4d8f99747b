"""The IDAP gateway over real HTTP on loopback, against a real PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from tests.conftest import prepared
from tests.unit import idap_examples as ex

from .gateway_support import Client, drop_roles, envelope, make_agent, op, running_gateway
from .test_payloads import ORDER_TYPES
from .waiting import until


async def _gw_schema(conn: asyncpg.Connection) -> list[str]:
    """The examples' agent, types and queues: made once per worker (tests/conftest.py)."""
    roles = await make_agent(conn)
    owner = roles[0]
    await conn.execute(ORDER_TYPES)
    await conn.execute(f'ALTER SCHEMA qs OWNER TO "{owner}"')
    await conn.execute(f'CREATE SCHEMA aquser AUTHORIZATION "{owner}"')
    await conn.execute("""
        CALL dbms_aqadm.create_queue_table('qs.orders_qt', 'qs.order_typ');
        CALL dbms_aqadm.create_queue('qs.new_orders_que', 'qs.orders_qt', max_retries => 2);
        CALL dbms_aqadm.start_queue('qs.new_orders_que');
        CREATE TYPE aquser.emp_typ AS (empno numeric(4), ename varchar(10), job varchar(9),
            mgr numeric(4), hiredate timestamp, sal numeric(7,2), comm numeric(7,2),
            deptno numeric(2));
        CALL dbms_aqadm.create_queue_table('aquser.emp_qt', 'aquser.emp_typ', multiple_consumers => true);
        CALL dbms_aqadm.create_queue('aquser.emp_topic', 'aquser.emp_qt');
        CALL dbms_aqadm.start_queue('aquser.emp_topic');
        CALL dbms_aqadm.add_subscriber('aquser.emp_topic', sys.aq$_agent('APP1', NULL, NULL));
        CALL dbms_aqadm.create_queue_table('aquser.raw_qt', 'RAW');
        CALL dbms_aqadm.create_queue('aquser.raw_msgq', 'aquser.raw_qt');
        CALL dbms_aqadm.start_queue('aquser.raw_msgq');
        CALL dbms_aqadm.create_queue_table('aquser.jms_qt', 'SYS.AQ$_JMS_TEXT_MESSAGE');
        CALL dbms_aqadm.create_queue('aquser.jms_textq', 'aquser.jms_qt');
        CALL dbms_aqadm.start_queue('aquser.jms_textq');
        CALL dbms_aqadm.create_queue_table('aquser.map_qt', 'SYS.AQ$_JMS_MAP_MESSAGE', multiple_consumers => true);
        CALL dbms_aqadm.create_queue('aquser.jms_map_topic', 'aquser.map_qt');
        CALL dbms_aqadm.start_queue('aquser.jms_map_topic');
    """)
    return roles


prepared("gw", _gw_schema)


@pytest.fixture
async def gw(db_dsn: str, prepared_value: list[str]) -> AsyncIterator[tuple[str, list[str]]]:
    async with running_gateway(db_dsn, session_timeout=2.0, max_wait=10.0) as url:
        yield url, prepared_value


async def test_example_17_1_send_then_receive(gw: tuple[str, list[str]]) -> None:
    url, _ = gw
    c = Client(url, "john", "secret")
    try:
        r = await c.post(ex.EXAMPLE_17_1.encode())
        assert r.status == 200, r.body
        assert r.text("//aq:status_code") == ["0"]
        assert r.text("//aq:send_result/aq:destination") == ["QS.NEW_ORDERS_QUE"]
        [mid] = r.text("//aq:send_result/aq:message_id")
        assert len(mid) == 32
        r = await c.post(envelope(op("AQXmlCommit", "")))
        assert r.text("//aq:status_code") == ["0"]
        r = await c.post(ex.EXAMPLE_17_7.encode())
        assert r.status == 200, r.body
        assert r.text("//aq:message_id") == [mid]
        assert r.text("//aq:correlation") == ["ORDER1"]
        assert r.text("//aq:CUSTOMER/aq:NAME") == ["AMERICAN EXPRESS"] or \
            r.text("//*[local-name()='CUSTOMER']/*[local-name()='NAME']") == ["AMERICAN EXPRESS"]
        titles = r.text("//*[local-name()='ITEMS_ITEM']/*[local-name()='ITEM']/*[local-name()='TITLE']")
        assert titles == ["Perl", "XML"]
    finally:
        await c.close()


async def test_publish_and_receive_multi_consumer(gw: tuple[str, list[str]]) -> None:
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(ex.EXAMPLE_17_6.encode())  # publish + AQXmlCommit
        assert r.status == 200, r.body
        r = await c.post(ex.EXAMPLE_17_10.encode())  # receive with condition deptno=60
        assert r.status == 200, r.body
        assert r.text("//*[local-name()='ENAME']") == ["Mary"]
        assert r.text("//*[local-name()='HIREDATE']") == ["1996-01-01 0:0:0"]
    finally:
        await c.close()


async def test_raw_and_jms_examples(gw: tuple[str, list[str]]) -> None:
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        for doc in (ex.EXAMPLE_17_5, ex.EXAMPLE_17_3, ex.EXAMPLE_17_4):
            r = await c.post(doc.encode())
            assert r.status == 200, r.body
        await c.post(envelope(op("AQXmlCommit", "")))
        r = await c.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.RAW_MSGQ</destination><wait_time>0</wait_time>"
            "</consumer_options><AQXmlCommit/>")))
        raw = r.text("//*[local-name()='RAW' or local-name()='raw']")[0]
        assert raw.startswith("0426C6F622064617461")  # odd digit count: read as HEXTORAW does
        r = await c.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.JMS_TEXTQ</destination><wait_time>0</wait_time>"
            "</consumer_options><AQXmlCommit/>")))
        assert r.text("//*[local-name()='text_data']") == ["All things bright and beautiful"]
        r = await c.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.JMS_MAP_TOPIC</destination>"
            "<consumer_name>SCOTT</consumer_name><wait_time>0</wait_time>"
            "</consumer_options><AQXmlCommit/>")))
        assert "20000" in r.text("//*[local-name()='int_value']")
    finally:
        await c.close()


async def test_rollback_and_session_transaction(gw: tuple[str, list[str]], conn: asyncpg.Connection) -> None:
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(ex.EXAMPLE_17_5.encode())
        assert r.status == 200
        # not committed: invisible to others
        assert await conn.fetchval("SELECT count(*) FROM aquser.raw_qt") == 0
        r = await c.post(ex.EXAMPLE_17_15.encode())  # rollback
        assert r.text("//aq:status_code") == ["0"]
        r = await c.post(ex.EXAMPLE_17_5.encode())
        r = await c.post(ex.EXAMPLE_17_14.encode())  # commit
        assert await conn.fetchval("SELECT count(*) FROM aquser.raw_qt") == 1
    finally:
        await c.close()


async def test_session_timeout_rolls_back(gw: tuple[str, list[str]], conn: asyncpg.Connection) -> None:
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        await c.post(ex.EXAMPLE_17_5.encode())
        await c.post(ex.EXAMPLE_17_14.encode())
        r = await c.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.RAW_MSGQ</destination><wait_time>0</wait_time>"
            "</consumer_options>")))
        assert r.status == 200
        # the idle session's transaction is rolled back by the reaper: the message comes back
        # with one failed attempt (wait for it through LISTEN on the queue's channel)
        qid = await conn.fetchval("SELECT id FROM aq.queues WHERE queue_name = 'raw_msgq'")
        woke = asyncio.get_running_loop().create_future()
        await conn.add_listener(f"aq_{qid}", lambda *_: None if woke.done() else woke.set_result(True))
        await conn.execute("SELECT aq.register_waiter($1)", qid)  # notify me, I wait
        # (the reaper may have come before the registration: then its work shows already)
        if await conn.fetchval("SELECT retry_count FROM aquser.raw_qt") != 1:
            await asyncio.wait_for(woke, 15)
        assert await conn.fetchval("SELECT retry_count FROM aquser.raw_qt") == 1
        # the client's commit with the expired cookie is told its work was rolled back
        r = await c.post(ex.EXAMPLE_17_14.encode())
        assert r.status == 500 and b"ORA-25402" in r.body and b"Client" in r.body
        assert await conn.fetchval("SELECT count(*) FROM aquser.raw_qt WHERE state = 0") == 1
        # told once: the next request starts afresh
        r = await c.post(ex.EXAMPLE_17_14.encode())
        assert r.status == 200
    finally:
        await c.close()


async def test_blocking_receive_is_woken(gw: tuple[str, list[str]]) -> None:
    url, _ = gw
    waiter, sender = Client(url, "JOHN", "secret"), Client(url, "JOHN", "secret")
    try:
        receive = asyncio.create_task(waiter.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.RAW_MSGQ</destination><wait_time>8</wait_time>"
            "</consumer_options><AQXmlCommit/>"))))
        # synchronise on the gateway's own gauge: the receive is blocked in its wait
        metrics = url.split("/aqserv")[0] + "/metrics"
        deadline = asyncio.get_running_loop().time() + 30  # a loaded machine can be slow to get there
        while True:
            async with sender.http.get(metrics) as m:
                if "pgaq_gateway_waiting_receivers 1.0" in await m.text():
                    break
            if asyncio.get_running_loop().time() > deadline or receive.done():
                raise AssertionError("the receive never started waiting")
        r = await sender.post(envelope(op("AQXmlSend",
            "<producer_options><destination>AQUSER.RAW_MSGQ</destination></producer_options>"
            "<message_set><message><message_header><sender_id><agent_name>x</agent_name>"
            "</sender_id></message_header><message_payload><RAW>CAFE</RAW></message_payload>"
            "</message></message_set><AQXmlCommit/>")))
        assert r.status == 200, r.body
        got = await asyncio.wait_for(receive, 5)
        assert got.text("//*[local-name()='RAW']") == ["CAFE"]
    finally:
        await waiter.close()
        await sender.close()


BAD = [
    ("malformed", b"<Envelope", "text/xml", 500),
    ("dtd", b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><Envelope/>', "text/xml", 500),
    ("wrong envelope ns", b'<Envelope xmlns="http://ns.oracle.com/AQ/schemas/envelope"><Body/></Envelope>', "text/xml", 500),
    ("unknown op", envelope('<AQXmlFrobnicate xmlns="http://ns.oracle.com/AQ/schemas/access"/>'), "text/xml", 500),
    ("media type", envelope(op("AQXmlCommit", "")), "application/json", 415),
]


@pytest.mark.parametrize(("name", "doc", "ctype", "status"), BAD, ids=[b[0] for b in BAD])
async def test_bad_documents(gw: tuple[str, list[str]], name: str, doc: bytes, ctype: str, status: int) -> None:
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(doc, content_type=ctype)
        assert r.status == status, r.body
        if status == 500:  # a SOAP Fault (SOAP 1.1 6.2), a Client one
            assert r.fault is not None and b"SOAP-ENV:Client" in r.body
    finally:
        await c.close()


def send(dest: str, payload: str, op_name: str = "AQXmlSend", extra: str = "") -> bytes:
    return envelope(op(op_name,
        f"<producer_options><destination>{dest}</destination></producer_options>"
        f"<message_set><message><message_header>{extra}<sender_id><agent_name>x</agent_name>"
        f"</sender_id></message_header><message_payload>{payload}</message_payload></message>"
        "</message_set>"))


CLIENT_FAULTS = [
    ("unknown queue", send("AQUSER.NOPE", "<RAW>00</RAW>"), "24010"),
    ("send to multi", send("AQUSER.EMP_TOPIC", "<EMP_TYP><EMPNO>1</EMPNO></EMP_TYP>"), "24039"),
    ("publish to single", send("AQUSER.RAW_MSGQ", "<RAW>00</RAW>", "AQXmlPublish"), "24039"),
    ("bad hex", send("AQUSER.RAW_MSGQ", "<RAW>XYZ</RAW>"), None),
    ("wrong payload", send("AQUSER.RAW_MSGQ", "<EMP_TYP><EMPNO>1</EMPNO></EMP_TYP>"), None),
    ("number out of range", send("AQUSER.RAW_MSGQ", "<RAW>00</RAW>", extra="<priority>99999999999</priority>"), None),
    ("metachars in destination", send("AQUSER.RAW_MSGQ'; DROP TABLE x; --", "<RAW>00</RAW>"), "25200"),
    ("consumer on single", envelope(op("AQXmlReceive",
        "<consumer_options><destination>AQUSER.RAW_MSGQ</destination><consumer_name>A</consumer_name>"
        "<wait_time>0</wait_time></consumer_options>")), "24039"),
    ("condition syntax", envelope(op("AQXmlReceive",
        "<consumer_options><destination>AQUSER.EMP_TOPIC</destination><consumer_name>APP1</consumer_name>"
        "<wait_time>0</wait_time><selector><condition>tab.user_data.deptno = = 1</condition></selector>"
        "</consumer_options>")), "936"),
    ("condition injection", envelope(op("AQXmlReceive",
        "<consumer_options><destination>AQUSER.EMP_TOPIC</destination><consumer_name>APP1</consumer_name>"
        "<wait_time>0</wait_time><selector><condition>1=1; DROP TABLE aquser.emp_qt</condition></selector>"
        "</consumer_options>")), "936"),
]


@pytest.mark.parametrize(("name", "doc", "code"), CLIENT_FAULTS, ids=[c[0] for c in CLIENT_FAULTS])
async def test_client_faults(gw: tuple[str, list[str]], conn: asyncpg.Connection,
                             name: str, doc: bytes, code: str | None) -> None:
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(doc)
        assert r.status == 500, r.body
        assert r.fault is not None
        assert b"SOAP-ENV:Client" in r.body
        if code is not None:
            assert r.error_code == code, r.body
        # the session is still usable and nothing was enqueued
        r = await c.post(envelope(op("AQXmlCommit", "")))
        assert r.status == 200
        assert await conn.fetchval("SELECT count(*) FROM aquser.raw_qt") == 0
        assert await conn.fetchval("SELECT to_regclass('aquser.emp_qt') IS NOT NULL")
    finally:
        await c.close()


async def test_message_set_is_all_or_nothing(gw: tuple[str, list[str]], conn: asyncpg.Connection) -> None:
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    msgs = "".join(
        f"<message><message_number>{i}</message_number><message_header><sender_id><agent_name>x"
        f"</agent_name></sender_id></message_header><message_payload><RAW>{h}</RAW>"
        "</message_payload></message>" for i, h in ((1, "01"), (2, "02"), (3, "ZZ")))
    try:
        r = await c.post(envelope(op("AQXmlSend",
            "<producer_options><destination>AQUSER.RAW_MSGQ</destination></producer_options>"
            f"<message_set><message_count>3</message_count>{msgs}</message_set><AQXmlCommit/>")))
        assert r.status == 500
        assert await conn.fetchval("SELECT count(*) FROM aquser.raw_qt") == 0
    finally:
        await c.close()


async def test_authentication_and_authorisation(gw: tuple[str, list[str]], conn: asyncpg.Connection) -> None:
    url, _ = gw
    anon = Client(url, "JOHN", "secret")
    wrong = Client(url, "JOHN", "nope")
    try:
        assert (await anon.post(ex.EXAMPLE_17_14.encode(), auth=False)).status == 401
        r = await wrong.post(ex.EXAMPLE_17_14.encode())
        assert r.status == 401
    finally:
        await anon.close()
        await wrong.close()
    # an agent whose database user may not use the queue gets a Client fault
    others = await make_agent(conn, "MALLORY", "pw", ("nobody",))
    m = Client(url, "MALLORY", "pw")
    try:
        r = await m.post(ex.EXAMPLE_17_5.encode())
        assert r.status == 500 and r.error_code == "1031", r.body
    finally:
        await m.close()
        await drop_roles(conn, others)


async def test_foreign_cookie_refused(gw: tuple[str, list[str]], conn: asyncpg.Connection) -> None:
    url, _ = gw
    others = await make_agent(conn, "EVE", "pw", ("eve",))
    john, eve = Client(url, "JOHN", "secret"), Client(url, "EVE", "pw")
    try:
        r = await john.post(ex.EXAMPLE_17_1.encode())  # opens a transaction: a session
        assert r.status == 200, r.body
        cookie = next(iter(john.http.cookie_jar)).value
        r = await eve.post(ex.EXAMPLE_17_14.encode(), headers={"Cookie": f"JSESSIONID={cookie}"})
        assert r.status == 500 and r.fault is not None
    finally:
        await john.close()
        await eve.close()
        await drop_roles(conn, others)


async def test_form_encoded_and_status_page(gw: tuple[str, list[str]]) -> None:
    from urllib.parse import urlencode

    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(urlencode({"aqxmldoc": ex.EXAMPLE_17_14}).encode(),
                         content_type="application/x-www-form-urlencoded")
        assert r.status == 200 and r.text("//aq:status_code") == ["0"]
        async with c.http.get(url) as resp:
            assert resp.status == 200 and "IDAP" in await resp.text()
    finally:
        await c.close()


async def test_soapaction_optional_and_toolkit_style(gw: tuple[str, list[str]],
                                                    conn: asyncpg.Connection) -> None:
    """SOAPAction / SOAPMethodName are accepted and not needed; the prefixed style of SOAP
    toolkits (payload in no namespace) and an AQXmlCommit with whitespace inside work; the
    9.0.1 envelope namespace is a Client fault with an error_code."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    toolkit = (
        b'<soap-env:Envelope xmlns:soap-env="http://schemas.xmlsoap.org/soap/envelope/">'
        b'<soap-env:Body><ns0:AQXmlSend xmlns:ns0="http://ns.oracle.com/AQ/schemas/access">'
        b"<ns0:producer_options><ns0:destination>aquser.Raw_MsgQ</ns0:destination>"
        b"</ns0:producer_options><ns0:message_set><ns0:message><ns0:message_header>"
        b"<ns0:sender_id/></ns0:message_header><ns0:message_payload><RAW>ABCD</RAW>"
        b"</ns0:message_payload></ns0:message></ns0:message_set><ns0:AQXmlCommit>\n  "
        b"</ns0:AQXmlCommit></ns0:AQXmlSend></soap-env:Body></soap-env:Envelope>")
    try:
        for headers in ({}, {"SOAPAction": '"AQXmlSend"'}, {"SOAPMethodName": "AQXmlSend"}):
            r = await c.post(toolkit, headers=headers)
            assert r.status == 200 and r.text("//aq:status_code") == ["0"], r.body
        assert await conn.fetchval("SELECT count(*) FROM aquser.raw_qt") == 3
        old = ex.EXAMPLE_17_14.replace("http://schemas.xmlsoap.org/soap/envelope/",
                                       "http://ns.oracle.com/AQ/schemas/envelope")
        r = await c.post(old.encode(), headers={"SOAPAction": "AQXmlCommit"})
        assert r.status == 500 and b"SOAP-ENV:Client" in r.body, r.body
        assert r.text("//aq:status_code") == ["-1"] and (r.error_code or "").isdigit(), r.body
    finally:
        await c.close()


async def test_zeep_client_from_served_wsdl(gw: tuple[str, list[str]]) -> None:
    zeep = pytest.importorskip("zeep")
    import requests
    from zeep.transports import Transport

    url, _ = gw

    def operations() -> list[str]:
        http = requests.Session()
        http.auth = ("JOHN", "secret")
        client = zeep.Client(f"{url}?wsdl", transport=Transport(session=http))
        return sorted(name for name, _ in client.service)  # zeep's ServiceProxy: (name, operation)

    assert await asyncio.to_thread(operations) == [
        "AQXmlCommit", "AQXmlPublish", "AQXmlReceive", "AQXmlRegister", "AQXmlRollback", "AQXmlSend"]


async def test_zeep_send_and_receive(gw: tuple[str, list[str]]) -> None:
    zeep = pytest.importorskip("zeep")
    import requests
    from lxml import etree
    from zeep.transports import Transport

    url, _ = gw

    def roundtrip() -> Any:
        http = requests.Session()
        http.auth = ("JOHN", "secret")
        client = zeep.Client(f"{url}?wsdl", transport=Transport(session=http))
        raw = etree.Element("RAW")
        raw.text = "CAFEBABE"
        sent = client.service.AQXmlSend(
            producer_options={"destination": "AQUSER.RAW_MSGQ"},
            message_set={"message_count": 1, "message": [{
                "message_number": 1,
                "message_header": {"correlation": "zeep", "sender_id": {"agent_name": "z"}},
                "message_payload": {"_value_1": [raw]},
            }]},
            AQXmlCommit={},
        )
        assert sent.status_response.status_code == "0"
        return client.service.AQXmlReceive(
            consumer_options={"destination": "AQUSER.RAW_MSGQ", "wait_time": 0}, AQXmlCommit={})

    reply = await asyncio.to_thread(roundtrip)
    assert reply.status_response.status_code == "0"
    result = reply.receive_result
    assert result.destination._value_1 == "AQUSER.RAW_MSGQ"  # a simple value with an attribute
    [message_set] = result.message_set
    [message] = message_set.message
    assert message.message_header.correlation == "zeep"
    assert len(message.message_header.message_id) == 32
    [raw_out] = message.message_payload._value_1
    assert raw_out.text == "CAFEBABE"


async def test_transaction_limit_answers_at_once(conn: asyncpg.Connection, db_dsn: str) -> None:
    roles = await make_agent(conn, "LIMITED", "pw", ("lim",))
    await conn.execute(f'CREATE SCHEMA s AUTHORIZATION "{roles[0]}"')
    await conn.execute("CALL dbms_aqadm.create_queue_table('s.qt', 'RAW');"
                       "CALL dbms_aqadm.create_queue('s.q', 's.qt'); CALL dbms_aqadm.start_queue('s.q')")
    doc = envelope(op("AQXmlSend",
        "<producer_options><destination>s.q</destination></producer_options><message_set><message>"
        "<message_header><sender_id/></message_header><message_payload><RAW>00</RAW>"
        "</message_payload></message></message_set>"))
    try:
        async with running_gateway(db_dsn, max_transactions=2) as url:
            clients = [Client(url, "LIMITED", "pw") for _ in range(3)]
            try:
                assert (await clients[0].post(doc)).status == 200
                assert (await clients[1].post(doc)).status == 200
                r = await asyncio.wait_for(clients[2].post(doc), 5)
                assert r.status == 500 and "too many open transactional sessions" in (r.fault or "")
                await clients[0].post(envelope(op("AQXmlCommit", "")))
                assert (await clients[2].post(doc)).status == 200
            finally:
                for c in clients:
                    await c.close()
    finally:
        await drop_roles(conn, roles)


async def test_stylesheet_alias_and_register(conn: asyncpg.Connection, db_dsn: str) -> None:
    roles = await make_agent(conn, "ALICE", "pw", ("al",))
    await conn.execute(f'CREATE SCHEMA s AUTHORIZATION "{roles[0]}"')
    await conn.execute("""
        CALL dbms_aqadm.create_queue_table('s.qt', 'RAW', multiple_consumers => true);
        CALL dbms_aqadm.create_queue('s.topic', 's.qt'); CALL dbms_aqadm.start_queue('s.topic');
        CALL dbms_aqadm.add_subscriber('s.topic', sys.aq$_agent('APP1', NULL, NULL));
        CALL dbms_aqadm.add_alias_to_ldap('cn=orders', 's.topic');
        CALL dbms_aqadm.add_agent_alias('cn=boss', sys.aq$_agent('APP1', NULL, NULL));
    """)
    try:
        async with running_gateway(db_dsn, stylesheet="/aq.xsl") as url:
            c = Client(url, "ALICE", "pw")
            try:
                r = await c.post(envelope(op("AQXmlPublish",
                    "<producer_options><destination lookup_type='LDAP'>cn=orders</destination>"
                    "</producer_options><message_set><message><message_header><sender_id/>"
                    "<recipient_list><recipient><agent_alias>cn=boss</agent_alias></recipient>"
                    "</recipient_list></message_header><message_payload><RAW>01</RAW>"
                    "</message_payload></message></message_set><AQXmlCommit/>")))
                assert r.status == 200, r.body
                assert b'<?xml-stylesheet type="text/xsl" href="/aq.xsl"?>' in r.body
                r = await c.post(envelope(op("AQXmlRegister",
                    "<register_options><destination>S.TOPIC</destination><consumer_name>APP1"
                    "</consumer_name><notify_url>mailto:app1@example.com</notify_url>"
                    "</register_options><AQXmlCommit/>")))
                assert r.status == 200, r.body
                r = await c.post(envelope(op("AQXmlRegister",
                    "<register_options><destination>S.TOPIC</destination><consumer_name>APP1"
                    "</consumer_name><notify_url>gopher://x</notify_url></register_options>")))
                assert r.status == 500 and r.error_code == "24940"
            finally:
                await c.close()
        row = await conn.fetchrow("SELECT consumer_name, notify_url, agent_name FROM aq.registrations")
        assert tuple(row) == ("APP1", "mailto:app1@example.com", "ALICE")
        assert await conn.fetchval("SELECT count(*) FROM s.aq$qt WHERE consumer_name = 'APP1'") == 1
    finally:
        await drop_roles(conn, roles)


async def test_agent_aliases_in_reply_to_and_sender(gw: tuple[str, list[str]],
                                                    conn: asyncpg.Connection) -> None:
    """agent_alias in a JMS reply_to (and in sender_id) is resolved through the directory,
    as Oracle resolves it through LDAP; an unknown alias is a Client fault and nothing is
    enqueued."""
    url, _ = gw
    await conn.execute("CALL dbms_aqadm.add_agent_alias('cn=replies', "
                       "sys.aq$_agent('oracle', 'redwoodshores', 100))")
    await conn.execute("CALL dbms_aqadm.add_agent_alias('cn=scott', sys.aq$_agent('scott', NULL, NULL))")

    def text_message(reply_alias: str) -> bytes:
        return envelope(op("AQXmlSend",
            "<producer_options><destination>AQUSER.JMS_TEXTQ</destination></producer_options>"
            "<message_set><message><message_header><sender_id><agent_alias>cn=scott</agent_alias>"
            "</sender_id></message_header><message_payload><jms_text_message>"
            f"<oracle_jms_properties><reply_to><agent_alias>{reply_alias}</agent_alias></reply_to>"
            "</oracle_jms_properties><text_data>hi</text_data></jms_text_message>"
            "</message_payload></message></message_set><AQXmlCommit/>"))

    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(text_message("cn=nobody"))
        assert r.status == 500 and r.error_code == "24047" and b"SOAP-ENV:Client" in r.body, r.body
        assert await conn.fetchval("SELECT count(*) FROM aquser.jms_qt") == 0
        r = await c.post(text_message("cn=replies"))
        assert r.status == 200, r.body
        r = await c.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.JMS_TEXTQ</destination><wait_time>0</wait_time>"
            "</consumer_options><AQXmlCommit/>")))
        assert r.status == 200, r.body
        # the directory keeps agent names as subscriber keys (upper case, as AQ compares them)
        assert r.text("//aq:reply_to/aq:agent_name") == ["ORACLE"]
        assert r.text("//aq:reply_to/aq:address") == ["redwoodshores"]
        assert r.text("//aq:reply_to/aq:protocol") == ["100"]
        assert r.text("//aq:message_header/aq:sender_id/aq:agent_name") == ["SCOTT"]
    finally:
        await c.close()
        await conn.execute("CALL dbms_aqadm.del_alias_from_ldap('cn=replies')")
        await conn.execute("CALL dbms_aqadm.del_alias_from_ldap('cn=scott')")


async def test_delayed_send_wakes_a_blocked_receive(gw: tuple[str, list[str]], db_dsn: str) -> None:
    """Issue 4's scenario over IDAP: <delay> hides the message, the monitor wakes the waiter."""
    from pgaq.listener import Listener
    from pgaq.monitor import Monitor, MonitorSettings

    url, _ = gw
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=2)
    listener = Listener(db_dsn)
    await listener.start()
    stop = asyncio.Event()
    monitor = asyncio.create_task(Monitor(pool, listener, MonitorSettings(safety_poll=30)).run(stop))
    sender, waiter = Client(url, "JOHN", "secret"), Client(url, "JOHN", "secret")
    try:
        r = await sender.post(envelope(op("AQXmlSend",
            "<producer_options><destination>AQUSER.RAW_MSGQ</destination></producer_options>"
            "<message_set><message><message_header><delay>2</delay><sender_id/></message_header>"
            "<message_payload><RAW>0D</RAW></message_payload></message></message_set><AQXmlCommit/>")))
        assert r.status == 200, r.body
        sent = asyncio.get_running_loop().time()
        r = await waiter.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.RAW_MSGQ</destination><wait_time>0</wait_time>"
            "</consumer_options>")))
        assert r.text("//aq:message_count") == ["0"]  # invisible while delayed
        r = await waiter.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.RAW_MSGQ</destination><wait_time>10</wait_time>"
            "</consumer_options><AQXmlCommit/>")))
        waited = asyncio.get_running_loop().time() - sent
        assert r.text("//*[local-name()='RAW']") == ["0D"]
        assert 1.5 < waited < 4.0
    finally:
        await sender.close()
        await waiter.close()
        stop.set()
        await monitor
        await listener.close()
        await pool.close()


async def test_hooks_run_inside_the_transaction(gw: tuple[str, list[str]], conn: asyncpg.Connection, db_dsn: str) -> None:
    await conn.execute("CREATE TABLE public.audit (agent text, op text, phase text)")
    await conn.execute("GRANT INSERT ON public.audit TO PUBLIC")
    async with running_gateway(db_dsn, hooks=["tests.integration.gateway_hooks:audit"]) as url:
        c = Client(url, "JOHN", "secret")
        try:
            await c.post(ex.EXAMPLE_17_5.encode())
            await c.post(ex.EXAMPLE_17_15.encode())  # rollback: the audit rows go too
            assert await conn.fetchval("SELECT count(*) FROM public.audit") == 0
            await c.post(ex.EXAMPLE_17_5.encode())
            await c.post(ex.EXAMPLE_17_14.encode())
        finally:
            await c.close()
    rows = [tuple(r) for r in await conn.fetch("SELECT agent, op, phase FROM public.audit")]
    assert ("JOHN", "AQXmlSend", "before") in rows and ("JOHN", "AQXmlSend", "after") in rows


async def test_hooks_see_every_operation_commit_and_rollback(
        gw: tuple[str, list[str]], conn: asyncpg.Connection, db_dsn: str) -> None:
    """before/after for every operation, explicit or piggybacked commit and rollback
    included: `before` and the operation's `after` on the transaction's connection, the
    commit's or rollback's `after` with none (the transaction has ended)."""
    from . import gateway_hooks as hooks

    hooks.CALLS.clear()
    async with running_gateway(db_dsn, hooks=["tests.integration.gateway_hooks:record"]) as url:
        c = Client(url, "JOHN", "secret")
        try:
            assert (await c.post(ex.EXAMPLE_17_5.encode())).status == 200
            assert (await c.post(ex.EXAMPLE_17_15.encode())).status == 200  # rollback
            r = await c.post(ex.EXAMPLE_17_5.replace("</message_set>", "</message_set><AQXmlCommit/>")
                             .encode())
            assert r.status == 200, r.body
            assert (await c.post(ex.EXAMPLE_17_14.encode())).status == 200  # nothing to commit
            r = await c.post(envelope(op("AQXmlReceive",
                "<consumer_options><destination>AQUSER.RAW_MSGQ</destination><wait_time>0</wait_time>"
                "</consumer_options><AQXmlCommit/>")))
            assert r.text("//aq:message_count") == ["1"], r.body
        finally:
            await c.close()
    tx = ("JOHN", True, True)
    ended = ("JOHN", False, False)
    assert hooks.CALLS == [
        ("before", "AQXmlSend", *tx), ("after", "AQXmlSend", *tx),
        ("before", "AQXmlRollback", *tx), ("after", "AQXmlRollback", *ended),
        ("before", "AQXmlSend", *tx), ("after", "AQXmlSend", *tx),
        ("before", "AQXmlCommit", *tx), ("after", "AQXmlCommit", *ended),
        ("before", "AQXmlCommit", *ended), ("after", "AQXmlCommit", *ended),
        ("before", "AQXmlReceive", *tx), ("after", "AQXmlReceive", *tx),
        ("before", "AQXmlCommit", *tx), ("after", "AQXmlCommit", *ended),
    ]


async def test_a_failing_hook_rolls_back(gw: tuple[str, list[str]], conn: asyncpg.Connection,
                                         db_dsn: str) -> None:
    """A hook failing before the outcome is final: Server fault, the transaction rolled
    back. After a commit the outcome stands: the failure is logged, the answer is success."""
    from . import gateway_hooks as hooks

    raw_count = "SELECT count(*) FROM aquser.raw_qt"
    async with running_gateway(db_dsn, hooks=["tests.integration.gateway_hooks:fail"]) as url:
        c = Client(url, "JOHN", "secret")
        try:
            hooks.FAIL_ON.clear()
            hooks.FAIL_ON.add(("after", "AQXmlSend"))
            r = await c.post(ex.EXAMPLE_17_5.encode())
            assert r.status == 500 and r.error_code == "600" and b"SOAP-ENV:Server" in r.body, r.body
            assert (await c.post(ex.EXAMPLE_17_14.encode())).status == 200
            assert await conn.fetchval(raw_count) == 0
            hooks.FAIL_ON.clear()
            hooks.FAIL_ON.add(("before", "AQXmlCommit"))
            assert (await c.post(ex.EXAMPLE_17_5.encode())).status == 200
            r = await c.post(ex.EXAMPLE_17_14.encode())
            assert r.status == 500 and r.error_code == "600", r.body
            assert await conn.fetchval(raw_count) == 0
            hooks.FAIL_ON.clear()
            hooks.FAIL_ON.add(("after", "AQXmlCommit"))
            assert (await c.post(ex.EXAMPLE_17_5.encode())).status == 200
            r = await c.post(ex.EXAMPLE_17_14.encode())
            assert r.status == 200 and r.text("//aq:status_code") == ["0"], r.body
            assert await conn.fetchval(raw_count) == 1
        finally:
            hooks.FAIL_ON.clear()
            await c.close()


async def test_hook_context_reads_the_request_and_styles_one_response(
        gw: tuple[str, list[str]], conn: asyncpg.Connection, db_dsn: str) -> None:
    """Oracle's AQxmlCallbackContext: a hook taking `call` gets the parsed request (its own
    copy), the HTTP headers without Authorization, and sets the stylesheet of this one
    response, success or Fault, in place of the servlet's (example 17-31)."""
    from . import gateway_hooks as hooks

    hooks.CONTEXT.clear()
    hooks.STYLE.clear()
    hooks.STYLE[("after", "AQXmlSend")] = ("http://sheets.example/send.xsl", "text/xsl")
    hooks.STYLE[("before", "AQXmlReceive")] = ("/sheets/recv.css", "text/css")
    receive = envelope(op("AQXmlReceive",
        "<consumer_options><destination>AQUSER.RAW_MSGQ</destination><wait_time>0</wait_time>"
        "</consumer_options><AQXmlCommit/>"))
    hooks.FAIL_ON.clear()
    async with running_gateway(db_dsn, hooks=["tests.integration.gateway_hooks:context",
                                              "tests.integration.gateway_hooks:fail"],
                               stylesheet="/servlet.xsl") as url:
        c = Client(url, "JOHN", "secret")
        try:
            r = await c.post(ex.EXAMPLE_17_5.encode(), headers={"User-Agent": "idap-client/1"})
            assert r.status == 200, r.body
            assert b'<?xml-stylesheet type="text/xsl" href="http://sheets.example/send.xsl"?>' in r.body
            assert b"/servlet.xsl" not in r.body
            assert r.text("//aq:message_id")  # the hook's clear() of its copy changed nothing
            r = await c.post(ex.EXAMPLE_17_14.encode())  # a commit: the servlet's stylesheet
            assert b'<?xml-stylesheet type="text/xsl" href="/servlet.xsl"?>' in r.body, r.body
            # a rollback's own hook chooses its response's stylesheet
            hooks.STYLE[("before", "AQXmlRollback")] = ("/rollback.xsl", "text/xsl")
            assert (await c.post(ex.EXAMPLE_17_5.encode())).status == 200
            r = await c.post(ex.EXAMPLE_17_15.encode())
            assert b'<?xml-stylesheet type="text/xsl" href="/rollback.xsl"?>' in r.body, r.body
            # a Fault after the hook chose (a later hook fails): the Fault has its stylesheet
            hooks.FAIL_ON.add(("after", "AQXmlReceive"))
            r = await c.post(receive)
            assert r.status == 500 and r.error_code == "600", r.body
            assert b'<?xml-stylesheet type="text/css" href="/sheets/recv.css"?>' in r.body
            hooks.FAIL_ON.clear()
            # the failed receive was rolled back: the message is there (for a new session;
            # this one's NEXT_MESSAGE position is already past it, as in AQ)
            c2 = Client(url, "JOHN", "secret")
            try:
                r = await c2.post(receive)
            finally:
                await c2.close()
            assert r.text("//aq:message_count") == ["1"], r.body
            assert b'<?xml-stylesheet type="text/css" href="/sheets/recv.css"?>' in r.body
            # a Fault before any hook ran: the servlet's stylesheet
            r = await c.post(receive.replace(b"AQUSER.RAW_MSGQ", b"AQUSER.NO_SUCH_QUEUE"))
            assert r.status == 500, r.body
            assert b'<?xml-stylesheet type="text/xsl" href="/servlet.xsl"?>' in r.body
            # a stylesheet a PI cannot carry: the hook fails, the send is rolled back
            hooks.STYLE[("after", "AQXmlSend")] = ('x"?><evil/>', "text/xsl")
            count = await conn.fetchval("SELECT count(*) FROM aquser.raw_qt")
            r = await c.post(ex.EXAMPLE_17_5.replace("</message_set>", "</message_set><AQXmlCommit/>")
                             .encode())
            assert r.status == 500 and r.error_code == "600", r.body
            assert b"evil" not in r.body
            assert await conn.fetchval("SELECT count(*) FROM aquser.raw_qt") == count
        finally:
            hooks.STYLE.clear()
            hooks.FAIL_ON.clear()
            await c.close()
    sends = [x for x in hooks.CONTEXT if x[1] == "AQXmlSend"]
    assert sends[0] == ("before", "AQXmlSend", "AQUSER.RAW_MSGQ", "idap-client/1", False)
    assert all(not seen_auth for *_, seen_auth in hooks.CONTEXT)
    assert ("before", "AQXmlReceive", "AQUSER.NO_SUCH_QUEUE") not in [x[:3] for x in hooks.CONTEXT]


async def test_client_disconnect_ends_the_wait(gw: tuple[str, list[str]]) -> None:
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    metrics = url.split("/aqserv")[0] + "/metrics"
    try:
        task = asyncio.create_task(c.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.RAW_MSGQ</destination><wait_time>60</wait_time>"
            "</consumer_options>"))))
        probe = Client(url, "JOHN", "secret")
        try:
            async def waiting() -> float:
                async with probe.http.get(metrics) as m:
                    for line in (await m.text()).splitlines():
                        if line.startswith("pgaq_gateway_waiting_receivers "):
                            return float(line.split()[1])
                return 0.0

            for _ in range(500):
                if await waiting() == 1.0:
                    break
            task.cancel()  # the client goes away
            await c.close()
            for _ in range(500):
                if await waiting() == 0.0:
                    break
            else:
                raise AssertionError("the wait did not end with the client")
        finally:
            await probe.close()
    finally:
        await c.close()


RAW_RECEIVE = envelope(op("AQXmlReceive",
    "<consumer_options><destination>AQUSER.RAW_MSGQ</destination><wait_time>0</wait_time>"
    "<batch_size>100</batch_size></consumer_options><AQXmlCommit/>"))


@pytest.mark.parametrize("fastpath", [True, False], ids=["fast path", "aiohttp"])
async def test_a_receive_whose_client_goes_mid_statement_takes_nothing(
        gw: tuple[str, list[str]], db_dsn: str, conn: asyncpg.Connection,
        caplog: pytest.LogCaptureFixture, fastpath: bool) -> None:
    """An autocommit receive whose client disconnects while its dequeue runs on the
    server (held by a lock on the queue table) leaves the message in the queue: the
    next receive gets it. Over either transport: each cancels the request's handler."""
    caplog.set_level(logging.INFO, logger="pgaq.gateway.access")
    async with contextlib.AsyncExitStack() as stack:
        url = gw[0] if fastpath else await stack.enter_async_context(
            running_gateway(db_dsn, session_timeout=2.0, max_wait=10.0, fastpath=False))
        c = Client(url, "JOHN", "secret")
        stack.push_async_callback(c.close)
        r = await c.post(envelope(op("AQXmlSend",
            "<producer_options><destination>AQUSER.RAW_MSGQ</destination></producer_options>"
            "<message_set><message><message_header><sender_id/></message_header>"
            "<message_payload><RAW>0D0E</RAW></message_payload></message></message_set>"
            "<AQXmlCommit/>")))
        [sent] = r.text("//aq:message_id")
        blocker = await asyncpg.connect(db_dsn)
        stack.push_async_callback(blocker.close)
        await blocker.execute("BEGIN")
        await blocker.execute("LOCK TABLE aquser.raw_qt IN EXCLUSIVE MODE")
        gone = Client(url, "JOHN", "secret")
        receive = asyncio.create_task(gone.post(RAW_RECEIVE))
        await until(lambda: conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND datname = current_database()"), "the receive's dequeue waiting on the lock")
        receive.cancel()  # the client goes away
        await gone.close()
        await until(lambda: any(rec.__dict__["fields"]["status"] == 499 for rec in caplog.records
                                if rec.name == "pgaq.gateway.access"),
                    "the gateway to see the client gone")
        await blocker.execute("ROLLBACK")  # the dequeue goes on, and returns
        r = await c.post(RAW_RECEIVE)  # (taken after that dequeue: one at a time per queue)
        assert sent in r.text("//aq:message_header/aq:message_id"), r.body


async def test_many_clients_no_loss_no_duplicates(gw: tuple[str, list[str]]) -> None:
    url, _ = gw
    n_clients, per_client = 8, 10

    async def producer(i: int) -> list[str]:
        c = Client(url, "JOHN", "secret")
        ids = []
        try:
            for k in range(per_client):
                r = await c.post(envelope(op("AQXmlSend",
                    "<producer_options><destination>AQUSER.RAW_MSGQ</destination></producer_options>"
                    "<message_set><message><message_header><sender_id/></message_header>"
                    f"<message_payload><RAW>{i:02X}{k:02X}</RAW></message_payload></message>"
                    "</message_set><AQXmlCommit/>")))
                assert r.status == 200, r.body
                ids += r.text("//aq:message_id")
        finally:
            await c.close()
        return ids

    async def consumer() -> list[str]:
        c = Client(url, "JOHN", "secret")
        got: list[str] = []
        try:
            while True:
                r = await c.post(envelope(op("AQXmlReceive",
                    "<consumer_options><destination>AQUSER.RAW_MSGQ</destination><wait_time>1</wait_time>"
                    "<batch_size>3</batch_size></consumer_options><AQXmlCommit/>")))
                ids = r.text("//aq:message_header/aq:message_id")
                if not ids:
                    return got
                got += ids
        finally:
            await c.close()

    sent_lists = await asyncio.gather(*(producer(i) for i in range(n_clients)))
    received = await asyncio.gather(*(consumer() for _ in range(4)))
    sent = sorted(x for xs in sent_lists for x in xs)
    got = sorted(x for xs in received for x in xs)
    assert got == sent and len(set(got)) == n_clients * per_client


async def test_shutdown_rolls_back_open_sessions(conn: asyncpg.Connection, db_dsn: str) -> None:
    roles = await make_agent(conn, "SHUT", "pw", ("sh",))
    await conn.execute(f'CREATE SCHEMA s AUTHORIZATION "{roles[0]}"')
    await conn.execute("CALL dbms_aqadm.create_queue_table('s.qt', 'RAW');"
                       "CALL dbms_aqadm.create_queue('s.q', 's.qt'); CALL dbms_aqadm.start_queue('s.q')")
    await conn.execute("SELECT aq.enqueue_array('s.q', '[{}]', NULL, ARRAY['\\x01'::bytea])")
    try:
        async with running_gateway(db_dsn) as url:
            c = Client(url, "SHUT", "pw")
            try:
                r = await c.post(envelope(op("AQXmlReceive",
                    "<consumer_options><destination>s.q</destination><wait_time>0</wait_time>"
                    "</consumer_options>")))
                assert r.text("//aq:message_count") == ["1"]
                await c.post(envelope(op("AQXmlSend",
                    "<producer_options><destination>s.q</destination></producer_options><message_set>"
                    "<message><message_header><sender_id/></message_header><message_payload>"
                    "<RAW>02</RAW></message_payload></message></message_set>")))
            finally:
                await c.close()
        # the gateway stopped with the transaction open: rolled back, the attempt counted
        rows = await conn.fetch("SELECT user_data, retry_count FROM s.qt")
        assert [(bytes(r["user_data"]), r["retry_count"]) for r in rows] == [(b"\x01", 1)]
    finally:
        await drop_roles(conn, roles)


async def test_tls(gw: tuple[str, list[str]], db_dsn: str, tmp_path: Any) -> None:
    import shutil
    import ssl
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    await asyncio.to_thread(
        subprocess.run, ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                         "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    from aiohttp import web
    from pgaq.embedded import free_port
    from pgaq_services.gateway.app import Settings, build, ssl_context

    port = free_port()
    settings = Settings(dsn=db_dsn, port=port, tls_cert=str(cert), tls_key=str(key))
    runner = web.AppRunner(build(settings))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port, ssl_context=ssl_context(settings)).start()
    try:
        c = Client(f"https://127.0.0.1:{port}/aqserv/servlet", "JOHN", "secret")
        client_ctx = ssl.create_default_context(cafile=str(cert))
        try:
            # a Send without commit opens a transaction, so the session's cookie is set
            async with c.http.post(c.url, data=ex.EXAMPLE_17_1.encode(), ssl=client_ctx,
                                   headers={"Content-Type": "text/xml", "Authorization": c.auth}) as r:
                assert r.status == 200, await r.text()
                assert "Secure" in r.headers.get("Set-Cookie", "")
        finally:
            await c.close()
    finally:
        await runner.cleanup()


class _CountingPool:
    """The pool an Authenticator is given, counting the connections it takes: one per
    password checked in the database."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self.acquired = 0

    def acquire(self) -> Any:
        self.acquired += 1
        return self.pool.acquire()


async def test_a_burst_of_logins_verifies_the_password_once(conn: asyncpg.Connection,
                                                            db_dsn: str) -> None:
    """The password hash is slow on purpose: concurrent first requests share one check."""
    from pgaq.idap.auth import Authenticator

    roles = await make_agent(conn, "BURST", "pw", ("burst",))
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=4)
    try:
        checks = _CountingPool(pool)  # a password check is one trip to the database
        auth = Authenticator(checks)
        got = await asyncio.gather(*(auth.check("burst", "pw") for _ in range(20)))
        assert got == ["BURST"] * 20 and checks.acquired == 1
        assert await auth.check("burst", "pw") == "BURST" and checks.acquired == 1  # cached
        wrong = await asyncio.gather(*(auth.check("burst", "nope") for _ in range(5)))
        assert wrong == [None] * 5 and checks.acquired == 2  # failures are shared, never cached
        assert await auth.check("burst", "nope") is None and checks.acquired == 3
    finally:
        await pool.close()
        await drop_roles(conn, roles)


async def test_a_repeated_authorization_header_is_checked_once(conn: asyncpg.Connection,
                                                               db_dsn: str) -> None:
    """A verified header is remembered for the cache's TTL; a wrong or
    malformed one never is."""
    import base64

    from pgaq.idap.auth import Authenticator

    roles = await make_agent(conn, "HDR", "pw", ("hdr",))

    def basic(creds: bytes) -> str:
        return "Basic " + base64.b64encode(creds).decode()

    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=4)
    try:
        checks = _CountingPool(pool)  # a password check is one trip to the database
        auth = Authenticator(checks, ttl=60.0)
        assert await auth.check_header(basic(b"hdr:pw")) == "HDR" and checks.acquired == 1
        assert await auth.check_header(basic(b"hdr:pw")) == "HDR" and checks.acquired == 1
        assert await auth.check_header(basic(b"hdr:nope")) is None and checks.acquired == 2
        assert await auth.check_header(basic(b"hdr:nope")) is None and checks.acquired == 3
        assert await auth.check_header("Basic !!!") is None and checks.acquired == 3
        assert await auth.check_header(None) is None
        auth.forget()
        assert await auth.check_header(basic(b"hdr:pw")) == "HDR" and checks.acquired == 4
        expiring = Authenticator(checks, ttl=0.0)  # expired at once: checked every time
        assert await expiring.check_header(basic(b"hdr:pw")) == "HDR"
        assert await expiring.check_header(basic(b"hdr:pw")) == "HDR" and checks.acquired == 6
    finally:
        await pool.close()
        await drop_roles(conn, roles)


async def test_cookies_only_for_sessions_that_hold_something(gw: tuple[str, list[str]]) -> None:
    """A request that commits leaves nothing to continue: no cookie. A transaction gets
    one; once it ends, the response expires the cookie so the client stops sending it."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        async with c.http.post(c.url, data=ex.EXAMPLE_17_14.encode(),
                               headers={"Content-Type": "text/xml", "Authorization": c.auth}) as r:
            assert r.status == 200 and "JSESSIONID" not in r.cookies
        r1 = await c.post(ex.EXAMPLE_17_1.encode())  # no commit: a transaction stays open
        assert r1.status == 200, r1.body
        assert [k.key for k in c.http.cookie_jar] == ["JSESSIONID"]
        async with c.http.post(c.url, data=ex.EXAMPLE_17_14.encode(),
                               headers={"Content-Type": "text/xml", "Authorization": c.auth}) as r:
            assert r.status == 200
            morsel = r.cookies["JSESSIONID"]
            assert morsel.value == "" and morsel["max-age"] == "0"
        assert list(c.http.cookie_jar) == []
    finally:
        await c.close()
