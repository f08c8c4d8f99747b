"""Where Session.run runs an operation (the table at Session._mode), without a database."""

from __future__ import annotations

from typing import Any

import pytest
from pgaq.engine import Session
from pgaq.errors import PgaqError
from pgaq.lease import Lease


def session(*, held: bool, tx: bool = False, dirty: bool = False) -> Session:
    s = Session(None)
    if held:
        s.bind(Lease(object(), "a test"))
    s._tx = object() if tx else None
    s._dirty = dirty
    return s


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
    assert session(held=held, tx=tx, dirty=dirty)._mode(vis) == mode


async def test_a_pooled_mode_without_a_pool_says_which() -> None:
    async def never(c: Any) -> None:
        raise AssertionError("nothing runs without a connection")

    with pytest.raises(PgaqError, match="IMMEDIATE visibility inside a transaction needs"):
        await session(held=True, tx=True).run("immediate", never)
    with pytest.raises(PgaqError, match="a Session needs a connection or a pool"):
        await session(held=False).run("ON_COMMIT", never)


@pytest.mark.parametrize(("role", "inline", "ran"), [
    (None, True, "fn"), ("", True, "fn"), ("r", True, "inline"), ("r", False, "as_role"),
])
async def test_an_autocommit_sets_the_role_one_way(role: str | None, inline: bool, ran: str) -> None:
    s = session(held=False)
    s.role = role

    async def fn(c: Any) -> str:
        return "fn"

    async def as_role(c: Any, f: Any) -> str:
        return "as_role"

    async def inl(c: Any) -> str:
        return "inline"

    s._as_role = as_role  # type: ignore[method-assign, assignment]
    assert await s._autocommit(object(), fn, inl if inline else None) == ran
