"""The queue monitor service: wiring only (settings, pool, listener, signals)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

import asyncpg
from pgaq.listener import Listener
from pgaq.monitor import Monitor, MonitorSettings
from pgaq.service import main_of
from pgaq.settings import Environment

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
    )


def main() -> None:
    _, settings = settings_from_env()

    async def loop(pool: asyncpg.Pool, listener: Listener, stop: asyncio.Event) -> None:
        await Monitor(pool, listener, settings).run(stop)

    main_of("monitor", loop, pool_max=3 + settings.attempt_waiters)  # + one waiting for a held message
