"""One notation for the SQL the repeatable migrations generate (issue 36, part 3).

R__09_render.sql says the rule: a dynamic statement is written as a template with named
placeholders ({{name:ident}}, {{name:literal}}, {{name}}), filled by a named template's
compiled function or, for one-off statements of admin paths, by aq.sql(template, args);
never by format() with positional %I/%L/%s. This holds the converted files to it, so the
two idioms do not grow back side by side.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

MIGRATIONS = Path(__file__).resolve().parents[2] / "shared" / "pgaq" / "sql" / "migrations"

# `EXECUTE format(`, `EXECUTE pg_catalog.format(`, `RETURN QUERY EXECUTE format(`, across lines
EXECUTE_FORMAT = re.compile(r"\bEXECUTE\s+(?:pg_catalog\s*\.\s*)?format\s*\(", re.IGNORECASE)

# Written in the template notation throughout.
CONVERTED = [
    "R__11_buffered.sql", "R__12_audience.sql", "R__12_audience_readers.sql",
    "R__12_queue_tables.sql", "R__12_scan_floor.sql", "R__13_codegen.sql", "R__14_admin.sql",
    "R__15_fast_path.sql", "R__16_enqueue.sql", "R__17_dequeue.sql", "R__18_retries.sql",
    "R__20_conditions_7_compile.sql", "R__23_purge.sql", "R__30_monitor.sql",
    "R__40_privileges.sql", "R__52_jms_provider.sql", "R__60_notifications.sql",
    "R__70_propagation.sql", "R__80_pending_attempts.sql", "R__81_autonomous.sql",
    "R__85_stats.sql", "R__90_admin_api.sql",
]

# Not (yet) held to it, and why.
EXEMPT = {
    # the notation's own implementation: aq.render dispatches to a template's compiled
    # function by name with one format(); parsing there would cost every render a parse
    "R__09_render.sql": "the notation itself",
    # what upgrades from earlier releases need, kept as those releases wrote it (a parallel
    # branch adds the file)
    "R__98_upgrade.sql": "compatibility drops of earlier releases",
}


def _code(sql: str) -> str:
    """The SQL without its comments (a comment may name the old idiom)."""
    return re.sub(r"--[^\n]*", " ", sql)


def test_every_repeatable_file_is_classified() -> None:
    files = {p.name for p in MIGRATIONS.glob("R__*.sql")}
    assert set(CONVERTED) <= files
    unclassified = {f for f in files - set(CONVERTED) - set(EXEMPT)
                    if EXECUTE_FORMAT.search(_code((MIGRATIONS / f).read_text()))}
    # a file without dynamic SQL needs no entry; one with it must be converted or exempt
    assert unclassified == set(), f"EXECUTE format( in {sorted(unclassified)}: use a template (R__09_render.sql)"


@pytest.mark.parametrize("name", CONVERTED)
def test_no_execute_format(name: str) -> None:
    code = _code((MIGRATIONS / name).read_text())
    hits = [code[max(0, m.start() - 40):m.end() + 40].strip() for m in EXECUTE_FORMAT.finditer(code)]
    assert hits == [], f"{name} builds a statement with format(): write it as a template"


@pytest.mark.parametrize("sql", [
    "EXECUTE format('DROP TABLE %I', t);",
    "RETURN QUERY EXECUTE\n  pg_catalog.format($f$SELECT 1$f$);",
    "execute Format ('x')",
])
def test_what_is_seen(sql: str) -> None:
    assert EXECUTE_FORMAT.search(_code(sql))


@pytest.mark.parametrize("sql", [
    "EXECUTE aq.sql('DROP TABLE {{t:ident}}', a);",
    "-- EXECUTE format('x') in a comment",
    "PERFORM aq.err(1, format('message %s', x));",
])
def test_what_is_not(sql: str) -> None:
    assert not EXECUTE_FORMAT.search(_code(sql))
