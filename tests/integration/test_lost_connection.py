"""Every database connection of a client cut at once, and new ones refused for a while, as
a Patroni failover behind HAProxy does (HAProxy closes every client connection to the old
primary; the new primary accepts a few seconds later). A TCP proxy (chaos/proxy.py) stands
between the client and PostgreSQL; the tests cut it (issue 34).

What each kind of client must see (the IDAP servlet's semantics, JMS 1.1):
- IDAP: a session whose transaction died gets one Server fault ORA-03113 saying its
  transaction was rolled back, and its next request works; a session with nothing open
  just works once the database is back; a blocked AQXmlReceive is woken by a message sent
  after the database is back (the gateway's LISTEN connection comes back), or, when it was
  in a transaction, answers the fault.
- pgaq.jms: the ExceptionListener is told once per outage; message listeners and blocking
  receives go on with no help from the application; a transacted session's commit throws
  TransactionRolledBackException and its messages come again (JMSRedelivered), as do a
  CLIENT_ACKNOWLEDGE session's unacknowledged ones.
- dbms_aq.dequeue waiting in SQL: the call fails with the connection, and its backend does
  not stay behind to take (and lose) a later message.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pgaq.jms as jms
import pytest
from pgaq.embedded import Cluster

from chaos.proxy import LinkProxy

from .gateway_support import Client, Reply, drop_roles, envelope, make_agent, op, running_gateway
from .helpers import make_queue
from .waiting import until

QUEUE = "LC.RAW_Q"
SEND = envelope(op("AQXmlSend",
    f"<producer_options><destination>{QUEUE}</destination></producer_options>"
    "<message_set><message><message_header><sender_id/></message_header>"
    "<message_payload><RAW>0A</RAW></message_payload></message></message_set>"))
SEND_COMMIT = SEND.replace(b"</AQXmlSend>", b"<AQXmlCommit/></AQXmlSend>")
COMMIT = envelope(op("AQXmlCommit", ""))
ROLLBACK = envelope(op("AQXmlRollback", ""))


def receive(wait: int, *, commit: bool = True) -> bytes:
    return envelope(op("AQXmlReceive",
        f"<consumer_options><destination>{QUEUE}</destination><wait_time>{wait}</wait_time>"
        f"</consumer_options>{'<AQXmlCommit/>' if commit else ''}"))


def _ok(r: Reply) -> None:
    assert r.status == 200 and r.fault is None, r.body


def _lost(r: Reply, *, rolled_back: bool) -> None:
    """The fault of a lost connection: Server, ORA-03113, saying what became of the work."""
    assert r.status == 500 and r.fault is not None, r.body
    assert b"Server" in r.body and r.error_code == "3113", r.body
    assert r.fault.startswith("ORA-03113"), r.fault
    assert ("rolled back" in r.fault) == rolled_back, r.fault


@pytest.fixture
async def link(cluster: Cluster) -> AsyncIterator[LinkProxy]:
    proxy = LinkProxy(cluster.port)
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.stop()




async def live_waiter(conn: asyncpg.Connection, queue: str) -> bool:
    """Whether a live backend is registered as waiting on `queue` (a LISTEN connection)."""
    return bool(await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM aq.waiters w JOIN aq.queue_info q ON q.queue_id = w.queue_id"
        " JOIN pg_stat_activity a ON a.pid = w.pid"
        " WHERE upper(q.schema_name || '.' || q.queue_name) = upper($1))", queue))


async def alone(conn: asyncpg.Connection) -> None:
    """Until `conn` is the database's only backend (every other one was cut, and the
    clients, told by the same resets, have seen their connections close)."""
    await until(lambda: conn.fetchval(
        "SELECT count(*) = 0 FROM pg_stat_activity WHERE datname = current_database()"
        " AND pid <> pg_backend_pid()"), "the cut backends to end")


async def count(conn: asyncpg.Connection, table: str) -> int:
    return int(await conn.fetchval(f"SELECT count(*) FROM {table}"))


# -- IDAP ----------------------------------------------------------------------------------
@pytest.fixture
async def gateway(conn: asyncpg.Connection, db_dsn: str, link: LinkProxy) -> AsyncIterator[str]:
    roles = await make_agent(conn, "LOSER", "pw")
    await conn.execute(f'CREATE SCHEMA lc AUTHORIZATION "{roles[0]}"')
    await conn.execute("""
        CALL dbms_aqadm.create_queue_table('lc.raw_qt', 'RAW');
        CALL dbms_aqadm.create_queue('lc.raw_q', 'lc.raw_qt');
        CALL dbms_aqadm.start_queue('lc.raw_q');
    """)
    # safety_poll 60: a wait woken in time was woken by NOTIFY, not by the poll
    async with running_gateway(link.route(db_dsn), safety_poll=60.0, max_wait=60.0) as url:
        yield url
    await drop_roles(conn, roles)


@pytest.mark.parametrize("then", [COMMIT, SEND, ROLLBACK], ids=["commit", "send", "rollback"])
@pytest.mark.parametrize("back", [True, False], ids=["after", "during"])
async def test_idap_transaction_cut_faults_once_then_works(
        conn: asyncpg.Connection, gateway: str, link: LinkProxy, then: bytes, back: bool) -> None:
    """The session's open transaction dies with its connection: its next request (a commit,
    more work, a rollback), made while the database is still away or once it is back, is a
    Server fault ORA-03113 saying the transaction was rolled back, never a commit of nothing
    reported as done; the request after that works on a new connection."""
    c = Client(gateway, "LOSER", "pw")
    try:
        _ok(await c.post(SEND))  # uncommitted: the session holds a transaction
        link.down()
        if back:
            link.up()
        r = await c.post(then)
        _lost(r, rolled_back=True)
        link.up()
        _ok(await c.post(SEND_COMMIT))
        assert await count(conn, "lc.raw_qt") == 1  # the lost transaction's message is gone
    finally:
        await c.close()


async def test_idap_session_without_transaction_just_works(
        conn: asyncpg.Connection, gateway: str, link: LinkProxy) -> None:
    """Nothing was open: once the database is back the next request works (the pool
    replaces the connections it lost); while it is away, a fault that says retry, once per
    request, with nothing said to be rolled back."""
    c = Client(gateway, "LOSER", "pw")
    try:
        _ok(await c.post(SEND_COMMIT))
        link.down()
        _lost(await c.post(SEND_COMMIT), rolled_back=False)
        link.up()
        _ok(await c.post(SEND_COMMIT))
        link.down()
        link.up()
        _ok(await c.post(SEND_COMMIT))
        _ok(await c.post(receive(0)))
        assert await count(conn, "lc.raw_qt") == 2
    finally:
        await c.close()


async def test_idap_blocked_receive_is_woken_after_the_database_is_back(
        conn: asyncpg.Connection, gateway: str, link: LinkProxy) -> None:
    """A receive waiting (its own transaction) when every connection is cut keeps waiting
    and is woken by a message sent once the database is back: the gateway's LISTEN
    connection came back (the safety poll, 60 s here, is not what wakes it)."""
    c = Client(gateway, "LOSER", "pw")
    try:
        waiting = asyncio.ensure_future(c.post(receive(50)))
        await until(lambda: live_waiter(conn, QUEUE), "the gateway to wait on the queue")
        link.down()
        await alone(conn)
        assert not waiting.done()
        link.up()
        await until(lambda: live_waiter(conn, QUEUE), "the gateway's LISTEN connection to come back")
        await conn.execute("CALL dbms_aq.enqueue(queue_name => 'lc.raw_q', payload => '\\x0b'::bytea,"
                           " msgid => NULL)")
        r = await asyncio.wait_for(waiting, 20)
        _ok(r)
        assert len(r.text("//aq:message_id")) == 1
        assert await count(conn, "lc.raw_qt") == 0
    finally:
        await c.close()


async def test_idap_blocked_receive_in_a_transaction_answers_the_fault(
        conn: asyncpg.Connection, gateway: str, link: LinkProxy) -> None:
    """A receive waiting inside the session's transaction cannot go on when that
    transaction's connection is cut: it answers ORA-03113 (rolled back) once the gateway
    sees it, not a wait stranded to its end; the session's next request works."""
    c = Client(gateway, "LOSER", "pw")
    try:
        _ok(await c.post(receive(0, commit=False)))  # opens the session's transaction
        waiting = asyncio.ensure_future(c.post(receive(50, commit=False)))
        await until(lambda: live_waiter(conn, QUEUE), "the gateway to wait on the queue")
        link.down()
        link.up()
        r = await asyncio.wait_for(waiting, 20)
        _lost(r, rolled_back=True)
        _ok(await c.post(SEND_COMMIT))
        r = await c.post(receive(0))
        _ok(r)
        assert len(r.text("//aq:message_id")) == 1
    finally:
        await c.close()


# -- dbms_aq.dequeue waiting in SQL --------------------------------------------------------
DEQ_FOREVER = ("CALL dbms_aq.dequeue(queue_name => 's.q', dequeue_options => dbms_aq.dequeue_options("
               "wait => dbms_aq.forever()), payload => NULL::bytea, msgid => NULL)")
DEQ = ("CALL dbms_aq.dequeue(queue_name => 's.q', dequeue_options => dbms_aq.dequeue_options("
       "wait => 10), payload => NULL::bytea, msgid => NULL)")
ENQ = "CALL dbms_aq.enqueue(queue_name => 's.q', payload => $1::bytea, msgid => NULL)"


async def test_sql_dequeue_waiting_when_cut_leaves_nothing_behind(
        conn: asyncpg.Connection, db_dsn: str, link: LinkProxy) -> None:
    """The waiting CALL fails with its connection (nothing to fix in the client); its
    backend ends too, rather than waiting on and taking a later message for nobody, and
    a later waiter on the same queue is served at once."""
    await make_queue(conn)
    client = await asyncpg.connect(link.route(db_dsn))
    pid = await client.fetchval("SELECT pg_backend_pid()")
    call = asyncio.ensure_future(client.execute(DEQ_FOREVER))
    await until(lambda: conn.fetchval(
        "SELECT wait_event = 'PgSleep' FROM pg_stat_activity WHERE pid = $1", pid), "the wait")
    link.down()
    with pytest.raises((asyncpg.ConnectionDoesNotExistError, ConnectionError, OSError)):
        await asyncio.wait_for(call, 10)
    link.up()
    await until(lambda: conn.fetchval(
        "SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1)", pid),
        "the cut waiter's backend to end", timeout=15)
    later = await asyncpg.connect(link.route(db_dsn))
    try:
        got = asyncio.ensure_future(later.fetchrow(DEQ))
        await conn.execute(ENQ, b"\x01")
        row = await asyncio.wait_for(got, 10)
        assert row["payload"] == b"\x01"
        assert await count(conn, "s.qt") == 0
    finally:
        await later.close()
        client.terminate()


# -- pgaq.jms ------------------------------------------------------------------------------
async def test_jms_clients_go_on_after_every_connection_is_cut(
        conn: asyncpg.Connection, db_dsn: str, link: LinkProxy) -> None:
    """One outage under a started connection: the ExceptionListener is told once; a
    message listener and a blocking receive get messages sent after the database is back
    with no help from the application; the transacted session's commit throws
    TransactionRolledBackException and its message comes again (JMSRedelivered), as does
    the CLIENT_ACKNOWLEDGE session's unacknowledged one."""
    for name in ("listened", "received", "tx", "acked"):
        await make_queue(conn, f"lc.{name}", f"lc.{name}_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    direct = await jms.ConnectionFactory(db_dsn).create_connection()  # the far side, not cut
    factory = jms.ConnectionFactory(link.route(db_dsn), safety_poll=60.0)
    connection = await factory.create_connection()
    told: list[jms.JMSException] = []
    first_told = asyncio.Event()

    def on_exception(e: jms.JMSException) -> None:
        told.append(e)
        first_told.set()

    connection.set_exception_listener(on_exception)
    try:
        out = direct.create_session()

        async def send(queue: str, text: str) -> None:
            await out.create_producer(out.get_queue("lc", queue)).send(out.create_text_message(text))

        for q in ("listened", "tx", "acked"):
            await send(q, "before")
        listened: asyncio.Queue[str] = asyncio.Queue()
        ls = connection.create_session()

        def on_message(m: jms.Message) -> None:
            assert isinstance(m, jms.TextMessage) and m.text is not None
            listened.put_nowait(m.text)

        (await ls.create_consumer(ls.get_queue("lc", "listened"))).set_message_listener(on_message)
        rs = connection.create_session()
        receiver = await rs.create_consumer(rs.get_queue("lc", "received"))
        ts = connection.create_session(True)
        tx_consumer = await ts.create_consumer(ts.get_queue("lc", "tx"))
        cs = connection.create_session(False, jms.CLIENT_ACKNOWLEDGE)
        ack_consumer = await cs.create_consumer(cs.get_queue("lc", "acked"))
        await connection.start()
        assert await asyncio.wait_for(listened.get(), 20) == "before"
        taken = await tx_consumer.receive(10)
        unacked = await ack_consumer.receive(10)
        assert taken is not None and unacked is not None
        blocked = asyncio.ensure_future(receiver.receive(50))
        await until(lambda: live_waiter(conn, "lc.received"), "the receive to wait")

        link.down()
        await asyncio.wait_for(first_told.wait(), 20)
        link.up()
        with pytest.raises(jms.TransactionRolledBackException):
            await ts.commit()
        with pytest.raises(jms.JMSException):
            await unacked.acknowledge()
        for q in ("listened", "received"):
            await send(q, "after")
        assert await asyncio.wait_for(listened.get(), 20) == "after"
        got = await asyncio.wait_for(blocked, 20)
        assert isinstance(got, jms.TextMessage) and got.text == "after"
        again = await tx_consumer.receive(10)
        assert again is not None and again.jms_message_id == taken.jms_message_id
        assert again.jms_redelivered
        await ts.commit()
        again = await ack_consumer.receive(10)
        assert again is not None and again.jms_message_id == unacked.jms_message_id
        assert again.jms_redelivered
        await again.acknowledge()
        assert len(told) == 1, told  # once per outage, however many sessions lost theirs
    finally:
        await connection.close()
        await direct.close()


async def test_jms_sessions_with_nothing_open_go_on_and_each_outage_is_told_once(
        conn: asyncpg.Connection, db_dsn: str, link: LinkProxy) -> None:
    """Sessions that held nothing when their connections were cut just send on (new
    connections; nothing was in flight). A connection that only sends never opens a
    listening connection: its sessions say when the database is back, so each outage is
    told once, the second too."""
    await make_queue(conn, "lc.sent", "lc.sent_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    connection = await jms.ConnectionFactory(link.route(db_dsn)).create_connection()
    told: asyncio.Queue[jms.JMSException] = asyncio.Queue()
    connection.set_exception_listener(told.put_nowait)
    try:
        sessions = [connection.create_session() for _ in range(3)]
        producers = [s.create_producer(s.get_queue("lc", "sent")) for s in sessions]
        for outage in range(2):
            for s, p in zip(sessions, producers, strict=True):
                await p.send(s.create_text_message(f"before {outage}"))
            link.down()
            await alone(conn)
            link.up()
            for s, p in zip(sessions, producers, strict=True):
                await p.send(s.create_text_message(f"after {outage}"))
            await asyncio.wait_for(told.get(), 10)
            assert told.empty()  # three sessions lost theirs: one outage, told once
        assert await count(conn, "lc.sent_t") == 12
    finally:
        await connection.close()
