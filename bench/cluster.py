"""A private, durable PostgreSQL cluster for one benchmark run, migrated and then removed."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import asyncpg
from pgaq.embedded import Cluster
from pgaq.migrate import migrate

DATABASE = "bench"


@dataclass(frozen=True)
class Database:
    dsn: str
    version: str  # server_version
    socket_dsn: str  # the same database over the Unix socket (how `pgaq up` runs services)
    remote_dsn: str  # a second pgaq database in the cluster: the far side of database links


@asynccontextmanager
async def private_database(stats: bool = False, max_connections: int = 100
                           ) -> AsyncIterator[Database]:
    """Start a cluster with PostgreSQL's durable defaults (fsync, synchronous_commit,
    full_page_writes) in a temporary directory, create and migrate a database.
    `max_connections`: the fanout suite's hundreds of waiting consumers each hold one."""
    base = Path(tempfile.mkdtemp(prefix="pgaq-bench-"))
    os.chmod(base, 0o755)  # as root the server runs as `postgres` and must reach it
    settings = {"max_connections": str(max_connections)}
    if stats:
        settings.update({"shared_preload_libraries": "'pg_stat_statements'",
                         "pg_stat_statements.track": "all",
                         "pg_stat_statements.track_planning": "on"})
    cluster = Cluster(base / "cluster", durable=True, settings=settings)
    try:
        await asyncio.to_thread(cluster.init)
        await asyncio.to_thread(cluster.start)
        admin = await asyncpg.connect(cluster.dsn())
        try:
            await admin.execute(f"CREATE DATABASE {DATABASE}")
            version = str(await admin.fetchval("SHOW server_version"))
        finally:
            await admin.close()
        admin = await asyncpg.connect(cluster.dsn())
        try:
            await admin.execute(f"CREATE DATABASE {DATABASE}_remote")
        finally:
            await admin.close()
        dsn = cluster.dsn(DATABASE)
        for target in (dsn, cluster.dsn(f"{DATABASE}_remote")):
            conn = await asyncpg.connect(target)
            try:
                await migrate(conn)
                if stats and target == dsn:
                    await conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            finally:
                await conn.close()
        yield Database(dsn, version, cluster.socket_dsn(DATABASE), cluster.dsn(f"{DATABASE}_remote"))
    finally:
        await asyncio.to_thread(cluster.destroy)
        shutil.rmtree(base, ignore_errors=True)
