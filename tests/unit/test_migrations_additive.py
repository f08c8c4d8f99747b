"""docs/operations.md promises a rolling upgrade: versioned migrations only add, so services
of the previous version keep working against the new schema while they are restarted.
This holds the migrations to it: a statement that takes away what an old service may
read or write (a table, a column, a type, a rename, a new NOT NULL without a default)
fails here unless its file says `-- breaking: <why>`, which the release notes repeat."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

MIGRATIONS = Path(__file__).resolve().parents[2] / "shared" / "pgaq" / "sql" / "migrations"

TAKES_AWAY = re.compile(
    r"\bDROP\s+(TABLE|COLUMN|TYPE|SCHEMA|SEQUENCE)\b"
    r"|\bRENAME\b"
    r"|\bALTER\s+COLUMN\s+\S+\s+(SET\s+DATA\s+)?TYPE\b"
    r"|\bALTER\s+COLUMN\s+\S+\s+SET\s+NOT\s+NULL\b"
    r"|\bADD\s+COLUMN\s+[^,;]*\bNOT\s+NULL\b(?![^,;]*\bDEFAULT\b)",
    re.IGNORECASE)


def _statements(sql: str) -> str:
    """The SQL without comments and dollar-quoted bodies (function code may say anything)."""
    sql = re.sub(r"\$(\w*)\$.*?\$\1\$", " ", sql, flags=re.DOTALL)
    sql = re.sub(r"--[^\n]*", " ", sql)
    return re.sub(r"/\*.*?\*/", " ", sql, flags=re.DOTALL)


def takes_away(sql: str) -> list[str]:
    return [m.group(0) for m in TAKES_AWAY.finditer(_statements(sql))]


def versioned() -> list[Path]:
    return sorted(MIGRATIONS.glob("V*.sql"))


def test_there_are_versioned_migrations() -> None:
    assert len(versioned()) >= 8


@pytest.mark.parametrize("path", versioned(), ids=lambda p: p.name)
def test_versioned_migrations_only_add(path: Path) -> None:
    sql = path.read_text()
    if re.search(r"^--\s*breaking:\s*\S", sql, re.MULTILINE):
        return
    assert takes_away(sql) == [], f"{path.name} takes away what old services use; mark it breaking"


@pytest.mark.parametrize("sql", [
    "DROP TABLE aq.x;", "ALTER TABLE aq.x DROP COLUMN y;", "ALTER TABLE aq.x RENAME TO z;",
    "ALTER TABLE aq.x ALTER COLUMN y TYPE bigint;", "ALTER TABLE aq.x ALTER COLUMN y SET NOT NULL;",
    "ALTER TABLE aq.x ADD COLUMN y int NOT NULL;", "drop type aq.t;",
])
def test_what_takes_away_is_seen(sql: str) -> None:
    assert takes_away(sql)


@pytest.mark.parametrize("sql", [
    "ALTER TABLE aq.x ADD COLUMN y int NOT NULL DEFAULT 0;", "DROP POLICY p ON aq.x;",
    "CREATE INDEX ON aq.x (y);", "-- DROP TABLE aq.x\nSELECT 1;",
    "CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN DROP TABLE t; END $$;",
    "DROP FUNCTION IF EXISTS aq.f(int);", "DROP VIEW IF EXISTS aq.v;",
])
def test_what_adds_or_replaces_is_not(sql: str) -> None:
    assert takes_away(sql) == []
