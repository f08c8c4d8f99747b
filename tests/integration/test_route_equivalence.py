"""Every route of an operation answers as the general one does (pgaq.routes).

Each example is a random program of enqueues, dequeues and removals of held messages
(a transaction's LOCKED dequeue, then Session.remove_held before its commit). It runs once per route
variant, each on its own queue of the same queue table, through a Session pinned to that
route (a route policy, tests/routing.py): the general route alone, each fast route alone (where its rule does
not admit an operation, or its SQL declines, the general route serves it), and every
route as the library chooses. The returned messages, the ORA errors and the rows left
must be the same whichever route served; message ids are compared by the order they were
enqueued in. A route whose rule is widened by one case its SQL does not handle as the
general route does makes this fail; each route is also checked to have served at all.

The configurations cover single- and multi-consumer tables, subscriber rules, recipient
lists, retention, message grouping, RAW and object payloads, and a caller whose rights
come from a grant (a role, not the owner).
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

import asyncpg
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pgaq import Agent, DequeueOptions, Message, MessageProperties, Session
from pgaq.errors import PgaqError

from tests.fuzz.conftest import fuzz
from tests.routing import Pinned

T = TypeVar("T")

# route variant -> the fast routes its session may take (the general one is always there)
VARIANTS: dict[str, frozenset[str] | None] = {
    "general": frozenset(),
    "send1": frozenset({"send1"}),
    "send1sql": frozenset({"send1sql"}),
    "send": frozenset({"send"}),
    "sendn": frozenset({"sendn"}),
    "remove1": frozenset({"remove1"}),
    "removen": frozenset({"removen"}),
    "recv": frozenset({"recv"}),
    "removeids": frozenset({"removeids"}),
    "any": None,
}


@dataclass(frozen=True)
class Config:
    name: str
    payload: str  # RAW or an object type
    multiple: bool = False
    rule_b: str | None = None  # subscriber B's rule (multi-consumer)
    retention: int = 0
    grouping: str = "NONE"
    granted: bool = False  # act as a role with a grant, not as the owner
    expect: frozenset[str] = frozenset()  # fast routes that must have served


CONFIGS = [
    Config("single-raw", "RAW", expect=frozenset({"send1", "send1sql", "sendn", "send", "remove1", "removen", "recv",
                                                  "removeids"})),
    Config("single-object", "re.obj", expect=frozenset({"send1", "sendn", "send", "remove1", "removen", "recv",
                                                        "removeids"})),
    Config("single-raw-granted", "RAW", granted=True,  # (removen declines for an acting role)
           expect=frozenset({"send1", "sendn", "send", "remove1", "recv", "removeids"})),
    Config("single-retention", "RAW", retention=3600, expect=frozenset({"send1", "send1sql", "sendn", "send", "recv"})),
    Config("single-grouped", "RAW", grouping="TRANSACTIONAL"),
    Config("multi-raw", "RAW", multiple=True, expect=frozenset({"send", "recv"})),
    Config("multi-rule-granted", "RAW", multiple=True, rule_b="priority > 2", granted=True,
           expect=frozenset({"recv"})),
]

AGENTS = [None, None, Agent("SENDER"), Agent("S", "addr", 0), Agent("x" * 129), Agent("S", None, -1)]
INTS = [1, 0, -5, 7, 2**31 - 1, 2**31, -(2**31) - 1]


@dataclass(frozen=True)
class Enq:
    messages: tuple[tuple[Any, MessageProperties | None], ...]


@dataclass(frozen=True)
class Deq:
    options: DequeueOptions


@dataclass(frozen=True)
class Held:
    """In a transaction: a LOCKED dequeue of up to `batch` messages, then remove_held of
    them (and of an id no message has, when `stranger`), then commit."""

    consumer: str | None
    batch: int
    stranger: bool = False


def _props(multiple: bool) -> st.SearchStrategy[MessageProperties | None]:
    recipients = st.sampled_from([None, [Agent("A")], [Agent("B"), Agent("A")]])
    return st.builds(
        MessageProperties,
        priority=st.sampled_from(INTS),
        delay=st.sampled_from([0, 0, 0, 30, -5, 2**31]),
        expiration=st.sampled_from([None, None, 60, -1, -5, 2**31]),
        correlation=st.sampled_from([None, "a", "b", "c" * 129]),
        sender_id=st.sampled_from(AGENTS),
        recipient_list=recipients if multiple else st.none(),
        exception_queue=st.sampled_from([None, None, None, "re.nope"]),
    ) | st.none()


def _payload(cfg: Config) -> st.SearchStrategy[Any]:
    if cfg.payload == "RAW":
        return st.binary(min_size=1, max_size=8) | st.just(None)
    return (st.fixed_dictionaries({"n": st.integers(-5, 5), "s": st.sampled_from(["a", "b"])})
            | st.sampled_from([b"\x01", {"zz": 1}, {"n": "x"}]))


def _ops(cfg: Config) -> st.SearchStrategy[list[Enq | Deq | Held]]:
    enq = st.builds(Enq, st.lists(st.tuples(_payload(cfg), _props(cfg.multiple)), min_size=1,
                                  max_size=3).map(tuple))
    consumers = st.sampled_from(["A", "B", "A", None]) if cfg.multiple else st.sampled_from([None, None, None, "A"])
    deq = st.builds(Deq, st.builds(
        DequeueOptions,
        consumer_name=consumers,
        dequeue_mode=st.sampled_from(["REMOVE", "REMOVE", "BROWSE", "LOCKED", "REMOVE_NODATA"]),
        navigation=st.sampled_from(["NEXT_MESSAGE", "NEXT_MESSAGE", "FIRST_MESSAGE"]),
        visibility=st.just("IMMEDIATE"),
        batch_size=st.sampled_from([1, 1, 2, 3]),
        correlation=st.sampled_from([None, None, None, "a"]),
    ))
    held = st.builds(Held, consumers, st.sampled_from([1, 2, 3]), st.booleans())
    return st.lists(st.one_of(enq, deq, held), min_size=1, max_size=8)


def _edges(cfg: Config) -> list[list[Enq | Deq | Held]]:
    """One program per edge of each route's rule: a message or dequeue just inside or just
    outside what a fast route admits, then what a consumer sees of it."""
    obj = b"\x01" if cfg.payload == "RAW" else {"n": 1, "s": "a"}
    other = {"n": 1, "s": "a"} if cfg.payload == "RAW" else b"\x01"
    who = "A" if cfg.multiple else None
    take = Deq(DequeueOptions(consumer_name=who, visibility="IMMEDIATE", batch_size=3,
                              navigation="FIRST_MESSAGE"))
    props = [
        MessageProperties(), MessageProperties(priority=2**31 - 1), MessageProperties(priority=2**31),
        MessageProperties(priority=-(2**31) - 1), MessageProperties(delay=2**31),
        MessageProperties(delay=-1), MessageProperties(expiration=-1), MessageProperties(expiration=-2),
        MessageProperties(expiration=2**31), MessageProperties(expiration=-2, delay=-1, priority=2**31),
        MessageProperties(correlation="c" * 128), MessageProperties(correlation="c" * 129),
        MessageProperties(sender_id=Agent("SENDER")), MessageProperties(sender_id=Agent(" s ", "a", 7)),
        MessageProperties(sender_id=Agent("x" * 128)), MessageProperties(sender_id=Agent("x" * 129)),
        MessageProperties(sender_id=Agent("S", None, -1)), MessageProperties(sender_id=Agent(None, "addr")),
        MessageProperties(recipient_list=[Agent("A")]), MessageProperties(recipient_list=[]),
        MessageProperties(exception_queue="re.nope"), MessageProperties(exception_queue="re.q_general"),
        MessageProperties(original_msgid="00" * 16), MessageProperties(original_msgid="zz"),
    ]
    programs: list[list[Enq | Deq | Held]] = []
    for p in props:
        programs.append([Enq(((obj, p),)), take])
        programs.append([Enq(((obj, None), (obj, p))), take])
    for payloads in ([other], [obj, other], [None], [obj, None]):
        programs.append([Enq(tuple((x, None) for x in payloads)), take])
    if cfg.payload != "RAW":  # a bad object beside a bad property, in either order
        for bad in ({"zz": 1}, {"n": "x"}):
            bad_props = MessageProperties(expiration=-5)
            programs.append([Enq(((bad, bad_props), (obj, None))), take])
            programs.append([Enq(((bad, None), (obj, bad_props))), take])
            programs.append([Enq(((obj, None), (bad, None))), take])
    three = Enq(((obj, MessageProperties(correlation="a")), (obj, MessageProperties(correlation="b")),
                 (obj, MessageProperties(priority=0))))
    for o in (
        DequeueOptions(), DequeueOptions(batch_size=2), DequeueOptions(consumer_name="A"),
        DequeueOptions(consumer_name="B"), DequeueOptions(correlation="b"),
        DequeueOptions(condition="priority = 0"), DequeueOptions(dequeue_mode="BROWSE"),
        DequeueOptions(dequeue_mode="LOCKED"), DequeueOptions(dequeue_mode="REMOVE_NODATA"),
        DequeueOptions(navigation="FIRST_MESSAGE"), DequeueOptions(navigation="NEXT_TRANSACTION"),
        DequeueOptions(msgid="00" * 16), DequeueOptions(transformation="re.nope"),
    ):
        opts = DequeueOptions(**{**o.__dict__, "visibility": "IMMEDIATE",
                                 "consumer_name": o.consumer_name or who})
        programs.append([three, Deq(opts), Deq(opts), take])
    for held in (Held(who, 1), Held(who, 2, stranger=True), Held(who, 3)):
        programs.append([three, held, take])
    return programs


def _seen(m: Message, index: dict[str, int], queue: str) -> tuple[Any, ...]:
    """What a caller sees of a dequeued message, ids as the order they were enqueued in."""
    return (index.get(m.msgid), m.queue.replace(queue, "Q"), m.consumer_name, m.correlation,
            m.priority, m.delay, m.expiration, m.state, m.attempts, m.exception_queue,
            m.sender_id, m.payload)


class Runner:
    """One configuration's queues and pinned sessions, on the test's event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, cfg: Config, conns: dict[str, asyncpg.Connection],
                 role: str | None, admin: asyncpg.Connection) -> None:
        self.loop, self.cfg, self.conns, self.role, self.admin = loop, cfg, conns, role, admin
        self.served: Counter[str] = Counter()

    @staticmethod
    async def _held(s: Session, queue: str, op: Held, index: dict[str, int],
                    variant: str) -> tuple[Any, ...]:
        await s.begin()
        try:
            got = await s.dequeue(queue, DequeueOptions(consumer_name=op.consumer, dequeue_mode="LOCKED",
                                                        batch_size=op.batch, wait=0))
            for m in got:
                s.hold(queue, op.consumer, m.msgid)
            ids = [m.msgid for m in got] + (["AB" * 16] if op.stranger else [])
            removed = await s.remove_held(queue, op.consumer, ids)
            await s.commit()
        except BaseException:
            await s.rollback()
            raise
        return ("held", [_seen(m, index, "q_" + variant) for m in got], removed)

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(60)

    async def _one(self, variant: str, ops: list[Enq | Deq | Held]) -> tuple[list[Any], list[Any]]:
        queue = f"re.q_{variant}"
        policy = Pinned(VARIANTS[variant])
        s = Session(self.conns[variant], role=self.role, route_policy=policy)
        index: dict[str, int] = {}
        answers: list[Any] = []
        for op in ops:
            try:
                if isinstance(op, Enq):
                    ids = await s.enqueue_array(queue, list(op.messages), visibility="IMMEDIATE")
                    for i in ids:
                        index[i] = len(index)
                    answers.append(("enqueued", len(ids)))
                elif isinstance(op, Held):
                    answers.append(await self._held(s, queue, op, index, variant))
                else:
                    got = await s.dequeue(queue, op.options)
                    answers.append(("dequeued", [_seen(m, index, "q_" + variant) for m in got]))
            except PgaqError as exc:
                answers.append(("error", getattr(exc, "code", None)))
        self.served.update(policy.counts)
        who = "consumer_name" if self.cfg.multiple else "NULL::text AS consumer_name"
        rows = await self.admin.fetch(
            f"SELECT msg_id, msg_state, {who}, retry_count, corr_id, msg_priority, delay_seconds,"
            " expiration, exception_queue, sender_name, sender_address, sender_protocol, user_data"
            " FROM re.aq$qt WHERE queue = $1", "q_" + variant)
        left = [(index.get(r["msg_id"]), *(r[k] for k in list(r.keys())[1:])) for r in rows]
        return answers, sorted(left, key=repr)

    async def clear(self) -> None:
        await self.admin.execute("DELETE FROM re.qt")

    def check(self, ops: list[Enq | Deq | Held]) -> None:
        self.call(self.clear())
        results = {v: self.call(self._one(v, ops)) for v in VARIANTS}
        for variant, got in results.items():
            assert got == results["general"], (variant, ops, got, results["general"])


async def _setup(conn: asyncpg.Connection, cfg: Config) -> str | None:
    await conn.execute("CREATE SCHEMA re; CREATE TYPE re.obj AS (n integer, s text)")
    await conn.execute(
        "CALL dbms_aqadm.create_queue_table(queue_table => 're.qt', queue_payload_type => $1,"
        " multiple_consumers => $2, message_grouping => $3)",
        cfg.payload, cfg.multiple, cfg.grouping)
    role = None
    if cfg.granted:
        role = f"re_{uuid.uuid4().hex[:8]}"
        await conn.execute(f'CREATE ROLE "{role}"')
    for variant in VARIANTS:
        q = f"re.q_{variant}"
        await conn.execute("CALL dbms_aqadm.create_queue(queue_name => $1, queue_table => 're.qt',"
                           " retention_time => $2)", q, cfg.retention)
        await conn.execute("CALL dbms_aqadm.start_queue(queue_name => $1)", q)
        if cfg.multiple:
            await conn.execute("CALL dbms_aqadm.add_subscriber(queue_name => $1,"
                               " subscriber => sys.aq$_agent('A', NULL, NULL))", q)
            await conn.execute("CALL dbms_aqadm.add_subscriber(queue_name => $1,"
                               " subscriber => sys.aq$_agent('B', NULL, NULL), rule => $2)", q, cfg.rule_b)
        if role is not None:
            await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('ALL', '{q}', '{role}')")
    return role


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c.name for c in CONFIGS])
async def test_routes_answer_alike(conn: asyncpg.Connection, db_dsn: str, cfg: Config) -> None:
    role = await _setup(conn, cfg)
    conns = {v: await asyncpg.connect(db_dsn) for v in VARIANTS}
    try:
        runner = Runner(asyncio.get_running_loop(), cfg, conns, role, conn)
        for program in _edges(cfg):
            await asyncio.to_thread(runner.check, program)

        @fuzz(30)
        @given(_ops(cfg))
        def prop(ops: list[Enq | Deq | Held]) -> None:
            runner.check(ops)

        await asyncio.to_thread(prop)
        missing = {r for r in cfg.expect if runner.served[r] == 0}
        assert not missing, f"routes that never served: {missing} ({dict(runner.served)})"
        if not cfg.expect:
            assert set(runner.served) == {"general"}, dict(runner.served)
    finally:
        for c in conns.values():
            await c.close()

