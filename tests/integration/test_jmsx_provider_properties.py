"""JMSXUserID and JMSXAppID are set by the provider (issue 21, section 2).

Oracle Database Advanced Queuing User's Guide, "Introduction to Oracle Java Message Service",
"JMS Message Properties": "JMSXUserID: This field is the identity of the user sending the
message. It is a String type set by JMS after the Send method has completed." "JMSXAppID: This
field is the identity of the application sending the message. It is a String type set by JMS
after the Send method has completed." and, under "Using Message Properties with Different
Message Types": "the client can set: JMSXAppID, JMSXGroupID, JMSXGroupSeq, JMS_OracleExcpQ,
JMS_OracleDelay" while JMSXuserID is only among those the client "can get".

So: JMSXUserID is always the enqueuing database user (a value the client sent is
replaced); JMSXAppID keeps a value the client sent and is otherwise the sender's name, the
IDAP agent, or the session's application_name (docs/errors.md and docs/gateway.md say so).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from pgaq import Agent, DequeueOptions, MessageProperties, Session

from .gateway_support import Client, drop_roles, envelope, make_agent, op, running_gateway
from .helpers import make_queue, obj
from .test_propagation import Start, start_propagator  # noqa: F401  (the fixture)

HEADER = "SELECT (user_data).header.userid, (user_data).header.appid FROM j.jt ORDER BY enq_seq"


def text(userid: str | None = None, appid: str | None = None) -> dict[str, Any]:
    return {"header": {"type": None, "userid": userid, "appid": appid, "groupid": None,
                       "groupseq": None, "properties": {}, "replyto": None},
            "text_len": 2, "text_vc": "hi"}


@pytest.fixture
async def sender(conn: asyncpg.Connection, db_dsn: str) -> AsyncIterator[tuple[str, asyncpg.Connection]]:
    """j.q (JMS text) and a login role allowed to enqueue to it, connected with an
    application_name."""
    await make_queue(conn, "j.q", "j.jt", "SYS.AQ$_JMS_TEXT_MESSAGE")
    role = f"jms_{uuid.uuid4().hex[:8]}"
    await conn.execute(f'CREATE ROLE "{role}" LOGIN')
    await conn.execute("CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 'j.q', $1)", role)
    c = await asyncpg.connect(db_dsn, user=role, server_settings={"application_name": "billing"})
    try:
        yield role, c
    finally:
        await c.close()
        await drop_roles(conn, [role])


async def test_sql_enqueue_sets_both(conn: asyncpg.Connection, sender: tuple[str, asyncpg.Connection]) -> None:
    """A dbms_aq.enqueue that sends neither: JMSXUserID is the enqueuing user, JMSXAppID the
    session's application (application_name)."""
    role, c = sender
    await c.execute("""
        CALL dbms_aq.enqueue('j.q', payload => ROW(ROW(NULL, NULL, NULL, NULL, NULL, NULL, '{}')::sys.aq$_jms_header,
                                                   2, 'hi')::sys.aq$_jms_text_message, msgid => NULL)""")
    row = await conn.fetchrow(HEADER)
    assert tuple(row) == (role, "billing")
    # the same user the queue table records (AQ$<table>.ENQ_USER_ID)
    assert await conn.fetchval("SELECT enq_user_id FROM j.aq$jt") == role


async def test_an_immediate_sql_enqueue_sets_the_callers(
        conn: asyncpg.Connection, sender: tuple[str, asyncpg.Connection]) -> None:
    """IMMEDIATE visibility enqueues in an autonomous session (R__81) that acts for the
    caller: JMSXUserID is the caller's user and JMSXAppID the caller's application_name, not
    the autonomous session's (tests/java/test_java_interop.py met this with a
    NON_PERSISTENT message enqueued from SQL)."""
    role, c = sender
    await c.execute("""
        CALL dbms_aq.enqueue('j.q', dbms_aq.enqueue_options(visibility => dbms_aq.immediate()),
                             payload => ROW(ROW(NULL, NULL, NULL, NULL, NULL, NULL, '{}')::sys.aq$_jms_header,
                                            2, 'hi')::sys.aq$_jms_text_message, msgid => NULL)""")
    assert tuple(await conn.fetchrow(HEADER)) == (role, "billing")


async def test_a_client_userid_is_replaced_its_appid_kept(
        conn: asyncpg.Connection, sender: tuple[str, asyncpg.Connection]) -> None:
    """JMSXUserID is the provider's to set: a client that claims another user gets its own;
    JMSXAppID is one the client may set, so its value stays."""
    role, c = sender
    await c.execute("""
        CALL dbms_aq.enqueue('j.q', payload => ROW(ROW(NULL, NULL, 'mallory', 'my-app', NULL, NULL, '{}')::sys.aq$_jms_header,
                                                   2, 'hi')::sys.aq$_jms_text_message, msgid => NULL)""")
    assert tuple(await conn.fetchrow(HEADER)) == (role, "my-app")


async def test_the_library_sets_both_and_the_sender_names_the_application(
        conn: asyncpg.Connection, sender: tuple[str, asyncpg.Connection]) -> None:
    """Through the library (its generated enqueue functions): the same; a sender_id names
    the application when the client sent no JMSXAppID."""
    role, c = sender
    s = Session(c)
    await s.enqueue("j.q", text(userid="mallory"), MessageProperties(sender_id=Agent("SHOP")))
    await s.enqueue("j.q", text())
    await s.enqueue_array("j.q", [(text(appid="batch-app"), None), (text(), None)])
    rows = [tuple(r) for r in await conn.fetch(HEADER)]
    assert rows == [(role, "SHOP"), (role, "billing"), (role, "batch-app"), (role, "billing")]


async def test_a_selector_reads_the_provider_values(
        conn: asyncpg.Connection, sender: tuple[str, asyncpg.Connection]) -> None:
    """Oracle JMS guide, "JMS Message Properties": properties "allow a client, using a
    messageSelector, to have a JMS provider select messages on its behalf": JMSXUserID selects
    the sending user's messages."""
    role, c = sender
    await Session(c).enqueue("j.q", text(userid="mallory"))
    s = Session(conn)
    assert await s.dequeue("j.q", DequeueOptions(condition="JMSXUserID = 'mallory'")) == []
    [m] = await s.dequeue("j.q", DequeueOptions(condition=f"JMSXUserID = '{role}' AND JMSXAppID = 'billing'"))
    assert obj(m.payload)["header"]["userid"] == role


async def test_idap_send_sets_both(conn: asyncpg.Connection, db_dsn: str) -> None:
    """Over IDAP the enqueuing user is the agent's database user (a <userid> sent is
    replaced); the application is the <appid> sent, else the sender's name, else the IDAP
    agent; AQXmlReceive returns both in <oracle_jms_properties>."""
    roles = await make_agent(conn)
    try:
        await conn.execute(f'CREATE SCHEMA aquser AUTHORIZATION "{roles[0]}"')
        await make_queue(conn, "aquser.jms_textq", "aquser.jms_qt", "SYS.AQ$_JMS_TEXT_MESSAGE")
        await conn.execute(f'ALTER TABLE aquser.jms_qt OWNER TO "{roles[0]}"')
        async with running_gateway(db_dsn, session_timeout=2.0, max_wait=10.0) as url:
            c = Client(url, "JOHN", "secret")
            try:
                for sender, props in (("<address>aquser.replies</address>", "<userid>mallory</userid>"),
                                      ("<agent_name>scott</agent_name>", ""),
                                      ("<agent_name>scott</agent_name>", "<appid>ledger</appid>")):
                    r = await c.post(envelope(op("AQXmlSend",
                        "<producer_options><destination>AQUSER.JMS_TEXTQ</destination></producer_options>"
                        f"<message_set><message><message_header><sender_id>{sender}</sender_id></message_header>"
                        "<message_payload><jms_text_message>"
                        f"<oracle_jms_properties>{props}</oracle_jms_properties><text_data>hi</text_data>"
                        "</jms_text_message></message_payload></message></message_set><AQXmlCommit/>")))
                    assert r.status == 200, r.text("//*[local-name()='error_message']")
                users, apps = [], []
                for _ in range(3):
                    r = await c.post(envelope(op("AQXmlReceive",
                        "<consumer_options><destination>AQUSER.JMS_TEXTQ</destination><wait_time>0</wait_time>"
                        "</consumer_options><AQXmlCommit/>")))
                    assert r.status == 200, r.body
                    users += r.text("//aq:oracle_jms_properties/aq:userid")
                    apps += r.text("//aq:oracle_jms_properties/aq:appid")
                assert users == [roles[0]] * 3
                assert apps == ["JOHN", "scott", "ledger"]
            finally:
                await c.close()
    finally:
        await drop_roles(conn, roles)


async def test_a_propagated_message_keeps_its_senders_userid(
        conn: asyncpg.Connection, sender: tuple[str, asyncpg.Connection],
        start_propagator: Start) -> None:  # noqa: F811
    """The propagator is not the sender: the destination keeps the JMSXUserID (and
    JMSXAppID) the source's provider set (Oracle JMS guide: JMS_OracleOriginalMessageId "is set to
    the message identifier of the message in the source if the message is propagated")."""
    role, c = sender
    await make_queue(conn, "j.out_q", "j.out_t", "SYS.AQ$_JMS_TEXT_MESSAGE", multiple=True)
    await conn.execute("CALL dbms_aqadm.add_subscriber('j.out_q', sys.aq$_agent(NULL, 'j.q', 0))")
    await conn.execute("CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 'j.out_q', $1)", role)
    await conn.execute("CALL dbms_aqadm.schedule_propagation('j.out_q', destination_queue => 'j.q', latency => 0)")
    running = await start_propagator()
    await Session(c).enqueue("j.out_q", text(userid="mallory"))
    await running.moved(1)
    assert tuple(await conn.fetchrow(HEADER)) == (role, "billing")
    # while the destination's own record names who enqueued there: the propagator
    assert await conn.fetchval("SELECT enq_user_id FROM j.aq$jt") != role
