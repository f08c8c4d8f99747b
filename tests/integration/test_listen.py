"""dbms_aq.listen from SQL (R__21), as a psql user calls it: CALL dbms_aq.listen(agent_list,
wait, agent[, message_delivery_mode]).

What Oracle Streams Advanced Queuing User's Guide and Reference 10g Release 2 (10.2),
"Introducing Oracle Streams AQ", "Waiting for Messages", says, and each test checks:
- LISTEN waits for the arrival of a message in more than one queue; it returns only the
  agent (the queue where a message has arrived): a DEQUEUE is needed to take the message;
- with messages for several agents in the list it returns the first agent for whom there is
  a message, so reordering the list changes which one;
- the wait is a timeout of zero or more seconds, FOREVER by default; the application stays
  blocked until a message is enqueued (committed) or becomes READY.
An agent's address is the queue; its name the subscriber on a multi-consumer queue, NULL on a
single-consumer queue. Nothing found in time: ORA-25254 (time-out in LISTEN).

No test sleeps to synchronise: they wait for what pg_stat_activity shows (the waiter asleep
between looks, a look begun after a commit) and then act.
"""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest

from .helpers import make_queue, subscribe
from .waiting import asleep, burn_xids, looked_again, until, xmin

# the agents: (name, queue)
Agents = list[tuple[str | None, str]]

LISTEN = "CALL dbms_aq.listen(agent_list => $1::sys.aq$_agent[], wait => $2)"
LISTEN_MODE = "CALL dbms_aq.listen($1::sys.aq$_agent[], $2, NULL, NULL)"
ENQ = "CALL dbms_aq.enqueue(queue_name => $1, payload => $2::bytea, msgid => NULL)"
ENQ_TO = ("CALL dbms_aq.enqueue(queue_name => $1, message_properties => dbms_aq.message_properties("
          "recipient_list => ARRAY[sys.aq$_agent($3, NULL, NULL)]), payload => $2::bytea, msgid => NULL)")


def args(agents: Agents) -> tuple[list[tuple[str | None, str, None]]]:
    return ([(n, q, None) for n, q in agents],)


async def listen(conn: asyncpg.Connection, agents: Agents, wait: int | None) -> tuple[str | None, str]:
    row = await conn.fetchrow(LISTEN, *args(agents), wait)
    assert row is not None
    agent = row["agent"]
    return agent["name"], agent["address"]


async def three_queues(conn: asyncpg.Connection) -> None:
    """s.q and s.r single-consumer, s.m multi-consumer with subscribers A and B."""
    await make_queue(conn, "s.q", "s.qt")
    await make_queue(conn, "s.r", "s.qt", create_table=False)
    await make_queue(conn, "s.m", "s.mt", multiple=True)
    await subscribe(conn, "s.m", "A")
    await subscribe(conn, "s.m", "B")


async def counts(conn: asyncpg.Connection) -> tuple[int, int]:
    return (await conn.fetchval("SELECT count(*) FROM s.qt"),
            await conn.fetchval("SELECT count(*) FROM s.aq$mt WHERE msg_state = 'READY'"))


async def test_the_first_agent_in_the_list_with_a_message_is_returned(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    await three_queues(conn)
    await conn.execute(ENQ, "s.r", b"\x01")
    await conn.execute(ENQ_TO, "s.m", b"\x02", "B")
    before = await counts(conn)
    agents: Agents = [(None, "s.q"), ("A", "s.m"), ("B", "s.m"), (None, "s.r")]
    # messages for B (third) and for s.r's agent (fourth): the first of them in list order
    assert await listen(waiter, agents, 0) == ("B", "s.m")
    # the application reorders the list so that one agent does not starve the others
    assert await listen(waiter, agents[::-1], 0) == (None, "s.r")
    # LISTEN discloses where a message is; it dequeues nothing
    assert await counts(conn) == before
    # the agent is returned as the list gave it; message_delivery_mode says PERSISTENT
    row = await waiter.fetchrow(LISTEN_MODE, *args([(None, "s.q"), ("b", "S.M")]), 0)
    assert tuple(row["agent"]) == ("b", "S.M", None)
    assert row["message_delivery_mode"] == "PERSISTENT"
    # Oracle 10.2's form: listen_delivery_mode (a name or its constant's number) says which
    # messages count; the message is persistent, so BUFFERED alone finds nothing (buffered
    # messages: test_buffered.py), and a mode that is none of Oracle's is refused
    for mode in ("PERSISTENT_OR_BUFFERED", "1", None):
        row = await waiter.fetchrow("CALL dbms_aq.listen($1::sys.aq$_agent[], 0, $2, NULL, NULL)",
                                    *args([("B", "s.m")]), mode)
        assert (row["agent"]["name"], row["message_delivery_mode"]) == ("B", "PERSISTENT")
    for mode in ("BUFFERED", "2"):
        with pytest.raises(asyncpg.PostgresError, match=r"ORA-25254"):
            await waiter.execute("CALL dbms_aq.listen($1::sys.aq$_agent[], 0, $2, NULL, NULL)",
                                 *args([("B", "s.m")]), mode)
    with pytest.raises(asyncpg.PostgresError, match=r"ORA-25299.*SPILLED"):
        await waiter.execute("CALL dbms_aq.listen($1::sys.aq$_agent[], 0, 'SPILLED', NULL, NULL)",
                             *args([("B", "s.m")]))
    # the dequeue that follows takes the message
    got = await waiter.fetchrow("CALL dbms_aq.dequeue(queue_name => 's.m', dequeue_options =>"
                                " dbms_aq.dequeue_options(consumer_name => 'B', wait => 0),"
                                " payload => NULL::bytea, msgid => NULL)")
    assert got["payload"] == b"\x02"
    with pytest.raises(asyncpg.PostgresError, match="ORA-25254"):
        await listen(waiter, [(None, "s.q"), ("A", "s.m"), ("B", "s.m")], 0)


async def test_a_message_for_another_subscriber_is_not_one_for_the_agent(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    await three_queues(conn)
    await conn.execute(ENQ_TO, "s.m", b"\x01", "B")
    with pytest.raises(asyncpg.PostgresError, match="ORA-25254"):
        await listen(waiter, [("A", "s.m")], 0)
    assert await listen(waiter, [("A", "s.m"), ("B", "s.m")], 0) == ("B", "s.m")


async def test_wait_zero_raises_at_once_and_wait_n_after_about_n(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    await three_queues(conn)
    agents: Agents = [(None, "s.q"), ("A", "s.m")]
    for wait in (0, None):
        sql = LISTEN if wait is not None else LISTEN.replace("$2", "dbms_aq.no_wait()")
        t = time.monotonic()
        with pytest.raises(asyncpg.PostgresError, match="ORA-25254: time-out in LISTEN") as info:
            await waiter.execute(sql, *args(agents), *([wait] if wait is not None else []))
        assert info.value.sqlstate == "P0002" and time.monotonic() - t < 0.5
    t = time.monotonic()
    with pytest.raises(asyncpg.PostgresError, match="ORA-25254"):
        await listen(waiter, agents, 1)
    assert 0.95 <= time.monotonic() - t < 3.0
    with pytest.raises(asyncpg.PostgresError, match="ORA-25209"):
        await listen(waiter, agents, -2)


async def test_forever_is_woken_by_a_commit_on_another_connection_not_before(
    conn: asyncpg.Connection, waiter: asyncpg.Connection, producer: asyncpg.Connection
) -> None:
    await three_queues(conn)
    pid = await waiter.fetchval("SELECT pg_backend_pid()")
    # the default wait is FOREVER (wait => NULL, as an Oracle caller leaving it unset)
    call = asyncio.create_task(listen(waiter, [(None, "s.q"), ("A", "s.m"), (None, "s.r")], None))
    await asleep(conn, pid)
    tx = producer.transaction()
    await tx.start()
    await producer.execute(ENQ_TO, "s.m", b"\x01", "A")
    await looked_again(conn, pid)
    assert not call.done()  # an uncommitted message is not seen
    await tx.commit()
    assert await asyncio.wait_for(call, 10) == ("A", "s.m")
    assert await counts(conn) == (0, 1)  # still there for A's dequeue


async def test_a_wait_of_n_seconds_returns_when_a_message_arrives(
    conn: asyncpg.Connection, waiter: asyncpg.Connection, producer: asyncpg.Connection
) -> None:
    await three_queues(conn)
    pid = await waiter.fetchval("SELECT pg_backend_pid()")
    t = time.monotonic()
    call = asyncio.create_task(listen(waiter, [(None, "s.q"), (None, "s.r")], 20))
    await asleep(conn, pid)
    await producer.execute(ENQ, "s.r", b"\x01")
    assert await asyncio.wait_for(call, 10) == (None, "s.r")
    assert time.monotonic() - t < 10


async def test_from_plpgsql_as_a_ported_script_calls_it(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    """The Oracle block with BEGIN ... END turned into DO: variables for agent and mode, and
    the timeout caught by the caller's exception handler."""
    await three_queues(conn)
    await waiter.execute("CREATE TEMP TABLE r (s text)")
    block = """
        DO $$
        DECLARE
          agents sys.aq$_agent[] := ARRAY[sys.aq$_agent(NULL, 's.q', NULL), sys.aq$_agent('A', 's.m', NULL)];
          agent sys.aq$_agent;
          mode text;
        BEGIN
          CALL dbms_aq.listen(agent_list => agents, wait => 1, agent => agent, message_delivery_mode => mode);
          INSERT INTO r VALUES (coalesce(agent.name, '-') || ' ' || agent.address || ' ' || mode);
        EXCEPTION WHEN sqlstate 'P0002' THEN
          INSERT INTO r VALUES ('timeout');
        END $$"""
    await waiter.execute(block)
    await conn.execute(ENQ, "s.q", b"\x01")
    await waiter.execute(block)
    assert [r["s"] for r in await waiter.fetch("SELECT s FROM r")] == ["timeout", "- s.q PERSISTENT"]


async def test_pg_cancel_backend_and_statement_timeout_leave_nothing_behind(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    await three_queues(conn)
    agents: Agents = [(None, "s.q"), ("A", "s.m")]
    pid = await waiter.fetchval("SELECT pg_backend_pid()")
    call = asyncio.create_task(listen(waiter, agents, None))
    await asleep(conn, pid)
    assert await conn.fetchval("SELECT pg_cancel_backend($1)", pid)
    with pytest.raises(asyncpg.QueryCanceledError):
        await asyncio.wait_for(call, 10)
    await waiter.execute("SET statement_timeout = '300ms'")
    t = time.monotonic()
    with pytest.raises(asyncpg.QueryCanceledError):
        await listen(waiter, agents, None)
    assert time.monotonic() - t < 3
    await waiter.execute("RESET statement_timeout")
    # nothing half done: the session works, no transaction left open, nothing written
    assert await waiter.fetchval("SELECT 1") == 1
    assert await conn.fetchval("SELECT state FROM pg_stat_activity WHERE pid = $1", pid) == "idle"
    assert await conn.fetchval("SELECT count(*) FROM aq.pending_attempts") == 0
    assert await counts(conn) == (0, 0)
    await conn.execute(ENQ, "s.q", b"\x01")
    assert await listen(waiter, agents, 0) == (None, "s.q")


async def test_backend_xmin_advances_while_listen_waits(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    """A top-level CALL outside a transaction block: each look is a transaction of its own,
    as dbms_aq.dequeue's (the same loop), so the wait holds back neither vacuum nor DDL."""
    await three_queues(conn)
    pid = await waiter.fetchval("SELECT pg_backend_pid()")
    call = asyncio.create_task(listen(waiter, [(None, "s.q"), ("A", "s.m")], None))
    await asleep(conn, pid)
    first = await xmin(conn, pid)
    assert first is not None
    await burn_xids(conn)

    async def advanced() -> bool:
        x = await xmin(conn, pid)
        return x is not None and x > first

    await until(advanced, "backend_xmin to advance")
    async with conn.transaction():
        await conn.execute("SET LOCAL lock_timeout = '2s'")
        await conn.execute("LOCK TABLE s.qt, s.mt IN ACCESS EXCLUSIVE MODE")
    await conn.execute(ENQ, "s.q", b"\x01")
    assert await asyncio.wait_for(call, 10) == (None, "s.q")


async def test_inside_a_transaction_block_it_waits_in_the_callers_transaction(
    conn: asyncpg.Connection, waiter: asyncpg.Connection, producer: asyncpg.Connection
) -> None:
    await three_queues(conn)
    pid = await waiter.fetchval("SELECT pg_backend_pid()")

    async def in_block() -> tuple[str | None, str]:
        async with waiter.transaction():
            return await listen(waiter, [("A", "s.m")], 20)

    call = asyncio.create_task(in_block())
    await asleep(conn, pid)
    await producer.execute(ENQ_TO, "s.m", b"\x01", "A")
    assert await asyncio.wait_for(call, 10) == ("A", "s.m")
    # REPEATABLE READ: what is there is found; nothing could arrive, so no wait
    async with waiter.transaction(isolation="repeatable_read"):
        assert await listen(waiter, [("A", "s.m")], 20) == ("A", "s.m")
    t = time.monotonic()
    with pytest.raises(asyncpg.PostgresError, match=r"ORA-25254.*REPEATABLE READ"):
        async with waiter.transaction(isolation="repeatable_read"):
            await listen(waiter, [(None, "s.q")], 20)
    assert time.monotonic() - t < 1


async def test_agents_are_checked_as_the_oracle_documentation_says(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    await three_queues(conn)
    refused: list[tuple[Agents, str, str]] = [
        ([(None, "s.m")], "ORA-25231", "22023"),          # multi-consumer: the name is mandatory
        ([("A", "s.q")], "ORA-24039", "22023"),           # single-consumer: no name
        ([(None, "s.q@elsewhere")], "ORA-25252", "22023"),  # local queues only
        ([(None, "s.nowhere")], "ORA-24010", "42704"),
        ([], "ORA-25254", "22023"),                       # nothing to listen to
    ]
    for agents, code, state in refused:
        with pytest.raises(asyncpg.PostgresError, match=code) as info:
            await waiter.execute(LISTEN, *args(agents), 0)
        assert info.value.sqlstate == state, code
    await conn.execute("CALL dbms_aqadm.stop_queue(queue_name => 's.r', enqueue => false, dequeue => true)")
    with pytest.raises(asyncpg.PostgresError, match=r"ORA-25253: listen failed, queue s\.r is not enabled"):
        await listen(waiter, [(None, "s.q"), (None, "s.r")], 0)
    # only queues the listening user may dequeue from
    role = f"nobody_{await conn.fetchval('SELECT current_database()')}"
    await conn.execute(f"CREATE ROLE {role}")
    await conn.execute(f"GRANT USAGE ON SCHEMA s TO {role}")
    async with waiter.transaction():
        await waiter.execute(f"SET LOCAL ROLE {role}")
        with pytest.raises(asyncpg.PostgresError, match="ORA-01031"):
            await listen(waiter, [(None, "s.q")], 0)


async def test_a_queue_stopped_while_listen_waits_ends_the_wait_with_its_error(
    conn: asyncpg.Connection, waiter: asyncpg.Connection
) -> None:
    await three_queues(conn)
    pid = await waiter.fetchval("SELECT pg_backend_pid()")
    call = asyncio.create_task(listen(waiter, [(None, "s.q"), ("A", "s.m")], 30))
    await asleep(conn, pid)
    await conn.execute("CALL dbms_aqadm.stop_queue(queue_name => 's.m', enqueue => false, dequeue => true)")
    with pytest.raises(asyncpg.PostgresError, match="ORA-25253"):
        await asyncio.wait_for(call, 10)


async def test_listen_on_an_exception_queue_is_woken_by_a_message_moved_there(
    conn: asyncpg.Connection, waiter: asyncpg.Connection, producer: asyncpg.Connection
) -> None:
    """The AQ User's Guide (10.2): a blocking wait on an exception queue for EXPIRED messages.
    The agent of an exception queue has no name; the message arrives when a dequeue past
    max_retries rolls back."""
    from pgaq import Session

    await make_queue(conn, max_retries=0)
    await conn.execute("CALL dbms_aqadm.start_queue(queue_name => 's.aq$_qt_e', enqueue => false, dequeue => true)")
    await conn.execute(ENQ, "s.q", b"\x01")
    pid = await waiter.fetchval("SELECT pg_backend_pid()")
    call = asyncio.create_task(listen(waiter, [(None, "s.aq$_qt_e")], 30))
    await asleep(conn, pid)
    consumer = Session(producer)
    await consumer.begin()
    assert len(await consumer.dequeue("s.q")) == 1
    await consumer.rollback()  # one failed attempt: past max_retries, moved as EXPIRED
    assert await asyncio.wait_for(call, 10) == (None, "s.aq$_qt_e")
    assert await conn.fetchval("SELECT msg_state FROM s.aq$qt") == "EXPIRED"
