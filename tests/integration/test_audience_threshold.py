"""Below pgaq.audience_min members (16 by default) a topic's publish writes a recipient row
per subscriber, as classic AQ does; from there on, none for the audience's members. Either
way every subscriber gets every message once (issue 35: storage that does not grow with
subscribers that have nothing particular to record, without making a narrow topic's
dequeue pay for a window)."""

from __future__ import annotations

import asyncpg
import pytest
from pgaq import DequeueOptions, Session

from .helpers import make_queue, subscribe


@pytest.mark.parametrize("subscribers, rows_per_message", [(3, 3), (16, 0), (20, 0)])
async def test_rows_written_at_publish(conn: asyncpg.Connection, subscribers: int,
                                       rows_per_message: int) -> None:
    await make_queue(conn, multiple=True)
    names = [f"S{i:02d}" for i in range(subscribers)]
    for name in names:
        await subscribe(conn, "s.q", name)
    s = Session(conn)
    await s.enqueue_array("s.q", [(b"1", None), (b"2", None)])  # the generated publish
    await conn.execute("SELECT aq.enqueue_array('s.q', '[{}]'::jsonb, NULL, ARRAY['\\x33'::bytea])")  # the general one
    assert await conn.fetchval('SELECT count(*) FROM s."aq$_qt_r"') == 3 * rows_per_message
    assert await conn.fetchval("SELECT count(*) FROM s.aq$qt") == 3 * subscribers  # what users see
    for name in names:
        got = await s.dequeue("s.q", DequeueOptions(consumer_name=name, batch_size=10))
        assert sorted(bytes(m.payload) for m in got) == [b"1", b"2", b"3"]  # type: ignore[arg-type]
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


async def test_the_setting_moves_the_threshold(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)
    await subscribe(conn, "s.q", "A")
    await subscribe(conn, "s.q", "B")
    await conn.execute("SET pgaq.audience_min = 2")
    await Session(conn).enqueue_array("s.q", [(b"x", None)])
    await conn.execute("SET pgaq.audience_min = 'many'")  # not a number: the default
    await Session(conn).enqueue_array("s.q", [(b"y", None)])
    assert await conn.fetchval('SELECT count(*) FROM s."aq$_qt_r"') == 2  # y's rows only
    for name in ("A", "B"):
        got = await Session(conn).dequeue("s.q", DequeueOptions(consumer_name=name, batch_size=10))
        assert [bytes(m.payload) for m in got] == [b"x", b"y"]  # type: ignore[arg-type]
