"""Versioned schema migrations, safe to run from several processes at once.

Files in `pgaq/sql/migrations`: `V<NNNN>__<name>.sql` run once each, in order;
`R__<name>.sql` hold replaceable code (functions, procedures, views); when any of
them changed they all run again, in name order, after every versioned file. An advisory lock
serialises concurrent runners; each file runs in its own transaction. A database that a
newer release migrated (a versioned file this release does not know) is left as it is.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from importlib import resources

import asyncpg

from .errors import wrap_db_error

LOCK_KEY = 0x70676171  # "pgaq"
log = logging.getLogger(__name__)
_VERSIONED = re.compile(r"^V(\d{4})__([a-z0-9_]+)\.sql$")
_REPEATABLE = re.compile(r"^R__([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    name: str
    version: int | None
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def load_migrations() -> list[Migration]:
    root = resources.files("pgaq.sql.migrations")
    versioned: list[Migration] = []
    repeatable: list[Migration] = []
    for entry in root.iterdir():
        name = entry.name
        if m := _VERSIONED.match(name):
            versioned.append(Migration(name, int(m.group(1)), entry.read_text()))
        elif _REPEATABLE.match(name):
            repeatable.append(Migration(name, None, entry.read_text()))
    versioned.sort(key=lambda m: m.version or 0)
    repeatable.sort(key=lambda m: m.name)
    return versioned + repeatable


_BOOTSTRAP = """
CREATE SCHEMA IF NOT EXISTS aq;
CREATE TABLE IF NOT EXISTS aq.schema_migrations (
    name text PRIMARY KEY,
    version integer,
    checksum text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
"""


async def migrate(conn: asyncpg.Connection) -> list[str]:
    """Bring the database to the current schema; returns the names applied."""
    applied: list[str] = []
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", LOCK_KEY)
        try:
            await conn.execute(_BOOTSTRAP)
            rows = await conn.fetch("SELECT name, version, checksum FROM aq.schema_migrations")
            done = {r["name"]: r["checksum"] for r in rows}
            migrations = load_migrations()
            known = {m.name for m in migrations}
            ahead = sorted(r["name"] for r in rows if r["version"] is not None and r["name"] not in known)
            if ahead:
                # a newer release migrated this database (a service of this one restarting
                # during a rolling upgrade): its code must not be replaced by ours
                log.warning("the database is ahead of this release (%s): nothing applied",
                            ", ".join(ahead))
                return applied
            # repeatable files build on each other: when one changed, replay them all
            stale = any(
                m.version is None and done.get(m.name) != m.checksum for m in migrations
            )
            for mig in migrations:
                if mig.version is not None and mig.name in done:
                    continue
                if mig.version is None and not stale:
                    continue
                async with conn.transaction():
                    await conn.execute(mig.sql)
                    await conn.execute(
                        """INSERT INTO aq.schema_migrations (name, version, checksum)
                           VALUES ($1, $2, $3)
                           ON CONFLICT (name) DO UPDATE
                           SET checksum = EXCLUDED.checksum, applied_at = clock_timestamp()""",
                        mig.name, mig.version, mig.checksum,
                    )
                applied.append(mig.name)
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", LOCK_KEY)
    except asyncpg.PostgresError as exc:
        raise wrap_db_error(exc) from exc
    return applied


async def migrate_dsn(dsn: str) -> list[str]:
    conn = await asyncpg.connect(dsn)
    try:
        return await migrate(conn)
    finally:
        await conn.close()
