"""Notifications end to end: registrations, the outbox, and the notifier delivering to a
real HTTP receiver on loopback, a real SMTP server (aiosmtpd) and PL/pgSQL procedures."""

from __future__ import annotations

import asyncio
import email
import logging
import threading
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import pytest
from aiohttp import web
from aiosmtpd.controller import Controller
from lxml import etree
from pgaq import Agent, MessageProperties, Session
from pgaq.clock import Clock
from pgaq.embedded import free_port
from pgaq.idap.schema import load_schemas
from pgaq.listener import Listener
from pgaq.notify.acl import POLICY
from pgaq.notify.dispatcher import Notifier
from pgaq.notify.settings import NotifierSettings

from .gateway_support import Client, drop_roles, envelope, make_agent, op, running_gateway
from .helpers import make_queue, subscribe

NS = {"s": "http://schemas.xmlsoap.org/soap/envelope/", "aq": "http://ns.oracle.com/AQ/schemas/access"}


# -- receivers ---------------------------------------------------------------------------
@dataclass
class Hit:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def doc(self) -> etree._Element:
        return etree.fromstring(self.body)

    def text(self, xpath: str) -> list[str]:
        return [e.text or "" for e in self.doc.xpath(xpath, namespaces=NS)]


@dataclass
class Receiver:
    """An HTTP endpoint: records every POST; answers per path from a script of statuses
    ("hang" never answers), 200 once the script is used up."""

    url: str = ""
    hits: asyncio.Queue[Hit] = field(default_factory=asyncio.Queue)
    script: dict[str, list[int | str]] = field(default_factory=dict)
    hold: asyncio.Event | None = None  # when set, every answer waits for this event

    async def handle(self, request: web.Request) -> web.Response:
        hit = Hit(request.path, dict(request.headers), await request.read())
        await self.hits.put(hit)
        plan = self.script.get(request.path) or []
        answer = plan.pop(0) if plan else 200
        if self.hold is not None:
            await self.hold.wait()
        if answer == "hang":
            await asyncio.Event().wait()  # until the client gives up
        assert isinstance(answer, int)
        return web.Response(status=answer, text="ok")

    async def next(self, timeout: float = 10.0) -> Hit:
        return await asyncio.wait_for(self.hits.get(), timeout)


@asynccontextmanager
async def serving(host: str = "127.0.0.1") -> AsyncIterator[Receiver]:
    rec = Receiver()
    app = web.Application()
    app.router.add_post("/{tail:.*}", rec.handle)
    runner = web.AppRunner(app, handler_cancellation=True)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, host, port).start()
    rec.url = f"http://{'[' + host + ']' if ':' in host else host}:{port}"
    try:
        yield rec
    finally:
        await runner.cleanup()


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    async with serving() as rec:
        yield rec


class Mailbox:
    """aiosmtpd handler (it runs in the controller's thread): refuses `refuse*@` recipients."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.got: asyncio.Queue[email.message.Message] = asyncio.Queue()
        self.release_slow = threading.Event()  # `slow*@` recipients wait for it

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: Any) -> str:
        if address.startswith("refuse"):
            return "550 5.1.1 no such user"
        if address.startswith("slow"):
            await asyncio.get_running_loop().run_in_executor(None, self.release_slow.wait)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = email.message_from_bytes(envelope.content)
        self.loop.call_soon_threadsafe(self.got.put_nowait, msg)
        return "250 Message accepted for delivery"


@pytest.fixture
async def smtp() -> AsyncIterator[tuple[int, Mailbox]]:
    box = Mailbox(asyncio.get_running_loop())
    port = free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    await asyncio.to_thread(controller.start)
    yield port, box
    box.release_slow.set()
    await asyncio.to_thread(controller.stop)


# -- the notifier ------------------------------------------------------------------------
Outcome = tuple[uuid.UUID, str, str | None]


@dataclass
class Running:
    notifier: Notifier
    outcomes: asyncio.Queue[Outcome]

    async def outcome(self, timeout: float = 10.0) -> Outcome:
        return await asyncio.wait_for(self.outcomes.get(), timeout)

    async def until(self, state: str, timeout: float = 10.0) -> Outcome:
        while True:
            got = await self.outcome(timeout)
            if got[1] == state:
                return got


Start = Callable[..., Awaitable[Running]]


@pytest.fixture
async def start_notifier(db_dsn: str) -> AsyncIterator[Start]:
    running: list[tuple[asyncio.Event, asyncio.Task[None], Listener, asyncpg.Pool]] = []

    async def start(clock: Clock | None = None, **overrides: Any) -> Running:
        base: dict[str, Any] = {"backoff_base": 0.05, "backoff_max": 0.2, "http_timeout": 2.0,
                                "smtp_timeout": 5.0, "safety_poll": 1.0, "max_attempts": 5,
                                "name": f"test-{len(running)}", "dsn": db_dsn}
        settings = NotifierSettings(**{**base, **overrides})
        pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=10)
        listener = Listener(db_dsn)
        await listener.start()
        outcomes: asyncio.Queue[Outcome] = asyncio.Queue()
        n = Notifier(pool, listener, settings, clock=clock,
                     on_outcome=lambda *o: outcomes.put_nowait(o))
        stop = asyncio.Event()
        task = asyncio.create_task(n.run(stop))
        running.append((stop, task, listener, pool))
        await listener.subscribed.wait()
        return Running(n, outcomes)

    yield start
    for stop, task, listener, pool in running:
        stop.set()
        await asyncio.wait_for(task, 30)
        await listener.close()
        await pool.close()


async def allow(conn: asyncpg.Connection, host: str = "127.0.0.1") -> None:
    await conn.execute("CALL aq.allow_notification_host($1)", host)


async def register(conn: asyncpg.Connection, queue: str, consumer: str | None, url: str,
                   **kw: Any) -> int:
    args = ", ".join(f"{k} => ${i}" for i, k in enumerate(kw, start=4))
    sql = f"SELECT aq.register($1, $2, $3{', ' + args if args else ''})"
    return int(await conn.fetchval(sql, queue, consumer, url, *kw.values()))


async def topic(conn: asyncpg.Connection, name: str = "aquser.emp_topic") -> None:
    await make_queue(conn, name, name + "_t", multiple=True)
    await subscribe(conn, name, "APP1")
    await subscribe(conn, name, "APP2")


# -- http --------------------------------------------------------------------------------
async def test_http_notification_after_commit(conn: asyncpg.Connection, receiver: Receiver,
                                              start_notifier: Start) -> None:
    await topic(conn)
    await allow(conn)
    await register(conn, "aquser.emp_topic", "APP1", f"{receiver.url}/app1")
    running = await start_notifier()
    s = Session(conn)
    mid = await s.enqueue("aquser.emp_topic", b"\x01\x02", MessageProperties(
        priority=3, correlation="order-7", sender_id=Agent("SHOP", None, 0),
        recipient_list=[Agent("APP1", None, 0), Agent("APP2", None, 0)]))
    hit = await receiver.next()
    assert hit.path == "/app1"
    assert hit.headers["Content-Type"].startswith("text/xml")
    load_schemas().validate(hit.doc)  # a valid AQXmlNotification envelope
    assert hit.text("//aq:notification_options/aq:destination") == ["AQUSER.EMP_TOPIC"]
    assert hit.text("//aq:notification_options/aq:consumer_name") == ["APP1"]
    assert hit.text("//aq:message_header/aq:message_id") == [mid]
    assert hit.text("//aq:message_header/aq:correlation") == ["order-7"]
    assert hit.text("//aq:message_header/aq:priority") == ["3"]
    assert hit.text("//aq:sender_id/aq:agent_name") == ["SHOP"]
    assert hit.doc.xpath("//aq:message_payload", namespaces=NS) == []  # properties only
    nid, _state, _ = await running.until("DELIVERED")
    assert str(nid) == hit.headers["X-Pgaq-Notification-Id"]
    row = await conn.fetchrow("SELECT state, attempts, msg_id, consumer_name FROM dba_aq_notifications")
    assert tuple(row) == ("DELIVERED", 1, mid, "APP1")
    # APP2 has no registration: nothing more was sent
    assert receiver.hits.empty()


async def test_rolled_back_enqueue_notifies_nobody(conn: asyncpg.Connection, receiver: Receiver,
                                                   start_notifier: Start) -> None:
    await make_queue(conn, "s.q")
    await allow(conn)
    await register(conn, "s.q", None, f"{receiver.url}/q")
    running = await start_notifier()
    s = Session(conn)
    await s.begin()
    await s.enqueue("s.q", b"x")
    assert await conn.fetchval("SELECT count(*) FROM aq.notifications") == 1  # in the transaction
    await s.rollback()
    assert await conn.fetchval("SELECT count(*) FROM aq.notifications") == 0
    kept = await s.enqueue("s.q", b"y")
    hit = await receiver.next()
    assert hit.text("//aq:message_id") == [kept]  # the first one the receiver ever saw
    await running.until("DELIVERED")
    assert receiver.hits.empty()


async def test_committed_while_the_notifier_was_down_is_delivered(
        conn: asyncpg.Connection, receiver: Receiver, start_notifier: Start) -> None:
    await make_queue(conn, "s.q")
    await allow(conn)
    await register(conn, "s.q", None, f"{receiver.url}/q")
    ids = [await Session(conn).enqueue("s.q", bytes([i])) for i in range(5)]
    await start_notifier()
    got = [(await receiver.next()).text("//aq:message_id")[0] for _ in ids]
    assert sorted(got) == sorted(ids)


async def test_retries_with_backoff_then_delivers(conn: asyncpg.Connection, receiver: Receiver,
                                                  start_notifier: Start) -> None:
    await make_queue(conn, "s.q")
    await allow(conn)
    await register(conn, "s.q", None, f"{receiver.url}/flaky")
    receiver.script["/flaky"] = [500, 503]
    running = await start_notifier()
    await Session(conn).enqueue("s.q", b"x")
    hits = [await receiver.next() for _ in range(3)]
    ids = {h.headers["X-Pgaq-Notification-Id"] for h in hits}
    assert len(ids) == 1  # the same notification each time: receivers can drop duplicates
    assert [h.headers["X-Pgaq-Attempt"] for h in hits] == ["1", "2", "3"]
    assert [o[1] for o in [await running.outcome() for _ in range(3)]] == ["PENDING", "PENDING", "DELIVERED"]
    row = await conn.fetchrow("SELECT state, attempts, last_error FROM aq.notifications")
    assert tuple(row) == ("DELIVERED", 3, None)


async def test_finished_notifications_are_pruned(conn: asyncpg.Connection, receiver: Receiver,
                                                 start_notifier: Start) -> None:
    await make_queue(conn, "s.q")
    await allow(conn)
    await register(conn, "s.q", None, f"{receiver.url}/p")
    running = await start_notifier(keep_delivered=0.0)
    await Session(conn).enqueue("s.q", b"x")
    await running.until("DELIVERED")
    assert await running.notifier.housekeep() == 1
    assert await conn.fetchval("SELECT count(*) FROM aq.notifications") == 0


async def test_gives_up_after_max_attempts(conn: asyncpg.Connection, receiver: Receiver,
                                           start_notifier: Start) -> None:
    await make_queue(conn, "s.q")
    await allow(conn)
    await register(conn, "s.q", None, f"{receiver.url}/down")
    receiver.script["/down"] = [500] * 10
    running = await start_notifier(max_attempts=3)
    await Session(conn).enqueue("s.q", b"x")
    _, _state, error = await running.until("FAILED")
    assert error == "HTTP 500 Internal Server Error"
    row = await conn.fetchrow("SELECT state, attempts, last_error FROM dba_aq_notifications")
    assert tuple(row) == ("FAILED", 3, "HTTP 500 Internal Server Error")
    assert receiver.hits.qsize() == 3


async def test_client_errors_are_not_retried(conn: asyncpg.Connection, receiver: Receiver,
                                             start_notifier: Start) -> None:
    await make_queue(conn, "s.q")
    await allow(conn)
    await register(conn, "s.q", None, f"{receiver.url}/gone")
    receiver.script["/gone"] = [404]
    running = await start_notifier()
    await Session(conn).enqueue("s.q", b"x")
    _, state, error = await running.outcome()
    assert state == "FAILED" and error is not None and error.startswith("HTTP 404")
    assert await conn.fetchval("SELECT attempts FROM aq.notifications") == 1


async def test_a_hanging_endpoint_does_not_delay_others(conn: asyncpg.Connection, receiver: Receiver,
                                                        start_notifier: Start) -> None:
    await make_queue(conn, "s.q")
    await allow(conn)
    await register(conn, "s.q", None, f"{receiver.url}/slow")
    # the same receiver under another name: another destination
    await allow(conn, "localhost")
    fast = receiver.url.replace("127.0.0.1", "localhost") + "/fast"
    await register(conn, "s.q", None, fast)
    receiver.script["/slow"] = ["hang"] * 20
    running = await start_notifier(http_timeout=5.0, per_destination=2)
    for i in range(4):
        await Session(conn).enqueue("s.q", bytes([i]))
    fast_hits = 0
    while fast_hits < 4:  # all four reach /fast while /slow hangs
        hit = await receiver.next(timeout=4.0)
        fast_hits += hit.path == "/fast"
    states = [await running.until("DELIVERED") for _ in range(4)]
    assert len(states) == 4


async def test_ip_literals_are_checked_when_delivering(conn: asyncpg.Connection,
                                                      start_notifier: Start) -> None:
    """aiohttp connects to IP literals without asking the resolver, where host names are
    checked: literals are checked before connecting, against the list as it is now (read
    for each attempt: no re-read is asked for), an IPv4-mapped IPv6 address as its IPv4
    address, and odd numeric hosts not at all (final: no list makes them hosts)."""
    await make_queue(conn, "s.q")
    await allow(conn, "127.0.0.1")
    await allow(conn, "::1")
    async with serving("127.0.0.1") as v4, serving("::1") as v6:
        mapped = v4.url.replace("127.0.0.1", "[::ffff:127.0.0.1]")
        for url in (f"{v4.url}/v4", f"{v6.url}/v6", f"{mapped}/mapped"):
            await register(conn, "s.q", None, url)
        running = await start_notifier(max_attempts=2)
        await Session(conn).enqueue("s.q", b"1")
        assert {(await running.outcome())[1] for _ in range(3)} == {"DELIVERED"}
        assert sorted([(await v4.next()).path, (await v4.next()).path, (await v6.next()).path]) == [
            "/mapped", "/v4", "/v6"]
        # the operator changes their mind: nothing reaches those addresses any more
        await conn.execute("CALL aq.remove_notification_host('127.0.0.1')")
        await conn.execute("CALL aq.allow_notification_host('::/0')")
        await conn.execute("CALL aq.deny_notification_host('127.0.0.0/8')")
        await conn.execute("CALL aq.deny_notification_host('::1')")
        await Session(conn).enqueue("s.q", b"2")
        outcomes = [await running.outcome() for _ in range(6)]  # each refused at both attempts
        assert sorted(o[1] for o in outcomes) == ["FAILED"] * 3 + ["PENDING"] * 3, outcomes
        assert all(o[2] is not None and "may not go to" in o[2] and POLICY in o[2]
                   for o in outcomes), outcomes
        # and numeric hosts that are not dotted quads are refused when registering...
        for odd in ("2130706433", "0x7f.1", "127.1", "0177.0.0.1"):
            with pytest.raises(asyncpg.PostgresError, match="ORA-24940"):
                await register(conn, "s.q", None, v4.url.replace("127.0.0.1", odd) + "/odd")
        with pytest.raises(asyncpg.PostgresError, match="ORA-24950"):  # mapped: judged as 127.0.0.1
            await register(conn, "s.q", None, f"{mapped}/again")
        # ... and when delivering (a row from before this rule)
        await conn.execute("CALL aq.allow_notification_host('127.0.0.0/8')")
        await conn.execute("CALL aq.allow_notification_host('*.1')")
        for odd in ("2130706433", "0x7f.1"):
            url = v4.url.replace("127.0.0.1", odd) + "/odd"
            await conn.execute("INSERT INTO aq.notifications (queue_name, reg_name, url, dest_key, owner) "
                               "VALUES ('s.q', 's.q', $1, $1, current_user)", url)
            await conn.execute("SELECT pg_notify('aq_notify', '')")
            _, state, error = await running.outcome()
            assert state == "FAILED" and error is not None and "dotted quads" in error
        assert v4.hits.empty() and v6.hits.empty()


async def test_raw_payload_delivery_and_raw_presentation(conn: asyncpg.Connection, receiver: Receiver,
                                                         start_notifier: Start) -> None:
    await make_queue(conn, "s.q")
    await allow(conn)
    await register(conn, "s.q", None, f"{receiver.url}/xml", p_qosflags=2)
    await register(conn, "s.q", None, f"{receiver.url}/raw", p_qosflags=2, p_presentation="RAW")
    await start_notifier()
    mid = await Session(conn).enqueue("s.q", b"\xca\xfe")
    hits = {h.path: h for h in [await receiver.next(), await receiver.next()]}
    assert hits["/xml"].text("//aq:message_payload/aq:RAW") == ["CAFE"]
    assert hits["/raw"].body == b"\xca\xfe"
    assert hits["/raw"].headers["Content-Type"] == "application/octet-stream"
    assert hits["/raw"].headers["X-Pgaq-Message-Id"] == mid


async def test_purge_on_first_notification(conn: asyncpg.Connection, receiver: Receiver,
                                           start_notifier: Start) -> None:
    await topic(conn)
    await allow(conn)
    await conn.execute("""CALL dbms_aq.register(sys.aq$_reg_info_list(
        sys.aq$_reg_info('AQUSER.EMP_TOPIC:APP1', dbms_aq.namespace_aq(), $1, NULL,
                         dbms_aq.ntfn_qos_purge_ntfn())), 1)""", f"{receiver.url}/once")
    running = await start_notifier()
    first = await Session(conn).enqueue("aquser.emp_topic", b"1")
    await Session(conn).enqueue("aquser.emp_topic", b"2")
    assert (await receiver.next()).text("//aq:message_id") == [first]
    await running.until("DELIVERED")
    assert await conn.fetchval("SELECT count(*) FROM aq.registrations") == 0
    assert await conn.fetchval("SELECT count(*) FROM aq.notifications") == 1
    assert not await conn.fetchval("SELECT notify FROM aq.queues WHERE queue_name = 'emp_topic'")


async def test_registration_timeout_sends_a_last_notification(
        conn: asyncpg.Connection, receiver: Receiver, start_notifier: Start) -> None:
    await make_queue(conn, "s.q")
    await allow(conn)
    await register(conn, "s.q", None, f"{receiver.url}/t", p_timeout=1)
    running = await start_notifier()
    hit = await receiver.next(timeout=10.0)  # the notifier's timer: no message was enqueued
    assert hit.headers["X-Pgaq-Notification-Event"] == "TIMEOUT"
    assert hit.text("//aq:message_set/aq:message_count") == ["0"]
    load_schemas().validate(hit.doc)
    await running.until("DELIVERED")
    assert await conn.fetchval("SELECT count(*) FROM aq.registrations") == 0
    await Session(conn).enqueue("s.q", b"late")
    assert await conn.fetchval("SELECT count(*) FROM aq.notifications") == 1


async def test_a_lost_claim_is_sent_again_with_the_same_id(conn: asyncpg.Connection, receiver: Receiver,
                                                           start_notifier: Start) -> None:
    """A notifier killed between sending and recording: its lease runs out and another
    notifier sends the notification again, under the same id."""
    from datetime import UTC, datetime

    from pgaq.queries import load

    await make_queue(conn, "s.q")
    await allow(conn)
    await register(conn, "s.q", None, f"{receiver.url}/again")
    await Session(conn).enqueue("s.q", b"x")
    # the dead notifier claimed it with a short lease and never recorded anything
    claimed = await conn.fetch(load("notify_claim"), "dead", datetime.now(UTC), 0.3, 10, 10, [])
    assert len(claimed) == 1
    running = await start_notifier()
    hit = await receiver.next()
    assert hit.headers["X-Pgaq-Notification-Id"] == str(claimed[0]["id"])
    assert hit.headers["X-Pgaq-Attempt"] == "2"
    await running.until("DELIVERED")


async def test_two_notifiers_send_each_notification_once(conn: asyncpg.Connection, receiver: Receiver,
                                                         start_notifier: Start) -> None:
    await make_queue(conn, "s.q")
    await allow(conn)
    await register(conn, "s.q", None, f"{receiver.url}/both")
    a = await start_notifier()
    b = await start_notifier()
    await Session(conn).enqueue_array("s.q", [(bytes([i % 256]), None) for i in range(200)])
    seen = [(await receiver.next()).headers["X-Pgaq-Notification-Id"] for _ in range(200)]
    assert len(set(seen)) == 200
    outcomes: list[Outcome] = []
    while len(outcomes) < 200:  # each notifier records its deliveries after the answers
        outcomes += await _from_either(a.outcomes, b.outcomes)
    assert {state for _, state, _ in outcomes} == {"DELIVERED"}
    assert a.notifier.delivered + b.notifier.delivered == 200
    assert await conn.fetchval("SELECT count(*) FROM aq.notifications WHERE state <> 'DELIVERED'") == 0
    assert receiver.hits.empty()


async def _from_either(*queues: asyncio.Queue[Outcome], timeout: float = 10.0) -> list[Outcome]:
    """The next outcomes of whichever notifier has one; a cancelled get takes nothing."""
    gets = [asyncio.ensure_future(q.get()) for q in queues]
    done, pending = await asyncio.wait(gets, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    for g in pending:
        g.cancel()
    assert done, "no notifier recorded an outcome"
    return [g.result() for g in done]


# -- mail --------------------------------------------------------------------------------
async def test_mail_notification(conn: asyncpg.Connection, smtp: tuple[int, Mailbox],
                                 start_notifier: Start) -> None:
    port, box = smtp
    await conn.execute("CALL dbms_aqelm.set_mailhost('127.0.0.1')")
    await conn.execute("CALL dbms_aqelm.set_mailport($1)", port)
    await conn.execute("CALL dbms_aqelm.set_sendfrom('aq@example.com')")
    assert await conn.fetchval("CALL dbms_aqelm.get_mailport(NULL)") == port
    await topic(conn)
    await register(conn, "aquser.emp_topic", "APP1", "mailto:app1@example.com")
    running = await start_notifier()
    mid = await Session(conn).enqueue("aquser.emp_topic", b"m")
    msg = await asyncio.wait_for(box.got.get(), 10)
    nid, _state, _ = await running.until("DELIVERED")
    assert msg["To"] == "app1@example.com" and msg["From"] == "aq@example.com"
    assert msg["Message-ID"] == f"<{nid}@pgaq>" and msg["X-Pgaq-Notification-Id"] == str(nid)
    body = msg.get_payload(decode=True)
    assert isinstance(body, bytes)
    doc = etree.fromstring(body)
    assert [e.text for e in doc.xpath("//aq:message_id", namespaces=NS)] == [mid]
    assert [e.text for e in doc.xpath("//aq:consumer_name", namespaces=NS)] == ["APP1"]


async def test_mail_over_starttls_with_login(conn: asyncpg.Connection, tmp_path: Any,
                                             start_notifier: Start) -> None:
    import ssl
    import subprocess

    from aiosmtpd.smtp import AuthResult, LoginPassword

    cert, key = tmp_path / "smtp.pem", tmp_path / "smtp.key"
    await asyncio.to_thread(
        subprocess.run, ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                         "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(str(cert), str(key))
    logins: list[tuple[bytes, bytes]] = []

    def authenticator(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and (data.login, data.password) == (b"aq", b"s3cret")
        if isinstance(data, LoginPassword):
            logins.append((data.login, data.password))
        return AuthResult(success=ok)

    box = Mailbox(asyncio.get_running_loop())
    port = free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port, tls_context=server_tls,
                            require_starttls=True, auth_required=True, auth_require_tls=True,
                            authenticator=authenticator)
    await asyncio.to_thread(controller.start)
    try:
        await conn.execute("CALL dbms_aqelm.set_mailhost('127.0.0.1')")
        await conn.execute("CALL dbms_aqelm.set_mailport($1)", port)
        await make_queue(conn, "s.q")
        await register(conn, "s.q", None, "mailto:ops@example.com")
        running = await start_notifier(smtp_starttls=True, smtp_user="aq", smtp_password="s3cret",
                                       smtp_cafile=str(cert))
        await Session(conn).enqueue("s.q", b"m")
        msg = await asyncio.wait_for(box.got.get(), 10)
        await running.until("DELIVERED")
        assert msg["To"] == "ops@example.com" and logins == [(b"aq", b"s3cret")]
    finally:
        await asyncio.to_thread(controller.stop)


async def test_mail_to_a_refused_recipient_fails_at_once(conn: asyncpg.Connection, smtp: tuple[int, Mailbox],
                                                          start_notifier: Start) -> None:
    port, box = smtp
    await conn.execute("CALL dbms_aqelm.set_mailhost('127.0.0.1')")
    await conn.execute("CALL dbms_aqelm.set_mailport($1)", port)
    await make_queue(conn, "s.q")
    await register(conn, "s.q", None, "mailto://refuse@example.com")
    running = await start_notifier(max_attempts=3)
    await Session(conn).enqueue("s.q", b"m")
    _, state, error = await running.outcome()
    assert state == "FAILED" and error is not None and "refused" in error  # 550: not retried
    assert box.got.empty()


async def test_mail_to_a_server_that_is_down_is_retried_then_fails(conn: asyncpg.Connection,
                                                                   start_notifier: Start) -> None:
    await conn.execute("CALL dbms_aqelm.set_mailhost('127.0.0.1')")
    await conn.execute("CALL dbms_aqelm.set_mailport($1)", free_port())  # nobody listens there
    await make_queue(conn, "s.q")
    await register(conn, "s.q", None, "mailto:ok@example.com")
    running = await start_notifier(max_attempts=3)
    await Session(conn).enqueue("s.q", b"n")
    outcomes = [await running.outcome() for _ in range(3)]
    assert [o[1] for o in outcomes] == ["PENDING", "PENDING", "FAILED"]
    assert outcomes[-1][2]  # with the connection error


# -- plsql -------------------------------------------------------------------------------
PROC = """
CREATE TABLE app.log (who name, context bytea, reg_name text, namespace integer, callback text,
                      msg_id bytea, consumer text, queue text, priority integer,
                      correlation text, flags integer, payload bytea, payloadl integer);
CREATE PROCEDURE app.on_new_order(context bytea, reginfo sys.aq$_reg_info,
                                  descr sys.aq$_descriptor, payload bytea, payloadl integer)
LANGUAGE plpgsql AS $$
BEGIN
  IF (descr.msg_prop).correlation = 'boom' THEN
    RAISE EXCEPTION 'the callback failed';
  END IF;
  INSERT INTO app.log VALUES (current_user, context, reginfo.name, reginfo.namespace, reginfo.callback,
                              descr.msg_id, descr.consumer_name, descr.queue_name,
                              (descr.msg_prop).priority, (descr.msg_prop).correlation,
                              descr.ntfn_flags, payload, payloadl);
END $$;
"""


async def test_plsql_callback_runs_as_the_owner(conn: asyncpg.Connection, start_notifier: Start) -> None:
    owner = f"app_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{owner}"')
    try:
        await conn.execute(f'CREATE SCHEMA app AUTHORIZATION "{owner}"')
        await conn.execute(f'SET ROLE "{owner}"')
        await conn.execute(PROC)
        await conn.execute("RESET ROLE")
        await make_queue(conn, "s.q")
        await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('DEQUEUE', 's.q', '{owner}')")
        await conn.execute(f'SET ROLE "{owner}"')
        await conn.execute("""CALL dbms_aq.register(sys.aq$_reg_info_list(
            sys.aq$_reg_info('S.Q', dbms_aq.namespace_aq(), 'plsql://app.on_new_order?PR=0',
                             '\\xc0ffee'::bytea, dbms_aq.ntfn_qos_payload())), 1)""")
        await conn.execute("RESET ROLE")
        running = await start_notifier()
        mid = await Session(conn).enqueue("s.q", b"\x00\x01\x02", MessageProperties(priority=4,
                                                                                     correlation="c1"))
        await running.until("DELIVERED")
        row = await conn.fetchrow("SELECT * FROM app.log")
        assert row["who"] == owner and row["context"] == b"\xc0\xff\xee"
        assert row["reg_name"] == "s.q" and row["callback"] == "plsql://app.on_new_order?PR=0"
        assert row["msg_id"].hex().upper() == mid and row["queue"] == "s.q" and row["consumer"] is None
        assert (row["priority"], row["correlation"], row["flags"]) == (4, "c1", 0)
        assert (row["payload"], row["payloadl"]) == (b"\x00\x01\x02", 3)
        # a procedure that raises: recorded, retried, nothing half-done
        await Session(conn).enqueue("s.q", b"z", MessageProperties(correlation="boom"))
        _, state, error = await running.outcome()
        assert state == "PENDING" and error is not None and "the callback failed" in error
        assert await conn.fetchval("SELECT count(*) FROM app.log") == 1
    finally:
        await conn.execute("RESET ROLE")
        await conn.execute(f'DROP OWNED BY "{owner}" CASCADE')
        await conn.execute(f'DROP ROLE "{owner}"')


ESCAPES = r"""
CREATE TABLE app.guarded (x int);  -- made by the superuser: the owner may not write it
CREATE TABLE app.later (x int);
CREATE FUNCTION app.escape_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RESET ROLE;
  INSERT INTO app.guarded VALUES (99);
  RETURN NULL;
END $$;
"""

ESCAPING_PROC = r"""
CREATE PROCEDURE app.escape(context bytea, reginfo sys.aq$_reg_info, descr sys.aq$_descriptor,
                            payload bytea, payloadl integer)
LANGUAGE plpgsql AS $$
DECLARE
  how text := (descr.msg_prop).correlation;
BEGIN
  IF how = 'set role' THEN
    SET ROLE NONE;
  ELSIF how = 'reset role' THEN
    RESET ROLE;
  ELSIF how = 'set_config' THEN
    PERFORM set_config('role', 'none', false);
  ELSIF how = 'session' THEN
    SET SESSION AUTHORIZATION DEFAULT;
  ELSIF how = 'pg_authid' THEN
    PERFORM count(*) FROM pg_authid;
  ELSIF how = 'at commit' THEN
    -- a deferred trigger fires at COMMIT, after the procedure returned
    CREATE CONSTRAINT TRIGGER later AFTER INSERT ON app.later DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION app.escape_at_commit();
    INSERT INTO app.later VALUES (1);
    RETURN;
  END IF;
  INSERT INTO app.guarded VALUES (1);
END $$;
"""


async def test_plsql_callback_cannot_regain_privileges(conn: asyncpg.Connection,
                                                       start_notifier: Start) -> None:
    """The notifier logs in as a superuser; a procedure that tries to get back to that
    login (SET ROLE NONE, RESET ROLE, set_config, SET SESSION AUTHORIZATION, a trigger
    deferred to the commit) or to read pg_authid fails, and its notification is FAILED at
    once with the error."""
    owner = f"app_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{owner}"')
    try:
        await conn.execute(f'CREATE SCHEMA app AUTHORIZATION "{owner}"')
        await conn.execute(ESCAPES)
        await conn.execute(f'ALTER TABLE app.later OWNER TO "{owner}"')
        await conn.execute(f'ALTER FUNCTION app.escape_at_commit() OWNER TO "{owner}"')
        await conn.execute(f'SET ROLE "{owner}"')
        await conn.execute(ESCAPING_PROC)
        await conn.execute("RESET ROLE")
        await make_queue(conn, "s.q")
        await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('DEQUEUE', 's.q', '{owner}')")
        await conn.execute(f'SET ROLE "{owner}"')
        await register(conn, "s.q", None, "plsql://app.escape")
        await conn.execute("RESET ROLE")
        running = await start_notifier(max_attempts=100)
        for how in ("set role", "reset role", "set_config", "session", "pg_authid", "at commit"):
            await Session(conn).enqueue("s.q", b"x", MessageProperties(correlation=how))
            _, state, error = await running.outcome()
            assert state == "FAILED", (how, state, error)
            assert error is not None and "InsufficientPrivilege" in error, (how, error)
            assert await conn.fetchval("SELECT count(*) FROM app.guarded") == 0, how
        failed = await conn.fetch("SELECT state, attempts, last_error FROM aq.dba_aq_notifications")
        assert [(r["state"], r["attempts"]) for r in failed] == [("FAILED", 1)] * 6
        assert all(r["last_error"] for r in failed)
        # the procedure still does what its owner may
        await Session(conn).enqueue("s.q", b"x", MessageProperties(correlation="fine"))
        _, state, error = await running.outcome()  # app.guarded is not the owner's
        assert state == "FAILED" and error is not None and "permission denied" in error
        await conn.execute(f'GRANT INSERT ON app.guarded TO "{owner}"')
        await Session(conn).enqueue("s.q", b"x", MessageProperties(correlation="fine"))
        assert (await running.outcome())[1] == "DELIVERED"
        assert await conn.fetchval("SELECT count(*) FROM app.guarded") == 1
        # the owner cannot reach its trampoline to change it; one changed anyway is remade
        runner = f"aq_callbacks.run_{await conn.fetchval('SELECT oid FROM pg_roles WHERE rolname = $1', owner)}"
        await conn.execute(f'SET ROLE "{owner}"')
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.execute(f"ALTER FUNCTION {runner}(uuid, text) SECURITY INVOKER")
        await conn.execute("RESET ROLE")
        await conn.execute(f"ALTER FUNCTION {runner}(uuid, text) SECURITY INVOKER")
        await Session(conn).enqueue("s.q", b"x", MessageProperties(correlation="fine"))
        assert (await running.outcome())[1] == "DELIVERED"
        assert await conn.fetchval(f"SELECT prosecdef FROM pg_proc WHERE oid = '{runner}'::regproc")
        assert await conn.fetchval("SELECT count(*) FROM app.guarded") == 2
    finally:
        await conn.execute("RESET ROLE")
        await conn.execute(f'DROP OWNED BY "{owner}" CASCADE')
        await conn.execute(f'DROP ROLE "{owner}"')


async def test_missing_procedure_is_retried_until_it_exists(conn: asyncpg.Connection,
                                                            start_notifier: Start) -> None:
    await make_queue(conn, "s.q")
    await conn.execute("CREATE SCHEMA app")
    await register(conn, "s.q", None, "plsql://app.on_new_order")
    running = await start_notifier(backoff_base=0.2, backoff_max=0.2, max_attempts=100)
    await Session(conn).enqueue("s.q", b"x")
    _, state, error = await running.outcome()
    assert state == "PENDING" and error is not None and "does not exist" in error
    await conn.execute(PROC)
    await running.until("DELIVERED")
    assert await conn.fetchval("SELECT count(*) FROM app.log") == 1


SLOW_PROCS = r"""
CREATE TABLE app.done (who text);
CREATE PROCEDURE app.slow(context bytea, reginfo sys.aq$_reg_info, descr sys.aq$_descriptor,
                          payload bytea, payloadl integer)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(42);  -- the test holds it
  INSERT INTO app.done VALUES ('slow');
END $$;
CREATE PROCEDURE app.fast(context bytea, reginfo sys.aq$_reg_info, descr sys.aq$_descriptor,
                          payload bytea, payloadl integer)
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO app.done VALUES ('fast');
END $$;
CREATE PROCEDURE app.hang(context bytea, reginfo sys.aq$_reg_info, descr sys.aq$_descriptor,
                          payload bytea, payloadl integer)
LANGUAGE plpgsql AS $$
BEGIN
  SET statement_timeout = 0;
  LOOP
    BEGIN
      PERFORM pg_sleep(60);
    EXCEPTION WHEN query_canceled THEN
      NULL;  -- shrugs off the cancel
    END;
  END LOOP;
END $$;
"""


async def test_slow_destinations_do_not_delay_fast_ones(conn: asyncpg.Connection, receiver: Receiver,
                                                       smtp: tuple[int, Mailbox],
                                                       start_notifier: Start) -> None:
    """Twelve calls of a blocked procedure, one that ignores cancels, and mail to a
    recipient the SMTP server sits on: a fast procedure, an HTTP receiver and other mail
    are served meanwhile; the slow ones are held to their timeouts."""
    port, box = smtp
    await conn.execute("CALL dbms_aqelm.set_mailhost('127.0.0.1')")
    await conn.execute("CALL dbms_aqelm.set_mailport($1)", port)
    await conn.execute("CREATE SCHEMA app")
    await conn.execute(SLOW_PROCS)
    await allow(conn)
    for q in ("s.slow", "s.hang", "s.mail", "s.fast"):
        await make_queue(conn, q, q + "_t")
    await register(conn, "s.slow", None, "plsql://app.slow")
    await register(conn, "s.hang", None, "plsql://app.hang")
    await register(conn, "s.mail", None, "mailto:slow@example.com")
    for url in ("plsql://app.fast", "mailto:fast@example.com", f"{receiver.url}/fast"):
        await register(conn, "s.fast", None, url)
    await conn.execute("SELECT pg_advisory_lock(42)")
    running = await start_notifier(plsql_timeout=6.0, smtp_timeout=6.0, plsql_per_destination=2,
                                   plsql_connections=4, smtp_connections=2, max_attempts=100)
    for _ in range(12):
        await Session(conn).enqueue("s.slow", b"s")
    await Session(conn).enqueue("s.hang", b"h")
    await Session(conn).enqueue("s.mail", b"m")
    await Session(conn).enqueue("s.fast", b"f")
    fast = {r["id"] for r in await conn.fetch(
        "SELECT id FROM aq.notifications WHERE queue_name = 's.fast'")}
    first = [await running.outcome(timeout=5.0) for _ in range(3)]  # before any timeout
    assert {(i, state) for i, state, _ in first} == {(i, "DELIVERED") for i in fast}
    assert await conn.fetchval("SELECT array_agg(who) FROM app.done") == ["fast"]
    assert (await receiver.next()).path == "/fast"
    assert (await box.got.get())["To"] == "fast@example.com"
    await conn.execute("SELECT pg_advisory_unlock(42)")
    # the slow procedure's calls go through; the hanging one and the mail are cut off at
    # their timeouts (and not retried here)
    delivered = 0
    late: list[str] = []
    while delivered < 12 or len(late) < 2:
        i, state, error = await running.outcome(timeout=15.0)
        if state == "DELIVERED":
            delivered += 1
            continue
        assert state == "PENDING" and error is not None and "within 6 s" in error, error
        late.append(error)
        await conn.execute("DELETE FROM aq.notifications WHERE id = $1", i)
    assert sorted(e.split()[1] for e in late) == ["SMTP", "procedure"]
    assert await conn.fetchval("SELECT count(*) FROM app.done WHERE who = 'slow'") == 12


# -- registrations: forms, rules and bad input ------------------------------------------
@pytest.mark.parametrize("url, code", [
    ("ftp://example.com/x", "24940"),
    ("http://", "24940"),
    ("mailto:not-an-address", "24940"),
    ("plsql://no_schema", "24940"),
    ("plsql://a.b; DROP TABLE x", "24940"),
    ("http://10.0.0.1/x", "24950"),  # not on the allow list
])
async def test_bad_notify_urls_are_refused(conn: asyncpg.Connection, url: str, code: str) -> None:
    await make_queue(conn, "s.q")
    await allow(conn)
    with pytest.raises(asyncpg.PostgresError, match=f"ORA-{code}"):
        await register(conn, "s.q", None, url)
    assert await conn.fetchval("SELECT count(*) FROM aq.registrations") == 0


async def test_registration_rules(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn, "s.q")
    await topic(conn)
    await allow(conn)
    await conn.execute("CALL aq.deny_notification_host('127.0.0.2')")
    await conn.execute("CALL aq.allow_notification_host('127.0.0.0/8')")
    with pytest.raises(asyncpg.PostgresError, match="ORA-24039"):  # consumer on a single-consumer queue
        await register(conn, "s.q", "APP1", "mailto:a@example.com")
    with pytest.raises(asyncpg.PostgresError, match="ORA-25231"):  # none on a multi-consumer one
        await register(conn, "aquser.emp_topic", None, "mailto:a@example.com")
    with pytest.raises(asyncpg.PostgresError, match="ORA-24950"):  # a deny wins over the /8
        await register(conn, "s.q", None, "http://127.0.0.2:9/x")
    with pytest.raises(asyncpg.PostgresError, match="ORA-24948"):  # payload delivery: RAW queues
        await make_queue(conn, "s.obj", "s.objt", "sys.aq$_jms_text_message")
        await register(conn, "s.obj", None, "mailto:a@example.com", p_qosflags=2)
    await register(conn, "s.q", None, "http://127.0.0.3:9/x")
    # a limit per agent or role
    await conn.execute("CALL aq.set_max_registrations(2)")
    await register(conn, "s.q", None, "mailto:b@example.com")
    await register(conn, "s.q", None, "mailto:b@example.com")  # the same one again: an update
    with pytest.raises(asyncpg.PostgresError, match="ORA-24951"):
        await register(conn, "s.q", None, "mailto:c@example.com")
    # another role: no dequeue right, no registration; and it cannot remove ours
    role = f"eve_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{role}" LOGIN')
    try:
        eve = await asyncpg.connect(db_dsn.replace("postgres@", f"{role}@"))
        try:
            with pytest.raises(asyncpg.PostgresError, match="ORA-01031"):
                await register(eve, "s.q", None, "mailto:eve@example.com")
            await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('DEQUEUE', 's.q', '{role}')")
            with pytest.raises(asyncpg.PostgresError, match="ORA-24952"):
                await eve.fetchval("SELECT aq.unregister('s.q', NULL, 'mailto:b@example.com')")
            assert await eve.fetchval("SELECT count(*) FROM dba_subscr_registrations") == 0
            await register(eve, "s.q", None, "mailto:eve@example.com")
            assert await eve.fetchval("SELECT user_name FROM user_subscr_registrations") == role
            with pytest.raises(asyncpg.PostgresError, match="ORA-01031"):
                await eve.execute("CALL dbms_aqelm.set_mailhost('evil.example.com')")
            with pytest.raises(asyncpg.PostgresError, match="ORA-01031"):
                await eve.execute("CALL aq.allow_notification_host('169.254.169.254')")
            with pytest.raises(asyncpg.InsufficientPrivilegeError):  # only the notifier expires
                await eve.fetchval("SELECT aq.expire_registrations(now() + interval '1 year')")
            # the outbox takes only what the caller's own transaction enqueued
            mid = bytes.fromhex(await Session(conn).enqueue("s.q", b"x"))
            before = await conn.fetchval("SELECT count(*) FROM aq.notifications")
            qid = await conn.fetchval("SELECT id FROM aq.queues WHERE queue_name = 'q'")
            await eve.execute("SELECT aq.notify_enqueued($1, ARRAY[$2::bytea])", qid, mid)
            assert await conn.fetchval("SELECT count(*) FROM aq.notifications") == before
        finally:
            await eve.close()
        assert await conn.fetchval("SELECT count(*) FROM dba_subscr_registrations") == 3
        await conn.execute("SELECT aq.unregister('s.q', NULL, 'mailto:b@example.com')")
        assert await conn.fetchval("SELECT count(*) FROM dba_subscr_registrations") == 2
    finally:
        await conn.execute(f'DROP OWNED BY "{role}" CASCADE')
        await conn.execute(f'DROP ROLE "{role}"')


async def test_registrations_are_written_by_aq_register_only(conn: asyncpg.Connection, db_dsn: str) -> None:
    """No direct INSERT or UPDATE on aq.registrations (they would skip the allow list, the
    dequeue right and the limit), no forged caller, no agent name claimed from SQL."""
    await make_queue(conn, "s.q")
    await allow(conn)
    roles = await make_agent(conn, "JOHN", "pw", ("eve",))
    role = roles[0]
    await conn.execute(f'ALTER ROLE "{role}" LOGIN')
    await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('DEQUEUE', 's.q', '{role}')")
    qid = await conn.fetchval("SELECT id FROM aq.queues WHERE queue_name = 'q'")
    eve = await asyncpg.connect(db_dsn.replace("postgres@", f"{role}@"))
    try:
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await eve.execute("INSERT INTO aq.registrations (queue_id, notify_url) "
                              "VALUES ($1, 'http://169.254.169.254/latest')", qid)
        await register(eve, "s.q", None, "http://127.0.0.1:9/mine")
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await eve.execute("UPDATE aq.registrations SET notify_url = 'http://169.254.169.254/'")
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await eve.execute("UPDATE aq.registrations SET owner = 'postgres'")
        # the registration function proper needs a ticket of the caller's own
        with pytest.raises(asyncpg.PostgresError, match="ORA-01031"):
            await eve.fetchval("SELECT aq.register_as(gen_random_uuid(), 's.q', NULL, 'mailto:a@example.com', "
                               "NULL, 'DATABASE', NULL, 0, 0, NULL, 0)")
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await eve.execute("INSERT INTO aq.register_callers (who) VALUES ('postgres')")
        # an agent name is the gateway's to give, even for an agent mapped to this role
        with pytest.raises(asyncpg.PostgresError, match="ORA-01031"):
            await eve.fetchval("SELECT aq.register('s.q', NULL, 'mailto:a@example.com', p_agent => 'JOHN')")
        row = await conn.fetchrow("SELECT user_name, agent_name, location_name FROM dba_subscr_registrations")
        assert tuple(row) == (role, None, "http://127.0.0.1:9/mine")
    finally:
        await eve.close()
        await drop_roles(conn, roles)


async def test_registration_limit_holds_under_concurrency(conn: asyncpg.Connection, db_dsn: str) -> None:
    """Ten connections register at once for the same role with a limit of three: three
    succeed. The queue row is held locked so that every call is under way before any can
    finish (unlocked, all ten counted none and all got in)."""
    await make_queue(conn, "s.q")
    await conn.execute("CALL aq.set_max_registrations(3)")
    qid = await conn.fetchval("SELECT id FROM aq.queues WHERE queue_name = 'q'")
    conns = [await asyncpg.connect(db_dsn) for _ in range(10)]
    try:
        pids = [c.get_server_pid() for c in conns]
        holder = conn.transaction()
        await holder.start()
        await conn.execute("SELECT 1 FROM aq.queues WHERE id = $1 FOR UPDATE", qid)
        calls = [asyncio.create_task(c.fetchval("SELECT aq.register('s.q', NULL, $1)",
                                                f"mailto:r{i}@example.com"))
                 for i, c in enumerate(conns)]
        # every call waits for a lock (the row, or the per-role one); nothing announces that
        async with asyncio.timeout(20):
            waiting = "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1) AND wait_event_type = 'Lock'"
            while await conn.fetchval(waiting, pids) < len(conns):  # noqa: ASYNC110
                await asyncio.sleep(0.02)
        await holder.commit()
        results = await asyncio.gather(*calls, return_exceptions=True)
        ok = [r for r in results if not isinstance(r, BaseException)]
        refused = [r for r in results if isinstance(r, asyncpg.PostgresError) and "ORA-24951" in str(r)]
        assert (len(ok), len(refused)) == (3, 7), results
        assert await conn.fetchval("SELECT count(*) FROM aq.registrations") == 3
    finally:
        for c in conns:
            await c.close()


async def test_register_over_idap_then_publish(conn: asyncpg.Connection, db_dsn: str, receiver: Receiver,
                                               start_notifier: Start) -> None:
    """The issue's scenario: an agent registers a notify_url with AQXmlRegister; messages
    published for APP1 afterwards are POSTed to it."""
    roles = await make_agent(conn, "JOHN", "pw", ("aquser",))
    await conn.execute(f'CREATE SCHEMA aquser AUTHORIZATION "{roles[0]}"')
    await topic(conn)
    await allow(conn)
    running = await start_notifier()
    try:
        async with running_gateway(db_dsn) as url:
            c = Client(url, "JOHN", "pw")
            try:
                r = await c.post(envelope(op("AQXmlRegister",
                    "<register_options><destination>AQUSER.EMP_TOPIC</destination>"
                    f"<consumer_name>APP1</consumer_name><notify_url>{receiver.url}/john</notify_url>"
                    "</register_options><AQXmlCommit/>")))
                assert r.status == 200, r.body
                r = await c.post(envelope(op("AQXmlPublish",
                    "<producer_options><destination>AQUSER.EMP_TOPIC</destination></producer_options>"
                    "<message_set><message><message_header><correlation>c9</correlation><sender_id/>"
                    "</message_header><message_payload><RAW>0102</RAW></message_payload></message>"
                    "</message_set><AQXmlCommit/>")))
                assert r.status == 200, r.body
                mid = r.text("//aq:message_id")[0]
            finally:
                await c.close()
        hit = await receiver.next()
        assert hit.path == "/john" and hit.text("//aq:message_id") == [mid]
        assert hit.text("//aq:consumer_name") == ["APP1"]
        await running.until("DELIVERED")
        row = await conn.fetchrow("SELECT agent_name, user_name FROM dba_subscr_registrations")
        assert tuple(row) == ("JOHN", roles[0])
    finally:
        await drop_roles(conn, roles)


async def test_losing_the_database_while_recording_a_failure_is_one_warning(
        conn: asyncpg.Connection, db_dsn: str, receiver: Receiver, start_notifier: Start,
        caplog: pytest.LogCaptureFixture) -> None:
    """Found by the chaos run: PostgreSQL restarting while the notifier records a failed
    attempt logged two ERROR tracebacks per notification ("failed unexpectedly", then
    "recording the failure failed"). It is one warning line; the lease brings the
    notification back and it is sent again under the same id."""
    await make_queue(conn, "s.q")
    await allow(conn)
    await register(conn, "s.q", None, f"{receiver.url}/q")
    receiver.script["/q"] = [503]
    receiver.hold = asyncio.Event()  # the 503 waits until our lock is taken
    blocker = await asyncpg.connect(db_dsn)
    tx = blocker.transaction()
    await tx.start()
    try:
        # the failed attempt's UPDATE will wait for this lock, and lose its connection there
        # 3 s (a 6 s lease): the 503 is recorded, not a timeout, even after a stall here
        running = await start_notifier(http_timeout=3.0, smtp_timeout=1.0, plsql_timeout=1.0,
                                       lease_seconds=2.0)
        await Session(conn).enqueue("s.q", b"x")
        first = await receiver.next()
        await blocker.execute("SELECT 1 FROM aq.notifications FOR UPDATE")
        receiver.hold.set()
        pid = None
        for _ in range(500):  # the notifier's UPDATE waits for our row lock
            pid = await conn.fetchval("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                      "AND query LIKE '%UPDATE aq.notifications%'")
            if pid is not None:
                break
            await asyncio.sleep(0.01)
        assert pid is not None, "the failed attempt was never recorded"
        with caplog.at_level(logging.WARNING, logger="pgaq.notifier"):
            await conn.fetchval("SELECT pg_terminate_backend($1)", pid)
            await tx.rollback()
            again = await receiver.next(timeout=30)  # after the lease, the same notification
            assert again.headers["X-Pgaq-Notification-Id"] == first.headers["X-Pgaq-Notification-Id"]
            await running.until("DELIVERED", timeout=30)
        mine = [r for r in caplog.records if r.name == "pgaq.notifier"]
        assert not [r for r in mine if r.levelno >= logging.ERROR or r.exc_info], \
            [r.getMessage() for r in mine]
        assert any("lease" in r.getMessage() for r in mine if r.levelno == logging.WARNING)
    finally:
        await blocker.close()


async def test_losing_the_database_while_reading_mail_settings_is_a_failed_attempt(
        conn: asyncpg.Connection, db_dsn: str, smtp: tuple[int, Mailbox], start_notifier: Start,
        caplog: pytest.LogCaptureFixture) -> None:
    """Found by the chaos run: a mail delivery reads DBMS_AQELM's settings; the database
    going away there was logged as a bug ("failed unexpectedly", a traceback). It is an
    ordinary failed attempt, retried, and the mail then goes."""
    port, box = smtp
    await conn.execute("CALL dbms_aqelm.set_mailhost('127.0.0.1')")
    await conn.execute("CALL dbms_aqelm.set_mailport($1)", port)
    await make_queue(conn, "s.q")
    await register(conn, "s.q", None, "mailto:ops@example.com")
    blocker = await asyncpg.connect(db_dsn)
    tx = blocker.transaction()
    await tx.start()
    try:
        await blocker.execute("LOCK TABLE aq.notification_settings IN ACCESS EXCLUSIVE MODE")
        running = await start_notifier()
        await Session(conn).enqueue("s.q", b"x")
        pid = None
        for _ in range(1000):  # the delivery waits for our lock to read the settings
            pid = await conn.fetchval("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                      "AND query LIKE '%notification_settings%'")
            if pid is not None:
                break
            await asyncio.sleep(0.01)
        assert pid is not None, "the delivery never read the mail settings"
        with caplog.at_level(logging.WARNING, logger="pgaq.notifier"):
            await conn.fetchval("SELECT pg_terminate_backend($1)", pid)
            await tx.rollback()
            _, state, error = await running.outcome()
            assert state == "PENDING" and error is not None and "database unavailable" in error
            msg = await asyncio.wait_for(box.got.get(), 10)
            nid, _, _ = await running.until("DELIVERED")
            assert msg["X-Pgaq-Notification-Id"] == str(nid)
        bad = [r for r in caplog.records if r.name == "pgaq.notifier" and r.levelno >= logging.ERROR]
        assert not bad, [r.getMessage() for r in bad]
    finally:
        await blocker.close()


async def test_buffered_message_is_notified(conn: asyncpg.Connection, receiver: Receiver,
                                            start_notifier: Start) -> None:
    """Oracle Streams Advanced Queuing User's Guide and Reference 10g Release 2 (10.2),
    "Introducing Oracle Streams AQ", "Asynchronous Notifications": "Asynchronous notification is
    supported for buffered messages. The delivery mode of the message is available in the
    message descriptor" (here: the notification's message properties; the AQXmlNotification
    schema has no element for it)."""
    await make_queue(conn, "s.q")
    await allow(conn)
    await register(conn, "s.q", None, f"{receiver.url}/q")
    running = await start_notifier()
    s = Session(conn)
    mid = await s.enqueue("s.q", b"fast", visibility="IMMEDIATE", delivery_mode="BUFFERED")
    hit = await receiver.next()
    assert hit.text("//aq:message_id") == [mid]
    await running.until("DELIVERED")
    assert await conn.fetchval("SELECT message ->> 'delivery_mode' FROM aq.notifications") == "BUFFERED"
