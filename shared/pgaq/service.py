"""The shape every background service shares (monitor, notifier, propagator): a pool and
a LISTEN connection, one watched loop, SIGTERM/SIGINT stopping it gracefully and bounded,
and a small HTTP endpoint (`/health`, Prometheus `/metrics`; the stats service serves the
same one) on PGAQ_<NAME>_PORT at PGAQ_METRICS_HOST, loopback unless configured."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import asyncpg
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from .aio import TaskGroup
from .aio import run as aio_run
from .listener import Listener
from .logs import setup_logging
from .settings import Environment, warn_unknown
from .web import db_health

log = logging.getLogger("pgaq.service")
Loop = Callable[[asyncpg.Pool, Listener, asyncio.Event], Coroutine[Any, Any, None]]
Health = Callable[[], Awaitable[web.Response]]
Families = Callable[[], Iterable[Metric]]


def _version() -> str:
    try:
        return version("pgaq")
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class HttpSettings:
    """Where a background service serves /health and /metrics; port 0: nowhere."""

    host: str = "127.0.0.1"
    port: int = 0
    shutdown_timeout: float = 10.0

    @classmethod
    def from_env(cls, name: str, env: Environment | None = None) -> HttpSettings:
        e = env or Environment()
        return cls(host=e.text_or("PGAQ_METRICS_HOST", "127.0.0.1"),
                   port=e.integer(f"PGAQ_{name.upper()}_PORT"),
                   shutdown_timeout=e.number("PGAQ_SHUTDOWN_TIMEOUT"))


def counter(name: str, doc: str, value: float, **labels: str) -> CounterMetricFamily:
    """One counter sample (`name` without `_total`), read from a loop object's attribute."""
    family = CounterMetricFamily(name, doc, labels=list(labels))
    family.add_metric(list(labels.values()), value)
    return family


def gauge(name: str, doc: str, value: float, **labels: str) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, doc, labels=list(labels))
    family.add_metric(list(labels.values()), value)
    return family


class ServiceMetrics(Collector):
    """A service's /metrics: `pgaq_service_up` and `pgaq_service_info` for every service,
    then whatever its loop object counts, read at scrape time by `families` (set with
    `watch` once the object exists; the counters stay where the loop keeps them)."""

    def __init__(self, service: str) -> None:
        self.service = service
        self.families: Families | None = None
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self)

    def watch(self, families: Families) -> None:
        self.families = families

    def collect(self) -> Iterator[Metric]:
        yield gauge("pgaq_service_up", "1 while the service runs", 1, service=self.service)
        yield gauge("pgaq_service_info", "the service and pgaq's version", 1,
                    service=self.service, version=_version())
        if self.families is not None:
            yield from self.families()

    def render(self) -> bytes:
        return generate_latest(self.registry)


@asynccontextmanager
async def serve_http(name: str, settings: HttpSettings, health: Health,
                     metrics: ServiceMetrics) -> AsyncIterator[str | None]:
    """/health and /metrics while the block runs; yields the base URL (None: not served).

    A port already taken (a second notifier on the same host) is logged, not fatal: the
    service's work matters more than its endpoint, and its health check says so."""
    if settings.port == 0:
        yield None
        return

    async def on_health(_request: web.Request) -> web.Response:
        return await health()

    async def on_metrics(_request: web.Request) -> web.Response:
        return web.Response(body=metrics.render(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    app = web.Application()
    app.router.add_get("/health", on_health)
    app.router.add_get("/metrics", on_metrics)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    base: str | None = None
    try:
        try:
            await web.TCPSite(runner, settings.host, settings.port,
                              shutdown_timeout=settings.shutdown_timeout).start()
            base = f"http://{settings.host}:{settings.port}"
            log.info("%s /health and /metrics on %s", name, base)
        except OSError as exc:
            log.error("%s: no /health and /metrics: cannot listen on %s:%s: %s", name,
                      settings.host, settings.port, exc)
        yield base
    finally:
        await asyncio.wait_for(runner.cleanup(), settings.shutdown_timeout + 5)


async def run_loop(name: str, dsn: str, loop: Loop, stop: asyncio.Event, *, pool_max: int = 4,
                   drain: float = 15.0, http: HttpSettings | None = None,
                   metrics: ServiceMetrics | None = None) -> None:
    """Run `loop(pool, listener, stop)` until `stop`; a loop that dies stops the service
    with a non-zero exit. On stop the loop gets `drain` seconds to finish its work. With
    `http`, /health (200 while the pool answers) and /metrics (`metrics`) are served meanwhile."""
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=pool_max)
    listener = Listener(dsn)
    group = TaskGroup(name)
    try:
        await listener.start()
        async with serve_http(name, http or HttpSettings(), lambda: db_health(pool),
                              metrics or ServiceMetrics(name)):
            try:
                group.spawn("loop", loop(pool, listener, stop))
                log.info("%s running", name)
                done: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
                waiters: list[asyncio.Future[Any]] = [done, group.failed]
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
                done.cancel()
                if group.failed.done():
                    raise SystemExit(f"{name} loop died: {group.failed.result()!r}")
            finally:
                stop.set()
                if group.tasks:
                    await asyncio.wait(list(group.tasks), timeout=drain)
                await group.close()
    finally:
        await listener.close()
        await pool.close()


def main_of(name: str, loop: Loop, *, pool_max: int = 4, metrics: ServiceMetrics | None = None) -> None:
    """A service's `main`: logging, PGAQ_DSN, signals, the event loop, its HTTP endpoint
    (PGAQ_<NAME>_PORT) with `metrics` (whose `watch` the loop calls with its counters)."""
    setup_logging()
    warn_unknown(name)
    dsn = Environment().required("PGAQ_DSN")
    http = HttpSettings.from_env(name)

    async def go() -> None:
        stop = asyncio.Event()
        running = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            running.add_signal_handler(sig, stop.set)
        await run_loop(name, dsn, loop, stop, pool_max=pool_max, http=http, metrics=metrics)

    aio_run(go())
