"""A receive whose client goes away takes nothing: its dequeue commits only if its caller
is still there when the dequeue returns. The grouped receives' tests are in
test_batching.py (and over HTTP in test_gateway.py); these are the receives the gateway
does not group, which its sessions' engines run in a transaction of their own
(pgaq.idap.sessions.Autocommits)."""

from __future__ import annotations

import asyncio
import threading

import asyncpg
import pytest
from pgaq.client import DequeueOptions, MessageProperties, Session
from pgaq.idap.batching import DequeueBatcher
from pgaq.idap.gateway import Gateway
from pgaq.idap.sessions import SessionStore

from .test_gateway_batching_rule import QUEUE, _receive, gateway  # noqa: F401 (a fixture)
from .waiting import until

Gw = tuple[Gateway, SessionStore, DequeueBatcher]


async def _lock_waiter(conn: asyncpg.Connection) -> int | None:
    pid: int | None = await conn.fetchval(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        "AND datname = current_database()")
    return pid


def _finish_on_the_server(dsn: str, holder: int, waiter: int) -> None:
    """With the caller's event loop stopped (as a busy gateway's may be): end the lock's
    holder, then wait until the blocked statement has finished on the server. The
    statement's result then waits, unread, for a loop that will find its caller gone:
    the driver's cancel request comes too late to stop it."""
    async def go() -> None:
        c = await asyncpg.connect(dsn)
        try:
            assert await c.fetchval("SELECT pg_terminate_backend($1)", holder)
            await until(lambda: c.fetchval(
                "SELECT state IN ('idle', 'idle in transaction') FROM pg_stat_activity "
                "WHERE pid = $1", waiter), "the statement to finish on the server")
        finally:
            await c.close()

    thread = threading.Thread(target=asyncio.run, args=(go(),))
    thread.start()
    thread.join()  # (blocks this loop: nothing of the gateway runs meanwhile)


async def test_an_ungrouped_receive_cancelled_once_its_statement_has_run_takes_nothing(
        gateway: Gw, conn: asyncpg.Connection, db_dsn: str) -> None:  # noqa: F811
    gw, store, receiver = gateway
    await Session(conn).enqueue(QUEUE, b"wanted", MessageProperties(correlation="c"),
                                visibility="IMMEDIATE")
    holder = await asyncpg.connect(db_dsn)
    try:
        await holder.execute("BEGIN")
        await holder.execute(f"LOCK TABLE {QUEUE}t IN EXCLUSIVE MODE")
        holder_pid = await holder.fetchval("SELECT pg_backend_pid()")
        # a correlation: not grouped (routes.batchable), the session's engine runs it
        wanted = DequeueOptions(visibility="IMMEDIATE", wait=0, correlation="c")
        request = asyncio.create_task(gw.handle(store.get(None, "JOHN"), _receive(wanted)))
        await until(lambda: _lock_waiter(conn), "the dequeue waiting on the lock")
        waiter = await _lock_waiter(conn)
        assert waiter is not None
        _finish_on_the_server(db_dsn, holder_pid, waiter)
        request.cancel()  # the client goes away before the gateway reads the result
        with pytest.raises(asyncio.CancelledError):
            await request
        assert receiver.requests == 0
    finally:
        await holder.close()
    assert await conn.fetchval(f"SELECT array_agg(user_data) FROM {QUEUE}t WHERE corrid = 'c'") \
        == [b"wanted"]
    _, body = await gw.handle(store.get(None, "JOHN"), _receive(wanted))
    assert body.count(b"<message_id>") == 1  # the next receive gets it
