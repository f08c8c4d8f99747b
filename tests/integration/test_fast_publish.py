"""The one-statement publish (a multi-consumer table's generated aq$_<table>_send): while
every subscriber of the queue is plain (no rule) it writes the messages for every subscriber
in one statement, exactly what aq.enqueue_array writes, as the AQ$<table> view shows (one
row per message and recipient); otherwise it touches nothing and the general path applies
(rules, ORA-24033)."""

from __future__ import annotations

import json

import asyncpg
import pytest
from pgaq import Agent, DequeueOptions, MessageProperties, Session
from pgaq.errors import PgaqError

from .helpers import make_queue, raw, subscribe

RECIPIENTS = ('SELECT msg_id, consumer_name, address, protocol, queue, msg_state, msg_priority, delay,'
              ' enq_time FROM s.aq$qt ORDER BY msg_id, consumer_name')


async def _send_fn(conn: asyncpg.Connection, props: list[dict[str, int]], raw: list[bytes]) -> object:
    return await conn.fetchval('SELECT s."aq$_qt_send"($1, $2::jsonb, NULL, $3, NULL)',
                               "q", json.dumps(props), raw)


async def test_plain_subscribers_get_every_message_in_one_statement(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    s = Session(conn)
    assert (await s.fast_path("s.q")).send is not None
    ids = await s.enqueue_array("s.q", [(bytes([i]), MessageProperties(priority=i, delay=i % 2))
                                        for i in range(4)])
    rows = await conn.fetch(RECIPIENTS)
    # each recipient shows the message's own state and priority
    assert sorted((r["msg_id"], r["consumer_name"], r["msg_state"], r["msg_priority"]) for r in rows) == sorted(
        (i, c, "WAIT" if n % 2 else "READY", n) for n, i in enumerate(ids) for c in ("A", "B"))
    for consumer in ("A", "B"):
        got = await s.dequeue("s.q", DequeueOptions(consumer_name=consumer, batch_size=10))
        assert sorted(raw(m.payload) for m in got) == [b"\x00", b"\x02"]  # the others are delayed


async def test_the_same_rows_as_the_general_path(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    props = [{"priority": 3, "delay": 0}, {"priority": 1, "delay": 5}]
    fast = await _send_fn(conn, props, [b"a", b"b"])
    general = await conn.fetchval("SELECT aq.enqueue_array('s.q', $1::jsonb, NULL, $2)",
                                  json.dumps(props), [b"a", b"b"])
    rows = {r["msg_id"]: r for r in await conn.fetch(RECIPIENTS)}

    def shape(ids: list[bytes]) -> list[tuple[object, ...]]:
        return [(rows[i.hex().upper()]["consumer_name"], rows[i.hex().upper()]["address"],
                 rows[i.hex().upper()]["protocol"], rows[i.hex().upper()]["queue"],
                 rows[i.hex().upper()]["msg_state"], rows[i.hex().upper()]["msg_priority"])
                for i in ids]
    assert isinstance(fast, list) and shape(fast) == shape(general)


async def test_a_rule_sends_the_publish_down_the_general_path(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "ALL")
    await subscribe(conn, "s.q", "URGENT", rule="priority > 5")
    assert await _send_fn(conn, [{"priority": 1, "delay": 0}], [b"x"]) is None
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0  # nothing touched
    s = Session(conn)
    await s.enqueue_array("s.q", [(b"low", MessageProperties(priority=1)),
                                  (b"high", MessageProperties(priority=9))])
    rows = await conn.fetch("SELECT consumer_name, count(*) AS n FROM s.aq$qt GROUP BY 1 ORDER BY 1")
    assert [(r["consumer_name"], r["n"]) for r in rows] == [("ALL", 2), ("URGENT", 1)]
    # the rule removed again: the fast path is back
    await conn.execute("CALL dbms_aqadm.remove_subscriber('s.q', sys.aq$_agent('URGENT', NULL, NULL))")
    assert await _send_fn(conn, [{"priority": 1, "delay": 0}], [b"y"]) is not None


async def test_no_subscriber_is_ora_24033_and_nothing_is_enqueued(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)
    assert await _send_fn(conn, [{"priority": 1, "delay": 0}], [b"x"]) is None
    with pytest.raises(PgaqError) as err:
        await Session(conn).enqueue_array("s.q", [(b"x", MessageProperties())])
    assert err.value.code == 24033
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


async def test_an_enqueuer_role_publishes_through_it(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await conn.execute("CREATE ROLE pub_only NOLOGIN")
    await conn.execute("CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 's.q', 'pub_only')")
    async with conn.transaction():
        await conn.execute("SET LOCAL ROLE pub_only")
        assert await _send_fn(conn, [{"priority": 1, "delay": 0}], [b"x"]) is not None
    await conn.execute("CREATE ROLE nobody_here NOLOGIN")
    with pytest.raises(asyncpg.PostgresError):
        async with conn.transaction():
            await conn.execute("SET LOCAL ROLE nobody_here")
            await _send_fn(conn, [{"priority": 1, "delay": 0}], [b"y"])
    assert await conn.fetchval("SELECT count(*) FROM s.aq$qt") == 1


@pytest.mark.parametrize("multiple", [False, True])
async def test_a_sender_is_stored_as_the_general_path_stores_it(conn: asyncpg.Connection,
                                                                 multiple: bool) -> None:
    await make_queue(conn, multiple=multiple)
    if multiple:
        await subscribe(conn, "s.q", "A")
    s = Session(conn)
    sender = Agent(" scott ", "aq://x", 3)
    [fast] = await s.enqueue_array("s.q", [(b"x", MessageProperties(sender_id=sender))])
    [one] = await s.enqueue_array("s.q", [(b"y", MessageProperties(sender_id=Agent("", None, 0)))])
    props = json.dumps([{"priority": 1, "delay": 0, "sender_id": {"name": " scott ", "address": "aq://x",
                                                                     "protocol": 3}}])
    [general] = await conn.fetchval("SELECT aq.enqueue_array('s.q', $1::jsonb, NULL, $2)", props, [b"z"])
    rows = {r["msgid"].hex().upper(): tuple(r)[1:] for r in await conn.fetch(
        "SELECT msgid, sender_name, sender_address, sender_protocol FROM s.qt")}
    assert rows[fast] == rows[general.hex().upper()] == ("scott", "aq://x", 3)
    assert rows[one] == (None, None, 0)


@pytest.mark.parametrize(("sender", "code"), [(Agent("x" * 129), 24047), (Agent("a", None, -1), 25216)])
async def test_a_bad_sender_gets_the_general_paths_error(conn: asyncpg.Connection, sender: Agent,
                                                          code: int) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    with pytest.raises(PgaqError) as err:
        await Session(conn).enqueue_array("s.q", [(b"x", MessageProperties(sender_id=sender))])
    assert err.value.code == code
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


@pytest.mark.parametrize("multiple", [False, True])
async def test_transactional_grouping_keeps_the_general_path(conn: asyncpg.Connection,
                                                             multiple: bool) -> None:
    await make_queue(conn, multiple=multiple, grouping="TRANSACTIONAL")
    if multiple:
        await subscribe(conn, "s.q", "A")
    s = Session(conn)
    assert (await s.fast_path("s.q")).send is None
    await s.begin()
    await s.enqueue_array("s.q", [(b"first", MessageProperties(priority=1))])
    await s.enqueue_array("s.q", [(b"second", MessageProperties(priority=7, sender_id=Agent("scott")))])
    await s.commit()
    # a group takes its first message's properties
    assert [r[0] for r in await conn.fetch("SELECT priority FROM s.qt ORDER BY enq_seq")] == [1, 1]


@pytest.mark.parametrize(("props", "code"), [
    (MessageProperties(delay=-1), 25208), (MessageProperties(expiration=-5), 25209),
    (MessageProperties(correlation="c" * 129), 24005)])
@pytest.mark.parametrize("multiple", [False, True])
async def test_an_object_queues_property_errors_keep_their_codes(
        conn: asyncpg.Connection, props: MessageProperties, code: int, multiple: bool) -> None:
    await conn.execute("CREATE SCHEMA s; CREATE TYPE s.obj AS (a integer)")
    await make_queue(conn, payload="s.obj", multiple=multiple)
    if multiple:
        await subscribe(conn, "s.q", "A")
    s = Session(conn)
    for batch in ([({"a": 1}, props)], [({"a": 1}, props), ({"a": 2}, MessageProperties())]):
        with pytest.raises(PgaqError) as err:
            await s.enqueue_array("s.q", batch)
        assert err.value.code == code, err.value
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0
