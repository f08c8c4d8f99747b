"""The core service: wiring only. Applies migrations on start, then serves /health,
Prometheus /metrics (queue depths by state) and a JSON admin API over dbms_aqadm."""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import signal
from dataclasses import dataclass
from typing import Any

import asyncpg
from aiohttp import web
from pgaq.errors import describe, wrap_db_error
from pgaq.migrate import migrate_dsn
from pgaq.queries import load
from pgaq.web import db_health
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily

log = logging.getLogger("pgaq.core")


@dataclass
class Settings:
    dsn: str
    host: str = "127.0.0.1"
    port: int = 8081
    token: str | None = None

    @classmethod
    def from_env(cls) -> Settings:
        dsn = os.environ.get("PGAQ_DSN")
        if not dsn:
            raise SystemExit("PGAQ_DSN is required")
        return cls(dsn=dsn, host=os.environ.get("PGAQ_CORE_HOST", "127.0.0.1"),
                   port=int(os.environ.get("PGAQ_CORE_PORT", "8081")),
                   token=os.environ.get("PGAQ_ADMIN_TOKEN") or None)


POOL = web.AppKey("pool", asyncpg.Pool)
SETTINGS = web.AppKey("settings", Settings)
REGISTRY = web.AppKey("registry", CollectorRegistry)


class DepthCollector:
    """Queue depths read at scrape time (no background polling)."""

    def __init__(self) -> None:
        self.rows: list[asyncpg.Record] = []

    def collect(self) -> Any:
        g = GaugeMetricFamily("pgaq_queue_messages", "messages by queue and state",
                              labels=["schema", "queue", "state"])
        for r in self.rows:
            g.add_metric([r["queue_schema"], r["queue_name"], r["state"]], r["messages"])
        yield g
        up = GaugeMetricFamily("pgaq_up", "the core service is up")
        up.add_metric([], 1)
        yield up


DEPTHS = web.AppKey("depths", DepthCollector)


def _authorised(request: web.Request) -> bool:
    token = request.app[SETTINGS].token
    if token is None:
        return request.remote in ("127.0.0.1", "::1")
    given = request.headers.get("Authorization", "")
    return given.startswith("Bearer ") and hmac.compare_digest(given[7:], token)


async def health(request: web.Request) -> web.Response:
    return await db_health(request.app[POOL])


async def metrics(request: web.Request) -> web.Response:
    collector = request.app[DEPTHS]
    async with request.app[POOL].acquire() as c:
        collector.rows = await c.fetch(load("core_queue_depths"))
    return web.Response(body=generate_latest(request.app[REGISTRY]),
                        headers={"Content-Type": CONTENT_TYPE_LATEST})


async def admin_call(request: web.Request) -> web.Response:
    if not _authorised(request):
        return web.json_response({"error": "unauthorised"}, status=401)
    try:
        args = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return web.json_response({"error": "the body must be a JSON object", "code": None}, status=400)
    try:
        async with request.app[POOL].acquire() as c:
            await c.fetchval(load("core_admin_call"), request.match_info["procedure"], json.dumps(args))
    except asyncpg.PostgresError as exc:
        err = wrap_db_error(exc)
        status = 500 if (err.sqlstate or "").startswith(("08", "53", "57", "58", "XX")) else 400
        body = describe(err)
        body["error"] = body["error"].split("\nCONTEXT:")[0]
        return web.json_response(body, status=status)
    return web.json_response({"status": "ok"})


async def queues(request: web.Request) -> web.Response:
    if not _authorised(request):
        return web.json_response({"error": "unauthorised"}, status=401)
    async with request.app[POOL].acquire() as c:
        rows = await c.fetch(load("core_queues"))
    return web.json_response([dict(r) for r in rows])


def build(settings: Settings) -> web.Application:
    app = web.Application(client_max_size=1024 * 1024)
    app[SETTINGS] = settings
    registry = CollectorRegistry()
    depths = DepthCollector()
    registry.register(depths)
    app[REGISTRY] = registry
    app[DEPTHS] = depths

    async def lifecycle(app: web.Application) -> Any:
        await migrate_dsn(settings.dsn)
        app[POOL] = await asyncpg.create_pool(settings.dsn, min_size=1, max_size=5)
        yield
        await app[POOL].close()

    app.cleanup_ctx.append(lifecycle)
    app.router.add_get("/health", health)
    app.router.add_get("/metrics", metrics)
    app.router.add_post("/api/admin/{procedure}", admin_call)
    app.router.add_get("/api/queues", queues)
    return app


async def serve(settings: Settings, stop: asyncio.Event) -> None:
    runner = web.AppRunner(build(settings), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, settings.host, settings.port, shutdown_timeout=5)
    await site.start()
    log.info("core on %s:%s", settings.host, settings.port)
    try:
        await stop.wait()
    finally:
        await asyncio.wait_for(runner.cleanup(), 15)


def main() -> None:
    logging.basicConfig(level=os.environ.get("PGAQ_LOG_LEVEL", "INFO"),
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    settings = Settings.from_env()

    async def go() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await serve(settings, stop)

    asyncio.run(go())
