"""A fresh install and an upgrade from the previous release give the same schema.

Database A is built by the current migrations from nothing; database B by the previous
release's migrations (its own package, previous_release.PREVIOUS) and then the current ones.
Their schemas, read from the catalogs (tests/integration/schema_catalog.py: functions with
their signatures, results, attributes and bodies; tables, columns, defaults, indexes,
constraints, views, types, sequences, triggers, policies, grants; the templates the engine
generates code from), must be the same: an object the current release no longer defines must
be dropped by the upgrade (shared/pgaq/sql/migrations/R__98_upgrade.sql), and nothing may
differ in what both have. The same holds with queue tables of every kind, made by the
previous release and upgraded, against the same tables made by the current one.

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


# queue tables of every kind the previous release makes, subscribers with rules
QUEUES = """
CREATE SCHEMA up;
CREATE TYPE up.obj AS (n integer, s text);
CALL dbms_aqadm.create_queue_table('up.qt', 'RAW');
CALL dbms_aqadm.create_queue('up.q', 'up.qt'); CALL dbms_aqadm.start_queue('up.q');
CALL dbms_aqadm.create_queue_table('up.tt', 'RAW', multiple_consumers => true);
CALL dbms_aqadm.create_queue('up.t', 'up.tt'); CALL dbms_aqadm.start_queue('up.t');
CALL dbms_aqadm.add_subscriber('up.t', sys.aq$_agent('A', NULL, NULL));
CALL dbms_aqadm.add_subscriber('up.t', sys.aq$_agent('B', NULL, NULL), rule => 'priority > 1');
CALL dbms_aqadm.create_queue_table('up.ot', 'up.obj', sort_list => 'priority,enq_time');
CALL dbms_aqadm.create_queue('up.o', 'up.ot'); CALL dbms_aqadm.start_queue('up.o');
CALL dbms_aqadm.create_queue_table('up.gt', 'RAW', message_grouping => 'TRANSACTIONAL');
CALL dbms_aqadm.create_queue('up.g', 'up.gt');
CALL dbms_aqadm.create_queue_table('up.jt', 'sys.aq$_jms_text_message', multiple_consumers => true);
CALL dbms_aqadm.create_queue('up.j', 'up.jt'); CALL dbms_aqadm.start_queue('up.j');
CALL dbms_aqadm.add_subscriber('up.j', sys.aq$_agent('S', NULL, NULL), rule => 'JMSPriority < 5');
"""


async def _execute(dsn: str, sql: str) -> None:
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(sql)
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
        await _execute(upgraded_dsn, """
            CREATE FUNCTION aq.left_behind(integer) RETURNS integer LANGUAGE sql AS 'SELECT 1';
            ALTER FUNCTION aq.state_name(integer) STABLE""")
        diff = difference(fresh, await _schema(upgraded_dsn))
        assert len(diff) == 2, diff
        assert diff[0] == "only in the upgraded database: function aq.left_behind(integer)"
        assert diff[1].startswith("differs: function aq.state_name(integer)\n"), diff
        assert "    +volatility s" in diff[1], diff


async def test_queue_tables_of_the_previous_release_upgrade_to_what_the_current_one_makes(
        cluster: Cluster, previous_pkgs: Path) -> None:
    """Queue tables the previous release made, after the upgrade (R__99_regenerate), against
    the same tables made by the current release: their generated functions, views, indexes,
    triggers, companions of buffered messages, and pgaq's schemas beside them. A column the
    upgrade adds to a table comes last (PostgreSQL appends it; every generated statement
    names its columns), so the queue tables' column positions are left out."""
    pid = os.getpid()
    async with previous.empty_database(cluster, f"schema_fresh_q_{pid}") as fresh_dsn, \
            previous.empty_database(cluster, f"schema_upgraded_q_{pid}") as upgraded_dsn:
        await _migrate(fresh_dsn)
        await _execute(fresh_dsn, QUEUES)
        previous.run(previous_pkgs, previous.MIGRATE, upgraded_dsn)
        await _execute(upgraded_dsn, QUEUES)  # by the previous release's functions
        await _migrate(upgraded_dsn)
        fresh = _without_column_positions(await _schema(fresh_dsn), "up")
        upgraded = _without_column_positions(await _schema(upgraded_dsn), "up")
        assert sum(k.startswith("function up.") for k in fresh) >= 30  # the generated functions
        diff = difference(fresh, upgraded)
        assert not diff, "the upgraded queue tables differ from new ones:\n" + "\n".join(diff)


def _without_column_positions(schema: dict[str, str], namespace: str) -> dict[str, str]:
    return {k: "\n".join(line for line in v.splitlines() if not line.startswith("position "))
               if k.startswith(f"column {namespace}.") else v
            for k, v in schema.items()}
