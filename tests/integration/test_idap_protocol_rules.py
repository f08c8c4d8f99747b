"""IDAP protocol rules as a client meets them, over real HTTP on loopback against a real
PostgreSQL: the optional message_header (10.2 and 11.1 guides), SOAP 1.1's header and
fault rules (4.2.3 mustUnderstand, 4.4 Fault, 6.2 faults answered with HTTP 500), the
SOAPMethodName/SOAPAction headers, how replies give exception_queue and JMS user
properties, and what the servlet's status page tells whom."""

from __future__ import annotations

import base64

import aiohttp
import asyncpg
import pytest

from tests.unit import idap_examples as ex

from .gateway_support import NS, Client, Reply, envelope, op, running_gateway
from .test_gateway import gw  # noqa: F401  (the fixture: queues and types of the examples)

SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
AQ = "http://ns.oracle.com/AQ/schemas/access"
Gw = tuple[str, list[str]]


def raw_send(hexdata: str = "ABCD", header: str | None = "<sender_id/>",
             dest: str = "AQUSER.RAW_MSGQ", commit: bool = True, extra: str = "") -> str:
    """An AQXmlSend of one RAW message; `header` None leaves message_header out."""
    h = "" if header is None else f"<message_header>{header}</message_header>"
    return op("AQXmlSend",
              f"<producer_options><destination>{dest}</destination>{extra}</producer_options>"
              f"<message_set><message>{h}<message_payload><RAW>{hexdata}</RAW>"
              "</message_payload></message></message_set>"
              + ("<AQXmlCommit/>" if commit else ""))


def receive(dest: str, extra: str = "", mode: str = "REMOVE") -> bytes:
    return envelope(op("AQXmlReceive",
                       f"<consumer_options><destination>{dest}</destination>{extra}"
                       f"<wait_time>0</wait_time><dequeue_mode>{mode}</dequeue_mode>"
                       "</consumer_options><AQXmlCommit/>"))


def faultcode(r: Reply) -> str:
    assert r.doc is not None, r.body
    return "".join(r.doc.xpath("string(//s:Fault/faultcode)", namespaces=NS))


async def raw_rows(conn: asyncpg.Connection) -> int:
    return int(await conn.fetchval("SELECT count(*) FROM aquser.raw_qt"))


# -- 1. message_header is optional ---------------------------------------------------------

async def test_a_message_without_header_takes_the_defaults(
        gw: Gw, conn: asyncpg.Connection) -> None:  # noqa: F811  # noqa: F811
    """10.2/11.1: message_header is optional. Without one the message is enqueued with
    every default: priority 1, no delay, never expires, no correlation, no sender."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(envelope(raw_send("0A0B", header=None)))
        assert r.status == 200 and r.text("//aq:status_code") == ["0"], r.body
        [mid] = r.text("//aq:send_result/aq:message_id")
        row = await conn.fetchrow(
            "SELECT priority, delay, expiration, corrid, sender_name, sender_address, "
            "exception_queue FROM aquser.raw_qt WHERE msgid = decode($1, 'hex')", mid)
        assert row is not None
        assert dict(row) == {"priority": 1, "delay": 0, "expiration": None, "corrid": None,
                             "sender_name": None, "sender_address": None,
                             "exception_queue": None}
        r = await c.post(receive("AQUSER.RAW_MSGQ"))
        assert r.status == 200, r.body
        assert r.text("//aq:message_header/aq:message_id") == [mid]
        assert r.text("//aq:message_header/aq:priority") == ["1"]
        assert r.text("//aq:message_header/aq:delay") == ["0"]
        assert r.text("//aq:message_header/aq:expiration") == []  # never expires
        assert r.text("//aq:message_header/aq:correlation") == []
        assert r.text("//aq:message_header/aq:message_state") == ["0"]
        assert r.text("//aq:RAW | //aq:raw") == ["0A0B"]
    finally:
        await c.close()


async def test_headers_and_no_headers_in_one_set(
        gw: Gw, conn: asyncpg.Connection) -> None:  # noqa: F811  # noqa: F811
    """One message_set mixing a message with a header and one without: each keeps its own
    properties; an object-payload publish without a header reaches the subscribers."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(envelope(op(
            "AQXmlSend",
            "<producer_options><destination>AQUSER.RAW_MSGQ</destination></producer_options>"
            "<message_set><message_count>2</message_count>"
            "<message><message_number>1</message_number><message_header>"
            "<correlation>FIRST</correlation><priority>7</priority><sender_id>"
            "<agent_name>scott</agent_name></sender_id></message_header>"
            "<message_payload><RAW>01</RAW></message_payload></message>"
            "<message><message_number>2</message_number>"
            "<message_payload><RAW>02</RAW></message_payload></message>"
            "</message_set><AQXmlCommit/>")))
        assert r.status == 200 and len(r.text("//aq:message_id")) == 2, r.body
        rows = await conn.fetch("SELECT corrid, priority, sender_name FROM aquser.raw_qt "
                                "ORDER BY corrid NULLS LAST")
        assert [tuple(x) for x in rows] == [("FIRST", 7, "scott"), (None, 1, None)]
        r = await c.post(envelope(op(
            "AQXmlPublish",
            "<producer_options><destination>AQUSER.EMP_TOPIC</destination></producer_options>"
            "<message_set><message><message_payload><EMP_TYP><EMPNO>7</EMPNO>"
            "<ENAME>Ann</ENAME></EMP_TYP></message_payload></message></message_set>"
            "<AQXmlCommit/>")))
        assert r.status == 200, r.body
        r = await c.post(receive("AQUSER.EMP_TOPIC", "<consumer_name>APP1</consumer_name>"))
        assert r.status == 200, r.body
        assert r.text("//*[local-name()='ENAME']") == ["Ann"]
        assert r.text("//aq:message_header/aq:priority") == ["1"]
    finally:
        await c.close()


async def test_a_header_still_needs_its_sender_id(
        gw: Gw, conn: asyncpg.Connection) -> None:  # noqa: F811  # noqa: F811
    """10.2/11.1: 'If a message_header element is included, then it must contain a
    sender_id element': an optional header is no licence for an incomplete one."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(envelope(raw_send(header="<correlation>X</correlation>")))
        assert r.status == 500 and faultcode(r) == "SOAP-ENV:Client", r.body
        assert r.error_code == "31154" and "sender_id" in (r.fault or ""), r.body
        assert await raw_rows(conn) == 0
    finally:
        await c.close()


# -- 2. SOAP 1.1: mustUnderstand ---------------------------------------------------------

def _header(entry: str) -> str:
    return f'<Header xmlns:x="urn:example:tx" xmlns:SOAP-ENV="{SOAP}">{entry}</Header>'


async def test_must_understand_an_unknown_entry_is_a_fault(
        gw: Gw, conn: asyncpg.Connection) -> None:  # noqa: F811  # noqa: F811
    """SOAP 1.1 4.2.3/4.4.1: an entry for the gateway with mustUnderstand="1" that it does
    not understand gets a SOAP-ENV:MustUnderstand fault (HTTP 500, 6.2) and nothing runs."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        for entry in ('<x:Transaction SOAP-ENV:mustUnderstand="1">5</x:Transaction>',
                      '<x:Transaction SOAP-ENV:mustUnderstand="1" SOAP-ENV:actor='
                      '"http://schemas.xmlsoap.org/soap/actor/next">5</x:Transaction>'):
            r = await c.post(envelope(raw_send(), _header(entry)))
            assert r.status == 500, r.body
            assert faultcode(r) == "SOAP-ENV:MustUnderstand", r.body
            assert r.text("//aq:status_code") == ["-1"] and r.error_code, r.body
            assert "Transaction" in (r.fault or "")
        assert await raw_rows(conn) == 0
        # on a receive and a commit too: the rule is the envelope's, not the operation's
        r = await c.post(receive("AQUSER.RAW_MSGQ").replace(
            b"<Body>", _header('<x:T SOAP-ENV:mustUnderstand="1"/>').encode() + b"<Body>"))
        assert r.status == 500 and faultcode(r) == "SOAP-ENV:MustUnderstand", r.body
    finally:
        await c.close()


async def test_entries_not_demanding_understanding_are_ignored(
        gw: Gw, conn: asyncpg.Connection) -> None:  # noqa: F811
    """mustUnderstand="0", no mustUnderstand, or an entry for another actor: ignored."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        entries = ('<x:Transaction SOAP-ENV:mustUnderstand="0">5</x:Transaction>',
                   "<x:Transaction>5</x:Transaction>",
                   '<x:Transaction SOAP-ENV:mustUnderstand="1" '
                   'SOAP-ENV:actor="urn:example:some-intermediary">5</x:Transaction>')
        for entry in entries:
            r = await c.post(envelope(raw_send(), _header(entry)))
            assert r.status == 200 and r.text("//aq:status_code") == ["0"], r.body
        assert await raw_rows(conn) == len(entries)
    finally:
        await c.close()


async def test_the_propagation_header_is_understood(
        gw: Gw, conn: asyncpg.Connection) -> None:  # noqa: F811  # noqa: F811
    """The one header entry the gateway understands (a pgaq propagator's batch) keeps
    working with mustUnderstand="1", and keeps dropping a batch's second copy."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    header = (f'<Header><p:propagation xmlns:p="urn:pgaq:propagation" '
              f'xmlns:SOAP-ENV="{SOAP}" SOAP-ENV:mustUnderstand="1">'
              "<p:schedule_key>test-schedule</p:schedule_key>"
              f"<p:source_msgid>{'AB' * 16}</p:source_msgid></p:propagation></Header>")
    try:
        for _ in range(2):
            r = await c.post(envelope(raw_send("0C"), header))
            assert r.status == 200 and r.text("//aq:status_code") == ["0"], r.body
        assert await raw_rows(conn) == 1
    finally:
        await c.close()


# -- 2. SOAP 1.1: SOAPMethodName / SOAPAction ----------------------------------------------

@pytest.mark.parametrize("headers", [
    {"SOAPMethodName": f"{AQ}#AQXmlReceive"},
    {"SOAPMethodName": "AQXmlCommit"},
    {"SOAPAction": f'"{AQ}#AQXmlPublish"'},
    {"SOAPAction": "AQXmlRollback"},
])
async def test_a_method_header_naming_another_operation_is_refused(
        gw: Gw, conn: asyncpg.Connection, headers: dict[str, str]) -> None:  # noqa: F811
    """10.2/11.1: SOAPMethodName names the method invoked, and the Body's method element
    must be that method: a header naming another operation is a Client fault (HTTP 500)
    and nothing is enqueued."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(envelope(raw_send()), headers=headers)
        assert r.status == 500 and faultcode(r) == "SOAP-ENV:Client", r.body
        assert r.error_code == "31154" and "AQXmlSend" in (r.fault or ""), r.body
        assert await raw_rows(conn) == 0
    finally:
        await c.close()


async def test_method_headers_that_agree_or_name_nothing_are_fine(
        gw: Gw, conn: asyncpg.Connection) -> None:  # noqa: F811  # noqa: F811
    """The form of Oracle's IDAP examples, the bare name, SOAP 1.1's empty and quoted-empty
    SOAPAction, the servlet's URL, a URN: none contradicts the Body, all are served."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    cases: list[dict[str, str]] = [
        {"SOAPMethodName": f"{AQ}#AQXmlSend"}, {"SOAPMethodName": "AQXmlSend"},
        {"SOAPAction": ""}, {"SOAPAction": '""'}, {"SOAPAction": f'"{url}"'},
        {"SOAPAction": url}, {"SOAPAction": "urn:example:anything"},
        {"SOAPAction": f'"{AQ}#AQXmlSend"', "SOAPMethodName": f"{AQ}#AQXmlSend"},
    ]
    try:
        for headers in cases:
            r = await c.post(envelope(raw_send()), headers=headers)
            assert r.status == 200 and r.text("//aq:status_code") == ["0"], (headers, r.body)
        assert await raw_rows(conn) == len(cases)
    finally:
        await c.close()


# -- 2. SOAP 1.1 6.2: every fault is HTTP 500; HTTP-level refusals keep their status --------

@pytest.mark.parametrize("fastpath", [True, False])
async def test_every_fault_is_http_500(
        gw: Gw, conn: asyncpg.Connection, db_dsn: str, fastpath: bool) -> None:  # noqa: F811
    """Client faults come with HTTP 500, as Server faults do, over either transport (the
    fast path, plain aiohttp): from the servlet, the schema check, the operation and the
    batch writer. 401, 413 and 415 stay HTTP refusals without a SOAP body. (Server faults:
    test_gateway.py's failing hooks and test_gateway_db_outage.py.)"""
    del gw  # the queues are made; this test serves them with its own gateway
    async with running_gateway(db_dsn, fastpath=fastpath, body_limit=64 * 1024) as url:
        c = Client(url, "JOHN", "secret")
        try:
            faults = [
                b"<not xml",  # 31011
                envelope(op("AQXmlSend", "<producer_options/>")),  # schema: 31154
                ex.EXAMPLE_17_1.replace("QS.NEW_ORDERS_QUE", "QS.NO_SUCH_QUEUE").encode(),
                envelope(raw_send(dest="AQUSER.EMP_TOPIC")),  # Send to a topic: 24039
            ]
            for doc in faults:
                r = await c.post(doc)
                assert r.status == 500 and faultcode(r) == "SOAP-ENV:Client", r.body
            r = await c.post(b"aqxmldoc=", content_type="application/x-www-form-urlencoded")
            assert r.status == 500 and faultcode(r) == "SOAP-ENV:Client", r.body
            # the batch writer's refusal (an IMMEDIATE autocommit send): a correlation
            # over 128 characters fails the batch it is in
            r = await c.post(envelope(raw_send(
                header=f"<correlation>{'c' * 129}</correlation><sender_id/>",
                extra="<visibility>IMMEDIATE</visibility>")))
            assert r.status == 500 and faultcode(r) == "SOAP-ENV:Client", r.body
            assert await raw_rows(conn) == 0
            r = await c.post(envelope(raw_send()), auth=False)
            assert r.status == 401 and r.doc is None
            r = await c.post(envelope(raw_send()), content_type="application/json")
            assert r.status == 415 and r.doc is None
            r = await c.post(b"<" + b"x" * (65 * 1024) + b"/>")
            assert r.status == 413 and r.doc is None
        finally:
            await c.close()


# -- 4. the status page ----------------------------------------------------------------------

async def test_the_status_page_shows_sessions_only_to_an_agent(gw: Gw) -> None:  # noqa: F811
    """GET on the servlet URL: an unauthenticated caller (or one with wrong credentials)
    learns nothing of sessions or transactions; an authenticated agent may."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(envelope(raw_send(commit=False)))  # an open transaction
        assert r.status == 200, r.body
        async with aiohttp.ClientSession() as http:
            wrong = "Basic " + base64.b64encode(b"JOHN:wrong").decode()
            for headers in ({}, {"Authorization": wrong}):
                async with http.get(url, headers=headers) as resp:
                    text = (await resp.text()).lower()
                    assert resp.status == 200 and "idap" in text
                    assert "session" not in text and "transaction" not in text, text
            async with http.get(url, headers={"Authorization": c.auth}) as resp:
                text = (await resp.text()).lower()
                assert resp.status == 200
                assert "sessions: 1" in text and "open transactions: 1" in text, text
    finally:
        await c.close()


# -- 3. replies: exception_queue as Oracle gives it; JMS user properties in sent order -------

async def test_exception_queue_is_given_qualified_in_upper_case(gw: Gw,  # noqa: F811
                                                                conn: asyncpg.Connection) -> None:
    """A message's exception queue comes back as Oracle names it, SCHEMA.QUEUE in upper
    case, however the sender spelled it."""
    url, _ = gw
    await conn.execute("CALL dbms_aqadm.create_queue('aquser.raw_exc', 'aquser.raw_qt', "
                       "queue_type => 'EXCEPTION_QUEUE')")
    c = Client(url, "JOHN", "secret")
    try:
        for spelling in ("aquser.raw_exc", "AQUSER.RAW_EXC", "AqUser.Raw_Exc"):
            r = await c.post(envelope(raw_send(
                header=f"<sender_id/><exception_queue>{spelling}</exception_queue>")))
            assert r.status == 200, r.body
            r = await c.post(receive("AQUSER.RAW_MSGQ"))
            assert r.status == 200, r.body
            assert r.text("//aq:message_header/aq:exception_queue") == ["AQUSER.RAW_EXC"], spelling
    finally:
        await c.close()


async def test_a_message_moved_to_the_default_exception_queue_names_none(
        gw: Gw, conn: asyncpg.Connection) -> None:  # noqa: F811
    """Past max_retries (2) the message moves to its table's default exception queue; read from
    there, its exception_queue is NULL (Oracle Streams Advanced Queuing User's Guide 11g Release
    1 (11.1), "Internet Access to Oracle Streams AQ", exception_queue: "If the default exception
    queue is used, then the parameter returns a NULL value at dequeue time"): no element."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    on_commit = envelope(op("AQXmlReceive", "<consumer_options><destination>QS.NEW_ORDERS_QUE"
                            "</destination><wait_time>0</wait_time></consumer_options>"))
    try:
        r = await c.post(ex.EXAMPLE_17_1.encode())
        assert r.status == 200, r.body
        assert (await c.post(envelope(op("AQXmlCommit", "")))).status == 200
        for attempt in range(3):
            r = await c.post(on_commit)
            assert r.status == 200 and len(r.text("//aq:message_id")) == 1, (attempt, r.body)
            assert (await c.post(envelope(op("AQXmlRollback", "")))).status == 200
        await conn.execute("CALL dbms_aqadm.start_queue('qs.aq$_orders_qt_e', enqueue => false, "
                           "dequeue => true)")
        r = await c.post(receive("QS.AQ$_ORDERS_QT_E"))
        assert r.status == 200 and len(r.text("//aq:message_id")) == 1, r.body
        assert r.text("//aq:message_header/aq:exception_queue") == []
    finally:
        await c.close()


PROPS = [("Zeta", "string", "last letter"), ("a", "int", "1"), ("Middle_name", "boolean", "true"),
         ("b2", "double", "2.5"), ("Country", "string", "USA"), ("ab", "long", "7")]


async def test_jms_user_properties_come_back_in_the_order_sent(gw: Gw,  # noqa: F811
                                                              conn: asyncpg.Connection) -> None:
    """JMS user properties come back in the order they were sent (not by name, nor in
    jsonb's key order), values and types unchanged."""
    url, _ = gw
    props = "".join(f"<property><name>{n}</name><{t}_value>{v}</{t}_value></property>"
                    for n, t, v in PROPS)
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(envelope(op(
            "AQXmlSend",
            "<producer_options><destination>AQUSER.JMS_TEXTQ</destination></producer_options>"
            "<message_set><message><message_header><sender_id/></message_header>"
            "<message_payload><jms_text_message><oracle_jms_properties><appid>A</appid>"
            f"</oracle_jms_properties><user_properties>{props}</user_properties>"
            "<text_data>t</text_data></jms_text_message></message_payload></message>"
            "</message_set><AQXmlCommit/>")))
        assert r.status == 200, r.body
        r = await c.post(receive("AQUSER.JMS_TEXTQ"))
        assert r.status == 200, r.body
        assert r.text("//aq:user_properties/aq:property/aq:name") == [n for n, _, _ in PROPS]
        values = r.text("//aq:user_properties/aq:property/*[contains(local-name(), '_value')]")
        assert values == [v for _, _, v in PROPS]
        kinds = [e.tag.rsplit("}", 1)[-1] for e in r.doc.xpath(  # type: ignore[union-attr]
            "//aq:user_properties/aq:property/*[contains(local-name(), '_value')]",
            namespaces=NS)]
        assert kinds == [f"{t}_value" for _, t, _ in PROPS]
        assert r.text("//aq:text_data") == ["t"]
    finally:
        await c.close()
