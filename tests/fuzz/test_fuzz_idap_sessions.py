"""IDAP sessions as a state machine: random sequences of Send, Receive (every mode,
visibility, navigation, a correlation selector), Commit, Rollback (asked for or
piggybacked), idle timeout and gateway restart from three clients, posted over real HTTP to
a real gateway, each answer and the queue table's committed rows checked against a small
reference model of AQ's semantics.

The model is written from the seeds (000 "IDAP servlet sessions and transactions", 002
retries and exception queues): a transaction sees its own uncommitted sends and not
others'; a REMOVE or LOCKED dequeue skips what other transactions took; BROWSE reads what
is committed; NEXT_MESSAGE continues after the last message this session got with the same
selector, FIRST_MESSAGE starts over; a commit or rollback ends the transaction and the next
request starts a new one; a rolled-back REMOVE counts one failed attempt and is offered
again to the same session in queue order; past max_retries (2) the message is in the
exception queue; a gateway that stops rolls its sessions back (counted), an idle session is
rolled back and its next request told so once (ORA-25402).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

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
from .conftest import EXAMPLES, fuzz

T = TypeVar("T")
QUEUE = "SMQ.SM_Q"
EXCEPTION_QUEUE = "AQ$_SM_QT_E"
MAX_RETRIES = 2
CLIENTS = 3
CORRELATIONS = ("A", "B")
# weighted towards what interacts (one queue, few selectors, REMOVE) so the bounded run
# reaches deep sequences; every value still occurs
CLIENT = st.sampled_from([0, 0, 1, 1, 2])
MODES = st.sampled_from(["REMOVE", "REMOVE", "BROWSE", "LOCKED", "REMOVE_NODATA"])
SELECTORS = st.sampled_from([None, None, None, "A", "B"])
NAVIGATIONS = st.sampled_from(["NEXT_MESSAGE", "NEXT_MESSAGE", "FIRST_MESSAGE"])


class Gateway:
    """A gateway on a fixed loopback port that can be stopped and started again."""

    def __init__(self, dsn: str) -> None:
        self.settings = Settings(dsn=dsn, port=free_port(), session_timeout=3600.0,
                                 max_wait=5.0)  # type: ignore[call-arg]
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

    async def reap_all(self) -> None:
        """Every session idle past its timeout (a clock read an hour ahead)."""
        store = self.runner.app[STORE]
        await store.reap(time.monotonic() + store.timeout + 1)


@dataclass
class Msg:
    seq: int
    corr: str
    retry: int = 0
    where: str = "Q"  # Q ready in the queue, E in the exception queue, GONE removed


@dataclass
class Party:
    """What the model knows of one client's HTTP session."""

    in_tx: bool = False
    sent: list[int] = field(default_factory=list)  # uncommitted sends of the transaction
    taken: list[int] = field(default_factory=list)  # REMOVEd in the transaction
    locked: list[int] = field(default_factory=list)  # LOCKED in the transaction
    pos: tuple[str | None, int] | None = None  # (selector, seq) NEXT_MESSAGE continues after
    notice: bool = False  # the next request is told its idle transaction was rolled back


class Env:
    """The test's event loop seen from the state machine's thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop, gateway: Gateway,
                 admin: asyncpg.Connection) -> None:
        self.loop = loop
        self.gateway = gateway
        self.admin = admin
        self.counter = 0

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(60)


def _send_doc(n: int, corr: str, visibility: str, commit: bool) -> bytes:
    vis = f"<visibility>{visibility}</visibility>" if visibility != "ON_COMMIT" else ""
    return envelope(op("AQXmlSend", (
        f"<producer_options><destination>{QUEUE}</destination>{vis}</producer_options>"
        "<message_set><message_count>1</message_count><message>"
        f"<message_number>1</message_number><message_header><correlation>{corr}</correlation>"
        f"<sender_id><agent_name>JOHN</agent_name></sender_id></message_header><message_payload><RAW>{n:08X}</RAW></message_payload></message>"
        "</message_set>" + ("<AQXmlCommit/>" if commit else ""))))


def _receive_doc(mode: str, visibility: str, navigation: str, corr: str | None,
                 commit: bool, queue: str = QUEUE) -> bytes:
    selector = f"<selector><correlation>{corr}</correlation></selector>" if corr else ""
    return envelope(op("AQXmlReceive", (
        f"<consumer_options><destination>{queue}</destination><wait_time>0</wait_time>"
        f"{selector}<visibility>{visibility}</visibility><dequeue_mode>{mode}</dequeue_mode>"
        f"<navigation_mode>{navigation}</navigation_mode></consumer_options>"
        + ("<AQXmlCommit/>" if commit else ""))))


class Sessions(RuleBasedStateMachine):
    env: Env

    def __init__(self) -> None:
        super().__init__()
        self.msgs: dict[int, Msg] = {}
        self.ids: dict[int, str] = {}
        self.seq_of: dict[str, int] = {}
        self.parties = [Party() for _ in range(CLIENTS)]
        self.clients = [self.env.call(self._client()) for _ in range(CLIENTS)]
        self.restarts = self.idles = 0  # each at most once an example: they end every session

    async def _client(self) -> Client:
        return Client(self.env.gateway.url, "JOHN", "secret")  # made on the gateway's loop

    # -- the model ------------------------------------------------------------------
    def _held_by_others(self, me: int) -> set[int]:
        return {s for i, p in enumerate(self.parties) if i != me for s in p.taken + p.locked}

    def _own(self, p: Party) -> set[int]:
        return set(p.taken) | set(p.locked)

    def _visible(self, me: int, mode: str, in_tx: bool) -> list[Msg]:
        """The messages a dequeue of client `me` may return, in queue order."""
        p = self.parties[me]
        ready = [m for m in self.msgs.values() if m.where == "Q"]
        if in_tx:
            pending = [Msg(s, self._corr[s]) for s in p.sent]
            view = [m for m in ready + pending if m.seq not in p.taken]
            held = self._held_by_others(me)
        else:
            view = ready
            held = self._held_by_others(me) | self._own(p)
        if mode != "BROWSE":
            view = [m for m in view if m.seq not in held]
        return sorted(view, key=lambda m: m.seq)

    def _end(self, me: int, commit: bool, counted: bool = True) -> None:
        p = self.parties[me]
        if commit:
            for s in p.sent:
                self.msgs[s] = Msg(s, self._corr[s])
            for s in p.taken:
                if s in self.msgs:  # (one sent and removed in this transaction never was)
                    self.msgs[s].where = "GONE"
        else:
            for s in p.taken:
                m = self.msgs.get(s)
                if m is None or not counted:  # None: sent in this transaction too
                    continue
                m.retry += 1
                if m.retry > MAX_RETRIES:
                    m.where = "E"
            if p.taken or p.locked:
                p.pos = None
        p.in_tx, p.sent, p.taken, p.locked = False, [], [], []

    @property
    def _corr(self) -> dict[int, str]:
        return self.__dict__.setdefault("_corrs", {})

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
    @rule(me=CLIENT, corr=st.sampled_from(CORRELATIONS),
          visibility=st.sampled_from(["ON_COMMIT", "IMMEDIATE"]), commit=st.booleans())
    def send(self, me: int, corr: str, visibility: str, commit: bool) -> None:
        self.env.counter += 1
        n = self.env.counter
        r = self._post(me, _send_doc(n, corr, visibility, commit))
        if r is None:
            return
        self._ok(r)
        [mid] = r.text("//aq:send_result/aq:message_id")
        self.ids[n], self.seq_of[mid] = mid, n
        self._corr[n] = corr
        p = self.parties[me]
        if visibility == "IMMEDIATE" or (commit and not p.in_tx):
            self.msgs[n] = Msg(n, corr)
        else:
            p.in_tx = True
            p.sent.append(n)
        if commit:
            self._end(me, commit=True)

    @rule(me=CLIENT,
          mode=MODES,
          visibility=st.sampled_from(["ON_COMMIT", "IMMEDIATE"]),
          navigation=NAVIGATIONS, corr=SELECTORS, commit=st.booleans())
    def receive(self, me: int, mode: str, visibility: str, navigation: str, corr: str | None,
                commit: bool) -> None:
        p = self.parties[me]
        r = self._post(me, _receive_doc(mode, visibility, navigation, corr, commit))
        if r is None:
            return
        self._ok(r)
        in_tx = visibility == "ON_COMMIT" and (p.in_tx or not commit)
        start = None
        if navigation == "NEXT_MESSAGE" and p.pos is not None and p.pos[0] == corr:
            start = p.pos[1]
        candidates = [m for m in self._visible(me, mode, in_tx)
                      if (corr is None or m.corr == corr) and (start is None or m.seq > start)]
        got = r.text("//aq:message_id")
        expected = candidates[:1]
        assert [self.seq_of.get(g) for g in got] == [m.seq for m in expected], (
            got, [self.ids[m.seq] for m in expected], mode, visibility, navigation, corr, commit)
        if expected:
            m = expected[0]
            assert r.text("//aq:delivery_count") == [str(m.retry)], r.body
            p.pos = (corr, m.seq)
            if in_tx:
                p.in_tx = True
                if mode in ("REMOVE", "REMOVE_NODATA"):
                    if m.seq in p.sent:  # its own send: gone whatever the outcome
                        p.sent.remove(m.seq)
                    p.taken.append(m.seq)
                elif mode == "LOCKED" and m.seq not in p.locked:
                    p.locked.append(m.seq)
            elif mode in ("REMOVE", "REMOVE_NODATA"):
                self.msgs[m.seq].where = "GONE"
        elif in_tx:
            p.in_tx = True
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

    @rule(me=CLIENT, mode=st.sampled_from(["REMOVE", "LOCKED"]), corr=SELECTORS)
    def attempt_and_roll_back(self, me: int, mode: str, corr: str | None) -> None:
        """The poison-message loop of a consumer: take the next message, fail, roll back."""
        self.receive(me, mode, "ON_COMMIT", "NEXT_MESSAGE", corr, commit=False)
        self.end(me, commit=False)

    @precondition(lambda self: self.restarts < 1)
    @rule()
    def restart_gateway(self) -> None:
        """A graceful stop rolls every open transaction back, counting the attempts."""
        self.restarts += 1
        self.env.call(self.env.gateway.stop())
        for i, p in enumerate(self.parties):
            self._end(i, commit=False)
            p.pos, p.notice = None, False  # a new gateway knows no old session
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
            p.pos = None

    # -- what the database holds -----------------------------------------------------
    @invariant()
    def committed_rows_match(self) -> None:
        rows = self.env.call(self.env.admin.fetch(
            "SELECT encode(msgid, 'hex') AS id, retry_count, q_name, state FROM smq.sm_qt"))
        seen = {}
        for row in rows:
            seq = self.seq_of.get(row["id"].upper())
            assert seq is not None, row  # nothing the model did not send (or did not see sent)
            where = "E" if row["q_name"].upper() == EXCEPTION_QUEUE else "Q"
            seen[seq] = (where, row["retry_count"] if where == "Q" else None)
        expected = {m.seq: (m.where, m.retry if m.where == "Q" else None)
                    for m in self.msgs.values() if m.where != "GONE"}
        assert seen == expected

    def teardown(self) -> None:
        for i in range(CLIENTS):
            self.env.call(self.clients[i].post(envelope(op("AQXmlRollback", ""))))
            self.env.call(self.clients[i].close())
        self.env.call(self.env.admin.execute("DELETE FROM smq.sm_qt"))


async def _setup_queue(conn: asyncpg.Connection) -> list[str]:
    roles = await make_agent(conn)
    await conn.execute(f'CREATE SCHEMA smq AUTHORIZATION "{roles[0]}"')
    await conn.execute(f"""
        CALL dbms_aqadm.create_queue_table('smq.sm_qt', 'RAW');
        CALL dbms_aqadm.create_queue('smq.sm_q', 'smq.sm_qt', max_retries => {MAX_RETRIES});
        CALL dbms_aqadm.start_queue('smq.sm_q');
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


