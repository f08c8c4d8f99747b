"""PostgreSQL restarts under running pgaq.jms message listeners (issue 22, faults): the
connection's exception listener is told, the listeners resume after the reconnect, and
within a CLIENT_ACKNOWLEDGE or transacted session every message is acknowledged exactly
once: the one whose acknowledgement died with the database comes again, redelivered."""

from __future__ import annotations

import asyncio

import asyncpg
import pgaq.jms as jms
import pytest
from pgaq.embedded import Cluster

from .helpers import make_queue

N = 20


@pytest.mark.parametrize("transacted", [False, True], ids=["client_ack", "transacted"])
async def test_restart_under_a_listener_loses_and_doubles_nothing(
        cluster: Cluster, db_dsn: str, transacted: bool) -> None:
    admin = await asyncpg.connect(db_dsn)
    try:
        await make_queue(admin, "shop.orders_q", "shop.orders_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    finally:
        await admin.close()
    factory = jms.ConnectionFactory(db_dsn, safety_poll=1.0)
    connection = await factory.create_connection()
    told: asyncio.Future[jms.JMSException] = asyncio.get_running_loop().create_future()
    connection.set_exception_listener(lambda e: None if told.done() else told.set_result(e))
    try:
        producer_session = connection.create_session()
        queue = producer_session.get_queue("shop", "orders_q")
        producer = producer_session.create_producer(queue)
        for i in range(N):
            await producer.send(producer_session.create_text_message(f"m{i}"))

        s = connection.create_session(transacted, jms.CLIENT_ACKNOWLEDGE)
        consumer = await s.create_consumer(queue)
        acked: list[str] = []
        deliveries: list[tuple[str, bool]] = []
        fifth = asyncio.Event()
        release = asyncio.Event()
        finished = asyncio.Event()

        async def on_message(m: jms.Message) -> None:
            assert isinstance(m, jms.TextMessage) and m.text is not None
            deliveries.append((m.text, m.jms_redelivered))
            if len(deliveries) == 5:
                fifth.set()
                await release.wait()  # the database restarts while this one is held
            if transacted:
                await s.commit()
            else:
                await m.acknowledge()
            acked.append(m.text)
            if len(set(acked)) == 2 * N:
                finished.set()

        consumer.set_message_listener(on_message)
        await connection.start()
        await asyncio.wait_for(fifth.wait(), 30)
        await asyncio.to_thread(cluster.restart)
        release.set()
        # the held message's acknowledgement fails with the database: the listener raised
        error = await asyncio.wait_for(told, 30)
        assert isinstance(error, jms.JMSException)
        # the producer sends on after the restart (its session reconnects too)
        for i in range(N, 2 * N):
            for attempt in range(50):
                try:
                    await producer.send(producer_session.create_text_message(f"m{i}"))
                    break
                except jms.JMSException:
                    if attempt == 49:
                        raise
                    await asyncio.sleep(0.1)  # the application's own retry, as a user's would
        await asyncio.wait_for(finished.wait(), 60)
        await connection.stop()
        assert sorted(acked) == sorted(f"m{i}" for i in range(2 * N))  # each exactly once
        held = deliveries[4][0]
        # the held message came again, flagged; nothing else was delivered twice
        assert [t for t, _ in deliveries].count(held) == 2
        assert (held, True) in deliveries
        assert len(deliveries) == 2 * N + 1
    finally:
        await connection.close()
    check = await asyncpg.connect(db_dsn)
    try:
        assert await check.fetchval("SELECT count(*) FROM shop.orders_t") == 0
    finally:
        await check.close()
