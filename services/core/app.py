"""The core service: wiring only (settings, routes, lifecycle, signals).

It applies the migrations on start (safe with other starters: migrate() holds an advisory
lock), then serves /health, Prometheus /metrics and a JSON admin API over dbms_aqadm for
automation tools. The logic lives in `pgaq.core`.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import asyncpg
from aiohttp import web
from pgaq import core
from pgaq.aio import TaskGroup
from pgaq.db import create_pool
from pgaq.errors import PgaqError, describe
from pgaq.logs import setup_logging
from pgaq.migrate import migrate_dsn
from pgaq.settings import DEFAULTS, Environment, warn_unknown
from pgaq.web import db_health
from prometheus_client import CONTENT_TYPE_LATEST

log = logging.getLogger("pgaq.core")

LOOPBACK = ("127.0.0.1", "::1", "localhost")


@dataclass(frozen=True)
class Settings:
    dsn: str
    host: str = DEFAULTS.text_declared("PGAQ_CORE_HOST")  # the declarations' defaults
    port: int = DEFAULTS.integer("PGAQ_CORE_PORT")
    token: str | None = None
    pool_max: int = DEFAULTS.integer("PGAQ_CORE_POOL_MAX")
    shutdown_timeout: float = DEFAULTS.number("PGAQ_SHUTDOWN_TIMEOUT")
    migrate: bool = True

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        e = Environment(env)
        dsn = e.required("PGAQ_DSN")
        token = e.text("PGAQ_ADMIN_TOKEN")
        host = e.text_declared("PGAQ_CORE_HOST")
        if token is None and host not in LOOPBACK:
            # without a token the admin API must not be reachable from other hosts
            log.warning("PGAQ_ADMIN_TOKEN is not set: binding to 127.0.0.1, not %s", host)
            host = "127.0.0.1"
        return cls(dsn=dsn, host=host, port=e.integer("PGAQ_CORE_PORT"), token=token,
                   pool_max=e.integer("PGAQ_CORE_POOL_MAX"),
                   shutdown_timeout=e.number("PGAQ_SHUTDOWN_TIMEOUT"))


SETTINGS = web.AppKey("settings", Settings)
POOL = web.AppKey("pool", asyncpg.Pool)
METRICS = web.AppKey("metrics", core.DepthMetrics)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _error(status: int, message: str, code: str | None = None) -> web.Response:
    return web.json_response({"error": message, "code": code}, status=status)


@web.middleware
async def json_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every failure becomes a JSON body with the ORA code; never a traceback."""
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return _error(exc.status, exc.reason)
    except PgaqError as exc:
        status = core.http_status(exc)
        body = describe(exc)
        body["error"] = str(body["error"]).split("\nCONTEXT:")[0]
        if status >= 500:
            log.error("%s %s failed: %s", request.method, request.path, exc)
        return web.json_response(body, status=status)
    except Exception:
        log.exception("%s %s failed", request.method, request.path)
        return _error(500, "internal server error")


def _authorised(request: web.Request) -> bool:
    token = request.app[SETTINGS].token
    if token is None:
        return request.remote in LOOPBACK
    given = request.headers.get("Authorization", "")
    scheme, _, value = given.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), token.encode())


def _require_auth(request: web.Request) -> None:
    if not _authorised(request):
        raise web.HTTPUnauthorized(reason="a valid bearer token is required",
                                   headers={"WWW-Authenticate": "Bearer"})


async def health(request: web.Request) -> web.Response:
    return await db_health(request.app[POOL], features="core_features")


async def metrics(request: web.Request) -> web.Response:
    body = await request.app[METRICS].render()
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


async def admin_call(request: web.Request) -> web.Response:
    _require_auth(request)
    try:
        args = await request.json(loads=json.loads)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return _error(400, "the body must be a JSON object of named arguments", "ORA-06550")
    await core.admin_call(request.app[POOL], request.match_info["procedure"], args)
    return web.json_response({"status": "ok"})


async def queues(request: web.Request) -> web.Response:
    _require_auth(request)
    return web.json_response(await core.list_queues(request.app[POOL]))


async def queue(request: web.Request) -> web.Response:
    _require_auth(request)
    schema, name = request.match_info["schema"], request.match_info["name"]
    found = await core.get_queue(request.app[POOL], schema, name)
    if found is None:
        return _error(404, f"ORA-24010: QUEUE {schema}.{name} does not exist", "ORA-24010")
    return web.json_response(found)


def build(settings: Settings) -> web.Application:
    """The whole core service in one place; nothing connects until the app starts."""
    app = web.Application(client_max_size=1024 * 1024, middlewares=[json_errors])
    app[SETTINGS] = settings

    async def lifecycle(app: web.Application) -> AsyncIterator[None]:
        if settings.migrate:
            applied = await migrate_dsn(settings.dsn)
            if applied:
                log.info("schema: applied %s", ", ".join(applied))
        pool = await create_pool(settings.dsn, min_size=1, max_size=settings.pool_max)
        app[POOL] = pool
        app[METRICS] = core.DepthMetrics(pool)
        yield
        await asyncio.wait_for(pool.close(), settings.shutdown_timeout)

    app.cleanup_ctx.append(lifecycle)
    app.router.add_get("/health", health)
    app.router.add_get("/metrics", metrics)
    app.router.add_post("/api/admin/{procedure}", admin_call)
    app.router.add_get("/api/queues", queues)
    app.router.add_get(r"/api/queues/{schema:[^./]+}.{name:[^/]+}", queue)
    return app


async def serve(settings: Settings, stop: asyncio.Event) -> None:
    """Serve until `stop`; in-flight requests get `shutdown_timeout` to finish."""
    runner = web.AppRunner(build(settings), access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, settings.host, settings.port,
                           shutdown_timeout=settings.shutdown_timeout)
        await site.start()
        log.info("core on http://%s:%s", settings.host, settings.port)
        await stop.wait()
        log.info("stopping")
    finally:
        await asyncio.wait_for(runner.cleanup(), settings.shutdown_timeout + 5)


async def run(settings: Settings) -> None:
    """Serve until SIGTERM/SIGINT or until the server task dies (then exit non-zero)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    group = TaskGroup("core")
    http = group.spawn("http", serve(settings, stop))
    waiters: list[asyncio.Future[Any]] = [asyncio.ensure_future(stop.wait()), group.failed, http]
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiters[0].cancel()
        stop.set()
        if not http.done():
            await asyncio.wait([http], timeout=settings.shutdown_timeout + 10)
        await group.close(timeout=settings.shutdown_timeout)
    if group.failed.done():
        raise SystemExit(f"core failed: {group.failed.result()!r}")


def main() -> None:
    setup_logging()
    warn_unknown("core")
    asyncio.run(run(Settings.from_env()))
