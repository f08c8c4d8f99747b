"""The IDAP gateway service: wiring only (HTTP, settings, lifecycle).

The operations live in pgaq.idap; this module authenticates, maps HTTP to documents and
cookies to sessions, and serves /health, /metrics, the status page and the WSDL.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import signal
import socket
import ssl
from typing import Any

import asyncpg
from aiohttp import web
from pgaq.aio import TaskGroup
from pgaq.aio import run as aio_run
from pgaq.dashboard import DASHBOARD, Dashboard, add_routes
from pgaq.idap.auth import Authenticator, certificate_subject
from pgaq.idap.batching import DequeueBatcher, EnqueueBatcher
from pgaq.idap.gateway import Gateway, GatewaySettings
from pgaq.idap.hooks import Hook
from pgaq.idap.sessions import SessionStore
from pgaq.listener import Listener
from pgaq.logs import setup_logging
from pgaq.settings import Environment, warn_unknown
from pgaq.web import db_health
from prometheus_client import (
    CONTENT_TYPE_LATEST,
)

from . import gctune
from .access import access_log, info
from .exchange import Reply
from .fastpath import FastSite
from .metrics import Metrics
from .servlet import COOKIE, Context, handle_post
from .settings import Settings as Settings  # re-exported: callers build the app with app.Settings
from .workers import CLIENT_SUBJECT, FORWARDED, Forwarder, die_with_parent, run_group, socket_path

log = logging.getLogger("pgaq.gateway")


def load_hooks(specs: list[str]) -> list[Hook]:
    """`module:function` entry points run before/after each operation, in its transaction."""
    hooks: list[Hook] = []
    for spec in specs:
        module, _, attr = spec.strip().partition(":")
        hooks.append(getattr(importlib.import_module(module), attr))
    return hooks


POOL = web.AppKey("pool", asyncpg.Pool)
GATEWAY = web.AppKey("gateway", Gateway)
STORE = web.AppKey("store", SessionStore)
AUTH = web.AppKey("auth", Authenticator)
METRICS = web.AppKey("metrics", Metrics)
SETTINGS = web.AppKey("settings", Settings)
LISTENER = web.AppKey("listener", Listener)
FORWARDER = web.AppKey("forwarder", Forwarder)
CONTEXT = web.AppKey("context", Context)


class _AiohttpPost:
    """An aiohttp request as the servlet sees it (exchange.Incoming)."""

    __slots__ = ("_metrics", "_request")

    def __init__(self, request: web.Request, metrics: Metrics) -> None:
        self._request = request
        self._metrics = metrics

    @property
    def path_qs(self) -> str:
        return self._request.path_qs

    @property
    def content_type(self) -> str:
        return (self._request.content_type or "").lower()

    @property
    def cookie(self) -> str | None:
        return self._request.cookies.get(COOKIE)

    def header(self, name: str) -> str | None:
        return self._request.headers.get(name)

    def client_subject(self) -> str | None:
        """The verified client certificate's subject; on a worker's private Unix socket,
        the one the forwarding worker verified (no TCP client can set it)."""
        transport = self._request.transport
        if transport is None:
            return None
        cert = transport.get_extra_info("peercert")
        if cert:
            return certificate_subject(cert)
        sock = transport.get_extra_info("socket")
        if (getattr(sock, "family", None) == socket.AF_UNIX
                and self._request.headers.get(FORWARDED) is not None):
            return self._request.headers.get(CLIENT_SUBJECT)
        return None

    async def read(self) -> bytes:
        try:
            return await self._request.read()
        except web.HTTPRequestEntityTooLarge:
            self._metrics.count("unknown", "too_large")
            raise


def to_response(reply: Reply) -> web.Response:
    """The reply as aiohttp's Response (Content-Length set first, so that Set-Cookie
    follows it as `resp.set_cookie` would have placed it)."""
    resp = web.Response(body=reply.body, status=reply.status, headers=reply.headers)
    if reply.cookies:
        resp.headers["Content-Length"] = str(len(reply.body))
        for value in reply.cookies:
            resp.headers.add("Set-Cookie", value)
    return resp


async def servlet_post(request: web.Request) -> web.StreamResponse:
    ctx = request.app[CONTEXT]
    return to_response(await handle_post(ctx, _AiohttpPost(request, ctx.metrics),
                                         info(request)))


async def servlet_get(request: web.Request) -> web.StreamResponse:
    settings = request.app[SETTINGS]
    if "wsdl" in {k.lower() for k in request.query}:
        from pgaq.idap.wsdl import wsdl

        return web.Response(body=wsdl(str(request.url.with_query(None))),
                            content_type="text/xml", charset="utf-8")
    text = (f"pgaq IDAP gateway at {settings.path}: POST AQXmlSend, AQXmlPublish, "
            f"AQXmlReceive, AQXmlRegister, AQXmlCommit, AQXmlRollback documents "
            f"(Content-Type text/xml). WSDL: {settings.path}?wsdl\n")
    # how busy the gateway is (sessions, open transactions) is for agents only: an
    # anonymous caller could watch other clients' activity; wrong credentials are anonymous
    header = request.headers.get("Authorization")
    if header:
        try:
            agent = await request.app[AUTH].check_header(header)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
            agent = None  # the database is away: the page stays anonymous
        if agent is not None:
            store = request.app[STORE]
            text += f"sessions: {store.sessions}, open transactions: {store.open_transactions}\n"
    return web.Response(text=text, content_type="text/plain")


async def health(request: web.Request) -> web.Response:
    return await db_health(request.app[POOL])


async def metrics_view(request: web.Request) -> web.Response:
    request.app[METRICS].observe_store(request.app[STORE])
    body = request.app[METRICS].render()
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


async def _reset(conn: asyncpg.Connection) -> None:
    """Connections come back from sessions with only transaction-local state (SET LOCAL
    ROLE), which their transaction's end already undid; asyncpg's default reset (a
    round trip per release) is not needed."""
    if conn.is_in_transaction():
        await conn.execute("ROLLBACK")


def build(settings: Settings) -> web.Application:
    """The whole gateway wired in one place; nothing connects until the app starts."""
    app = web.Application(client_max_size=settings.body_limit, middlewares=[access_log])
    app[SETTINGS] = settings
    app[METRICS] = Metrics()

    async def lifecycle(app: web.Application) -> Any:
        pool = await asyncpg.create_pool(settings.dsn, min_size=2, max_size=settings.pool_max,
                                         reset=_reset)
        listener = Listener(settings.dsn)
        await listener.start()
        # the open-transaction limit is the gateway's: each worker takes its share
        share = -(-settings.max_transactions // settings.workers)
        store = SessionStore(pool, listener, timeout=settings.session_timeout,
                             max_transactions=share, max_wait=settings.max_wait,
                             safety_poll=settings.safety_poll, prefix=settings.prefix)
        await store.start()
        forwarder = Forwarder(settings.run_dir or "")
        schema = None
        if settings.validate:
            from pgaq.idap.schema import load_fast_validator

            schema = load_fast_validator()
        metrics = app[METRICS]
        app[POOL] = pool
        app[LISTENER] = listener
        app[STORE] = store
        app[FORWARDER] = forwarder
        app[AUTH] = Authenticator(pool)
        following = asyncio.Event()
        follower = asyncio.ensure_future(app[AUTH].follow(listener, following))
        # serve only once agent changes are heard (a change is then never missed)
        heard = asyncio.ensure_future(following.wait())
        await asyncio.wait({heard, follower}, timeout=10.0, return_when=asyncio.FIRST_COMPLETED)
        heard.cancel()
        app[DASHBOARD] = Dashboard(pool, app[AUTH], settings.admin_token)
        app[GATEWAY] = Gateway(
            pool, store, schema=schema,
            settings=GatewaySettings(max_wait=settings.max_wait, stylesheet=settings.stylesheet,
                                     hooks=load_hooks(settings.hooks),
                                     max_depth=settings.max_depth),
            on_wait=lambda d: metrics.waiting.inc(d),
            batcher=EnqueueBatcher(pool, max_inflight=settings.batch_inflight,
                                   fast_cache=store.fast_cache),
            receiver=DequeueBatcher(pool, fast_cache=store.fast_cache),
        )
        app[CONTEXT] = Context(settings, metrics, app[GATEWAY], store, app[AUTH], forwarder)
        yield
        follower.cancel()
        await asyncio.gather(follower, return_exceptions=True)
        await forwarder.close()
        await store.close()
        await listener.close()
        await pool.close()

    app.cleanup_ctx.append(lifecycle)
    app.router.add_post(settings.path, servlet_post)
    app.router.add_get(settings.path, servlet_get)
    app.router.add_get("/health", health)
    app.router.add_get("/metrics", metrics_view)
    add_routes(app)  # /dashboard (pgaq.dashboard)
    return app


def ssl_context(settings: Settings) -> ssl.SSLContext | None:
    """HTTPS when a certificate is set; with a client CA bundle the handshake asks for a
    client certificate (optional unless tls_client_required) and verifies it against that
    bundle alone: the system's CAs are never trusted for client certificates."""
    if not settings.tls_cert:
        if settings.tls_client_ca:
            raise ValueError("PGAQ_TLS_CLIENT_CA needs PGAQ_TLS_CERT (client certificates need TLS)")
        return None
    if settings.tls_client_ca:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=settings.tls_client_ca)
        ctx.verify_mode = ssl.CERT_REQUIRED if settings.tls_client_required else ssl.CERT_OPTIONAL
    else:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(settings.tls_cert, settings.tls_key)
    return ctx


def runner_for(app: web.Application, settings: Settings) -> web.AppRunner:
    """aiohttp's runner, with the gateway's timeouts (it serves what the fast path hands
    over, the private socket, and the whole port when the fast path is off)."""
    return web.AppRunner(app, handler_cancellation=True, access_log=None,
                         shutdown_timeout=settings.shutdown_timeout,
                         keepalive_timeout=settings.keepalive_timeout)


def tcp_site(runner: web.AppRunner, settings: Settings,
             reuse_port: bool | None = None) -> web.BaseSite:
    """The gateway's port, once the runner is set up: fastpath.FastSite unless
    PGAQ_GATEWAY_FASTPATH=0, then aiohttp's own TCPSite."""
    ctx = runner.app[CONTEXT]
    if not settings.fastpath:
        return web.TCPSite(runner, settings.host, settings.port,
                           ssl_context=ssl_context(settings), reuse_port=reuse_port)
    return FastSite(runner, ctx, settings.host, settings.port,
                    ssl_context=ssl_context(settings), reuse_port=reuse_port,
                    shutdown_timeout=settings.shutdown_timeout,
                    keepalive_timeout=settings.keepalive_timeout)


async def serve(settings: Settings, stop: asyncio.Event) -> None:
    app = build(settings)
    runner = runner_for(app, settings)
    await runner.setup()
    group = settings.worker is not None
    site = tcp_site(runner, settings, reuse_port=group or None)
    await site.start()
    if group and settings.run_dir:
        # sessions owned by this worker reach it from the others through this socket
        await web.UnixSite(runner, socket_path(settings.run_dir, settings.prefix)).start()
    gctune.tune(settings.gc_gen0)
    log.info("IDAP gateway on %s:%s%s%s", settings.host, settings.port, settings.path,
             "" if settings.fastpath else " (fast path off)")
    try:
        await stop.wait()
    finally:
        await asyncio.wait_for(runner.cleanup(), settings.shutdown_timeout + 5)


def main() -> None:
    setup_logging()
    if Environment().raw("PGAQ_GATEWAY_WORKER") is None:  # a worker has its parent's environment
        warn_unknown("gateway")
    settings = Settings.from_env()
    if settings.workers > 1 and settings.worker is None:
        asyncio.run(run_group(settings.workers, settings.shutdown_timeout + 5))
        return
    parent = Environment().maybe_integer("PGAQ_GATEWAY_PARENT")
    if settings.worker is not None and parent:
        die_with_parent(parent)

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        group = TaskGroup("gateway")
        group.spawn("http", serve(settings, stop))
        done: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
        waiters: list[asyncio.Future[Any]] = [done, group.failed]
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        if group.failed.done():
            log.error("gateway task died; stopping")
            stop.set()
        await group.close(settings.shutdown_timeout + 5)
        if group.failed.done():
            raise SystemExit(1)

    aio_run(run())
