"""exception_queue in message properties names an exception queue (issue 21 section 2).

Oracle's AQ guides 10.1, 10.2 and 11.1, "Internet Access to Oracle Streams AQ" (the
message_header elements; 10.1: Table 17-1): exception_queue is "the name of the queue to which
the message is moved if it cannot be processed successfully ... If the exception queue specified
does not exist at the time of the move, then the message is moved to the default exception queue
associated with the queue table, and a warning is logged in the alert log." Oracle Streams
Advanced Queuing User's Guide and Reference 10g Release 2 (10.2), "Introducing Oracle Streams
AQ", "Exception Queues": "Applications cannot directly enqueue into exception queues", the
default exception queue is created with the queue table. pgaq refuses, at enqueue, a name that
is no queue (ORA-24010) or a queue that is not an exception queue (ORA-24005, pgaq's choice:
docs/errors.md); PostgreSQL's server log stands for the alert log (a WARNING).
"""

from __future__ import annotations

import asyncpg
import pytest
from pgaq import DequeueOptions, MessageProperties, Session
from pgaq.errors import PgaqError

from .helpers import make_queue, subscribe

ENQ = ("CALL dbms_aq.enqueue('s.q', NULL, dbms_aq.message_properties(expiration => $2, exception_queue => $1),"
       " '\\x01'::bytea, NULL)")


async def _setup(conn: asyncpg.Connection, multiple: bool = False, max_retries: int = 5) -> None:
    await make_queue(conn, multiple=multiple, max_retries=max_retries)
    await make_queue(conn, "s.other", create_table=False)
    await conn.execute("CALL dbms_aqadm.create_queue('s.eq', 's.qt', queue_type => 'EXCEPTION_QUEUE')")
    if multiple:
        await subscribe(conn, "s.q", "A")


async def _warnings(conn: asyncpg.Connection) -> list[str]:
    seen: list[str] = []
    conn.add_log_listener(lambda _c, m: seen.append(m.message))
    return seen


@pytest.mark.parametrize("name,code", [("s.nope", "ORA-24010"), ("s.other", "ORA-24005"),
                                       ("s.q", "ORA-24005")])
async def test_enqueue_refuses_what_is_not_an_exception_queue(conn: asyncpg.Connection, name: str,
                                                              code: str) -> None:
    await _setup(conn)
    with pytest.raises(asyncpg.PostgresError, match=code):
        await conn.execute(ENQ, name, None)
    s = Session(conn)
    with pytest.raises(PgaqError, match=code):
        await s.enqueue("s.q", b"x", MessageProperties(exception_queue=name), visibility="IMMEDIATE")
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


async def test_an_exception_queue_of_the_table_is_taken(conn: asyncpg.Connection) -> None:
    await _setup(conn)
    await conn.execute(ENQ, "s.eq", None)
    await conn.execute(ENQ, "s.aq$_qt_e", None)  # the default one, named
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 2


async def _expire(conn: asyncpg.Connection) -> None:
    await conn.fetchval("SELECT sum(x.done) FROM aq.queue_tables t, "
                        "aq.monitor_table(t, clock_timestamp() + interval '1 hour', 1000) x")


@pytest.mark.parametrize("multiple", [False, True])
async def test_expiry_moves_to_the_named_exception_queue(conn: asyncpg.Connection, multiple: bool) -> None:
    await _setup(conn, multiple)
    await conn.execute(ENQ, "s.eq", 60)
    await _expire(conn)
    assert await conn.fetch("SELECT q_name, state FROM s.qt") == [("eq", 3)]


@pytest.mark.parametrize("multiple", [False, True])
async def test_expiry_after_the_named_queue_was_dropped_goes_to_the_default(
        conn: asyncpg.Connection, multiple: bool) -> None:
    await _setup(conn, multiple)
    await conn.execute(ENQ, "s.eq", 60)
    await conn.execute("CALL dbms_aqadm.drop_queue('s.eq')")
    seen = await _warnings(conn)
    await _expire(conn)
    row = await conn.fetchrow("SELECT q_name, state, expiration_reason FROM s.qt")
    assert tuple(row) == ("aq$_qt_e", 3, "TIME_EXPIRATION")
    if not multiple:  # (multi-consumer expiry settles through the dequeue's settlement)
        assert any("no longer exists" in w and "aq$_qt_e" in w for w in seen), seen
    # and it is dequeued from there, as any expired message
    await conn.execute("CALL dbms_aqadm.start_queue('s.aq$_qt_e', enqueue => false)")
    got = await conn.fetchrow("CALL dbms_aq.dequeue('s.aq$_qt_e', dbms_aq.dequeue_options(wait => 0),"
                              " payload => NULL::bytea, msgid => NULL)")
    assert got["payload"] == b"\x01"
    # the 11.1 guide, exception_queue: "If the default exception queue is used, then the
    # parameter returns a NULL value at dequeue time"
    assert got["message_properties"]["exception_queue"] is None


@pytest.mark.parametrize("multiple", [False, True])
async def test_retries_past_the_limit_after_the_named_queue_was_dropped_go_to_the_default(
        conn: asyncpg.Connection, multiple: bool) -> None:
    await _setup(conn, multiple, max_retries=0)
    await conn.execute(ENQ, "s.eq", None)
    await conn.execute("CALL dbms_aqadm.drop_queue('s.eq')")
    seen = await _warnings(conn)
    s = Session(conn)
    await s.begin()
    [m] = await s.dequeue("s.q", DequeueOptions(consumer_name="A" if multiple else None))
    await s.rollback()  # the failed attempt is counted: past max_retries 0, it moves
    row = await conn.fetchrow("SELECT q_name, state FROM s.qt WHERE msgid = decode($1, 'hex')", m.msgid)
    assert tuple(row) == ("aq$_qt_e", 3)
    assert any("no longer exists" in w for w in seen), seen
