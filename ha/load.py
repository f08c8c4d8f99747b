"""The steady load through every kind of client, each recording what it was told:
an id is *acked* when its sender was told the commit succeeded, *unsure* when the answer
was lost (its commit may or may not have happened), and *got* each time a consumer
received it. Every client reconnects on its own, as an application would; none is
restarted by the run."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import re
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import asyncpg
from pgaq import DequeueOptions, Session, jms
from pgaq.errors import PgaqError

from . import java_client

AGENT, PASSWORD = "HA", "ha-secret"
NS = 'xmlns="http://ns.oracle.com/AQ/schemas/access"'
RAW = re.compile(rb"<(?:\w+:)?RAW>([0-9A-Fa-f]*)</")
ORA = re.compile(rb"ORA-\d{5}")
# what a client meets while the primary changes hands (asyncpg's InternalClientError: a
# connection lost in the middle of its protocol's bookkeeping)
DB_ERRORS = (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError,
             PgaqError, TimeoutError)


def envelope(body: str) -> bytes:
    return ('<?xml version="1.0"?><Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/">'
            f"<Body>{body}</Body></Envelope>").encode()


def send_doc(ids: list[str], commit: bool) -> bytes:
    msgs = "".join(
        f"<message><message_number>{n}</message_number><message_header><sender_id>"
        f"<agent_name>ha</agent_name></sender_id></message_header><message_payload>"
        f"<RAW>{i.encode().hex().upper()}</RAW></message_payload></message>"
        for n, i in enumerate(ids, 1))
    return envelope(f"<AQXmlSend {NS}><producer_options><destination>HA.IDAP_Q</destination>"
                    f"</producer_options><message_set><message_count>{len(ids)}</message_count>"
                    f"{msgs}</message_set>{'<AQXmlCommit/>' if commit else ''}</AQXmlSend>")


RECEIVE = envelope(f"<AQXmlReceive {NS}><consumer_options><destination>HA.IDAP_Q</destination>"
                   "<wait_time>2</wait_time><batch_size>10</batch_size></consumer_options>"
                   "<AQXmlCommit/></AQXmlReceive>")
COMMIT = envelope(f"<AQXmlCommit {NS}/>")


@dataclass
class Record:
    """Everything the clients were told, with the time they were told it."""

    acked: dict[str, dict[str, float]] = field(default_factory=dict)  # kind -> id -> when
    unsure: dict[str, set[str]] = field(default_factory=dict)
    got: dict[str, Counter[str]] = field(default_factory=dict)  # dest -> id -> times
    got_at: dict[str, dict[str, float]] = field(default_factory=dict)  # first receipt
    redelivered: Counter[str] = field(default_factory=Counter)  # dest -> flagged redeliveries
    faults: Counter[str] = field(default_factory=Counter)  # what clients were told: code -> n
    errors: Counter[str] = field(default_factory=Counter)  # connection-level failures by client
    tx_lost: int = 0  # IDAP transactions whose commit faulted
    tx_next_ok: int = 0  # ... whose next request then worked
    exception_listener: list[float] = field(default_factory=list)  # JMS ExceptionListener calls
    exception_listener_java: list[float] = field(default_factory=list)  # ... the Java client's

    def ack(self, kind: str, ids: list[str], at: float | None = None) -> None:
        t = time.monotonic() if at is None else at
        book = self.acked.setdefault(kind, {})
        for i in ids:
            book[i] = t

    def doubt(self, kind: str, ids: list[str]) -> None:
        self.unsure.setdefault(kind, set()).update(ids)

    def receive(self, dest: str, ids: list[str], at: float | None = None) -> None:
        t = time.monotonic() if at is None else at
        seen = self.got.setdefault(dest, Counter())
        first = self.got_at.setdefault(dest, {})
        for i in ids:
            seen[i] += 1
            first.setdefault(i, t)

    def ack_times(self) -> list[float]:
        return sorted(t for book in self.acked.values() for t in book.values())


class Ids:
    def __init__(self) -> None:
        self._n = itertools.count()

    def take(self, prefix: str, n: int = 1) -> list[str]:
        return [f"{prefix}{next(self._n):08d}" for _ in range(n)]


class Load:
    """Starts every client against `dsn` (HAProxy) and `url` (the gateway); the Java JMS
    client too when given HAProxy's `jdbc_url` (its log in `logdir`)."""

    def __init__(self, dsn: str, url: str, rate: float, idap_clients: int, idap_rate: float = 0.0,
                 jdbc_url: str | None = None, logdir: Path | None = None) -> None:
        self.dsn, self.url, self.rate, self.idap_clients = dsn, url, rate, idap_clients
        # each IDAP sending client (the senders and the two-request session) its share
        self.idap_share = idap_rate / (idap_clients + 1) if idap_rate > 0 else 0.0
        self.jdbc_url, self.logdir = jdbc_url, logdir
        self.java: java_client.JavaClient | None = None
        self.rec = Record()
        self.ids = Ids()
        self.stop = asyncio.Event()
        self.producing = asyncio.Event()  # cleared: producers pause (the drain)
        self.producing.set()
        self._tasks: list[asyncio.Task[None]] = []
        self.auth = "Basic " + base64.b64encode(f"{AGENT}:{PASSWORD}".encode()).decode()
        self.jms_connection: jms.Connection | None = None

    async def start(self) -> None:
        def spawn(name: str, coro: object) -> None:
            self._tasks.append(asyncio.create_task(coro, name=name))  # type: ignore[arg-type]

        for w in range(self.idap_clients):
            spawn(f"idap-send{w}", self._idap_sender())
            spawn(f"idap-receive{w}", self._idap_receiver())
        spawn("idap-tx", self._idap_transactions())
        share = self.rate / 4
        for kind, queue in (("sql", "ha.sql_q"), ("prop", "ha.topic"), ("note", "ha.note_q")):
            spawn(f"enqueue-{kind}", self._library_producer(kind, queue, share))
        for w in range(2):  # two sessions blocked in dbms_aq.dequeue, as an application runs them
            spawn(f"sql-dequeue{w}", self._sql_dequeuer())
        spawn("prop-dequeue", self._ledger_consumer("prop", "ha.prop_in"))
        spawn("note-dequeue", self._ledger_consumer("note", "ha.note_q"))
        await self._start_jms(share)
        if self.jdbc_url is not None:
            await self._start_java(self.jdbc_url, share)

    async def _start_java(self, jdbc_url: str, rate: float) -> None:
        classpath, why = await java_client.prepare()
        if classpath is None:
            print(f"ha: the Java JMS client skipped: {why} (HA_JAVA=0 turns it off)", flush=True)
            return
        self.java = java_client.JavaClient(self.rec, (self.logdir or Path(".")) / "java-client.log")
        await self.java.start(classpath, jdbc_url, "ha", "java_q", rate)

    async def pause(self) -> None:
        """The producers stop (the drain); the Java client's last send is recorded once
        this returns."""
        self.producing.clear()
        if self.java is not None:
            await self.java.pause()

    async def close(self) -> None:
        if self.java is not None:  # first: its reader records until the JVM has gone
            await self.java.close()
        self.stop.set()
        self.producing.set()
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        if self.jms_connection is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.jms_connection.close(), 30)

    def check(self) -> None:
        """A client task that ended with an error is a bug of the run (or of pgaq): raise it."""
        for t in self._tasks:
            if t.done() and not t.cancelled() and t.exception() is not None:
                raise RuntimeError(f"client {t.get_name()} failed") from t.exception()
        if self.java is not None and (exc := self.java.failure()) is not None:
            raise RuntimeError("client java failed") from exc

    # -- IDAP -----------------------------------------------------------------------------
    async def _post(self, http: aiohttp.ClientSession, doc: bytes) -> tuple[int, bytes]:
        try:
            async with http.post(self.url, data=doc, timeout=aiohttp.ClientTimeout(total=30),
                                 headers={"Content-Type": "text/xml", "Authorization": self.auth}) as r:
                return r.status, await r.read()
        except (aiohttp.ClientError, TimeoutError, OSError):
            return 0, b""

    def _fault(self, status: int, body: bytes) -> None:
        m = ORA.search(body)
        self.rec.faults[m.group().decode() if m else f"HTTP {status}"] += 1

    def _pacer(self, per_request: int) -> Callable[[], Awaitable[None]]:
        """A wait before each request of `per_request` messages that holds the client to
        its share of HA_IDAP_RATE (catching up at most 1 s after an outage); no wait when
        unpaced. Paced, the failover and the accounts are the same, without the clients
        burning the cores the cluster fails over on."""
        if self.idap_share <= 0:
            async def unpaced() -> None:
                return None
            return unpaced
        gap, due = per_request / self.idap_share, time.monotonic()

        async def paced() -> None:
            nonlocal due
            due = max(due + gap, time.monotonic() - 1)
            await asyncio.sleep(max(0.0, due - time.monotonic()))
        return paced

    async def _idap_sender(self) -> None:
        pace = self._pacer(5)
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            while not self.stop.is_set():
                await self.producing.wait()
                await pace()
                ids = self.ids.take("i", 5)
                status, body = await self._post(http, send_doc(ids, commit=True))
                if status == 200:
                    self.rec.ack("idap", ids)
                    continue
                self.rec.doubt("idap", ids)
                self._fault(status, body)
                await asyncio.sleep(0.05)  # the database is changing hands: don't spin

    async def _idap_transactions(self) -> None:
        """A session that sends in one request and commits in the next: a failover between
        the two must give the commit a clear fault, and the session's next request works."""
        pace = self._pacer(2)
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            after_fault = False
            while not self.stop.is_set():
                await self.producing.wait()
                await pace()
                ids = self.ids.take("t", 2)
                status, body = await self._post(http, send_doc(ids, commit=False))
                if status == 200:
                    status, body = await self._post(http, COMMIT)
                if status == 200:
                    self.rec.ack("idap", ids)
                    if after_fault:
                        self.rec.tx_next_ok += 1
                        after_fault = False
                    continue
                self.rec.doubt("idap", ids)
                self._fault(status, body)
                if status != 0 and not after_fault:
                    self.rec.tx_lost += 1
                    after_fault = True
                await asyncio.sleep(0.05)

    async def _idap_receiver(self) -> None:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            while not self.stop.is_set():
                status, body = await self._post(http, RECEIVE)
                if status == 200:
                    got = [bytes.fromhex(h.decode()).decode() for h in RAW.findall(body)]
                    self.rec.receive("idap", got)
                    continue
                if b"ORA-25228" in body:  # nothing came within the wait
                    continue
                self._fault(status, body)
                await asyncio.sleep(0.05)

    # -- the Python library and SQL -------------------------------------------------------
    async def _library_producer(self, kind: str, queue: str, rate: float) -> None:
        gap = 1 / rate
        due = time.monotonic()
        while not self.stop.is_set():
            try:
                conn = await asyncpg.connect(self.dsn, timeout=5)
            except DB_ERRORS:
                self.rec.errors[f"connect {kind}"] += 1
                await asyncio.sleep(0.1)
                continue
            try:
                s = Session(conn)
                while not self.stop.is_set():
                    await self.producing.wait()
                    due = max(due + gap, time.monotonic() - 1)  # catch up at most 1 s
                    await asyncio.sleep(max(0.0, due - time.monotonic()))
                    [i] = self.ids.take(kind[0])
                    try:
                        await s.enqueue(queue, i.encode())
                    except BaseException:
                        self.rec.doubt(kind, [i])
                        raise
                    self.rec.ack(kind, [i])
            except DB_ERRORS:
                self.rec.errors[f"enqueue {kind}"] += 1
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.close(), 2)

    async def _sql_dequeuer(self) -> None:
        """A plain SQL client blocked in dbms_aq.dequeue(wait => 5), committing each
        message with its ledger row."""
        while not self.stop.is_set():
            try:
                conn = await asyncpg.connect(self.dsn, timeout=5)
            except DB_ERRORS:
                await asyncio.sleep(0.1)
                continue
            try:
                while not self.stop.is_set():
                    async with conn.transaction():
                        try:
                            row = await conn.fetchrow(
                                "CALL dbms_aq.dequeue(queue_name => 'ha.sql_q', dequeue_options => "
                                "dbms_aq.dequeue_options(wait => 5), payload => NULL::bytea, msgid => NULL)")
                        except asyncpg.PostgresError as exc:
                            if "ORA-25228" in str(exc):
                                continue  # the transaction block rolls back the empty wait
                            raise
                        assert row is not None
                        i = bytes(row["payload"]).decode()
                        await conn.execute("INSERT INTO ha_ledger(dest, id) VALUES ('sql', $1)", i)
                    self.rec.receive("sql", [i])
            except DB_ERRORS:
                self.rec.errors["dbms_aq.dequeue"] += 1
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.close(), 2)

    async def _ledger_consumer(self, dest: str, queue: str) -> None:
        """The Python library's waiting dequeue, 100 at a time, each batch committed with
        its ledger rows."""
        opts = DequeueOptions(batch_size=100, wait=2)
        while not self.stop.is_set():
            try:
                conn = await asyncpg.connect(self.dsn, timeout=5)
            except DB_ERRORS:
                await asyncio.sleep(0.1)
                continue
            try:
                s = Session(conn)
                while not self.stop.is_set():
                    await s.begin()
                    try:
                        got = await s.dequeue(queue, opts)
                        ids = [bytes(m.payload).decode() for m in got]  # type: ignore[arg-type]
                        if ids:
                            await conn.executemany("INSERT INTO ha_ledger(dest, id) VALUES ($1, $2)",
                                                   [(dest, i) for i in ids])
                        await s.commit()
                    except BaseException:
                        with contextlib.suppress(Exception):
                            await s.rollback()
                        raise
                    self.rec.receive(dest, ids)
            except DB_ERRORS:
                self.rec.errors[f"dequeue {dest}"] += 1
            finally:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.close(), 2)

    # -- pgaq.jms -------------------------------------------------------------------------
    async def _start_jms(self, rate: float) -> None:
        factory = jms.ConnectionFactory(self.dsn)
        c = await factory.create_connection()
        self.jms_connection = c
        c.set_exception_listener(lambda exc: self.rec.exception_listener.append(time.monotonic()))
        consumer_session = c.create_session(False, jms.AUTO_ACKNOWLEDGE)
        consumer = consumer_session.create_consumer(consumer_session.get_queue("ha", "jms_q"))

        def on_message(m: jms.Message) -> None:
            assert isinstance(m, jms.TextMessage)
            text = m.get_text() or ""
            if m.jms_redelivered:
                self.rec.redelivered["jms"] += 1
            self.rec.receive("jms", [text])

        consumer.set_message_listener(on_message)
        await c.start()
        producer_session = c.create_session(False, jms.AUTO_ACKNOWLEDGE)
        producer = producer_session.create_producer(producer_session.get_queue("ha", "jms_q"))

        async def produce() -> None:
            gap, due = 1 / rate, time.monotonic()
            while not self.stop.is_set():
                await self.producing.wait()
                due = max(due + gap, time.monotonic() - 1)
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                [i] = self.ids.take("j")
                try:
                    await producer.send(producer_session.create_text_message(i))
                except jms.JMSException:
                    self.rec.doubt("jms", [i])
                    self.rec.errors["jms send"] += 1
                    await asyncio.sleep(0.1)
                    continue
                self.rec.ack("jms", [i])

        self._tasks.append(asyncio.create_task(produce(), name="jms-send"))
