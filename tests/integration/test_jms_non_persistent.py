"""NON_PERSISTENT messages under JMS's transaction and acknowledgement contract (issue 32,
items 1 and 2), as the Oracle JMS guide says in "Buffered Messaging with Oracle JMS":

- "Transaction Commits and Client Acknowledgments": sent and received by a transacted
  session, "the effect of the JMS operation is only visible after the transacted session
  commits"; received with CLIENT_ACKNOWLEDGE, "Without the acknowledgment, the message is
  not removed and will be redelivered if the client calls Session.recover."
- "Transactions Support": "Both persistent and buffered messages within an Oracle JMS
  transaction are committed or rolled back atomically"; "An buffered enqueue operation in a
  transaction is visible only to the owner transaction before the transaction is committed."

pgaq keeps them off the WAL (the queue table's UNLOGGED companion) while they keep all of
this; dbms_aq's BUFFERED messages keep Oracle's IMMEDIATE-only rule (tests/integration/
test_buffered.py).
"""

from __future__ import annotations

import asyncio

import asyncpg
import pgaq.jms as jms
import pytest

from .helpers import make_queue
from .waiting import until

COMPANION = 'shop."aq$_orders_t_b"'


async def orders(conn: asyncpg.Connection, **kw: object) -> None:
    await make_queue(conn, "shop.orders_q", "shop.orders_t", "SYS.AQ$_JMS_TEXT_MESSAGE", **kw)  # type: ignore[arg-type]


async def buffered_rows(conn: asyncpg.Connection) -> int:
    n: int = await conn.fetchval(f"SELECT count(*) FROM {COMPANION} WHERE q_name = 'orders_q'")
    return n


async def persistent_rows(conn: asyncpg.Connection) -> int:
    n: int = await conn.fetchval("SELECT count(*) FROM shop.orders_t WHERE q_name = 'orders_q'")
    return n


async def send_np(connection: jms.Connection, *texts: str) -> None:
    s = connection.create_session()
    p = s.create_producer(s.get_queue("shop", "orders_q"))
    p.set_delivery_mode(jms.NON_PERSISTENT)
    for t in texts:
        await p.send(s.create_text_message(t))
    await s.close()


def text(m: jms.Message | None) -> str | None:
    assert m is None or isinstance(m, jms.TextMessage)
    return None if m is None else m.text


async def test_non_persistent_messages_are_kept_off_the_wal(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await orders(conn)
    await send_np(connection, "np")
    assert await buffered_rows(conn) == 1 and await persistent_rows(conn) == 0
    persistence = await conn.fetchval(f"SELECT relpersistence::text FROM pg_class WHERE oid = '{COMPANION}'::regclass")
    assert persistence == "u"  # UNLOGGED: no WAL, gone after a crash, as JMS allows


async def test_client_acknowledge_recover_redelivers_a_non_persistent_message(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await orders(conn)
    await send_np(connection, "np")
    s = connection.create_session(False, jms.CLIENT_ACKNOWLEDGE)
    c = await s.create_consumer(s.get_queue("shop", "orders_q"))
    await connection.start()
    first = await c.receive(1.0)
    assert text(first) == "np" and first is not None
    assert first.jms_delivery_mode == jms.NON_PERSISTENT and not first.jms_redelivered
    assert await buffered_rows(conn) == 1  # not removed without the acknowledgement
    await s.recover()
    again = await c.receive(1.0)
    assert text(again) == "np" and again is not None
    assert again.jms_redelivered and again.get_int_property("JMSXDeliveryCount") == 2
    assert again.jms_message_id == first.jms_message_id
    await again.acknowledge()
    await s.close()
    assert await buffered_rows(conn) == 0


async def _none_left(conn: asyncpg.Connection) -> bool:
    return await buffered_rows(conn) == 0


async def test_client_acknowledge_acknowledges_persistent_and_non_persistent_together(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await orders(conn)
    await send_np(connection, "np")
    s0 = connection.create_session()
    await s0.create_producer(s0.get_queue("shop", "orders_q")).send(s0.create_text_message("p"))
    s = connection.create_session(False, jms.CLIENT_ACKNOWLEDGE)
    c = await s.create_consumer(s.get_queue("shop", "orders_q"))
    await connection.start()
    got = {text(await c.receive(1.0)), text(await c.receive(1.0))}
    assert got == {"np", "p"}
    await s.acknowledge()
    assert await buffered_rows(conn) == 0 and await persistent_rows(conn) == 0
    assert await c.receive_no_wait() is None


async def test_transacted_receive_of_a_non_persistent_message_rolls_back(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await orders(conn)
    await send_np(connection, "np")
    s = connection.create_session(True)
    c = await s.create_consumer(s.get_queue("shop", "orders_q"))
    await connection.start()
    assert text(await c.receive(1.0)) == "np"
    await s.rollback()
    again = await c.receive(1.0)
    assert text(again) == "np" and again is not None and again.jms_redelivered
    assert again.get_int_property("JMSXDeliveryCount") == 2
    assert await buffered_rows(conn) == 1  # the receive is visible only after the commit
    await s.commit()
    assert await buffered_rows(conn) == 0
    await s.rollback()  # nothing open: the committed receive stays
    assert await c.receive_no_wait() is None


async def test_transacted_send_of_non_persistent_has_its_id_and_waits_for_the_commit(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await orders(conn)
    s = connection.create_session(True)
    q = s.get_queue("shop", "orders_q")
    p = s.create_producer(q)
    m = s.create_text_message("np")
    await p.send(m, delivery_mode=jms.NON_PERSISTENT)
    assert m.jms_message_id is not None and m.jms_message_id.startswith("ID:")
    reader = connection.create_session()
    c = await reader.create_consumer(q)
    await connection.start()
    assert await c.receive_no_wait() is None and await buffered_rows(conn) == 0
    await s.commit()
    got = await c.receive(1.0)
    assert text(got) == "np" and got is not None
    assert got.jms_message_id == m.jms_message_id
    assert got.jms_delivery_mode == jms.NON_PERSISTENT


async def test_persistent_and_non_persistent_sends_commit_or_roll_back_together(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await orders(conn)
    s = connection.create_session(True)
    p = s.create_producer(s.get_queue("shop", "orders_q"))
    await p.send(s.create_text_message("p1"))
    await p.send(s.create_text_message("np1"), delivery_mode=jms.NON_PERSISTENT)
    await s.rollback()
    assert await persistent_rows(conn) == 0 and await buffered_rows(conn) == 0
    await p.send(s.create_text_message("np2"), delivery_mode=jms.NON_PERSISTENT)
    await p.send(s.create_text_message("p2"))
    await s.commit()
    assert await persistent_rows(conn) == 1 and await buffered_rows(conn) == 1


async def test_a_failed_persistent_send_does_not_leave_the_non_persistent_ones_committed(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    """Atomicity also when the transaction dies: the database connection killed before the
    commit takes both kinds with it, and commit() says the transaction rolled back."""
    await orders(conn)
    s = connection.create_session(True)
    p = s.create_producer(s.get_queue("shop", "orders_q"))
    await p.send(s.create_text_message("np"), delivery_mode=jms.NON_PERSISTENT)
    await p.send(s.create_text_message("p"))
    db = await s.get_db_connection()
    pid = db.get_server_pid()
    await conn.execute("SELECT pg_terminate_backend($1)", pid)
    with pytest.raises(jms.TransactionRolledBackException):
        await s.commit()
    assert await persistent_rows(conn) == 0 and await buffered_rows(conn) == 0


async def test_the_owner_transaction_sees_its_non_persistent_send(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    """ "visible only to the owner transaction before the transaction is committed": SQL
    run on the session's own connection (getDBConnection) sees it, others do not."""
    await orders(conn)
    s = connection.create_session(True)
    p = s.create_producer(s.get_queue("shop", "orders_q"))
    m = s.create_text_message("np")
    await p.send(m, delivery_mode=jms.NON_PERSISTENT)
    own = await s.get_db_connection()
    assert m.jms_message_id is not None
    mine = await own.fetchval(f"SELECT count(*) FROM {COMPANION} WHERE msgid = $1",
                              bytes.fromhex(m.jms_message_id[3:]))
    assert mine == 1 and await buffered_rows(conn) == 0
    await s.commit()
    assert await buffered_rows(conn) == 1


async def test_a_listener_that_raises_gets_the_non_persistent_message_again(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await orders(conn)
    await send_np(connection, "np")
    s = connection.create_session(False, jms.AUTO_ACKNOWLEDGE)
    c = await s.create_consumer(s.get_queue("shop", "orders_q"))
    seen: list[tuple[str | None, bool]] = []
    done = asyncio.Event()

    def on_message(m: jms.Message) -> None:
        seen.append((text(m), m.jms_redelivered))
        if len(seen) == 1:
            raise RuntimeError("the first delivery fails")
        done.set()

    c.set_message_listener(on_message)
    await connection.start()
    await asyncio.wait_for(done.wait(), 10)
    assert seen == [("np", False), ("np", True)]
    await until(lambda: _none_left(conn), "the message removed after the listener returned")


async def test_non_persistent_past_max_retries_goes_to_the_exception_queue(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    """As a persistent message does (the Oracle JMS guide, "Exception Queues"): moved there
    as a persistent message, as an expired buffered message is."""
    await orders(conn, max_retries=1)
    await send_np(connection, "np")
    s = connection.create_session(True)
    c = await s.create_consumer(s.get_queue("shop", "orders_q"))
    await connection.start()
    for _ in range(2):  # the delivery and its one retry
        assert text(await c.receive(1.0)) == "np"
        await s.rollback()
    assert await c.receive_no_wait() is None
    await conn.fetchval("SELECT done FROM aq.monitor_pass(1000)")
    row = await conn.fetchrow(
        "SELECT q_name, delivery_mode, expiration_reason FROM shop.orders_t WHERE q_name <> 'orders_q'")
    assert row is not None
    assert row["q_name"] == "aq$_orders_t_e" and row["expiration_reason"] == "MAX_RETRY_EXCEEDED"
    assert row["delivery_mode"] == "PERSISTENT" and await buffered_rows(conn) == 0

