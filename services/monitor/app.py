"""The queue monitor service: wiring only (settings, pool, listener, signals)."""

from __future__ import annotations

import asyncio
import logging
import os

import asyncpg
from pgaq.listener import Listener
from pgaq.monitor import Monitor, MonitorSettings
from pgaq.service import main_of

log = logging.getLogger("pgaq.monitor")


def settings_from_env(env: dict[str, str] | None = None) -> tuple[str, MonitorSettings]:
    e = dict(os.environ if env is None else env)
    dsn = e.get("PGAQ_DSN")
    if not dsn:
        raise SystemExit("PGAQ_DSN is required")
    return dsn, MonitorSettings(
        batch=int(e.get("PGAQ_MONITOR_BATCH", "5000")),
        safety_poll=float(e.get("PGAQ_SAFETY_POLL", "5")),
        snapshot_period=float(e.get("PGAQ_SNAPSHOT_PERIOD", "60")),
        propagated_keep=float(e.get("PGAQ_PROPAGATED_KEEP", str(7 * 86400))),
        history_keep=float(e.get("PGAQ_HISTORY_KEEP", str(7 * 86400))),
        attempt_waiters=int(e.get("PGAQ_ATTEMPT_WAITERS", "1")),
        attempt_wait=float(e.get("PGAQ_ATTEMPT_WAIT", "60")),
        busy_retry=float(e.get("PGAQ_MONITOR_BUSY_RETRY", "0.5")),
    )


def main() -> None:
    _, settings = settings_from_env()

    async def loop(pool: asyncpg.Pool, listener: Listener, stop: asyncio.Event) -> None:
        await Monitor(pool, listener, settings).run(stop)

    main_of("monitor", loop, pool_max=3 + settings.attempt_waiters)  # + one waiting for a held message
