"""Cell `kill`: pg_terminate_backend of a random pgaq backend (the load's connections and
the shared listening connection pgaq opens for them; never the driver's) `PRESSURE_KILL_RATE`
times a second for `PRESSURE_KILL_SECONDS`. Rule: throughput under the kills ≥ 90 % of the
clean rate measured just before; back to ≥ 95 % within `PRESSURE_RECOVERY` s after. The
topic beside the queue (pressure.topic) is under the same kills (its clients are targets
too) and held to the same rules."""

from __future__ import annotations

import asyncio
import time

from .figures import Cell, Context, clean_phase, ratio, reconnected, recovery, until
from .load import Load
from .topic import Topic

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


async def run(ctx: Context, load: Load, cell: Cell, topic: Topic | None = None) -> None:
    s = ctx.s
    clean = await clean_phase(ctx, load, cell)
    if topic is not None:
        topic.clean_phase(cell, clean)
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
    if topic is not None:
        topic_r, _ = topic.under_fault(cell, t0, t1, "under the kills")
        (rec, back), (topic_rec, topic_back) = await asyncio.gather(
            _recovered(load, clean.rate, t1, s.recovery), topic.recovery(t1))
    else:
        rec, back = await _recovered(load, clean.rate, t1, s.recovery)
    cell.figure("recovery_s", -1 if rec is None else rec,
                f"back to ≥ 95 % of clean {'never' if rec is None else f'{rec:.1f} s'} after the "
                f"last kill; every client connected again "
                f"{'never' if back is None else f'{back:.1f} s'} after that")
    cell.rule("throughput under the kills ≥ 90 % of clean", r >= 0.90, s.strict)
    cell.rule(f"back to ≥ 95 % within {s.recovery:g} s", rec is not None and rec <= s.recovery, s.strict)
    cell.rule("recovered at all (≥ 95 % of clean, every client connected)",
              rec is not None and back is not None)
    if topic is not None:
        cell.figure("topic_recovery_s", -1 if topic_rec is None else topic_rec,
                    f"topic back to ≥ 95 % of clean {'never' if topic_rec is None else f'{topic_rec:.1f} s'} "
                    f"after the last kill; every topic client connected again "
                    f"{'never' if topic_back is None else f'{topic_back:.1f} s'} after that")
        cell.rule("topic: deliveries under the kills ≥ 90 % of clean", topic_r >= 0.90, s.strict)
        cell.rule(f"topic: back to ≥ 95 % within {s.recovery:g} s",
                  topic_rec is not None and topic_rec <= s.recovery, s.strict)
        cell.rule("topic: recovered at all (≥ 95 % of clean, every client connected)",
                  topic_rec is not None and topic_back is not None)


async def _recovered(load: Load, clean: float, since: float,
                     limit: float) -> tuple[float | None, float | None]:
    """(seconds back to 95 % of clean, then until every client is connected), None: not in time."""
    rec = await recovery(load, since, clean, 0.95, limit)
    return rec, await reconnected(load, limit)
