"""The scan floor against a model of AQ's REMOVE: whatever order enqueues commit in, REMOVEs
roll back, delays end and the monitor's floor rounds come, a REMOVE of a single-consumer
ENQ_TIME queue takes the READY message enqueued first that no other transaction holds (the
default sort order of DBMS_AQADM.CREATE_QUEUE_TABLE is ENQ_TIME; a rolled-back dequeue leaves
the message in the queue; a delayed message is READY once its delay has passed), and no READY
message lies below the floor.

Two sessions: A works in autocommit; B holds a transaction open across steps (enqueues in
it, REMOVEs in it) and ends it with a commit or a rollback, while A and the floor rounds
go on.
"""

from __future__ import annotations

import asyncio

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
from pgaq import DequeueOptions, MessageProperties, Session

from .conftest import EXAMPLES, Bridge, fuzz

SETUP = """
CREATE SCHEMA sf;
CALL dbms_aqadm.create_queue_table('sf.qt', 'RAW');
CALL dbms_aqadm.create_queue('sf.q', 'sf.qt', max_retries => 1000000);
CALL dbms_aqadm.start_queue('sf.q');
"""


class Env(Bridge):
    a: Session
    b: Session
    conn: asyncpg.Connection


class ScanFloor(RuleBasedStateMachine):
    env: Env

    def __init__(self) -> None:
        super().__init__()
        self.n = 0
        self.ready: list[tuple[int, bytes]] = []  # (enqueue order, payload), committed and READY
        self.waiting: list[tuple[int, bytes]] = []  # committed, delayed
        self.b_open = False
        self.b_enqueued: list[tuple[int, bytes]] = []  # B's enqueues, not yet committed
        self.b_held: list[tuple[int, bytes]] = []  # READY messages B removed, not yet committed
        self.floors: str | None = None
        e = self.env
        e.call(e.conn.execute("DELETE FROM sf.qt; SELECT setval('sf.\"aq$_qt_sf\"', 0, true)"))

    def _next(self) -> tuple[int, bytes]:
        self.n += 1
        return self.n, b"m%d" % self.n

    @rule(delayed=st.booleans())
    def enqueue(self, delayed: bool) -> None:
        k, p = self._next()
        self.env.call(self.env.a.enqueue("sf.q", p, MessageProperties(delay=30) if delayed else None))
        (self.waiting if delayed else self.ready).append((k, p))

    @rule(n=st.sampled_from([1, 1, 100]))
    def remove(self, n: int) -> None:
        got = self.env.call(self.env.a.dequeue("sf.q", DequeueOptions(batch_size=n)))
        free = sorted(self.ready)[:n]
        assert [m.payload for m in got] == [p for _, p in free]
        for m in free:
            self.ready.remove(m)

    @rule()
    def b_enqueue(self) -> None:
        if not self.b_open:
            self.env.call(self.env.b.begin())
            self.b_open = True
        k, p = self._next()
        self.env.call(self.env.b.enqueue("sf.q", p))
        self.b_enqueued.append((k, p))

    @rule()
    def b_remove(self) -> None:
        if not self.b_open:
            self.env.call(self.env.b.begin())
            self.b_open = True
        got = self.env.call(self.env.b.dequeue("sf.q"))
        # B sees the committed READY messages and its own enqueues
        free = sorted(self.ready + self.b_enqueued)
        if not free:
            assert got == []
            return
        assert [m.payload for m in got] == [free[0][1]]
        if free[0] in self.ready:
            self.ready.remove(free[0])
            self.b_held.append(free[0])
        else:
            self.b_enqueued.remove(free[0])

    @precondition(lambda self: self.b_open)
    @rule(commit=st.booleans())
    def b_end(self, commit: bool) -> None:
        if commit:
            self.env.call(self.env.b.commit())
            self.ready += self.b_enqueued
        else:
            self.env.call(self.env.b.rollback())
            self.ready += self.b_held  # back, at their places
        self.b_open, self.b_enqueued, self.b_held = False, [], []

    @rule()
    def delays_end(self) -> None:
        self.env.call(self.env.conn.fetchval(
            "SELECT sum(m.done) FROM aq.queue_tables t, aq.monitor_table(t, clock_timestamp() + interval '31 s', 1000) m"
            " WHERE t.table_name = 'qt'"))
        self.ready += self.waiting
        self.waiting = []

    @rule(rounds=st.integers(1, 3))
    def floor_rounds(self, rounds: int) -> None:
        for _ in range(rounds):  # (a raise needs two: what the first saw, checked by the second)
            self.floors = self.env.call(self.env.conn.fetchval(
                "SELECT aq.advance_scan_floors($1::jsonb)::text", self.floors))

    @invariant()
    def nothing_ready_below_the_floor(self) -> None:
        below = self.env.call(self.env.conn.fetchval(
            """SELECT count(*) FROM sf.qt WHERE state = 0 AND enq_seq < (SELECT last_value FROM sf."aq$_qt_sf")"""))
        assert below == 0

    def teardown(self) -> None:
        e = self.env
        if self.b_open:
            e.call(e.b.rollback())
            self.ready += self.b_held
        self.delays_end()
        got = [m.payload for m in e.call(e.a.dequeue("sf.q", DequeueOptions(batch_size=1000)))]
        assert got == [p for _, p in sorted(self.ready)]


@pytest.mark.timeout(3600 if EXAMPLES else 300)
async def test_the_scan_floor_hides_no_message(conn: asyncpg.Connection, db_dsn: str) -> None:
    await conn.execute(SETUP)
    other = await asyncpg.connect(db_dsn)
    try:
        env = Env()
        env.loop = asyncio.get_running_loop()
        env.conn = conn
        env.a = Session(conn)
        env.b = Session(other)
        ScanFloor.env = env

        def run() -> None:
            run_state_machine_as_test(ScanFloor, settings=settings(fuzz(60), stateful_step_count=40,
                                                                  deadline=None))

        await asyncio.to_thread(run)
    finally:
        await other.close()
