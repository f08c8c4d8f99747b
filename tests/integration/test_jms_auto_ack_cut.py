"""AUTO_ACKNOWLEDGE never loses a PERSISTENT message when the database connection dies while
a receive is being settled (issue 34, JMS 1.1 4.4.13: the last message may come again, it
may not be lost). A proxy (chaos/wirecut.py) cuts the session's connection at one message
of the server's reply: after the COMMIT was done (a failover after the synchronous standby
acknowledged it), after the REMOVE's rows but before any COMMIT, or before the rows. Each
time the message is returned by that receive or received again later, never neither, and
the duplicates are counted: only a COMMIT the server never did makes one, flagged
JMSRedelivered.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import asyncpg
import pgaq.jms as jms
import pytest
from pgaq.embedded import Cluster

from chaos.wirecut import (
    COMMIT_DONE,
    COMMIT_LOST,
    COMMITTED,
    ROWS,
    ROWS_IN_TRANSACTION,
    Cut,
    ReplyCut,
)

from .helpers import make_queue
from .waiting import until

QUEUE = ("cut", "orders_q")


@pytest.fixture
async def proxy(cluster: Cluster) -> AsyncIterator[ReplyCut]:
    p = ReplyCut(cluster.port)
    await p.start()
    try:
        yield p
    finally:
        await p.stop()




async def setup(conn: asyncpg.Connection, db_dsn: str, *texts: str) -> None:
    await conn.execute("CREATE SCHEMA cut")
    await make_queue(conn, "cut.orders_q", "cut.orders_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    await send(db_dsn, *texts)


async def send(db_dsn: str, *texts: str) -> None:
    sender = await jms.ConnectionFactory(db_dsn).create_connection()  # not through the proxy
    try:
        s = sender.create_session()
        p = s.create_producer(s.get_queue(*QUEUE))
        for t in texts:
            await p.send(s.create_text_message(t))
    finally:
        await sender.close()


async def left(conn: asyncpg.Connection) -> int:
    return int(await conn.fetchval("SELECT count(*) FROM cut.orders_t"))


async def cut_backends_gone(conn: asyncpg.Connection, proxy: ReplyCut) -> None:
    """The backend whose client the proxy cut has ended its transaction (committed, or
    rolled back as it found its client gone): no other backend is in one."""
    await proxy.fired.wait()
    await until(lambda: conn.fetchval(
        "SELECT count(*) = 0 FROM pg_stat_activity WHERE datname = current_database()"
        " AND pid <> pg_backend_pid() AND xact_start IS NOT NULL"),
        "the cut backend's transaction to end")


def text(m: jms.Message | None) -> str | None:
    assert m is None or isinstance(m, jms.TextMessage)
    return None if m is None else m.text


@pytest.mark.parametrize(("cut", "returned", "again"), [
    (COMMITTED, True, False),  # the server committed: returned now, gone for good
    (COMMIT_DONE, True, False),
    (COMMIT_LOST, True, True),  # the COMMIT never reached the server: a duplicate later
    (ROWS_IN_TRANSACTION, False, True),  # the REMOVE's reply cut short: nothing taken
    (ROWS, False, True),
], ids=["committed", "commit-tag", "commit-lost", "rows-not-ready", "no-rows"])
async def test_auto_ack_receive_cut_while_settling_loses_nothing(
        conn: asyncpg.Connection, db_dsn: str, proxy: ReplyCut, cut: Cut, returned: bool,
        again: bool) -> None:
    await setup(conn, db_dsn, "warm-up", "precious")
    told: list[jms.JMSException] = []
    connection = await jms.ConnectionFactory(proxy.route(db_dsn),
                                             safety_poll=60.0).create_connection()
    try:
        connection.set_exception_listener(told.append)
        session = connection.create_session(False, jms.AUTO_ACKNOWLEDGE)
        consumer = await session.create_consumer(session.get_queue(*QUEUE))
        await connection.start()
        assert text(await consumer.receive_no_wait()) == "warm-up"  # statements prepared
        proxy.arm(replace(cut, row=b"precious"))
        seen: list[jms.Message] = []
        try:
            m = await consumer.receive_no_wait()
            assert m is not None
            seen.append(m)
        except jms.JMSException as exc:
            assert not returned, exc
        assert proxy.fired.is_set()
        assert bool(seen) == returned
        await cut_backends_gone(conn, proxy)
        while (m := await consumer.receive_no_wait()) is not None:
            seen.append(m)
        # never neither; a duplicate only where the server did not commit
        assert [text(m) for m in seen] == ["precious"] * (int(returned) + int(again))
        assert len({m.jms_message_id for m in seen}) == 1
        assert [m.jms_redelivered for m in seen] == [False] + [True] * (len(seen) - 1)
        assert await left(conn) == 0
        assert told  # the lost connection was reported
    finally:
        await connection.close()


async def test_auto_ack_listener_commit_cut_after_it_returned_loses_nothing(
        conn: asyncpg.Connection, db_dsn: str, proxy: ReplyCut) -> None:
    """The COMMIT after the listener returned is done by the server but its answer is lost:
    the listener had the message once, it does not come again, delivery goes on."""
    await setup(conn, db_dsn, "first", "second")
    connection = await jms.ConnectionFactory(proxy.route(db_dsn),
                                             safety_poll=60.0).create_connection()
    got: list[str | None] = []
    try:
        connection.set_exception_listener(lambda _e: None)
        session = connection.create_session(False, jms.AUTO_ACKNOWLEDGE)
        consumer = await session.create_consumer(session.get_queue(*QUEUE))
        proxy.arm(replace(COMMIT_DONE, row=b"first"))
        consumer.set_message_listener(lambda m: got.append(text(m)))
        await connection.start()
        await until(lambda: len(got) >= 2, "both messages delivered")
        assert proxy.fired.is_set()
        await connection.stop()
        assert got == ["first", "second"]
        assert await left(conn) == 0
    finally:
        await connection.close()


async def test_auto_ack_listener_commit_that_never_arrived_redelivers_flagged(
        conn: asyncpg.Connection, db_dsn: str, proxy: ReplyCut) -> None:
    """The COMMIT after the listener returned never reaches the server: the message comes
    again, JMSRedelivered (the duplicate AUTO_ACKNOWLEDGE allows), and delivery goes on."""
    await setup(conn, db_dsn, "warm-up")
    # the rolled-back message sends no NOTIFY: the poll finds it once the cut backend is gone
    connection = await jms.ConnectionFactory(proxy.route(db_dsn),
                                             safety_poll=0.2).create_connection()
    got: list[tuple[str | None, bool]] = []
    try:
        connection.set_exception_listener(lambda _e: None)
        session = connection.create_session(False, jms.AUTO_ACKNOWLEDGE)
        consumer = await session.create_consumer(session.get_queue(*QUEUE))
        consumer.set_message_listener(lambda m: got.append((text(m), m.jms_redelivered)))
        await connection.start()
        await until(lambda: len(got) == 1, "the warm-up message delivered")
        proxy.arm(replace(COMMIT_LOST, row=b"first"))
        await send(db_dsn, "first", "second")
        try:
            await until(lambda: len(got) >= 4, "the messages delivered")
        except AssertionError as exc:
            raise AssertionError(f"{exc}: {got}") from exc
        assert proxy.fired.is_set()
        await connection.stop()
        assert sorted(got[1:]) == [("first", False), ("first", True), ("second", False)]
        assert await left(conn) == 0
    finally:
        await connection.close()
