"""A topic against a model of AQ's publish/subscribe: whatever order subscribers are added
in, messages are published (to the subscribers, or to a recipient list), and subscribers
dequeue, commit or roll back, each subscriber gets exactly the messages meant for it, in
enqueue order, once each:

- a message with no recipient list goes to every subscriber of the queue when it is
  enqueued whose rule (if any) it satisfies: rules are evaluated at enqueue, and a
  subscriber added later does not get it (Oracle Streams AQ User's Guide, "Subscribers and
  Recipients"; issue 35: "a late subscriber sees only later messages");
- a message with a recipient list goes to those agents alone, subscribed or not;
- a subscriber's REMOVE takes its own next message, whatever the others have taken; a
  rolled-back REMOVE leaves the message for that subscriber, its retry count one higher;
- the queue table's AQ$ view shows each recipient still to take a message as READY, and a
  message goes once every recipient has taken it (retention 0).

This is the model the storage of recipients must keep answering to (issue 35 changes it).
Session A works in autocommit; session B dequeues in a transaction it then ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

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
from pgaq import Agent, DequeueOptions, MessageProperties, Session

from .conftest import EXAMPLES, Bridge, fuzz

# the audience's own tests: every topic publishes to it (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("whole_audience")

SETUP = """
CREATE SCHEMA tp;
CALL dbms_aqadm.create_queue_table('tp.qt', 'RAW', multiple_consumers => true);
CALL dbms_aqadm.create_queue('tp.q', 'tp.qt', max_retries => 1000000);
CALL dbms_aqadm.start_queue('tp.q');
"""
NAMES = ("S1", "S2", "S3", "S4", "S5")
RULES: dict[str | None, Callable[[int], bool]] = {
    None: lambda pri: True, "priority > 5": lambda pri: pri > 5, "priority <= 2": lambda pri: pri <= 2}


class Env(Bridge):
    a: Session
    b: Session
    conn: asyncpg.Connection


class Topic(RuleBasedStateMachine):
    env: Env

    def __init__(self) -> None:
        super().__init__()
        self.n = 0
        # subscriber -> its rule (not `rules`: RuleBasedStateMachine's own attribute)
        self.subscribers: dict[str, str | None] = {}
        self.pending: dict[str, list[tuple[int, bytes]]] = {k: [] for k in NAMES}
        self.retries: dict[tuple[str, bytes], int] = {}
        e = self.env
        e.call(e.conn.execute(
            "DELETE FROM tp.qt; DELETE FROM aq.subscribers s USING aq.queues q"
            " WHERE q.id = s.queue_id AND q.schema_name = 'tp';"
            " SELECT aq.rebuild_rules(id) FROM aq.queues WHERE schema_name = 'tp'"))

    @rule(name=st.sampled_from(NAMES), rule_=st.sampled_from(list(RULES)))
    def subscribe(self, name: str, rule_: str | None) -> None:
        if name in self.subscribers:
            return
        self.env.call(self.env.conn.execute(
            "CALL dbms_aqadm.add_subscriber('tp.q', sys.aq$_agent($1, NULL, NULL), rule => $2)",
            name, rule_))
        self.subscribers[name] = rule_

    @rule(priority=st.integers(0, 9),
          to=st.one_of(st.none(), st.lists(st.sampled_from(NAMES), min_size=1, max_size=3,
                                           unique=True)))
    def publish(self, priority: int, to: list[str] | None) -> None:
        audience = ([s for s, r in self.subscribers.items() if RULES[r](priority)] if to is None
                    else to)
        if not audience:
            return  # ORA-24033: no recipients (not what this model is about)
        self.n += 1
        p = b"m%d" % self.n
        props = MessageProperties(priority=priority,
                                  recipient_list=None if to is None else [Agent(n) for n in to])
        self.env.call(self.env.a.enqueue("tp.q", p, props))
        for s in audience:
            self.pending[s].append((self.n, p))

    @rule(name=st.sampled_from(NAMES), n=st.sampled_from([1, 1, 3, 100]))
    def remove(self, name: str, n: int) -> None:
        got = self.env.call(self.env.a.dequeue(
            "tp.q", DequeueOptions(consumer_name=name, batch_size=n)))
        mine = self.pending[name][:n]
        assert [m.payload for m in got] == [p for _, p in mine], name
        assert [m.attempts for m in got] == [self.retries.get((name, p), 0) for _, p in mine]
        del self.pending[name][:n]

    @precondition(lambda self: any(self.pending.values()))
    @rule(data=st.data())
    def remove_and_roll_back(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from([k for k, v in self.pending.items() if v]))
        e = self.env
        e.call(e.b.begin())
        got = e.call(e.b.dequeue("tp.q", DequeueOptions(consumer_name=name,
                                                        visibility="ON_COMMIT")))
        e.call(e.b.rollback())
        _, p = self.pending[name][0]
        assert [m.payload for m in got] == [p]
        self.retries[(name, p)] = self.retries.get((name, p), 0) + 1

    @invariant()
    def the_view_shows_what_is_left(self) -> None:
        rows = self.env.call(self.env.conn.fetch(
            "SELECT consumer_name, msg_state, user_data FROM tp.aq$qt"))
        ready = sorted((r["consumer_name"], bytes(r["user_data"]))
                       for r in rows if r["msg_state"] == "READY")
        assert ready == sorted((s, p) for s, v in self.pending.items() for _, p in v)
        left = self.env.call(self.env.conn.fetchval("SELECT count(*) FROM tp.qt"))
        assert left == len({p for v in self.pending.values() for _, p in v})

    def teardown(self) -> None:
        for name in NAMES:
            self.remove(name, 1000)


@pytest.mark.timeout(3600 if EXAMPLES else 300)
async def test_each_subscriber_gets_its_messages_once(conn: asyncpg.Connection,
                                                      db_dsn: str) -> None:
    await conn.execute(SETUP)
    other = await asyncpg.connect(db_dsn)
    try:
        env = Env()
        env.loop = asyncio.get_running_loop()
        env.conn = conn
        env.a = Session(conn)
        env.b = Session(other)
        Topic.env = env

        def run() -> None:
            run_state_machine_as_test(Topic, settings=settings(fuzz(40), stateful_step_count=40,
                                                               deadline=None))

        await asyncio.to_thread(run)
    finally:
        await other.close()
