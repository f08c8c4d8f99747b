"""Session.enqueue of one RAW message with the default properties runs the queue's cached
send statement at once (send1sql, without trying the route table): it must answer as the
general route does, on every path around it (a transaction, an acting role, a stopped
queue, a queue re-created under the cached statement, a queue whose statement declines).
Each step runs on two twin queues: through a Session as the library chooses, and through
one pinned to the general route (tests/routing.py)."""

from __future__ import annotations

from typing import Any

import asyncpg
from pgaq import Session
from pgaq.errors import PgaqError

from tests.routing import Pinned

from .helpers import make_queue

ROWS = ("SELECT msg_state, corr_id, msg_priority, delay_seconds, expiration, sender_name, user_data,"
        " enq_user_id FROM s.aq$qt WHERE queue = $1 ORDER BY enq_time, msg_id")


async def _enqueue(s: Session, queue: str, payload: bytes) -> Any:
    try:
        mid = await s.enqueue(queue, payload)
    except PgaqError as exc:
        return ("error", getattr(exc, "code", None))
    assert isinstance(mid, str) and len(mid) == 32 and mid == mid.upper()
    return "ok"


async def _twins(conn: asyncpg.Connection, db_dsn: str, role: str | None = None) -> tuple[Session, Session]:
    await make_queue(conn, "s.lib")
    await make_queue(conn, "s.gen", create_table=False)
    if role is not None:
        await conn.execute(f'CREATE ROLE "{role}"')
        for q in ("s.lib", "s.gen"):
            await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', '{q}', '{role}')")
    lib = Session(await asyncpg.connect(db_dsn), role=role)
    gen = Session(await asyncpg.connect(db_dsn), role=role, route_policy=Pinned(frozenset()))
    return lib, gen


async def _same(conn: asyncpg.Connection, rows: int) -> None:
    lib_rows = [tuple(r) for r in await conn.fetch(ROWS, "lib")]
    gen_rows = [tuple(r) for r in await conn.fetch(ROWS, "gen")]
    assert lib_rows == gen_rows
    assert len(lib_rows) == rows, lib_rows


async def _both(lib: Session, gen: Session, payload: bytes) -> Any:
    a = await _enqueue(lib, "s.lib", payload)
    b = await _enqueue(gen, "s.gen", payload)
    assert a == b
    return a


async def test_autocommit_and_transactions_answer_as_the_general_route(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    lib, gen = await _twins(conn, db_dsn)
    steps = [await _both(lib, gen, bytes([i])) for i in range(3)]  # the first fills the cache
    for s in (lib, gen):
        await s.begin()
    steps += [await _both(lib, gen, b"\x10"), await _both(lib, gen, b"\x11")]  # first, then savepoint
    for s in (lib, gen):
        await s.commit()
        await s.begin()
    steps.append(await _both(lib, gen, b"\x20"))
    for s in (lib, gen):
        await s.rollback()
    assert steps == ["ok"] * 6
    await _same(conn, 5)  # (one rolled back)


async def test_a_stopped_queue_and_a_declining_statement(conn: asyncpg.Connection, db_dsn: str) -> None:
    lib, gen = await _twins(conn, db_dsn)
    steps = [await _both(lib, gen, b"\x01"), await _both(lib, gen, b"\x02")]
    for q in ("s.lib", "s.gen"):  # the cached statement declines: _send1 raises ORA-25207
        await conn.execute("CALL dbms_aqadm.stop_queue($1, enqueue => true, dequeue => false)", q)
    steps.append(await _both(lib, gen, b"\x03"))
    assert steps[-1] == ("error", 25207)
    for q in ("s.lib", "s.gen"):
        await conn.execute("CALL dbms_aqadm.start_queue($1)", q)
    steps.append(await _both(lib, gen, b"\x04"))
    assert steps == ["ok", "ok", ("error", 25207), "ok"]
    await _same(conn, 3)


async def test_a_queue_recreated_under_the_cached_statement(conn: asyncpg.Connection, db_dsn: str) -> None:
    lib, gen = await _twins(conn, db_dsn)
    steps = [await _both(lib, gen, b"\x01"), await _both(lib, gen, b"\x02")]
    for q in ("s.lib", "s.gen"):
        await conn.execute("CALL dbms_aqadm.stop_queue($1)", q)
        await conn.execute("CALL dbms_aqadm.drop_queue($1)", q)
    await conn.execute("CALL dbms_aqadm.drop_queue_table('s.qt')")
    await make_queue(conn, "s.lib")
    await make_queue(conn, "s.gen", create_table=False)
    steps += [await _both(lib, gen, b"\x03"), await _both(lib, gen, b"\x04")]
    assert steps == ["ok"] * 4
    await _same(conn, 2)  # (those of the dropped table went with it)


async def test_an_acting_role_in_and_out_of_a_transaction(conn: asyncpg.Connection, db_dsn: str) -> None:
    lib, gen = await _twins(conn, db_dsn, role="enq_default_role")
    steps = [await _both(lib, gen, b"\x01"), await _both(lib, gen, b"\x02")]
    for s in (lib, gen):
        await s.begin()
    steps += [await _both(lib, gen, b"\x03"), await _both(lib, gen, b"\x04")]
    for s in (lib, gen):
        await s.commit()
    assert steps == ["ok"] * 4
    await _same(conn, 4)
    assert {r["enq_user_id"] for r in await conn.fetch(ROWS, "lib")} == {"enq_default_role"}
