"""Cell `exhaust`: another client holds every connection the load's role may have. The
load logs in as `pressure_app`; another client opens `PRESSURE_HOG` connections as that role
and the role's CONNECTION LIMIT becomes what it holds, then the load's connections are
ended (pg_terminate_backend), for `PRESSURE_HOLD` s. Every pgaq client that needs a
connection meanwhile (the load's clients reconnecting, a new `pgaq.db.create_pool`, a pooled
`Session`'s first call) must get an error with an Oracle code within its configured timeout
(`PRESSURE_CONNECT_TIMEOUT`), not hang; when the connections are released (and the limit
lifted), every client is back and the throughput back to >= 95 % of clean within
`PRESSURE_RECOVERY` s."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable

import asyncpg
from pgaq import Session
from pgaq.db import create_pool
from pgaq.errors import PgaqError

from .cluster import APP_ROLE
from .figures import Cell, Context, clean_phase, reconnected, recovery, until
from .kill import targets
from .load import Load, connect

HOG = "pressure-fault-hog"
Probe = tuple[str, str | None, float]  # what, the ORA code it got, seconds


async def _grab(ctx: Context) -> asyncpg.Connection:
    return await asyncpg.connect(ctx.cluster.dsn, user=APP_ROLE, timeout=ctx.s.connect_timeout,
                                 server_settings={"application_name": HOG})


async def probe(ctx: Context, what: str, attempt: Callable[[], Awaitable[object]]) -> Probe:
    """A pgaq client that needs a connection now: (what, the ORA code it got, seconds)."""
    t0 = time.monotonic()
    try:
        # a bound on the hang, well past the client's own timeout: a hang is the failure
        await asyncio.wait_for(attempt(), ctx.s.connect_timeout * 3 + 5)
        code: str | None = "connected"
    except PgaqError as exc:
        code = exc.ora
        ctx.say(f"pressure exhaust: {what}: {type(exc).__name__}: {exc}")
    except TimeoutError:
        code = "hung"
    return what, code, time.monotonic() - t0


async def run(ctx: Context, load: Load, cell: Cell) -> None:
    s = ctx.s
    clean = await clean_phase(ctx, load, cell)
    hog = [await _grab(ctx) for _ in range(s.hog)]
    await ctx.admin.execute(f"ALTER ROLE {APP_ROLE} CONNECTION LIMIT {len(hog)}")
    t0 = time.monotonic()
    ended = 0
    probes: list[Probe] = []
    at = t0
    while at < t0 + s.hold:  # the load's connections ended as they come back (none should)
        for pid in await targets(ctx):
            ended += bool(await ctx.admin.fetchval("SELECT pg_terminate_backend($1, 5000)", pid))
        at += 1.0
        await until(min(at, t0 + s.hold))  # the fault's own pacing
        if at >= t0 + s.hold / 2 and not probes:
            probes += await _probes(ctx, load.queue)
    t1 = time.monotonic()
    left = await targets(ctx)
    await ctx.admin.execute(f"ALTER ROLE {APP_ROLE} CONNECTION LIMIT -1")
    for c in hog:
        await c.close()
    refused = [r for r in load.stats.refusals if t0 <= r.at < t1]
    codes = Counter(r.code or "no code" for r in refused)
    slowest = max((r.seconds for r in refused), default=0.0)
    cell.figure("held", len(hog), f"{len(hog)} connections held for {t1 - t0:.0f} s, the role's limit; "
                f"{ended} load backends ended, {len(left)} back at the end; "
                f"under exhaustion {load.rate_between(t0, t1):.1f} msg/s")
    cell.figure("refusals", len(refused), f"the load's clients refused {len(refused)} times, codes "
                f"{dict(codes)}, slowest refusal {slowest:.2f} s (timeout {s.connect_timeout:g} s)")
    cell.figure("probes", len(probes), "probes while held: " + "; ".join(
        f"{w}: {c} in {t:.2f} s" for w, c, t in probes))
    back = await reconnected(load, s.connect_timeout + s.recovery)
    rec = await recovery(load, t1, clean.rate, 0.95, s.recovery)
    cell.figure("recovery_s", -1 if rec is None else rec,
                f"released: every client connected again {'never' if back is None else f'{back:.1f} s'} "
                f"after, throughput back to ≥ 95 % of clean "
                f"{'never' if rec is None else f'{rec:.1f} s'} after")
    probes_ok = bool(probes) and all((c or "").startswith("ORA-") and t <= s.connect_timeout + 1
                                     for _, c, t in probes)
    cell.rule("the load's clients were refused, each with an ORA code",
              bool(refused) and "no code" not in codes)
    cell.rule(f"no refusal took longer than the timeout ({s.connect_timeout:g} s) + 1 s",
              slowest <= s.connect_timeout + 1)
    cell.rule("new pgaq clients refused with an ORA code within the timeout, none hung", probes_ok)
    cell.rule("every client back after the release", back is not None)
    cell.rule(f"back to ≥ 95 % of clean within {s.recovery:g} s",
              rec is not None and rec <= s.recovery, s.strict)


async def _probes(ctx: Context, queue: str) -> list[Probe]:
    """Three pgaq clients that need a connection while none is left."""
    timeout = ctx.s.connect_timeout
    pool = await create_pool(ctx.cluster.dsn, user=APP_ROLE, min_size=0, max_size=1, timeout=timeout)
    pooled = Session(None, pool=pool)
    try:
        return [
            await probe(ctx, "pgaq.db.create_pool", lambda: _open_pool(ctx)),
            await probe(ctx, "a pooled Session's enqueue", lambda: pooled.enqueue(queue, b"probe")),
            await probe(ctx, "a new client's connection",
                        lambda: connect(ctx.cluster.dsn, timeout, APP_ROLE)),
        ]
    finally:
        await pool.close()


async def _open_pool(ctx: Context) -> None:
    pool = await create_pool(ctx.cluster.dsn, user=APP_ROLE, min_size=1, max_size=1,
                             timeout=ctx.s.connect_timeout)
    await pool.close()
