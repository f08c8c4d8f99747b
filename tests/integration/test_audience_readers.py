"""A topic's plain subscribers are recipients without a row each (R__12_audience): whatever
else reads recipients sees them as Oracle reports recipients, one per message and subscriber.

Oracle (Streams AQ User's Guide): the AQ$<queue_table> view has "one row for each message
and recipient"; purge_queue_table's condition selects over that view; an expired message
goes to its exception queue with its recipients EXPIRED; a dequeue attempt that fails counts
towards max_retries for that recipient, past which the message goes to the exception queue;
LISTEN returns an agent with a message READY for it; a registration for a subscriber is
notified of each message enqueued for it.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from pgaq import DequeueOptions, Session

from .helpers import make_queue, subscribe
from .waiting import asleep, connected, until

# the audience's own tests: every topic publishes to it (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("whole_audience")

DEQ = ("CALL dbms_aq.dequeue('s.q', dbms_aq.dequeue_options(consumer_name => $1, wait => 0,"
       " dequeue_mode => $2), payload => NULL::bytea, msgid => NULL)")
PURGE = "CALL dbms_aqadm.purge_queue_table('s.qt', $1, dbms_aqadm.purge_options(block => $2))"
VIEW = ("SELECT user_data, consumer_name, msg_state FROM s.aq$qt"
        " ORDER BY user_data, consumer_name")


async def topic(conn: asyncpg.Connection, *, retention: float = 0, max_retries: int = 5,
                retry_delay: float = 0) -> None:
    """s.q on s.qt with three plain subscribers A, B, C."""
    await make_queue(conn, "s.q", "s.qt", multiple=True, retention=retention, max_retries=max_retries,
                     retry_delay=retry_delay)
    for name in ("A", "B", "C"):
        await subscribe(conn, "s.q", name)


async def publish(conn: asyncpg.Connection, *payloads: bytes, delay: int = 0,
                  expiration: int | None = None) -> list[bytes]:
    """Enqueues to the subscribers; each message is an audience message with no row for a
    subscriber without a rule (asserted: the tests below read implicit recipients, not rows)."""
    ids = []
    for p in payloads:
        row = await conn.fetchrow(
            "CALL dbms_aq.enqueue('s.q', NULL, dbms_aq.message_properties(delay => $2, expiration => $3),"
            " $1::bytea, NULL)", p, delay, expiration)
        ids.append(row["msgid"])
    assert await conn.fetchval("SELECT bool_and(audience IS NOT NULL) FROM s.qt WHERE msgid = ANY ($1)", ids)
    assert await conn.fetchval("SELECT count(*) FROM s.aq$_qt_r r JOIN aq.subscribers x ON x.name = r.consumer_name"
                               " AND x.rule IS NULL WHERE r.msgid = ANY ($1)", ids) == 0
    return ids


async def view(conn: asyncpg.Connection) -> list[tuple[object, ...]]:
    return [tuple(r) for r in await conn.fetch(VIEW)]


async def full_view(conn: asyncpg.Connection) -> list[tuple[object, ...]]:
    return [tuple(r) for r in await conn.fetch("SELECT * FROM s.aq$qt ORDER BY msg_id, consumer_name")]


async def explicitise_all(conn: asyncpg.Connection) -> None:
    """Every implicit recipient written as a row: the representation before audiences."""
    await conn.execute(
        "SELECT aq.explicitise(q, (SELECT array_agg(msgid) FROM s.qt)) FROM aq.queue_info q"
        " WHERE q.schema_name = 's' AND q.queue_name = 'q'")


async def remove(conn: asyncpg.Connection, consumer: str) -> bytes | None:
    try:
        row = await conn.fetchrow(DEQ, consumer, "REMOVE")
    except asyncpg.PostgresError as e:
        assert "ORA-25228" in str(e)
        return None
    return bytes(row["payload"])


# -- the AQ$ view --------------------------------------------------------------------------

async def test_the_view_shows_one_row_per_message_and_implicit_recipient(conn: asyncpg.Connection) -> None:
    await topic(conn)
    await publish(conn, b"\x01", b"\x02")
    await publish(conn, b"\x03", delay=3600)
    assert await view(conn) == [(p, c, s) for p, s in ((b"\x01", "READY"), (b"\x02", "READY"),
                                                         (b"\x03", "WAIT"))
                                for c in ("A", "B", "C")]
    rows = await conn.fetch("SELECT address, protocol, retry_count, deq_time, deq_user_id, deq_agent,"
                            " deq_txn_id FROM s.aq$qt")
    assert {tuple(r) for r in rows} == {(None, 0, 0, None, None, None, None)}
    # the same, column for column, as when every recipient had its row
    implicit = await full_view(conn)
    await explicitise_all(conn)
    assert await conn.fetchval("SELECT count(*) FROM s.aq$_qt_r") == 9
    assert await full_view(conn) == implicit


async def test_a_subscriber_added_later_is_no_recipient_of_earlier_messages(conn: asyncpg.Connection) -> None:
    await topic(conn)
    await publish(conn, b"\x01")
    await subscribe(conn, "s.q", "D")
    await publish(conn, b"\x02")
    assert [(p, c) for p, c, _ in await view(conn)] == [
        (b"\x01", "A"), (b"\x01", "B"), (b"\x01", "C"),
        (b"\x02", "A"), (b"\x02", "B"), (b"\x02", "C"), (b"\x02", "D")]


async def test_a_removal_shows_as_processed_beside_the_implicit_recipients(conn: asyncpg.Connection) -> None:
    await topic(conn, retention=3600)
    await publish(conn, b"\x01", b"\x02")
    assert await remove(conn, "A") == b"\x01"
    assert await view(conn) == [
        (b"\x01", "A", "PROCESSED"), (b"\x01", "B", "READY"), (b"\x01", "C", "READY"),
        (b"\x02", "A", "READY"), (b"\x02", "B", "READY"), (b"\x02", "C", "READY")]
    for c in ("B", "C"):
        assert await remove(conn, c) == b"\x01"
    # every recipient done: the message is processed, kept for its retention time
    assert [s for p, _, s in await view(conn) if p == b"\x01"] == ["PROCESSED"] * 3


async def test_without_retention_the_message_goes_with_its_last_recipient(conn: asyncpg.Connection) -> None:
    await topic(conn)
    await publish(conn, b"\x01")
    assert await remove(conn, "B") == b"\x01"
    # B's delivery is done, the message not yet (A and C have it still)
    assert await view(conn) == [(b"\x01", "A", "READY"), (b"\x01", "B", "PROCESSED"), (b"\x01", "C", "READY")]
    assert await remove(conn, "A") == b"\x01"
    assert await remove(conn, "C") == b"\x01"
    assert await view(conn) == []
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


# -- purge_queue_table ---------------------------------------------------------------------

@pytest.mark.parametrize("block", [False, True])
async def test_purge_of_one_subscriber_removes_its_implicit_deliveries_only(
        conn: asyncpg.Connection, block: bool) -> None:
    await topic(conn)
    await publish(conn, b"\x01", b"\x02")
    await conn.execute(PURGE, "qtview.consumer_name = 'B'", block)
    assert [(p, c) for p, c, _ in await view(conn)] == [
        (b"\x01", "A"), (b"\x01", "C"), (b"\x02", "A"), (b"\x02", "C")]
    assert await remove(conn, "B") is None
    assert await remove(conn, "A") == b"\x01"
    assert await remove(conn, "C") == b"\x01"
    # A and C were the last recipients of the first message: settled
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 1
    await conn.execute(PURGE, None, block)
    assert await view(conn) == []
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0
    assert await conn.fetchval("SELECT count(*) FROM s.aq$_qt_r") == 0


async def test_purging_the_pending_deliveries_settles_the_message(conn: asyncpg.Connection) -> None:
    await topic(conn, retention=3600)
    await publish(conn, b"\x01")
    assert await remove(conn, "A") == b"\x01"
    await conn.execute(PURGE, "qtview.msg_state = 'READY'", False)
    assert await conn.fetchval("SELECT state FROM s.qt") == 2
    assert await view(conn) == [(b"\x01", "A", "PROCESSED")]


async def test_purge_skips_a_message_an_implicit_dequeue_holds_and_block_waits_for_it(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    """As with rows: without block, a message being dequeued may be left (Oracle's purge
    without block); with block, the purge waits for the dequeue's transaction."""
    await topic(conn)
    await publish(conn, b"\x01", b"\x02")
    async with connected(db_dsn) as consumer, connected(db_dsn) as admin:
        s = Session(consumer)
        await s.begin()
        [m] = await s.dequeue("s.q", DequeueOptions(consumer_name="B", dequeue_mode="LOCKED"))
        assert m.payload == b"\x01"
        await asyncio.wait_for(admin.execute(PURGE, "qtview.consumer_name = 'A'", False), 5)
        assert [(p, c) for p, c, _ in await view(conn)] == [
            (b"\x01", "A"), (b"\x01", "B"), (b"\x01", "C"), (b"\x02", "B"), (b"\x02", "C")]
        pid = admin.get_server_pid()
        purge = asyncio.create_task(admin.execute(PURGE, "qtview.consumer_name = 'A'", True))
        # (it takes both tables at once or neither: it retries, sleeping in between)
        await until(lambda: conn.fetchval(
            "SELECT wait_event IN ('PgSleep', 'relation') FROM pg_stat_activity WHERE pid = $1", pid),
            "the purge to wait")
        assert not purge.done()
        await s.rollback()
        await asyncio.wait_for(purge, 5)
    assert [(p, c) for p, c, _ in await view(conn)] == [
        (b"\x01", "B"), (b"\x01", "C"), (b"\x02", "B"), (b"\x02", "C")]


# -- expiry --------------------------------------------------------------------------------

async def monitor_at(conn: asyncpg.Connection, seconds_ahead: float) -> int:
    return int(await conn.fetchval(
        "SELECT sum(m.done) FROM aq.queue_tables t,"
        " aq.monitor_table(t, clock_timestamp() + make_interval(secs => $1), 1000) m"
        " WHERE t.table_name = 'qt'", seconds_ahead))


async def test_expiry_moves_the_message_with_each_recipient_expired(conn: asyncpg.Connection) -> None:
    await topic(conn)
    [mid] = await publish(conn, b"\x01", expiration=5)
    await monitor_at(conn, 6)
    rows = await conn.fetch("SELECT queue, consumer_name, msg_state, expiration_reason FROM s.aq$qt"
                            " ORDER BY consumer_name")
    assert [tuple(r) for r in rows] == [("aq$_qt_e", c, "EXPIRED", "TIME_EXPIRATION") for c in ("A", "B", "C")]
    assert await conn.fetchval("SELECT array_agg(failure_reason ORDER BY consumer_name) FROM s.aq$_qt_r"
                               " WHERE msgid = $1", mid) == ["TIME_EXPIRATION"] * 3
    assert await remove(conn, "A") is None


async def test_expiry_waits_for_an_implicit_dequeue_holding_the_message(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    await topic(conn)
    [mid] = await publish(conn, b"\x01", expiration=5)
    async with connected(db_dsn) as consumer:
        s = Session(consumer)
        await s.begin()
        [m] = await s.dequeue("s.q", DequeueOptions(consumer_name="B", dequeue_mode="LOCKED"))
        assert bytes.fromhex(m.msgid) == mid
        await monitor_at(conn, 6)  # busy: left for a later pass
        assert {st for _, _, st in await view(conn)} == {"READY"}
        await s.rollback()
    await monitor_at(conn, 6)
    rows = await conn.fetch("SELECT consumer_name, msg_state FROM s.aq$qt ORDER BY consumer_name")
    assert [tuple(r) for r in rows] == [(c, "EXPIRED") for c in ("A", "B", "C")]


async def test_expiry_after_one_removal_expires_the_others(conn: asyncpg.Connection) -> None:
    await topic(conn, retention=3600)
    [mid] = await publish(conn, b"\x01", expiration=5)
    assert await remove(conn, "A") == b"\x01"
    await monitor_at(conn, 6)
    got = await conn.fetch("SELECT consumer_name, state, failure_reason FROM s.aq$_qt_r WHERE msgid = $1"
                           " ORDER BY consumer_name", mid)
    assert [tuple(r) for r in got] == [("A", 2, None), ("B", 3, "TIME_EXPIRATION"), ("C", 3, "TIME_EXPIRATION")]
    assert await conn.fetchval("SELECT q_name FROM s.qt WHERE msgid = $1", mid) == "aq$_qt_e"


async def test_a_delay_ends_for_the_implicit_recipients(conn: asyncpg.Connection) -> None:
    await topic(conn)
    await publish(conn, b"\x01", delay=30)
    assert await remove(conn, "A") is None
    await monitor_at(conn, 31)
    assert {s for _, _, s in await view(conn)} == {"READY"}
    assert await remove(conn, "A") == b"\x01"


# -- LISTEN and the wait's look ------------------------------------------------------------

LISTEN_FIRST = "SELECT aq.listen_first($1::sys.aq$_agent[])"


async def test_listen_finds_a_message_for_a_plain_subscriber(conn: asyncpg.Connection) -> None:
    await topic(conn)
    await make_queue(conn, "s.other", "s.ot", multiple=True)
    await subscribe(conn, "s.other", "B")
    agents = [("B", "s.other", None), ("B", "s.q", None)]
    assert await conn.fetchval(LISTEN_FIRST, agents) == 0
    await publish(conn, b"\x01")
    assert await conn.fetchval(LISTEN_FIRST, agents) == 2
    row = await conn.fetchrow("CALL dbms_aq.listen(agent_list => $1::sys.aq$_agent[], wait => 0)", agents)
    assert (row["agent"]["name"], row["agent"]["address"]) == ("B", "s.q")
    # B took it: nothing for B any more, A still has it
    assert await remove(conn, "B") == b"\x01"
    assert await conn.fetchval(LISTEN_FIRST, agents) == 0
    assert await conn.fetchval(LISTEN_FIRST, [("A", "s.q", None)]) == 1


async def test_a_waiting_listen_returns_when_a_plain_subscriber_gets_a_message(
        conn: asyncpg.Connection, waiter: asyncpg.Connection) -> None:
    await topic(conn)
    pid = waiter.get_server_pid()
    call = asyncio.create_task(waiter.fetchrow(
        "CALL dbms_aq.listen(agent_list => $1::sys.aq$_agent[], wait => 30)", [("C", "s.q", None)]))
    await asleep(conn, pid)
    await publish(conn, b"\x01")
    row = await asyncio.wait_for(call, 10)
    assert (row["agent"]["name"], row["agent"]["address"]) == ("C", "s.q")


async def test_a_waiting_dequeue_of_a_plain_subscriber_takes_what_is_published(
        conn: asyncpg.Connection, waiter: asyncpg.Connection) -> None:
    await topic(conn)
    pid = waiter.get_server_pid()
    call = asyncio.create_task(waiter.fetchrow(
        "CALL dbms_aq.dequeue('s.q', dbms_aq.dequeue_options(consumer_name => 'A', wait => 30),"
        " payload => NULL::bytea, msgid => NULL)"))
    await asleep(conn, pid)
    [mid] = await publish(conn, b"\x01")
    row = await asyncio.wait_for(call, 10)
    assert row["msgid"] == mid and bytes(row["payload"]) == b"\x01"


async def test_the_look_by_msgid_sees_an_implicit_recipient(conn: asyncpg.Connection) -> None:
    await topic(conn)
    [mid] = await publish(conn, b"\x01")
    [later] = await publish(conn, b"\x02", delay=3600)
    look = await conn.fetchval("SELECT aq.wait_look_sql(q, true) FROM aq.queue_info q"
                               " WHERE q.schema_name = 's' AND q.queue_name = 'q'")
    assert await conn.fetchval(look, "q", "B", mid) is True
    assert await conn.fetchval(look, "q", "B", later) is False  # WAIT
    assert await conn.fetchval(look, "q", "Z", mid) is False  # no such subscriber
    # a row of B's (its delivery purged) is the truth: nothing for B
    await conn.execute(PURGE, "qtview.consumer_name = 'B'", False)
    assert await conn.fetchval(look, "q", "B", mid) is False
    assert await conn.fetchval(look, "q", "A", mid) is True


# -- notifications ---------------------------------------------------------------------------

async def test_a_registration_of_a_plain_subscriber_is_notified(conn: asyncpg.Connection) -> None:
    await topic(conn)
    await conn.execute("CALL aq.allow_notification_host('127.0.0.0/8')")
    await conn.fetchval("SELECT aq.register('s.q', 'B', 'http://127.0.0.1:9/b')")
    [mid] = await publish(conn, b"\x01")
    got = await conn.fetch("SELECT consumer_name, msgid, event FROM aq.notifications")
    assert [tuple(r) for r in got] == [("B", mid, "MESSAGE")]


async def test_plain_and_rule_subscribers_are_notified_alike(conn: asyncpg.Connection) -> None:
    await topic(conn)
    await subscribe(conn, "s.q", "R", "priority > 0")  # a rule: a recipient row of its own
    await conn.execute("CALL aq.allow_notification_host('127.0.0.0/8')")
    for name in ("A", "R", "NOBODY"):
        await conn.fetchval("SELECT aq.register('s.q', $1, 'http://127.0.0.1:9/x')", name)
    [mid] = await publish(conn, b"\x01")
    # a message sent to C alone (a recipient list) notifies nobody registered
    await conn.execute("CALL dbms_aq.enqueue('s.q', NULL, dbms_aq.message_properties(recipient_list =>"
                       " ARRAY[sys.aq$_agent('C', NULL, NULL)]), '\\x02'::bytea, NULL)")
    got = await conn.fetch("SELECT consumer_name, msgid FROM aq.notifications ORDER BY consumer_name")
    assert [tuple(r) for r in got] == [("A", mid), ("R", mid)]


# -- failed attempts -----------------------------------------------------------------------

async def test_rolled_back_attempts_count_for_that_subscriber_only(conn: asyncpg.Connection) -> None:
    await topic(conn, max_retries=1)
    [mid] = await publish(conn, b"\x01")
    for _ in range(2):  # max_retries + 1 failed attempts: REMOVE dequeues rolled back
        tx = conn.transaction()
        await tx.start()
        row = await conn.fetchrow(DEQ, "B", "REMOVE")
        assert bytes(row["payload"]) == b"\x01"
        await tx.rollback()
        await conn.fetchval("SELECT aq.settle_pending_attempts()")  # the monitor's part
    got = await conn.fetch("SELECT consumer_name, msg_state, retry_count FROM s.aq$qt ORDER BY consumer_name")
    assert [tuple(r) for r in got] == [("A", "READY", 0), ("B", "EXPIRED", 2), ("C", "READY", 0)]
    assert await remove(conn, "B") is None
    assert await remove(conn, "A") == b"\x01"
    assert await remove(conn, "C") == b"\x01"
    # B never took it: the message goes to the exception queue
    assert await conn.fetchval("SELECT q_name FROM s.qt WHERE msgid = $1", mid) == "aq$_qt_e"
    assert await conn.fetchval("SELECT expiration_reason FROM s.qt WHERE msgid = $1", mid) == "MAX_RETRY_EXCEEDED"


async def test_a_reported_failed_attempt_counts_on_an_implicit_recipient(conn: asyncpg.Connection) -> None:
    """A client that rolled back reports its attempts (aq.record_failed_attempts)."""
    await topic(conn, max_retries=3)
    [mid] = await publish(conn, b"\x01")
    assert await conn.fetchval("SELECT aq.record_failed_attempts('s.q', 'C', $1)", [mid]) == 1
    assert await conn.fetchval("SELECT retry_count FROM s.aq$qt WHERE consumer_name = 'C'") == 1
    assert await conn.fetchval("SELECT max(retry_count) FROM s.aq$qt WHERE consumer_name <> 'C'") == 0
    assert await remove(conn, "C") == b"\x01"



async def test_a_reported_attempt_waits_for_a_purge_holding_the_message(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    """The purge holds the message row, then writes the implicit recipients' rows; a failed
    attempt reported meanwhile waits for it before writing its own (written first, the two
    waited for each other: a deadlock)."""
    await topic(conn)
    [mid] = await publish(conn, b"\x01")
    async with connected(db_dsn) as admin, connected(db_dsn) as client:
        tx = admin.transaction()
        await tx.start()
        await admin.execute("SELECT 1 FROM s.qt WHERE msgid = $1 FOR UPDATE", mid)  # as the purge's batch
        pid = client.get_server_pid()
        report = asyncio.create_task(client.fetchval("SELECT aq.record_failed_attempts('s.q', 'C', $1)", [mid]))
        await until(lambda: conn.fetchval(
            "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = $1", pid), "the report to wait")
        await asyncio.wait_for(admin.execute(PURGE, "qtview.consumer_name = 'A'", False), 5)
        await tx.commit()
        assert await asyncio.wait_for(report, 5) == 1
    rows = await conn.fetch("SELECT consumer_name, retry_count FROM s.aq$qt ORDER BY consumer_name")
    assert [tuple(r) for r in rows] == [("B", 0), ("C", 1)]


async def test_a_retry_delay_holds_back_that_subscriber_only(conn: asyncpg.Connection) -> None:
    await topic(conn, retry_delay=60)
    [mid] = await publish(conn, b"\x01")
    assert await conn.fetchval("SELECT aq.record_failed_attempts('s.q', 'B', $1)", [mid]) == 1
    assert await view(conn) == [(b"\x01", "A", "READY"), (b"\x01", "B", "WAIT"), (b"\x01", "C", "READY")]
    assert await remove(conn, "B") is None
    await monitor_at(conn, 61)
    assert await view(conn) == [(b"\x01", c, "READY") for c in ("A", "B", "C")]
    assert await remove(conn, "B") == b"\x01"
