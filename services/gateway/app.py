"""The IDAP gateway service: wiring only (HTTP, settings, lifecycle).

The operations live in pgaq.idap; this module authenticates, maps HTTP to documents and
cookies to sessions, and serves /health, /metrics, the status page and the WSDL.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import signal
import socket
import ssl
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import asyncpg
from aiohttp import web
from pgaq import gctune
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
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from .access import access_log, info
from .exchange import Reply
from .fastpath import FastSite
from .servlet import COOKIE, Context, handle_post
from .workers import CLIENT_SUBJECT, FORWARDED, Forwarder, die_with_parent, run_group, socket_path

log = logging.getLogger("pgaq.gateway")


@dataclass
class Settings:
    dsn: str
    host: str = "127.0.0.1"
    port: int = 8080
    path: str = "/aqserv/servlet"
    session_timeout: float = 120.0
    max_transactions: int = 50
    max_wait: float = 300.0
    safety_poll: float = 5.0
    body_limit: int = 10 * 1024 * 1024
    max_depth: int = 64
    pool_max: int = 60
    tls_cert: str | None = None
    tls_key: str | None = None
    # PEM CA bundle: TLS asks for a client certificate chaining to it, and one whose subject
    # is an agent's certificate_location logs in as that agent (docs/gateway.md)
    tls_client_ca: str | None = None
    tls_client_required: bool = False  # a handshake without a client certificate fails
    stylesheet: str | None = None
    hooks: list[str] = field(default_factory=list)
    validate: bool = True
    shutdown_timeout: float = 10.0
    workers: int = 1  # processes serving the port (see workers.py)
    worker: int | None = None  # this process's index when it is one of several
    run_dir: str | None = None  # where the workers' private sockets live
    admin_token: str | None = None  # also opens /dashboard (user `admin`)
    batch_inflight: int = 1  # autocommit batches of one queue written at once (batching.py)
    fastpath: bool = True  # serve the servlet's plain POSTs without aiohttp (fastpath.py)
    keepalive_timeout: float = 75.0  # an idle keep-alive connection is closed after this
    gc_gen0: int = 20000  # young collections every this many allocations (gctune.py); 0: defaults

    @property
    def prefix(self) -> str:
        """What this worker's session tokens start with."""
        return "" if self.worker is None else f"w{self.worker}."

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        e = Environment(env)
        dsn = e.required("PGAQ_DSN")
        if e.text("PGAQ_TLS_CLIENT_CA") and not e.text("PGAQ_TLS_CERT"):
            raise SystemExit("PGAQ_TLS_CLIENT_CA needs PGAQ_TLS_CERT (client certificates need TLS)")
        return cls(
            dsn=dsn,
            host=e.text_or("PGAQ_HTTP_HOST", "127.0.0.1"),
            port=e.integer("PGAQ_PORT"),
            path=e.text_or("PGAQ_SERVLET_PATH", "/aqserv/servlet"),
            session_timeout=e.number("PGAQ_SESSION_TIMEOUT"),
            max_transactions=e.integer("PGAQ_MAX_TRANSACTIONS"),
            max_wait=e.number("PGAQ_MAX_WAIT"),
            safety_poll=e.number("PGAQ_SAFETY_POLL"),
            body_limit=e.integer("PGAQ_BODY_LIMIT"),
            max_depth=e.integer("PGAQ_MAX_DEPTH"),
            pool_max=e.integer("PGAQ_GATEWAY_POOL_MAX"),
            tls_cert=e.text("PGAQ_TLS_CERT"),
            tls_key=e.text("PGAQ_TLS_KEY"),
            tls_client_ca=e.text("PGAQ_TLS_CLIENT_CA"),
            tls_client_required=e.flag("PGAQ_TLS_CLIENT_REQUIRED"),
            stylesheet=e.text("PGAQ_STYLESHEET"),
            hooks=e.words("PGAQ_GATEWAY_HOOKS"),
            validate=e.flag("PGAQ_VALIDATE"),
            workers=workers_for(e.text_or("PGAQ_GATEWAY_WORKERS", "auto"), dsn),
            worker=e.maybe_integer("PGAQ_GATEWAY_WORKER"),
            run_dir=e.text("PGAQ_GATEWAY_RUN_DIR"),
            admin_token=e.text("PGAQ_ADMIN_TOKEN"),
            batch_inflight=e.integer("PGAQ_GATEWAY_BATCH_INFLIGHT"),
            fastpath=e.flag("PGAQ_GATEWAY_FASTPATH"),
            keepalive_timeout=e.number("PGAQ_GATEWAY_KEEPALIVE"),
            gc_gen0=e.integer("PGAQ_GC_GEN0"),
        )


def database_is_local(dsn: str) -> bool:
    """Whether PostgreSQL runs on this host (a Unix socket or a loopback address), in
    either DSN form (URL or key=value)."""
    hosts: list[str] = []
    if "://" in dsn:
        parts = urllib.parse.urlsplit(dsn)
        netloc = parts.netloc.rsplit("@", 1)[-1]
        hosts += [h.rsplit(":", 1)[0] if not h.startswith("[") else h.split("]")[0] + "]"
                  for h in netloc.split(",") if h]
        hosts += urllib.parse.parse_qs(parts.query).get("host", [])
    else:
        hosts += [m.split("=", 1)[1] for m in dsn.split() if m.startswith("host=")]
    hosts = [urllib.parse.unquote(h).strip("[]").lower() for h in hosts]
    if not hosts:
        return True  # libpq's default: the local socket
    return all(h.startswith("/") or h in ("localhost", "::1") or h.startswith("127.") for h in hosts)


def workers_for(value: str, dsn: str, cpus: int | None = None) -> int:
    """`auto`: one per CPU, at most 4; one per two CPUs when PostgreSQL shares the host, as
    under `pgaq up` (on 2 cores with a local PostgreSQL, 1 worker sent 25-30 % more than
    2: the workers took the core PostgreSQL needed; see docs/gateway.md)."""
    if value.strip().lower() == "auto":
        n = cpus or os.cpu_count() or 1
        if database_is_local(dsn):
            n //= 2
        return max(1, min(n, 4))
    n = int(value)
    if n < 1:
        raise SystemExit("PGAQ_GATEWAY_WORKERS must be at least 1")
    return n


def load_hooks(specs: list[str]) -> list[Hook]:
    """`module:function` entry points run before/after each operation, in its transaction."""
    hooks: list[Hook] = []
    for spec in specs:
        module, _, attr = spec.strip().partition(":")
        hooks.append(getattr(importlib.import_module(module), attr))
    return hooks


class Metrics:
    """Request counters and latencies, sessions and waiting receivers. With several worker
    processes (PROMETHEUS_MULTIPROC_DIR set) the values live in shared files and /metrics
    sums them over the live workers."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("pgaq_gateway_requests", "IDAP requests by operation and outcome",
                                ["operation", "outcome"], registry=self.registry)
        self.latency = Histogram("pgaq_gateway_request_seconds", "IDAP request latency",
                                 ["operation"], registry=self.registry,
                                 buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                          0.5, 1, 2.5, 5, 10, 30, 60, 300))
        self.waiting = Gauge("pgaq_gateway_waiting_receivers", "receives blocked in wait_time",
                             registry=self.registry, multiprocess_mode="livesum")
        self._counters: dict[tuple[str, str], Any] = {}
        self._latencies: dict[str, Any] = {}
        self.sessions = Gauge("pgaq_gateway_sessions", "HTTP sessions", registry=self.registry,
                              multiprocess_mode="livesum")
        self.open_tx = Gauge("pgaq_gateway_open_transactions", "sessions holding a transaction",
                             registry=self.registry, multiprocess_mode="livesum")
        self._seen: tuple[int, int] | None = None

    def count(self, operation: str, outcome: str, seconds: float | None = None) -> None:
        """One request's outcome (and latency); label children are looked up once."""
        key = (operation, outcome)
        child = self._counters.get(key)
        if child is None:
            child = self._counters[key] = self.requests.labels(operation, outcome)
        child.inc()
        if seconds is not None:
            hist = self._latencies.get(operation)
            if hist is None:
                hist = self._latencies[operation] = self.latency.labels(operation)
            hist.observe(seconds)

    def observe_store(self, store: SessionStore) -> None:
        """Gauges written only when they change (a write is a shared-file update with
        several workers; most requests change neither)."""
        now = (store.sessions, store.open_transactions)
        if now != self._seen:
            self._seen = now
            self.sessions.set(now[0])
            self.open_tx.set(now[1])

    def render(self) -> bytes:
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            from prometheus_client import multiprocess

            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            return generate_latest(registry)
        return generate_latest(self.registry)


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
