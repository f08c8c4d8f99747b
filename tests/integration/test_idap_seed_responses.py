"""The gateway's responses beside the response examples 17-16 to 17-21 of Oracle Streams
Advanced Queuing User's Guide and Reference, Release 10.1, chapter 17 "Internet Access to
Oracle Streams AQ", element by element: every element the example shows is in the response,
at the same place, in the same order and namespace, with the same value, except values that
differ by nature (message ids, error texts), which are checked for their form. Elements the
example leaves out but the schema allows (a delay of 0, the recipient on a multi-consumer
queue) may be there too; every response is also valid against the IDAP schema."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation

import asyncpg
import pytest
from lxml import etree
from pgaq.idap.schema import load_schemas

from tests.unit import idap_examples as ex

from .gateway_support import Client, envelope, op
from .test_gateway import gw  # noqa: F401  (the fixture: queues and types of the examples)

HEX32 = re.compile(r"^[0-9A-F]{32}$")
# values that differ by nature, with the form they must have
SHAPES: dict[str, Callable[[str], bool]] = {
    "message_id": lambda v: bool(HEX32.match(v)),
    "error_message": lambda v: v.startswith("ORA-") and len(v) > 10,
    "error_code": lambda v: v.isdigit(),
    "faultcode": lambda v: v.endswith(("Client", "Server")),
    "faultstring": lambda v: bool(v),
    "timestamp": lambda v: bool(re.match(r"^\d{4}-\d{2}-\d{2}", v)),
    "recv_timestamp": lambda v: bool(re.match(r"^\d{4}-\d{2}-\d{2}", v)),
}


def _local(el: etree._Element) -> str:
    name: str = etree.QName(el).localname
    return name


def _same_value(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return Decimal(a) == Decimal(b)  # 10000 and 10000.00 are the same number
    except InvalidOperation:
        return False


def compare(expected: etree._Element, actual: etree._Element, path: str = "") -> None:
    """Every element of `expected` is matched, in order, by one of `actual`'s children."""
    here = f"{path}/{_local(expected)}"
    assert _local(expected) == _local(actual), f"{here}: got {_local(actual)}"
    # faultcode, faultstring and detail are unqualified in SOAP 1.1; the printed 17-21 puts
    # them (and the status_response inside detail) in the envelope's default namespace by
    # inheritance: status_response is the IDAP schema's element, in its namespace
    if not path.startswith("/Envelope/Body/Fault"):
        assert etree.QName(expected).namespace == etree.QName(actual).namespace, \
            f"{here}: namespace {etree.QName(actual).namespace}"
    kids = [k for k in expected if isinstance(k.tag, str)]
    if not kids:
        want, got = (expected.text or "").strip(), "".join(actual.itertext()).strip()
        check = SHAPES.get(_local(expected))
        if check is not None:
            assert check(got), f"{here}: {got!r} is not of the expected form (Oracle's: {want!r})"
        else:
            assert _same_value(want, got), f"{here}: {got!r}, Oracle's example says {want!r}"
        return
    pool = [k for k in actual if isinstance(k.tag, str)]
    at = 0
    for k in kids:
        while at < len(pool) and _local(pool[at]) != _local(k):
            at += 1  # an element the example leaves out
        assert at < len(pool), f"{here}: no {_local(k)} (in order) among {[_local(p) for p in pool]}"
        compare(k, pool[at], here)
        at += 1


def seed(doc: str) -> etree._Element:
    return etree.fromstring(doc.encode())


async def test_send_publish_commit_responses(gw: tuple[str, list[str]]) -> None:  # noqa: F811
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    schema = load_schemas()
    try:
        r = await c.post(ex.EXAMPLE_17_1.encode())  # AQXmlSend
        assert r.status == 200 and r.doc is not None, r.body
        compare(seed(ex.EXAMPLE_17_16), r.doc)
        schema.validate(r.doc)
        r = await c.post(ex.EXAMPLE_17_14.encode())  # AQXmlCommit
        assert r.doc is not None
        compare(seed(ex.EXAMPLE_17_20), r.doc)
        r = await c.post(ex.EXAMPLE_17_2.encode())  # AQXmlPublish
        assert r.status == 200 and r.doc is not None, r.body
        compare(seed(ex.EXAMPLE_17_17), r.doc)
        schema.validate(r.doc)
    finally:
        await c.close()


async def test_receive_response_of_an_object_payload(gw: tuple[str, list[str]]) -> None:  # noqa: F811
    """17-18: what 17-2 published (with 17-18's correlation), received by APP1."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(ex.EXAMPLE_17_2.replace("NEWEMP", "TKAXAP10").encode())
        assert r.status == 200, r.body
        r = await c.post(ex.EXAMPLE_17_14.encode())
        r = await c.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.EMP_TOPIC</destination>"
            "<consumer_name>APP1</consumer_name><wait_time>0</wait_time></consumer_options>"
            "<AQXmlCommit/>")))
        assert r.status == 200 and r.doc is not None, r.body
        compare(seed(ex.EXAMPLE_17_18), r.doc)
        load_schemas().validate(r.doc)
    finally:
        await c.close()


async def test_receive_response_of_a_jms_text_message(gw: tuple[str, list[str]]) -> None:  # noqa: F811
    """17-19: what 17-3 sent (with 17-19's correlation), received."""
    url, roles = gw
    c = Client(url, "JOHN", "secret")
    try:
        # 17-3 and 17-19 are not one exchange (another sender, fewer JMS properties): send
        # what 17-19 shows, its payload as printed
        expected = seed(ex.EXAMPLE_17_19)
        payload = copy.deepcopy(expected.find(".//{*}message_payload"))
        assert payload is not None
        # the JMS timestamps are the server's to set (and printed as 01-12-2000, which is no
        # xsd:date the schema accepts): not sent, and checked for their form
        for stamp in list(payload.iter("{*}timestamp", "{*}recv_timestamp")):
            parent = stamp.getparent()
            assert parent is not None
            parent.remove(stamp)
        r = await c.post(envelope(op("AQXmlSend",
            "<producer_options><destination>AQUSER.JMS_TEXTQ</destination></producer_options>"
            "<message_set><message><message_header><correlation>TKAXAP01</correlation>"
            "<sender_id><agent_name>scott</agent_name></sender_id></message_header>"
            + etree.tostring(payload, encoding="unicode") + "</message></message_set>")))
        assert r.status == 200, r.body
        r = await c.post(ex.EXAMPLE_17_14.encode())
        r = await c.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.JMS_TEXTQ</destination><wait_time>0</wait_time>"
            "</consumer_options><AQXmlCommit/>")))
        assert r.status == 200 and r.doc is not None, r.body
        # the printed example puts message_state before sender_id, against the schema's
        # sequence (and example 17-18); the schema's order is the one a client validates
        header = expected.find(".//{*}message_header")
        assert header is not None
        state = header.find("{*}message_state")
        assert state is not None
        header.remove(state)
        header.append(state)
        # <userid> is JMSXUserID, which the provider sets to the database user that enqueued
        # (the examples' AQUSER: its agent's user; here the agent's is roles[0]), whatever the
        # sender wrote; <appid> (AQProduct) is the client's to set and comes back as sent
        userid = expected.find(".//{*}oracle_jms_properties/{*}userid")
        assert userid is not None and userid.text == "AQUSER"
        userid.text = roles[0]
        compare(expected, r.doc)
        load_schemas().validate(r.doc)
    finally:
        await c.close()


async def test_fault_response(gw: tuple[str, list[str]]) -> None:  # noqa: F811
    """17-21's shape: Fault, faultcode, faultstring, detail/status_response with -1."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(ex.EXAMPLE_17_1.replace("QS.NEW_ORDERS_QUE", "QS.NO_SUCH_QUEUE").encode())
        assert r.status == 500 and r.doc is not None, r.body  # SOAP 1.1 6.2
        compare(seed(ex.EXAMPLE_17_21), r.doc)
        assert r.text("//aq:status_code") == ["-1"] and r.error_code == "24010"
    finally:
        await c.close()


@pytest.mark.parametrize("name", ["EXAMPLE_17_16", "EXAMPLE_17_17", "EXAMPLE_17_18", "EXAMPLE_17_20"])
def test_the_comparison_can_fail(name: str) -> None:
    """The comparator itself: a copy passes; a changed value or a missing element fails."""
    doc = seed(getattr(ex, name))

    def copy() -> etree._Element:
        c = seed(getattr(ex, name))
        for mid in c.iter("{*}message_id"):
            mid.text = "0" * 32  # the form a real id has
        return c

    compare(doc, copy())
    missing = copy()
    leaf = [e for e in missing.iter() if isinstance(e.tag, str) and len(e) == 0][-1]
    parent = leaf.getparent()
    assert parent is not None
    parent.remove(leaf)
    with pytest.raises(AssertionError):
        compare(doc, missing)
    changed = copy()
    for e in changed.iter("{*}destination", "{*}status_code"):
        e.text = "SOMETHING.ELSE"
    with pytest.raises(AssertionError):
        compare(doc, changed)


def receive_response_for(sent: str, destination: str, state: int = 0) -> etree._Element:
    """17-18's receive response, for what `sent` (a Send/Publish example) enqueued: its
    destination, the sent header's correlation and sender, and the sent payload as written."""
    doc = seed(ex.EXAMPLE_17_18)
    request = seed(sent)
    dest = doc.find(".//{*}receive_result/{*}destination")
    assert dest is not None
    dest.text = destination
    header = doc.find(".//{*}message_header")
    sent_header = request.find(".//{*}message_header")
    assert header is not None and sent_header is not None
    for name in ("correlation", "sender_id"):
        mine, theirs = header.find("{*}" + name), sent_header.find("{*}" + name)
        assert mine is not None and theirs is not None
        header.replace(mine, copy.deepcopy(theirs))
    message_state = header.find("{*}message_state")
    assert message_state is not None
    message_state.text = str(state)
    payload = doc.find(".//{*}message_payload")
    sent_payload = request.find(".//{*}message_payload")
    assert payload is not None and sent_payload is not None
    parent = payload.getparent()
    assert parent is not None
    parent.replace(payload, copy.deepcopy(sent_payload))
    return doc


async def test_example_17_8_receive_from_a_multi_consumer_queue(gw: tuple[str, list[str]]) -> None:  # noqa: F811
    """17-8 as written (APP1, FIRST_MESSAGE) after 17-6's publish; the answer is 17-18's."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(ex.EXAMPLE_17_6.replace("NEWEMP", "TKAXAP10").encode())
        assert r.status == 200, r.body
        r = await c.post(ex.EXAMPLE_17_8.encode())
        assert r.status == 200 and r.doc is not None, r.body
        compare(seed(ex.EXAMPLE_17_18), r.doc)
        load_schemas().validate(r.doc)
        r = await c.post(ex.EXAMPLE_17_14.encode())
        assert r.doc is not None, r.body
        compare(seed(ex.EXAMPLE_17_20), r.doc)
        r = await c.post(ex.EXAMPLE_17_8.encode())  # removed and committed: nothing left
        assert r.text("//aq:message_count") == ["0"], r.body
    finally:
        await c.close()


async def test_example_17_9_receive_by_correlation(gw: tuple[str, list[str]]) -> None:  # noqa: F811
    """17-9 as written takes the message with correlation NEW, not the one sent before it."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    new = ex.EXAMPLE_17_1.replace("ORDER1", "NEW").replace("<ORDERNO>100", "<ORDERNO>101")
    try:
        for doc in (ex.EXAMPLE_17_1, new):
            r = await c.post(doc.encode())
            assert r.status == 200, r.body
        await c.post(ex.EXAMPLE_17_14.encode())
        r = await c.post(ex.EXAMPLE_17_9.encode())  # no XML declaration, as printed
        assert r.status == 200 and r.doc is not None, r.body
        compare(receive_response_for(new, "QS.NEW_ORDERS_QUE"), r.doc)
        load_schemas().validate(r.doc)
        r = await c.post(ex.EXAMPLE_17_9.encode())  # the only NEW one is taken (uncommitted)
        assert r.text("//aq:message_count") == ["0"], r.body
        await c.post(ex.EXAMPLE_17_14.encode())
    finally:
        await c.close()


async def test_example_17_11_receive_and_commit(gw: tuple[str, list[str]],  # noqa: F811
                                                conn: asyncpg.Connection) -> None:
    """17-11's piggybacked commit: the message is gone for everyone when the answer comes."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(ex.EXAMPLE_17_1.replace("</message_set>", "</message_set><AQXmlCommit/>")
                         .encode())
        assert r.status == 200, r.body
        r = await c.post(ex.EXAMPLE_17_11.encode())
        assert r.status == 200 and r.doc is not None, r.body
        compare(receive_response_for(ex.EXAMPLE_17_1, "QS.NEW_ORDERS_QUE"), r.doc)
        assert await conn.fetchval("SELECT count(*) FROM qs.orders_qt WHERE state = 0") == 0
        assert list(c.http.cookie_jar) == []  # nothing left open
    finally:
        await c.close()


async def test_example_17_12_browse(gw: tuple[str, list[str]], conn: asyncpg.Connection) -> None:  # noqa: F811
    """17-12: BROWSE answers the message (state 0, ready) and leaves it for the next reader."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(ex.EXAMPLE_17_1.replace("</message_set>", "</message_set><AQXmlCommit/>")
                         .encode())
        assert r.status == 200, r.body
        other = Client(url, "JOHN", "secret")  # another HTTP session browses it too
        try:
            for client in (c, other):
                r = await client.post(ex.EXAMPLE_17_12.encode())
                assert r.status == 200 and r.doc is not None, r.body
                compare(receive_response_for(ex.EXAMPLE_17_1, "QS.NEW_ORDERS_QUE"), r.doc)
                load_schemas().validate(r.doc)
            # within one session NEXT_MESSAGE (the default) moves on past what it browsed
            r = await c.post(ex.EXAMPLE_17_12.encode())
            assert r.text("//aq:message_count") == ["0"], r.body
            await other.post(ex.EXAMPLE_17_14.encode())
        finally:
            await other.close()
        await c.post(ex.EXAMPLE_17_14.encode())
        assert await conn.fetchval("SELECT count(*) FROM qs.orders_qt WHERE state = 0") == 1
        # still there for a REMOVE (from the first message: NEXT_MESSAGE, the default, would
        # go on after the position this session's browse left, as Oracle's navigation does)
        r = await c.post(ex.EXAMPLE_17_11.replace(
            "<wait_time>0</wait_time>",
            "<wait_time>0</wait_time><navigation_mode>FIRST_MESSAGE</navigation_mode>").encode())
        assert r.text("//aq:message_count") == ["1"], r.body
    finally:
        await c.close()


async def test_example_17_13_register(gw: tuple[str, list[str]], conn: asyncpg.Connection) -> None:  # noqa: F811
    """17-13: the registration is stored (and committed); the answer is status_response, the
    shape Oracle's guide gives AQXmlRegisterResponse (as 17-20 for a commit)."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(ex.EXAMPLE_17_13.encode())
        assert r.status == 200 and r.doc is not None, r.body
        compare(seed(ex.EXAMPLE_17_20.replace("AQXmlCommitResponse", "AQXmlRegisterResponse")), r.doc)
        load_schemas().validate(r.doc)
        row = await conn.fetchrow("SELECT consumer_name, notify_url, agent_name FROM aq.registrations "
                                  "WHERE consumer_name = 'APP1'")
        assert row is not None
        assert tuple(row) == ("APP1", "mailto:app1@hotmail.com", "JOHN")
    finally:
        await c.close()
