"""Session.commit(begin_next=True): the commit and the next BEGIN in one round trip. What
the caller sees must be exactly commit() then begin(): the first transaction durable, the
second one open (its work rolled back by rollback(), its REMOVEs counted as failed
attempts), and a COMMIT that fails leaves no transaction open and the session usable."""

from __future__ import annotations

import asyncpg
import pytest
from pgaq import DequeueOptions, Session
from pgaq.errors import PgaqError

from .helpers import make_queue


async def other_sees(dsn: str, sql: str) -> int:
    c = await asyncpg.connect(dsn)
    try:
        return int(await c.fetchval(sql))
    finally:
        await c.close()


async def test_commit_then_begin_in_one_round_trip(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn)
    s = Session(conn)
    for p in (b"a", b"b", b"c"):
        await s.enqueue("s.q", p)
    await s.begin()
    [a] = await s.dequeue("s.q", DequeueOptions(visibility="ON_COMMIT"))
    await s.commit(begin_next=True)
    assert s.in_transaction and conn.is_in_transaction()
    assert await other_sees(db_dsn, "SELECT count(*) FROM s.qt") == 2  # the first is durable
    [b] = await s.dequeue("s.q", DequeueOptions(visibility="ON_COMMIT"))
    assert (a.payload, b.payload) == (b"a", b"b")
    await s.rollback()  # the second transaction's REMOVE: undone, a failed attempt
    assert not s.in_transaction and not conn.is_in_transaction()
    [again] = await s.dequeue("s.q", DequeueOptions(dequeue_mode="BROWSE"))
    assert again.payload == b"b" and again.attempts == 1
    await s.begin()
    await s.commit(begin_next=True)
    await s.commit()
    assert not conn.is_in_transaction()


async def test_savepoints_work_in_the_transaction_begun_by_the_commit(conn: asyncpg.Connection) -> None:
    await make_queue(conn)
    s = Session(conn)
    await s.begin()
    await s.enqueue("s.q", b"x")
    await s.commit(begin_next=True)
    await s.enqueue("s.q", b"y")  # the transaction's first operation
    with pytest.raises(PgaqError):  # a bad request under the savepoint of the second one
        await s.dequeue("s.q", DequeueOptions(visibility="ON_COMMIT", dequeue_mode="NOPE"))
    with pytest.raises(PgaqError):
        await s.dequeue("s.nope", DequeueOptions(visibility="ON_COMMIT"))
    await s.enqueue("s.q", b"z")
    await s.commit()
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 3


async def test_a_failed_commit_leaves_no_transaction(conn: asyncpg.Connection, db_dsn: str) -> None:
    await make_queue(conn)
    await conn.execute("CREATE TABLE s.guard (x int UNIQUE DEFERRABLE INITIALLY DEFERRED)")
    s = Session(conn)
    await s.begin()
    await s.enqueue("s.q", b"lost with its transaction")
    await conn.execute("INSERT INTO s.guard VALUES (1), (1)")  # fails only at COMMIT
    with pytest.raises(PgaqError) as err:
        await s.commit(begin_next=True)
    assert "guard_x_key" in str(err.value)  # what really happened
    assert not s.in_transaction and not conn.is_in_transaction()
    assert await other_sees(db_dsn, "SELECT count(*) FROM s.qt") == 0
    await s.enqueue("s.q", b"the session goes on")  # autocommit, usable
    await s.begin()
    await s.enqueue("s.q", b"and begins again")
    await s.commit()
    assert await other_sees(db_dsn, "SELECT count(*) FROM s.qt") == 2
