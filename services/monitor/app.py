"""The queue monitor service: wiring only (settings, pool, listener, signals)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from typing import Any

import asyncpg
from pgaq.aio import TaskGroup
from pgaq.listener import Listener
from pgaq.logs import setup_logging
from pgaq.monitor import Monitor, MonitorSettings

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
    )


async def run(dsn: str, settings: MonitorSettings, stop: asyncio.Event) -> None:
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=2)
    listener = Listener(dsn)
    await listener.start()
    group = TaskGroup("monitor")
    try:
        group.spawn("loop", Monitor(pool, listener, settings).run(stop))
        done: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
        waiters: list[asyncio.Future[Any]] = [done, group.failed]
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        done.cancel()
        if group.failed.done():
            raise SystemExit(f"monitor loop died: {group.failed.result()!r}")
    finally:
        stop.set()
        await group.close()
        await listener.close()
        await pool.close()


def main() -> None:
    setup_logging()
    dsn, settings = settings_from_env()

    async def go() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await run(dsn, settings, stop)

    asyncio.run(go())
