"""No function of the repeatable migrations is longer than a reader can follow.

The limit is 100 lines of body (the lines between a function's opening and closing dollar
quotes). Why 100: a body that long still fits about two screens, where a reader can hold
its variables and its branches at once; past it the engine's functions were one block of
setup, validation, rare branches and the common path interleaved (issue 36, part 3:
`aq._condition_parse` had 205 lines, `aq.dequeue_array` 164). A longer function is split
into named steps, each a function whose name says what the step does; on a hot path the
steps that are setup, validation or a rare branch go into the helpers, so the common call
pays no extra PL/pgSQL call.

LONG_BEFORE_THE_LIMIT listed the functions that were longer when the limit came in, while
their files were reworked; every one has been split since, so it is empty. The list only
shrinks: a function on it that is within the limit fails here until it is taken off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

MIGRATIONS = Path(__file__).resolve().parents[2] / "shared" / "pgaq" / "sql" / "migrations"
LIMIT = 100

LONG_BEFORE_THE_LIMIT: set[str] = set()

# what the scanner steps over at the top level of a file: comments, quoted strings, and
# dollar-quoted bodies (whose text may hold anything, CREATE FUNCTION of generated code too)
_TOKEN = re.compile(r"--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'|\$(?P<tag>[A-Za-z_]\w*)?\$|;", re.S)
_CREATE = re.compile(r"\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|PROCEDURE)\s+(?P<name>[\w.\"$]+)\s*\(",
                     re.I)


@dataclass(frozen=True)
class Function:
    file: str
    name: str
    lines: int


def functions(sql: str, file: str = "") -> list[Function]:
    """The functions and procedures a file creates, with their bodies' line counts."""
    found = []
    statement_start = 0
    pos = 0
    while (m := _TOKEN.search(sql, pos)) is not None:
        pos = m.end()
        if m.group(0) == ";":
            statement_start = pos
        elif m.group(0).startswith("$"):
            close = sql.find(m.group(0), pos)
            assert close >= 0, f"{file}: unterminated {m.group(0)} quote"
            created = _CREATE.search(sql, statement_start, m.start())
            if created is not None:
                found.append(Function(file, created.group("name").replace('"', "").lower(),
                                      sql[pos:close].count("\n")))
            pos = close + len(m.group(0))
    return found


def repeatable() -> list[Function]:
    return [f for path in sorted(MIGRATIONS.glob("R__*.sql"))
            for f in functions(path.read_text(), path.name)]


def test_the_scanner_finds_the_engine_functions() -> None:
    names = {f.name for f in repeatable()}
    assert {"aq.dequeue_array", "aq._condition_parse", "aq.monitor_table"} <= names
    assert len(names) > 300


@pytest.mark.parametrize("sql, expected", [
    ("CREATE OR REPLACE FUNCTION aq.f(a int) RETURNS int LANGUAGE sql AS $$\n  SELECT a\n$$;",
     [("aq.f", 2)]),
    # a generated function inside a template or a body is not one of the file's
    ("SELECT aq.define_template('t', $tpl$ CREATE FUNCTION {{name}}() AS $b$\n$b$ $tpl$);", []),
    ("CREATE PROCEDURE dbms_aq.p() LANGUAGE plpgsql AS $f$\nBEGIN\n"
     "  EXECUTE 'CREATE FUNCTION x.g() AS $$ $$';\nEND $f$;", [("dbms_aq.p", 3)]),
    # a dollar sign in a comment or a string opens nothing
    ("-- $8 the params, $$ here\nCREATE FUNCTION \"aq\".h() AS $$\n$$; SELECT '$x$';", [("aq.h", 1)]),
])
def test_the_scanner_reads_bodies(sql: str, expected: list[tuple[str, int]]) -> None:
    assert [(f.name, f.lines) for f in functions(sql)] == expected


def test_no_function_is_longer_than_the_limit() -> None:
    too_long = [f"{f.file}: {f.name} has {f.lines} lines" for f in repeatable()
                if f.lines > LIMIT and f.name not in LONG_BEFORE_THE_LIMIT]
    assert too_long == [], f"split these into named steps (at most {LIMIT} lines each)"


def test_the_list_of_long_functions_only_shrinks() -> None:
    longest: dict[str, int] = {}
    for f in repeatable():
        longest[f.name] = max(longest.get(f.name, 0), f.lines)
    within = sorted(n for n in LONG_BEFORE_THE_LIMIT if longest.get(n, 0) <= LIMIT)
    assert within == [], "within the limit now (or gone): take them off LONG_BEFORE_THE_LIMIT"
