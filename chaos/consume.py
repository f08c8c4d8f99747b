"""Consumers at the final destinations: each dequeue commits in one transaction with a
row in `chaos_ledger`, so the ledger says exactly which ids were dequeued, how often.
They survive the database's restart (reconnect) and wake on the queue's NOTIFY."""

from __future__ import annotations

import asyncio
import contextlib

import asyncpg
from pgaq import DequeueOptions, Session
from pgaq.errors import PgaqError

LEDGER = "CREATE TABLE IF NOT EXISTS chaos_ledger (dest text NOT NULL, id text NOT NULL)"


class Consumer:
    """Dequeues `queue` in `dsn` into the ledger under the name `dest` until stopped."""

    def __init__(self, dsn: str, queue: str, dest: str) -> None:
        self.dsn = dsn
        self.queue = queue
        self.dest = dest
        self.count = 0
        self.reconnects = 0
        self.stop = asyncio.Event()
        self._wake = asyncio.Event()

    async def run(self) -> None:
        while not self.stop.is_set():
            try:
                await self._session()
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, PgaqError):
                # the database restarted under us; an error of the engine's own (a bug)
                # would show as ids never dequeued, not be hidden here
                if self.stop.is_set():
                    return
                self.reconnects += 1
                await asyncio.sleep(0.2)  # the database is restarting

    async def _session(self) -> None:
        conn = await asyncpg.connect(self.dsn)
        try:
            s = Session(conn)
            await conn.add_listener(f"aq_{await s.queue_id(self.queue)}", lambda *_: self._wake.set())
            opts = DequeueOptions(batch_size=200, wait=0)
            while not self.stop.is_set():
                self._wake.clear()
                await s.begin()
                try:
                    got = await s.dequeue(self.queue, opts)
                    if got:
                        await conn.executemany("INSERT INTO chaos_ledger VALUES ($1, $2)",
                                               [(self.dest, _text(m.payload)) for m in got])
                    await s.commit()
                except BaseException:
                    with contextlib.suppress(Exception):
                        await s.rollback()
                    raise
                self.count += len(got)
                if not got:
                    stop = asyncio.ensure_future(self.stop.wait())
                    wake = asyncio.ensure_future(self._wake.wait())
                    await asyncio.wait([stop, wake], timeout=5, return_when=asyncio.FIRST_COMPLETED)
                    stop.cancel()
                    wake.cancel()
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), 5)


def _text(payload: object) -> str:
    assert isinstance(payload, (bytes, bytearray, memoryview)), payload
    return bytes(payload).decode()
