"""The gateway batches exactly the receives the routes' rule admits (pgaq.routes.batchable),
plus its own one clause seen here: not a receive that continues from a saved position.

Each receive goes through Gateway.handle on a session of its own; the gateway's receiver
(a DequeueBatcher) counts the requests it served."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from pgaq.client import DequeueOptions, Session
from pgaq.idap.batching import DequeueBatcher
from pgaq.idap.gateway import Fault, Gateway
from pgaq.idap.sessions import HttpSession, SessionStore
from pgaq.routes import batchable

from .gateway_support import drop_roles, envelope, make_agent, op
from .helpers import make_queue

QUEUE = "bq.q"

# a receive's options beyond the defaults, and whether the rule admits them: written out,
# so a change to the rule shows here too
CASES: list[tuple[dict[str, Any], bool]] = [
    ({}, True),
    ({"dequeue_mode": "REMOVE_NODATA"}, True),
    ({"navigation": "FIRST_MESSAGE", "batch_size": 3}, True),
    ({"dequeue_mode": "BROWSE"}, False),
    ({"dequeue_mode": "LOCKED"}, False),
    ({"visibility": "ON_COMMIT"}, False),
    ({"correlation": "c"}, False),
    ({"condition": "tab.priority = 1"}, False),
    ({"msgid": "AB" * 16}, False),
    ({"navigation": "NEXT_TRANSACTION"}, False),
]


def _receive(o: DequeueOptions) -> bytes:
    """The AQXmlReceive that asks for a dequeue with options `o`."""
    selector = "".join(f"<{tag}>{value}</{tag}>" for tag, value in (
        ("correlation", o.correlation), ("message_id", o.msgid), ("condition", o.condition))
        if value is not None)
    inner = (f"<destination>{QUEUE}</destination><wait_time>0</wait_time>"
             f"<visibility>{o.visibility}</visibility><dequeue_mode>{o.dequeue_mode}</dequeue_mode>"
             f"<navigation_mode>{o.navigation}</navigation_mode><batch_size>{o.batch_size}</batch_size>"
             + (f"<selector>{selector}</selector>" if selector else ""))
    return envelope(op("AQXmlReceive", f"<consumer_options>{inner}</consumer_options>"))


@pytest.fixture
async def gateway(conn: asyncpg.Connection, db_dsn: str
                  ) -> AsyncIterator[tuple[Gateway, SessionStore, DequeueBatcher]]:
    roles = await make_agent(conn)
    await make_queue(conn, QUEUE, "bq.qt")
    await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('ALL', '{QUEUE}', '{roles[0]}')")
    await Session(conn).enqueue_array(QUEUE, [(bytes([i]), None) for i in range(30)],
                                      visibility="IMMEDIATE")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=8)
    store = SessionStore(pool, None)
    await store.start()
    receiver = DequeueBatcher(pool)
    try:
        yield Gateway(pool, store, receiver=receiver), store, receiver
    finally:
        await store.close()
        await pool.close()
        await drop_roles(conn, roles)


async def _batched(gw: Gateway, receiver: DequeueBatcher, s: HttpSession, o: DequeueOptions) -> bool:
    """Whether the gateway handed this receive to its receiver."""
    before = receiver.requests
    try:
        await gw.handle(s, _receive(o))
    except Fault:
        pass  # (a message id no message has): whether it was batched is what counts
    return receiver.requests > before


async def test_the_gateway_batches_what_the_rule_admits(
        gateway: tuple[Gateway, SessionStore, DequeueBatcher]) -> None:
    gw, store, receiver = gateway
    for extra, admitted in CASES:
        o = DequeueOptions(**{"visibility": "IMMEDIATE", "wait": 0, **extra})
        assert batchable(o) == admitted, extra
        assert await _batched(gw, receiver, store.get(None, "JOHN"), o) == admitted, extra


async def test_a_receive_that_continues_from_a_saved_position_is_not_batched(
        gateway: tuple[Gateway, SessionStore, DequeueBatcher]) -> None:
    gw, store, receiver = gateway
    s = store.get(None, "JOHN")
    browse = DequeueOptions(dequeue_mode="BROWSE", visibility="IMMEDIATE", wait=0)
    remove = DequeueOptions(visibility="IMMEDIATE", wait=0)
    assert batchable(remove)
    assert not await _batched(gw, receiver, s, browse)  # NEXT_MESSAGE goes on after it
    assert not await _batched(gw, receiver, s, remove)
    assert await _batched(gw, receiver, store.get(None, "JOHN"), remove)  # a session with none
