"""A session that needs a connection while every one of the factory's pool (`max_pool_size`)
is held by another session's open transaction must be refused with
ResourceAllocationException (JMS-221, "Free physical database connection unavailable in
connection pool", the class's own code), not left waiting for ever. (It waited for ever
until the factory's acquire_timeout.) A session that holds nothing gives its connection
back when another needs it: tests/integration/test_jms_session_connections.py."""

from __future__ import annotations

import asyncio

import asyncpg
import pgaq.jms as jms
import pytest

from .helpers import make_queue


async def test_a_session_beyond_the_pool_is_refused_not_hung(conn: asyncpg.Connection,
                                                            db_dsn: str) -> None:
    await make_queue(conn, "shop.q", "shop.qt", "SYS.AQ$_JMS_TEXT_MESSAGE")
    connection = await jms.ConnectionFactory(db_dsn, max_pool_size=1).create_connection()
    try:
        first = connection.create_session(True)  # its open transaction holds the connection
        queue = first.get_queue("shop", "q")
        await first.create_producer(queue).send(first.create_text_message("holds the pool"))
        await first.commit()
        await first.create_producer(queue).send(first.create_text_message("uncommitted"))
        second = connection.create_session(False, jms.AUTO_ACKNOWLEDGE)
        send = second.create_producer(queue).send(second.create_text_message("no connection"))
        with pytest.raises(jms.ResourceAllocationException) as refused:
            await asyncio.wait_for(send, timeout=10.0)  # a bound on the hang, not a sleep
        assert refused.value.error_code == "JMS-221"
        assert await conn.fetchval("SELECT count(*) FROM shop.qt") == 1  # nothing partial
    finally:
        await connection.close()
