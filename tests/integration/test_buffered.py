"""Buffered messages on UNLOGGED storage (issue 21 section 4; seed 002 "Buffered Messaging")."""

from __future__ import annotations

import asyncpg
import pytest

SETUP = """
CREATE SCHEMA b;
CALL dbms_aqadm.create_queue_table('b.st', 'RAW');
CALL dbms_aqadm.create_queue('b.sq', 'b.st'); CALL dbms_aqadm.start_queue('b.sq');
CALL dbms_aqadm.create_queue_table('b.mt', 'RAW', multiple_consumers => true);
CALL dbms_aqadm.create_queue('b.mq', 'b.mt'); CALL dbms_aqadm.start_queue('b.mq');
CALL dbms_aqadm.add_subscriber('b.mq', sys.aq$_agent('P', NULL, NULL));
CALL dbms_aqadm.add_subscriber('b.mq', sys.aq$_agent('B', NULL, NULL), delivery_mode => 'BUFFERED');
CALL dbms_aqadm.add_subscriber('b.mq', sys.aq$_agent('E', NULL, NULL), delivery_mode => 'PERSISTENT_OR_BUFFERED');
"""


async def test_smoke(conn: asyncpg.Connection) -> None:
    await conn.execute(SETUP)
    ids = await conn.fetchval("""SELECT aq.enqueue_array('b.sq', '[{"delivery_mode": "BUFFERED"}]', NULL, ARRAY['\\x01'::bytea])""")
    assert await conn.fetchval("SELECT count(*) FROM b.st") == 0
    assert await conn.fetchval('SELECT count(*) FROM b."aq$_st_b"') == 1
    assert await conn.fetchval("SELECT relpersistence FROM pg_class WHERE relname = 'aq$_st_b'") == b"u"
    assert await conn.fetchval("SELECT msg_state FROM b.\"aq$st\"") == "IN-MEMORY"
    assert await conn.fetchval("SELECT count(*) FROM aq.\"v$buffered_queues\" WHERE queue_name = 'sq'") == 1
    assert await conn.fetch("SELECT * FROM aq.dequeue_array('b.sq')") == []
    [d] = await conn.fetch("SELECT * FROM aq.dequeue_array('b.sq', p_delivery_mode => 'BUFFERED')")
    assert d["msgid"] == ids[0]
    ids = await conn.fetchval("""SELECT aq.enqueue_array('b.mq', '[{"delivery_mode": "BUFFERED"}]', NULL, ARRAY['\\x02'::bytea])""")
    names = await conn.fetch("SELECT consumer_name FROM b.\"aq$mt\" ORDER BY 1")
    assert [r[0] for r in names] == ["B", "E"]
    [d] = await conn.fetch("SELECT * FROM aq.dequeue_array('b.mq', 'E', p_delivery_mode => 'PERSISTENT_OR_BUFFERED')")
    [d] = await conn.fetch("SELECT * FROM aq.dequeue_array('b.mq', 'B', p_delivery_mode => 'BUFFERED')")
    assert await conn.fetchval('SELECT count(*) FROM b."aq$_mt_b"') == 0
