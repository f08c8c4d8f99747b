"""One sample: each service's RSS (its whole process group, from /proc) and, for every
table of both databases, its total size, live and dead tuples and last autovacuum."""

from __future__ import annotations

import os
from pathlib import Path

import asyncpg

TABLES = """
SELECT schemaname || '.' || relname AS name, pg_total_relation_size(relid) AS bytes,
       n_live_tup, n_dead_tup, last_autovacuum
FROM pg_stat_user_tables WHERE schemaname IN ('aq', 'chaos')
"""


def group_rss(pgid: int) -> int:
    """Bytes resident in every process of the group (a service and its workers)."""
    total = 0
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if os.getpgid(int(d.name)) != pgid:
                continue
            for line in (d / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except (OSError, ValueError):
            continue  # gone meanwhile
    return total


async def tables(dsn: str, db: str) -> list[dict[str, object]]:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch(TABLES)
    finally:
        await conn.close()
    return [{"table": f"{db}:{r['name']}", "bytes": r["bytes"], "live": r["n_live_tup"],
             "dead": r["n_dead_tup"],
             "last_autovacuum": r["last_autovacuum"].isoformat() if r["last_autovacuum"] else None}
            for r in rows]
