"""Receiving by message identifier overrides the delay (issue 21 section 2).

Oracle Database Advanced Queuing User's Guide, "Introduction to Oracle Java Message Service",
"Specifying a Message Delay": "A message specified with a delay is in a waiting state until the
delay expires. Receiving by message identifier overrides the delay specification." A dequeue
without a message id still leaves the message alone until its delay ends.
"""

from __future__ import annotations

import asyncpg
import pytest
from pgaq import DequeueOptions, MessageProperties, Session

SETUP = """
CREATE SCHEMA d;
CALL dbms_aqadm.create_queue_table('d.st', 'RAW');
CALL dbms_aqadm.create_queue('d.sq', 'd.st'); CALL dbms_aqadm.start_queue('d.sq');
CALL dbms_aqadm.create_queue_table('d.mt', 'RAW', multiple_consumers => true);
CALL dbms_aqadm.create_queue('d.mq', 'd.mt'); CALL dbms_aqadm.start_queue('d.mq');
CALL dbms_aqadm.add_subscriber('d.mq', sys.aq$_agent('A', NULL, NULL));
CALL dbms_aqadm.add_subscriber('d.mq', sys.aq$_agent('B', NULL, NULL));
"""


@pytest.mark.parametrize("queue,consumer", [("d.sq", None), ("d.mq", "A")])
@pytest.mark.parametrize("mode", ["REMOVE", "BROWSE", "LOCKED"])
async def test_the_library_takes_a_waiting_message_by_its_id(
        conn: asyncpg.Connection, queue: str, consumer: str | None, mode: str) -> None:
    await conn.execute(SETUP)
    s = Session(conn)
    mid = await s.enqueue(queue, b"later", MessageProperties(delay=3600), visibility="IMMEDIATE")
    # without the id, nothing is READY
    assert await s.dequeue(queue, DequeueOptions(consumer_name=consumer, visibility="IMMEDIATE")) == []
    [m] = await s.dequeue(queue, DequeueOptions(consumer_name=consumer, msgid=mid, dequeue_mode=mode,
                                                visibility="IMMEDIATE"))
    assert (m.msgid, m.payload) == (mid, b"later")
    assert m.state == ("WAIT" if mode != "REMOVE" else "PROCESSED")
    if mode == "REMOVE":  # taken once: the id finds nothing more for this consumer
        assert await s.dequeue(queue, DequeueOptions(consumer_name=consumer, msgid=mid,
                                                     visibility="IMMEDIATE")) == []
    if consumer is not None:  # the other subscriber's delivery still waits for the delay
        assert await s.dequeue(queue, DequeueOptions(consumer_name="B", visibility="IMMEDIATE")) == []
        [b] = await s.dequeue(queue, DequeueOptions(consumer_name="B", msgid=mid, visibility="IMMEDIATE"))
        assert b.payload == b"later"


async def test_sql_dequeue_by_id_of_a_waiting_message(conn: asyncpg.Connection) -> None:
    await conn.execute(SETUP)
    await conn.execute("""
        DO $$ DECLARE id bytea; BEGIN
          CALL dbms_aq.enqueue('d.sq', NULL, dbms_aq.message_properties(delay => 3600), '\\x0102'::bytea, id);
          PERFORM set_config('test.mid', encode(id, 'hex'), false);
        END $$""")
    mid = await conn.fetchval("SELECT current_setting('test.mid')")
    got = await conn.fetchrow("""
        CALL dbms_aq.dequeue('d.sq', dbms_aq.dequeue_options(msgid => decode($1, 'hex'), wait => 0))""", mid)
    assert got["payload"] == b"\x01\x02" and got["msgid"].hex() == mid
    assert got["message_properties"]["delay"] == 3600
    with pytest.raises(asyncpg.PostgresError, match="ORA-25228"):
        await conn.execute("CALL dbms_aq.dequeue('d.sq', dbms_aq.dequeue_options(wait => 0))")
