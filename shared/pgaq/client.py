"""The async client library over the SQL engine: the same semantics as dbms_aq.

A `Session` is one client's view of the queues: its connection, its transaction, its
NEXT_MESSAGE positions, and the REMOVE dequeues that a rollback must count as failed
attempts (PostgreSQL has no autonomous transactions, so the count is written right after
the rollback, in a transaction of its own).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal, Protocol, TypeVar

import asyncpg

from . import routes, waiting
from .clock import Clock, SystemClock
from .errors import ConnectionLost, PgaqError, QueueError, wrap_db_error
from .lease import Lease
from .listener import Listener, Wakeup
from .queries import load, load_as_role

# what `from pgaq.client import *` gives, and so what the old name pgaq.engine re-exports to
# type checkers (engine.py); `pgaq` itself exports the part users need (__init__.py)
__all__ = [
    "BUFFERED_REMOVES", "DEQUEUE_DELIVERY_MODES", "DEQUEUE_MODES", "ENQUEUE_DELIVERY_MODES",
    "NAVIGATIONS", "VISIBILITIES", "Agent", "DequeueOptions", "FastPath", "Message",
    "MessageProperties", "Mode", "Payload", "Session", "Statement", "load_json_payload", "run_mode",
]

T = TypeVar("T")
Payload = bytes | dict[str, Any] | None

DEQUEUE_MODES = ("BROWSE", "LOCKED", "REMOVE", "REMOVE_NODATA")
NAVIGATIONS = ("FIRST_MESSAGE", "NEXT_MESSAGE", "NEXT_TRANSACTION")
VISIBILITIES = ("ON_COMMIT", "IMMEDIATE")
# Oracle's delivery modes (Oracle Streams Advanced Queuing User's Guide and Reference 10g
# Release 2 (10.2), "Introducing Oracle Streams AQ", "Buffered Messaging"): an enqueue is
# PERSISTENT or BUFFERED; a dequeue takes either or both
ENQUEUE_DELIVERY_MODES = ("PERSISTENT", "BUFFERED")
DEQUEUE_DELIVERY_MODES = ("PERSISTENT", "BUFFERED", "PERSISTENT_OR_BUFFERED")
# where Session.run runs an operation: the table at run_mode (strings, not an Enum:
# an Enum member costs ~150 ns a lookup on Python 3.11, and this is on every call)
Mode = Literal["aside", "first", "savepoint", "pooled", "own"]


class ConnectionSource(Protocol):
    """Where a Session takes a connection for an operation of its own: an asyncpg.Pool,
    or anything that lends one the same way (the gateway's, pgaq.idap.sessions.Autocommits,
    lends it in a transaction committed when the operation returns)."""

    def acquire(self) -> AbstractAsyncContextManager[asyncpg.Connection]: ...


@dataclass(frozen=True)
class Agent:
    name: str | None = None
    address: str | None = None
    protocol: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "address": self.address, "protocol": self.protocol}


@dataclass
class MessageProperties:
    priority: int = 1
    delay: int = 0
    expiration: int | None = None  # seconds after READY; None = never
    correlation: str | None = None
    sender_id: Agent | None = None
    recipient_list: list[Agent] | None = None
    exception_queue: str | None = None
    original_msgid: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"priority": self.priority, "delay": self.delay}
        if self.expiration is not None:
            out["expiration"] = self.expiration
        if self.correlation is not None:
            out["correlation"] = self.correlation
        if self.sender_id is not None:
            out["sender_id"] = self.sender_id.to_json()
            # as aq.normalise_props stores them, for the generated _send that skips it
            out["sender_name"] = (self.sender_id.name or "").strip(" ") or None
            out["sender_address"] = self.sender_id.address
            out["sender_protocol"] = self.sender_id.protocol
        if self.recipient_list:
            out["recipient_list"] = [a.to_json() for a in self.recipient_list]
        if self.exception_queue:
            out["exception_queue"] = self.exception_queue
        if self.original_msgid:
            out["original_msgid"] = self.original_msgid
        return out


@dataclass(frozen=True)
class DequeueOptions:
    consumer_name: str | None = None
    dequeue_mode: str = "REMOVE"
    navigation: str = "NEXT_MESSAGE"
    visibility: str = "ON_COMMIT"
    wait: float | None = 0.0  # seconds; None = as long as the session allows
    msgid: str | None = None
    correlation: str | None = None
    condition: str | None = None
    batch_size: int = 1
    transformation: str | None = None
    delivery_mode: str = "PERSISTENT"  # BUFFERED and PERSISTENT_OR_BUFFERED need IMMEDIATE


@dataclass(frozen=True)
class Message:
    msgid: str
    queue: str
    consumer_name: str | None
    correlation: str | None
    priority: int
    delay: int
    expiration: int | None
    enqueue_time: datetime
    state: str
    attempts: int
    exception_queue: str | None
    sender_id: Agent | None
    original_msgid: str | None
    transaction_group: int | None
    payload: Payload
    position: tuple[int, ...] = field(default=(), repr=False)
    delivery_mode: str = "PERSISTENT"


def _number(text: str) -> float | Decimal:
    """JSON numbers beyond a float's 15 significant digits stay exact (numeric columns)."""
    digits = text.lstrip("-").split("e")[0].split("E")[0].replace(".", "").lstrip("0")
    return Decimal(text) if len(digits) > 15 else float(text)


def load_json_payload(text: str) -> Any:
    """A JSON payload's text as the library reads it (Message.payload): numbers beyond a
    float's 15 significant digits as Decimal, so numeric(38) values stay exact. For a
    payload read with SQL of one's own (an aq$<queue_table> view's user_data)."""
    return json.loads(text, parse_float=_number)


def _hex(b: bytes | None) -> str | None:
    return b.hex().upper() if b is not None else None


async def _quiet_rollback(tx: asyncpg.transaction.Transaction) -> None:
    """Roll back what may be gone already (the error being reported is the first one)."""
    try:
        await tx.rollback()
    except _DRIVER_ERRORS:
        pass


def _msgid_bytes(text: str) -> bytes:
    clean = "".join(text.split())
    try:
        raw = bytes.fromhex(clean)
    except ValueError:
        raw = b""
    if len(raw) != 16:
        raise QueueError(f"ORA-25263: invalid message identifier {text!r}", 25263)
    return raw


def _buffered_needs_immediate(mode: str, visibility: str, what: str) -> None:
    """AQ User's Guide (10.2), "Buffered Messaging": "Both enqueue and dequeue buffered
    messaging operations must be with IMMEDIATE visibility mode" (the SQL interface raises
    the same, R__19). A session made with `buffered_in_transactions` (pgaq.jms's
    NON_PERSISTENT messages) skips this."""
    if mode != "PERSISTENT" and (visibility or "").upper() != "IMMEDIATE":
        raise QueueError(f"ORA-25293: {what} of {mode} messages has IMMEDIATE visibility: "
                         "it cannot be part of the caller's transaction", 25293, "0A000")


def _check(value: str, allowed: tuple[str, ...], what: str, code: int) -> str:
    v = (value or "").upper()
    if v not in allowed:
        raise QueueError(
            f"ORA-{code:05d}: invalid {what} {value!r}: use {', '.join(allowed)}", code
        )
    return v


_DEFAULT_PRIORITY = 1  # MessageProperties().priority (Session.enqueue's default message)

# what the driver raises for a statement that failed or a connection that broke
_DRIVER_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError, OSError)
# a process's concurrent buffered REMOVEs, taken together (the route "grouped")
BUFFERED_REMOVES = routes.BUFFERED_REMOVES


@dataclass(frozen=True)
class FastPath:
    """A queue's generated statements (see aq.fast_path), each also in a variant that sets
    the session's role itself, so an autocommit call is one round trip, not four."""

    name: str  # the queue's unqualified name
    send: Statement | None
    recv: Statement | None
    send1: Statement | None
    remove: str | None = None  # aq.fast_remove_sql: REMOVE of one message, no PL/pgSQL
    remove_after: str | None = None
    remove_role: str | None = None  # the same as the owner's function, for an acting role
    raw: bool = True  # the queue's payloads are RAW (bytes), not objects
    sendn: Statement | None = None  # several simple messages, properties as arrays
    remove_n: str | None = None  # REMOVE of up to $2 messages from the first, in queue order
    send_sql: str | None = None  # ENQUEUE of one undelayed RAW message, no PL/pgSQL
    remove_ids: str | None = None  # REMOVE of the messages $2 the transaction holds LOCKED


@dataclass(frozen=True)
class Statement:
    plain: str
    as_role: str  # takes the role as one more, last, parameter

    @classmethod
    def make(cls, template: str, fn: str | None) -> Statement | None:
        if fn is None:
            return None
        return cls(load(template).replace("{fn}", fn), load_as_role(template).replace("{fn}", fn))


def run_mode(visibility: str, in_transaction: bool, did_work: bool, holds_connection: bool) -> Mode:
    """Where an operation runs: the one place that decides (`Session.run` calls the
    method named).

    mode       when                  the operation runs             why
    ---------  --------------------  -----------------------------  ------------------------------------
    aside      in a transaction,     on another pooled connection,  IMMEDIATE: visible at once, kept
               IMMEDIATE             autocommit (`_pooled`)         even if the transaction rolls back
    first      in a transaction      in it, no savepoint; failing,  nothing to protect yet: saves a
               that did nothing yet  it restarts it (`_first`)      savepoint's two round trips
    savepoint  in a transaction      in it, under a savepoint       a bad request must not undo earlier
               that did something    (`_savepoint`)                 work nor leave the transaction aborted
    pooled     no transaction, no    on a pooled connection,        an unbound session (a gateway's,
               connection held       autocommit (`_pooled`)         between transactions) holds none
    own        no transaction, a     on that connection,            a connection of the caller's own or
               connection held       autocommit (`_autocommit`)     lent to the session (`bind`)

    An autocommit (aside, pooled, own) runs as the session's role (`_autocommit`):

    role   `inline`  runs                                  why
    -----  --------  ------------------------------------  ------------------------------------------
    none             the statement alone                   the login's role is the one to run as
    set    given     `inline`, which sets the role itself  one round trip instead of four
    set    none      BEGIN; SET ROLE; statement; COMMIT    any statement (`_as_role`)

    first and savepoint need no role: `Session.begin` set it (see `role_is_set`).
    """
    if in_transaction:
        if visibility == "IMMEDIATE":
            return "aside"
        return "savepoint" if did_work else "first"
    return "own" if holds_connection else "pooled"


class Session:
    def __init__(
        self,
        conn: asyncpg.Connection | None,
        *,
        pool: ConnectionSource | None = None,
        listener: Listener | None = None,
        role: str | None = None,
        agent: str | None = None,
        max_wait: float = 300.0,
        safety_poll: float = 5.0,
        clock: Clock | None = None,
        fast_cache: dict[tuple[str | None, str, bool], FastPath] | None = None,
        route_policy: routes.RoutePolicy | None = None,
        group_buffered: bool = True,
        buffered_in_transactions: bool = False,
    ) -> None:
        # the connection this session holds, if any: a caller's own (never given back by us)
        # or a pool's, lent by whoever binds it (see bind/unbind)
        self._lease: Lease | None = None if conn is None else Lease(conn, "a Session")
        self.pool = pool
        self.listener = listener
        self.role = role
        self.agent = agent
        self.max_wait = max_wait
        self.safety_poll = safety_poll
        self.clock: Clock = clock or SystemClock()
        self._tx: asyncpg.transaction.Transaction | None = None
        self._dirty = False  # whether the open transaction did any work yet
        # REMOVEs of the open transaction per (queue, consumer, buffered): a rollback counts
        # each a failed attempt, in the table (or buffered companion) the message is in
        self._removed: dict[tuple[str, str | None, bool], list[bytes]] = {}
        # positions whose messages this transaction took (REMOVE or LOCKED): a rollback
        # offers those messages again, so navigation starts over there
        self._taken: set[tuple[str, str | None]] = set()
        # NEXT_MESSAGE positions per (queue, consumer), valid for one selection criterion
        self._positions: dict[
            tuple[str, str | None], tuple[tuple[str | None, str | None], list[int], int | None]
        ] = {}
        self._queue_ids: dict[str, int] = {}
        # (role, queue) -> statements; a gateway shares one cache between its sessions
        self._fast: dict[tuple[str | None, str, bool], FastPath] = {} if fast_cache is None else fast_cache
        # which fast routes this session may take, told the route that served each call
        # (pgaq.routes.RoutePolicy); None: every route, as the library chooses
        self.route_policy = route_policy
        # buffered REMOVEs taken with the process's concurrent ones (pgaq.coalesce); off for
        # a session whose search_path differs from the other sessions' on the same database
        # and role
        self.group_buffered = group_buffered
        # buffered messages may be enqueued and dequeued ON_COMMIT, in the session's
        # transaction: Oracle JMS's contract for NON_PERSISTENT messages (Oracle JMS guide,
        # "Buffered Messaging with Oracle JMS": atomic with the transaction, redelivered
        # after a rollback or recover). The companion is UNLOGGED, not in memory, so it is
        # as transactional as any table; dbms_aq keeps Oracle's IMMEDIATE-only rule.
        self.buffered_in_transactions = buffered_in_transactions

    @property
    def conn(self) -> asyncpg.Connection | None:
        """The held connection; None when unbound. Reaching a connection whose lease was
        given back raises ConnectionMisuse: it may be another session's by now."""
        return None if self._lease is None else self._lease.conn

    def bind(self, lease: Lease) -> None:
        """Hold a lent connection (between transactions), keeping positions."""
        if self._tx is not None:
            raise PgaqError("cannot change connection inside a transaction")
        self._lease = lease

    def unbind(self) -> None:
        """Stop holding the connection (its lender gives it back); later statements take a
        pooled connection each. A transaction still open here is forgotten: the pool's
        reset rolls it back."""
        self._lease = None
        self._tx = None
        self._removed.clear()
        self._taken.clear()

    # -- transactions -------------------------------------------------------------------
    @property
    def in_transaction(self) -> bool:
        return self._tx is not None

    @property
    def has_positions(self) -> bool:
        """Whether NEXT_MESSAGE navigation has positions to continue from."""
        return bool(self._positions)

    async def begin(self) -> None:
        if self._tx is not None:
            return
        if self.conn is None:
            raise PgaqError("a transaction needs a connection")
        try:
            # a pooled connection the server closed is already back in its pool: asking
            # it for a transaction raises too (a lost connection, not a bug)
            tx = self.conn.transaction()
        except _DRIVER_ERRORS as exc:
            raise wrap_db_error(exc) from exc
        try:
            await tx.start()
            if self.role:
                await self.conn.execute(load("engine_set_role"), self.role)
        except _DRIVER_ERRORS as exc:
            await _quiet_rollback(tx)
            raise wrap_db_error(exc) from exc
        self._tx = tx
        self._dirty = False

    async def _restart(self) -> None:
        tx, self._tx = self._tx, None
        if tx is not None:
            await _quiet_rollback(tx)
        await self.begin()

    async def commit(self, *, begin_next: bool = False) -> None:
        """Commit; `begin_next`: and begin the next transaction in the same round trip (a
        consumer that goes on at once saves the BEGIN's)."""
        tx, self._tx = self._tx, None
        self._removed.clear()
        self._taken.clear()
        if tx is None:
            if begin_next:
                await self.begin()
            return
        if begin_next and not self.role and self.conn is not None:
            try:
                # one simple-query round trip; the driver's transaction object stays the
                # open one (it only ever sends COMMIT or ROLLBACK for it)
                await self.conn.execute("COMMIT; BEGIN")
            except _DRIVER_ERRORS as exc:
                await _quiet_rollback(tx)  # a failed COMMIT ended the transaction: end the
                raise wrap_db_error(exc) from exc  # driver's object with it
            self._tx = tx
            self._dirty = False
            return
        try:
            await tx.commit()
        except _DRIVER_ERRORS as exc:
            raise wrap_db_error(exc) from exc
        if begin_next:
            await self.begin()

    async def rollback(self) -> None:
        """Roll back, then count the rolled-back REMOVE dequeues as failed attempts."""
        tx, self._tx = self._tx, None
        removed, self._removed = self._removed, {}
        taken, self._taken = self._taken, set()
        for key in taken:  # the rolled-back messages are offered again, in queue order
            self._positions.pop(key, None)
        if tx is None:
            return
        try:
            await tx.rollback()
            for (queue, consumer, buffered), ids in removed.items():
                assert self.conn is not None
                await self._record_failed(self.conn, queue, consumer, ids, buffered)
        except _DRIVER_ERRORS as exc:
            # a connection the server closed rolled back with it (its attempts uncounted,
            # as when the database crashes)
            raise wrap_db_error(exc) from exc

    async def _record_failed(self, conn: asyncpg.Connection, queue: str, consumer: str | None,
                             ids: list[bytes], buffered: bool) -> None:
        async def call(c: asyncpg.Connection) -> None:
            await c.fetchval(load("engine_failed_attempts"), queue, consumer, ids, buffered)

        await self._autocommit(conn, call)

    async def run(
        self, visibility: str, fn: Callable[[asyncpg.Connection], Awaitable[T]],
        inline: Callable[[asyncpg.Connection], Awaitable[T]] | None = None,
    ) -> T:
        """Run one operation where `run_mode` says (`inline`, when given, is the same operation
        as one statement that sets the role itself), driver errors wrapped as PgaqError."""
        vis = _check(visibility, VISIBILITIES, "VISIBILITY", 25236)
        try:
            # (a transaction's connection is held: the lease is not asked again)
            tx = self._tx is not None
            mode = run_mode(vis, tx, self._dirty, tx or self.conn is not None)
            if mode == "own":
                return await self._autocommit(self.conn, fn, inline)
            if mode == "first":
                return await self._first(fn)
            if mode == "savepoint":
                return await self._savepoint(fn)
            return await self._pooled(fn, inline, mode)
        except asyncpg.PostgresError as exc:
            raise wrap_db_error(exc) from exc
        except (OSError, asyncpg.InterfaceError, asyncpg.InternalClientError) as exc:
            raise wrap_db_error(exc) from exc

    async def _first(self, fn: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
        """Mode "first": the transaction holds nothing yet, so no savepoint; if this fails, the
        transaction starts afresh so the session stays usable."""
        conn = self.conn
        assert conn is not None
        try:
            result = await fn(conn)
        except (asyncpg.PostgresError, PgaqError):
            await self._restart()
            raise
        self._dirty = True
        return result

    async def _savepoint(self, fn: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
        """Mode "savepoint": a bad request rolls back to the savepoint, the earlier work stays."""
        conn = self.conn
        assert conn is not None
        async with conn.transaction():
            return await fn(conn)

    async def _pooled(
        self, fn: Callable[[asyncpg.Connection], Awaitable[T]],
        inline: Callable[[asyncpg.Connection], Awaitable[T]] | None, mode: Mode,
    ) -> T:
        """Modes "aside" and "pooled": a pooled connection for this one operation, in autocommit."""
        if self.pool is None:
            raise PgaqError("IMMEDIATE visibility inside a transaction needs a connection pool"
                            if mode == "aside" else "a Session needs a connection or a pool")
        async with self.pool.acquire() as conn:
            return await self._autocommit(conn, fn, inline)

    def _autocommit(
        self, conn: asyncpg.Connection, fn: Callable[[asyncpg.Connection], Awaitable[T]],
        inline: Callable[[asyncpg.Connection], Awaitable[T]] | None = None,
    ) -> Awaitable[T]:
        """The operation in a transaction of its own, as the session's role (the second
        table at `run_mode`). It returns the operation's awaitable rather than being a coroutine
        itself: no frame of its own on the one-round-trip path."""
        if not self.role:
            return fn(conn)
        if inline is not None:
            return inline(conn)
        return self._as_role(conn, fn)

    async def _as_role(self, conn: asyncpg.Connection,
                       fn: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
        """SET ROLE in a transaction around the operation: any statement, four round trips."""
        async with conn.transaction():
            await conn.execute(load("engine_set_role"), self.role)
            return await fn(conn)

    # -- enqueue ------------------------------------------------------------------------
    async def enqueue(
        self,
        queue: str,
        payload: Payload,
        properties: MessageProperties | None = None,
        *,
        visibility: str = "ON_COMMIT",
        transformation: str | None = None,
        delivery_mode: str = "PERSISTENT",
    ) -> str:
        if (type(payload) is bytes and properties is None and transformation is None
                and visibility == "ON_COMMIT" and delivery_mode == "PERSISTENT"
                and self.route_policy is None):
            # the most frequent call: one RAW message with the default properties, which
            # the route send1sql admits; its cached statement run at once, without building
            # the operation and trying the route table (a third of the library's time)
            fast = self._fast.get((self.role, queue, False))
            if fast is not None and fast.send_sql is not None and fast.raw and self.role_is_set(visibility):
                return await self._enqueue_default_raw(queue, payload, fast)
        ids = await self.enqueue_array(
            queue, [(payload, properties)], visibility=visibility, transformation=transformation,
            delivery_mode=delivery_mode,
        )
        return ids[0]

    async def _enqueue_default_raw(self, queue: str, payload: bytes, fast: FastPath) -> str:
        """routes._send1sql for one RAW message with default properties, as routes.serve
        runs it; where it declines (or the queue moved) the next routes serve, as there."""
        sql = fast.send_sql
        args = (fast.name, _DEFAULT_PRIORITY, -1, None, self.agent, payload)
        row: asyncpg.Record | None
        try:
            conn = self.conn
            if self._tx is None and conn is not None and not self.role:
                try:  # run_mode "own", no role: `run` would call this alone
                    row = await conn.fetchrow(sql, *args)
                except _DRIVER_ERRORS as exc:
                    raise wrap_db_error(exc) from exc
            else:
                row = await self.run("ON_COMMIT", lambda c: c.fetchrow(sql, *args))
        except QueueError as exc:
            if exc.code != 24010:
                raise
            self.forget_fast_path(queue)
            row = None
        if row is not None:
            mid: bytes = row["msgid"]
            return mid.hex().upper()
        op = routes.Enqueue(queue, [(payload, None)], "ON_COMMIT", None, self.agent, False)
        ids = await routes.serve(self, routes.ENQUEUE_AFTER_SEND1SQL, op, queue, None)
        return ids[0].hex().upper()

    async def enqueue_array(
        self,
        queue: str,
        messages: Sequence[tuple[Payload, MessageProperties | None]],
        *,
        visibility: str = "ON_COMMIT",
        transformation: str | None = None,
        delivery_mode: str = "PERSISTENT",
    ) -> list[str]:
        """Enqueue all messages or none, in one statement; ids in the order given."""
        mode = _check(delivery_mode, ENQUEUE_DELIVERY_MODES, "DELIVERY_MODE", 25299)
        if not self.buffered_in_transactions:
            _buffered_needs_immediate(mode, visibility, "an enqueue")
        if not messages:
            return []
        op = routes.Enqueue(queue, messages, visibility, transformation, self.agent,
                            mode == "BUFFERED")
        op.raw  # noqa: B018  (ORA-25215 for payloads of mixed kinds, before any round trip)
        ids = await routes.serve(self, routes.ENQUEUE, op, queue, self.route_policy)
        return [i.hex().upper() for i in ids]

    def group_where(self) -> Hashable | None:
        """Where this session's buffered REMOVEs may be taken with others (the route
        "grouped", pgaq.coalesce): the database and login its statements run on, its role
        and its route policy; None: not grouped (in a transaction, or turned off)."""
        if self._tx is not None or not self.group_buffered:
            return None
        # sessions under one policy object share its routes (routes.RoutePolicy)
        policy = None if self.route_policy is None else id(self.route_policy)
        conn = self.conn
        if conn is None:
            return None if self.pool is None else (self.pool, self.role, policy)
        params = conn._params  # (asyncpg keeps what it connected with here)
        return (conn._addr, params.database, params.user, self.role, policy)

    def unsuited(self, queue: str, buffered: bool = False) -> None:
        """A queue whose settings (retention) keep it off the one-statement REMOVE: stop
        trying it (the entry is refreshed with the rest of the cache)."""
        hit = self._fast.get((self.role, queue, buffered))
        if hit is not None:
            self._fast[(self.role, queue, buffered)] = replace(hit, remove=None, remove_after=None,
                                                               remove_role=None, remove_n=None)

    def forget_fast_path(self, queue: str) -> None:
        """The queue's cached statements no longer apply (it moved): read them again."""
        self._fast.pop((self.role, queue, False), None)
        self._fast.pop((self.role, queue, True), None)

    async def fast_path(self, queue: str, buffered: bool = False) -> FastPath:
        """The queue's generated statements (aq.fast_path), cached per role; `buffered`:
        those of its buffered messages' companion table."""
        hit = self._fast.get((self.role, queue, buffered))
        if hit is None:
            row = await self.run("ON_COMMIT",
                                 lambda c: c.fetchrow(load("engine_fast_path"), queue, buffered))
            assert row is not None
            hit = FastPath(row["queue_name"],
                           Statement.make("engine_send_fast", row["send_fn"]),
                           Statement.make("engine_recv_fast", row["recv_fn"]),
                           Statement.make("engine_send1_fast", row["send1_fn"]),
                           row["remove_sql"], row["remove_after_sql"],
                           load("engine_remove_fast_role").replace("{fn}", row["remove_fn"])
                           if row["remove_fn"] is not None else None,
                           row["payload_kind"] == "RAW",
                           Statement.make("engine_sendn_fast", row["sendn_fn"]),
                           row["remove_n_sql"], row["send_sql"], row["remove_ids_sql"])
            if len(self._fast) > 1000:
                self._fast.clear()
            self._fast[(self.role, queue, buffered)] = hit
        return hit

    # -- dequeue ------------------------------------------------------------------------
    async def queue_id(self, queue: str) -> int:
        key = queue
        if key not in self._queue_ids:
            qid: int = await self.run(
                "ON_COMMIT", lambda c: c.fetchval(load("engine_queue_id"), queue)
            )
            self._queue_ids[key] = qid
        return self._queue_ids[key]

    async def dequeue(self, queue: str, options: DequeueOptions | None = None) -> list[Message]:
        """Dequeue up to batch_size messages; [] when none arrived within the wait (seconds;
        None or negative: as long as `max_wait` allows). A wait returns as soon as a message
        it may take is committed: woken by the enqueue's NOTIFY on the session's Listener,
        or, without one, on the process's shared listening connection (pgaq.waiting)."""
        o = options or DequeueOptions()
        _check(o.dequeue_mode, DEQUEUE_MODES, "DEQUEUE_MODE", 25239)
        _check(o.navigation, NAVIGATIONS, "NAVIGATION", 25237)
        dmode = _check(o.delivery_mode, DEQUEUE_DELIVERY_MODES, "DELIVERY_MODE", 25299)
        if not self.buffered_in_transactions:
            _buffered_needs_immediate(dmode, o.visibility, "a dequeue")
        wait = self._wait_seconds(o.wait)
        if wait <= 0:
            return await self._dequeue_once(queue, o, wrap=False)
        channel = f"aq_{await self.queue_id(queue)}"
        got = await self._until([channel], wait, lambda: self._dequeue_once(queue, o, wrap=True),
                                self._share(queue, o), lambda got: len(got) >= o.batch_size)
        return got or []

    def _share(self, queue: str, o: DequeueOptions) -> Hashable | None:
        """The key of the waiters this dequeue competes with for the same messages (the
        listener wakes one of them per NOTIFY, pgaq.listener), or None (woken on every
        one): only a REMOVE from the first available message, so that a waiter that finds
        nothing says no other of its key would have found anything. A saved position
        (LOCKED, BROWSE, grouped queues) or a message id waits on its own."""
        if (o.dequeue_mode.upper() not in ("REMOVE", "REMOVE_NODATA") or o.msgid is not None
                or self.continues_from(queue, o.consumer_name, o)):
            return None
        return ("dequeue", queue.lower(), (o.consumer_name or "").upper() or None,
                o.delivery_mode.upper(), o.navigation.upper(), o.correlation, o.condition,
                self.role)

    async def listen(self, agents: Sequence[Agent], wait: float | None = None) -> Agent | None:
        """Oracle's LISTEN: the first agent of `agents` (in their order) with a message READY
        for it, waiting up to `wait` seconds for one (None or negative, the default as in
        Oracle: as long as `max_wait` allows; 0: look once); None when none came in time.
        An agent's address is its queue; its name the subscriber on a multi-consumer queue,
        None on a single-consumer or exception queue. Nothing is dequeued: the agent's
        dequeue follows. Refusals as dbms_aq.listen's (ORA-24010, 25231, 24039, 25252,
        25253, 01031). Persistent messages only, as Oracle's form without a delivery mode."""
        found = await self.listen_delivery(agents, wait, "PERSISTENT")
        return None if found is None else found[0]

    async def listen_delivery(self, agents: Sequence[Agent], wait: float | None = None,
                              delivery_mode: str = "PERSISTENT_OR_BUFFERED") -> tuple[Agent, str] | None:
        """LISTEN with Oracle's listen_delivery_mode: as `listen`, over persistent messages,
        buffered ones or both (each agent's persistent ones first), returning the agent and
        the found message's delivery mode (PERSISTENT or BUFFERED)."""
        mode = _check(delivery_mode, DEQUEUE_DELIVERY_MODES, "DELIVERY_MODE", 25299)
        rows = [(a.name, a.address, a.protocol) for a in agents]

        async def look() -> tuple[Agent, str] | None:
            k: int = await self.run("ON_COMMIT",
                                    lambda c: c.fetchval(load("engine_listen_modes"), rows, mode))
            return (agents[(k + 1) // 2 - 1], "PERSISTENT" if k % 2 else "BUFFERED") if k else None

        first = await look()
        seconds = self._wait_seconds(wait)
        if first is not None or seconds <= 0:
            return first
        channels = [f"aq_{await self.queue_id(a.address or '')}" for a in agents]
        return await self._until(channels, seconds, look)

    def _wait_seconds(self, wait: float | None) -> float:
        return self.max_wait if wait is None or wait < 0 else min(wait, self.max_wait)

    async def _until(self, channels: list[str], wait: float,
                     attempt: Callable[[], Awaitable[T]], share: Hashable | None = None,
                     full: Callable[[T], bool] | None = None) -> T | None:
        """`attempt()` again after every NOTIFY of `channels` (and every `safety_poll`
        seconds) until it returns something or `wait` seconds have passed (then None).
        With a `share` key, woken in turn with the other waiters of that key; an attempt
        that got something (all it could take: `full`) wakes the next one."""
        deadline = self.clock.monotonic() + wait
        async with self._subscribed(channels, share) as event:
            while True:
                if event is not None:
                    event.clear()
                try:
                    got = await attempt()
                except ConnectionLost:
                    if self._tx is not None or self.conn is not None:
                        raise  # the transaction (or our own connection) is gone
                    got = None  # a pooled connection died (a restart): wait and try again
                if got:
                    if event is not None and (full is None or full(got)):
                        event.took()
                    return got
                remaining = deadline - self.clock.monotonic()
                if remaining <= 0:
                    return None
                # a shared key's safety looks are the listener's (one waiter of the key per
                # period, pgaq.listener), others time their own
                pause = remaining if event is not None and event.polled else min(remaining, self.safety_poll)
                if event is None:
                    await asyncio.sleep(pause)  # no listening connection: poll
                    continue
                # not asyncio.wait_for: on Python 3.11 it returns the event's result when the
                # caller is cancelled in the same turn as the event is set (a waiter leaving
                # passes its wake-up to another leaving waiter), so that waiter stayed,
                # took the next message and answered nobody (a gateway's receive whose
                # client had gone: the message lost)
                try:
                    async with asyncio.timeout(pause):
                        await event.wait()
                except TimeoutError:
                    pass

    @asynccontextmanager
    async def _subscribed(self, channels: list[str],
                          share: Hashable | None = None) -> AsyncIterator[Wakeup | None]:
        """An event set on each NOTIFY of `channels`: on the session's Listener, else on the
        process's shared one (pgaq.waiting); None when neither can listen."""
        listener = self.listener
        if listener is None:
            if self.conn is not None:
                listener = await waiting.shared(self.conn, clock=self.clock)
            elif self.pool is not None:
                async with self.pool.acquire() as c:
                    listener = await waiting.shared(c, clock=self.clock)
        if listener is None:
            yield None
            return
        async with listener.subscribe(*channels, share=share, poll=self.safety_poll) as event:
            yield event

    async def _dequeue_once(self, queue: str, o: DequeueOptions, *, wrap: bool) -> list[Message]:
        mode = o.delivery_mode.upper()
        if mode != "PERSISTENT_OR_BUFFERED":
            return await self._dequeue_class(queue, o, wrap=wrap, buffered=mode == "BUFFERED")
        # both: buffered messages first (Oracle orders each class on its own)
        got = await self._dequeue_class(queue, o, wrap=wrap, buffered=True)
        return got or await self._dequeue_class(queue, o, wrap=wrap, buffered=False)

    async def _dequeue_class(self, queue: str, o: DequeueOptions, *, wrap: bool,
                             buffered: bool) -> list[Message]:
        # each delivery mode has its own NEXT_MESSAGE position: each is ordered on its own
        key = (queue.lower() + (" (buffered)" if buffered else ""), (o.consumer_name or "").upper() or None)
        criteria = (o.correlation, o.condition)
        pos: list[int] | None = None
        grp: int | None = None
        saved = self._positions.get(key)
        if saved is not None and saved[0] == criteria:
            _, pos, grp = saved
        msgid = _msgid_bytes(o.msgid) if o.msgid else None
        op = routes.Dequeue(queue, o, msgid, pos, grp, wrap, self.agent, buffered)
        rows = await routes.serve(self, routes.DEQUEUE, op, queue, self.route_policy)
        if not rows:
            return []
        last = rows[-1]
        mode = o.dequeue_mode.upper()
        if msgid is None:  # a dequeue by message id leaves the position where it was
            await self._note_position(queue, key, criteria, mode, list(last["position"]),
                                      last["txn_group"])
        if mode != "BROWSE" and self._tx is not None and o.visibility.upper() == "ON_COMMIT":
            self._taken.add(key)
        if (
            mode in ("REMOVE", "REMOVE_NODATA")
            and self._tx is not None
            and o.visibility.upper() == "ON_COMMIT"
        ):
            self._removed.setdefault((queue, o.consumer_name, buffered), []).extend(
                r["msgid"] for r in rows
            )
        if buffered:
            return [replace(_message(r), delivery_mode="BUFFERED") for r in rows]
        return [_message(r) for r in rows]

    def has_position(self, queue: str, consumer: str | None) -> bool:
        """Whether NEXT_MESSAGE / NEXT_TRANSACTION would go on from a saved position."""
        return (queue.lower(), (consumer or "").upper() or None) in self._positions

    def forget_position(self, queue: str, consumer: str | None) -> None:
        """NEXT_MESSAGE starts from the first available message again (a caller that looked
        LOCKED and does not navigate from there)."""
        self._positions.pop((queue.lower(), (consumer or "").upper() or None), None)

    def hold(self, queue: str, consumer: str | None, msgid: str) -> None:
        """A message this transaction took LOCKED and handed out, to be removed by
        `remove_held`: a rollback counts it as a failed attempt, as a rolled-back REMOVE."""
        self._removed.setdefault((queue, consumer, False), []).append(_msgid_bytes(msgid))

    async def remove_held(self, queue: str, consumer: str | None, msgids: Sequence[str]) -> int:
        """REMOVE_NODATA, by id, of messages this transaction holds LOCKED, in one statement
        (its routes: routes.REMOVE_HELD), just before its commit: a failure ends the
        transaction whatever happens, so no savepoint protects it. How many were removed."""
        if self._tx is None or self.conn is None:
            raise PgaqError("remove_held needs the transaction that holds the messages")
        op = routes.RemoveHeld(queue, consumer, [_msgid_bytes(i) for i in msgids], self.agent)
        try:
            return await routes.serve(self, routes.REMOVE_HELD, op, queue, self.route_policy)
        except _DRIVER_ERRORS as exc:
            raise wrap_db_error(exc) from exc

    def role_is_set(self, visibility: str) -> bool:
        """Whether a plain statement runs as the right role in one round trip (no role, or
        the first and savepoint modes of `run_mode`: `begin` set it)."""
        return self.role is None or (self._tx is not None and visibility.upper() == "ON_COMMIT")

    def continues_from(self, queue: str, consumer_name: str | None, options: DequeueOptions) -> bool:
        """Whether this dequeue would continue after a position (NEXT_MESSAGE with one saved
        for the same selection): another route that always starts at the first message
        would then return something else."""
        if options.navigation.upper() != "NEXT_MESSAGE":
            return False
        saved = self._positions.get((queue.lower(), (consumer_name or "").upper() or None))
        return saved is not None and saved[0] == (options.correlation, options.condition)

    async def remember(self, queue: str, options: DequeueOptions,
                       messages: Sequence[Message]) -> None:
        """Continue NEXT_MESSAGE after messages another route dequeued for this session, as
        if this engine had."""
        if not messages or options.msgid:
            return
        key = (queue.lower(), (options.consumer_name or "").upper() or None)
        mode = options.dequeue_mode.upper()
        if mode in ("REMOVE", "REMOVE_NODATA") and key not in self._positions:
            hit = self._fast.get((self.role, queue, False))
            if hit is not None and hit.recv is not None:
                return  # removed from a queue that does not group: no position to keep
        last = messages[-1]
        await self._note_position(queue, key, (options.correlation, options.condition),
                                  mode, list(last.position), last.transaction_group)

    async def _note_position(self, queue: str, key: tuple[str, str | None],
                             criteria: tuple[str | None, str | None], mode: str,
                             position: list[int], group: int | None) -> None:
        """Where NEXT_MESSAGE goes on from. A removed message is gone: the next dequeue
        starts from the first available message (retries and higher priorities included),
        unless the queue groups messages by transaction, where the group's next message
        comes next. A browsed or locked message stays, so navigation moves on past it."""
        # the queue's generated recv exists exactly when it does not group (aq.fast_path)
        if mode in ("REMOVE", "REMOVE_NODATA") and (await self.fast_path(queue)).recv is not None:
            self._positions.pop(key, None)
        else:
            self._positions[key] = (criteria, position, group)


def _message(r: asyncpg.Record) -> Message:
    payload: Payload
    if r["payload_raw"] is not None:
        payload = bytes(r["payload_raw"])
    elif r["payload_json"] is not None:
        # numbers keep their precision: numeric(38) values do not fit a float
        payload = (load_json_payload(r["payload_json"])
                   if isinstance(r["payload_json"], str) else r["payload_json"])
    else:
        payload = None
    sender = None
    if r["sender_name"] is not None or r["sender_address"] is not None:
        sender = Agent(r["sender_name"], r["sender_address"], r["sender_protocol"] or 0)
    return Message(
        msgid=r["msgid"].hex().upper(),
        queue=r["queue_name"],
        consumer_name=r["consumer_name"],
        correlation=r["correlation"],
        priority=r["priority"],
        delay=r["delay"],
        expiration=r["expiration"],
        enqueue_time=r["enq_time"],
        state=r["state"],
        attempts=r["attempts"],
        exception_queue=r["exception_queue"],
        sender_id=sender,
        original_msgid=_hex(r["original_msgid"]),
        transaction_group=r["txn_group"],
        payload=payload,
        position=tuple(r["position"] or ()),
    )
