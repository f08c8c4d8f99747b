"""pgaq.jms acknowledge modes against a small reference model (issue 22): send, receive,
acknowledge, recover, commit, rollback in any order; what comes next, with which
JMSRedelivered and JMSXDeliveryCount, is what the model says (JMS 1.1 4.4.11, 4.5.2 over
AQ: a rollback or recover counts a failed attempt; a queue orders by enqueue time, so a
message that comes again comes before younger ones). Messages are PERSISTENT or
NON_PERSISTENT under the same contract (the Oracle JMS guide, "Transaction Commits and
Client Acknowledgments"), each kind ordered on its own ("The ordering does not extend
across message types"), on a queue, a durable subscription of a topic, a temporary queue or
a non-durable subscriber of a temporary topic. Past the destination's max_retries a
message goes to the exception queue (the guide's "Retry with Delay Interval") and is not
delivered again. Driven through pgaq.jms.blocking."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any, ClassVar

import asyncpg
import pgaq.jms as jms
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from pgaq.jms import blocking

from .conftest import EXAMPLES, fuzz

_names = itertools.count()


class AckModes(RuleBasedStateMachine):
    factory: ClassVar[Any] = None
    connection: ClassVar[Any] = None

    def __init__(self) -> None:
        super().__init__()
        self.available: list[int] = []  # committed, not taken: delivered in this order
        self.taken: list[int] = []  # delivered, not yet acknowledged / committed
        self.pending: list[int] = []  # sent in the open transaction (transacted mode)
        self.failed: dict[int, int] = {}  # rollbacks / recovers each message went through
        self.non_persistent: set[int] = set()
        self.excepted: set[int] = set()  # past max_retries: in the exception queue
        self.rolled_back: set[int] = set()  # sent in a transaction that rolled back
        self.next_id = 0

    @initialize(transacted=st.booleans(),
                kind=st.sampled_from(["queue", "topic", "temporary queue", "temporary topic"]))
    def setup(self, transacted: bool, kind: str) -> None:
        self.transacted = transacted
        self.session = self.connection.create_session(transacted, jms.CLIENT_ACKNOWLEDGE)
        n = next(_names)
        if kind.startswith("temporary"):
            self.queue = (self.session.create_temporary_topic() if kind.endswith("topic")
                          else self.session.create_temporary_queue())
            self.max_retries = 5  # dbms_aqadm.create_queue's default
        else:
            admin = self.connection.create_session()
            table = admin.create_queue_table("fz", f"t{n}", "SYS.AQ$_JMS_TEXT_MESSAGE",
                                             multiple_consumers=kind == "topic")
            self.max_retries = 3
            make = admin.create_topic if kind == "topic" else admin.create_queue
            self.queue = make(table, f"q{n}", max_retries=self.max_retries)
            admin.close()
        if kind == "topic":
            self.consumer = self.session.create_durable_subscriber(self.queue, f"sub{n}")
        else:
            self.consumer = self.session.create_consumer(self.queue)
        self.producer = self.session.create_producer(self.queue)
        self.sender = self.connection.create_session()
        self.outside = self.sender.create_producer(self.queue)

    def teardown(self) -> None:
        if hasattr(self, "session"):
            self.session.close()
            self.sender.close()

    @rule(inside=st.booleans(), persistent=st.booleans())
    def send(self, inside: bool, persistent: bool) -> None:
        """A send from the session (transacted: held until commit) or from another one."""
        i = self.next_id
        self.next_id += 1
        mode = jms.PERSISTENT if persistent else jms.NON_PERSISTENT
        if not persistent:
            self.non_persistent.add(i)
        if inside and self.transacted:
            self.producer.send(self.session.create_text_message(str(i)), delivery_mode=mode)
            self.pending.append(i)
        else:
            (self.producer if inside else self.outside).send(
                self.session.create_text_message(str(i)), delivery_mode=mode)
            self.available.append(i)

    @rule()
    def receive(self) -> None:
        m = self.consumer.receive_no_wait()
        if not self.available:
            assert m is None
            return
        heads = {min(k) for k in ([i for i in self.available if i in self.non_persistent],
                                  [i for i in self.available if i not in self.non_persistent]) if k}
        assert m is not None and int(m.text) in heads, (m, heads)
        expected = int(m.text)
        assert m.jms_delivery_mode == (
            jms.NON_PERSISTENT if expected in self.non_persistent else jms.PERSISTENT)
        assert m.jms_redelivered is (self.failed.get(expected, 0) > 0)
        assert m.get_int_property("JMSXDeliveryCount") == self.failed.get(expected, 0) + 1
        self.available.remove(expected)
        self.taken.append(expected)

    def _undo(self) -> None:
        for i in self.taken:
            self.failed[i] = self.failed.get(i, 0) + 1
            if self.failed[i] > self.max_retries:
                self.excepted.add(i)
        back = [i for i in self.taken if i not in self.excepted]
        self.available = sorted(self.available + back)
        self.rolled_back.update(self.pending)
        self.taken = []
        self.pending = []

    @rule()
    def acknowledge_or_commit(self) -> None:
        if self.transacted:
            self.session.commit()
            self.available = sorted(self.available + self.pending)
            self.pending = []
        else:
            self.session.acknowledge()
        self.taken = []

    @rule()
    def recover_or_rollback(self) -> None:
        if self.transacted:
            self.session.rollback()
        else:
            self.session.recover()
        self._undo()

    @invariant()
    def ids_are_accounted_for(self) -> None:
        held = [*self.available, *self.taken, *self.pending, *self.excepted, *self.rolled_back]
        assert len(set(held)) == len(held) == self.next_id


@pytest.mark.timeout(3600 if EXAMPLES else 300)
async def test_ack_modes_follow_the_model(conn: asyncpg.Connection, db_dsn: str) -> None:
    await conn.execute("CREATE SCHEMA fz")

    def run() -> None:
        factory = blocking.ConnectionFactory(db_dsn, safety_poll=30.0)
        try:
            AckModes.connection = factory.create_connection()
            AckModes.connection.start()
            run_state_machine_as_test(AckModes, settings=settings(
                fuzz(25), stateful_step_count=30, deadline=None))
            AckModes.connection.close()
        finally:
            factory.close()

    await asyncio.to_thread(run)
