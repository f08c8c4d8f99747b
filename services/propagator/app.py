"""The propagator service: wiring only (settings and the schedules' loop)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import asyncpg
from pgaq.listener import Listener
from pgaq.propagation.runner import Propagator
from pgaq.propagation.settings import PropagatorSettings
from pgaq.service import ServiceMetrics, counter, gauge, main_of
from prometheus_client.core import CounterMetricFamily, Metric


def families(p: Propagator) -> Iterator[Metric]:
    """The propagator's counters on /metrics."""
    yield counter("pgaq_propagator_batches", "batches propagated (committed at the source)", p.batches)
    yield counter("pgaq_propagator_messages", "messages propagated", p.propagated)
    problems = CounterMetricFamily("pgaq_propagator_problems", "schedule failures, schedules "
                                   "disabled, and batches found UNDELIVERABLE", labels=["event"])
    for event in ("FAILURE", "DISABLED", "UNDELIVERABLE"):
        problems.add_metric([event], p.problems.get(event, 0))
    yield problems
    yield gauge("pgaq_propagator_schedules", "schedules this propagator holds", p.schedules)


def main() -> None:
    settings = PropagatorSettings.from_env()
    metrics = ServiceMetrics("propagator")

    async def loop(pool: asyncpg.Pool, listener: Listener, stop: asyncio.Event) -> None:
        propagator = Propagator(pool, listener, settings)
        metrics.watch(lambda: families(propagator))
        await propagator.run(stop)

    main_of("propagator", loop, pool_max=10, metrics=metrics)  # a batch holds a source connection
