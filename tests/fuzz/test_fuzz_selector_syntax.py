"""pgaq.jms.selector (the syntax check a consumer's factory runs without the database)
against the database's own lexer and parser (aq._condition_tokenize, aq._condition_parse):
on any text both accept, or both refuse with the same ORA-00936 message and position. The
check must never refuse what the database takes (a consumer the application could have),
nor let a syntax error reach the database when it could have said it at once."""

from __future__ import annotations

import asyncpg
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pgaq.jms import selector

from .conftest import TIMEOUT, fuzz
from .test_fuzz_conditions import NO_NUL, jms_expr, token_streams

PARSE = """
SELECT CASE WHEN cardinality(t) = 1 THEN NULL
            ELSE (SELECT CASE WHEN (t[p.next_token]).kind = 'end' THEN NULL
                              ELSE format('ORA-00936: invalid condition at position %s: unexpected %s',
                                          (t[p.next_token]).pos, aq._condition_describe(t[p.next_token]))
                         END
                    FROM aq._condition_parse(t, 1, 1, 0) p) END
FROM aq._condition_tokenize($1) t
"""


async def database_says(c: asyncpg.Connection, text: str) -> str | None:
    """None when the database's parser takes `text` (or it is blank), else its message
    (as aq.compile_condition raises it)."""
    try:
        result: str | None = await c.fetchval(PARSE, text)
    except asyncpg.PostgresError as exc:
        assert exc.sqlstate == "42601", (text, exc.sqlstate, str(exc))
        return str(exc)
    return result


async def database_tokens(c: asyncpg.Connection, text: str) -> list[tuple[str, str, int]]:
    rows = await c.fetch("SELECT (x).kind, coalesce((x).value, '') AS value, (x).pos "
                         "FROM unnest(aq._condition_tokenize($1)) x", text)
    return [(r["kind"], r["value"], r["pos"]) for r in rows]


ASCII_TEXT = st.text(st.characters(min_codepoint=1, max_codepoint=0x7F), max_size=40)


@pytest.mark.timeout(TIMEOUT)
@fuzz(300)
@example(text="(" * 300)
@example(text="NOT " * 120 + "TRUE")
@example(text="-" * 150 + "1 = 1")
@example(text="a NOT")
@example(text="a NOT BETWEEN 1 AND 2 AND b")
@example(text="'it''s' = x AND \"q\"\"x\".y(1)")
@example(text="x\u2028=\u30001")
@given(st.one_of(token_streams(), ASCII_TEXT, st.text(NO_NUL, max_size=40),
                 jms_expr().map(lambda e: e.text)))
async def test_the_check_and_the_database_parser_agree(conn: asyncpg.Connection, text: str) -> None:
    if not text.strip():
        return  # no selector: neither looks at it
    ours = selector.syntax_error(text)
    theirs = await database_says(conn, text)
    if text.isascii():
        assert [tuple(t) for t in selector.tokenize(text)] == await database_tokens(conn, text)
        assert ours == theirs, text
    else:
        # outside ASCII the database reads letters by its locale: the check may take what
        # the database refuses (or refuse it elsewhere), never refuse what it takes
        assert ours is None or theirs is not None, (text, ours, theirs)
