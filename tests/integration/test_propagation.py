"""Propagation between queues: in this database and to a second PostgreSQL database, with
windows, backoff, the 16-failure disable, application errors, exactly once and leases."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import asyncpg
import pytest
from pgaq import Agent, DequeueOptions, MessageProperties, Session
from pgaq.embedded import free_port
from pgaq.listener import Listener
from pgaq.propagation.runner import Propagator
from pgaq.propagation.settings import PropagatorSettings

from tests.conftest import prepared

from .helpers import make_queue, obj, subscribe
from .waiting import until


@dataclass
class Running:
    propagator: Propagator
    batches: asyncio.Queue[tuple[int, int]] = field(default_factory=asyncio.Queue)
    problems: asyncio.Queue[tuple[int, str, str]] = field(default_factory=asyncio.Queue)

    async def problem(self, what: str, timeout: float = 20.0) -> tuple[int, str, str]:
        """Until the propagator records a problem of this kind (FAILURE, DISABLED, ...)."""
        while True:
            got = await asyncio.wait_for(self.problems.get(), timeout)
            if got[1] == what:
                return got

    async def moved(self, n: int, timeout: float = 15.0) -> None:
        """Until n messages were propagated (from now on)."""
        got = 0
        while got < n:
            _, k = await asyncio.wait_for(self.batches.get(), timeout)
            got += k


Start = Callable[..., Awaitable[Running]]


@pytest.fixture
async def start_propagator(db_dsn: str) -> AsyncIterator[Start]:
    running: list[tuple[asyncio.Event, asyncio.Task[None], Listener, asyncpg.Pool]] = []

    async def start(**overrides: Any) -> Running:
        base: dict[str, Any] = {"backoff_base": 0.01, "lease": 3.0, "safety_poll": 0.5,
                                "remote_timeout": 3.0, "name": f"prop-{len(running)}"}
        settings = PropagatorSettings(**{**base, **overrides})
        pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=10)
        listener = Listener(db_dsn)
        await listener.start()
        batches: asyncio.Queue[tuple[int, int]] = asyncio.Queue()
        problems: asyncio.Queue[tuple[int, str, str]] = asyncio.Queue()
        p = Propagator(pool, listener, settings, on_batch=lambda sid, n: batches.put_nowait((sid, n)),
                       on_problem=lambda *x: problems.put_nowait(x))
        stop = asyncio.Event()
        task = asyncio.create_task(p.run(stop))
        running.append((stop, task, listener, pool))
        return Running(p, batches, problems)

    yield start
    for stop, task, listener, pool in running:
        stop.set()
        await asyncio.wait_for(task, 30)
        await listener.close()
        await pool.close()


async def local_topology(conn: asyncpg.Connection) -> None:
    """oe.out_q (multi-consumer, subscriber LOCAL1) and oe.in_q here."""
    await make_queue(conn, "oe.out_q", "oe.out_t", multiple=True)
    await subscribe(conn, "oe.out_q", "LOCAL1")
    await make_queue(conn, "oe.in_q", "oe.in_t")


async def remote_topology(remote: asyncpg.Connection) -> None:
    """oe.in_q and oe.in_topic (subscriber APP1) at the remote."""
    await make_queue(remote, "oe.in_q", "oe.in_t")
    await make_queue(remote, "oe.in_topic", "oe.in_tt", multiple=True)
    await subscribe(remote, "oe.in_topic", "APP1")


# made once per worker (tests/conftest.py prepared): a test using `topology` starts with
# local_topology in its database, `remote_topology` with remote_topology at its remote
prepared("topology", local_topology)
prepared("remote_topology", remote_topology, remote=True)


@pytest.fixture
def topology(db_dsn: str) -> None:
    """local_topology, in the test's database."""


@pytest.fixture(name="remote_topology")
def _remote_topology(remote_dsn: str) -> None:
    """remote_topology, in the test's remote database."""


async def test_local_propagation(conn: asyncpg.Connection, start_propagator: Start, topology: None) -> None:
    await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q', 0))")
    await conn.execute("CALL dbms_aqadm.schedule_propagation(queue_name => 'oe.out_q', latency => 0)")
    running = await start_propagator()
    s = Session(conn)
    mid = await s.enqueue("oe.out_q", b"\x01", MessageProperties(
        priority=7, correlation="c1", expiration=3600, sender_id=Agent("SHOP", None, 0)))
    await running.moved(1)
    [m] = await s.dequeue("oe.in_q", DequeueOptions(wait=0))
    assert m.payload == b"\x01" and m.original_msgid == mid and m.priority == 7
    assert m.correlation == "c1" and m.sender_id is not None and m.sender_id.name == "SHOP"
    assert m.expiration is not None and 3590 <= m.expiration <= 3600  # reduced by the time spent
    # the local subscriber still has its copy; the remote one is PROCESSED
    states = await conn.fetch("SELECT consumer_name, address, msg_state FROM oe.aq$out_t ORDER BY address NULLS FIRST")
    assert [tuple(r) for r in states] == [("LOCAL1", None, "READY"), (None, "oe.in_q", "PROCESSED")]
    row = await conn.fetchrow("SELECT destination, total_number, failures, schedule_disabled, "
                              "avg_size FROM dba_queue_schedules")
    assert (row["destination"], row["total_number"], row["failures"], row["schedule_disabled"]) == \
        ("AQ$_LOCAL", 1, 0, "N")
    assert await conn.fetchval("SELECT sum(messages) FROM aq.propagation_log WHERE event = 'BATCH'") == 1


async def test_remote_postgresql_propagation(conn: asyncpg.Connection, remote_dsn: str,
                                             start_propagator: Start, topology: None,
                                             remote_topology: None) -> None:
    remote = await asyncpg.connect(remote_dsn)
    try:
        await conn.execute("CALL aq.create_database_link(link_name => 'eu', url => $1)", remote_dsn)
        await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q@eu', 0))")
        await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent('APP1', 'oe.in_topic@eu', 0))")
        await conn.execute("CALL dbms_aqadm.schedule_propagation(queue_name => 'oe.out_q', destination => 'eu', "
                           "latency => 0)")
        running = await start_propagator()
        ids = [await Session(conn).enqueue("oe.out_q", bytes([i])) for i in range(20)]
        await running.moved(40)  # each message to both remote queues
        got = await remote.fetch("SELECT original_msgid FROM oe.aq$in_t")
        assert sorted(r["original_msgid"] for r in got) == sorted(ids)
        topic = await remote.fetch("SELECT consumer_name FROM oe.aq$in_tt")
        assert {r["consumer_name"] for r in topic} == {"APP1"} and len(topic) == 20
        row = await conn.fetchrow("SELECT destination, total_number, total_bytes, max_number FROM dba_queue_schedules")
        assert row["destination"] == "eu" and row["total_number"] == 40 and row["total_bytes"] > 0
        # credentials are for administrators only
        assert "password" not in (await conn.fetchrow("SELECT * FROM aq.dba_db_links")).keys()
    finally:
        await remote.close()


async def test_exactly_once_across_a_crash_between_the_commits(conn: asyncpg.Connection, remote_dsn: str,
                                                               start_propagator: Start, topology: None,
                                                               remote_topology: None) -> None:
    """The destination committed, the source did not (the propagator died): the batch is
    sent again and the destination keeps one copy of each message."""
    from pgaq.propagation.transports import PgTransport
    from pgaq.queries import load

    remote = await asyncpg.connect(remote_dsn)
    try:
        await conn.execute("CALL aq.create_database_link(link_name => 'eu', url => $1)", remote_dsn)
        await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q@eu', 0))")
        await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', 'eu', latency => 0)")
        ids = [await Session(conn).enqueue("oe.out_q", bytes([i])) for i in range(10)]
        key = (await conn.fetchrow(load("prop_schedule"), 1))["key"]
        transport = PgTransport(remote_dsn, None, None, 5.0)
        sig = await conn.fetchval(load("prop_signature"), "oe.out_q")
        tx = conn.transaction()
        await tx.start()
        rows = await conn.fetch(load("prop_batch"), 1, 6)
        assert await transport.deliver(conn, f"{key}:oe.in_q:", "oe.in_q", rows, sig) == 6
        await tx.rollback()  # the crash: the source never recorded it
        await transport.close()
        running = await start_propagator()
        await running.moved(10)
        got = await remote.fetch("SELECT original_msgid FROM oe.aq$in_t")
        assert sorted(r["original_msgid"] for r in got) == sorted(ids)  # ten, none twice
    finally:
        await remote.close()


async def test_backoff_then_disable_after_16_failures_then_enable_drains(
        conn: asyncpg.Connection, remote_dsn: str, start_propagator: Start, topology: None) -> None:
    dead = f"postgresql://postgres@127.0.0.1:{free_port()}/nowhere"
    await conn.execute("CALL aq.create_database_link('eu', $1)", dead)
    await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q@eu', 0))")
    await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', 'eu', latency => 0)")
    ids = [await Session(conn).enqueue("oe.out_q", bytes([i])) for i in range(5)]
    running = await start_propagator(backoff_base=0.0002)
    await running.problem("DISABLED", timeout=40)  # 16 failures: base * (2^15 + ...) ~ 13 s
    row = await conn.fetchrow("SELECT schedule_disabled, failures, last_error_msg FROM dba_queue_schedules")
    assert row["schedule_disabled"] == "Y" and row["failures"] == 16 and row["last_error_msg"]
    log = await conn.fetch("SELECT event, finished_at FROM aq.propagation_log ORDER BY id")
    assert [r["event"] for r in log] == ["FAILURE"] * 15 + ["DISABLED"]
    gaps = [(b["finished_at"] - a["finished_at"]).total_seconds() for a, b in itertools.pairwise(log)]
    for n, gap in enumerate(gaps[8:], start=9):  # long enough to dwarf the noise: base * 2^(n-1)
        assert gap >= 0.0002 * 2 ** (n - 1) * 0.9, (n, gaps)
    # the administrator fixes the link and enables the schedule: the backlog drains
    await conn.execute("UPDATE aq.db_links SET url = $1 WHERE name = 'eu'", remote_dsn)
    remote = await asyncpg.connect(remote_dsn)
    try:
        await make_queue(remote, "oe.in_q", "oe.in_t")
        await conn.execute("CALL dbms_aqadm.enable_propagation_schedule('oe.out_q', 'eu')")
        await running.moved(5)
        got = await remote.fetch("SELECT original_msgid FROM oe.aq$in_t")
        assert sorted(r["original_msgid"] for r in got) == sorted(ids)
        row = await conn.fetchrow("SELECT schedule_disabled, failures FROM dba_queue_schedules")
        assert tuple(row) == ("N", 0)
    finally:
        await remote.close()


async def test_application_errors(conn: asyncpg.Connection, remote_dsn: str, start_propagator: Start,
                                  topology: None, remote_topology: None) -> None:
    """No such remote queue: queue-to-dblink marks the messages UNDELIVERABLE; queue-to-queue
    stops the schedule with the error."""
    remote = await asyncpg.connect(remote_dsn)
    try:
        await conn.execute("CALL aq.create_database_link('eu', $1)", remote_dsn)
        await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.missing@eu', 0))")
        await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', 'eu', latency => 0)")
        await make_queue(conn, "oe.q2", "oe.q2t", multiple=True)
        await conn.execute("CALL dbms_aqadm.add_subscriber('oe.q2', sys.aq$_agent(NULL, 'oe.missing@eu', 0))")
        await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.q2', 'eu', latency => 0, "
                           "destination_queue => 'oe.missing')")
        await Session(conn).enqueue("oe.out_q", b"x")
        await Session(conn).enqueue("oe.q2", b"y")
        running = await start_propagator()
        seen = {(await running.problems.get())[1] for _ in range(2)}
        assert seen == {"UNDELIVERABLE", "DISABLED"}
        states = await conn.fetch("SELECT msg_state FROM oe.aq$out_t WHERE address IS NOT NULL")
        stopped = await conn.fetchval("SELECT schedule_disabled FROM dba_queue_schedules WHERE qname = 'q2'")
        assert [r["msg_state"] for r in states] == ["UNDELIVERABLE"] and stopped == "Y"
        reason = await conn.fetchval("SELECT failure_reason FROM oe.aq$_out_t_r WHERE address <> ''")
        assert reason == "PROPAGATION_FAILURE"
        err = await conn.fetchval("SELECT last_error_msg FROM dba_queue_schedules WHERE qname = 'q2'")
        assert "ORA-24010" in err
        # the queue-to-dblink schedule itself goes on
        assert await conn.fetchval("SELECT schedule_disabled FROM dba_queue_schedules WHERE qname = 'out_q'") == "N"
    finally:
        await remote.close()


async def test_windows_hold_messages_until_they_open(conn: asyncpg.Connection, start_propagator: Start,
                                                     topology: None) -> None:
    await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q', 0))")
    # a window of 0.5 s starting in 1.5 s, then every 2 s
    t0 = asyncio.get_running_loop().time()  # before the window's start is set: no stall shortens it
    await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', start_time => clock_timestamp() "
                       "+ interval '1.5 seconds', duration => 0.5, next_time => '2 seconds', latency => 0)")
    running = await start_propagator()
    await Session(conn).enqueue("oe.out_q", b"w")
    await running.moved(1, timeout=10)
    assert asyncio.get_running_loop().time() - t0 >= 1.45  # not before the window opened
    row = await conn.fetchrow("SELECT propagation_window, next_time FROM dba_queue_schedules")
    assert (row["propagation_window"], row["next_time"]) == (0.5, "2 seconds")


async def test_admin_api_refusals(conn: asyncpg.Connection, topology: None) -> None:
    await make_queue(conn, "oe.single", "oe.single_t")
    with pytest.raises(asyncpg.PostgresError, match="ORA-24010"):
        await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.nope')")
    with pytest.raises(asyncpg.PostgresError, match="ORA-02019"):
        await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', 'nolink')")
    with pytest.raises(asyncpg.PostgresError, match="ORA-24039"):  # single-consumer sources: no
        await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.single')")
    with pytest.raises(asyncpg.PostgresError, match="ORA-24957"):
        await conn.execute("CALL aq.create_database_link('x', 'ftp://host/db')")
    with pytest.raises(asyncpg.PostgresError, match="ORA-24958"):
        await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', next_time => 'now(); DROP TABLE x')")
    await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q')")
    with pytest.raises(asyncpg.PostgresError, match="ORA-24041"):
        await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q')")
    with pytest.raises(asyncpg.PostgresError, match="ORA-24042"):
        await conn.execute("CALL dbms_aqadm.unschedule_propagation('oe.out_q', destination_queue => 'oe.in_q')")
    await conn.execute("CALL dbms_aqadm.alter_propagation_schedule('oe.out_q', duration => 60, "
                       "next_time => '1 hour', latency => 5)")
    await conn.execute("CALL dbms_aqadm.disable_propagation_schedule('oe.out_q')")
    row = await conn.fetchrow("SELECT propagation_window, next_time, latency, schedule_disabled "
                              "FROM dba_queue_schedules")
    assert tuple(row) == (60.0, "1 hour", 5.0, "Y")
    assert await conn.fetchval("CALL dbms_aqadm.verify_queue_types('oe.out_q', 'oe.in_q', NULL, NULL)") == 1
    await conn.execute("CALL dbms_aqadm.unschedule_propagation('oe.out_q')")
    assert await conn.fetchval("SELECT count(*) FROM dba_queue_schedules") == 0


async def test_two_propagators_share_the_schedules(conn: asyncpg.Connection, start_propagator: Start,
                                                   topology: None) -> None:
    for i in range(6):
        await make_queue(conn, f"oe.src{i}", f"oe.src{i}_t", multiple=True)
        await conn.execute(f"CALL dbms_aqadm.add_subscriber('oe.src{i}', sys.aq$_agent(NULL, 'oe.in_q', 0))")
        await conn.execute(f"CALL dbms_aqadm.schedule_propagation('oe.src{i}', latency => 0)")
    a = await start_propagator(max_schedules=3)
    b = await start_propagator(max_schedules=3)
    # each propagator leases its share of the schedules (the server's state shows it)
    await _until(conn, """SELECT array_agg(o ORDER BY o) = ARRAY['prop-0 3', 'prop-1 3']
                          FROM (SELECT coalesce(lease_owner, '-') || ' ' || count(*) AS o
                                FROM aq.schedules GROUP BY lease_owner) x""")
    for i in range(6):
        for j in range(10):
            await Session(conn).enqueue(f"oe.src{i}", bytes([i, j]))
    await asyncio.gather(a.moved(30), b.moved(30))
    assert await conn.fetchval("SELECT count(*) FROM oe.in_t") == 60
    assert await conn.fetchval("SELECT count(DISTINCT original_msgid) FROM oe.in_t") == 60


async def test_http_propagation_through_a_remote_gateway(conn: asyncpg.Connection, remote_dsn: str,
                                                         start_propagator: Start, topology: None,
                                                         remote_topology: None) -> None:
    """To another pgaq gateway: batches of AQXmlSend/Publish with the link's credentials;
    the source ids in a SOAP header make a second copy of a batch harmless."""
    from pgaq.propagation.transports import HttpTransport
    from pgaq.queries import load

    from .gateway_support import drop_roles, make_agent, running_gateway

    remote = await asyncpg.connect(remote_dsn)
    roles: list[str] = []
    try:
        roles = await make_agent(remote, "PROP", "s3cret", ("prop",))
        for q in ("oe.in_q", "oe.in_topic"):
            await remote.execute(f"CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', '{q}', '{roles[0]}')")
        async with running_gateway(remote_dsn) as url:
            await conn.execute("CALL aq.create_database_link('web', $1, 'PROP', 's3cret')", url)
            await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q@web', 0))")
            await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', "
                               "sys.aq$_agent('APP1', 'oe.in_topic@web', 0))")
            await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', 'web', latency => 0)")
            ids = [await Session(conn).enqueue("oe.out_q", bytes([i]), MessageProperties(correlation=f"c{i}"))
                   for i in range(12)]
            running = await start_propagator()
            await running.moved(24)
            got = await remote.fetch("SELECT original_msgid, corr_id, user_data FROM oe.aq$in_t")
            assert sorted(r["original_msgid"] for r in got) == sorted(ids)
            assert {r["corr_id"] for r in got} == {f"c{i}" for i in range(12)}
            topic = await remote.fetch("SELECT consumer_name FROM oe.aq$in_tt")
            assert [r["consumer_name"] for r in topic] == ["APP1"] * 12
            # the same batch again (a crash before the source recorded it): nothing doubles
            key = (await conn.fetchrow(load("prop_schedule"), 1))["key"]
            rows = await conn.fetch("SELECT r.msgid, '' AS consumer_name, jsonb_build_object('priority', 1) AS props, "
                                    "m.user_data AS payload_raw, NULL::jsonb AS payload_json "
                                    "FROM oe.out_t m JOIN oe.aq$_out_t_r r USING (msgid) WHERE r.address = 'oe.in_q@web'")
            http = HttpTransport(url, "PROP", "s3cret", 5.0)
            try:
                await http.deliver(conn, f"{key}:oe.in_q:", "oe.in_q", rows, "RAW:bytea")
            finally:
                await http.close()
            assert await remote.fetchval("SELECT count(*) FROM oe.in_t") == 12
            # wrong credentials: an application error that stops the schedule, no endless retry
            await conn.execute("UPDATE aq.db_links SET password = 'wrong' WHERE name = 'web'")
            await Session(conn).enqueue("oe.out_q", b"late")
            await running.problem("DISABLED")
            row = await conn.fetchrow("SELECT schedule_disabled, last_error_msg FROM dba_queue_schedules")
            assert row["schedule_disabled"] == "Y" and "credentials" in row["last_error_msg"]
    finally:
        await drop_roles(remote, roles)
        await remote.close()


async def test_stopped_destination_and_a_hanging_remote_are_retried(
        conn: asyncpg.Connection, remote_dsn: str, start_propagator: Start, topology: None,
        remote_topology: None) -> None:
    """System errors: a destination queue stopped for enqueue, a remote that accepts the
    connection and never answers (timeouts). Both retry; neither loses a message."""
    remote = await asyncpg.connect(remote_dsn)
    held: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)  # accept, then say nothing

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        await remote.execute("CALL dbms_aqadm.stop_queue('oe.in_q', enqueue => true, dequeue => false)")
        await conn.execute("CALL aq.create_database_link('eu', $1)", remote_dsn)
        await conn.execute("CALL aq.create_database_link('mute', $1)", f"postgresql://x@127.0.0.1:{port}/x")
        await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q@eu', 0))")
        await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q@mute', 0))")
        await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', 'eu', latency => 0)")
        await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', 'mute', latency => 0)")
        mid = await Session(conn).enqueue("oe.out_q", b"x")
        running = await start_propagator(backoff_base=0.05, remote_timeout=0.5)
        failed: dict[int, int] = {}
        while len([n for n in failed.values() if n >= 2]) < 2:  # two failures each
            sid, _, _ = await running.problem("FAILURE")
            failed[sid] = failed.get(sid, 0) + 1
        rows = await conn.fetch("SELECT destination, last_error_msg FROM dba_queue_schedules")
        errors = {r["destination"]: r["last_error_msg"] or "" for r in rows}
        assert "ORA-25207" in errors["eu"], errors
        assert "timed out" in errors["mute"] or "timeout" in errors["mute"].lower(), errors
        await remote.execute("CALL dbms_aqadm.start_queue('oe.in_q')")
        await running.moved(1)
        assert await remote.fetchval("SELECT original_msgid FROM oe.aq$in_t") == mid
        row = await conn.fetchrow("SELECT failures, schedule_disabled FROM dba_queue_schedules "
                                  "WHERE destination = 'eu'")
        assert tuple(row) == (0, "N")
    finally:
        for w in held:
            w.close()
        server.close()
        await remote.close()


async def test_type_mismatch_is_undeliverable(conn: asyncpg.Connection, remote_dsn: str,
                                              start_propagator: Start, topology: None,
                                              remote_topology: None) -> None:
    remote = await asyncpg.connect(remote_dsn)
    try:
        await remote.execute("CREATE TYPE oe.order_typ AS (id integer, note text)")
        await make_queue(remote, "oe.typed", "oe.typed_t", "oe.order_typ")
        await conn.execute("CALL aq.create_database_link('eu', $1)", remote_dsn)
        await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.typed@eu', 0))")
        await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', 'eu', latency => 0)")
        await Session(conn).enqueue("oe.out_q", b"raw, not an order")
        running = await start_propagator()
        await running.problem("UNDELIVERABLE")
        state = await conn.fetchval("SELECT msg_state FROM oe.aq$out_t WHERE address IS NOT NULL")
        assert state == "UNDELIVERABLE"
        err = await conn.fetchval("SELECT error FROM aq.propagation_log WHERE event = 'UNDELIVERABLE'")
        assert "ORA-25215" in err and "not equivalent" in err
        assert await remote.fetchval("SELECT count(*) FROM oe.typed_t") == 0
    finally:
        await remote.close()


async def test_one_propagator_runs_many_schedules(conn: asyncpg.Connection, start_propagator: Start) -> None:
    """150 schedules at once, each its own source queue: every message arrives."""
    await make_queue(conn, "oe.in_q", "oe.in_t")
    await conn.execute("CALL dbms_aqadm.create_queue_table('oe.many_t', 'RAW', multiple_consumers => true)")
    n = 150
    await conn.execute(f"""
        DO $$ BEGIN
          FOR i IN 1..{n} LOOP
            CALL dbms_aqadm.create_queue('oe.src' || i, 'oe.many_t');
            CALL dbms_aqadm.start_queue('oe.src' || i);
            CALL dbms_aqadm.add_subscriber('oe.src' || i, sys.aq$_agent(NULL, 'oe.in_q', 0));
            CALL dbms_aqadm.schedule_propagation('oe.src' || i, latency => 0);
          END LOOP;
        END $$""")
    running = await start_propagator()
    ids = [await Session(conn).enqueue(f"oe.src{i}", bytes([i % 256])) for i in range(1, n + 1)]
    await running.moved(n, timeout=60)
    got = await conn.fetch("SELECT original_msgid FROM oe.aq$in_t")
    assert sorted(r["original_msgid"] for r in got) == sorted(ids)
    assert await conn.fetchval("SELECT count(*) FROM dba_queue_schedules WHERE total_number = 1") == n


async def test_the_propagator_rides_out_a_postgres_restart() -> None:
    """The source database restarts under a running propagator: it goes on afterwards."""
    import os
    import shutil
    import tempfile
    from pathlib import Path

    from pgaq.embedded import Cluster
    from pgaq.migrate import migrate

    base = Path(tempfile.mkdtemp(prefix="pgaq-prop-restart-"))
    os.chmod(base, 0o755)
    cluster = Cluster(base / "c", durable=False)
    cluster.init()
    cluster.start()
    stop = asyncio.Event()
    try:
        conn = await asyncpg.connect(cluster.dsn())
        await migrate(conn)
        await local_topology(conn)
        await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q', 0))")
        await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', latency => 0)")
        await conn.close()
        pool = await asyncpg.create_pool(cluster.dsn(), min_size=0, max_size=5)
        listener = Listener(cluster.dsn(), reconnect_max=0.2)
        await listener.start()
        moved: asyncio.Queue[int] = asyncio.Queue()
        p = Propagator(pool, listener, PropagatorSettings(lease=3.0, safety_poll=0.3, backoff_base=0.05,
                                                         name="restart"),
                       on_batch=lambda _sid, n: moved.put_nowait(n))
        task = asyncio.create_task(p.run(stop))
        try:
            c = await asyncpg.connect(cluster.dsn())
            await Session(c).enqueue("oe.out_q", b"before")
            await c.close()
            assert await asyncio.wait_for(moved.get(), 15) == 1
            listener.connected.clear()
            await asyncio.to_thread(cluster.restart)
            await pool.expire_connections()
            await asyncio.wait_for(listener.connected.wait(), 30)
            c = await asyncpg.connect(cluster.dsn())
            await Session(c).enqueue("oe.out_q", b"after")
            assert await asyncio.wait_for(moved.get(), 30) == 1
            assert await c.fetchval("SELECT count(*) FROM oe.in_t") == 2
            await c.close()
            assert not task.done()
        finally:
            stop.set()
            await asyncio.wait_for(task, 30)
            await listener.close()
            await pool.close()
    finally:
        await asyncio.to_thread(cluster.destroy)
        shutil.rmtree(base, ignore_errors=True)


async def test_destinations_forget_delivered_ids_after_a_while(conn: asyncpg.Connection, db_dsn: str) -> None:
    from pgaq.monitor import Monitor, MonitorSettings

    await conn.execute("INSERT INTO aq.propagated (schedule_key, source_msgid, received_at) VALUES "
                       "('k', '\\x01', now() - interval '8 days'), ('k', '\\x02', now())")
    pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=2)
    try:
        await Monitor(pool, None, MonitorSettings()).snapshot()  # type: ignore[arg-type]
    finally:
        await pool.close()
    assert [r["source_msgid"] for r in await conn.fetch("SELECT source_msgid FROM aq.propagated")] == [b"\x02"]


@pytest.fixture
async def alice(conn: asyncpg.Connection, db_dsn: str) -> AsyncIterator[asyncpg.Connection]:
    """A role that owns schema al (and may manage its queues), nothing more."""
    import uuid

    name = f"alice_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{name}" LOGIN')
    await conn.execute(f'CREATE SCHEMA al AUTHORIZATION "{name}"')
    c = await asyncpg.connect(db_dsn.replace("postgres@", f"{name}@"))
    try:
        yield c
    finally:
        await c.close()
        await conn.execute(f'DROP OWNED BY "{name}" CASCADE')
        await conn.execute(f'DROP ROLE "{name}"')


async def test_schedules_are_written_only_through_dbms_aqadm(conn: asyncpg.Connection,
                                                             alice: asyncpg.Connection,
                                                             topology: None) -> None:
    """No one spoofs a schedule's owner: the table takes no direct writes from non-admins,
    and the procedures record the calling role as the owner."""
    await alice.execute("CALL dbms_aqadm.create_queue_table('al.out_t', 'RAW', multiple_consumers => true)")
    await alice.execute("CALL dbms_aqadm.create_queue('al.out_q', 'al.out_t')")
    qid = await conn.fetchval("SELECT id FROM aq.queues WHERE schema_name = 'al'")
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await alice.execute("INSERT INTO aq.schedules (queue_id, next_time, owner) VALUES ($1, 'now()', 'postgres')", qid)
    await alice.execute("CALL dbms_aqadm.schedule_propagation('al.out_q', next_time => 'now() + interval ''1 hour''', "
                        "duration => 10)")
    me = await alice.fetchval("SELECT current_user")
    assert await conn.fetchval("SELECT owner FROM aq.schedules") == me
    for sql in ("UPDATE aq.schedules SET owner = 'postgres'", "UPDATE aq.schedules SET next_time = 'now()'",
                "DELETE FROM aq.schedules"):
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await alice.execute(sql)
    # the procedures still work for her, and refuse her someone else's queue
    await alice.execute("CALL dbms_aqadm.alter_propagation_schedule('al.out_q', duration => 20, "
                        "next_time => '2 hours')")
    await alice.execute("CALL dbms_aqadm.disable_propagation_schedule('al.out_q')")
    await alice.execute("CALL dbms_aqadm.enable_propagation_schedule('al.out_q')")
    await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q')")
    for sql in ("CALL dbms_aqadm.schedule_propagation('oe.out_q', destination_queue => 'oe.in_q')",
                "CALL dbms_aqadm.alter_propagation_schedule('oe.out_q', next_time => 'now()')",
                "CALL dbms_aqadm.disable_propagation_schedule('oe.out_q')",
                "CALL dbms_aqadm.unschedule_propagation('oe.out_q')"):
        with pytest.raises(asyncpg.PostgresError, match="ORA-01031"):
            await alice.execute(sql)
    # an administrator altering next_time becomes the owner whose rights evaluate it
    await conn.execute("CALL dbms_aqadm.alter_propagation_schedule('al.out_q', next_time => '1 hour')")
    assert await conn.fetchval("SELECT owner FROM aq.schedules s JOIN aq.queues q ON q.id = s.queue_id "
                               "WHERE q.schema_name = 'al'") == "postgres"
    await alice.execute("CALL dbms_aqadm.unschedule_propagation('al.out_q')")
    assert await conn.fetchval("SELECT count(*) FROM aq.schedules") == 1
    # a superuser's session under SET ROLE acts as that role
    await conn.execute(f'SET ROLE "{me}"')
    await conn.execute("CALL dbms_aqadm.schedule_propagation('al.out_q', next_time => 'now()', duration => 1)")
    await conn.execute("RESET ROLE")
    assert await conn.fetchval("SELECT owner FROM aq.schedules WHERE next_time = 'now()'") == me
    assert await conn.fetchval("SELECT proowner::regrole::text FROM pg_proc WHERE pronamespace = "
                               "'aq_next_time'::regnamespace") == f'"{me}"'.strip('"')


async def test_next_time_runs_with_the_owners_rights_only(conn: asyncpg.Connection, alice: asyncpg.Connection,
                                                          start_propagator: Start) -> None:
    """A SQL next_time is evaluated as the role that wrote it: it reads what that role may
    read, not what the propagator's login may, and cannot switch roles."""
    await conn.execute("CREATE SCHEMA secret; CREATE TABLE secret.t (at timestamptz); "
                       "INSERT INTO secret.t VALUES (now() + interval '1 day')")
    await alice.execute("CREATE TABLE al.times (at timestamptz); "
                        "INSERT INTO al.times VALUES ('2031-01-01 00:00:00+00')")
    await alice.execute("CALL dbms_aqadm.create_queue_table('al.out_t', 'RAW', multiple_consumers => true)")
    for i, expr in enumerate([
            "(SELECT max(at) FROM al.times)",
            "(SELECT max(at) FROM secret.t)",
            "CASE WHEN set_config('role', 'none', true) IS NOT NULL THEN now() END",
            "CASE WHEN set_config('session_authorization', 'postgres', true) IS NOT NULL THEN now() END"]):
        await alice.execute(f"CALL dbms_aqadm.create_queue('al.q{i}', 'al.out_t')")
        await alice.execute("CALL dbms_aqadm.schedule_propagation($1, duration => 1, next_time => $2)",
                            f"al.q{i}", expr)
    # what the propagator's login gets asking the database (aq.next_window_start, in a
    # read-only transaction as the propagator asks it)
    got: list[Any] = []
    for i in range(4):
        sid = await conn.fetchval("SELECT s.id FROM aq.schedules s JOIN aq.queues q ON q.id = s.queue_id "
                                  "WHERE q.queue_name = $1", f"q{i}")
        try:
            async with conn.transaction(readonly=True):
                got.append(await conn.fetchval("SELECT aq.next_window_start($1, now())", sid))
        except asyncpg.PostgresError as exc:
            got.append(str(exc))
    assert isinstance(got[0], datetime) and got[0].year == 2031
    assert "permission denied" in got[1]
    assert "role" in got[2] and "security-definer" in got[2], got[2]
    assert "session_authorization" in got[3] or "permission denied" in got[3], got[3]
    # and a propagator that runs them: once the first windows (1 s) end, the three that fail
    # stop their schedules with the error; the first one's next window is in 2031
    running = await start_propagator()
    stopped = {(await running.problem("DISABLED"))[0] for _ in range(3)}
    assert len(stopped) == 3
    errors = [r["last_error_msg"] for r in await conn.fetch(
        "SELECT last_error_msg FROM dba_queue_schedules ORDER BY qname")]
    assert errors[0] is None
    assert "permission denied" in errors[1]
    assert "role" in errors[2] and "security-definer" in errors[2], errors[2]
    assert "session_authorization" in errors[3] or "permission denied" in errors[3], errors[3]


async def test_verify_queue_types_through_a_database_link(conn: asyncpg.Connection, remote_dsn: str,
                                                          alice: asyncpg.Connection, topology: None,
                                                          remote_topology: None) -> None:
    """The remote queue's payload type is compared across a PostgreSQL link; an HTTP link
    gets a clear refusal."""
    remote = await asyncpg.connect(remote_dsn)
    try:
        for c in (conn, remote):
            await c.execute("CREATE TYPE oe.order_typ AS (id integer, note text)")
            await make_queue(c, "oe.typed", "oe.typed_t", "oe.order_typ", multiple=True)
        await remote.execute("CREATE TYPE oe.other_typ AS (id integer, note varchar(10))")
        await make_queue(remote, "oe.other", "oe.other_t", "oe.other_typ")
        await remote.execute("CREATE ROLE link_user LOGIN PASSWORD 'p@ss w/rd%'")
        user_dsn = remote_dsn.replace("postgres@", "link_user@").replace("localhost", "127.0.0.1")
        await conn.execute("CALL aq.create_database_link('eu', $1)", remote_dsn)
        await conn.execute("CALL aq.create_database_link('eu2', $1, 'link_user', 'p@ss w/rd%')",
                           user_dsn.replace("link_user@", ""))
        await conn.execute("CALL aq.create_database_link('web', 'http://127.0.0.1:9/aqserv/servlet')")
        verify = "CALL dbms_aqadm.verify_queue_types($1, $2, $3, NULL)"
        assert await conn.fetchval(verify, "oe.out_q", "oe.in_q", "eu") == 1         # RAW and RAW
        assert await conn.fetchval(verify, "oe.typed", "oe.typed", "eu") == 1        # the same object type
        assert await conn.fetchval(verify, "oe.typed", "oe.other", "eu") == 0        # another shape
        assert await conn.fetchval(verify, "oe.out_q", "oe.typed", "eu") == 0        # RAW vs object
        assert await conn.fetchval(verify, "oe.out_q", "oe.in_q", "EU2") == 1        # the link's credentials
        with pytest.raises(asyncpg.PostgresError, match="ORA-24010"):
            await conn.fetchval(verify, "oe.out_q", "oe.missing", "eu")
        with pytest.raises(asyncpg.PostgresError, match="ORA-02019"):
            await conn.fetchval(verify, "oe.out_q", "oe.in_q", "nolink")
        with pytest.raises(asyncpg.PostgresError, match=r"ORA-24959.*gateway"):
            await conn.fetchval(verify, "oe.out_q", "oe.in_q", "web")
        await conn.execute("CALL aq.create_database_link('dead', $1)",
                           f"postgresql://postgres@127.0.0.1:{free_port()}/x")
        with pytest.raises(asyncpg.PostgresError, match=r"ORA-02019.*could not be asked"):
            await conn.fetchval(verify, "oe.out_q", "oe.in_q", "dead")
        # someone who may not manage the source queue does not get to use the links
        with pytest.raises(asyncpg.PostgresError, match="ORA-01031"):
            await alice.fetchval(verify, "oe.out_q", "oe.in_q", "eu")
    finally:
        await remote.execute("DROP OWNED BY link_user; DROP ROLE IF EXISTS link_user")
        await remote.close()


async def _until(conn: asyncpg.Connection, sql: str, *args: Any, timeout: float = 15.0) -> None:
    """Until the query returns true: a window's end has no event of its own to wait for."""
    await until(lambda: conn.fetchval(sql, *args), sql, timeout)


async def test_dba_queue_schedules_columns_in_each_state(conn: asyncpg.Connection,
                                                         start_propagator: Start, topology: None) -> None:
    """SESSION_ID, CURRENT_START_DATE, NEXT_RUN_DATE and LAST_RUN_DATE while running,
    between windows, failing and disabled."""
    await make_queue(conn, "oe.win_q", "oe.win_t", multiple=True)
    await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q', 0))")
    await conn.execute("CALL dbms_aqadm.add_subscriber('oe.win_q', sys.aq$_agent(NULL, 'oe.in_q', 0))")
    await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', latency => 0)")
    # a window long enough to outlast a loaded machine's set-up below, then one an hour later
    await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.win_q', duration => 4, next_time => '1 hour', "
                       "latency => 0)")
    cols = ("SELECT process_name, session_id, last_run_date, current_start_date, next_run_date, failures, "
            "schedule_disabled, last_error_date FROM dba_queue_schedules WHERE qname = $1")
    await Session(conn).enqueue("oe.out_q", b"1")
    await Session(conn).enqueue("oe.win_q", b"2")
    running = await start_propagator(backoff_base=600)
    await running.moved(2)
    # running: an endless window (out_q), a four-second window every hour (win_q)
    r = await conn.fetchrow(cols, "out_q")
    ws = await conn.fetchval("SELECT window_start FROM aq.schedules s JOIN aq.queues q ON q.id = s.queue_id "
                             "WHERE q.queue_name = 'out_q'")
    assert (r["process_name"], r["session_id"], r["current_start_date"], r["next_run_date"]) == \
        ("prop-0", "prop-0", ws, None)
    last_run = r["last_run_date"]
    assert last_run is not None and r["failures"] == 0
    w = await conn.fetchrow(cols, "win_q")
    first = await conn.fetchval("SELECT start_time FROM aq.schedules s JOIN aq.queues q ON q.id = s.queue_id "
                                "WHERE q.queue_name = 'win_q'")
    assert w["session_id"] == "prop-0" and w["current_start_date"] == first
    assert w["next_run_date"] == first + timedelta(hours=1)
    # between windows: nothing runs now, the next window is an hour after the first
    await _until(conn, "SELECT window_start > now() FROM aq.schedules s JOIN aq.queues q ON q.id = s.queue_id "
                       "WHERE q.queue_name = 'win_q'")
    w = await conn.fetchrow(cols, "win_q")
    assert (w["session_id"], w["current_start_date"], w["next_run_date"]) == \
        (None, None, first + timedelta(hours=1))
    assert w["process_name"] == "prop-0" and w["last_run_date"] is not None
    # failing: the destination is stopped for enqueue; the retry is 600 s away
    await conn.execute("CALL dbms_aqadm.stop_queue('oe.in_q', enqueue => true, dequeue => false)")
    await Session(conn).enqueue("oe.out_q", b"3")
    await running.problem("FAILURE")
    r = await conn.fetchrow(cols, "out_q")
    assert r["failures"] == 1 and r["last_error_date"] is not None
    assert r["last_run_date"] == last_run  # the last successful run, not the failure
    assert r["session_id"] is None and r["current_start_date"] == ws
    assert r["next_run_date"] is not None and \
        590 <= (r["next_run_date"] - r["last_error_date"]).total_seconds() <= 610
    # disabled
    await conn.execute("CALL dbms_aqadm.disable_propagation_schedule('oe.out_q')")
    r = await conn.fetchrow(cols, "out_q")
    assert (r["schedule_disabled"], r["session_id"], r["current_start_date"], r["next_run_date"]) == \
        ("Y", None, None, None)
    assert r["last_run_date"] == last_run


def _self_signed(tmp_path: Any) -> tuple[str, str]:
    """A certificate for 127.0.0.1 and its key, made by the openssl command (skip without it)."""
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: no self-signed certificate for the https link")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return str(cert), str(key)


async def test_https_link_to_a_gateway_with_a_self_signed_certificate(
        conn: asyncpg.Connection, remote_dsn: str, start_propagator: Start, tmp_path: Any, topology: None,
        remote_topology: None) -> None:
    """An untrusted certificate is a failure (retried); trusted through
    PGAQ_PROPAGATION_CA_FILE, the messages go over TLS."""
    from .gateway_support import drop_roles, make_agent, running_gateway

    cert, key = await asyncio.to_thread(_self_signed, tmp_path)
    remote = await asyncpg.connect(remote_dsn)
    roles: list[str] = []
    try:
        roles = await make_agent(remote, "PROPS", "s3cret", ("props",))
        await remote.execute(f"CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 'oe.in_q', '{roles[0]}')")
        async with running_gateway(remote_dsn, tls_cert=cert, tls_key=key) as url:
            assert url.startswith("https://")
            await conn.execute("CALL aq.create_database_link('tls', $1, 'PROPS', 's3cret')", url)
            await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q@tls', 0))")
            await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', 'tls', latency => 0)")
            ids = [await Session(conn).enqueue("oe.out_q", bytes([i])) for i in range(5)]
            untrusting = await start_propagator(backoff_base=600)
            await untrusting.problem("FAILURE")
            err = await conn.fetchval("SELECT last_error_msg FROM dba_queue_schedules")
            assert "certificate" in err.lower(), err
            assert await remote.fetchval("SELECT count(*) FROM oe.in_t") == 0
            await conn.execute("CALL dbms_aqadm.disable_propagation_schedule('oe.out_q', 'tls')")
            untrusting.propagator.settings = PropagatorSettings(
                **{**untrusting.propagator.settings.__dict__, "ca_file": cert})
            await conn.execute("CALL dbms_aqadm.enable_propagation_schedule('oe.out_q', 'tls')")
            await untrusting.moved(5)
            got = await remote.fetch("SELECT original_msgid FROM oe.aq$in_t")
            assert sorted(r["original_msgid"] for r in got) == sorted(ids)
    finally:
        await drop_roles(remote, roles)
        await remote.close()


async def test_propagation_to_two_gateways(conn: asyncpg.Connection, db_dsn: str, remote_dsn: str,
                                           start_propagator: Start, topology: None,
                                           remote_topology: None) -> None:
    """One source, two links to two gateways (each before its own database): each gets
    every message once, and one gateway going away does not hold up the other."""
    from .gateway_support import drop_roles, make_agent, running_gateway

    remote = await asyncpg.connect(remote_dsn)
    roles_r: list[str] = []
    roles_l: list[str] = []
    try:
        await make_queue(conn, "oe.in2_q", "oe.in2_t")
        roles_r = await make_agent(remote, "PROPR", "pw1", ("propr",))
        roles_l = await make_agent(conn, "PROPL", "pw2", ("propl",))
        await remote.execute(f"CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 'oe.in_q', '{roles_r[0]}')")
        await conn.execute(f"CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 'oe.in2_q', '{roles_l[0]}')")
        async with running_gateway(remote_dsn) as url_r:
            gw_l = running_gateway(db_dsn)
            url_l = await gw_l.__aenter__()
            try:
                await conn.execute("CALL aq.create_database_link('gw_r', $1, 'PROPR', 'pw1')", url_r)
                await conn.execute("CALL aq.create_database_link('gw_l', $1, 'PROPL', 'pw2')", url_l)
                for addr in ("oe.in_q@gw_r", "oe.in2_q@gw_l"):
                    await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, $1, 0))", addr)
                for link in ("gw_r", "gw_l"):
                    await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', $1, latency => 0)", link)
                running = await start_propagator(backoff_base=600)
                ids = [await Session(conn).enqueue("oe.out_q", bytes([i])) for i in range(10)]
                await running.moved(20)
                got_r = await remote.fetch("SELECT original_msgid FROM oe.aq$in_t")
                got_l = await conn.fetch("SELECT original_msgid FROM oe.aq$in2_t")
                assert sorted(r["original_msgid"] for r in got_r) == sorted(ids)
                assert sorted(r["original_msgid"] for r in got_l) == sorted(ids)
            finally:
                await gw_l.__aexit__(None, None, None)
            # the local gateway is gone: its schedule fails, the other one goes on
            more = [await Session(conn).enqueue("oe.out_q", b"m") for _ in range(3)]
            await running.problem("FAILURE")
            await running.moved(3)
            got_r = await remote.fetch("SELECT original_msgid FROM oe.aq$in_t")
            assert sorted(r["original_msgid"] for r in got_r) == sorted(ids + more)
            assert await conn.fetchval("SELECT count(*) FROM oe.in2_t") == 10
            rows = {r["destination"]: r for r in await conn.fetch(
                "SELECT destination, total_number, failures FROM dba_queue_schedules")}
            assert (rows["gw_r"]["total_number"], rows["gw_r"]["failures"]) == (13, 0)
            assert (rows["gw_l"]["total_number"], rows["gw_l"]["failures"]) == (10, 1)
    finally:
        await drop_roles(remote, roles_r)
        await drop_roles(conn, roles_l)
        await remote.close()


async def test_http_propagation_of_objects_and_jms_messages(conn: asyncpg.Connection, remote_dsn: str,
                                                            start_propagator: Start) -> None:
    """Object and JMS payloads go over HTTP as the gateway's own XML for them and arrive
    equal; a remote object type of another shape is UNDELIVERABLE."""
    from .gateway_support import drop_roles, make_agent, running_gateway

    remote = await asyncpg.connect(remote_dsn)
    roles: list[str] = []
    try:
        typ = "CREATE TYPE oe.order_typ AS (id integer, note text, amount numeric(38, 2), at timestamptz, tags text[])"
        for c in (conn, remote):
            await c.execute("CREATE SCHEMA oe")
            await c.execute(typ)
        await make_queue(conn, "oe.orders", "oe.orders_t", "oe.order_typ", multiple=True)
        await make_queue(conn, "oe.jms", "oe.jms_t", "SYS.AQ$_JMS_TEXT_MESSAGE", multiple=True)
        await make_queue(remote, "oe.orders_in", "oe.orders_in_t", "oe.order_typ")
        await make_queue(remote, "oe.jms_in", "oe.jms_in_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
        await remote.execute("CREATE TYPE oe.narrow_typ AS (id integer)")
        await make_queue(remote, "oe.narrow", "oe.narrow_t", "oe.narrow_typ")
        roles = await make_agent(remote, "PROPO", "pw", ("propo",))
        for q in ("oe.orders_in", "oe.jms_in", "oe.narrow"):
            await remote.execute(f"CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', '{q}', '{roles[0]}')")
        async with running_gateway(remote_dsn) as url:
            await conn.execute("CALL aq.create_database_link('web', $1, 'PROPO', 'pw')", url)
            for src, dest in (("oe.orders", "oe.orders_in@web"), ("oe.orders", "oe.narrow@web"),
                              ("oe.jms", "oe.jms_in@web")):
                await conn.execute("CALL dbms_aqadm.add_subscriber($1, sys.aq$_agent(NULL, $2, 0))", src, dest)
            for src in ("oe.orders", "oe.jms"):
                await conn.execute("CALL dbms_aqadm.schedule_propagation($1, 'web', latency => 0)", src)
            order = {"id": 7, "note": "<b>&</b>", "amount": Decimal("12345678901234567890.25"),
                     "at": "2024-05-06T07:08:09+00:00", "tags": ["a", "b"]}
            jms: dict[str, Any] = {"header": {"type": "order", "userid": "u", "appid": "app", "groupid": "g", "groupseq": 1,
                              "properties": {"color": {"type": "string", "value": "red"},
                                             "n": {"type": "int", "value": 5}}},
                   "text_len": 5, "text_vc": "hello"}
            s = Session(conn)
            oid = await s.enqueue("oe.orders", order, MessageProperties(priority=3, correlation="o"))
            jid = await s.enqueue("oe.jms", jms)
            running = await start_propagator()
            await running.moved(2)
            await running.problem("UNDELIVERABLE")
            assert await remote.fetchval("SELECT (user_data).at FROM oe.orders_in_t") == \
                await conn.fetchval("SELECT (user_data).at FROM oe.orders_t")
            rs = Session(remote)
            [m] = await rs.dequeue("oe.orders_in", DequeueOptions(wait=0))
            assert m.original_msgid == oid and m.priority == 3 and m.correlation == "o"
            got = obj(m.payload)
            assert got["id"] == 7 and got["note"] == "<b>&</b>" and got["tags"] == ["a", "b"]
            assert Decimal(str(got["amount"])) == order["amount"]
            [j] = await rs.dequeue("oe.jms_in", DequeueOptions(wait=0))
            payload = obj(j.payload)
            assert j.original_msgid == jid and payload["text_vc"] == "hello"
            # JMSXUserID and JMSXAppID as the source's provider set them (R__52): the enqueuing
            # user there, the client's appid; not the gateway agent's user here
            assert (payload["header"]["userid"], payload["header"]["appid"]) == (
                await conn.fetchval("SELECT current_user"), "app")
            # the same properties, in the order the source wrote them (by name: SQL gave no
            # order), each with its place ("seq") as the remote gateway stores it
            assert payload["header"]["properties"] == {
                k: {**v, "seq": i} for i, (k, v) in enumerate(sorted(jms["header"]["properties"].items()), 1)}
            await make_queue(conn, "oe.stream", "oe.stream_t", "SYS.AQ$_JMS_STREAM_MESSAGE", multiple=True)
            with pytest.raises(asyncpg.PostgresError, match=r"ORA-24959.*StreamMessage"):
                await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.stream', 'web')")
            reason = await conn.fetchval("SELECT failure_reason FROM oe.aq$_orders_t_r WHERE address = 'oe.narrow@web'")
            assert reason == "PROPAGATION_FAILURE"
            assert await remote.fetchval("SELECT count(*) FROM oe.narrow_t") == 0
    finally:
        await drop_roles(remote, roles)
        await remote.close()


async def test_a_hanging_gateway_is_a_retried_failure(conn: asyncpg.Connection, start_propagator: Start,
                                                      topology: None) -> None:
    """An HTTP link whose far end accepts the connection and never answers: a timeout,
    retried with backoff, the message kept."""
    held: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        await conn.execute("CALL aq.create_database_link('mute', $1)", f"http://127.0.0.1:{port}/aqserv/servlet")
        await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q@mute', 0))")
        await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', 'mute', latency => 0)")
        await Session(conn).enqueue("oe.out_q", b"x")
        running = await start_propagator(backoff_base=0.05, remote_timeout=0.5)
        await running.problem("FAILURE")
        await running.problem("FAILURE")
        row = await conn.fetchrow("SELECT failures, schedule_disabled, last_error_msg FROM dba_queue_schedules")
        assert row["failures"] >= 2 and row["schedule_disabled"] == "N"
        assert "no answer from the remote gateway" in row["last_error_msg"]
        assert await conn.fetchval("SELECT msg_state FROM oe.aq$out_t WHERE address IS NOT NULL") == "READY"
    finally:
        for w in held:
            w.close()
        server.close()


async def test_a_retry_past_the_windows_end_waits_for_the_next_window(
        conn: asyncpg.Connection, start_propagator: Start, topology: None) -> None:
    """The first retry (after 600 s) would fall after the 5 s window: it moves to the next
    window's start (next_time '1 hour'), and DBA_QUEUE_SCHEDULES says so."""
    dead = f"postgresql://postgres@127.0.0.1:{free_port()}/nowhere"
    await conn.execute("CALL aq.create_database_link('eu', $1)", dead)
    await conn.execute("CALL dbms_aqadm.add_subscriber('oe.out_q', sys.aq$_agent(NULL, 'oe.in_q@eu', 0))")
    await conn.execute("CALL dbms_aqadm.schedule_propagation('oe.out_q', 'eu', duration => 5, "
                       "next_time => '1 hour', latency => 0)")
    await Session(conn).enqueue("oe.out_q", b"x")
    running = await start_propagator(backoff_base=600)
    await running.problem("FAILURE")
    s = await conn.fetchrow("SELECT window_start, next_run, aligned FROM aq.schedules")
    assert s["aligned"] and s["next_run"] == s["window_start"] + timedelta(hours=1)
    row = await conn.fetchrow("SELECT next_run_date, failures, session_id FROM dba_queue_schedules")
    assert (row["next_run_date"], row["failures"], row["session_id"]) == (s["next_run"], 1, None)


async def test_a_schedule_dropped_mid_pass_reads_and_settles_nothing(conn: asyncpg.Connection) -> None:
    """A propagator between claiming a schedule and reading its batch may find it (or its
    queue) dropped: an empty batch and nothing settled, not an error about a NULL name."""
    rows = await conn.fetch("SELECT * FROM aq.propagation_batch(987654, 10)")
    assert rows == []
    settled = await conn.fetchval(
        "SELECT aq.propagation_settle(987654, ARRAY['\\x00'::bytea], ARRAY['A'], ARRAY['x@y'])")
    assert settled == 0
