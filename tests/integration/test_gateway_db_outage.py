"""The database goes away under the gateway (found by the chaos run: PostgreSQL restarted
while requests were being authenticated): the client gets a SOAP Server fault, not
aiohttp's bare 500 and a traceback in the log, and the next request works again."""

from __future__ import annotations

import asyncio

import asyncpg

from .gateway_support import Client, envelope, make_agent, op, running_gateway


async def test_connection_lost_while_authenticating_is_a_server_fault(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_agent(conn, "OUTAGE", "pw")
    blocker = await asyncpg.connect(db_dsn)
    async with running_gateway(db_dsn) as url:
        c = Client(url, "OUTAGE", "pw")
        try:
            tx = blocker.transaction()
            await tx.start()
            await blocker.execute("LOCK TABLE aq.agents IN ACCESS EXCLUSIVE MODE")
            request = asyncio.ensure_future(c.post(envelope(op("AQXmlCommit", ""))))
            pid = None
            for _ in range(500):  # the gateway's check waits for our lock: its backend, then
                pid = await conn.fetchval(
                    "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND query LIKE '%verify_agent_password%'")
                if pid is not None:
                    break
                await asyncio.sleep(0.01)
            assert pid is not None, "the authentication never reached the database"
            await conn.fetchval("SELECT pg_terminate_backend($1)", pid)
            r = await asyncio.wait_for(request, 30)
            await tx.rollback()
            assert r.status == 500, r.body
            assert r.body.startswith(b"<?xml") and b"SOAP-ENV:Server" in r.body, r.body
            assert b"Traceback" not in r.body
            again = await c.post(envelope(op("AQXmlCommit", "")))
            assert again.status == 200, again.body
        finally:
            await c.close()
            await blocker.close()
