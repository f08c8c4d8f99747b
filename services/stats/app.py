"""The statistics service: wiring only (settings, the scheduler, signals)."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator

from aiohttp import web
from pgaq.aio import run as aio_run
from pgaq.errors import PgaqError
from pgaq.logs import setup_logging
from pgaq.service import HttpSettings, ServiceMetrics, gauge, serve_http
from pgaq.settings import Environment, warn_unknown
from pgaq.stats import MISSING, available
from pgaq.stats.scheduler import StatsScheduler
from pgaq.stats.settings import StatsSettings
from prometheus_client.core import CounterMetricFamily, Metric


def families(s: StatsScheduler) -> Iterator[Metric]:
    """The scheduler's counters on /metrics."""
    runs = CounterMetricFamily("pgaq_stats_runs",
                               "statistics runs by outcome (ok, failed, timeout, interrupted)",
                               labels=["outcome"])
    for outcome, n in s.runs.items():
        runs.add_metric([outcome], n)
    yield runs
    yield gauge("pgaq_stats_running", "1 while a statistics run is in progress", int(s.current is not None))
    if s.last_run is not None:
        yield gauge("pgaq_stats_last_run_seconds", "how long the last run took", float(s.last_run["seconds"]))


async def health(s: StatsScheduler) -> web.Response:
    """200 while the scheduler runs (whatever the last run did: /metrics counts the
    failures), with the last run and the run in progress (its job's pid, which is also its
    process group); 503 once it has stopped."""
    current = None if s.current is None else {"pid": s.current.pid}
    body = {"status": "ok" if s.running else "stopped", "last_run": s.last_run, "runs": s.runs,
            "current": current}
    return web.json_response(body, status=200 if s.running else 503)


def main() -> None:
    setup_logging()
    warn_unknown("stats")
    if not available():
        raise SystemExit(f"stats: {MISSING}")
    try:
        settings = StatsSettings.from_env()
    except PgaqError as exc:
        raise SystemExit(str(exc)) from exc
    # half the stop's budget for the run, so the run is over before `pgaq up` (which gives
    # this service the whole budget) would SIGKILL the service and orphan the JVM
    grace = Environment().number("PGAQ_SHUTDOWN_TIMEOUT") / 2

    async def go() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        scheduler = StatsScheduler(settings)
        metrics = ServiceMetrics("stats")
        metrics.watch(lambda: families(scheduler))
        async with serve_http("stats", HttpSettings.from_env("stats"), lambda: health(scheduler), metrics):
            await scheduler.run(stop, shutdown_timeout=grace)

    aio_run(go())
