"""The named templates the engine's SQL is generated from (R__09_render.sql, R__13_templates.sql).

What the issue asks of them: placeholders by name, quoting said by the placeholder (an
identifier or a literal, never user text spliced), a missing argument an error when the
SQL is generated rather than a silently shorter statement, and no template a caller names
left undefined.
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import asyncpg
import pytest

MIGRATIONS = Path(__file__).resolve().parents[2] / "shared" / "pgaq" / "sql" / "migrations"


async def _define(conn: asyncpg.Connection, name: str, body: str) -> None:
    await conn.execute("SELECT aq.define_template($1, $2)", name, body)


async def test_placeholders_are_filled_by_name_with_their_quoting(conn: asyncpg.Connection) -> None:
    await _define(conn, "t.pick",
                  "SELECT {{cols}} FROM {{schema:ident}}.{{table:ident}} WHERE k = {{key:literal}}"
                  " AND v = {{key:literal}}")
    got = await conn.fetchval(
        "SELECT aq.render('t.pick', jsonb_build_object('cols', 'a, b', 'schema', 'My Schema',"
        " 'table', 'select', 'key', 'it''s'))")
    assert got == ('SELECT a, b FROM "My Schema"."select" WHERE k = \'it\'\'s\' AND v = \'it\'\'s\'')
    # the template's own function gives the same text
    same = await conn.fetchval(
        "SELECT aq.render_t_pick(jsonb_build_object('cols', 'a, b', 'schema', 'My Schema',"
        " 'table', 'select', 'key', 'it''s'))")
    assert same == got


async def test_percent_signs_and_dollar_quotes_pass_through(conn: asyncpg.Connection) -> None:
    await _define(conn, "t.text", "SELECT format('%s %%', {{v:literal}}) $x$ $body$ {{w}}")
    got = await conn.fetchval("SELECT aq.render('t.text', '{\"v\": \"100%\", \"w\": \"%I\"}')")
    assert got == "SELECT format('%s %%', '100%') $x$ $body$ %I"


async def test_a_literal_may_be_null_but_sql_and_identifiers_may_not(conn: asyncpg.Connection) -> None:
    await _define(conn, "t.lit", "x = {{v:literal}}")
    assert await conn.fetchval("SELECT aq.render('t.lit', '{\"v\": null}')") == "x = NULL"
    await _define(conn, "t.sql", "x = {{v}} AND {{w:ident}}")
    for args in ('{"w": "c"}', '{"v": null, "w": "c"}', '{"v": "1", "w": null}', '{}'):
        with pytest.raises(asyncpg.PostgresError, match=r"ORA-00600: .*SQL template t\.sql needs \{\{[vw]\}\}"):
            await conn.fetchval("SELECT aq.render('t.sql', $1::jsonb)", args)
    with pytest.raises(asyncpg.PostgresError, match=r"SQL template t\.sql given no arguments"):
        await conn.fetchval("SELECT aq.render_t_sql(NULL)")
    # a key a template does not use is no error: one set of arguments fills several parts
    assert await conn.fetchval("SELECT aq.render('t.sql', '{\"v\": \"1\", \"w\": \"c\", \"z\": 0}')") == "x = 1 AND c"


async def test_includes_and_bad_definitions(conn: asyncpg.Connection) -> None:
    await _define(conn, "t.head", "WITH c AS (SELECT {{a}})")
    await _define(conn, "t.whole", "{{> t.head}} SELECT {{b}} FROM c")
    assert await conn.fetchval("SELECT aq.render('t.whole', '{\"a\": \"1\", \"b\": \"2\"}')") == \
        "WITH c AS (SELECT 1) SELECT 2 FROM c"
    with pytest.raises(asyncpg.PostgresError, match=r"includes t\.nothing, not defined before it"):
        await _define(conn, "t.bad", "{{> t.nothing}}")
    with pytest.raises(asyncpg.PostgresError, match=r"unknown quoting \{\{v:raw\}\}"):
        await _define(conn, "t.bad", "{{v:raw}}")
    with pytest.raises(asyncpg.PostgresError, match=r"no SQL template t\.none"):
        await conn.fetchval("SELECT aq.render('t.none')")
    # one template, one function: names that would compile to the same function are refused
    for clash in ("t_head", "t-head", "check"):
        with pytest.raises(asyncpg.PostgresError, match=r"its function name render_\w+ is taken"):
            await _define(conn, clash, "x")


async def test_a_template_no_longer_defined_goes_with_its_function(conn: asyncpg.Connection) -> None:
    async with conn.transaction():
        await _define(conn, "t.old", "x")
    async with conn.transaction():
        await _define(conn, "t.kept", "y")
        await conn.execute("SELECT aq.forget_undefined_templates()")
    names = {r["name"] for r in await conn.fetch("SELECT name FROM aq.sql_templates")}
    assert names == {"t.kept"}
    assert await conn.fetchval("SELECT to_regprocedure('aq.render_t_old(jsonb)')") is None
    assert await conn.fetchval("SELECT aq.render_t_kept('{}')") == "y"


async def test_only_the_schema_owner_writes_templates(conn: asyncpg.Connection) -> None:
    role = f"tpl_user_{uuid.uuid4().hex[:8]}"
    await conn.execute(f"CREATE ROLE {role} LOGIN")
    await conn.execute(f"SET ROLE {role}")
    try:
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.execute("SELECT aq.define_template('queue_table.enq', 'DROP TABLE x')")
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.execute("UPDATE aq.sql_templates SET body = '' WHERE name = 'queue_table.enq'")
        # reading and rendering is everybody's (the dynamic dequeue runs as its caller)
        assert await conn.fetchval("SELECT count(*) FROM aq.sql_templates") > 20
    finally:
        await conn.execute("RESET ROLE")


async def test_every_template_the_engine_names_is_defined(conn: asyncpg.Connection) -> None:
    defined = {r["name"] for r in await conn.fetch("SELECT name FROM aq.sql_templates")}
    functions = {r["proname"] for r in await conn.fetch(
        "SELECT proname FROM pg_proc WHERE pronamespace = 'aq'::regnamespace AND proname LIKE 'render\\_%'")}
    named: set[str] = set()
    called: set[str] = set()
    for f in MIGRATIONS.glob("R__*.sql"):
        text = f.read_text()
        named |= set(re.findall(r"aq\.render\('([a-z_.0-9]+)'", text))
        named |= set(re.findall(r"'(queue_table\.[a-z_.0-9]+)'", text))
        called |= set(re.findall(r"aq\.(render_[a-z_0-9]+)\(", text))
    assert named - defined == set()
    assert called - functions - {"render_check"} == set()
    # and nothing is defined that nobody uses (an include counts as a use)
    bodies = "".join(f.read_text() for f in MIGRATIONS.glob("R__*.sql"))
    included = set(re.findall(r"\{\{> ([a-z_.]+)\}\}", bodies))
    unused = {n for n in defined - named - included
              if "render_" + re.sub(r"[^a-z0-9]+", "_", n) not in bodies}
    assert unused == set()


async def test_inline_templates_share_the_notation(conn: asyncpg.Connection) -> None:
    """aq.sql, the inline form for one-off statements: the same placeholders, quoting,
    includes and errors as a named template, from the same parser."""
    args = ('{"cols": "a, b", "schema": "My Schema", "table": "select", "key": "it\'s"}')
    body = "SELECT {{cols}} FROM {{schema:ident}}.{{table:ident}} WHERE k = {{key:literal}} AND v = {{key:literal}}"
    got = await conn.fetchval("SELECT aq.sql($1, $2::jsonb)", body, args)
    assert got == 'SELECT a, b FROM "My Schema"."select" WHERE k = \'it\'\'s\' AND v = \'it\'\'s\''
    await _define(conn, "t.same", body)
    assert await conn.fetchval("SELECT aq.render('t.same', $1::jsonb)", args) == got
    assert await conn.fetchval("SELECT aq.sql('x = {{v:literal}} %s %%', '{\"v\": null}')") == "x = NULL %s %%"
    assert await conn.fetchval("SELECT aq.sql('{{> t.same}};', $1::jsonb)", args) == got + ";"
    assert await conn.fetchval("SELECT aq.sql('SELECT 1')") == "SELECT 1"
    with pytest.raises(asyncpg.PostgresError, match=r"ORA-00600: .*SQL template \(inline\) needs \{\{w\}\}"):
        await conn.fetchval("SELECT aq.sql('{{v}} {{w:ident}}', '{\"v\": \"1\", \"w\": null}')")
    with pytest.raises(asyncpg.PostgresError, match=r"SQL template \(inline\) given no arguments"):
        await conn.fetchval("SELECT aq.sql('{{v}}', NULL)")
    with pytest.raises(asyncpg.PostgresError, match=r"SQL template \(inline\): unknown quoting \{\{v:raw\}\}"):
        await conn.fetchval("SELECT aq.sql('{{v:raw}}', '{}')")
    with pytest.raises(asyncpg.PostgresError, match=r"SQL template \(inline\) includes t\.nothing, not defined"):
        await conn.fetchval("SELECT aq.sql('{{> t.nothing}}', '{}')")


async def test_templates_of_earlier_files_of_the_run_are_kept(conn: asyncpg.Connection) -> None:
    """A repeatable file before R__13_templates.sql defines the templates its functions
    call in its own transaction: the forgetting at the end of R__13 keeps what any file of
    the run (since R__09's transaction, pgaq.template_run) defined."""
    async with conn.transaction():
        await _define(conn, "t.before_run", "x")
    async with conn.transaction():
        await conn.execute("SELECT set_config('pgaq.template_run', pg_current_xact_id()::text, false)")
        await _define(conn, "t.earlier_file", "y")
    async with conn.transaction():
        await _define(conn, "t.templates_file", "z")
        await conn.execute("SELECT aq.forget_undefined_templates()")
    names = {r["name"] for r in await conn.fetch("SELECT name FROM aq.sql_templates WHERE name LIKE 't.%'")}
    assert names == {"t.earlier_file", "t.templates_file"}
    assert await conn.fetchval("SELECT to_regprocedure('aq.render_t_before_run(jsonb)')") is None
