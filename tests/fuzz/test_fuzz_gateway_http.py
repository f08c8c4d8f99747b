"""Fuzzing the gateway over real HTTP on loopback: generated and mutated Send/Publish
documents posted to a running gateway. No reply is a Server fault; every refusal is a SOAP
Client fault (HTTP 500, as SOAP 1.1's HTTP binding answers every Fault) with status_code -1, a numeric error_code and an ORA- message; and the queue
tables hold exactly the messages of the requests that succeeded (a refused request leaves
nothing behind, even after a commit)."""

from __future__ import annotations

from urllib.parse import urlencode

import asyncpg
import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st
from lxml import etree
from pgaq.idap.request import SendRequest, parse_request
from pgaq.idap.xmlsafe import parse

from ..integration.gateway_support import Client, Reply, envelope, op
from ..integration.test_gateway import gw  # noqa: F401  (the fixture: queues of the examples)
from .conftest import TIMEOUT, fuzz
from .strategies import _tree, envelopes, fitting_sends, mutate_bytes, mutate_tree
from .test_fuzz_conditions import aq_expr, jms_expr, token_streams

TABLES = ("qs.orders_qt", "aquser.emp_qt", "aquser.raw_qt", "aquser.jms_qt", "aquser.map_qt")
TARGETS = st.sampled_from(["AQUSER.RAW_MSGQ", "QS.NEW_ORDERS_QUE", "aquser.raw_msgq", "AQUSER.JMS_TEXTQ",
                           "AQUSER.EMP_TOPIC", "AQUSER.JMS_MAP_TOPIC", "AQUSER.NOPE",
                           "AQUSER.RAW_MSGQ'--", ""])
COMMIT = envelope(op("AQXmlCommit", ""))


@st.composite
def send_documents(draw: st.DrawFn) -> bytes:
    doc = draw(st.one_of(fitting_sends(), fitting_sends(), envelopes(TARGETS, ("AQXmlSend", "AQXmlPublish"))))
    if draw(st.integers(0, 2)):
        doc = etree.tostring(draw(mutate_tree(_tree(doc))))
    if draw(st.integers(0, 3)) == 3:  # (shrinking towards 0: towards no byte damage)
        doc = draw(mutate_bytes(doc))
    return doc


async def stored(conn: asyncpg.Connection) -> int:
    total = 0
    for table in TABLES:
        total += await conn.fetchval(f"SELECT count(*) FROM {table}")
    return total


def messages_in(document: bytes) -> int | None:
    """How many messages a request the gateway accepted enqueued (None: not a send)."""
    req = parse_request(parse(document))
    return len(req.messages) if isinstance(req, SendRequest) else None


def assert_reply_shape(r: Reply) -> None:
    assert r.status in (200, 500), (r.status, r.body[:500])
    if r.status == 500:
        assert b"SOAP-ENV:Client" in r.body, r.body[:500]
        assert r.text("//aq:status_code") == ["-1"], r.body[:500]
        [code] = r.text("//aq:error_code")
        assert code.isdigit(), r.body[:500]
        [message] = r.text("//aq:error_message")
        assert message.startswith("ORA-"), message


@pytest.mark.timeout(TIMEOUT * 2)
@fuzz(120)
# was a 500 (decimal.InvalidOperation) before payload._decimal
@example(document=envelope(op("AQXmlSend",
    "<producer_options><destination>QS.NEW_ORDERS_QUE</destination></producer_options><message_set>"
    "<message><message_header><sender_id><agent_name>s</agent_name></sender_id></message_header>"
    "<message_payload><ORDER_TYP><ORDERNO>1e999999999999999999999</ORDERNO></ORDER_TYP>"
    "</message_payload></message></message_set>")), as_form=False)
# its fault message had no ORA- number before
@example(document=envelope(op("AQXmlSend",
    "<producer_options><destination>AQUSER.RAW_MSGQ</destination></producer_options><message_set>"
    "<message><message_header><sender_id><agent_name>s</agent_name></sender_id></message_header>"
    "</message></message_set>")), as_form=False)
@given(send_documents(), st.booleans())
async def test_posted_documents_fault_cleanly_and_store_exactly_what_succeeded(
        gw: tuple[str, list[str]], conn: asyncpg.Connection, document: bytes,  # noqa: F811
        as_form: bool) -> None:
    url, _ = gw
    before = await stored(conn)
    c = Client(url, "JOHN", "secret")
    try:
        if as_form:  # Oracle's servlet also takes the document as the form field aqxmldoc
            text = document.decode("utf-8", "replace")
            document = text.encode()
            r = await c.post(urlencode({"aqxmldoc": text}).encode(),
                             content_type="application/x-www-form-urlencoded")
        else:
            r = await c.post(document)
        assert_reply_shape(r)
        event(f"status {r.status} {r.error_code if r.status == 500 else ''}")
        expected = before
        if r.status == 200:
            n = messages_in(document)
            assert n is not None, r.body[:500]
            expected += n
        # a commit after every request: a refused one must have left nothing to commit
        done = await c.post(COMMIT)
        assert_reply_shape(done)
    finally:
        await c.close()
    assert await stored(conn) == expected, (document[:2000], r.body[:500])


# -- receive with generated conditions ------------------------------------------------------
SEED_MESSAGES = [
    envelope(op("AQXmlPublish",
        "<producer_options><destination>AQUSER.EMP_TOPIC</destination><visibility>IMMEDIATE</visibility>"
        "</producer_options><message_set><message><message_header><correlation>C1</correlation>"
        "<sender_id><agent_name>s</agent_name></sender_id></message_header><message_payload>"
        "<EMP_TYP><EMPNO>7</EMPNO><ENAME>SCOTT</ENAME><SAL>10.5</SAL></EMP_TYP></message_payload>"
        "</message></message_set>")),
    envelope(op("AQXmlSend",
        "<producer_options><destination>AQUSER.JMS_TEXTQ</destination><visibility>IMMEDIATE</visibility>"
        "</producer_options><message_set><message><message_header><sender_id><agent_name>s</agent_name>"
        "</sender_id></message_header><message_payload><jms_text_message><oracle_jms_properties>"
        "<type>t</type></oracle_jms_properties><user_properties><property><name>color</name>"
        "<string_value>RED</string_value></property><property><name>price</name><int_value>5</int_value>"
        "</property></user_properties><text_data>x</text_data></jms_text_message></message_payload>"
        "</message></message_set>")),
]


def xml_text(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def receive(dest: str, consumer: str, condition: str) -> bytes:
    name = f"<consumer_name>{consumer}</consumer_name>" if consumer else ""
    return envelope(op("AQXmlReceive",
        f"<consumer_options><destination>{dest}</destination>{name}<wait_time>0</wait_time>"
        f"<selector><condition>{xml_text(condition)}</condition></selector>"
        "<dequeue_mode>BROWSE</dequeue_mode></consumer_options>"))


CONDITIONS = st.one_of(
    token_streams(), aq_expr().map(lambda e: e.text), jms_expr().map(lambda e: e.text),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=40),
    st.sampled_from(["tab.user_data.empno = 7", "tab.user_data.sal * 9e99999 > 1",
                     "SUBSTR(tab.user_data.ename, 99999999999) IS NULL", "color = 'RED'",
                     "price * 9223372036854775807 > 0", "(JMSPriority + 9223372036854775807) > 0"]),
)


@pytest.mark.timeout(TIMEOUT * 2)
@fuzz(120)
@given(st.sampled_from([("AQUSER.EMP_TOPIC", "APP1"), ("AQUSER.JMS_TEXTQ", "")]), CONDITIONS)
async def test_received_conditions_fault_cleanly(gw: tuple[str, list[str]],  # noqa: F811
                                                 conn: asyncpg.Connection,
                                                 queue: tuple[str, str], condition: str) -> None:
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        if await stored(conn) == 0:
            for doc in SEED_MESSAGES:
                assert (await c.post(doc)).status == 200
        before = await stored(conn)
        r = await c.post(receive(*queue, condition))
        assert_reply_shape(r)
        event(f"status {r.status} {r.error_code if r.status == 500 else ''}")
        assert_reply_shape(await c.post(COMMIT))
    finally:
        await c.close()
    assert await stored(conn) == before  # browsing removes nothing
