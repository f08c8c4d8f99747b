"""A harness run that SIGTERM stops the way Ctrl-C does."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_stoppable(main: Coroutine[Any, Any, T]) -> T:
    """asyncio.run(main) with SIGTERM cancelling it: the run's finally then takes its
    clusters and services down. They run in sessions of their own, so SIGTERM's default
    (the driver dies alone) left them running. Raises CancelledError when stopped."""

    async def stoppable() -> T:
        task = asyncio.current_task()
        assert task is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        return await main

    return asyncio.run(stoppable())
