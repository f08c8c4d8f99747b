"""Sessions do not each pin a database connection (issue 32, item 8): a Spring listener
container opens dozens of sessions per login, most of them waiting. A session holds a
pooled connection while it works or holds a transaction (something sent, received and not
yet acknowledged, locked); one that waits gives it back. `max_pool_size` then bounds the
sessions working at once, not the sessions open."""

from __future__ import annotations

import asyncio

import asyncpg
import pgaq.jms as jms
import pytest

from .helpers import make_queue

SESSIONS = 30
POOL = 4


async def orders(conn: asyncpg.Connection) -> None:
    await make_queue(conn, "shop.orders_q", "shop.orders_t", "SYS.AQ$_JMS_TEXT_MESSAGE")


async def test_many_waiting_sessions_share_a_small_pool(conn: asyncpg.Connection, db_dsn: str) -> None:
    await orders(conn)
    factory = jms.ConnectionFactory(db_dsn, max_pool_size=POOL, acquire_timeout=10.0)
    connection = await factory.create_connection()
    try:
        got: asyncio.Queue[str] = asyncio.Queue()
        sessions = []
        for i in range(SESSIONS):
            mode = (jms.AUTO_ACKNOWLEDGE, jms.CLIENT_ACKNOWLEDGE, jms.DUPS_OK_ACKNOWLEDGE)[i % 3]
            s = connection.create_session(i % 4 == 3, mode)
            sessions.append(s)
            c = await s.create_consumer(s.get_queue("shop", "orders_q"))

            async def on_message(m: jms.Message, s: jms.Session = s) -> None:
                assert isinstance(m, jms.TextMessage) and m.text is not None
                if s.get_transacted():
                    await s.commit()
                elif s.get_acknowledge_mode() == jms.CLIENT_ACKNOWLEDGE:
                    await m.acknowledge()
                got.put_nowait(m.text)

            c.set_message_listener(on_message)
        await connection.start()
        sender = connection.create_session()
        p = sender.create_producer(sender.get_queue("shop", "orders_q"))
        sent = {f"m{i}" for i in range(3 * SESSIONS)}
        for t in sorted(sent):
            await p.send(sender.create_text_message(t))
        received = {await asyncio.wait_for(got.get(), 20) for _ in sent}
        assert received == sent
        # nothing is left behind, and once idle the listeners hold no connection
        assert await conn.fetchval("SELECT count(*) FROM shop.orders_t WHERE q_name = 'orders_q'") == 0
    finally:
        await connection.close()


@pytest.mark.parametrize("mode", [jms.AUTO_ACKNOWLEDGE, jms.SESSION_TRANSACTED])
async def test_more_sessions_than_connections_wait_in_receive_at_once(
        conn: asyncpg.Connection, db_dsn: str, mode: int) -> None:
    """SESSIONS sessions block in receive() at once on a pool of POOL connections while
    the messages are sent; each gets one (before, the fifth session's look failed with
    JMS-221: the first four kept their connections while waiting)."""
    await orders(conn)
    factory = jms.ConnectionFactory(db_dsn, max_pool_size=POOL, acquire_timeout=10.0)
    connection = await factory.create_connection()
    try:
        sessions = [connection.create_session(mode == jms.SESSION_TRANSACTED, mode)
                    for _ in range(SESSIONS)]
        consumers = [await s.create_consumer(s.get_queue("shop", "orders_q")) for s in sessions]
        await connection.start()
        async def one(s: jms.Session, c: jms.MessageConsumer) -> jms.Message | None:
            m = await c.receive(20.0)
            if s.get_transacted():
                await s.commit()  # as a listener container does after each message
            return m

        waiting = [asyncio.ensure_future(one(s, c)) for s, c in zip(sessions, consumers, strict=True)]
        sender = connection.create_session()
        p = sender.create_producer(sender.get_queue("shop", "orders_q"))
        for i in range(SESSIONS):
            await p.send(sender.create_text_message(f"m{i}"))
        got = await asyncio.gather(*waiting)
        assert sorted(m.text for m in got if isinstance(m, jms.TextMessage) and m.text is not None) == \
            sorted(f"m{i}" for i in range(SESSIONS))
        assert await conn.fetchval("SELECT count(*) FROM shop.orders_t WHERE q_name = 'orders_q'") == 0
    finally:
        await connection.close()


async def test_a_session_holding_a_transaction_keeps_its_connection(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    """Unacknowledged messages stay with their session while it waits for more: another
    session cannot take them, and recover() gives them back."""
    await orders(conn)
    factory = jms.ConnectionFactory(db_dsn, max_pool_size=POOL, acquire_timeout=10.0)
    connection = await factory.create_connection()
    try:
        s0 = connection.create_session()
        p = s0.create_producer(s0.get_queue("shop", "orders_q"))
        await p.send(s0.create_text_message("held"))
        s = connection.create_session(False, jms.CLIENT_ACKNOWLEDGE)
        c = await s.create_consumer(s.get_queue("shop", "orders_q"))
        await connection.start()
        first = await c.receive(1.0)
        assert first is not None
        assert await c.receive(0.2) is None  # waited (with nothing to take) holding it
        other = connection.create_session()
        oc = await other.create_consumer(other.get_queue("shop", "orders_q"))
        assert await oc.receive_no_wait() is None  # still held by s's transaction
        await s.recover()
        again = await oc.receive(1.0)
        assert again is not None and again.jms_message_id == first.jms_message_id
    finally:
        await connection.close()


async def test_get_db_connection_is_the_sessions_for_good(conn: asyncpg.Connection, db_dsn: str) -> None:
    await orders(conn)
    factory = jms.ConnectionFactory(db_dsn, max_pool_size=POOL, acquire_timeout=10.0)
    connection = await factory.create_connection()
    try:
        s = connection.create_session()
        db = await s.get_db_connection()
        pid = db.get_server_pid()
        c = await s.create_consumer(s.get_queue("shop", "orders_q"))
        await connection.start()
        assert await c.receive(0.1) is None  # a wait: the connection is not given back
        assert (await s.get_db_connection()).get_server_pid() == pid
        assert await db.fetchval("SELECT 1") == 1
    finally:
        await connection.close()


@pytest.mark.parametrize("transacted", [False, True])
async def test_a_session_that_waited_keeps_its_place_in_a_group(
        conn: asyncpg.Connection, db_dsn: str, transacted: bool) -> None:
    """Giving the connection back between looks loses nothing the session navigates by."""
    await make_queue(conn, "shop.gq", "shop.gt", "SYS.AQ$_JMS_TEXT_MESSAGE", grouping="TRANSACTIONAL")
    factory = jms.ConnectionFactory(db_dsn, max_pool_size=POOL, acquire_timeout=10.0)
    connection = await factory.create_connection()
    try:
        s = connection.create_session(transacted, jms.AUTO_ACKNOWLEDGE)
        c = await s.create_consumer(s.get_queue("shop", "gq"))
        await connection.start()
        assert await c.receive(0.05) is None
        w = connection.create_session(True)
        p = w.create_producer(w.get_queue("shop", "gq"))
        for t in ("a1", "a2"):
            await p.send(w.create_text_message(t))
        await w.commit()
        texts = []
        for _ in range(2):
            m = await c.receive(1.0)
            assert isinstance(m, jms.TextMessage)
            texts.append(m.text)
        if transacted:
            await s.commit()
        assert texts == ["a1", "a2"]
    finally:
        await connection.close()
