"""Upgrading a database whose condition compiler predates its split into
R__20_conditions_1_ast.sql ... R__20_conditions_7_compile.sql (issue 20, parts 4 and 5).

The migrations of PRE_SPLIT (the last commit with the single R__20_conditions.sql) build a
database; queues with AQ subscriber rules and JMS selector rules get messages under that
schema; then the current migrations run. The rules must select the same messages, the
messages enqueued before must dequeue for the same subscribers, the cached rules
(aq.rule_cache) must hold the same compiled SQL, and the old compiler's private functions and
types (aq._cond_*) must be gone, with nothing else depending on them beforehand (they are
dropped without CASCADE)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from pgaq.migrate import migrate

REPO = Path(__file__).resolve().parents[2]
PRE_SPLIT = "a4691950802ab3f85538a1fcc34cae2052926465"
MIGRATIONS = "shared/pgaq/sql/migrations"
_VERSIONED = re.compile(r"^V(\d{4})__[a-z0-9_]+\.sql$")
_REPEATABLE = re.compile(r"^R__[a-z0-9_]+\.sql$")

CAR = "up.car"
JMS = "sys.aq$_jms_text_message"
# (corrid, priority, price, color); DEALS: price > 30000, RED: color is red and priority <= 5
CARS = [("c1", 1, 45000, "red"), ("c2", 3, 20000, "Red"), ("c3", 7, 31000, "blue"),
        ("c4", 2, 10000, "green"), ("c5", 9, None, "RED")]
CAR_RULES = {"DEALS": "tab.user_data.price > 30000",
             "RED": "upper(tab.user_data.color) = 'RED' AND priority <= 5"}
CAR_ROUTES = {"ALL": {"c1", "c2", "c3", "c4", "c5"}, "DEALS": {"c1", "c3"}, "RED": {"c1", "c2"}}
# (corrid, priority, typed user properties)
JMS_MESSAGES: list[tuple[str, int, dict[str, Any]]] = [
    ("j1", 1, {"weight": ("int", 7), "name": ("string", "alpha")}),
    ("j2", 2, {"weight": ("double", 2.5), "name": ("string", "beta")}),
    ("j3", 8, {"weight": ("long", 100)}),
    ("j4", 3, {}),
    ("j5", 4, {"weight": ("string", "9"), "name": ("string", "ab")}),
]
JMS_RULES = {"HEAVY": "weight * 2 > 10 AND JMSPriority < 5",
             "NAMED": "name LIKE 'a%' OR JMSCorrelationID IN ('j2', 'j4')",
             "RANGE": "NOT (weight BETWEEN 3 AND 50) AND weight IS NOT NULL"}
JMS_ROUTES = {"ALL": {"j1", "j2", "j3", "j4", "j5"}, "HEAVY": {"j1"},
              "NAMED": {"j1", "j2", "j4", "j5"}, "RANGE": {"j2", "j3"}}
QUEUES = [("up.cars", CAR, CAR_RULES, CAR_ROUTES), ("up.jms", JMS, JMS_RULES, JMS_ROUTES)]
# dequeue conditions compiled before and after: same SQL and parameters
CONDITIONS = [(c, "AQ", CAR) for c in CAR_RULES.values()] + [
    (c, "JMS", JMS) for c in JMS_RULES.values()] + [
    ("tab.user_data.color LIKE 'r%' ESCAPE '!' OR corrid IN ('a', 'b')", "AQ", CAR),
    ("JMSMessageID = 'ID:000102030405060708090A0B0C0D0E0F' OR -weight <> +2", "JMS", JMS)]


def _old_migrations() -> list[tuple[str, str]]:
    """(name, text) of PRE_SPLIT's migrations in the runner's order, or skip the test."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    listed = subprocess.run(["git", "-C", str(REPO), "ls-tree", "--name-only", PRE_SPLIT,
                             MIGRATIONS + "/"], capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip(f"commit {PRE_SPLIT} is not in this checkout")
    names = [Path(p).name for p in listed.stdout.split()]
    versioned = sorted((n for n in names if _VERSIONED.match(n)), key=lambda n: int(n[1:5]))
    repeatable = sorted(n for n in names if _REPEATABLE.match(n))
    assert "R__20_conditions.sql" in repeatable
    return [(n, subprocess.run(["git", "-C", str(REPO), "show", f"{PRE_SPLIT}:{MIGRATIONS}/{n}"],
                               capture_output=True, text=True, check=True).stdout)
            for n in versioned + repeatable]


async def _apply_old(conn: asyncpg.Connection, files: list[tuple[str, str]]) -> None:
    """What pgaq.migrate did at PRE_SPLIT: each file in a transaction, recorded with its checksum."""
    await conn.execute("""
        CREATE SCHEMA IF NOT EXISTS aq;
        CREATE TABLE IF NOT EXISTS aq.schema_migrations (
            name text PRIMARY KEY, version integer, checksum text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT clock_timestamp())""")
    for name, sql in files:
        async with conn.transaction():
            await conn.execute(sql)
            m = _VERSIONED.match(name)
            await conn.execute(
                "INSERT INTO aq.schema_migrations (name, version, checksum) VALUES ($1, $2, $3)",
                name, int(name[1:5]) if m else None, hashlib.sha256(sql.encode()).hexdigest())


@pytest.fixture
async def old_db(cluster: Any) -> AsyncIterator[asyncpg.Connection]:
    files = _old_migrations()
    name = "pre_split_conditions"
    admin = await asyncpg.connect(cluster.dsn())
    try:
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        await admin.execute(f"CREATE DATABASE {name}")
    finally:
        await admin.close()
    conn = await asyncpg.connect(cluster.dsn(name))
    try:
        await _apply_old(conn, files)
        yield conn
    finally:
        await conn.close()
        admin = await asyncpg.connect(cluster.dsn())
        try:
            await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        finally:
            await admin.close()


async def _set_up_queues(conn: asyncpg.Connection) -> None:
    await conn.execute(f"CREATE SCHEMA up; CREATE TYPE {CAR} AS (carno text, price numeric, color text)")
    for queue, payload, rules, _ in QUEUES:
        await conn.execute(
            "CALL dbms_aqadm.create_queue_table(queue_table => $1, queue_payload_type => $2,"
            " multiple_consumers => true)", queue + "_t", payload)
        await conn.execute("CALL dbms_aqadm.create_queue(queue_name => $1, queue_table => $2)",
                           queue, queue + "_t")
        await conn.execute("CALL dbms_aqadm.start_queue(queue_name => $1)", queue)
        for consumer, rule in [("ALL", None), *rules.items()]:
            await conn.execute(
                "CALL dbms_aqadm.add_subscriber(queue_name => $1,"
                " subscriber => sys.aq$_agent($2, NULL, NULL), rule => $3)", queue, consumer, rule)


async def _enqueue_all(conn: asyncpg.Connection) -> None:
    """Through dbms_aq.enqueue, the SQL interface every version has."""
    for corrid, priority, price, color in CARS:
        await conn.execute(
            "CALL dbms_aq.enqueue(queue_name => 'up.cars', message_properties =>"
            " dbms_aq.message_properties(priority => $1, correlation => $2),"
            " payload => ROW($2, $3, $4)::up.car, msgid => NULL)", priority, corrid, price, color)
    for corrid, priority, props in JMS_MESSAGES:
        properties = json.dumps({k: {"type": t, "value": v} for k, (t, v) in props.items()})
        await conn.execute(
            "CALL dbms_aq.enqueue(queue_name => 'up.jms', message_properties =>"
            " dbms_aq.message_properties(priority => $1, correlation => $2),"
            " payload => ROW(ROW(NULL, NULL, NULL, NULL, NULL, NULL, $3::jsonb)::sys.aq$_jms_header,"
            " 1, 'x')::sys.aq$_jms_text_message, msgid => NULL)", priority, corrid, properties)


async def _routes(conn: asyncpg.Connection, queue: str) -> dict[str, set[str]]:
    """Which messages (by correlation) wait for which subscriber."""
    routes: dict[str, set[str]] = {}
    for r in await conn.fetch(f"SELECT consumer_name, corr_id FROM {queue.replace('.', '.aq$')}_t"
                              " WHERE msg_state = 'READY'"):
        routes.setdefault(r["consumer_name"], set()).add(r["corr_id"])
    return routes


async def _drain(conn: asyncpg.Connection, queue: str, payload: str, consumer: str,
                 condition: str | None = None) -> set[str]:
    """Remove every message `consumer` may dequeue (with the condition): their correlations."""
    got: set[str] = set()
    while True:
        try:
            row = await conn.fetchrow(
                "CALL dbms_aq.dequeue(queue_name => $1, dequeue_options =>"
                " dbms_aq.dequeue_options(consumer_name => $2, wait => 0, deq_condition => $3),"
                f" payload => NULL::{payload}, msgid => NULL)", queue, consumer, condition)
        except asyncpg.PostgresError as exc:
            assert "ORA-25228" in str(exc), str(exc)
            return got
        assert row is not None
        corrid = row["message_properties"]["correlation"]
        assert corrid not in got
        got.add(corrid)


async def _compiled(conn: asyncpg.Connection) -> list[tuple[Any, ...]]:
    return [tuple(await conn.fetchrow(
        "SELECT (c).sql, (c).params FROM (SELECT aq.compile_condition($1, $2, $3::regtype, 2, 3) AS c) s",
        text, dialect, payload)) for text, dialect, payload in CONDITIONS]


async def test_rules_select_the_same_messages_after_the_upgrade(old_db: asyncpg.Connection) -> None:
    conn = old_db
    await _set_up_queues(conn)
    await _enqueue_all(conn)
    for queue, _, _, expected in QUEUES:
        assert await _routes(conn, queue) == expected, queue
    cache = await conn.fetch("SELECT * FROM aq.rule_cache ORDER BY queue_id")
    compiled = await _compiled(conn)
    # the old compiler's objects, and nothing else, depend on its private functions and types
    outside = await conn.fetch("""
        WITH types AS (
            SELECT t.oid, t.typrelid FROM pg_type t
             WHERE t.typnamespace = 'aq'::regnamespace AND t.typname IN
                   ('_cond_tok', '_cond_pr', '_cond_cr', '__cond_tok', '__cond_pr', '__cond_cr')),
        old AS (
            SELECT 'pg_proc'::regclass AS classid, p.oid AS objid FROM pg_proc p
             WHERE p.pronamespace = 'aq'::regnamespace AND p.proname LIKE '\\_cond\\_%'
            UNION ALL SELECT 'pg_type'::regclass, oid FROM types
            UNION ALL SELECT 'pg_class'::regclass, typrelid FROM types WHERE typrelid <> 0)
        SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS what
          FROM pg_depend d JOIN old ON d.refclassid = old.classid AND d.refobjid = old.objid
         WHERE (d.classid, d.objid) NOT IN (SELECT classid, objid FROM old)""")
    assert [r["what"] for r in outside] == []
    assert await conn.fetchval("SELECT count(*) FROM pg_proc WHERE proname LIKE '\\_cond\\_%'") > 20

    applied = await migrate(conn)

    assert "R__20_conditions_7_compile.sql" in applied
    assert await conn.fetchval("SELECT count(*) FROM pg_proc WHERE proname LIKE '\\_cond\\_%'") == 0
    assert await conn.fetchval(
        "SELECT count(*) FROM pg_type WHERE typnamespace = 'aq'::regnamespace"
        " AND typname IN ('_cond_tok', '_cond_pr', '_cond_cr')") == 0
    assert [tuple(r) for r in await conn.fetch("SELECT * FROM aq.rule_cache ORDER BY queue_id")] == [
        tuple(r) for r in cache]
    assert await _compiled(conn) == compiled
    # the messages enqueued under the old schema: still routed as they were, and each rule as a
    # dequeue condition selects what the rule routed
    for queue, payload, rules, expected in QUEUES:
        assert await _routes(conn, queue) == expected, queue
        taken: set[str] = set()  # removed for ALL by an earlier rule's condition
        for consumer, rule in rules.items():
            assert await _drain(conn, queue, payload, consumer) == expected[consumer], (queue, consumer)
            got = await _drain(conn, queue, payload, "ALL", rule)
            assert got == expected[consumer] - taken, (queue, rule)
            taken |= got
        assert await _drain(conn, queue, payload, "ALL") == expected["ALL"] - taken
        assert await _routes(conn, queue) == {}
    # and new messages are routed by the recompiled rules exactly as before
    await _enqueue_all(conn)
    for queue, _, _, expected in QUEUES:
        assert await _routes(conn, queue) == expected, queue
