"""The gateway's Prometheus metrics, apart from app.py (the wiring) so the servlet can name
them without an import cycle."""

from __future__ import annotations

import os
from typing import Any

from pgaq.idap.sessions import SessionStore
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest


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
