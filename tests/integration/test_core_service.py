"""The core service over real HTTP: health, metrics, the JSON admin API and its refusals."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import asyncpg
import pytest
from aiohttp import web
from pgaq.db import create_pool
from pgaq.embedded import free_port
from pgaq.errors import ConnectionLost
from pgaq.web import db_health
from pgaq_services.core.app import Settings, build

TOKEN = "t0ken"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
async def core(db_dsn: str) -> AsyncIterator[str]:
    port = free_port()
    runner = web.AppRunner(build(Settings(dsn=db_dsn, port=port, token=TOKEN)))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    yield f"http://127.0.0.1:{port}"
    await runner.cleanup()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


async def admin(http: aiohttp.ClientSession, core: str, proc: str, args: Any,
                headers: dict[str, str] | None = None) -> tuple[int, Any]:
    async with http.post(f"{core}/api/admin/{proc}", json=args,
                         headers=AUTH if headers is None else headers) as r:
        return r.status, await r.json()


async def make_queue(http: aiohttp.ClientSession, core: str, conn: asyncpg.Connection) -> None:
    await conn.execute("CREATE SCHEMA IF NOT EXISTS s")
    for proc, args in [
        ("create_queue_table", {"queue_table": "s.qt", "queue_payload_type": "RAW",
                                "multiple_consumers": True}),
        ("create_queue", {"queue_name": "s.q", "queue_table": "s.qt", "max_retries": 3}),
        ("start_queue", {"queue_name": "s.q"}),
        ("add_subscriber", {"queue_name": "s.q", "subscriber": {"name": "A"}}),
    ]:
        status, body = await admin(http, core, proc, args)
        assert status == 200, body


async def test_health_metrics_and_admin(core: str, http: aiohttp.ClientSession,
                                        conn: asyncpg.Connection) -> None:
    async with http.get(f"{core}/health") as r:
        # dblink: SQL rollbacks count attempts, IMMEDIATE works from SQL
        assert r.status == 200 and await r.json() == {"status": "ok", "dblink": True}
    await make_queue(http, core, conn)
    assert await conn.fetchval(
        "SELECT max_retries FROM aq.queues WHERE schema_name = 's' AND queue_name = 'q'") == 3
    assert await conn.fetchval("SELECT count(*) FROM aq.subscribers") == 1
    await conn.execute("SELECT aq.enqueue_array('s.q', '[{}]', NULL, ARRAY['\\x01'::bytea])")
    async with http.get(f"{core}/metrics") as r:
        assert r.status == 200
        text = await r.text()
    assert 'pgaq_queue_messages{queue="q",schema="s",state="READY"} 1.0' in text
    assert "pgaq_up 1.0" in text
    async with http.get(f"{core}/api/queues", headers=AUTH) as r:
        listed = await r.json()
    assert [q["name"] for q in listed] == ["aq$_qt_e", "q"]  # with the exception queue
    async with http.get(f"{core}/api/queues/s.q", headers=AUTH) as r:
        one = await r.json()
    assert one["name"] == "q" and one["owner"] == "s" and one["max_retries"] == 3
    assert one["depths"] == {"READY": 1}
    async with http.get(f"{core}/api/queues/S.Q", headers=AUTH) as r:  # unquoted names fold
        assert r.status == 200
    async with http.get(f"{core}/api/queues/s.nope", headers=AUTH) as r:
        assert r.status == 404 and (await r.json())["code"] == "ORA-24010"


@pytest.mark.parametrize(("proc", "args", "status", "code"), [
    ("drop_everything", {}, 400, "ORA-06550"),
    ("start_queue;drop table s.qt", {"queue_name": "s.q"}, 400, "ORA-06550"),
    ("pg_sleep", {"seconds": 1}, 400, "ORA-06550"),
    ("start_queue", {"queue_name": "s.q", "nope": 1}, 400, "ORA-06550"),
    ("start_queue", {"queue_name": "s.q", 'queue_name") ; DROP TABLE s.qt; --': 1}, 400, "ORA-06550"),
    ("start_queue", {"queue_name": "x'); DROP TABLE s.qt; --"}, 400, "ORA-25200"),
    ("start_queue", {}, 400, "ORA-06550"),  # a required argument is missing
    ("start_queue", ["s.q"], 400, "ORA-06550"),  # positional arguments are not a thing here
    ("start_queue", {"queue_name": "s.q", "QUEUE_NAME": "s.q"}, 400, "ORA-06550"),
    ("create_queue", {"queue_name": "s.q", "queue_table": "s.qt"}, 400, "ORA-24006"),
    ("create_queue", {"queue_name": "s.q2", "queue_table": "s.qt", "max_retries": "many"}, 400, "ORA-06502"),
    ("create_queue", {"queue_name": "s.q2", "queue_table": {"a": 1}}, 400, "ORA-06502"),
    ("add_subscriber", {"queue_name": "s.q", "subscriber": "B"}, 400, "ORA-06502"),
    ("add_subscriber", {"queue_name": "s.q", "subscriber": {"name": "B", "evil": 1}}, 400, "ORA-06550"),
])
async def test_admin_refusals(core: str, http: aiohttp.ClientSession, conn: asyncpg.Connection,
                              proc: str, args: Any, status: int, code: str) -> None:
    await make_queue(http, core, conn)
    got, body = await admin(http, core, proc, args)
    assert (got, body["code"]) == (status, code), body
    assert code in body["error"]
    assert "Traceback" not in body["error"] and "CONTEXT" not in body["error"]
    assert await conn.fetchval("SELECT to_regclass('s.qt') IS NOT NULL")
    assert await conn.fetchval("SELECT count(*) FROM aq.queues WHERE queue_name = 'q2'") == 0


async def test_admin_needs_the_token_and_a_json_body(core: str, http: aiohttp.ClientSession) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        status, body = await admin(http, core, "start_queue", {"queue_name": "s.q"}, headers)
        assert status == 401 and "error" in body
    async with http.get(f"{core}/api/queues") as r:
        assert r.status == 401
    async with http.post(f"{core}/api/admin/start_queue", data=b"{not json", headers=AUTH) as r:
        assert r.status == 400 and (await r.json())["code"] == "ORA-06550"
    async with http.get(f"{core}/no/such/page") as r:
        assert r.status == 404 and "error" in await r.json()
    async with http.get(f"{core}/api/admin/start_queue", headers=AUTH) as r:
        assert r.status == 405 and "error" in await r.json()


async def test_admin_passes_typed_values(core: str, http: aiohttp.ClientSession,
                                         conn: asyncpg.Connection) -> None:
    """Scalars, arrays, composites and defaults reach the procedure with their declared types."""
    await conn.execute("""
        CREATE TABLE public.echo (a integer, b text[], c sys.aq$_agent, d boolean, e double precision,
                                  f sys.aq$_agent[]);
        CREATE PROCEDURE dbms_aqadm.pgaq_test_echo(a integer, b text[] DEFAULT NULL,
            c sys.aq$_agent DEFAULT NULL, d boolean DEFAULT false, e double precision DEFAULT 0,
            f sys.aq$_agent[] DEFAULT NULL)
        LANGUAGE sql AS $$ INSERT INTO public.echo VALUES (a, b, c, d, e, f) $$;
    """)
    status, body = await admin(http, core, "pgaq_test_echo", {
        "a": 7, "B": ["x", "y'); DROP TABLE public.echo; --"], "c": {"name": "AG", "protocol": 0},
        "d": True, "e": 1.5, "f": [{"name": "X"}, {"name": "Y", "address": "s.q"}]})
    assert status == 200, body
    status, body = await admin(http, core, "PGAQ_TEST_ECHO", {"a": "8", "c": None, "b": None})
    assert status == 200, body
    rows = await conn.fetch(
        "SELECT a, b, (c).name AS n, (c).protocol AS p, d, e, f[2].address AS f2, cardinality(f) AS nf"
        " FROM public.echo ORDER BY a")
    assert [tuple(r) for r in rows] == [
        (7, ["x", "y'); DROP TABLE public.echo; --"], "AG", 0, True, 1.5, "s.q", 2),
        (8, None, None, None, False, 0.0, None, None),
    ]
    status, body = await admin(http, core, "pgaq_test_echo", {"a": 99999999999})
    assert status == 400 and body["code"] == "ORA-06502"


async def test_metrics_without_the_depth_view(core: str, http: aiohttp.ClientSession,
                                              conn: asyncpg.Connection,
                                              caplog: pytest.LogCaptureFixture) -> None:
    await conn.execute("DROP VIEW aq.queue_depths CASCADE")
    with caplog.at_level(logging.WARNING, logger="pgaq.core"):
        for _ in range(3):
            async with http.get(f"{core}/metrics") as r:
                assert r.status == 200
                text = await r.text()
            assert "pgaq_up 1.0" in text and "pgaq_queue_messages{" not in text
    assert len([r for r in caplog.records if "queue_depths" in r.getMessage()]) == 1


async def test_health_reports_a_dead_database(db_dsn: str) -> None:
    pool = await create_pool(db_dsn, 1, 1)
    await pool.close()
    assert (await db_health(pool)).status == 503
    with pytest.raises(ConnectionLost):
        await create_pool("postgresql://postgres@127.0.0.1:1/none", 1, 1)
