"""HTTP sessions of the IDAP gateway, each with at most one open database transaction.

The first request of a client opens a session (a random cookie bound to the agent) and,
for transactional work, a transaction on a connection the session holds until
AQXmlCommit or AQXmlRollback. Idle transactions are rolled back after a timeout (the
rollback counts failed dequeue attempts, as AQ does). The number of open transactions is
bounded: past the limit a request gets a fault at once instead of waiting.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import re
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import asyncpg

from ..aio import TaskGroup, wait_any
from ..client import FastPath, Session

if TYPE_CHECKING:
    from .hooks import HookCall
from ..errors import ConnectionLost, PgaqError
from ..lease import Lease
from ..listener import Listener

log = logging.getLogger("pgaq.gateway.sessions")


class SessionError(PgaqError):
    """A session problem the client caused (foreign cookie, too many transactions).
    `drop`: the reply expires the client's cookie (the session it names is gone)."""

    def __init__(self, message: str, code: int | None = None, *, drop: bool = False) -> None:
        super().__init__(message, code)
        self.drop = drop


class CommitInDoubt(ConnectionLost):
    """The connection was lost while its COMMIT was on the way: the server may have
    committed. (Lost before, the transaction is known to be rolled back.)"""


_TOKENS: list[str] = []  # read ahead: one getrandom call and one encoding per 128 tokens


def _forget_tokens() -> None:
    _TOKENS.clear()  # a forked child must not hand out its parent's next tokens


os.register_at_fork(after_in_child=_forget_tokens)


def new_token() -> str:
    """A session token: 43 URL-safe base64 characters (258 bits) from the OS's CSPRNG,
    as long as secrets.token_urlsafe(32)'s. Made 128 at a time: every request that sends
    no cookie gets a session, and a syscall and an encoding each are a measurable cost.
    33 random bytes encode to 44 characters with no padding; each token is the first 43."""
    if not _TOKENS:
        text = base64.urlsafe_b64encode(os.urandom(33 * 128)).decode("ascii")
        _TOKENS.extend(text[i:i + 43] for i in range(0, len(text), 44))
    return _TOKENS.pop()


def process_prefix(tag: str) -> str:
    """The prefix of the tokens one gateway process issues: its role (`g` alone, `w<i>` a
    worker) and a random part new at each start. A token of a process that ended (killed,
    restarted, or another instance behind a load balancer) is then told from this
    process's own and from a forged one: its next request hears that its transaction is
    gone instead of silently starting afresh (SessionStore.get)."""
    return f"{tag}-{base64.b32encode(os.urandom(5)).decode('ascii').lower()}."


# what process_prefix + new_token make; anything else is no gateway's token (a forgery or
# a cookie of an older version) and starts a new session as it always did
_ISSUED = re.compile(r"(?:g|w[0-9]{1,4})-[a-z2-7]{8}\.[A-Za-z0-9_-]{43}")


class Autocommits:
    """Where a gateway session's engine takes a connection for an operation of its own
    transaction (IMMEDIATE visibility, outside the session's transaction or beside it):
    the pool's, in a transaction committed when the operation returns, rolled back when it
    fails or is cancelled. An autocommit statement commits whether or not its caller still
    waits: a receive whose client went away while its dequeue ran (the request cancelled,
    services/gateway) would have removed messages answered to nobody. (The driver's
    cancel request stops a statement still running; not one the server finished first.)
    A cancel during the COMMIT's round trip or after it is the window any request and
    response has (docs/gateway.md, "A client that goes away")."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    def acquire(self) -> AbstractAsyncContextManager[asyncpg.Connection]:
        return self._in_transaction()

    @asynccontextmanager
    async def _in_transaction(self) -> AsyncIterator[asyncpg.Connection]:
        async with self.pool.acquire() as conn, conn.transaction():
            yield conn


@dataclass
class HttpSession:
    token: str
    agent: str
    engine: Session | None = None
    lease: Lease | None = None  # the connection of the open transaction, held by this session
    last_used: float = field(default_factory=time.monotonic)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    role: str | None = None
    closed: bool = False
    call: HookCall | None = None  # the request being served, as its hooks see it

    @property
    def conn(self) -> asyncpg.Connection | None:
        """The open transaction's connection (None outside one)."""
        return None if self.lease is None else self.lease.conn

    @property
    def in_transaction(self) -> bool:
        return self.engine is not None and self.engine.in_transaction

    @property
    def holds_state(self) -> bool:
        """Whether the session has anything a later request could continue: an open
        transaction or dequeue positions. Sessions without are not kept (no cookie)."""
        return self.engine is not None and (self.engine.in_transaction or self.engine.has_positions)


class SessionStore:
    def __init__(
        self,
        pool: asyncpg.Pool,
        listener: Listener | None,
        *,
        timeout: float = 120.0,
        max_transactions: int = 50,
        max_sessions: int = 10_000,
        max_wait: float = 300.0,
        safety_poll: float = 5.0,
        prefix: str = "",
    ) -> None:
        self.pool = pool
        self.prefix = prefix  # names the worker process that owns a token (see owner_of)
        self.listener = listener
        self.timeout = timeout
        self.max_transactions = max_transactions
        self.max_sessions = max_sessions
        self.max_wait = max_wait
        self.safety_poll = safety_poll
        self._sessions: dict[str, HttpSession] = {}
        # tokens whose transaction the reaper rolled back: their next request is told so
        # (once), rather than silently starting a new session (bounded, oldest dropped)
        self._expired: dict[str, str] = {}
        # tokens of other processes already told their transaction is gone (bounded, oldest
        # dropped): told once, as above, even by a client that ignores the expired cookie
        self._told: dict[str, None] = {}
        self.fast_cache: dict[tuple[str | None, str, bool], FastPath] = {}  # shared by all sessions
        self.autocommits = Autocommits(pool)
        self._open = 0
        self._stop = asyncio.Event()
        self._tasks: TaskGroup | None = None

    @property
    def open_transactions(self) -> int:
        return self._open

    @property
    def sessions(self) -> int:
        return len(self._sessions)

    def peek(self, token: str) -> HttpSession | None:
        """The live session of `token` as it stands, or None: no agent check, and its idle
        clock and eviction order untouched (a request's own lookup is `get`)."""
        return self._sessions.get(token)

    async def start(self) -> None:
        self._tasks = TaskGroup("sessions")
        self._tasks.spawn("reaper", self._reaper())

    async def close(self) -> None:
        """Roll back every open transaction (graceful shutdown)."""
        self._stop.set()
        if self._tasks:
            await self._tasks.close()
        for s in list(self._sessions.values()):
            async with s.lock:
                await self._roll_back(s, "at shutdown")  # one failure stops none of the rest
        self._sessions.clear()

    def get(self, token: str | None, agent: str) -> HttpSession:
        """The agent's session for this cookie, or a new one."""
        now = time.monotonic()
        if token:
            expired_agent = self._expired.get(token)
            if expired_agent is not None:
                if not secrets.compare_digest(expired_agent, agent):
                    # another agent must not use up the owner's notice: the owner would
                    # then commit nothing and be told it succeeded
                    raise SessionError("the session belongs to another agent", 25400)
                del self._expired[token]
                raise SessionError(f"ORA-25402: the session was idle over {self.timeout:g} s and its "
                                   "transaction was rolled back; nothing it did since its last "
                                   "commit was kept", 25402)
            s = self._sessions.get(token)
            if s is not None and not s.closed:
                if not secrets.compare_digest(s.agent, agent):
                    raise SessionError("the session belongs to another agent", 25400)
                s.last_used = now
                # least recently used last: eviction takes from the front
                self._sessions[token] = self._sessions.pop(token)
                return s
            if s is None:
                self._foreign(token)
        if len(self._sessions) >= self.max_sessions:
            self._evict()
        s = HttpSession(token=self.prefix + new_token(), agent=agent)
        self._sessions[s.token] = s
        return s

    async def claim(self, token: str | None, agent: str) -> HttpSession:
        """The agent's session as `get` finds it, its lock held for one request (the
        caller releases it). A session the reaper ended while this request waited for
        its lock is looked up again: the request is then told that its transaction was
        rolled back, instead of running outside it and committing nothing."""
        while True:
            s = self.get(token, agent)
            await s.lock.acquire()
            if not s.closed:
                s.last_used = time.monotonic()
                return s
            s.lock.release()

    def _foreign(self, token: str) -> None:
        """A token issued by another gateway process (this instance's dead worker, or an
        instance that was killed, restarted or is unreachable, whose requests a load
        balancer now sends here): whatever transaction it had open went with that
        process. Say so, once, instead of starting a fresh session as if nothing had
        happened; the client's next request (without the cookie) then works."""
        owner = self.owner_of(token)
        if owner == self.prefix or not _ISSUED.fullmatch(token) or token in self._told:
            return
        self._told[token] = None
        while len(self._told) > self.max_sessions:
            del self._told[next(iter(self._told))]
        raise SessionError(f"ORA-25402: transaction must roll back: the gateway process that "
                           f"held this session ({owner.rstrip('.')}) is gone, and the session's "
                           "transaction with it; nothing it did since its last commit was "
                           "kept", 25402, drop=True)

    def _evict(self) -> None:
        """Make room by dropping the least recently used sessions that hold no transaction
        (their positions are all they lose); a store full of transactions refuses."""
        excess = len(self._sessions) - self.max_sessions + 1
        for token, s in list(self._sessions.items()):
            if excess <= 0:
                return
            if not s.in_transaction and not s.lock.locked():
                s.closed = True
                del self._sessions[token]
                excess -= 1
        if excess > 0:
            raise SessionError("too many HTTP sessions; retry later", 25401)

    def keep(self, s: HttpSession) -> bool:
        """After a request: keep the session if it holds state, else forget it. True when
        kept (the response then carries the cookie)."""
        if s.holds_state or s.lock.locked() or s.lease is not None:
            return True
        if self.peek(s.token) is s:
            del self._sessions[s.token]
        return False

    @staticmethod
    def owner_of(token: str) -> str:
        """The prefix of the worker that issued `token` ("" for a single process)."""
        head, dot, _ = token.partition(".")
        return head + dot if dot else ""

    async def engine_for(self, s: HttpSession, *, transactional: bool,
                         role: str | None = None) -> Session:
        """The session's engine, bound to a held connection when `transactional`."""
        if s.engine is None:
            s.engine = Session(
                None,  # bound to a connection when a transaction starts
                pool=self.autocommits, listener=self.listener, agent=s.agent,
                max_wait=self.max_wait, safety_poll=self.safety_poll,
                fast_cache=self.fast_cache,
            )
        if transactional and not s.engine.in_transaction:
            if self._open >= self.max_transactions:
                raise SessionError(
                    f"too many open transactional sessions (limit {self.max_transactions})", 25402
                )
            if s.lease is not None:  # a transaction that failed to restart: let go first
                await self._release(s)
            self._open += 1
            try:
                conn = await self.pool.acquire()
            except BaseException:
                self._open -= 1
                raise
            s.lease = Lease(conn, f"the IDAP session of {s.agent}")
            try:
                s.engine.bind(s.lease)
                s.engine.role = role
                await s.engine.begin()
                s.role = role
            except BaseException:
                await self._release(s)
                raise
        return s.engine

    async def finish(self, s: HttpSession, *, commit: bool) -> None:
        await self._end(s, commit=commit)

    async def _end(self, s: HttpSession, *, commit: bool) -> None:
        if s.engine is None or not s.engine.in_transaction:
            if s.lease is not None:  # a transaction that failed to start again: let go
                await self._release(s)
            return
        try:
            if commit:
                sent = s.conn is not None and not s.conn.is_closed()
                try:
                    await s.engine.commit()
                except ConnectionLost as exc:
                    if not sent:
                        raise  # never reached the server: rolled back with its connection
                    raise CommitInDoubt(exc.message, exc.code, exc.sqlstate) from exc
            else:
                await s.engine.rollback()
        finally:
            await self._release(s)

    async def abort(self, s: HttpSession) -> None:
        """After a cancelled or failed request whose session state cannot be trusted: roll
        back, drop the connection if it is unusable, and leave the engine unbound, so the
        session's next request starts afresh."""
        await asyncio.shield(self._roll_back(s, "after an aborted request"))
        if s.engine is not None:
            s.engine.unbind()

    async def _roll_back(self, s: HttpSession, when: str) -> None:
        """Roll the session's transaction back; if that fails, drop its connection (the
        server then rolls back) and give it back all the same: never raises, so one broken
        connection stops neither the reaper nor a shutdown."""
        try:
            await self._end(s, commit=False)
        except Exception as exc:
            log.warning("rollback %s failed: %r", when, exc)
            if s.lease is not None and s.lease.held:
                s.lease.conn.terminate()
            await self._release(s)

    async def _release(self, s: HttpSession) -> None:
        """Give the transaction's connection back: the engine lets go of it first, so no
        later statement of this session can reach it (the lease refuses if one tries)."""
        lease, s.lease = s.lease, None
        if s.engine is not None:
            s.engine.unbind()
        if lease is not None and lease.held:
            self._open -= 1
            conn = lease.give_back()
            try:
                await self.pool.release(conn)
            except (asyncpg.PostgresError, OSError, asyncpg.InterfaceError) as exc:
                log.warning("releasing a session connection failed: %r", exc)
        s.role = None

    async def _reaper(self) -> None:
        interval = max(0.05, min(self.timeout / 4, 5.0))
        while not self._stop.is_set():
            await wait_any(asyncio.Event(), interval, self._stop)
            await self.reap(time.monotonic())

    async def reap(self, now: float) -> int:
        """End the sessions idle for `timeout` at `now` (a monotonic reading), rolling back
        their transactions; their next request is told so once. How many ended."""
        ended = 0
        for s in list(self._sessions.values()):
            if now - s.last_used < self.timeout or s.lock.locked():
                continue
            async with s.lock:
                if s.in_transaction or s.lease is not None:
                    log.info("session of %s idle for %.0fs: rolling back", s.agent, now - s.last_used)
                    await self._roll_back(s, "of an idle session")
                    self._expired[s.token] = s.agent
                    while len(self._expired) > self.max_sessions:
                        del self._expired[next(iter(self._expired))]
                s.closed = True
                self._sessions.pop(s.token, None)
                ended += 1
        return ended
