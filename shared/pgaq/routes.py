"""The routes of each engine operation, in the order they are tried, each with its rule.

An enqueue, a dequeue or the removal of messages a transaction holds LOCKED can be served
by a queue table's generated statements (fast, but only for the common cases) or by the
general SQL functions (aq.enqueue_array, aq.dequeue_array, aq.remove_held), which serve
every case. Each table below lists an operation's routes:
the first whose rule admits the operation and that applies serves it. A route's rule
must admit only what its SQL handles exactly as the general route does;
tests/integration/test_route_equivalence.py runs every route on the same inputs and fails
when one answers differently. A new route is one entry here plus its SQL.

A fast route may also decline at run time (None: its statement found the queue stopped,
kept for retention, ...), and a generated function the queue no longer has (ORA-24010:
the queue moved to another table, or was re-created) drops the session's cached
statements; either way the next route is tried. The general route never declines.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, overload

import asyncpg

from .coalesce import Coalescer
from .errors import QueueError
from .queries import load, load_as_role

if TYPE_CHECKING:
    from .client import DequeueOptions, FastPath, MessageProperties, Payload, Session

Op = TypeVar("Op")
R = TypeVar("R")
S = TypeVar("S")
V = TypeVar("V")

INT32 = (-(2**31), 2**31 - 1)
GENERAL = "general"  # the route every table ends with: it serves whatever reaches it


class RoutePolicy(Protocol):
    """A session's say in its routes (Session(route_policy=...)): which fast routes it may
    take, and the route that served each call. The general route is always allowed, so a
    policy can keep a session off fast routes (say, while a route is suspected of
    answering differently) but never leave an operation unserved. A session with a
    policy serves its calls itself: its buffered REMOVEs are not grouped with the
    process's others (pgaq.coalesce), whose routes are not its to choose.
    tests/integration/test_route_equivalence.py pins each route with one."""

    def allows(self, route: str) -> bool:
        """Whether the fast route named may serve (ROUTE_NAMES has the names)."""
        ...

    def served(self, route: str) -> None:
        """Told the route that served a call, once it has."""
        ...


@dataclass(frozen=True)
class Route(Generic[Op, R]):
    name: str
    admits: Callable[[Op], bool]  # the rule: the operations this route's SQL handles
    # the queue has this route's statement, for this op; None: the route needs none (and
    # the queue's statements are not read for it)
    fits: Callable[[Op, FastPath], bool] | None
    run: Callable[[Session, Op, FastPath | None], Awaitable[R | None]]  # None: declined


async def serve(s: Session, table: Sequence[Route[Op, R]], op: Op, queue: str,
                policy: RoutePolicy | None = None) -> R:
    """The first route of `table` that admits `op` and applies serves it (see the module's
    docstring); a `policy` limits the fast routes tried (the general one is always there)
    and is told the route that served."""
    fast: FastPath | None = None  # the queue's generated statements, read when needed
    for route in table:
        general = route.name == GENERAL
        if not general:
            if (policy is not None and not policy.allows(route.name)) or not route.admits(op):
                continue
            if route.fits is not None:
                if fast is None:
                    fast = await s.fast_path(queue, getattr(op, "buffered", False))
                if not route.fits(op, fast):
                    continue
        try:
            out = await route.run(s, op, fast)
        except QueueError as exc:
            if general or exc.code != 24010:
                raise
            s.forget_fast_path(queue)  # the queue moved: look again for the next route
            fast = None
            continue
        if out is not None:
            if policy is not None:
                policy.served(route.name)
            return out
    raise AssertionError(f"no route served {op!r}: the general route must serve everything")


class cached_property(Generic[S, V]):
    """functools.cached_property without its lock: Python 3.11's takes an RLock on each
    first read, which cost a third of the library's own time in a one-message enqueue.
    An operation belongs to the one task that serves it, so there is nothing to lock."""

    def __init__(self, fn: Callable[[S], V]) -> None:
        self.fn = fn
        self.name = fn.__name__

    @overload
    def __get__(self, obj: None, cls: type[S] | None = None) -> cached_property[S, V]: ...

    @overload
    def __get__(self, obj: S, cls: type[S] | None = None) -> V: ...

    def __get__(self, obj: S | None, cls: type[S] | None = None) -> V | cached_property[S, V]:
        if obj is None:
            return self
        value = self.fn(obj)
        obj.__dict__[self.name] = value  # read from the instance from now on
        return value


# -- enqueue ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Enqueue:
    """One enqueue call: one message or many, all or none."""

    queue: str
    messages: Sequence[tuple[Payload, MessageProperties | None]]
    visibility: str
    transformation: str | None
    agent: str | None
    buffered: bool = False  # delivery_mode BUFFERED: the queue table's UNLOGGED companion

    @cached_property
    def raw(self) -> bool:
        """Whether the payloads are RAW (bytes) rather than objects; ORA-25215 when they are
        neither all one nor all the other (before any round trip)."""
        ms = self.messages
        if len(ms) == 1 and isinstance(ms[0][0], _BYTES):  # the most frequent call, at once
            return True
        if all(isinstance(m, _BYTES) or m is None for m, _ in ms) and any(m is not None for m, _ in ms):
            return True
        if all(isinstance(m, dict) for m, _ in ms):
            return False
        raise QueueError(
            "ORA-25215: user_data type and queue type do not match: payloads must all be "
            "bytes (RAW queues) or all be objects",
            25215,
        )

    @cached_property
    def payloads(self) -> tuple[list[bytes | None] | None, str | None]:
        """(RAW payloads, object payloads as JSON): one of them."""
        ms = self.messages
        if self.raw:
            return [bytes(m) if m is not None else None for m, _ in ms], None  # type: ignore[arg-type]
        return None, json.dumps([m for m, _ in ms], default=str)

    @cached_property
    def first(self) -> MessageProperties:
        """The first message's properties (the defaults when it has none)."""
        return self.messages[0][1] or _defaults()

    @cached_property
    def props(self) -> str:
        if self.buffered:
            return json.dumps([{**(p or _defaults()).to_json(), "delivery_mode": "BUFFERED"}
                               for _, p in self.messages])
        return json.dumps([(p or _defaults()).to_json() for _, p in self.messages])

    @cached_property
    def undelayed(self) -> bool:
        """No message has a delay: a buffered one cannot (the general route says so)."""
        return all(p is None or p.delay == 0 for _, p in self.messages)

    @cached_property
    def simple(self) -> bool:
        """Messages the generated sends store as given: no transformation, recipients,
        exception queue or original message id, and a sender they need not normalise."""
        return self.transformation is None and all(
            p is None or (plain_sender(p.sender_id)
                          and not (p.recipient_list or p.exception_queue or p.original_msgid))
            for _, p in self.messages)


_BYTES = (bytes, bytearray, memoryview)
_DEFAULTS: list[MessageProperties] = []


def _defaults() -> MessageProperties:
    """Default message properties (made once: pgaq.client imports this module)."""
    if not _DEFAULTS:
        from .client import MessageProperties

        _DEFAULTS.append(MessageProperties())
    return _DEFAULTS[0]


def plain_sender(a: Any) -> bool:
    """A sender the generated _send stores as given (aq.normalise_props would accept it
    unchanged); others take the general route, which raises the proper error."""
    return a is None or (len((a.name or "").strip(" ")) <= 128
                         and (a.protocol is None or 0 <= a.protocol <= INT32[1]))


def _send1_admits(op: Enqueue) -> bool:
    if len(op.messages) != 1 or not op.simple or (op.buffered and not op.undelayed):
        return False
    p = op.first
    e = -1 if p.expiration is None else p.expiration
    return (p.sender_id is None and INT32[0] <= p.priority <= INT32[1]
            and INT32[0] <= p.delay <= INT32[1] and INT32[0] <= e <= INT32[1])


async def _send1(s: Session, op: Enqueue, fast: FastPath | None) -> list[bytes] | None:
    """One message, its properties as parameters: no JSON to build or parse."""
    assert fast is not None and fast.send1 is not None
    send1, p = fast.send1, op.first
    raw, objs = op.payloads
    args = (fast.name, p.priority, p.delay, -1 if p.expiration is None else p.expiration,
            p.correlation, raw[0] if raw else None,
            json.dumps(op.messages[0][0], default=str) if objs else None, op.agent)
    mid: bytes = await s.run(op.visibility, lambda c: c.fetchval(send1.plain, *args),
                             lambda c: c.fetchval(send1.as_role, *args, s.role))
    return [mid]


async def _send1sql(s: Session, op: Enqueue, fast: FastPath | None) -> list[bytes] | None:
    """One undelayed RAW message as one plain statement (aq.fast_send_sql): no PL/pgSQL
    around the INSERT. No row: a case it leaves to _send1 (and to that route's errors)."""
    assert fast is not None and fast.send_sql is not None
    p = op.first
    # the values the generated _send1 refuses (with its error) are left to it
    if (p.delay != 0 or (p.expiration is not None and p.expiration < -1)
            or (isinstance(p.correlation, str) and len(p.correlation) > 128)
            or not s.role_is_set(op.visibility)):
        return None
    sql = fast.send_sql
    raw, _ = op.payloads
    assert raw is not None
    args = (fast.name, p.priority, -1 if p.expiration is None else p.expiration, p.correlation,
            op.agent, raw[0])
    row: asyncpg.Record | None = await s.run(op.visibility, lambda c: c.fetchrow(sql, *args))
    return None if row is None else [row["msgid"]]


def _sendn_admits(op: Enqueue) -> bool:
    if len(op.messages) < 2 or not op.simple or (op.buffered and not op.undelayed):
        return False
    for _, p in op.messages:
        if p is not None and not (p.sender_id is None and INT32[0] <= p.priority <= INT32[1]
                                  and 0 <= p.delay <= INT32[1]
                                  and (p.expiration is None or -1 <= p.expiration <= INT32[1])):
            return False
    return True


async def _sendn(s: Session, op: Enqueue, fast: FastPath | None) -> list[bytes] | None:
    """Several messages, their properties as arrays: no JSON to build or parse. NULL when
    a value is one _send1 would refuse (the next route reports it)."""
    assert fast is not None and fast.sendn is not None
    sendn = fast.sendn
    props = [p or _defaults() for _, p in op.messages]
    raw, objs = op.payloads
    args = (fast.name, [p.priority for p in props], [p.delay for p in props],
            [-1 if p.expiration is None else p.expiration for p in props],
            [p.correlation for p in props], raw, objs, op.agent)
    ids: list[bytes] | None = await s.run(op.visibility, lambda c: c.fetchval(sendn.plain, *args),
                                          lambda c: c.fetchval(sendn.as_role, *args, s.role))
    return ids


async def _send(s: Session, op: Enqueue, fast: FastPath | None) -> list[bytes] | None:
    """The table's generated send: many messages, one statement. NULL when the queue's
    subscribers have rules or there are none (the general route decides)."""
    assert fast is not None and fast.send is not None
    send = fast.send
    raw, objs = op.payloads
    args = (fast.name, op.props, objs, raw, op.agent)
    ids: list[bytes] | None = await s.run(op.visibility, lambda c: c.fetchval(send.plain, *args),
                                          lambda c: c.fetchval(send.as_role, *args, s.role))
    return ids


async def _enqueue_general(s: Session, op: Enqueue, fast: FastPath | None) -> list[bytes] | None:
    raw, objs = op.payloads
    args = (op.queue, op.props, objs, raw, op.transformation, op.agent)
    ids: list[bytes] = await s.run(op.visibility, lambda c: c.fetchval(load("engine_enqueue"), *args),
                                   lambda c: c.fetchval(load_as_role("engine_enqueue"), *args, s.role))
    return ids


ENQUEUE: tuple[Route[Enqueue, list[bytes]], ...] = (
    # payloads of the queue's kind only: the general route checks the properties first
    Route("send1sql", _send1_admits, lambda op, fast: fast.send_sql is not None and op.raw and fast.raw,
          _send1sql),
    Route("send1", _send1_admits, lambda op, fast: fast.send1 is not None and op.raw == fast.raw,
          _send1),
    Route("sendn", _sendn_admits, lambda op, fast: fast.sendn is not None and op.raw == fast.raw,
          _sendn),
    Route("send", lambda op: op.simple and (op.undelayed or not op.buffered),
          lambda op, fast: fast.send is not None and op.raw == fast.raw,
          _send),
    Route(GENERAL, lambda op: True, lambda op, fast: True, _enqueue_general),
)
# where send1sql declined (Session.enqueue runs its statement for the default message itself)
ENQUEUE_AFTER_SEND1SQL = ENQUEUE[1:]


# -- dequeue ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Dequeue:
    """One dequeue attempt (no waiting): the options, and where NEXT_MESSAGE goes on from."""

    queue: str
    options: DequeueOptions
    msgid: bytes | None
    position: list[int] | None  # the session's saved position for these criteria
    group: int | None
    wrap: bool  # past the end, NEXT_MESSAGE starts again from the first message
    agent: str | None
    buffered: bool = False  # buffered messages: the queue table's UNLOGGED companion

    @property
    def start(self) -> list[int] | None:
        """Where a generated dequeue starts (after this position; None: the first)."""
        return None if self.options.navigation.upper() == "FIRST_MESSAGE" else self.position


def _unselective(o: DequeueOptions) -> bool:
    """No selection the generated dequeues know nothing of."""
    return (not o.msgid and o.correlation is None and o.condition is None
            and o.transformation is None and o.navigation.upper() != "NEXT_TRANSACTION")


def batchable(o: DequeueOptions) -> bool:
    """A dequeue that removes the first available messages, whoever asks, in a transaction of
    its own: concurrent ones can be one dequeue of their sum (the route "grouped" for
    buffered REMOVEs; the gateway's receives, pgaq.idap.batching), given no saved position
    to continue from (the caller checks: a saved position is the session's)."""
    return (_unselective(o) and o.dequeue_mode.upper() in ("REMOVE", "REMOVE_NODATA")
            and o.visibility.upper() == "IMMEDIATE")


def groupable_remove(op: Dequeue) -> bool:
    """A buffered REMOVE the process's concurrent ones can take with it (the route
    "grouped"): `batchable`, a REMOVE, outside a transaction group."""
    return batchable(op.options) and op.options.dequeue_mode.upper() == "REMOVE" and op.group is None


def _remove1_admits(op: Dequeue) -> bool:
    o = op.options
    return (_unselective(o) and o.dequeue_mode.upper() == "REMOVE" and o.batch_size == 1
            and o.consumer_name is None)


async def _remove1(s: Session, op: Dequeue, fast: FastPath | None) -> list[asyncpg.Record] | None:
    """The most frequent dequeue as one plain statement (aq.fast_remove_sql); it declines
    when its statement does not apply (queue stopped, kept for retention, not ours)."""
    assert fast is not None
    if not (s.role_is_set(op.options.visibility) or fast.remove_role is not None):
        return None  # it would need a SET ROLE transaction: the recv route is as quick
    assert fast.remove is not None and fast.remove_after is not None
    first, after, as_role = fast.remove, fast.remove_after, fast.remove_role

    async def run(pos: list[int] | None) -> list[asyncpg.Record]:
        plain = first if pos is None else after
        args = (fast.name,) if pos is None else (fast.name, pos)
        inline: Callable[[asyncpg.Connection], Awaitable[list[asyncpg.Record]]] | None = None
        if as_role is not None:
            role_sql = as_role
            inline = lambda c: c.fetch(role_sql, fast.name, pos, s.role)  # noqa: E731
        return await s.run(op.options.visibility, lambda c: c.fetch(plain, *args), inline)

    rows = await run(op.start)
    if op.start is not None and rows[0]["ok"] and rows[0]["msgid"] is None and op.wrap:
        rows = await run(None)  # past the end: NEXT_MESSAGE starts again from the beginning
    if not rows[0]["suited"]:
        s.unsuited(op.queue, op.buffered)
    if not rows[0]["ok"]:
        return None
    return [r for r in rows if r["msgid"] is not None]


def _removen_admits(op: Dequeue) -> bool:
    o = op.options
    return (_unselective(o) and o.dequeue_mode.upper() == "REMOVE" and o.batch_size > 1
            and o.consumer_name is None and op.start is None)


async def _removen(s: Session, op: Dequeue, fast: FastPath | None) -> list[asyncpg.Record] | None:
    """A batch REMOVE from the first message as one plain statement (aq.fast_remove_sql
    with a limit); it declines as _remove1 does, and for a session acting as a role."""
    assert fast is not None and fast.remove_n is not None
    if not s.role_is_set(op.options.visibility):
        return None
    sql, n = fast.remove_n, op.options.batch_size
    rows: list[asyncpg.Record] = await s.run(op.options.visibility,
                                             lambda c: c.fetch(sql, fast.name, n))
    if not rows[0]["suited"]:
        s.unsuited(op.queue, op.buffered)
    if not rows[0]["ok"]:
        return None
    return [r for r in rows if r["msgid"] is not None]


async def _recv(s: Session, op: Dequeue, fast: FastPath | None) -> list[asyncpg.Record] | None:
    assert fast is not None and fast.recv is not None
    recv, o = fast.recv, op.options
    args = (fast.name, o.consumer_name, o.dequeue_mode, op.start, o.batch_size, op.agent, op.wrap)
    rows: list[asyncpg.Record] = await s.run(o.visibility, lambda c: c.fetch(recv.plain, *args),
                                             lambda c: c.fetch(recv.as_role, *args, s.role))
    return rows


async def _dequeue_general(s: Session, op: Dequeue, fast: FastPath | None
                           ) -> list[asyncpg.Record] | None:
    o = op.options
    args = (op.queue, o.consumer_name, o.dequeue_mode, o.navigation, op.msgid, o.correlation,
            o.condition, o.batch_size, op.position, op.wrap, o.transformation, op.agent, op.group,
            "BUFFERED" if op.buffered else "PERSISTENT")
    rows: list[asyncpg.Record] = await s.run(
        o.visibility, lambda c: c.fetch(load("engine_dequeue"), *args),
        lambda c: c.fetch(load_as_role("engine_dequeue"), *args, s.role))
    return rows


# the routes of one dequeue statement, whoever's calls it serves
_DEQUEUE_ONE: tuple[Route[Dequeue, list[asyncpg.Record]], ...] = (
    Route("remove1", _remove1_admits, lambda op, fast: fast.remove is not None, _remove1),
    Route("removen", _removen_admits, lambda op, fast: fast.remove_n is not None, _removen),
    Route("recv", lambda op: _unselective(op.options), lambda op, fast: fast.recv is not None, _recv),
    Route(GENERAL, lambda op: True, lambda op, fast: True, _dequeue_general),
)

# a process's concurrent buffered REMOVEs, taken together (the route "grouped")
BUFFERED_REMOVES: Coalescer[Dequeue, list[asyncpg.Record]] = Coalescer("buffered REMOVEs")


def _grouped_admits(op: Dequeue) -> bool:
    """A buffered REMOVE of the first available messages (groupable_remove) from no saved
    position: any concurrent one takes from the same place."""
    return op.buffered and op.position is None and groupable_remove(op)


async def _grouped(s: Session, op: Dequeue, fast: FastPath | None) -> list[asyncpg.Record] | None:
    """Taken with the process's concurrent buffered REMOVEs of the same queue, consumer,
    agent, database, login and role (pgaq.coalesce): one statement of their batch sizes'
    sum, served by the routes of _DEQUEUE_ONE on the leader's session. Declines for a
    session whose calls are not grouped (Session.group_where)."""
    where = s.group_where()
    if where is None:
        return None

    async def together(ops: Sequence[Dequeue]) -> list[list[asyncpg.Record]]:
        first = ops[0]
        one = first if len(ops) == 1 else replace(first, options=replace(
            first.options, batch_size=sum(o.options.batch_size for o in ops)))
        rows = await serve(s, _DEQUEUE_ONE, one, one.queue, s.route_policy)
        out: list[list[asyncpg.Record]] = []
        at = 0
        for o in ops:  # each call's share, in queue order
            n = o.options.batch_size
            out.append(rows[at:at + n])
            at += n
        return out

    key = (where, "remove", op.agent, op.queue, (op.options.consumer_name or "").upper() or None)
    return await BUFFERED_REMOVES.submit(key, op, op.options.batch_size, together)


DEQUEUE: tuple[Route[Dequeue, list[asyncpg.Record]], ...] = (
    Route("grouped", _grouped_admits, None, _grouped),
    *_DEQUEUE_ONE,
)


# -- remove_held --------------------------------------------------------------------------
@dataclass(frozen=True)
class RemoveHeld:
    """REMOVE_NODATA, by id, of messages the session's transaction holds LOCKED, just before
    its commit (Session.remove_held). Both routes run in that transaction on its connection,
    not through Session.run: a failure ends the transaction whatever happens, so no
    savepoint protects them, and their driver errors pass `serve` unwrapped, so no route is
    tried after a failed one (it would meet an aborted transaction); remove_held wraps them."""

    queue: str
    consumer: str | None
    ids: list[bytes]
    agent: str | None


async def _removeids(s: Session, op: RemoveHeld, fast: FastPath | None) -> int | None:
    """The messages removed as one plain statement (aq.fast_remove_ids_sql); it declines
    when the statement does not apply (the queue's retention or state)."""
    assert fast is not None and fast.remove_ids is not None and s.conn is not None
    rows = await s.conn.fetch(fast.remove_ids, fast.name, op.ids)
    if not rows or not rows[0]["ok"]:
        return None
    return sum(1 for r in rows if r["msgid"] is not None)


async def _remove_held_general(s: Session, op: RemoveHeld, fast: FastPath | None) -> int | None:
    assert s.conn is not None
    return int(await s.conn.fetchval(load("engine_remove_held"), op.queue, op.consumer, op.ids,
                                     op.agent))


REMOVE_HELD: tuple[Route[RemoveHeld, int], ...] = (
    Route("removeids", lambda op: op.consumer is None, lambda op, fast: fast.remove_ids is not None,
          _removeids),
    Route(GENERAL, lambda op: True, lambda op, fast: True, _remove_held_general),
)

ROUTE_NAMES = frozenset(r.name for table in (ENQUEUE, DEQUEUE, REMOVE_HELD) for r in table)
