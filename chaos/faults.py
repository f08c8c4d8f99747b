"""The fault driver: SIGKILLs, a PostgreSQL restart, a cut link and failing sinks, in a
seeded random order at seeded random moments."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable

from .mesh import Mesh
from .sinks import HttpSink, SmtpSink


async def _smtp_outage(smtp: SmtpSink, seconds: float) -> None:
    """Half the time 451 for every recipient, then the server gone (connections refused)."""
    await _fail_for(smtp, seconds / 2)
    await smtp.refuse(seconds / 2)


async def _fail_for(flag_owner: HttpSink | SmtpSink, seconds: float) -> None:
    flag_owner.failing = True
    try:
        await asyncio.sleep(seconds)  # the fault's own duration
    finally:
        flag_owner.failing = False


class Progress:
    """How far the fault driver is; the load waits on it so its messages are spread over
    the faults instead of all going before the first one."""

    def __init__(self) -> None:
        self.share = 0.0
        self._changed = asyncio.Condition()

    async def advance(self, share: float) -> None:
        async with self._changed:
            self.share = share
            self._changed.notify_all()

    async def reached(self, share: float) -> None:
        async with self._changed:
            await self._changed.wait_for(lambda: self.share >= share)


async def fault_driver(mesh: Mesh, rng: random.Random, log: Callable[[str], None],
                       progress: Progress) -> None:
    """Every service SIGKILLed `kills` times, PostgreSQL restarted once, the link cut and
    both sinks failing once each: in a seeded random order, at seeded random moments."""
    s = mesh.s
    faults: list[tuple[str, str]] = [("kill", n) for n in mesh.services for _ in range(s.kills)]
    faults += [("postgres", ""), ("cut", ""), ("http", ""), ("smtp", "")]
    rng.shuffle(faults)
    pending: list[asyncio.Task[None]] = []
    t0 = time.monotonic()
    for n, (kind, name) in enumerate(faults):
        await asyncio.sleep(rng.uniform(*s.gap))  # the random moments are the point
        await progress.advance((n + 1) / len(faults))  # a share of the load, and at once a fault
        outage = rng.uniform(*s.outage)
        log(f"fault +{time.monotonic() - t0:6.1f}s {kind} {name}".rstrip())
        work: Awaitable[None]
        if kind == "kill":
            work = mesh.services[name].kill()
        elif kind == "postgres":
            work = mesh.restart_postgres()
        elif kind == "cut":
            assert mesh.proxy is not None
            work = mesh.proxy.cut(outage)
        elif kind == "http":
            work = _fail_for(mesh.http, outage)
        else:
            work = _smtp_outage(mesh.smtp, outage)
        if kind in ("cut", "http", "smtp"):
            pending.append(asyncio.ensure_future(work))  # lasts while the next faults come
        else:
            await work
    await progress.advance(1.0)
    await asyncio.gather(*pending)
