"""The propagator service: wiring only (settings and the schedules' loop)."""

from __future__ import annotations

import asyncio

import asyncpg
from pgaq.listener import Listener
from pgaq.propagation.runner import Propagator
from pgaq.propagation.settings import PropagatorSettings
from pgaq.service import main_of


def main() -> None:
    settings = PropagatorSettings.from_env()

    async def loop(pool: asyncpg.Pool, listener: Listener, stop: asyncio.Event) -> None:
        await Propagator(pool, listener, settings).run(stop)

    main_of("propagator", loop, pool_max=10)  # a batch holds a source connection
