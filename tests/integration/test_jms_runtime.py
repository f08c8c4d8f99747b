"""pgaq.jms at the level of an application (issue 22): connection, session, producer and
consumer over real queue tables made with dbms_aqadm; the expected results are those of Oracle
Database Advanced Queuing User's Guide, "Introduction to Oracle Java Message Service", and JMS
1.1's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pgaq.jms as jms
import pytest

from .helpers import make_queue, subscribe
from .waiting import until


@pytest.fixture
async def factory(db_dsn: str) -> AsyncIterator[jms.ConnectionFactory]:
    yield jms.ConnectionFactory(db_dsn, safety_poll=30.0)


@pytest.fixture
async def connection(factory: jms.ConnectionFactory) -> AsyncIterator[jms.Connection]:
    c = await factory.create_connection()
    try:
        yield c
    finally:
        await c.close()


async def text_queue(conn: asyncpg.Connection, queue: str = "shop.orders_q", **kw: object) -> None:
    await make_queue(conn, queue, queue + "_t", "SYS.AQ$_JMS_TEXT_MESSAGE", **kw)  # type: ignore[arg-type]


async def test_send_receive_text_message_with_headers(conn: asyncpg.Connection,
                                                       connection: jms.Connection) -> None:
    await text_queue(conn)
    session = connection.create_session(False, jms.AUTO_ACKNOWLEDGE)
    queue = session.get_queue("shop", "orders_q")
    producer = session.create_producer(queue)
    msg = session.create_text_message("hello")
    msg.set_string_property("country", "UK")
    msg.jms_correlation_id = "c-1"
    msg.jms_type = "order"
    await producer.send(msg, priority=5, time_to_live=60.0)
    assert msg.jms_message_id is not None and msg.jms_message_id.startswith("ID:")
    assert msg.jms_timestamp > 0 and msg.jms_priority == 5
    assert msg.jms_expiration == msg.jms_timestamp + 60_000
    consumer = await session.create_consumer(queue, message_selector="country = 'UK'")
    await connection.start()
    got = await consumer.receive(timeout=5.0)
    assert isinstance(got, jms.TextMessage)
    assert got.text == "hello"
    assert got.get_string_property("country") == "UK"
    assert got.jms_message_id == msg.jms_message_id
    assert got.jms_correlation_id == "c-1" and got.jms_type == "order"
    assert got.jms_priority == 5 and got.jms_redelivered is False
    assert got.jms_delivery_mode == jms.PERSISTENT
    assert got.jms_destination == queue
    assert got.get_int_property("JMSXDeliveryCount") == 1
    # AUTO_ACKNOWLEDGE: gone once receive returned
    assert await conn.fetchval("SELECT count(*) FROM shop.orders_q_t") == 0
    assert await consumer.receive_no_wait() is None


async def test_receive_waits_for_a_send_and_times_out(conn: asyncpg.Connection,
                                                      connection: jms.Connection) -> None:
    await text_queue(conn)
    session = connection.create_session()
    queue = session.get_queue("shop.orders_q")
    consumer = await session.create_consumer(queue)
    await connection.start()
    # nothing there: None after the timeout
    assert await consumer.receive(timeout=0.2) is None
    # a receive that waits is woken by another session's send (the connection's LISTEN)
    waiting = asyncio.create_task(consumer.receive())
    sender = connection.create_session()
    await sender.create_producer(queue).send(sender.create_text_message("late"))
    got = await asyncio.wait_for(waiting, 10)
    assert isinstance(got, jms.TextMessage) and got.text == "late"


async def test_stopped_connection_gates_receive(conn: asyncpg.Connection,
                                                connection: jms.Connection) -> None:
    await text_queue(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "orders_q")
    await session.create_producer(queue).send(session.create_text_message("x"))
    consumer = await session.create_consumer(queue)
    # created stopped: receive_no_wait gives nothing, a receive waits until start()
    assert await consumer.receive_no_wait() is None
    assert await consumer.receive(0.1) is None
    waiting = asyncio.create_task(consumer.receive(10.0))
    await asyncio.sleep(0)  # the receive is waiting on start
    assert not waiting.done()
    await connection.start()
    got = await asyncio.wait_for(waiting, 10)
    assert got is not None and got.text == "x"  # type: ignore[attr-defined]
    await connection.stop()
    await session.create_producer(queue).send(session.create_text_message("y"))
    assert await consumer.receive_no_wait() is None  # a producer sends while stopped
    await connection.start()
    got = await consumer.receive_no_wait()
    assert got is not None and got.text == "y"  # type: ignore[attr-defined]


async def test_closed_objects_raise_illegal_state(conn: asyncpg.Connection,
                                                  factory: jms.ConnectionFactory) -> None:
    await text_queue(conn)
    connection = await factory.create_connection()
    session = connection.create_session()
    queue = session.get_queue("shop", "orders_q")
    producer = session.create_producer(queue)
    consumer = await session.create_consumer(queue)
    await connection.start()
    waiting = asyncio.create_task(consumer.receive())
    await until(lambda: conn.fetchval("SELECT EXISTS (SELECT 1 FROM aq.waiters)"),
                "the receive waiting on the queue")
    await connection.close()
    # a receive in progress returns None when its consumer closes (JMS 1.1 4.11)
    assert await asyncio.wait_for(waiting, 10) is None
    with pytest.raises(jms.IllegalStateException) as e:
        await consumer.receive_no_wait()
    assert e.value.error_code == "JMS-115"
    with pytest.raises(jms.IllegalStateException) as e:
        await producer.send(jms.TextMessage("x"))
    assert e.value.error_code == "JMS-138"
    with pytest.raises(jms.IllegalStateException) as e:
        session.create_text_message("x")
    assert e.value.error_code == "JMS-131"
    with pytest.raises(jms.IllegalStateException) as e:
        connection.create_session()
    assert e.value.error_code == "JMS-114"
    await connection.close()  # closing again does nothing
    # nothing left open in the database by the closed connection (a backend whose client
    # closed exits a moment later)
    await until(lambda: conn.fetchval("SELECT count(*) = 0 FROM pg_stat_activity WHERE "
                                      "datname = current_database() AND pid <> pg_backend_pid()"),
                "no backend of the closed connection left")


async def test_client_id_and_metadata(connection: jms.Connection,
                                      factory: jms.ConnectionFactory) -> None:
    connection.set_client_id("billing")
    assert connection.get_client_id() == "billing"
    with pytest.raises(jms.IllegalStateException):
        connection.set_client_id("other")
    meta = connection.get_meta_data()
    assert meta.jms_version == "1.1" and "JMSXDeliveryCount" in meta.get_jmsx_property_names()
    used = await factory.create_connection()
    try:
        used.create_session()
        with pytest.raises(jms.IllegalStateException) as e:
            used.set_client_id("late")
        assert e.value.error_code == "JMS-240"
    finally:
        await used.close()


async def test_wrong_body_type_enqueues_nothing(conn: asyncpg.Connection,
                                               connection: jms.Connection) -> None:
    await text_queue(conn)
    session = connection.create_session()
    producer = session.create_producer(session.get_queue("shop", "orders_q"))
    m = session.create_map_message()
    m.set_int("n", 1)
    with pytest.raises(jms.MessageFormatException) as e:
        await producer.send(m)
    assert e.value.error_code == "JMS-108"
    assert m.jms_message_id is None
    assert await conn.fetchval("SELECT count(*) FROM shop.orders_q_t") == 0


async def test_bad_selector_is_refused_when_the_consumer_is_created(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await text_queue(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "orders_q")
    for bad in ("country = ", "country IN ()", "price >>> 3", "a = 'x' AND"):
        with pytest.raises(jms.InvalidSelectorException):
            await session.create_consumer(queue, message_selector=bad)
    await make_queue(conn, "shop.events", "shop.events_t", "SYS.AQ$_JMS_TEXT_MESSAGE", multiple=True)
    topic = session.get_topic("shop", "events")
    with pytest.raises(jms.InvalidSelectorException):
        await session.create_durable_subscriber(topic, "BAD", message_selector="x = = 1")
    assert await conn.fetchval("SELECT count(*) FROM aq.subscribers") == 0
    with pytest.raises(jms.InvalidDestinationException):
        await session.create_consumer(session.get_queue("shop", "nowhere"))


async def test_selectors_as_jms_11_section_3_8(conn: asyncpg.Connection,
                                               connection: jms.Connection) -> None:
    await text_queue(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "orders_q")
    producer = session.create_producer(queue)
    rows = [("UK", 10, "red"), ("FR", 20, "blue"), ("UK", 30, None), ("DE", 40, "green")]
    for country, price, color in rows:
        m = session.create_text_message(f"{country}-{price}")
        m.set_string_property("country", country)
        m.set_int_property("price", price)
        if color is not None:
            m.set_string_property("color", color)
        await producer.send(m, priority=price // 10)
    await connection.start()

    async def texts(selector: str) -> list[str]:
        browser = session.create_browser(queue, message_selector=selector)
        return sorted([m.text async for m in browser])  # type: ignore[attr-defined]

    assert await texts("country = 'UK'") == ["UK-10", "UK-30"]
    assert await texts("price BETWEEN 15 AND 35") == ["FR-20", "UK-30"]
    assert await texts("color IN ('red', 'green')") == ["DE-40", "UK-10"]
    assert await texts("color IS NULL") == ["UK-30"]
    # an unknown value is neither equal nor unequal (3.8.1.2 three-valued logic)
    assert await texts("color <> 'red'") == ["DE-40", "FR-20"]
    assert await texts("NOT (color = 'red')") == ["DE-40", "FR-20"]
    assert await texts("country LIKE 'U_' AND price * 2 > 30") == ["UK-30"]
    assert await texts("JMSPriority >= 3") == ["DE-40", "UK-30"]
    # a consumer takes only what its selector matches, leaving the rest
    consumer = await session.create_consumer(queue, message_selector="country = 'UK' AND price > 15")
    got = await consumer.receive_no_wait()
    assert got is not None and got.text == "UK-30"  # type: ignore[attr-defined]
    assert await consumer.receive_no_wait() is None
    assert await conn.fetchval("SELECT count(*) FROM shop.orders_q_t") == 3


async def test_receive_by_message_id(conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await text_queue(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "orders_q")
    producer = session.create_producer(queue)
    sent = [session.create_text_message(t) for t in ("a", "b", "c")]
    for m in sent:
        await producer.send(m)
    await connection.start()
    consumer = await session.create_consumer(queue)
    got = await consumer.receive_by_message_id(sent[1].jms_message_id or "", 1.0)
    assert got is not None and got.text == "b"  # type: ignore[attr-defined]
    # and as a selector (Oracle JMS guide, "MessageSelector": JMSMessageID = 'ID:...')
    by_selector = await session.create_consumer(
        queue, message_selector=f"JMSMessageID = '{sent[2].jms_message_id}'")
    got = await by_selector.receive_no_wait()
    assert got is not None and got.text == "c"  # type: ignore[attr-defined]
    rest = await consumer.receive_no_wait()
    assert rest is not None and rest.text == "a"  # type: ignore[attr-defined]


async def test_browser_does_not_remove(conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await text_queue(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "orders_q")
    producer = session.create_producer(queue)
    for i in range(120):  # more than a browse batch
        m = session.create_text_message(str(i))
        m.set_int_property("i", i)
        await producer.send(m)
    seen = [m.text async for m in session.create_browser(queue)]  # type: ignore[attr-defined]
    assert seen == [str(i) for i in range(120)]
    odd = [m.get_int_property("i") async for m in session.create_browser(queue, "MOD(i, 2) = 1")] \
        if False else [m.get_int_property("i") async for m in session.create_browser(queue, "i >= 100")]
    assert odd == list(range(100, 120))
    assert await conn.fetchval("SELECT count(*) FROM shop.orders_q_t") == 120
    with pytest.raises(jms.InvalidSelectorException):
        async for _ in session.create_browser(queue, "i >= "):
            pass


async def test_durable_subscriber_and_unsubscribe(conn: asyncpg.Connection,
                                                  connection: jms.Connection) -> None:
    await make_queue(conn, "shop.events", "shop.events_t", "SYS.AQ$_JMS_TEXT_MESSAGE", multiple=True)
    session = connection.create_session()
    topic = session.get_topic("shop", "events")
    audit = await session.create_durable_subscriber(topic, "AUDIT", message_selector="level > 1")
    row = await conn.fetchrow("SELECT name, rule FROM aq.subscribers")
    assert row is not None and (row["name"], row["rule"]) == ("AUDIT", "level > 1")
    publisher = session.create_publisher(topic)
    for level in (1, 2, 3):
        m = session.create_text_message(f"L{level}")
        m.set_int_property("level", level)
        if level == 1:
            # no subscriber's rule takes it: AQ's ORA-24033, as Oracle JMS reports it
            with pytest.raises(jms.JMSException) as e:
                await publisher.publish(m)
            assert e.value.error_code == "ORA-24033"
            continue
        await publisher.publish(m)
    await audit.close()
    # the subscription keeps its messages while no consumer is open
    m = session.create_text_message("L5")
    m.set_int_property("level", 5)
    await publisher.publish(m)
    await connection.start()
    again = await session.create_durable_subscriber(topic, "AUDIT", message_selector="level > 1")
    got = [await again.receive(1.0) for _ in range(3)]
    assert [g.text for g in got if g is not None] == ["L2", "L3", "L5"]  # type: ignore[attr-defined]
    assert await again.receive_no_wait() is None
    # an active subscription cannot be removed
    with pytest.raises(jms.IllegalStateException) as e:
        await session.unsubscribe("AUDIT")
    assert e.value.error_code == "JMS-230"
    await again.close()
    # a new selector alters the subscription (Oracle JMS guide: DBMS_AQJMS.ALTER_SUBSCRIBER)
    changed = await session.create_durable_subscriber(topic, "AUDIT", message_selector="level > 4")
    assert await conn.fetchval("SELECT rule FROM aq.subscribers") == "level > 4"
    await changed.close()
    other = connection.create_session()  # another session finds the topic by the name
    await other.unsubscribe("AUDIT")
    assert await conn.fetchval("SELECT count(*) FROM aq.subscribers") == 0
    with pytest.raises(jms.InvalidDestinationException):
        await other.unsubscribe("AUDIT")


async def test_non_durable_subscriber_is_a_temporary_aq_subscriber(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await make_queue(conn, "shop.events", "shop.events_t", "SYS.AQ$_JMS_TEXT_MESSAGE", multiple=True)
    session = connection.create_session()
    topic = session.get_topic("shop", "events")
    publisher = session.create_publisher(topic)
    with pytest.raises(jms.JMSException) as e:  # nobody subscribed yet
        await publisher.publish(session.create_text_message("before"))
    assert e.value.error_code == "ORA-24033"
    sub = await session.create_subscriber(topic)
    sub2 = await session.create_consumer(topic, message_selector="JMSType = 'x'")
    assert await conn.fetchval("SELECT count(*) FROM aq.subscribers") == 2
    m = session.create_text_message("after")
    m.jms_type = "x"
    await publisher.publish(m)
    await connection.start()
    got = await sub.receive(1.0)
    assert got is not None and got.text == "after"  # type: ignore[attr-defined]
    assert await sub.receive_no_wait() is None
    got2 = await sub2.receive(1.0)
    assert got2 is not None and got2.text == "after"  # type: ignore[attr-defined]
    await sub.close()
    await sub2.close()
    assert await conn.fetchval("SELECT count(*) FROM aq.subscribers") == 0
    with pytest.raises(jms.InvalidDestinationException):  # a Topic must be multi-consumer
        await text_queue(conn)
        await session.create_subscriber(session.get_topic("shop", "orders_q"))


async def test_no_local_skips_the_connections_own_publications(
        conn: asyncpg.Connection, factory: jms.ConnectionFactory, connection: jms.Connection) -> None:
    await make_queue(conn, "shop.events", "shop.events_t", "SYS.AQ$_JMS_TEXT_MESSAGE", multiple=True)
    session = connection.create_session()
    topic = session.get_topic("shop", "events")
    mine = await session.create_subscriber(topic, no_local=True)
    await session.create_publisher(topic).publish(session.create_text_message("own"))
    other_conn = await factory.create_connection()
    try:
        other = other_conn.create_session()
        await other.create_publisher(topic).publish(other.create_text_message("theirs"))
    finally:
        await other_conn.close()
    await connection.start()
    got = await mine.receive(1.0)
    assert got is not None and got.text == "theirs"  # type: ignore[attr-defined]
    assert await mine.receive_no_wait() is None


async def test_recipient_list_and_topic_receiver(conn: asyncpg.Connection,
                                                 connection: jms.Connection) -> None:
    await make_queue(conn, "shop.events", "shop.events_t", "SYS.AQ$_JMS_TEXT_MESSAGE", multiple=True)
    await subscribe(conn, "shop.events", "EVERYONE")
    session = connection.create_session()
    topic = session.get_topic("shop", "events")
    await session.create_publisher(topic).publish(
        session.create_text_message("for bob"), recipient_list=[jms.AQjmsAgent("BOB")])
    await connection.start()
    everyone = await session.create_topic_receiver(topic, "EVERYONE")
    assert await everyone.receive_no_wait() is None  # the list overrides the subscribers
    bob = await session.create_topic_receiver(topic, "BOB")
    got = await bob.receive(1.0)
    assert got is not None and got.text == "for bob"  # type: ignore[attr-defined]


async def test_non_persistent_is_buffered(conn: asyncpg.Connection,
                                          connection: jms.Connection) -> None:
    await text_queue(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "orders_q")
    producer = session.create_producer(queue)
    producer.set_delivery_mode(jms.NON_PERSISTENT)
    m = session.create_text_message("fleeting")
    await producer.send(m)
    assert m.jms_message_id is not None and m.jms_delivery_mode == jms.NON_PERSISTENT
    assert await conn.fetchval("SELECT count(*) FROM shop.orders_q_t") == 0  # not logged
    await producer.send(session.create_text_message("kept"), delivery_mode=jms.PERSISTENT)
    await connection.start()
    consumer = await session.create_consumer(queue)
    first = await consumer.receive(1.0)
    second = await consumer.receive(1.0)
    assert first is not None and second is not None
    assert {(first.text, first.jms_delivery_mode), (second.text, second.jms_delivery_mode)} == {  # type: ignore[attr-defined]
        ("fleeting", jms.NON_PERSISTENT), ("kept", jms.PERSISTENT)}


async def test_delay_and_time_to_live(conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await text_queue(conn)
    session = connection.create_session()
    queue = session.get_queue("shop", "orders_q")
    producer = session.create_producer(queue)
    delayed = session.create_text_message("later")
    delayed.set_int_property("JMS_OracleDelay", 3600)
    await producer.send(delayed)
    await producer.send(session.create_text_message("now"), time_to_live=3600.0)
    await connection.start()
    consumer = await session.create_consumer(queue)
    got = await consumer.receive(1.0)
    assert got is not None and got.text == "now"  # type: ignore[attr-defined]
    assert got.jms_expiration == got.jms_timestamp + 3_600_000
    assert await consumer.receive_no_wait() is None  # the delayed one is WAITING
    state = await conn.fetchval("SELECT msg_state FROM shop.aq$orders_q_t")
    assert state == "WAIT"  # AQ$ view: Oracle's READY, WAIT, PROCESSED, EXPIRED
    # receiving by message id overrides the delay (Oracle JMS guide, "Specifying a Message Delay")
    got = await consumer.receive_by_message_id(delayed.jms_message_id or "", 1.0)
    assert isinstance(got, jms.TextMessage) and got.text == "later"


async def test_reply_to_and_correlation_round_trip(conn: asyncpg.Connection,
                                                   connection: jms.Connection) -> None:
    await text_queue(conn)
    await text_queue(conn, "shop.replies_q")
    session = connection.create_session()
    queue = session.get_queue("shop", "orders_q")
    replies = session.get_queue("shop", "replies_q")
    request = session.create_text_message("ping")
    request.jms_reply_to = replies
    await session.create_producer(queue).send(request)
    await connection.start()
    got = await (await session.create_consumer(queue)).receive(1.0)
    assert got is not None and got.jms_reply_to == replies
    reply = session.create_text_message("pong")
    reply.jms_correlation_id = got.jms_message_id
    producer = session.create_producer(None)
    await producer.send(got.jms_reply_to, reply)
    answer = await (await session.create_consumer(
        replies, message_selector=f"JMSCorrelationID = '{request.jms_message_id}'")).receive(1.0)
    assert answer is not None and answer.text == "pong"  # type: ignore[attr-defined]


async def test_oracle_admin_extensions_and_db_connection(conn: asyncpg.Connection,
                                                         connection: jms.Connection) -> None:
    await conn.execute("CREATE SCHEMA shop")
    session = connection.create_session(True)
    table = await session.create_queue_table("shop", "qt", "SYS.AQ$_JMS_TEXT_MESSAGE")
    assert (await session.get_queue_table("shop", "qt")) == table
    with pytest.raises(jms.JMSException):
        await session.get_queue_table("shop", "nope")
    queue = await session.create_queue(table, "orders_q", max_retries=2)
    ttable = await session.create_queue_table("shop", "tt", "SYS.AQ$_JMS_TEXT_MESSAGE",
                                              multiple_consumers=True)
    topic = await session.create_topic(ttable, "events")
    assert await conn.fetchval(
        "SELECT max_retries FROM aq.queue_info WHERE queue_name = 'orders_q'") == 2
    assert await conn.fetchval(
        "SELECT multiple_consumers FROM aq.queue_info WHERE queue_name = 'events'") is True
    await session.alter_destination(queue, max_retries=3)
    assert await conn.fetchval(
        "SELECT max_retries FROM aq.queue_info WHERE queue_name = 'orders_q'") == 3
    # the session's own connection: your SQL in the same transaction as the send
    await conn.execute("CREATE TABLE shop.audit (note text)")
    db = await session.get_db_connection()
    await db.execute("INSERT INTO shop.audit VALUES ('sent')")
    await session.create_producer(queue).send(session.create_text_message("x"))
    assert await conn.fetchval("SELECT count(*) FROM shop.audit") == 0
    assert await conn.fetchval("SELECT count(*) FROM shop.qt") == 0
    await session.commit()
    assert await conn.fetchval("SELECT count(*) FROM shop.audit") == 1
    assert await conn.fetchval("SELECT count(*) FROM shop.qt") == 1
    await session.stop_destination(topic)
    assert await conn.fetchval(
        "SELECT enqueue_enabled FROM aq.queue_info WHERE queue_name = 'events'") is False
    await session.drop_destination(topic)
    assert await conn.fetchval("SELECT count(*) FROM aq.queue_info WHERE queue_name = 'events'") == 0


async def test_a_killed_session_connection_is_reported_and_replaced(
        conn: asyncpg.Connection, connection: jms.Connection) -> None:
    await text_queue(conn)
    told: asyncio.Future[jms.JMSException] = asyncio.get_running_loop().create_future()
    connection.set_exception_listener(lambda e: None if told.done() else told.set_result(e))
    session = connection.create_session()
    producer = session.create_producer(session.get_queue("shop", "orders_q"))
    await producer.send(session.create_text_message("one"))
    await conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")
    # Whether the pooled connection is known dead when the next send takes it depends on
    # when the client reads the server's goodbye: a send on it fails with JMS-220, and one
    # on a connection the pool has already replaced succeeds. Either way nothing is lost
    # or stored twice, and the listener hears of the outage once.
    try:
        await producer.send(session.create_text_message("maybe"))
        stored = 1
    except jms.JMSException as e:
        assert e.error_code == "JMS-220"
        stored = 0
    assert (await asyncio.wait_for(told, 10)).error_code == "JMS-220"
    await producer.send(session.create_text_message("two"))  # a new connection from the pool
    assert await conn.fetchval("SELECT count(*) FROM shop.orders_q_t") == 2 + stored


async def test_user_and_password(conn: asyncpg.Connection, db_dsn: str) -> None:
    await text_queue(conn)
    await conn.execute("CREATE ROLE jmsuser LOGIN PASSWORD 'pw'")
    await conn.execute("GRANT USAGE ON SCHEMA shop TO jmsuser")
    await conn.execute("CALL dbms_aqadm.grant_queue_privilege('ALL', 'shop.orders_q', 'jmsuser')")
    factory = jms.ConnectionFactory(db_dsn, safety_poll=30.0)  # (the test cluster trusts logins)
    with pytest.raises(jms.JMSSecurityException):
        await factory.create_connection("nosuchuser", "pw")
    c = await factory.create_connection("jmsuser", "pw")
    try:
        s = c.create_session()
        m = s.create_text_message("as jmsuser")
        await s.create_producer(s.get_queue("shop", "orders_q")).send(m)
        await c.start()
        got = await (await s.create_consumer(s.get_queue("shop", "orders_q"))).receive(1.0)
        assert got is not None and got.get_string_property("JMSXUserID") == "jmsuser"
    finally:
        await c.close()


async def test_one_listening_connection_serves_every_wait(conn: asyncpg.Connection,
                                                          connection: jms.Connection) -> None:
    from pgaq import waiting

    for name in ("a_q", "b_q", "c_q"):
        await text_queue(conn, f"shop.{name}")
    await connection.start()
    sessions = [connection.create_session() for _ in range(3)]
    queues = [s.get_queue("shop", n) for s, n in zip(sessions, ("a_q", "b_q", "c_q"), strict=True)]
    got: asyncio.Queue[str] = asyncio.Queue()
    for s, q in zip(sessions[:2], queues[:2], strict=True):
        (await s.create_consumer(q)).set_message_listener(
            lambda m: got.put_nowait(m.text))  # type: ignore[attr-defined]
    waits = [asyncio.create_task((await sessions[2].create_consumer(queues[2])).receive(10.0))]
    await until(lambda: conn.fetchval("SELECT count(*) = 3 FROM aq.waiters"),
                "every waiter registered (the three queues)")
    assert await conn.fetchval("SELECT count(DISTINCT pid) FROM aq.waiters") == 1
    assert waiting.listening() == []  # not the process's shared one: the Connection's own
    sender = connection.create_session()
    for q in queues:
        await sender.create_producer(q).send(sender.create_text_message(q.name))
    assert sorted([await asyncio.wait_for(got.get(), 10) for _ in range(2)]) == ["a_q", "b_q"]
    last = await asyncio.wait_for(waits[0], 10)
    assert last is not None and last.text == "c_q"  # type: ignore[attr-defined]


async def test_seed_java_flow_ported_line_for_line(conn: asyncpg.Connection,
                                                   connection: jms.Connection) -> None:
    """The Oracle JMS guide's JMS snippet ("JMS Streaming with Enqueue" / "... with Dequeue")
    (its AQjmsBytesMessage send and AQjmsConsumer receive, the stream set by setInputStream
    there written with write_bytes here), one Python line per Java line."""
    await make_queue(conn, "shop.queueName", "shop.queueName_t", "SYS.AQ$_JMS_BYTES_MESSAGE")
    data = bytes(range(256)) * 4
    # Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
    session = connection.create_session(False, jms.CLIENT_ACKNOWLEDGE)
    # Destination destination = session.createQueue("queueName");
    destination = await session.create_queue("shop.queueName")
    # MessageProducer producer = session.createProducer(destination);
    producer = session.create_producer(destination)
    # AQjmsBytesMessage bytesMessage = (AQjmsBytesMessage)session.createBytesMessage();
    bytes_message = session.create_bytes_message()
    # bytesMessage.setInputStream(input);
    bytes_message.write_bytes(data)
    # producer.send(bytesMessage);
    await producer.send(bytes_message)
    # AQjmsConsumer consumer = (AQjmsConsumer) session.createConsumer(destination);
    consumer = await session.create_consumer(destination)
    await connection.start()
    # Message message = consumer.receive(10000);
    message = await consumer.receive(10.0)
    assert isinstance(message, jms.BytesMessage)
    buffer = bytearray(message.get_body_length())
    assert message.read_bytes(buffer) == len(data) and bytes(buffer) == data
    await message.acknowledge()
    assert await conn.fetchval("SELECT count(*) FROM shop.queueName_t") == 0
    with pytest.raises(jms.InvalidDestinationException):
        await session.create_queue("shop.nothere")


async def test_a_session_beyond_the_pool_gets_resource_allocation_exception(
        conn: asyncpg.Connection, db_dsn: str) -> None:
    await text_queue(conn)
    factory = jms.ConnectionFactory(db_dsn, max_pool_size=1, acquire_timeout=0.2)
    connection = await factory.create_connection()
    try:
        first = connection.create_session(True)
        queue = first.get_queue("shop", "orders_q")
        # an open transaction holds the pool's one connection
        await first.create_producer(queue).send(first.create_text_message("holds the pool"))
        second = connection.create_session()
        with pytest.raises(jms.ResourceAllocationException) as e:
            await second.create_producer(queue).send(second.create_text_message("none left"))
        assert e.value.error_code == "JMS-221"
        await first.commit()  # it holds nothing now: the second session may go on
        await second.create_producer(queue).send(second.create_text_message("now"))
        assert await conn.fetchval("SELECT count(*) FROM shop.orders_q_t") == 2
    finally:
        await connection.close()
