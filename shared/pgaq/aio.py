"""Small asyncio helpers shared by every service."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from .settings import Environment

log = logging.getLogger("pgaq")


async def wait_any(event: asyncio.Event, timeout: float | None, stop: asyncio.Event) -> bool:
    """Wait until `event` or `stop` is set, or `timeout` passes; True when `event` fired.

    The event is cleared when it fired, so callers loop without missing a wake-up that
    arrives while they work (the setter sets it again).
    """
    if event.is_set():
        event.clear()
        return True
    if stop.is_set():
        return False
    waiters = [asyncio.ensure_future(event.wait()), asyncio.ensure_future(stop.wait())]
    try:
        await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waiters:
            w.cancel()
    fired = event.is_set()
    if fired:
        event.clear()
    return fired


class TaskGroup:
    """Named, watched background tasks: one dying task stops the whole service loudly."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.tasks: set[asyncio.Task[Any]] = set()
        self.failed: asyncio.Future[BaseException] = asyncio.get_running_loop().create_future()

    def spawn(self, name: str, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro, name=f"{self.name}:{name}")
        self.tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("task %s died: %r", task.get_name(), exc, exc_info=exc)
            if not self.failed.done():
                self.failed.set_result(exc)

    async def close(self, timeout: float = 10.0) -> None:
        for t in list(self.tasks):
            t.cancel()
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=timeout)


T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    """asyncio.run on uvloop when it is installed (its sockets cost a service about a
    third less CPU per request); PGAQ_EVENT_LOOP=asyncio keeps the standard loop."""
    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    if (Environment().text("PGAQ_EVENT_LOOP") or "").lower() != "asyncio":
        try:
            import uvloop

            factory = uvloop.new_event_loop
        except ImportError:
            pass
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)
