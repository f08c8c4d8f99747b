"""What the tests of waits share: polling the server's state (not the time) until it shows
what is awaited, and a connection of one's own."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime

import asyncpg


async def until(check: Callable[[], Awaitable[object] | object], what: str,
                timeout: float = 10.0) -> None:
    """Look again until the server (or a library object's own state, `check` returning a
    plain value) shows what is awaited: its state, not the time."""
    deadline = time.monotonic() + timeout
    while not await _value(check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.002)


async def _value(got: Awaitable[object] | object) -> object:
    return await got if inspect.isawaitable(got) else got


@contextlib.asynccontextmanager
async def connected(dsn: str) -> AsyncIterator[asyncpg.Connection]:
    c = await asyncpg.connect(dsn)
    try:
        yield c
    finally:
        await c.close()


async def asleep(admin: asyncpg.Connection, pid: int) -> None:
    """The waiter is between looks (its loop sleeps in pg_sleep)."""
    await until(lambda: admin.fetchval(
        "SELECT wait_event = 'PgSleep' FROM pg_stat_activity WHERE pid = $1", pid), "the waiter to sleep")


async def looked_again(admin: asyncpg.Connection, pid: int) -> None:
    """The waiter has made a whole look begun after this call. It looks when a transaction
    of the cluster has ended (its snapshot changed), so one is ended here, twice; outside a
    transaction block each look commits, which shows in pg_stat_activity.xact_start."""
    for _ in range(2):
        t = await admin.fetchval("SELECT clock_timestamp()")
        await admin.execute("SELECT pg_current_xact_id()")

        async def committed_since(t: datetime = t) -> bool:
            xs = await admin.fetchval("SELECT xact_start FROM pg_stat_activity WHERE pid = $1", pid)
            return xs is not None and xs > t

        await until(committed_since, "a look")


async def xmin(admin: asyncpg.Connection, pid: int) -> int | None:
    v = await admin.fetchval("SELECT backend_xmin::text FROM pg_stat_activity WHERE pid = $1", pid)
    return None if v is None else int(v)


async def burn_xids(admin: asyncpg.Connection, n: int = 5) -> None:
    for _ in range(n):
        await admin.execute("SELECT pg_current_xact_id()")
