"""The private PostgreSQL cluster of a run (in a temporary directory, removed at the end),
its `pressure` database migrated, one RAW queue per cell and the ledger the consumers
write in the transaction of each dequeue."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path

import asyncpg
from pgaq.embedded import Cluster
from pgaq.migrate import migrate_dsn

DATABASE = "pressure"
DRIVER_APP = "pressure-driver"  # the driver's own connections: never a fault's target
APP_ROLE = "pressure_app"  # the exhaustion cell's load logs in as this role (its CONNECTION LIMIT)
LEDGER = f"""
CREATE SCHEMA IF NOT EXISTS pressure;
-- consumer: the subscriber that dequeued (a topic's), '' on a single-consumer queue
CREATE TABLE IF NOT EXISTS pressure.ledger (cell text NOT NULL, id bigint NOT NULL,
                                            consumer text NOT NULL DEFAULT '');
CREATE ROLE {APP_ROLE} LOGIN;
GRANT USAGE ON SCHEMA pressure TO {APP_ROLE};
GRANT INSERT ON pressure.ledger TO {APP_ROLE};
"""


class PrivateCluster:
    def __init__(self, workdir: Path | None) -> None:
        self.base = workdir or Path(tempfile.mkdtemp(prefix="pgaq-pressure-"))
        self.base.mkdir(parents=True, exist_ok=True)
        os.chmod(self.base, 0o755)  # as root the server runs as `postgres` and must reach it
        self.cluster = Cluster(self.base / "cluster", durable=False, settings={
            "max_connections": "100",
            # autovacuum looks every 10 s rather than 60 s: the idle cell's reclaim shows sooner
            "autovacuum_naptime": "10s"})
        self.dsn = self.cluster.dsn(DATABASE)

    async def start(self) -> None:
        await asyncio.to_thread(self.cluster.init)
        await asyncio.to_thread(self.cluster.start)
        admin = await asyncpg.connect(self.cluster.dsn())
        try:
            await admin.execute(f"CREATE DATABASE {DATABASE}")
        finally:
            await admin.close()
        await migrate_dsn(self.dsn)
        conn = await self.connect()
        try:
            await conn.execute(LEDGER)
        finally:
            await conn.close()

    async def connect(self, app: str = DRIVER_APP) -> asyncpg.Connection:
        return await asyncpg.connect(self.dsn, server_settings={"application_name": app})

    async def stop(self) -> None:
        await asyncio.to_thread(self.cluster.destroy)
        shutil.rmtree(self.base, ignore_errors=True)


async def make_queue(conn: asyncpg.Connection, cell: str) -> tuple[str, str]:
    """A fresh RAW queue for `cell`: (queue, queue table), both schema-qualified."""
    queue, table = f"pressure.{cell}", f"pressure.{cell}_qt"
    await conn.execute(f"CALL dbms_aqadm.create_queue_table('{table}', 'RAW')")
    await conn.execute(f"CALL dbms_aqadm.create_queue('{queue}', '{table}')")
    await conn.execute(f"CALL dbms_aqadm.start_queue('{queue}')")
    await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('ALL', '{queue}', '{APP_ROLE}')")
    return queue, table


def subscriber_names(n: int) -> list[str]:
    return [f"S{i:04d}" for i in range(1, n + 1)]


async def make_topic(conn: asyncpg.Connection, cell: str, subscribers: int) -> tuple[str, str]:
    """A fresh multi-consumer RAW queue for `cell` with `subscribers` subscribers (no rules),
    added through dbms_aqadm as a user would: (queue, queue table)."""
    queue, table = f"pressure.{cell}_topic", f"pressure.{cell}_topic_qt"
    await conn.execute(f"CALL dbms_aqadm.create_queue_table('{table}', 'RAW', multiple_consumers => true)")
    await conn.execute(f"CALL dbms_aqadm.create_queue('{queue}', '{table}')")
    await conn.execute(f"CALL dbms_aqadm.start_queue('{queue}')")
    await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('ALL', '{queue}', '{APP_ROLE}')")
    await conn.executemany("CALL dbms_aqadm.add_subscriber($1, sys.aq$_agent($2, NULL, NULL))",
                           [(queue, name) for name in subscriber_names(subscribers)])
    return queue, table


async def relation_bytes(conn: asyncpg.Connection, table: str) -> int:
    """Bytes of every table of the schema named after a queue table (the queue table and
    whatever companions pgaq keeps for it), with their indexes and TOAST."""
    schema, name = table.split(".")
    return int(await conn.fetchval(
        "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = $1 AND c.relkind = 'r' AND strpos(c.relname, $2) > 0", schema, name))


async def table_bytes(conn: asyncpg.Connection, table: str) -> tuple[int, int]:
    """(heap, indexes) bytes of a queue table, TOAST with the heap."""
    row = await conn.fetchrow("SELECT pg_table_size($1::regclass), pg_indexes_size($1::regclass)", table)
    assert row is not None
    return int(row[0]), int(row[1])


async def dead_tuples(conn: asyncpg.Connection, table: str) -> tuple[int, int]:
    """(live, dead) tuples of a table, as the statistics collector last saw them."""
    row = await conn.fetchrow("SELECT n_live_tup, n_dead_tup FROM pg_stat_user_tables "
                              "WHERE relid = $1::regclass", table)
    return (0, 0) if row is None else (int(row[0]), int(row[1]))
