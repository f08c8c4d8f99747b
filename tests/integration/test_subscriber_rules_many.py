"""Subscribers with rules added one by one (each add compiles its own rule only): every
subscriber still gets exactly the messages its rule selects, as Oracle evaluates rules at
enqueue ("Oracle Database Advanced Queuing User's Guide", ADD_SUBSCRIBER: "rule ... a
conditional expression based on the message properties"), and what the adds built is what
compiling every rule at once builds."""

from __future__ import annotations

import asyncpg
from pgaq import DequeueOptions, MessageProperties, Session

from .helpers import make_queue, subscribe

RULES = {  # subscriber -> rule (None: every message)
    "LOW": "priority < 3",
    "ALL1": None,
    "HIGH": "priority >= 7",
    "CORR": "corrid = 'red'",
    "ALL2": None,
    "MID": "priority BETWEEN 3 AND 6 AND corrid = 'red'",
}


def _wants(rule: str | None, priority: int, corr: str) -> bool:
    """The rules above, read as SQL would read them."""
    return {
        None: True,
        "priority < 3": priority < 3,
        "priority >= 7": priority >= 7,
        "corrid = 'red'": corr == "red",
        "priority BETWEEN 3 AND 6 AND corrid = 'red'": 3 <= priority <= 6 and corr == "red",
    }[rule]


async def test_rules_added_one_by_one_route_as_written(conn: asyncpg.Connection) -> None:
    await make_queue(conn, "rm.q", "rm.qt", multiple=True)
    for name, rule in RULES.items():
        await subscribe(conn, "rm.q", name, rule)
    cache = await conn.fetchrow(
        "SELECT rules_sql, rules_params, plain_ids FROM aq.rule_cache c JOIN aq.queues q"
        " ON q.id = c.queue_id WHERE q.queue_name = 'q' AND q.schema_name = 'rm'")
    s = Session(conn)
    sent: dict[str, tuple[int, str]] = {}
    for priority in range(10):
        for corr in ("red", "blue"):
            payload = f"{priority}-{corr}".encode()
            await s.enqueue("rm.q", payload, MessageProperties(priority=priority, correlation=corr))
            sent[payload.decode()] = (priority, corr)
    for name, rule in RULES.items():
        got = await s.dequeue("rm.q", DequeueOptions(consumer_name=name, batch_size=100))
        want = {p for p, (pri, corr) in sent.items() if _wants(rule, pri, corr)}
        assert {bytes(m.payload).decode() for m in got} == want, name  # type: ignore[arg-type]
    # compiling every rule again gives what the adds built
    await conn.execute("SELECT aq.rebuild_rules(id) FROM aq.queues"
                       " WHERE queue_name = 'q' AND schema_name = 'rm'")
    again = await conn.fetchrow(
        "SELECT rules_sql, rules_params, plain_ids FROM aq.rule_cache c JOIN aq.queues q"
        " ON q.id = c.queue_id WHERE q.queue_name = 'q' AND q.schema_name = 'rm'")
    assert dict(again) == dict(cache)


async def test_a_rule_added_in_a_rolled_back_transaction_leaves_no_branch(
        conn: asyncpg.Connection) -> None:
    await make_queue(conn, "rb.q", "rb.qt", multiple=True)
    await subscribe(conn, "rb.q", "A", "priority > 1")
    tx = conn.transaction()
    await tx.start()
    await subscribe(conn, "rb.q", "B", "priority > 5")
    await tx.rollback()
    await subscribe(conn, "rb.q", "C", None)
    s = Session(conn)
    await s.enqueue("rb.q", b"x", MessageProperties(priority=9))
    got = await conn.fetch("SELECT consumer_name FROM rb.aq$qt ORDER BY 1")
    assert [r[0] for r in got] == ["A", "C"]
