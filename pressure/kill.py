"""Cell `kill`: pg_terminate_backend of a random pgaq backend (the load's connections and
the shared listening connection pgaq opens for them; never the driver's) `PRESSURE_KILL_RATE`
times a second for `PRESSURE_KILL_SECONDS`. Rule: throughput under the kills ≥ 90 % of the
clean rate measured just before; back to ≥ 95 % within `PRESSURE_RECOVERY` s after."""

from __future__ import annotations

import time

from .figures import Cell, Context, clean_phase, ratio, reconnected, recovery, until
from .load import Load

# every client backend of the database but the driver's own and the other faults'
TARGETS = """
SELECT pid FROM pg_stat_activity
WHERE datname = current_database() AND backend_type = 'client backend'
  AND pid <> pg_backend_pid() AND coalesce(application_name, '') NOT LIKE 'pressure-driver%'
  AND coalesce(application_name, '') NOT LIKE 'pressure-fault%'
ORDER BY pid
"""


async def targets(ctx: Context) -> list[int]:
    return [r["pid"] for r in await ctx.admin.fetch(TARGETS)]


async def run(ctx: Context, load: Load, cell: Cell) -> None:
    s = ctx.s
    clean = await clean_phase(ctx, load, cell)
    t0 = time.monotonic()
    kills = 0
    at = t0
    while at < t0 + s.kill_seconds:
        pids = await targets(ctx)
        if pids:
            pid = ctx.rng.choice(pids)
            if await ctx.admin.fetchval("SELECT pg_terminate_backend($1)", pid):
                kills += 1
        at += 1 / s.kill_rate
        await until(at)  # the fault schedule's own pacing
    t1 = time.monotonic()
    under = load.rate_between(t0, t1)
    r = ratio(under, clean.rate)
    cell.figure("kills", kills, f"{kills} backends terminated in {t1 - t0:.0f} s; "
                f"{load.stats.reconnects} client reconnects; errors seen {dict(load.stats.errors)}")
    cell.figure("under_ratio", round(r, 3),
                f"under the kills {under:.1f} msg/s = {r:.1%} of clean; dequeue transaction p99 "
                f"{load.p99(load.stats.txn, t0, t1):.1f} ms, pickup p50 "
                f"{load.p99(load.stats.pickup, t0, t1, 0.5):.1f} ms, p99 "
                f"{load.p99(load.stats.pickup, t0, t1):.1f} ms, max "
                f"{load.p99(load.stats.pickup, t0, t1, 1.0):.0f} ms")
    rec = await recovery(load, t1, clean.rate, 0.95, s.recovery)
    back = await reconnected(load, s.recovery)
    cell.figure("recovery_s", -1 if rec is None else rec,
                f"back to ≥ 95 % of clean {'never' if rec is None else f'{rec:.1f} s'} after the "
                f"last kill; every client connected again "
                f"{'never' if back is None else f'{back:.1f} s'} after that")
    cell.rule("throughput under the kills ≥ 90 % of clean", r >= 0.90, s.strict)
    cell.rule(f"back to ≥ 95 % within {s.recovery:g} s", rec is not None and rec <= s.recovery, s.strict)
    cell.rule("recovered at all (≥ 95 % of clean, every client connected)",
              rec is not None and back is not None)
