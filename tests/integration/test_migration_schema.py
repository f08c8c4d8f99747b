"""A fresh install and an upgrade from the previous release give the same schema.

Database A is built by the current migrations from nothing; database B by the previous
release's migrations (its own package, previous_release.PREVIOUS) and then the current ones.
Their schemas, read from the catalogs (tests/integration/schema_catalog.py: functions with
their signatures, results, attributes and bodies; tables, columns, defaults, indexes,
constraints, views, types, sequences, triggers, policies, grants; the templates the engine
generates code from), must be the same: an object the current release no longer defines must
be dropped by the upgrade (shared/pgaq/sql/migrations/R__98_upgrade.sql), and nothing may
differ in what both have.

(Catalog queries rather than a normalised `pg_dump --schema-only`: keyed by each object's
identity they compare regardless of creation order and OIDs, which pg_dump's output order
follows where dependencies tie; a difference names its object and shows the lines that
differ; and no client binary of the server's exact major version is needed.)
"""

from __future__ import annotations

import os
from pathlib import Path

import asyncpg
import pytest
from pgaq.embedded import Cluster
from pgaq.migrate import migrate

from . import previous_release as previous
from .schema_catalog import difference, read_schema


@pytest.fixture(scope="module")
def previous_pkgs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return previous.extract(tmp_path_factory.mktemp("previous"))


async def _schema(dsn: str) -> dict[str, str]:
    conn = await asyncpg.connect(dsn)
    try:
        return await read_schema(conn)
    finally:
        await conn.close()


async def _migrate(dsn: str) -> None:
    conn = await asyncpg.connect(dsn)
    try:
        await migrate(conn)
    finally:
        await conn.close()


async def test_an_upgrade_from_the_previous_release_gives_the_schema_of_a_fresh_install(
        cluster: Cluster, previous_pkgs: Path) -> None:
    pid = os.getpid()
    async with previous.empty_database(cluster, f"schema_fresh_{pid}") as fresh_dsn, \
            previous.empty_database(cluster, f"schema_upgraded_{pid}") as upgraded_dsn:
        await _migrate(fresh_dsn)
        previous.run(previous_pkgs, previous.MIGRATE, upgraded_dsn)
        await _migrate(upgraded_dsn)
        fresh = await _schema(fresh_dsn)
        upgraded = await _schema(upgraded_dsn)
        assert len(fresh) > 1000  # the catalogs were read: functions, tables, templates ...
        diff = difference(fresh, upgraded)
        assert not diff, "the upgraded schema differs from a fresh install's:\n" + "\n".join(diff)

        # and a difference is seen: one object left behind, one changed
        conn = await asyncpg.connect(upgraded_dsn)
        try:
            await conn.execute("""
                CREATE FUNCTION aq.left_behind(integer) RETURNS integer LANGUAGE sql AS 'SELECT 1';
                ALTER FUNCTION aq.state_name(integer) STABLE""")
        finally:
            await conn.close()
        diff = difference(fresh, await _schema(upgraded_dsn))
        assert len(diff) == 2, diff
        assert diff[0] == "only in the upgraded database: function aq.left_behind(integer)"
        assert diff[1].startswith("differs: function aq.state_name(integer)\n"), diff
        assert "    +volatility s" in diff[1], diff
