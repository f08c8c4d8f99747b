"""/health and /metrics of the background services (monitor, notifier, propagator, stats),
each started as a process as `pgaq up` and the compose file start it: the endpoint answers
on its PGAQ_<NAME>_PORT, and its counters move after real work."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import asyncpg
import pytest
from aiohttp import web
from pgaq import MessageProperties, Session
from pgaq.embedded import Cluster, free_port

from .support import propagation_link


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of one sample in Prometheus text (labels in any order), None when absent."""
    for line in text.splitlines():
        m = re.fullmatch(r"([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)", line)
        if m is None or m[1] != name:
            continue
        got = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m[2] or ""))
        if all(got.get(k) == v for k, v in labels.items()):
            return float(m[3])
    return None


@asynccontextmanager
async def service(name: str, db_dsn: str, **env: str) -> AsyncIterator[tuple[str, aiohttp.ClientSession]]:
    """`python -m pgaq_services.<name>` on a free port: its base URL once /health says 200;
    stopped with SIGTERM afterwards (and it must exit 0)."""
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", f"pgaq_services.{name}",
        env={**os.environ, "PGAQ_DSN": db_dsn, "PGAQ_LOG_LEVEL": "WARNING",
             f"PGAQ_{name.upper()}_PORT": str(port), **env})
    base = f"http://127.0.0.1:{port}"
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(1200):  # another process: nothing of ours to wait on but its port
                assert proc.returncode is None, f"{name} exited with {proc.returncode}"
                try:
                    async with http.get(f"{base}/health") as r:
                        if r.status == 200:
                            break
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.05)
            else:
                raise AssertionError(f"{name}'s /health did not answer 200")
            yield base, http
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 60)
    assert code == 0


async def metrics(http: aiohttp.ClientSession, base: str, service: str) -> str:
    async with http.get(f"{base}/metrics") as r:
        assert r.status == 200
        assert r.headers["Content-Type"].startswith("text/plain")
        text = await r.text()
    assert sample(text, "pgaq_service_up", service=service) == 1.0
    assert sample(text, "pgaq_service_info", service=service) == 1.0
    return text


async def until(http: aiohttp.ClientSession, base: str, service: str, name: str, at_least: float,
                timeout: float = 30, **labels: str) -> str:
    """/metrics once `name{labels}` reaches `at_least`."""
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    while True:
        text = await metrics(http, base, service)
        value = sample(text, name, **labels)
        if value is not None and value >= at_least:
            return text
        assert loop.time() - t0 < timeout, f"{name}{labels} = {value}, not {at_least}"
        await asyncio.sleep(0.1)


async def test_monitor_counts_a_delayed_message_made_ready(db_dsn: str) -> None:
    c = await asyncpg.connect(db_dsn)
    try:
        await c.execute("""
            CREATE SCHEMA s;
            CALL dbms_aqadm.create_queue_table('s.qt', 'RAW');
            CALL dbms_aqadm.create_queue('s.q', 's.qt'); CALL dbms_aqadm.start_queue('s.q');
        """)
        async with service("monitor", db_dsn) as (base, http):
            async with http.get(f"{base}/health") as r:
                assert (r.status, (await r.json())["status"]) == (200, "ok")
            before = await metrics(http, base, "monitor")
            assert sample(before, "pgaq_monitor_passes_total") is not None
            assert sample(before, "pgaq_monitor_done_total") == 0
            assert sample(before, "pgaq_monitor_busy_passes_total") == 0
            passes = sample(before, "pgaq_monitor_passes_total") or 0
            await Session(c).enqueue("s.q", b"later", MessageProperties(delay=1))
            after = await until(http, base, "monitor", "pgaq_monitor_done_total", 1)
            assert (sample(after, "pgaq_monitor_passes_total") or 0) > passes
            assert await c.fetchval("SELECT msg_state FROM s.aq$qt") == "READY"
    finally:
        await c.close()


async def test_notifier_counts_deliveries_by_outcome(db_dsn: str) -> None:
    async def hook(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(text="ok", status=200 if request.path == "/ok" else 500)

    app = web.Application()
    app.router.add_post("/ok", hook)
    app.router.add_post("/bad", hook)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    c = await asyncpg.connect(db_dsn)
    try:
        await c.execute("""
            CREATE SCHEMA k;
            CALL dbms_aqadm.create_queue_table('k.qt', 'RAW');
            CALL dbms_aqadm.create_queue('k.q', 'k.qt'); CALL dbms_aqadm.start_queue('k.q');
            CALL dbms_aqadm.create_queue('k.r', 'k.qt'); CALL dbms_aqadm.start_queue('k.r');
            CALL aq.allow_notification_host('127.0.0.1');
        """)
        await c.execute("SELECT aq.register('k.q', NULL, $1)", f"http://127.0.0.1:{port}/ok")
        await c.execute("SELECT aq.register('k.r', NULL, $1)", f"http://127.0.0.1:{port}/bad")
        async with service("notifier", db_dsn, PGAQ_NOTIFY_MAX_ATTEMPTS="1") as (base, http):
            text = await metrics(http, base, "notifier")
            for outcome in ("delivered", "retried", "failed"):
                assert sample(text, "pgaq_notifier_deliveries_total", outcome=outcome) == 0
            s = Session(c)
            await s.enqueue("k.q", b"x")
            await s.enqueue("k.q", b"y")
            await s.enqueue("k.r", b"z")
            await until(http, base, "notifier", "pgaq_notifier_deliveries_total", 2, outcome="delivered")
            text = await until(http, base, "notifier", "pgaq_notifier_deliveries_total", 1, outcome="failed")
            assert sample(text, "pgaq_notifier_in_flight") is not None
    finally:
        await c.close()
        await runner.cleanup()


async def test_propagator_counts_batches_and_messages(db_dsn: str, remote_dsn: str) -> None:
    c = await asyncpg.connect(db_dsn)
    r = await asyncpg.connect(remote_dsn)
    try:
        await propagation_link(c, r, remote_dsn)
        await c.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', 'eu', latency => 0)")
        async with service("propagator", db_dsn, PGAQ_PROPAGATION_LEASE="2") as (base, http):
            text = await metrics(http, base, "propagator")
            assert sample(text, "pgaq_propagator_messages_total") == 0
            assert sample(text, "pgaq_propagator_problems_total", event="FAILURE") == 0
            await until(http, base, "propagator", "pgaq_propagator_schedules", 1)
            await Session(c).enqueue_array("oe.out_q", [(b"m", None)] * 3)
            text = await until(http, base, "propagator", "pgaq_propagator_messages_total", 3)
            assert (sample(text, "pgaq_propagator_batches_total") or 0) >= 1
            assert await r.fetchval("SELECT count(*) FROM oe.in_t") == 3
    finally:
        await c.close()
        await r.close()


@pytest.mark.timeout(400)  # a JVM's start and run beside the parallel phase's other workers
async def test_stats_counts_runs_and_says_its_last(db_dsn: str) -> None:
    env = {"PGAQ_STATS_INTERVAL": "60", "PGAQ_STATS_FIRST_DELAY": "0", "PGAQ_STATS_LAG": "0"}
    async with service("stats", db_dsn, **env) as (base, http):
        text = await until(http, base, "stats", "pgaq_stats_runs_total", 1, timeout=300, outcome="ok")
        assert sample(text, "pgaq_stats_runs_total", outcome="failed") == 0
        assert (sample(text, "pgaq_stats_last_run_seconds") or 0) > 0
        async with http.get(f"{base}/health") as r:
            body: dict[str, Any] = await r.json()
            assert r.status == 200
        assert body["status"] == "ok" and body["last_run"]["outcome"] == "ok"
        assert body["last_run"]["exit"] == 0


async def test_health_is_503_when_the_database_is_away(db_dsn: str, cluster: Cluster) -> None:
    """The pool no longer answers (the database is dropped from under it): 503, not 200."""
    async with service("monitor", db_dsn) as (base, http):
        admin = await asyncpg.connect(cluster.dsn())
        try:
            name = db_dsn.rsplit("/", 1)[1].split("?")[0]
            await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        finally:
            await admin.close()
        for _ in range(100):
            async with http.get(f"{base}/health") as r:
                if r.status == 503:
                    assert (await r.json())["status"] == "unavailable"
                    break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("/health stayed 200 with the database gone")
