"""Session.run's modes that need a database (the table at pgaq.client.run_mode; the rest
are in tests/unit/test_session_modes.py)."""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg
import pytest
from pgaq import Session
from pgaq.errors import PgaqError


async def test_immediate_in_a_transaction_without_a_pool_says_which(conn: asyncpg.Connection) -> None:
    async def never(c: Any) -> None:
        raise AssertionError("an IMMEDIATE operation in a transaction runs on another connection")

    s = Session(conn)
    await s.begin()
    with pytest.raises(PgaqError, match="IMMEDIATE visibility inside a transaction needs"):
        await s.run("immediate", never)
    assert s.in_transaction  # the transaction is untouched
    await s.rollback()


async def test_an_autocommit_as_a_role_sets_it_for_the_statement_only(conn: asyncpg.Connection) -> None:
    role = f"run_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{role}"')
    login = await conn.fetchval("SELECT current_user")
    try:
        s = Session(conn, role=role)

        async def who(c: asyncpg.Connection) -> str:
            return str(await c.fetchval("SELECT current_user"))

        async def inline(c: asyncpg.Connection) -> str:
            return "inline"  # the statement that would set the role itself

        assert await s.run("IMMEDIATE", who) == role  # BEGIN; SET ROLE; statement; COMMIT
        assert await conn.fetchval("SELECT current_user") == login  # and no further
        assert not conn.is_in_transaction()
        assert await s.run("IMMEDIATE", who, inline) == "inline"  # one round trip instead
    finally:
        await conn.execute(f'DROP ROLE "{role}"')
