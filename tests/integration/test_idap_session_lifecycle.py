"""IDAP sessions over any sequence of requests: Oracle's example documents in the order a client
posts them, with the session cookie kept, across AQXmlCommit and AQXmlRollback.

Expected answers are Oracle's servlet's (Oracle Streams Advanced Queuing User's Guide and
Reference, Release 10.1, chapter 17 "Internet Access to Oracle Streams AQ", "User Sessions and
Transactions"): a commit or rollback ends the session's transaction and the next request starts
a new one; a rolled-back REMOVE is offered again to the same session, in queue order, its
delivery_count one higher; past max_retries (2 for QS.NEW_ORDERS_QUE) the message is in the
exception queue.
"""

from __future__ import annotations

import asyncio
import logging

import asyncpg
import pytest

from tests.unit import idap_examples as ex

from .gateway_support import Client, Reply, envelope, op
from .test_gateway import gw  # noqa: F401  (the fixture: queues and types of the examples)

COMMIT = ex.EXAMPLE_17_14.encode()
ROLLBACK = ex.EXAMPLE_17_15.encode()
SEND_NEW = ex.EXAMPLE_17_1.replace("<correlation>ORDER1</correlation>",
                                   "<correlation>NEW</correlation>").encode()
BROWSE = ex.EXAMPLE_17_12.encode()
BROWSE_IMMEDIATE = ex.EXAMPLE_17_12.replace(
    "<dequeue_mode>BROWSE</dequeue_mode>",
    "<visibility>IMMEDIATE</visibility><dequeue_mode>BROWSE</dequeue_mode>").encode()
RECEIVE = ex.EXAMPLE_17_7.encode()
RECEIVE_NEW_AND_COMMIT = ex.EXAMPLE_17_9.replace(
    "</consumer_options>", "</consumer_options><AQXmlCommit/>").encode()
RECEIVE_AND_COMMIT = ex.EXAMPLE_17_7.replace(
    "</consumer_options>", "</consumer_options><AQXmlCommit/>").encode()
RECEIVE_EXCEPTION_QUEUE = ex.EXAMPLE_17_7.replace(
    "QS.NEW_ORDERS_QUE", "QS.AQ$_ORDERS_QT_E").replace(
    "</consumer_options>", "</consumer_options><AQXmlCommit/>").encode()


def _ok(r: Reply) -> None:
    assert r.status == 200 and r.fault is None, r.body


async def _send_committed(c: Client, doc: bytes = SEND_NEW) -> str:
    r = await c.post(doc)
    _ok(r)
    [mid] = r.text("//aq:send_result/aq:message_id")
    _ok(await c.post(COMMIT))
    return mid


async def test_browse_commit_then_receive_and_commit(gw: tuple[str, list[str]]) -> None:  # noqa: F811
    """17-12, 17-14, then 17-9 with AQXmlCommit, all with the session's cookie."""
    url, _ = gw
    setup, c = Client(url, "john", "secret"), Client(url, "john", "secret")
    try:
        mid = await _send_committed(setup)
        r = await c.post(BROWSE)
        _ok(r)
        assert r.text("//aq:message_id") == [mid]
        _ok(await c.post(COMMIT))
        r = await c.post(RECEIVE_NEW_AND_COMMIT)
        _ok(r)
        assert r.text("//aq:message_id") == [mid]
        assert r.text("//aq:correlation") == ["NEW"]
        r = await c.post(RECEIVE_AND_COMMIT)  # the session goes on working
        _ok(r)
        assert r.text("//aq:message_id") == []
    finally:
        await setup.close()
        await c.close()


async def test_receive_rollback_then_browse_immediate(gw: tuple[str, list[str]]) -> None:  # noqa: F811
    """17-7 (REMOVE, no commit), 17-15, then 17-12 with IMMEDIATE visibility: the rolled-back
    message is there again, one delivery attempt counted."""
    url, _ = gw
    setup, c = Client(url, "john", "secret"), Client(url, "john", "secret")
    try:
        mid = await _send_committed(setup)
        r = await c.post(RECEIVE)
        _ok(r)
        assert r.text("//aq:message_id") == [mid]
        assert r.text("//aq:delivery_count") == ["0"]
        _ok(await c.post(ROLLBACK))
        r = await c.post(BROWSE_IMMEDIATE)
        _ok(r)
        assert r.text("//aq:message_id") == [mid]
        assert r.text("//aq:delivery_count") == ["1"]
    finally:
        await setup.close()
        await c.close()


async def test_poison_message_is_redelivered_then_moved_to_the_exception_queue(
        gw: tuple[str, list[str]], conn: asyncpg.Connection) -> None:  # noqa: F811
    """max_retries 2: three receive-and-rollback rounds in one session each get the message
    (delivery_count 0, 1, 2); the third rollback moves it to the exception queue."""
    url, _ = gw
    setup, c = Client(url, "john", "secret"), Client(url, "john", "secret")
    try:
        mid = await _send_committed(setup)
        for attempt in range(3):
            r = await c.post(RECEIVE)
            _ok(r)
            assert r.text("//aq:message_id") == [mid], attempt
            assert r.text("//aq:delivery_count") == [str(attempt)]
            _ok(await c.post(ROLLBACK))
        r = await c.post(RECEIVE_AND_COMMIT)
        _ok(r)
        assert r.text("//aq:message_id") == []
        # as in Oracle, an exception queue is dequeued once started for dequeue
        await conn.execute("CALL dbms_aqadm.start_queue('qs.aq$_orders_qt_e', enqueue => false, "
                           "dequeue => true)")
        r = await c.post(RECEIVE_EXCEPTION_QUEUE)
        _ok(r)
        assert r.text("//aq:message_id") == [mid]
    finally:
        await setup.close()
        await c.close()


async def test_a_rolled_back_session_receives_in_queue_order(gw: tuple[str, list[str]]) -> None:  # noqa: F811
    """Two messages received (no commit) then rolled back: offered again first to last."""
    url, _ = gw
    setup, c = Client(url, "john", "secret"), Client(url, "john", "secret")
    try:
        first = await _send_committed(setup)
        second = await _send_committed(setup)
        for expected in (first, second):
            r = await c.post(RECEIVE)
            assert r.text("//aq:message_id") == [expected]
        _ok(await c.post(ROLLBACK))
        got = []
        for _ in range(2):
            r = await c.post(RECEIVE)
            _ok(r)
            got += r.text("//aq:message_id")
        assert got == [first, second]
        assert (await c.post(RECEIVE)).text("//aq:message_id") == []
        _ok(await c.post(COMMIT))
    finally:
        await setup.close()
        await c.close()


@pytest.mark.parametrize("end", [COMMIT, ROLLBACK])
async def test_every_operation_works_after_the_transaction_ends(
        gw: tuple[str, list[str]], end: bytes, conn: asyncpg.Connection) -> None:  # noqa: F811
    """After a commit or rollback each kind of request, transactional or autocommit, is
    served (none is answered from a connection the session gave back)."""
    url, _ = gw
    c = Client(url, "john", "secret")
    try:
        documents = [
            SEND_NEW, RECEIVE, BROWSE, BROWSE_IMMEDIATE, RECEIVE_AND_COMMIT,
            ex.EXAMPLE_17_6.encode(), ex.EXAMPLE_17_13.encode(), RECEIVE_NEW_AND_COMMIT,
            envelope(op("AQXmlSend", "<producer_options><destination>AQUSER.RAW_MSGQ"
                        "</destination><visibility>IMMEDIATE</visibility></producer_options>"
                        "<message_set><message_count>1</message_count><message>"
                        "<message_number>1</message_number><message_payload><RAW>00FF</RAW>"
                        "</message_payload></message></message_set>")),
        ]
        for first in documents:
            for then in documents:
                _ok(await c.post(first))
                _ok(await c.post(end))
                r = await c.post(then)
                assert r.status == 200 and r.fault is None, (first[-300:], then[-300:], r.body)
                _ok(await c.post(ROLLBACK))
    finally:
        await c.close()


async def test_misuse_of_a_given_back_connection_fails_the_request_and_logs(
        gw: tuple[str, list[str]], caplog: pytest.LogCaptureFixture,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A defect put back: a session that keeps using its connection after giving it back is
    refused by the ownership check: the request fails alone with a Server fault naming
    what happened (not ORA-03113), an ERROR with the traceback is logged, and the next
    request of the session works."""
    from pgaq.idap import sessions

    url, _ = gw
    c = Client(url, "john", "secret")
    original = sessions.SessionStore.finish

    async def leaky_finish(self: sessions.SessionStore, s: sessions.HttpSession, *, commit: bool) -> None:
        lease = s.lease
        await original(self, s, commit=commit)
        if s.engine is not None and lease is not None:
            s.engine.bind(lease)  # the defect: the engine holds on to the given-back lease

    try:
        await _send_committed(c)
        with monkeypatch.context() as patched:
            patched.setattr(sessions.SessionStore, "finish", leaky_finish)
            _ok(await c.post(BROWSE))
            _ok(await c.post(COMMIT))
            with caplog.at_level(logging.ERROR):
                r = await c.post(RECEIVE_NEW_AND_COMMIT)
        assert r.status == 500 and r.fault is not None, r.body
        assert "ORA-03113" not in r.fault and "unavailable" not in r.fault
        assert "given back" in r.fault or "does not own" in r.fault, r.fault
        errors = [rec for rec in caplog.records if rec.levelno >= logging.ERROR]
        assert errors and any(rec.exc_info for rec in errors)
        r = await c.post(RECEIVE_NEW_AND_COMMIT)
        _ok(r)
        assert len(r.text("//aq:message_id")) == 1
    finally:
        await c.close()


async def test_a_subscriber_receives_while_another_holds_the_message(
        gw: tuple[str, list[str]], conn: asyncpg.Connection) -> None:  # noqa: F811
    """Two subscribers of one published message, each in its own session: S2's REMOVE with
    commit answers at once while S1's REMOVE is uncommitted (Oracle does not make one
    subscriber wait for another's transaction); after S1 commits the message is processed
    for both and offered to neither again."""
    url, roles = gw
    await conn.execute(f'SET ROLE "{roles[0]}"')
    await conn.execute("""
        CALL dbms_aqadm.create_queue_table('aquser.two_qt', 'RAW', multiple_consumers => true);
        CALL dbms_aqadm.create_queue('aquser.two_topic', 'aquser.two_qt');
        CALL dbms_aqadm.start_queue('aquser.two_topic');
        CALL dbms_aqadm.add_subscriber('aquser.two_topic', sys.aq$_agent('S1', NULL, NULL));
        CALL dbms_aqadm.add_subscriber('aquser.two_topic', sys.aq$_agent('S2', NULL, NULL));
    """)
    await conn.execute("RESET ROLE")

    def receive(consumer: str, commit: bool) -> bytes:
        return envelope(op("AQXmlReceive", (
            "<consumer_options><destination>AQUSER.TWO_TOPIC</destination>"
            f"<consumer_name>{consumer}</consumer_name><wait_time>0</wait_time>"
            "<dequeue_mode>REMOVE</dequeue_mode></consumer_options>"
            + ("<AQXmlCommit/>" if commit else ""))))

    publish = envelope(op("AQXmlPublish", (
        "<producer_options><destination>AQUSER.TWO_TOPIC</destination></producer_options>"
        "<message_set><message_count>1</message_count><message><message_number>1</message_number>"
        "<message_header><sender_id><agent_name>JOHN</agent_name></sender_id></message_header>"
        "<message_payload><RAW>0A0B</RAW></message_payload></message></message_set>"
        "<AQXmlCommit/>")))
    c0, c1, c2 = (Client(url, "john", "secret") for _ in range(3))
    try:
        r = await c0.post(publish)
        _ok(r)
        [mid] = r.text("//aq:publish_result/aq:message_id")
        r = await c1.post(receive("S1", commit=False))
        _ok(r)
        assert r.text("//aq:message_id") == [mid]
        r = await asyncio.wait_for(c2.post(receive("S2", commit=True)), 10)
        _ok(r)
        assert r.text("//aq:message_id") == [mid]
        _ok(await c1.post(COMMIT))
        for c, who in ((c1, "S1"), (c2, "S2")):
            r = await c.post(receive(who, commit=True))
            _ok(r)
            assert r.text("//aq:message_id") == []
        states = await conn.fetch("SELECT consumer_name, msg_state FROM aquser.aq$two_qt ORDER BY 1")
        assert [(s["consumer_name"], s["msg_state"]) for s in states] in (
            [("S1", "PROCESSED"), ("S2", "PROCESSED")], [])  # [] once the monitor removed it
    finally:
        for c in (c0, c1, c2):
            await c.close()
