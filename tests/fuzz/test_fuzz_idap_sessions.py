"""IDAP sessions as a state machine: random sequences of Send, Receive (every mode,
visibility, navigation, a correlation selector), Commit, Rollback (asked for or
piggybacked), idle timeout and gateway restart from three clients, posted over real HTTP to
a real gateway, each answer and the queue table's committed rows checked against a small
reference model of AQ's semantics.

The model is written from Oracle Streams Advanced Queuing User's Guide and Reference, Release
10.1, chapter 17 "Internet Access to Oracle Streams AQ", "User Sessions and Transactions", and
Oracle Streams Advanced Queuing User's Guide and Reference 10g Release 2 (10.2), "Introducing
Oracle Streams AQ" (retries and exception queues): a transaction sees its own uncommitted sends
and not others'; a REMOVE or LOCKED dequeue skips what other transactions took; BROWSE reads
what is committed; NEXT_MESSAGE continues after the last message this session got with the same
selector, FIRST_MESSAGE starts over; a commit or rollback ends the transaction and the next
request starts a new one; a rolled-back REMOVE counts one failed attempt and is offered again to
the same session in queue order; past max_retries (2) the message is in the exception queue; a
gateway that stops rolls its sessions back (counted), an idle session is rolled back and its
next request told so once (ORA-25402).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from pgaq.embedded import free_port
from pgaq_services.gateway.app import STORE, Settings, build, runner_for, tcp_site

from ..integration.gateway_support import Client, Reply, drop_roles, envelope, make_agent, op
from .conftest import EXAMPLES, Bridge, fuzz

QUEUE, TOPIC = "SMQ.SM_Q", "SMQ.SM_T"
SUBSCRIBERS = ("S1", "S2")
MAX_RETRIES = 2
CLIENTS = 3
CORRELATIONS = ("A", "B")
FLIP = "SMQ.FLIP"  # a RAW to RAW transformation: b'T' + the payload
URLS = ("mailto:app1@example.com", "mailto:app2@example.com")
# weighted towards what interacts (few selectors, REMOVE, the single-consumer queue) so the
# bounded run reaches deep sequences; every value still occurs
CLIENT = st.sampled_from([0, 0, 1, 1, 2])
MODES = st.sampled_from(["REMOVE", "REMOVE", "BROWSE", "LOCKED", "REMOVE_NODATA"])
SELECTORS = st.sampled_from([None, None, None, "A", "B"])
NAVIGATIONS = st.sampled_from(["NEXT_MESSAGE", "NEXT_MESSAGE", "FIRST_MESSAGE"])
# (destination, consumer): the queue, or the topic as one of its subscribers
READERS = st.sampled_from([(QUEUE, None), (QUEUE, None), (TOPIC, "S1"), (TOPIC, "S2")])

Key = tuple[int, str | None]  # (message, consumer): one delivery of a message


class Gateway:
    """A gateway on a fixed loopback port that can be stopped and started again."""

    def __init__(self, dsn: str) -> None:
        self.settings = Settings(dsn=dsn, port=free_port(), session_timeout=3600.0,
                                 max_wait=5.0)
        self.runner: Any = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.settings.port}{self.settings.path}"

    async def start(self) -> None:
        self.runner = runner_for(build(self.settings), self.settings)
        await self.runner.setup()
        await tcp_site(self.runner, self.settings).start()

    async def stop(self) -> None:
        await self.runner.cleanup()

    async def backend_of(self, client: Client) -> int | None:
        """The server pid of the connection holding the client's open transaction."""
        tokens = [m.value for m in client.http.cookie_jar if m.key == "JSESSIONID"]
        session = self.runner.app[STORE].peek(tokens[0]) if tokens else None
        if session is None or session.lease is None or not session.lease.held:
            return None
        pid: int = session.lease.conn.get_server_pid()
        return pid

    async def reap_all(self) -> None:
        """Every session idle past its timeout (a clock read an hour ahead)."""
        store = self.runner.app[STORE]
        await store.reap(time.monotonic() + store.timeout + 1)


@dataclass
class Delivery:
    """A message as one consumer sees it (the queue's only consumer is None)."""

    seq: int
    consumer: str | None
    corr: str
    payload: bytes
    retry: int = 0
    where: str = "Q"  # Q ready in its queue, E in the exception queue, GONE removed

    @property
    def dest(self) -> str:
        return QUEUE if self.consumer is None else TOPIC


@dataclass
class Party:
    """What the model knows of one client's HTTP session."""

    in_tx: bool = False
    sent: list[Delivery] = field(default_factory=list)  # uncommitted sends of the transaction
    taken: list[Key] = field(default_factory=list)  # REMOVEd in the transaction
    locked: list[Key] = field(default_factory=list)  # LOCKED in the transaction
    registered: list[tuple[str, str]] = field(default_factory=list)  # uncommitted registrations
    # per (destination, consumer): (selector, seq) that NEXT_MESSAGE continues after
    pos: dict[tuple[str, str | None], tuple[str | None, int]] = field(default_factory=dict)
    notice: bool = False  # the next request is told its idle transaction was rolled back


class Env(Bridge):
    """The test's event loop seen from the state machine's thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop, gateway: Gateway,
                 admin: asyncpg.Connection) -> None:
        self.loop = loop
        self.gateway = gateway
        self.admin = admin
        self.counter = 0


def _send_doc(operation: str, dest: str, n: int, corr: str, visibility: str, commit: bool,
              transformation: str | None) -> bytes:
    vis = f"<visibility>{visibility}</visibility>" if visibility != "ON_COMMIT" else ""
    tx = f"<transformation>{transformation}</transformation>" if transformation else ""
    return envelope(op(operation, (
        f"<producer_options><destination>{dest}</destination>{vis}{tx}</producer_options>"
        "<message_set><message_count>1</message_count><message>"
        f"<message_number>1</message_number><message_header><correlation>{corr}</correlation>"
        f"<sender_id><agent_name>JOHN</agent_name></sender_id></message_header>"
        f"<message_payload><RAW>{n:08X}</RAW></message_payload></message></message_set>"
        + ("<AQXmlCommit/>" if commit else ""))))


def _receive_doc(dest: str, consumer: str | None, mode: str, visibility: str, navigation: str,
                 corr: str | None, commit: bool, transformation: str | None) -> bytes:
    who = f"<consumer_name>{consumer}</consumer_name>" if consumer else ""
    selector = f"<selector><correlation>{corr}</correlation></selector>" if corr else ""
    tx = f"<transformation>{transformation}</transformation>" if transformation else ""
    return envelope(op("AQXmlReceive", (
        f"<consumer_options><destination>{dest}</destination>{who}<wait_time>0</wait_time>"
        f"{selector}<visibility>{visibility}</visibility><dequeue_mode>{mode}</dequeue_mode>"
        f"<navigation_mode>{navigation}</navigation_mode>{tx}</consumer_options>"
        + ("<AQXmlCommit/>" if commit else ""))))


def _register_doc(consumer: str, url: str, commit: bool) -> bytes:
    return envelope(op("AQXmlRegister", (
        f"<register_options><destination>{TOPIC}</destination>"
        f"<consumer_name>{consumer}</consumer_name><notify_url>{url}</notify_url>"
        "</register_options>" + ("<AQXmlCommit/>" if commit else ""))))


class Sessions(RuleBasedStateMachine):
    env: Env

    def __init__(self) -> None:
        super().__init__()
        self.deliveries: dict[Key, Delivery] = {}  # committed
        self.registrations: set[tuple[str, str]] = set()  # committed (consumer, url)
        self.seq_of: dict[str, int] = {}
        self.parties = [Party() for _ in range(CLIENTS)]
        self.clients = [self.env.call(self._client()) for _ in range(CLIENTS)]
        # each at most once an example: they end sessions, and cost time
        self.restarts = self.idles = self.losses = 0

    async def _client(self) -> Client:
        return Client(self.env.gateway.url, "JOHN", "secret")  # made on the gateway's loop

    # -- the model ------------------------------------------------------------------
    def _held(self, me: int, own: bool) -> set[Key]:
        """Deliveries other transactions (and, when `own`, this client's) took or locked."""
        return {k for i, p in enumerate(self.parties) if own or i != me for k in p.taken + p.locked}

    def _visible(self, me: int, dest: str, consumer: str | None, mode: str,
                 in_tx: bool) -> list[Delivery]:
        """What a dequeue of client `me` may return, in queue order."""
        p = self.parties[me]
        view = [d for d in self.deliveries.values() if d.where == "Q"]
        if in_tx:  # its own transaction: its sends, not what it removed
            view = [d for d in view + p.sent if (d.seq, d.consumer) not in p.taken]
        if mode != "BROWSE":  # REMOVE and LOCKED skip what other transactions hold
            held = self._held(me, own=not in_tx)
            view = [d for d in view if (d.seq, d.consumer) not in held]
        return sorted((d for d in view if d.dest == dest and d.consumer == consumer),
                      key=lambda d: d.seq)

    def _end(self, me: int, commit: bool) -> None:
        p = self.parties[me]
        if commit:
            for d in p.sent:
                self.deliveries[(d.seq, d.consumer)] = d
            for k in p.taken:
                if k in self.deliveries:  # (one sent and removed in this transaction never was)
                    self.deliveries[k].where = "GONE"
            self.registrations.update(p.registered)
        else:
            for k in p.taken:
                if k not in self.deliveries:  # sent in this transaction too: it never was
                    continue
                d = self.deliveries[k]
                d.retry += 1
                if d.retry > MAX_RETRIES:
                    d.where = "E"
            for _seq, consumer in p.taken + p.locked:  # offered again from the start
                p.pos.pop((QUEUE if consumer is None else TOPIC, consumer), None)
        p.in_tx, p.sent, p.taken, p.locked, p.registered = False, [], [], [], []

    def _post(self, me: int, doc: bytes) -> Reply | None:
        """Post; None when the model expected the idle-timeout notice and it came."""
        r = self.env.call(self.clients[me].post(doc))
        p = self.parties[me]
        if p.notice:
            p.notice = False
            assert r.fault is not None and r.error_code == "25402", r.body
            return None
        return r

    @staticmethod
    def _ok(r: Reply) -> None:
        assert r.status == 200 and r.fault is None, r.body

    # -- rules ----------------------------------------------------------------------
    @rule(me=CLIENT, topic=st.booleans(), corr=st.sampled_from(CORRELATIONS),
          visibility=st.sampled_from(["ON_COMMIT", "IMMEDIATE"]), commit=st.booleans(),
          transform=st.booleans())
    def send(self, me: int, topic: bool, corr: str, visibility: str, commit: bool,
             transform: bool) -> None:
        """AQXmlSend to the queue or AQXmlPublish to the topic (both subscribers)."""
        self.env.counter += 1
        n = self.env.counter
        operation, dest = ("AQXmlPublish", TOPIC) if topic else ("AQXmlSend", QUEUE)
        r = self._post(me, _send_doc(operation, dest, n, corr, visibility, commit,
                                     FLIP if transform else None))
        if r is None:
            return
        self._ok(r)
        [mid] = r.text("//aq:send_result/aq:message_id | //aq:publish_result/aq:message_id")
        self.seq_of[mid] = n
        payload = (b"T" if transform else b"") + n.to_bytes(4, "big")
        made = [Delivery(n, c, corr, payload) for c in (SUBSCRIBERS if topic else (None,))]
        p = self.parties[me]
        if visibility == "IMMEDIATE" or (commit and not p.in_tx):
            self.deliveries.update(((d.seq, d.consumer), d) for d in made)
        else:
            p.in_tx = True
            p.sent.extend(made)
        if commit:
            self._end(me, commit=True)

    @rule(me=CLIENT, reader=READERS, mode=MODES,
          visibility=st.sampled_from(["ON_COMMIT", "IMMEDIATE"]),
          navigation=NAVIGATIONS, corr=SELECTORS, commit=st.booleans(), transform=st.booleans())
    def receive(self, me: int, reader: tuple[str, str | None], mode: str, visibility: str,
                navigation: str, corr: str | None, commit: bool, transform: bool) -> None:
        dest, consumer = reader
        p = self.parties[me]
        in_tx = visibility == "ON_COMMIT" and (p.in_tx or not commit)
        saved = p.pos.get(reader)
        start = None
        if navigation == "NEXT_MESSAGE" and saved is not None and saved[0] == corr:
            start = saved[1]
        candidates = [d for d in self._visible(me, dest, consumer, mode, in_tx)
                      if (corr is None or d.corr == corr) and (start is None or d.seq > start)]
        r = self._post(me, _receive_doc(dest, consumer, mode, visibility, navigation, corr,
                                        commit, FLIP if transform else None))
        if r is None:
            return
        self._ok(r)
        got = [self.seq_of.get(g) for g in r.text("//aq:message_id")]
        expected = candidates[:1]
        assert got == [d.seq for d in expected], (got, expected, reader, mode, visibility,
                                                  navigation, corr, commit, saved)
        if expected:
            d = expected[0]
            key = (d.seq, d.consumer)
            assert r.text("//aq:delivery_count") == [str(d.retry)], r.body
            if mode != "REMOVE_NODATA":
                shown = (b"T" if transform else b"") + d.payload
                assert r.text("//aq:message_payload/aq:RAW") == [shown.hex().upper()], r.body
            if mode in ("REMOVE", "REMOVE_NODATA"):
                p.pos.pop(reader, None)  # gone: the next dequeue starts from the first
            else:
                p.pos[reader] = (corr, d.seq)
            if in_tx:
                p.in_tx = True
                if mode in ("REMOVE", "REMOVE_NODATA"):
                    p.sent = [x for x in p.sent if (x.seq, x.consumer) != key]
                    p.taken.append(key)
                elif mode == "LOCKED" and key not in p.locked:
                    p.locked.append(key)
            elif mode in ("REMOVE", "REMOVE_NODATA"):
                self.deliveries[key].where = "GONE"
        elif in_tx:
            p.in_tx = True
        if commit:
            self._end(me, commit=True)

    @rule(me=CLIENT, reader=READERS, mode=st.sampled_from(["REMOVE", "LOCKED"]), corr=SELECTORS)
    def attempt_and_roll_back(self, me: int, reader: tuple[str, str | None], mode: str,
                              corr: str | None) -> None:
        """The poison-message loop of a consumer: take the next message, fail, roll back."""
        self.receive(me, reader, mode, "ON_COMMIT", "NEXT_MESSAGE", corr, commit=False,
                     transform=False)
        self.end(me, commit=False)

    @rule(me=CLIENT, consumer=st.sampled_from(SUBSCRIBERS), url=st.sampled_from(URLS),
          commit=st.booleans())
    def register(self, me: int, consumer: str, url: str, commit: bool) -> None:
        if any(p.registered for i, p in enumerate(self.parties) if i != me):
            # it would wait for that transaction: an agent's registrations are counted
            # against its limit one transaction at a time (aq.register_as)
            return
        r = self._post(me, _register_doc(consumer, url, commit))
        if r is None:
            return
        self._ok(r)
        p = self.parties[me]
        p.in_tx = True  # a registration is transactional
        p.registered.append((consumer, url))
        if commit:
            self._end(me, commit=True)

    @rule(me=CLIENT, commit=st.booleans())
    def end(self, me: int, commit: bool) -> None:
        r = self._post(me, envelope(op("AQXmlCommit" if commit else "AQXmlRollback", "")))
        if r is None:
            return
        self._ok(r)
        assert r.text("//aq:status_code") == ["0"]
        self._end(me, commit=commit)

    @precondition(lambda self: self.losses < 1 and any(p.in_tx for p in self.parties))
    @rule(data=st.data(), then=st.sampled_from(["AQXmlCommit", "AQXmlRollback", "send"]))
    def lose_connection(self, data: st.DataObject, then: str) -> None:
        """The database ends a session's connection (a restart, pg_terminate_backend): its
        transaction is gone, uncounted; the session's next use of it is a Server fault
        ORA-03113, after which the session starts afresh."""
        self.losses += 1
        me = data.draw(st.sampled_from([i for i, p in enumerate(self.parties) if p.in_tx]))
        p = self.parties[me]
        pid = self.env.call(self.env.gateway.backend_of(self.clients[me]))
        assert pid is not None, "the model has a transaction the gateway does not hold"
        assert self.env.call(self.env.admin.fetchval("SELECT pg_terminate_backend($1, 10000)", pid))
        doc = (envelope(op(then, "")) if then != "send" else
               _send_doc("AQXmlSend", QUEUE, 0, "A", "ON_COMMIT", False, None))
        r = self._post(me, doc)
        assert r is not None
        if not (then == "AQXmlRollback" and r.fault is None):  # a rollback may just succeed
            assert r.fault is not None and r.error_code == "3113", r.body
            assert b"Server" in r.body, r.body
        for _seq, consumer in p.taken + p.locked:  # offered again from the start
            p.pos.pop((QUEUE if consumer is None else TOPIC, consumer), None)
        p.in_tx, p.sent, p.taken, p.locked, p.registered = False, [], [], [], []

    @precondition(lambda self: self.restarts < 1)
    @rule()
    def restart_gateway(self) -> None:
        """A graceful stop rolls every open transaction back, counting the attempts."""
        self.restarts += 1
        self.env.call(self.env.gateway.stop())
        for i, p in enumerate(self.parties):
            self._end(i, commit=False)
            p.pos, p.notice = {}, False  # a new gateway knows no old session
        self.env.call(self.env.gateway.start())

    @precondition(lambda self: self.idles < 1)
    @rule()
    def idle_timeout(self) -> None:
        self.idles += 1
        self.env.call(self.env.gateway.reap_all())
        for i, p in enumerate(self.parties):
            if p.in_tx:
                p.notice = True
            self._end(i, commit=False)
            p.pos = {}

    # -- what the database holds -----------------------------------------------------
    @invariant()
    def committed_rows_match(self) -> None:
        rows = self.env.call(self.env.admin.fetch(
            "SELECT msg_id, NULL::text AS consumer_name, retry_count, msg_state FROM smq.aq$sm_qt "
            "UNION ALL SELECT msg_id, consumer_name, retry_count, msg_state FROM smq.aq$sm_tt"))
        # (the topic's view: each subscriber's own state)
        seen: dict[Key, tuple[str, int | None]] = {}
        for row in rows:
            seq = self.seq_of.get(row["msg_id"])
            assert seq is not None, row  # nothing the model did not send (or did not see sent)
            if row["msg_state"] == "PROCESSED":
                continue  # removed, kept by nothing but the other subscriber's delivery
            where = "E" if row["msg_state"] == "EXPIRED" else "Q"
            assert where == "E" or row["msg_state"] == "READY", row
            seen[(seq, row["consumer_name"])] = (where, row["retry_count"] if where == "Q" else None)
        expected = {k: (d.where, d.retry if d.where == "Q" else None)
                    for k, d in self.deliveries.items() if d.where != "GONE"}
        assert seen == expected
        registered = self.env.call(self.env.admin.fetch(
            "SELECT r.consumer_name, r.notify_url FROM aq.registrations r "
            "JOIN aq.queues q ON q.id = r.queue_id WHERE q.queue_name = 'sm_t'"))
        assert {(r["consumer_name"], r["notify_url"]) for r in registered} == self.registrations

    @invariant()
    def one_open_transaction_per_session_in_one(self) -> None:
        """Every open transaction belongs to a session the model has in one: none is left
        behind by a session that ended, was reaped or lost its cookie."""
        open_tx = self.env.call(self.env.admin.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()"))
        assert open_tx == sum(p.in_tx for p in self.parties), self.parties

    def teardown(self) -> None:
        for i in range(CLIENTS):
            self.env.call(self.clients[i].post(envelope(op("AQXmlRollback", ""))))
            self.env.call(self.clients[i].close())
        try:
            self.env.call(self.env.admin.execute(
                "SET lock_timeout = '10s'; "
                "DELETE FROM smq.sm_qt; DELETE FROM smq.aq$_sm_tt_r; DELETE FROM smq.sm_tt; "
                "DELETE FROM aq.registrations; DELETE FROM aq.notifications"))
        except asyncpg.LockNotAvailableError:  # something still holds what was rolled back
            holders = self.env.call(self.env.admin.fetch(
                "SELECT a.pid, a.state, a.xact_start, left(a.query, 300) AS query, "
                "array_agg(l.locktype || ':' || l.mode) AS locks FROM pg_stat_activity a "
                "JOIN pg_locks l ON l.pid = a.pid WHERE a.datname = current_database() "
                "AND a.pid <> pg_backend_pid() AND a.xact_start IS NOT NULL "
                "GROUP BY 1, 2, 3, 4"))
            raise AssertionError(f"a transaction outlived its session: {holders}") from None


async def _setup_queue(conn: asyncpg.Connection) -> list[str]:
    roles = await make_agent(conn)
    await conn.execute(f'CREATE SCHEMA smq AUTHORIZATION "{roles[0]}"')
    await conn.execute(f"""
        CALL dbms_aqadm.create_queue_table('smq.sm_qt', 'RAW');
        CALL dbms_aqadm.create_queue('smq.sm_q', 'smq.sm_qt', max_retries => {MAX_RETRIES});
        CALL dbms_aqadm.start_queue('smq.sm_q');
        CALL dbms_aqadm.create_queue_table('smq.sm_tt', 'RAW', multiple_consumers => true);
        CALL dbms_aqadm.create_queue('smq.sm_t', 'smq.sm_tt', max_retries => {MAX_RETRIES});
        CALL dbms_aqadm.start_queue('smq.sm_t');
        CALL dbms_aqadm.add_subscriber('smq.sm_t', sys.aq$_agent('S1', NULL, NULL));
        CALL dbms_aqadm.add_subscriber('smq.sm_t', sys.aq$_agent('S2', NULL, NULL));
        CREATE FUNCTION smq.flip(b bytea) RETURNS bytea LANGUAGE sql IMMUTABLE
          AS $$ SELECT '\\x54'::bytea || b $$;
        CALL dbms_transform.create_transformation('smq', 'flip', 'SYS', 'RAW', 'SYS', 'RAW',
                                                  'smq.flip');
    """)
    return roles


async def _run_machine(db_dsn: str, conn: asyncpg.Connection,
                       run: Callable[[Env], None]) -> None:
    roles = await _setup_queue(conn)
    gateway = Gateway(db_dsn)
    await gateway.start()
    try:
        await asyncio.to_thread(run, Env(asyncio.get_running_loop(), gateway, conn))
    finally:
        await gateway.stop()
        await drop_roles(conn, roles)


@pytest.mark.timeout(3600 if EXAMPLES else 300)
async def test_idap_sessions_follow_the_model(db_dsn: str, conn: asyncpg.Connection) -> None:
    def run(env: Env) -> None:
        Sessions.env = env
        run_state_machine_as_test(
            Sessions, settings=settings(fuzz(60), stateful_step_count=50, deadline=None))

    await _run_machine(db_dsn, conn, run)


