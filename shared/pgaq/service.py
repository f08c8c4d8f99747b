"""The shape every background service shares (monitor, notifier, propagator): a pool and
a LISTEN connection, one watched loop, SIGTERM/SIGINT stopping it gracefully and bounded."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Coroutine
from typing import Any

import asyncpg

from .aio import TaskGroup
from .aio import run as aio_run
from .listener import Listener
from .logs import setup_logging
from .settings import Environment, warn_unknown

log = logging.getLogger("pgaq.service")
Loop = Callable[[asyncpg.Pool, Listener, asyncio.Event], Coroutine[Any, Any, None]]


async def run_loop(name: str, dsn: str, loop: Loop, stop: asyncio.Event, *, pool_max: int = 4,
                   drain: float = 15.0) -> None:
    """Run `loop(pool, listener, stop)` until `stop`; a loop that dies stops the service
    with a non-zero exit. On stop the loop gets `drain` seconds to finish its work."""
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=pool_max)
    listener = Listener(dsn)
    await listener.start()
    group = TaskGroup(name)
    try:
        group.spawn("loop", loop(pool, listener, stop))
        log.info("%s running", name)
        done: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
        waiters: list[asyncio.Future[Any]] = [done, group.failed]
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        done.cancel()
        if group.failed.done():
            raise SystemExit(f"{name} loop died: {group.failed.result()!r}")
    finally:
        stop.set()
        if group.tasks:
            await asyncio.wait(list(group.tasks), timeout=drain)
        await group.close()
        await listener.close()
        await pool.close()


def main_of(name: str, loop: Loop, *, pool_max: int = 4) -> None:
    """A service's `main`: logging, PGAQ_DSN, signals, the event loop."""
    setup_logging()
    warn_unknown(name)
    dsn = Environment().required("PGAQ_DSN")

    async def go() -> None:
        stop = asyncio.Event()
        running = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            running.add_signal_handler(sig, stop.set)
        await run_loop(name, dsn, loop, stop, pool_max=pool_max)

    aio_run(go())
