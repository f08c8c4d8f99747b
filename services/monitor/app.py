"""The queue monitor service: wiring only (settings, pool, listener, signals)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Mapping

import asyncpg
from pgaq.listener import Listener
from pgaq.monitor import Monitor, MonitorSettings
from pgaq.service import ServiceMetrics, counter, main_of
from pgaq.settings import Environment
from prometheus_client.core import Metric

log = logging.getLogger("pgaq.monitor")


def settings_from_env(env: Mapping[str, str] | None = None) -> tuple[str, MonitorSettings]:
    e = Environment(env)
    return e.required("PGAQ_DSN"), MonitorSettings(
        batch=e.integer("PGAQ_MONITOR_BATCH"),
        safety_poll=e.number("PGAQ_SAFETY_POLL"),
        snapshot_period=e.number("PGAQ_SNAPSHOT_PERIOD"),
        propagated_keep=e.number("PGAQ_PROPAGATED_KEEP"),
        history_keep=e.number("PGAQ_HISTORY_KEEP"),
        attempt_waiters=e.integer("PGAQ_ATTEMPT_WAITERS"),
        attempt_wait=e.number("PGAQ_ATTEMPT_WAIT"),
        busy_retry=e.number("PGAQ_MONITOR_BUSY_RETRY"),
        scan_floor_period=e.number("PGAQ_SCAN_FLOOR_PERIOD"),
    )


def families(m: Monitor) -> Iterator[Metric]:
    """The monitor's counters on /metrics."""
    yield counter("pgaq_monitor_passes", "monitor passes over the due messages", m.passes)
    yield counter("pgaq_monitor_busy_passes", "passes that left due messages held by transactions",
                  m.busy_passes)
    yield counter("pgaq_monitor_done", "messages made ready, expired or settled", m.done)
    yield counter("pgaq_monitor_attempts_settled", "dequeue attempts settled", m.attempts_settled)
    yield counter("pgaq_monitor_scan_floor_rounds", "rounds raising the queue tables' scan floors",
                  m.floor_rounds)
    yield counter("pgaq_monitor_history_pruned", "propagation log and snapshot rows pruned",
                  m.history_pruned)


def main() -> None:
    _, settings = settings_from_env()
    metrics = ServiceMetrics("monitor")

    async def loop(pool: asyncpg.Pool, listener: Listener, stop: asyncio.Event) -> None:
        monitor = Monitor(pool, listener, settings)
        metrics.watch(lambda: families(monitor))
        await monitor.run(stop)

    main_of("monitor", loop, pool_max=3 + settings.attempt_waiters,  # + one waiting for a held message
            metrics=metrics)
