"""Cell `idle`: a session `BEGIN; SELECT txid_current();` then idle in transaction for
`PRESSURE_IDLE_SECONDS`, pinning the xmin horizon: vacuum can remove none of the rows the
consumers delete meanwhile. Rules: throughput ≥ 70 % of clean, dequeue transaction p99
≤ 50 ms, the queue table's growth reported; once the session ends, autovacuum (or, after
`PRESSURE_VACUUM_WAIT` s, a VACUUM) reclaims the dead rows and the table stops growing.
The topic beside the queue (pressure.topic) is pinned too: its deliveries ≥ 70 % of its
clean rate and its dequeue p99 ≤ 50 ms while pinned; held against its own clean phase
(the machine's noise, not the pin, can set a p99), its dequeue p99 ≤ max(50 ms, 2 x clean),
over the whole pin and over its last quarter (a cost growing with the pin shows there);
its storage growth reported."""

from __future__ import annotations

import asyncio
import time

from .cluster import dead_tuples, table_bytes
from .figures import Cell, Context, clean_phase, recovery, under_fault
from .load import Load
from .topic import Topic

MIB = 1024 * 1024


async def run(ctx: Context, load: Load, cell: Cell, table: str, topic: Topic | None = None) -> None:
    s = ctx.s
    clean = await clean_phase(ctx, load, cell)
    if topic is not None:
        topic.clean_phase(cell, clean)
        topic_b0 = await topic.size()
    h0, i0 = await table_bytes(ctx.admin, table)
    holder = await ctx.cluster.connect("pressure-fault-idle")
    try:
        await holder.execute("BEGIN")
        xid = await holder.fetchval("SELECT txid_current()")
        pinned = await ctx.admin.fetchval(
            "SELECT backend_xmin IS NOT NULL OR backend_xid IS NOT NULL FROM pg_stat_activity "
            "WHERE application_name = 'pressure-fault-idle'")
        t0 = time.monotonic()
        cell.figure("xid", int(xid), f"idle in transaction (xid {xid}, horizon pinned: {pinned}) "
                    f"for {s.idle_seconds:g} s; table {h0 / MIB:.2f} MiB + indexes {i0 / MIB:.2f} MiB")
        peak = 0
        while time.monotonic() < t0 + s.idle_seconds:
            await asyncio.sleep(min(10.0, t0 + s.idle_seconds - time.monotonic()))  # the pin's length
            _, dead = await dead_tuples(ctx.admin, table)
            peak = max(peak, dead)
        t1 = time.monotonic()
        h1, i1 = await table_bytes(ctx.admin, table)
        if topic is not None:
            topic_b1 = await topic.size()
        await holder.execute("ROLLBACK")
    finally:
        await holder.close()
    r, p99 = under_fault(cell, load, clean, t0, t1, "while pinned", "pinned: ",
                         f"; dead rows up to {peak} (statistics)")
    cell.figure("growth_mib", round((h1 + i1 - h0 - i0) / MIB, 2),
                f"growth while pinned: table {h0 / MIB:.2f} -> {h1 / MIB:.2f} MiB, indexes "
                f"{i0 / MIB:.2f} -> {i1 / MIB:.2f} MiB")
    if topic is not None:
        topic_r, topic_p99 = topic.under_fault(cell, t0, t1, "while pinned")
        bound = max(50.0, 2 * topic.clean.txn_p99)
        q = (t1 - t0) / 4
        quarters = [topic.load.p99(topic.load.stats.txn, t0 + i * q, t0 + (i + 1) * q) for i in range(4)]
        late = quarters[-1]
        cell.figure("topic_late_p99_ms", round(late, 1),
                    f"topic dequeue p99 by quarter of the pin ({q:.0f} s each): "
                    f"{' / '.join(f'{x:.1f}' for x in quarters)} ms; the bound max(50 ms, 2 x clean) "
                    f"{bound:.1f} ms")
        cell.figure("topic_growth_mib", round((topic_b1 - topic_b0) / MIB, 2),
                    f"topic storage while pinned: {topic_b0 / MIB:.2f} -> {topic_b1 / MIB:.2f} MiB "
                    f"({len(topic.names)} subscribers)")
        cell.rule("topic: deliveries while pinned ≥ 70 % of clean", topic_r >= 0.70, s.strict)
        cell.rule("topic: dequeue p99 while pinned ≤ 50 ms", topic_p99 <= 50, s.strict)
        cell.rule("topic: dequeue p99 while pinned, and over its last quarter, ≤ max(50 ms, 2 x clean)",
                  topic_p99 <= bound and late <= bound, s.strict)
    rec = await recovery(load, t1, clean.rate, 0.95, s.recovery)
    # reclaimed: the dead rows counted down by autovacuum (by our VACUUM if it has not come)
    t2 = time.monotonic()
    by = "autovacuum"
    goal = max(1, peak // 4)
    while (await dead_tuples(ctx.admin, table))[1] > goal:
        if time.monotonic() - t2 > s.vacuum_wait:
            by = "VACUUM (autovacuum had not come)"
            await ctx.admin.execute(f"VACUUM {table}")
            break
        await asyncio.sleep(1.0)  # a statistics query polled
    reclaimed = time.monotonic() - t2
    _, dead = await dead_tuples(ctx.admin, table)
    h2, i2 = await table_bytes(ctx.admin, table)
    # the same load for as long again: the reclaimed space is reused, the table grows no more
    await asyncio.sleep(min(60.0, max(10.0, s.clean)))  # a measurement's length
    h3, i3 = await table_bytes(ctx.admin, table)
    cell.figure("reclaim_s", round(reclaimed, 1),
                f"after the pin: back to ≥ 95 % of clean {'never' if rec is None else f'{rec:.1f} s'}; "
                f"reclaimed by {by} {reclaimed:.0f} s later, {dead} dead rows left; size then "
                f"{(h2 + i2) / MIB:.2f} MiB, {min(60.0, max(10.0, s.clean)):g} s of load later "
                f"{(h3 + i3) / MIB:.2f} MiB")
    cell.rule("throughput while pinned ≥ 70 % of clean", r >= 0.70, s.strict)
    cell.rule("dequeue p99 while pinned ≤ 50 ms", p99 <= 50, s.strict)
    cell.rule(f"back to ≥ 95 % of clean within {s.recovery:g} s after the pin",
              rec is not None and rec <= s.recovery, s.strict)
    cell.rule("recovered: throughput back, dead rows reclaimed, the table grows no more",
              rec is not None and dead <= goal and h3 + i3 <= (h1 + i1) * 1.05 + MIB)
