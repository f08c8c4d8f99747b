"""Concurrency per destination for the senders without a connector of their own (plsql
procedures, the SMTP server): a slow destination fills its own slots, never the others'."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class DestinationLimits:
    def __init__(self) -> None:
        self._slots: dict[str, tuple[asyncio.Semaphore, int]] = {}

    @asynccontextmanager
    async def slot(self, key: str, size: int) -> AsyncIterator[None]:
        """Holds one of `size` slots of `key`; the semaphore goes when nobody uses it."""
        sem, users = self._slots.get(key, (asyncio.Semaphore(max(1, size)), 0))
        self._slots[key] = (sem, users + 1)
        try:
            async with sem:
                yield
        finally:
            sem, users = self._slots[key]
            if users <= 1:
                del self._slots[key]
            else:
                self._slots[key] = (sem, users - 1)
