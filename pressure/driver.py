"""The run: a private cluster and its queue monitor, then each cell in turn on a queue of
its own (the load started, warmed up, the cell's clean phase, fault and recovery, the
backlog drained, every id accounted for), then one line per cell and the verdict."""

from __future__ import annotations

import asyncio
import random
import time

from pgaq import waiting

from . import exhaust, idle, kill, readers, surge
from .cluster import APP_ROLE, PrivateCluster, make_queue
from .figures import Cell, Context, account, drain, reconnected
from .load import Load
from .monitor import RunningMonitor
from .settings import Settings
from .topic import Topic

__all__ = ["Cell", "Settings", "run"]


async def run_cell(ctx: Context, name: str) -> Cell:
    s = ctx.s
    cell = Cell(name, ctx.say)
    queue, table = await make_queue(ctx.admin, name)
    topic = await Topic.create(ctx, name)  # a topic beside the queue (kill, idle)
    load = Load(ctx.cluster.dsn, queue, name, s, APP_ROLE if name == "exhaust" else None)
    loads = [load] if topic is None else [load, topic.load]
    for ld in loads:
        ld.start()
    try:
        for ld in loads:
            if await reconnected(ld, 60) is None:
                cell.rule("the load connected", False)
                return cell
        await asyncio.sleep(s.warmup)  # the warm-up's length
        if name == "kill":
            await kill.run(ctx, load, cell, topic)
        elif name == "exhaust":
            await exhaust.run(ctx, load, cell)
        elif name == "idle":
            await idle.run(ctx, load, cell, table, topic)
        elif name == "readers":
            await readers.run(ctx, load, cell, table)
        else:
            await surge.run(ctx, load, cell, table)
        took, topic_took = await asyncio.gather(
            drain(ctx, load, table, s.drain_timeout),
            topic.drain(s.drain_timeout) if topic is not None else _none())
        also = "" if topic is None else ("; the topic's consuming subscribers in "
                                         f"{'-' if topic_took is None else f'{topic_took:.1f}'} s")
        cell.say(f"pressure {name}: drained in {'-' if took is None else f'{took:.1f}'} s "
                 f"after the producers stopped{also}")
    finally:
        for ld in loads:
            await ld.stop()
    await account(ctx, load, table, cell)
    if topic is not None:
        await topic.account(cell)
    cell.say(f"pressure {name}: {'PASS' if cell.passed else 'FAIL'}")
    return cell


async def _none() -> None:
    return None


async def run(s: Settings) -> list[Cell]:
    t0 = time.monotonic()
    cluster = PrivateCluster(s.workdir)
    cells: list[Cell] = []

    def say(line: str) -> None:
        print(line, flush=True)

    monitor: RunningMonitor | None = None
    try:
        await cluster.start()
        monitor = RunningMonitor(cluster.dsn)
        await monitor.start()
        admin = await cluster.connect()
        try:
            ctx = Context(s, cluster, admin, say, random.Random(s.seed))
            say(f"pressure: cells {', '.join(s.cells)}; {s.rate:g} msg/s from {s.producers} producers, "
                f"{s.consumers} consumers, {s.payload} B payloads; strict {s.strict}; beside kill and idle "
                f"a topic of {s.topic_subscribers} subscribers, {s.topic_consumers} consuming, "
                f"{s.topic_rate:g} msg/s")
            for name in s.cells:
                cells.append(await run_cell(ctx, name))
                await waiting.shutdown()
        finally:
            await admin.close()
    finally:
        if monitor is not None:
            await monitor.close()
        await waiting.shutdown()  # the shared listening connection, before its server goes
        await cluster.stop()
    say("pressure: cell     verdict  figures")
    for c in cells:
        figs = ", ".join(f"{k}={v}" for k, v in c.figures.items() if k != "probes")
        say(f"pressure: {c.name:<8} {'PASS' if c.passed else 'FAIL':<8} {figs}")
    failed = [c.name for c in cells if not c.passed]
    verdict = "PASS" if not failed else f"FAIL ({', '.join(failed)})"
    say(f"pressure: {verdict} in {time.monotonic() - t0:.0f} s")
    return cells
