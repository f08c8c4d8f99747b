"""`make bench`: pgaq's figures beside raw-SQL floors, on a private durable PostgreSQL.

Each pgaq figure stands beside a floor measured in the same run, on the same database,
with the same concurrency. Environment: BENCH_SECONDS (per figure, default 5),
BENCH_WARMUP (1), BENCH_CONCURRENCY (4), BENCH_BIG (1,000,000), BENCH_SMALL (1,000),
BENCH_PREFILL (0 = sized from the insert rate), BENCH_FILL_CHUNK (10,000),
BENCH_SUITES (core,peers,jms,java,gateway,scaleout,notify,propagation,monitor,stats,fanout),
BENCH_STATS_ROWS (1,000,000), BENCH_STATS (1 = pg_stat_statements profile), BENCH_PEERS_N (10,000 messages
each for pgaq, the floor and the peers procrastinate, PgQueuer, pgmq, PgQue, graphile-worker,
pg-boss, RabbitMQ), BENCH_PEERS_BATCH (100: the batch of pgaq's array dequeue and of the batch-ack
peers), BENCH_PGQUE_SQL (a pgque.sql to install PgQue from; default ../shared/peers/pgque/
pgque.sql, and PgQue is missing without either), BENCH_RABBITMQ_FANOUT (1,10,100,1000: the
queues bound to RabbitMQ's fanout exchange), BENCH_FANOUT_N (2,000 messages per fan-out size,
at most BENCH_FANOUT_SECONDS, 10, of publishing),
BENCH_PICKUP_RATE (row 8's offered msg/s; 0 = half of row 1's enqueue rate),
BENCH_JAVA_ROUNDS (60 listener wake-ups per provider), BENCH_JAVA_FILL (5,000: the least
pre-fill of a consume half), BENCH_ACTIVEMQ_HOME (/usr/share/activemq): the java suite runs
the Java provider (java/) and Debian's ActiveMQ broker with the same Java driver.
The fanout suite (issue 35's curves): BENCH_FANOUT_SUBSCRIBERS (1,10,100,1000),
BENCH_FANOUT_SECONDS (3: each publish figure), BENCH_FANOUT_MESSAGES (2,000 stored and
drained per count), BENCH_FANOUT_RULES (1,000 subscribers with a rule; 0 = no row),
BENCH_FANOUT_WAITERS (4,64,256), BENCH_FANOUT_RATE (150 msg/s), BENCH_FANOUT_STREAM (4 s),
BENCH_FANOUT_KINDS (library,idap,jms,java).
The run ends with one table: every figure beside its floor and, where comparable
(enqueue, consume per-message ack, consume batch ack), the peers' figures, with ratios.
Always exits 0: it is a report; the SUMMARY line says which targets failed.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import Any

from . import core_bench
from .cluster import private_database
from .machine import describe
from .report import Row, print_table, summary, with_peers, write_json
from .settings import Settings


def _print_profiles(profiles: dict[str, list[dict[str, Any]]]) -> None:
    for label, stmts in profiles.items():
        print(f"\npg_stat_statements, {label} (floor and pgaq together, top by total time):")
        for r in stmts:
            print(f"  {r['calls']:>7} calls {r['total_ms']:>9} ms {r['mean_ms']:>8} ms/call "
                  f"{r['plans']:>7} plans {r['plan_ms']:>7} ms/plan  {r['query'][:100]}")


async def main() -> int:
    settings = Settings()
    started = time.perf_counter()
    rows: list[Row] = []
    extra: dict[str, Any] = {}
    print(f"pgaq bench: suites {','.join(settings.suites)}; {settings.concurrency} connections, "
          f"{settings.seconds:g} s per figure; {os.cpu_count()} CPUs", flush=True)
    # the fanout suite's waiting consumers hold a connection each
    wide = "fanout" in settings.suites and bool(settings.fanout_waiters)
    conns = max(100, 2 * max(settings.fanout_waiters) + 100) if wide else 100
    async with private_database(stats=settings.stats, max_connections=conns) as db:
        machine = describe(db.version)
        print(f"PostgreSQL {db.version} (private cluster, durable: fsync and synchronous_commit "
              "on)", flush=True)
        if "core" in settings.suites:
            core = await core_bench.run(db.dsn, settings)
            rows.extend(core.rows)
            extra.update({"core": core.facts, "profiles": core.profiles})
        if "peers" in settings.suites:
            from .peers_bench import run as run_peers

            core_bench.log(f"peers: {settings.peers_n:,} messages each ...")
            peer_rows, extra["peers"] = await run_peers(db.dsn, settings.peers_n,
                                                        settings.concurrency)
            rows.extend(peer_rows)
        if "jms" in settings.suites:
            from .jms_bench import run as run_jms

            core_bench.log("jms ...")
            rows.extend(await run_jms(db.dsn, settings, extra.get("peers")))
        if "java" in settings.suites:
            from .java_bench import run as run_java

            core_bench.log("java (the Java JMS provider beside ActiveMQ) ...")
            java_rows, extra["java"] = await run_java(db.dsn, settings, rows)
            rows.extend(java_rows)
        if "gateway" in settings.suites:
            from .gateway_bench import run as run_gateway

            core_bench.log("gateway ...")
            rows.extend(await run_gateway(db.dsn, db.socket_dsn, settings.seconds, settings.warmup))
        if "scaleout" in settings.suites:
            from .scaleout_bench import run as run_scaleout

            core_bench.log("gateways behind HAProxy: 2 instances against 1 ...")
            rows.extend(await run_scaleout(db.dsn, db.socket_dsn, settings.seconds, settings.warmup))
        if "notify" in settings.suites:
            from .notify_bench import run as run_notify

            core_bench.log("notifications ...")
            rows.extend(await run_notify(db.dsn, db.socket_dsn, settings.seconds))
        if "propagation" in settings.suites:
            from .propagation_bench import run as run_propagation

            core_bench.log("propagation ...")
            rows.extend(await run_propagation(db.dsn, db.socket_dsn, db.remote_dsn, settings.seconds))
        if "monitor" in settings.suites:
            from .monitor_bench import run as run_monitor

            core_bench.log("monitor ...")
            rows.extend(await run_monitor(db.dsn))
        if "stats" in settings.suites:
            from .stats_bench import run as run_stats

            core_bench.log("statistics job ...")
            rows.extend(await run_stats(db.dsn))
        if "fanout" in settings.suites:
            from .fanout_bench import run as run_fanout

            core_bench.log("fanout: subscriber and waiter curves (issue 35) ...")
            rows.extend(await run_fanout(db.dsn, db.socket_dsn, settings))
    if settings.stats and extra.get("profiles"):
        _print_profiles(extra["profiles"])
    rows = with_peers(rows)
    elapsed = time.perf_counter() - started
    extra["elapsed_seconds"] = round(elapsed, 1)
    out = write_json(rows, machine, settings.describe(), extra)
    # the run ends with the one table; the summary and the file it was written to above it
    print()
    print(f"results: bench/results/{out.name}")
    print(summary(rows) + f" (run took {elapsed:.0f} s)")
    print()
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
