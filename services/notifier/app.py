"""The notifier service: wiring only (settings and the delivery loop)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import asyncpg
from pgaq.listener import Listener
from pgaq.notify.dispatcher import Notifier
from pgaq.notify.settings import NotifierSettings
from pgaq.service import ServiceMetrics, gauge, main_of
from prometheus_client.core import CounterMetricFamily, Metric


def families(n: Notifier) -> Iterator[Metric]:
    """The notifier's counters on /metrics."""
    stats = n.stats()
    outcomes = CounterMetricFamily("pgaq_notifier_deliveries", "delivery attempts by outcome "
                                   "(retried: failed, tried again later; failed: for good)",
                                   labels=["outcome"])
    for outcome in ("delivered", "retried", "failed"):
        outcomes.add_metric([outcome], stats[outcome])
    yield outcomes
    yield gauge("pgaq_notifier_in_flight", "deliveries running now", stats["in_flight"])


def main() -> None:
    settings = NotifierSettings.from_env()
    metrics = ServiceMetrics("notifier")

    async def loop(pool: asyncpg.Pool, listener: Listener, stop: asyncio.Event) -> None:
        notifier = Notifier(pool, listener, settings)
        metrics.watch(lambda: families(notifier))
        await notifier.run(stop)

    # short statements only: plsql:// procedures run on the callback login's own
    # connections (PGAQ_NOTIFY_PLSQL_CONNECTIONS)
    main_of("notifier", loop, pool_max=8, metrics=metrics)
