"""The statistics service: wiring only (settings, the scheduler, signals)."""

from __future__ import annotations

import asyncio
import signal

from pgaq.aio import run as aio_run
from pgaq.errors import PgaqError
from pgaq.logs import setup_logging
from pgaq.settings import warn_unknown
from pgaq.stats import MISSING, available
from pgaq.stats.scheduler import StatsScheduler
from pgaq.stats.settings import StatsSettings


def main() -> None:
    setup_logging()
    warn_unknown("stats")
    if not available():
        raise SystemExit(f"stats: {MISSING}")
    try:
        settings = StatsSettings.from_env()
    except PgaqError as exc:
        raise SystemExit(str(exc)) from exc

    async def go() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await StatsScheduler(settings).run(stop)

    aio_run(go())
