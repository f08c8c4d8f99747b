"""Where Session.run runs an operation (the table at pgaq.client.run_mode), without a database."""

from __future__ import annotations

from typing import Any

import pytest
from pgaq import Session
from pgaq.client import run_mode
from pgaq.errors import PgaqError
from pgaq.lease import Lease


@pytest.mark.parametrize(("held", "tx", "dirty", "vis", "mode"), [
    (True, True, False, "IMMEDIATE", "aside"),
    (True, True, True, "IMMEDIATE", "aside"),
    (True, True, False, "ON_COMMIT", "first"),
    (True, True, True, "ON_COMMIT", "savepoint"),
    (False, False, False, "ON_COMMIT", "pooled"),
    (False, False, False, "IMMEDIATE", "pooled"),
    (True, False, False, "ON_COMMIT", "own"),
    (True, False, False, "IMMEDIATE", "own"),
])
def test_the_decision_table(held: bool, tx: bool, dirty: bool, vis: str, mode: str) -> None:
    assert run_mode(vis, tx, dirty, held) == mode


async def test_an_unbound_session_without_a_pool_says_which() -> None:
    async def never(c: Any) -> None:
        raise AssertionError("nothing runs without a connection")

    # (the transaction's case, "aside" without a pool: tests/integration/test_session_run.py)
    with pytest.raises(PgaqError, match="a Session needs a connection or a pool"):
        await Session(None).run("ON_COMMIT", never)


@pytest.mark.parametrize(("role", "inline", "ran"), [
    (None, True, "fn"), (None, False, "fn"), ("", True, "fn"), ("r", True, "inline"),
])
async def test_an_autocommit_sets_the_role_one_way(role: str | None, inline: bool, ran: str) -> None:
    # (a role without `inline` runs SET ROLE around the statement, which needs a database:
    # tests/integration/test_session_run.py)
    s = Session(None, role=role)
    held = object()
    s.bind(Lease(held, "a test"))  # mode "own": an autocommit on the held connection

    async def fn(c: Any) -> str:
        assert c is held
        return "fn"

    async def inl(c: Any) -> str:
        assert c is held
        return "inline"

    assert await s.run("IMMEDIATE", fn, inl if inline else None) == ran
