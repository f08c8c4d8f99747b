"""The core service over real HTTP: health, metrics, the JSON admin API."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import asyncpg
import pytest
from aiohttp import web
from pgaq.embedded import free_port
from pgaq.supervisor import Backoff
from pgaq_services.core.app import Settings, build

TOKEN = "t0ken"


@pytest.fixture
async def core(db_dsn: str) -> AsyncIterator[str]:
    port = free_port()
    runner = web.AppRunner(build(Settings(dsn=db_dsn, port=port, token=TOKEN)))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    yield f"http://127.0.0.1:{port}"
    await runner.cleanup()


async def test_health_metrics_and_admin(core: str, conn: asyncpg.Connection) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    await conn.execute("CREATE SCHEMA s")
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{core}/health") as r:
            assert r.status == 200 and (await r.json())["status"] == "ok"
        for proc, args in [
            ("create_queue_table", {"queue_table": "s.qt", "queue_payload_type": "RAW",
                                    "multiple_consumers": True}),
            ("create_queue", {"queue_name": "s.q", "queue_table": "s.qt", "max_retries": 3}),
            ("start_queue", {"queue_name": "s.q"}),
            ("add_subscriber", {"queue_name": "s.q", "subscriber": {"name": "A"}}),
        ]:
            async with http.post(f"{core}/api/admin/{proc}", json=args, headers=auth) as r:
                assert r.status == 200, await r.text()
        await conn.execute("SELECT aq.enqueue_array('s.q', '[{}]', NULL, ARRAY['\\x01'::bytea])")
        async with http.get(f"{core}/metrics") as r:
            text = await r.text()
        assert 'pgaq_queue_messages{queue="q",schema="s",state="READY"} 1.0' in text
        async with http.get(f"{core}/api/queues", headers=auth) as r:
            names = [q["name"] for q in await r.json()]
        assert "q" in names
        # refusals: unknown procedure, unknown argument, injection, bad ORA input, no token
        bad = [
            ("drop_everything", {}, 400, "ORA-06550"),
            ("start_queue", {"queue_name": "s.q", "nope": 1}, 400, "ORA-06550"),
            ("start_queue", {"queue_name": "x'); DROP TABLE s.qt; --"}, 400, "ORA-25200"),
            ("create_queue", {"queue_name": "s.q", "queue_table": "s.qt"}, 400, "ORA-24006"),
        ]
        for proc, args, status, code in bad:
            async with http.post(f"{core}/api/admin/{proc}", json=args, headers=auth) as r:
                body = await r.json()
                assert r.status == status and code in body["error"], body
        async with http.post(f"{core}/api/admin/start_queue", json={"queue_name": "s.q"}) as r:
            assert r.status == 401
    assert await conn.fetchval("SELECT to_regclass('s.qt') IS NOT NULL")


def test_backoff() -> None:
    b = Backoff(base=1, factor=2, maximum=5, reset_after=60)
    assert [b.next_delay(0.1) for _ in range(5)] == [0, 1, 2, 4, 5]
    assert b.next_delay(120) == 0
