"""The propagator service: wiring only (settings, pool, listener, signals)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from typing import Any

import asyncpg
from pgaq.aio import TaskGroup
from pgaq.aio import run as aio_run
from pgaq.listener import Listener
from pgaq.logs import setup_logging
from pgaq.propagation.runner import Propagator
from pgaq.propagation.settings import PropagatorSettings

log = logging.getLogger("pgaq.propagator")


async def run(dsn: str, settings: PropagatorSettings, stop: asyncio.Event) -> None:
    # a batch holds a source connection for its transaction
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=10)
    listener = Listener(dsn)
    await listener.start()
    group = TaskGroup("propagator")
    try:
        group.spawn("loop", Propagator(pool, listener, settings).run(stop))
        log.info("propagator %s running schedules", settings.name)
        done: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
        waiters: list[asyncio.Future[Any]] = [done, group.failed]
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        done.cancel()
        if group.failed.done():
            raise SystemExit(f"propagator loop died: {group.failed.result()!r}")
    finally:
        stop.set()
        if group.tasks:  # let the loop finish its deliveries and record them (bounded)
            await asyncio.wait(list(group.tasks), timeout=15.0)
        await group.close()
        await listener.close()
        await pool.close()


def main() -> None:
    setup_logging()
    dsn = os.environ.get("PGAQ_DSN")
    if not dsn:
        raise SystemExit("PGAQ_DSN is required")
    settings = PropagatorSettings.from_env()

    async def go() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await run(dsn, settings, stop)

    aio_run(go())
