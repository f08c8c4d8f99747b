"""Temporary queues and topics, and JMSReplyTo's destination kind (issue 32, items 4 and 6).

Expected results from JMS 1.1 (section 4.4.3, the TemporaryQueue / TemporaryTopic
javadoc: unique, deleted with their connection, consumed only by that connection, delete()
fails while a consumer is open on it; section 3.4.6: JMSReplyTo is the destination the
reply goes to) and Oracle's "Introduction to Oracle Java Message Service" (JMS Message
Headers: JMSReplyTo is a Queue or a Topic; Java EE Compliance: temporary queues and
topics)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pgaq.jms as jms
import pytest

from .helpers import make_queue


@pytest.fixture
async def factory(db_dsn: str) -> AsyncIterator[jms.ConnectionFactory]:
    yield jms.ConnectionFactory(db_dsn, safety_poll=30.0)


@pytest.fixture
async def requester(factory: jms.ConnectionFactory) -> AsyncIterator[jms.Connection]:
    c = await factory.create_connection()
    try:
        yield c
    finally:
        await c.close()


@pytest.fixture
async def responder(factory: jms.ConnectionFactory) -> AsyncIterator[jms.Connection]:
    c = await factory.create_connection()
    try:
        yield c
    finally:
        await c.close()


async def requests_queue(conn: asyncpg.Connection) -> None:
    await make_queue(conn, "shop.requests_q", "shop.requests_t", "SYS.AQ$_JMS_TEXT_MESSAGE")


async def temporaries(conn: asyncpg.Connection) -> list[str]:
    rows = await conn.fetch("SELECT schema_name || '.' || queue_name AS q FROM aq.queues "
                            "WHERE aq.jms_temporary_kind(queue_name) IS NOT NULL ORDER BY q")
    return [r["q"] for r in rows]


async def serve_one(responder: jms.Connection) -> jms.Message:
    """The responder: take one request, reply to its JMSReplyTo with its correlation."""
    session = responder.create_session()
    consumer = await session.create_consumer(session.get_queue("shop.requests_q"))
    await responder.start()
    request = await consumer.receive(10.0)
    assert isinstance(request, jms.TextMessage)
    reply = session.create_text_message(f"re: {request.text}")
    reply.jms_correlation_id = request.jms_message_id
    assert isinstance(request.jms_reply_to, jms.Destination)
    await session.create_producer(None).send(reply, destination=request.jms_reply_to)
    return request


async def test_request_reply_through_a_temporary_queue(conn: asyncpg.Connection,
                                                       requester: jms.Connection,
                                                       responder: jms.Connection) -> None:
    await requests_queue(conn)
    session = requester.create_session()
    reply_q = await session.create_temporary_queue()
    assert isinstance(reply_q, jms.TemporaryQueue) and isinstance(reply_q, jms.Queue)
    request = session.create_text_message("price?")
    request.jms_reply_to = reply_q
    await session.create_producer(session.get_queue("shop.requests_q")).send(request)

    got_request = await serve_one(responder)
    # the responder sees a TemporaryQueue, equal to the requester's
    assert isinstance(got_request.jms_reply_to, jms.TemporaryQueue)
    assert got_request.jms_reply_to == reply_q

    consumer = await session.create_consumer(reply_q)
    await requester.start()
    reply = await consumer.receive(10.0)
    assert isinstance(reply, jms.TextMessage) and reply.text == "re: price?"
    assert reply.jms_correlation_id == request.jms_message_id
    assert reply.jms_destination == reply_q


async def test_request_reply_through_a_temporary_topic(conn: asyncpg.Connection,
                                                       requester: jms.Connection,
                                                       responder: jms.Connection) -> None:
    await requests_queue(conn)
    session = requester.create_session()
    reply_t = await session.create_temporary_topic()
    assert isinstance(reply_t, jms.TemporaryTopic) and isinstance(reply_t, jms.Topic)
    # a topic keeps what is published only for subscribers there at the time
    subscriber = await session.create_subscriber(reply_t)
    await requester.start()
    request = session.create_text_message("stock?")
    request.jms_reply_to = reply_t
    await session.create_producer(session.get_queue("shop.requests_q")).send(request)

    got_request = await serve_one(responder)
    assert isinstance(got_request.jms_reply_to, jms.TemporaryTopic)
    assert got_request.jms_reply_to == reply_t

    reply = await subscriber.receive(10.0)
    assert isinstance(reply, jms.TextMessage) and reply.text == "re: stock?"
    assert reply.jms_correlation_id == request.jms_message_id


async def test_a_topic_as_reply_to_comes_back_as_a_topic(conn: asyncpg.Connection,
                                                         requester: jms.Connection,
                                                         responder: jms.Connection) -> None:
    await requests_queue(conn)
    await make_queue(conn, "shop.answers", "shop.answers_t", "SYS.AQ$_JMS_TEXT_MESSAGE",
                     multiple=True)
    session = requester.create_session()
    answers = session.get_topic("shop", "answers")
    subscriber = await session.create_subscriber(answers)
    await requester.start()
    request = session.create_text_message("hello")
    request.jms_reply_to = answers
    await session.create_producer(session.get_queue("shop.requests_q")).send(request)

    got_request = await serve_one(responder)
    assert type(got_request.jms_reply_to) is jms.Topic
    assert got_request.jms_reply_to == answers
    # a consumer on it works (a Queue there failed with JMS-125)
    rs = responder.create_session()
    their_subscriber = await rs.create_consumer(got_request.jms_reply_to)
    await rs.create_producer(got_request.jms_reply_to).send(rs.create_text_message("again"))
    again = await their_subscriber.receive(10.0)
    assert again is not None and again.text == "again"  # type: ignore[attr-defined]
    first = await subscriber.receive(10.0)
    assert first is not None and first.text == "re: hello"  # type: ignore[attr-defined]
    # a single-consumer queue as reply-to stays a Queue; an agent with a name an agent
    plain = session.create_text_message("q")
    plain.jms_reply_to = session.get_queue("shop.requests_q")
    agent = session.create_text_message("a")
    agent.jms_reply_to = jms.AQjmsAgent("BOB", "shop.answers")
    producer = session.create_producer(session.get_queue("shop.requests_q"))
    await producer.send(plain)
    await producer.send(agent)
    consumer = await rs.create_consumer(rs.get_queue("shop.requests_q"))
    got_plain = await consumer.receive(10.0)
    got_agent = await consumer.receive(10.0)
    assert got_plain is not None and type(got_plain.jms_reply_to) is jms.Queue
    assert got_agent is not None and got_agent.jms_reply_to == jms.AQjmsAgent("BOB", "shop.answers")


async def test_reply_to_kind_in_sql_and_after_the_temporary_is_gone(
        conn: asyncpg.Connection, requester: jms.Connection, responder: jms.Connection) -> None:
    """The kind is for every client (a Java provider calls the same SQL), and a temporary
    destination deleted before the reply is read still comes back as its kind."""
    await requests_queue(conn)
    await make_queue(conn, "shop.answers", "shop.answers_t", "SYS.AQ$_JMS_TEXT_MESSAGE",
                     multiple=True)
    session = requester.create_session()
    tq = await session.create_temporary_queue()
    tt = await session.create_temporary_topic()

    async def kind(address: str | None, name: str | None = None, protocol: int = 0) -> str | None:
        got: str | None = await conn.fetchval(
            "SELECT aq.jms_reply_to_kind(sys.aq$_agent($1, $2, $3))", name, address, protocol)
        return got

    assert await kind(tq.qualified) == "TEMPORARY_QUEUE"
    assert await kind(tt.qualified) == "TEMPORARY_TOPIC"
    assert await kind("shop.answers") == "TOPIC"
    assert await kind("shop.requests_q") == "QUEUE"
    assert await kind("shop.no_such_queue") == "QUEUE"
    assert await kind("shop.answers", name="BOB") is None
    assert await kind("shop.answers@far") is None
    assert await kind("not a name..") is None
    assert await kind(None) is None

    request = session.create_text_message("x")
    request.jms_reply_to = tt
    await session.create_producer(session.get_queue("shop.requests_q")).send(request)
    await tt.delete()
    await tq.delete()
    assert await temporaries(conn) == []
    assert await kind(tt.qualified) == "TEMPORARY_TOPIC"
    rs = responder.create_session()
    consumer = await rs.create_consumer(rs.get_queue("shop.requests_q"))
    await responder.start()
    got = await consumer.receive(10.0)
    assert got is not None and isinstance(got.jms_reply_to, jms.TemporaryTopic)
    assert got.jms_reply_to == tt
    # replying to it now: the destination is gone
    with pytest.raises(jms.InvalidDestinationException):
        await rs.create_producer(None).send(rs.create_text_message("late"),
                                            destination=got.jms_reply_to)


async def test_only_the_creating_connection_consumes_and_deletes(
        conn: asyncpg.Connection, requester: jms.Connection, responder: jms.Connection) -> None:
    session = requester.create_session()
    tq = await session.create_temporary_queue()
    other = responder.create_session()
    with pytest.raises(jms.InvalidDestinationException) as err:
        await other.create_consumer(tq)
    assert err.value.error_code == "JMS-127"
    # the same destination as a received copy: another connection cannot delete it
    copy = jms.TemporaryQueue(tq.owner, tq.name)
    assert copy == tq
    with pytest.raises(jms.IllegalStateException):
        await copy.delete()
    # but it can send to it, and the creator receives
    await other.create_producer(tq).send(other.create_text_message("for you"))
    consumer = await session.create_consumer(tq)
    await requester.start()
    got = await consumer.receive(10.0)
    assert got is not None and got.text == "for you"  # type: ignore[attr-defined]


async def test_delete_refused_while_a_consumer_is_open(conn: asyncpg.Connection,
                                                       requester: jms.Connection) -> None:
    session = requester.create_session()
    tt = await session.create_temporary_topic()
    tq = await session.create_temporary_queue()
    assert tt.qualified != tq.qualified  # each one unique
    subscriber = await requester.create_session().create_subscriber(tt)
    with pytest.raises(jms.JMSException) as err:
        await tt.delete()
    assert "open consumer" in str(err.value)
    assert tt.qualified in await temporaries(conn)
    await subscriber.close()
    await tt.delete()
    assert await temporaries(conn) == [tq.qualified]
    # deleted: no consumer, no send, no second delete
    with pytest.raises(jms.InvalidDestinationException):
        await session.create_consumer(tt)
    with pytest.raises(jms.InvalidDestinationException):
        await session.create_producer(tt).send(session.create_text_message("x"))
    with pytest.raises(jms.InvalidDestinationException):
        await tt.delete()


async def test_no_durable_subscription_on_a_temporary_topic(conn: asyncpg.Connection,
                                                            requester: jms.Connection) -> None:
    """A durable subscription outlives its subscriber, a temporary topic its connection
    does not (JMS 1.1 6.11.1; ActiveMQ refuses it the same way)."""
    session = requester.create_session()
    tt = await session.create_temporary_topic()
    with pytest.raises(jms.InvalidDestinationException):
        session.create_durable_subscriber(tt, "KEEP")
    assert await conn.fetchval("SELECT count(*) FROM aq.subscribers s JOIN aq.queues q ON q.id = s.queue_id "
                               "WHERE q.queue_name LIKE 'aq$_tmpt%'") == 0


async def test_closing_the_connection_deletes_its_temporaries(
        conn: asyncpg.Connection, factory: jms.ConnectionFactory,
        responder: jms.Connection) -> None:
    c = await factory.create_connection()
    session = c.create_session()
    tq = await session.create_temporary_queue()
    tt = await session.create_temporary_topic()
    await session.create_producer(tq).send(session.create_text_message("left behind"))
    mine = await temporaries(conn)
    assert sorted([tq.qualified, tt.qualified]) == mine
    # a temporary of another connection is not touched
    survivor = await responder.create_session().create_temporary_queue()
    await c.close()
    assert await temporaries(conn) == [survivor.qualified]
    # the queue tables stay for the next ones (made once per schema)
    assert await conn.fetchval("SELECT count(*) FROM aq.queue_tables "
                               "WHERE table_name IN ('aq$_jms_tmpq', 'aq$_jms_tmpt')") == 2
    with pytest.raises(jms.IllegalStateException):
        await tq.delete()


async def test_a_crashed_owner_leaves_orphans_the_next_create_drops(
        conn: asyncpg.Connection, factory: jms.ConnectionFactory,
        responder: jms.Connection) -> None:
    """A process that dies without closing its connection: its lease (an advisory lock of
    its database session) goes, and its temporaries are dropped by the next create in the
    schema, or by aq.jms_drop_orphaned_temporaries."""
    crashed = await factory.create_connection()
    session = crashed.create_session()
    tq = await session.create_temporary_queue()
    tt = await session.create_temporary_topic()
    await session.create_producer(tq).send(session.create_text_message("orphaned"))
    lease_pid = await conn.fetchval(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 1885823348 "
        "AND objid = ('x' || split_part($1, '_', 3))::bit(32)::integer::oid", tq.name)
    assert lease_pid is not None
    # the owner is alive: nothing is an orphan
    assert await conn.fetchval("SELECT aq.jms_drop_orphaned_temporaries()") == 0
    assert await conn.fetchval("SELECT pg_terminate_backend($1, 10000)", lease_pid)
    assert sorted(await temporaries(conn)) == sorted([tq.qualified, tt.qualified])
    # the next create in the schema drops them
    fresh = await responder.create_session().create_temporary_queue()
    assert await temporaries(conn) == [fresh.qualified]
    assert await conn.fetchval("SELECT count(*) FROM public.aq$_jms_tmpq") == 0
    # the crashed connection, closed at last, fails nothing
    await crashed.close()

    # and the sweep alone, as an administrator or a scheduled job may run it
    again = await factory.create_connection()
    tq2 = await again.create_session().create_temporary_queue()
    pid = await conn.fetchval(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 1885823348 "
        "AND objid = ('x' || split_part($1, '_', 3))::bit(32)::integer::oid", tq2.name)
    assert await conn.fetchval("SELECT pg_terminate_backend($1, 10000)", pid)
    assert await conn.fetchval("SELECT aq.jms_drop_orphaned_temporaries()") == 1
    assert await temporaries(conn) == [fresh.qualified]
    await again.close()


async def test_bad_input_gets_oracle_errors(conn: asyncpg.Connection, db_dsn: str) -> None:
    # no lease held: refused, nothing made
    with pytest.raises(asyncpg.PostgresError, match="ORA-24005"):
        await conn.fetchval("SELECT aq.jms_create_temporary(false, 12345)")
    with pytest.raises(asyncpg.PostgresError, match="ORA-24005"):
        await conn.fetchval("SELECT aq.jms_create_temporary(NULL, aq.jms_temporary_lease())")
    lease = await conn.fetchval("SELECT aq.jms_temporary_lease()")
    with pytest.raises(asyncpg.PostgresError, match="ORA-01918"):
        await conn.fetchval("SELECT aq.jms_create_temporary(false, $1, 'no_such_schema')", lease)
    # drop: only temporary destinations, only the owner's while the owner lives
    await make_queue(conn, "shop.plain_q", "shop.plain_t", "SYS.AQ$_JMS_TEXT_MESSAGE")
    with pytest.raises(asyncpg.PostgresError, match="ORA-24010"):
        await conn.execute("SELECT aq.jms_drop_temporary('shop.plain_q', $1)", lease)
    made = await conn.fetchval("SELECT aq.jms_create_temporary(false, $1)", lease)
    other = await asyncpg.connect(db_dsn)
    try:
        other_lease = await other.fetchval("SELECT aq.jms_temporary_lease()")
        with pytest.raises(asyncpg.PostgresError, match="ORA-01031"):
            await other.execute("SELECT aq.jms_drop_temporary($1, $2)", made, other_lease)
    finally:
        await other.close()
    await conn.execute("SELECT aq.jms_drop_temporary($1, $2)", made, lease)
    assert await temporaries(conn) == []
    # through the JMS API: a schema that does not exist is a JMSException with the ORA code
    factory = jms.ConnectionFactory(db_dsn, temporary_schema="no_such_schema")
    c = await factory.create_connection()
    try:
        with pytest.raises(jms.JMSException) as err:
            await c.create_session().create_temporary_queue()
        assert "ORA-01918" in str(err.value)
    finally:
        await c.close()


async def test_temporary_schema_and_queue_session_names(conn: asyncpg.Connection,
                                                        db_dsn: str) -> None:
    await conn.execute("CREATE SCHEMA replies")
    factory = jms.ConnectionFactory(db_dsn, temporary_schema="replies")
    async with await factory.create_queue_connection() as c:
        qs: jms.QueueSession = c.create_queue_session(False, jms.AUTO_ACKNOWLEDGE)
        ts: jms.TopicSession = c.create_topic_session(False, jms.AUTO_ACKNOWLEDGE)
        tq = await qs.create_temporary_queue()
        tt = await ts.create_temporary_topic()
        assert tq.owner == "replies" and tt.get_topic_owner() == "replies"
        # a temporary destination takes any message type (SYS.AQ$_JMS_MESSAGE)
        producer = qs.create_producer(tq)
        m = qs.create_map_message()
        m.set_int("n", 1)
        await producer.send(m)
        await producer.send(qs.create_bytes_message(b"\x00\x01"))
        consumer = await qs.create_consumer(tq)
        await c.start()
        got = [await consumer.receive(10.0), await consumer.receive(10.0)]
        assert isinstance(got[0], jms.MapMessage) and got[0].get_int("n") == 1
        assert isinstance(got[1], jms.BytesMessage)
    assert await temporaries(conn) == []


async def test_many_temporaries_at_once(conn: asyncpg.Connection,
                                        requester: jms.Connection) -> None:
    """Concurrent creates (the queue table made once) and unique names."""
    sessions = [requester.create_session() for _ in range(4)]
    made = await asyncio.gather(*(s.create_temporary_queue() for s in sessions),
                                *(s.create_temporary_topic() for s in sessions))
    assert len({d.qualified for d in made}) == 8
    assert sorted(await temporaries(conn)) == sorted(d.qualified for d in made)


def _sync_request_reply(dsn: str) -> list[str]:
    from pgaq.jms import blocking

    factory = blocking.ConnectionFactory(dsn, safety_poll=30.0)
    try:
        with factory.create_connection() as conn:
            session = conn.create_session(False, blocking.AUTO_ACKNOWLEDGE)
            tq = session.create_temporary_queue()
            session.create_producer(tq).send(session.create_text_message("to myself"))
            consumer = session.create_consumer(tq)
            conn.start()
            got = consumer.receive(10.0)
            assert got is not None and got.text == "to myself"
            consumer.close()
            blocking.delete_temporary(tq)
            with pytest.raises(jms.IllegalStateException):
                blocking.delete_temporary(jms.TemporaryQueue(tq.owner, tq.name))
            return [tq.qualified]
    finally:
        factory.close()


async def test_blocking_temporary_queue(conn: asyncpg.Connection, db_dsn: str) -> None:
    made = await asyncio.to_thread(_sync_request_reply, db_dsn)
    assert len(made) == 1
    assert await temporaries(conn) == []


@pytest.fixture
async def alice(conn: asyncpg.Connection) -> AsyncIterator[str]:
    """A user with a schema of its own, no AQ administrator rights."""
    name = f"alice_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{name}" LOGIN')
    await conn.execute(f'CREATE SCHEMA "{name}" AUTHORIZATION "{name}"')
    yield name
    await conn.execute(f'DROP OWNED BY "{name}" CASCADE')
    await conn.execute(f'DROP ROLE "{name}"')


async def test_a_plain_user_in_its_own_schema(conn: asyncpg.Connection, db_dsn: str,
                                              alice: str) -> None:
    """The caller's own rights: a user without AQ administrator rights makes temporary
    destinations in the schema named after it; a user who manages no schema is refused
    with ORA-01031."""
    factory = jms.ConnectionFactory(db_dsn.replace("postgres@", f"{alice}@"), safety_poll=30.0)
    async with await factory.create_connection() as c:
        session = c.create_session()
        tq = await session.create_temporary_queue()
        tt = await session.create_temporary_topic()
        assert tq.owner == alice and tt.owner == alice
        subscriber = await session.create_subscriber(tt)
        await session.create_producer(tq).send(session.create_text_message("q"))
        await session.create_producer(tt).send(session.create_text_message("t"))
        consumer = await session.create_consumer(tq)
        await c.start()
        got_q, got_t = await consumer.receive(10.0), await subscriber.receive(10.0)
        assert got_q is not None and got_q.text == "q"  # type: ignore[attr-defined]
        assert got_t is not None and got_t.text == "t"  # type: ignore[attr-defined]
    assert await temporaries(conn) == []

    await conn.execute(f'CREATE ROLE "{alice}_b" LOGIN')
    try:
        bob = jms.ConnectionFactory(db_dsn.replace("postgres@", f"{alice}_b@"))
        async with await bob.create_connection() as c:
            with pytest.raises(jms.JMSException) as err:
                await c.create_session().create_temporary_queue()
            assert "ORA-01031" in str(err.value)
    finally:
        await conn.execute(f'DROP ROLE "{alice}_b"')


async def test_the_monitor_drops_orphans(conn: asyncpg.Connection, db_dsn: str,
                                         factory: jms.ConnectionFactory) -> None:
    from pgaq.listener import Listener
    from pgaq.monitor import Monitor, MonitorSettings

    crashed = await factory.create_connection()
    alive = await factory.create_connection()
    try:
        tq = await crashed.create_session().create_temporary_queue()
        kept = await alive.create_session().create_temporary_topic()
        pid = await conn.fetchval(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 1885823348 "
            "AND objid = ('x' || split_part($1, '_', 3))::bit(32)::integer::oid", tq.name)
        assert await conn.fetchval("SELECT pg_terminate_backend($1, 10000)", pid)
        pool = await asyncpg.create_pool(db_dsn, min_size=1, max_size=2)
        try:
            monitor = Monitor(pool, Listener(db_dsn), MonitorSettings())
            await monitor.snapshot()
        finally:
            await pool.close()
        assert monitor.temporaries_dropped == 1
        assert await temporaries(conn) == [kept.qualified]
    finally:
        await crashed.close()
        await alive.close()
