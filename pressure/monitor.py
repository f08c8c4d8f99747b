"""The queue monitor of a run, as a deployment has it (`make run` starts the service): the
delays and retries it ends and the scan floors it raises are part of what the cells
measure. In this process (`pgaq.monitor.serve`); its backends are pgaq's, so the `kill`
cell may end them like any other (it reconnects)."""

from __future__ import annotations

import asyncio

from pgaq.monitor import serve

MONITOR_APP = "pressure-monitor"


class RunningMonitor:
    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(serve(self.dsn, self.stop, application_name=MONITOR_APP),
                                         name="pressure-monitor")

    async def close(self) -> None:
        self.stop.set()
        if self._task is not None:
            await asyncio.wait_for(self._task, 30)
