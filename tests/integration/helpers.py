"""Set-up helpers shared by integration tests."""

from __future__ import annotations

from typing import Any

import asyncpg
from pgaq import Payload


async def make_queue(
    conn: asyncpg.Connection,
    queue: str = "s.q",
    table: str = "s.qt",
    payload: str = "RAW",
    *,
    multiple: bool = False,
    sort_list: str | None = None,
    grouping: str = "NONE",
    max_retries: int = 5,
    retry_delay: float = 0,
    retention: float = 0,
    create_table: bool = True,
) -> None:
    schema = queue.split(".")[0]
    await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    if create_table:
        await conn.execute(
            "CALL dbms_aqadm.create_queue_table(queue_table => $1, queue_payload_type => $2,"
            " sort_list => $3, multiple_consumers => $4, message_grouping => $5)",
            table, payload, sort_list, multiple, grouping,
        )
    await conn.execute(
        "CALL dbms_aqadm.create_queue(queue_name => $1, queue_table => $2,"
        " max_retries => $3, retry_delay => $4, retention_time => $5)",
        queue, table, max_retries, retry_delay, retention,
    )
    await conn.execute("CALL dbms_aqadm.start_queue(queue_name => $1)", queue)


async def subscribe(
    conn: asyncpg.Connection, queue: str, name: str, rule: str | None = None
) -> None:
    await conn.execute(
        "CALL dbms_aqadm.add_subscriber(queue_name => $1,"
        " subscriber => sys.aq$_agent($2, NULL, NULL), rule => $3)",
        queue, name, rule,
    )


def obj(payload: Payload) -> dict[str, Any]:
    """An object type's or JMS message's payload; a RAW (bytes) or missing one fails here."""
    assert isinstance(payload, dict), payload
    return payload


def raw(payload: Payload) -> bytes:
    """A RAW queue's payload; an object one or a missing one fails here."""
    assert isinstance(payload, bytes), payload
    return payload
