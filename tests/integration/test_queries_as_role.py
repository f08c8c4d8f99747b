"""What pgaq.queries.as_role relies on, in PostgreSQL: a call's argument is evaluated before
the call runs, so the role its CASE sets is the one the call runs as, whether the call is
in the SELECT list, a FROM function scan, or inside unnest() in one; with custom plans
and the generic plan a prepared statement moves to after five runs; and the role ends
with the statement's own transaction."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
from pgaq.queries import as_role


@pytest.fixture
async def role(conn: asyncpg.Connection) -> AsyncIterator[str]:
    name = f"asrole_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{name}" NOLOGIN; GRANT "{name}" TO CURRENT_USER')
    # PL/pgSQL, as every call the library wraps: what each sees as current_user
    await conn.execute("""
        CREATE FUNCTION public.who(a text, b int) RETURNS text LANGUAGE plpgsql
          AS $$ BEGIN RETURN current_user || ':' || a || ':' || b; END $$;
        CREATE FUNCTION public.whos(a text, b int) RETURNS SETOF text LANGUAGE plpgsql
          AS $$ BEGIN RETURN NEXT current_user || ':' || a || ':' || b; END $$;
        CREATE FUNCTION public.whoarr(a text, b int) RETURNS text[] LANGUAGE plpgsql
          AS $$ BEGIN RETURN ARRAY[current_user || ':' || a || ':' || b]; END $$;
    """)
    yield name
    await conn.execute("DROP FUNCTION public.who, public.whos, public.whoarr")
    await conn.execute(f'DROP ROLE "{name}"')


@pytest.mark.parametrize("plain", [
    "SELECT public.who($1::text, $2::integer) AS x",
    "SELECT x FROM public.whos($1::text, $2::integer) x",
    "SELECT x FROM unnest(public.whoarr($1::text, $2::integer)) x",
], ids=["select-list", "function-scan", "unnest-scan"])
async def test_the_call_runs_as_the_role_its_argument_set(conn: asyncpg.Connection, role: str,
                                                          plain: str) -> None:
    me = await conn.fetchval("SELECT current_user")
    statement = await conn.prepare(as_role(plain))
    for i in range(8):  # past the five custom plans: the generic one too
        assert await statement.fetchval("a", i, role) == f"{role}:a:{i}"
        assert await conn.fetchval("SELECT current_user") == me  # SET LOCAL: gone after
    plain_statement = await conn.prepare(plain)
    assert await plain_statement.fetchval("a", 0) == f"{me}:a:0"
