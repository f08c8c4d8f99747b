"""The core service's logic, kept out of the HTTP wiring so it is reusable and testable:
queue depths for Prometheus (read at scrape time), queue listings, JSON admin calls."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import asyncpg
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric

from . import db
from .errors import ConnectionLost, PgaqError

log = logging.getLogger("pgaq.core")

# SQLSTATE classes of errors the caller caused: data, integrity, names/syntax, raised
_CLIENT_CLASSES = ("22", "23", "42", "P0")
_MISSING_OBJECT = ("42P01", "42883", "3F000")


def http_status(err: PgaqError) -> int:
    """400 for what the caller can fix (bad names, values, ORA refusals), 5xx for our faults."""
    state = err.sqlstate or ""
    if isinstance(err, ConnectionLost):
        return 503
    if state == "42501" or err.code == 1031:
        return 403
    if err.code is not None or state[:2] in _CLIENT_CLASSES:
        return 400
    return 500


class _Snapshot:
    """A prometheus collector over rows already fetched: one per scrape, so concurrent
    scrapes never see each other's rows."""

    def __init__(self, rows: list[asyncpg.Record], database_up: bool) -> None:
        self.rows = rows
        self.database_up = database_up

    def collect(self) -> Iterator[Metric]:
        depth = GaugeMetricFamily("pgaq_queue_messages", "messages in a queue by state",
                                  labels=["schema", "queue", "state"])
        for r in self.rows:
            depth.add_metric([r["queue_schema"], r["queue_name"], r["state"]], float(r["messages"]))
        yield depth
        up = GaugeMetricFamily("pgaq_up", "the core service is up")
        up.add_metric([], 1.0)
        yield up
        dbup = GaugeMetricFamily("pgaq_database_up", "the database answered the last scrape")
        dbup.add_metric([], 1.0 if self.database_up else 0.0)
        yield dbup


class DepthMetrics:
    """Prometheus text for /metrics, queried when scraped (no background polling)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self._missing_logged = False

    async def render(self) -> bytes:
        rows: list[asyncpg.Record] = []
        database_up = True
        try:
            rows = await db.fetch(self.pool, "core_queue_depths")
        except PgaqError as exc:
            if exc.sqlstate in _MISSING_OBJECT:
                if not self._missing_logged:  # an older schema: say it once, not every scrape
                    log.warning("aq.queue_depths is not available; no queue metrics: %s", exc)
                    self._missing_logged = True
            else:
                database_up = False
                log.warning("queue depths unavailable: %s", exc)
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_Snapshot(rows, database_up))
        body: bytes = generate_latest(registry)
        return body


async def admin_call(pool: asyncpg.Pool, procedure: str, args: Any) -> None:
    """CALL dbms_aqadm.<procedure>(name => value...): aq.admin_call checks every name."""
    await db.fetchval(pool, "core_admin_call", procedure, json.dumps(args))


def _queue_json(row: asyncpg.Record) -> dict[str, Any]:
    out = dict(row)
    if isinstance(out.get("depths"), str):
        out["depths"] = json.loads(out["depths"])
    return out


async def list_queues(pool: asyncpg.Pool) -> list[dict[str, Any]]:
    return [_queue_json(r) for r in await db.fetch(pool, "core_queues")]


async def get_queue(pool: asyncpg.Pool, schema: str, name: str) -> dict[str, Any] | None:
    """One queue with its depths; unquoted Oracle names fold to lower case, so try that too."""
    for s, n in ((schema, name), (schema.lower(), name.lower())):
        rows = await db.fetch(pool, "core_queue", s, n)
        if rows:
            return _queue_json(rows[0])
    return None
