"""A transacted session that takes several messages per transaction (pgaq.jms locks them
ahead, AQ's LOCKED mode, and its commit removes them together): JMS 1.1's transaction
contract must hold exactly as when each receive removed its message: every message
received in a committed transaction is gone, exactly once; a rolled-back one comes again
flagged redelivered with JMSXDeliveryCount + 1; nothing is lost, nothing is seen twice by
one transaction, whatever the mix of receives, receives by id, commits and rollbacks."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import asyncpg
import pgaq.jms as jms
import pytest

from .helpers import make_queue


@pytest.fixture
async def factory(db_dsn: str) -> AsyncIterator[jms.ConnectionFactory]:
    yield jms.ConnectionFactory(db_dsn, safety_poll=30.0, transacted_prefetch=8)


async def setup(conn: asyncpg.Connection, factory: jms.ConnectionFactory, n: int,
                **kw: object) -> list[str]:
    await make_queue(conn, "shop.orders_q", "shop.orders_t", "SYS.AQ$_JMS_TEXT_MESSAGE", **kw)  # type: ignore[arg-type]
    c = await factory.create_connection()
    s = c.create_session()
    p = s.create_producer(s.get_queue("shop", "orders_q"))
    ids = []
    for i in range(n):
        m = s.create_text_message(f"m{i}")
        await p.send(m)
        assert m.jms_message_id is not None
        ids.append(m.jms_message_id)
    await c.close()
    return ids


async def left(conn: asyncpg.Connection) -> set[str]:
    got = await conn.fetch("SELECT encode(msgid, 'hex') AS id FROM shop.orders_t WHERE q_name = 'orders_q'")
    return {"ID:" + r["id"].upper() for r in got}


def text(m: jms.Message | None) -> str:
    assert isinstance(m, jms.TextMessage) and m.text is not None
    return m.text


async def test_commits_of_several_messages_remove_each_once(conn: asyncpg.Connection,
                                                            factory: jms.ConnectionFactory) -> None:
    ids = await setup(conn, factory, 40)
    c = await factory.create_connection()
    await c.start()
    s = c.create_session(transacted=True)
    consumer = await s.create_consumer(s.get_queue("shop", "orders_q"))
    seen: list[str] = []
    for per_tx in (5, 5, 3, 7, 1, 2, 8, 9):  # later transactions lock ahead by the earlier ones
        for _ in range(per_tx):
            m = await consumer.receive_no_wait()
            assert m is not None and not m.jms_redelivered
            seen.append(text(m))
        await s.commit()
        assert len(await left(conn)) == 40 - len(seen)  # what the commit took is gone, no more
    assert seen == [f"m{i}" for i in range(40)]  # FIFO, none twice
    assert await consumer.receive_no_wait() is None
    await c.close()
    assert not await left(conn) and ids


async def test_rolled_back_messages_come_again_redelivered(conn: asyncpg.Connection,
                                                          factory: jms.ConnectionFactory) -> None:
    await setup(conn, factory, 12, max_retries=1)
    c = await factory.create_connection()
    await c.start()
    s = c.create_session(transacted=True)
    consumer = await s.create_consumer(s.get_queue("shop", "orders_q"))
    for _ in range(4):  # a transaction of 4 teaches the session to lock 4 ahead
        await consumer.receive_no_wait()
    await s.commit()
    first = [await consumer.receive_no_wait() for _ in range(2)]  # 2 of 4 locked handed out
    assert [text(m) for m in first] == ["m4", "m5"]
    await s.rollback()
    again = [await consumer.receive_no_wait() for _ in range(3)]
    assert [text(m) for m in again] == ["m4", "m5", "m6"]
    assert [m.jms_redelivered for m in again if m] == [True, True, False]
    assert [m.get_int_property("JMSXDeliveryCount") for m in again if m] == [2, 2, 1]
    await s.rollback()  # m4 and m5 failed twice: past max_retries 1, to the exception queue
    rest = []
    while (m := await consumer.receive_no_wait()) is not None:
        rest.append(text(m))
    await s.commit()
    assert rest == [f"m{i}" for i in range(6, 12)]
    exq = await conn.fetchval("SELECT queue_name FROM aq.queue_info WHERE queue_type = 'EXCEPTION_QUEUE'")
    moved = await conn.fetchval("SELECT count(*) FROM shop.orders_t WHERE q_name = $1", exq)
    assert moved == 2
    await c.close()


@pytest.mark.parametrize("seed", range(6))
async def test_any_mix_against_a_model(conn: asyncpg.Connection, factory: jms.ConnectionFactory,
                                       seed: int) -> None:
    """Random receives, receives by id, commits and rollbacks on two transacted sessions,
    checked against a model: the messages a session's open transaction has, those
    committed, and those still in the queue."""
    rnd = random.Random(seed)
    ids = await setup(conn, factory, 30)
    c = await factory.create_connection()
    await c.start()
    sessions = [c.create_session(transacted=True) for _ in range(2)]
    consumers = [await s.create_consumer(s.get_queue("shop", "orders_q")) for s in sessions]
    open_tx: list[list[str]] = [[], []]
    done: list[str] = []
    for _ in range(120):
        k = rnd.randrange(2)
        s, consumer, mine = sessions[k], consumers[k], open_tx[k]
        op = rnd.choices(["receive", "by_id", "commit", "rollback"], [8, 1, 2, 1])[0]
        if op == "receive":
            m = await consumer.receive_no_wait()
            if m is not None:
                mid = m.jms_message_id
                assert mid is not None
                assert mid not in mine and mid not in open_tx[1 - k] and mid not in done
                mine.append(mid)
            else:  # none: every message is done or taken, or locked ahead by the other one
                free = set(ids) - set(done) - set(open_tx[0]) - set(open_tx[1])
                assert not free or open_tx[1 - k]
        elif op == "by_id":
            free = {i for i in ids if i not in done and i not in open_tx[0] and i not in open_tx[1]}
            want = rnd.choice(ids)
            m = await consumer.receive_by_message_id(want, 0)
            if m is not None:
                assert m.jms_message_id == want and want in free
                mine.append(want)
            else:
                assert want not in free or open_tx[1 - k]
        elif op == "commit":
            await s.commit()
            done.extend(mine)
            mine.clear()
            assert await left(conn) == set(ids) - set(done)
        else:
            await s.rollback()
            mine.clear()
    for s, mine in zip(sessions, open_tx, strict=True):
        await s.commit()
        done.extend(mine)
    assert await left(conn) == set(ids) - set(done)
    while (m := await consumers[0].receive_no_wait()) is not None:
        assert m.jms_message_id is not None
        done.append(m.jms_message_id)
    await sessions[0].commit()
    assert sorted(done) == sorted(ids)  # none lost, none twice
    assert not await left(conn)
    await c.close()


@pytest.mark.parametrize("kind", ["retained", "topic"])
async def test_other_queue_kinds_remove_at_commit(conn: asyncpg.Connection,
                                                  factory: jms.ConnectionFactory, kind: str) -> None:
    """A queue that keeps processed messages (retention) and a durable subscriber of a
    topic (a multi-consumer queue): their commits remove through aq.remove_held, with the
    same contract."""
    topic = kind == "topic"
    await make_queue(conn, "shop.orders_q", "shop.orders_t", "SYS.AQ$_JMS_TEXT_MESSAGE",
                     multiple=topic, retention=0 if topic else 3600)
    c = await factory.create_connection()
    await c.start()
    s = c.create_session(transacted=True)
    dest = s.get_topic("shop", "orders_q") if topic else s.get_queue("shop", "orders_q")
    consumer = await (s.create_durable_subscriber(dest, "AUDIT") if topic  # type: ignore[arg-type]
                      else s.create_consumer(dest))
    p = s.create_producer(dest)
    for i in range(30):
        await p.send(s.create_text_message(f"m{i}"))
    await s.commit()
    seen: list[str] = []
    for per_tx, keep in ((4, True), (4, True), (6, False), (6, True), (7, True), (9, True)):
        got = [text(await consumer.receive_no_wait()) for _ in range(per_tx)]
        if keep:
            await s.commit()
            seen.extend(got)
        else:
            await s.rollback()
    assert seen == [f"m{i}" for i in range(30)]
    assert await consumer.receive_no_wait() is None
    await c.close()
    c2 = await factory.create_connection()  # committed removals: nothing left for anyone
    await c2.start()
    s2 = c2.create_session(transacted=True)
    again = await (s2.create_durable_subscriber(dest, "AUDIT") if topic  # type: ignore[arg-type]
                   else s2.create_consumer(dest))
    assert await again.receive_no_wait() is None
    await c2.close()
    if not topic:  # kept as PROCESSED for the retention time
        assert await conn.fetchval("SELECT count(*) FROM shop.orders_t WHERE state = 2") == 30


async def test_an_admin_call_mid_transaction_leaves_no_stale_prefetch(
        conn: asyncpg.Connection, factory: jms.ConnectionFactory) -> None:
    """An administrative call between receives (it forgets the session's destinations)
    must not leave messages locked ahead of the ended transaction to be handed out
    later, outside any lock: each message is still received exactly once."""
    await setup(conn, factory, 20)
    c = await factory.create_connection()
    await c.start()
    s = c.create_session(transacted=True)
    consumer = await s.create_consumer(s.get_queue("shop", "orders_q"))
    seen = [text(await consumer.receive_no_wait()) for _ in range(6)]
    await s.commit()  # the session now locks 6 ahead
    seen.append(text(await consumer.receive_no_wait()))
    await s.create_queue_table("shop", "other_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    await s.commit()  # 5 locked ahead, not handed out: free again
    while (m := await consumer.receive_no_wait()) is not None:
        seen.append(text(m))
    await s.commit()
    assert seen == [f"m{i}" for i in range(20)]
    assert not await left(conn)
    await c.close()
