"""The queue monitor of a run, as a deployment has it (`make run` starts the service): the
delays and retries it ends and the scan floors it raises are part of what the cells
measure. In this process, on its own pool; its backends are pgaq's, so the `kill` cell
may end them like any other (it reconnects)."""

from __future__ import annotations

import asyncio

import asyncpg
from pgaq.listener import Listener
from pgaq.monitor import Monitor, MonitorSettings

MONITOR_APP = "pressure-monitor"


class RunningMonitor:
    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.stop = asyncio.Event()
        self.monitor: Monitor | None = None
        self._pool: asyncpg.Pool | None = None
        self._listener: Listener | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._pool = await asyncpg.create_pool(self.dsn, min_size=1, max_size=4,
                                               server_settings={"application_name": MONITOR_APP})
        self._listener = Listener(self.dsn)
        await self._listener.start()
        self.monitor = Monitor(self._pool, self._listener, MonitorSettings())
        self._task = asyncio.create_task(self.monitor.run(self.stop), name="pressure-monitor")

    async def close(self) -> None:
        self.stop.set()
        if self._task is not None:
            await asyncio.wait_for(self._task, 30)
        if self._listener is not None:
            await self._listener.close()
        if self._pool is not None:
            await self._pool.close()
