"""Persistent and buffered messages in one queue, as a state machine against a small model.

The model is that of Oracle Streams Advanced Queuing User's Guide and Reference 10g Release 2
(10.2), "Introducing Oracle Streams AQ", "Buffered Messaging": both classes use the same queues
and are told apart by the enqueue's delivery mode; a dequeue takes persistent messages only,
buffered only, or both (here: buffered first, each class in its own order, as pgaq documents,
since Oracle does not order across classes); a subscriber takes the modes it was added with
(PERSISTENT by default); a buffered message is gone once its recipients have it (no retention).
The backlog of `v$buffered_queues` is what the model holds buffered.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from pgaq import DequeueOptions, Session

from .conftest import EXAMPLES, Bridge, fuzz

SETUP = """
CREATE SCHEMA dm;
CALL dbms_aqadm.create_queue_table('dm.st', 'RAW');
CALL dbms_aqadm.create_queue('dm.q', 'dm.st'); CALL dbms_aqadm.start_queue('dm.q');
CALL dbms_aqadm.create_queue_table('dm.mt', 'RAW', multiple_consumers => true);
CALL dbms_aqadm.create_queue('dm.t', 'dm.mt'); CALL dbms_aqadm.start_queue('dm.t');
CALL dbms_aqadm.add_subscriber('dm.t', sys.aq$_agent('P', NULL, NULL));
CALL dbms_aqadm.add_subscriber('dm.t', sys.aq$_agent('B', NULL, NULL), delivery_mode => 'BUFFERED');
CALL dbms_aqadm.add_subscriber('dm.t', sys.aq$_agent('E', NULL, NULL), delivery_mode => 'PERSISTENT_OR_BUFFERED');
"""
TAKES = {"P": ("PERSISTENT",), "B": ("BUFFERED",), "E": ("PERSISTENT", "BUFFERED")}
READERS = st.sampled_from([("dm.q", None), ("dm.q", None), ("dm.t", "P"), ("dm.t", "B"), ("dm.t", "E")])
ENQ_MODES = st.sampled_from(["PERSISTENT", "BUFFERED"])
DEQ_MODES = st.sampled_from(["PERSISTENT", "BUFFERED", "PERSISTENT_OR_BUFFERED"])


class Env(Bridge):
    session: Session
    conn: asyncpg.Connection


class DeliveryModes(RuleBasedStateMachine):
    env: Env

    def __init__(self) -> None:
        super().__init__()
        self.n = 0
        # per reader and class, the payloads not yet taken, in enqueue order
        self.pending: dict[tuple[str, str | None], dict[str, list[bytes]]] = {
            ("dm.q", None): {"PERSISTENT": [], "BUFFERED": []},
            **{("dm.t", c): {"PERSISTENT": [], "BUFFERED": []} for c in TAKES}}
        self.env.call(self.env.conn.execute("""
            DELETE FROM dm.st; DELETE FROM dm."aq$_st_b"; DELETE FROM dm.mt; DELETE FROM dm."aq$_mt_b";"""))

    @rule(queue=st.sampled_from(["dm.q", "dm.t"]), mode=ENQ_MODES)
    def enqueue(self, queue: str, mode: str) -> None:
        self.n += 1
        payload = f"{mode[0]}{self.n}".encode()
        self.env.call(self.env.session.enqueue(queue, payload, visibility="IMMEDIATE", delivery_mode=mode))
        if queue == "dm.q":
            self.pending[(queue, None)][mode].append(payload)
        else:
            for c, modes in TAKES.items():
                if mode in modes:
                    self.pending[(queue, c)][mode].append(payload)

    @rule(reader=READERS, mode=DEQ_MODES)
    def dequeue(self, reader: tuple[str, str | None], mode: str) -> None:
        queue, consumer = reader
        got = self.env.call(self.env.session.dequeue(queue, DequeueOptions(
            consumer, visibility="IMMEDIATE", delivery_mode=mode, navigation="FIRST_MESSAGE")))
        classes = ["BUFFERED", "PERSISTENT"] if mode == "PERSISTENT_OR_BUFFERED" else [mode]
        want = next(((c, self.pending[reader][c][0]) for c in classes if self.pending[reader][c]), None)
        if want is None:
            assert got == [], (reader, mode, got)
            return
        [m] = got
        assert (m.delivery_mode, m.payload) == want, (reader, mode)
        self.pending[reader][want[0]].pop(0)

    @invariant()
    def backlog_is_the_model(self) -> None:
        rows = self.env.call(self.env.conn.fetch(
            """SELECT queue_name, num_msgs FROM aq."v$buffered_queues" WHERE queue_schema = 'dm'"""))
        got = {r["queue_name"]: r["num_msgs"] for r in rows}
        topic = {p for c in TAKES for p in self.pending[("dm.t", c)]["BUFFERED"]}
        assert got == {"q": len(self.pending[("dm.q", None)]["BUFFERED"]), "t": len(topic)}


@pytest.mark.timeout(3600 if EXAMPLES else 300)
async def test_delivery_modes_follow_the_model(conn: asyncpg.Connection) -> None:
    await conn.execute(SETUP)
    env = Env()
    env.loop = asyncio.get_running_loop()
    env.conn = conn
    env.session = Session(conn)
    DeliveryModes.env = env

    def run() -> None:
        run_state_machine_as_test(DeliveryModes, settings=settings(fuzz(40), stateful_step_count=40,
                                                                   deadline=None))

    await asyncio.to_thread(run)
