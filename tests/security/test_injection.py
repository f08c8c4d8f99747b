"""SQL injection corpora against every string that reaches the database, through the SQL
procedures and through IDAP. Each hostile string is either refused with an ORA code (or,
for NUL, PostgreSQL's own encoding error: text cannot hold it) or kept as data; the
canary table survives with its row, and no relation, function or role appears or
disappears. The IDAP correlation, consumer, destination and condition cases live in
tests/integration/test_gateway_bad_input.py; agent names in test_auth_bypass.py."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import asyncpg
from pgaq import Agent, DequeueOptions, MessageProperties, Session
from pgaq.errors import PgaqError

from tests.integration.gateway_support import envelope, op

from .support import Site, basic, catalog_snapshot

CORPUS = [
    "'",
    "''",
    '"',
    "x'; DROP TABLE public.canary; --",
    'x"; DROP TABLE public.canary; --',
    "x); DROP TABLE public.canary; --",
    "1; DROP TABLE public.canary",
    "x' OR '1'='1",
    "x') OR ('1'='1",
    "/* comment */ x",
    "x -- comment",
    "$$; DROP TABLE public.canary; $$",
    "$q$ || (SELECT 1) || $q$",
    "\\'; DROP TABLE public.canary; --",
    "\\\\'; DROP TABLE public.canary; --",
    "x\u2019; DROP TABLE public.canary; --",  # right single quotation mark
    "x\u02bc OR 1=1",  # modifier letter apostrophe
    "x\uff07; DROP TABLE public.canary; --",  # fullwidth apostrophe
    "x\x00'; DROP TABLE public.canary; --",
    "E'\\x27'",
    "U&'\\0027'",
    "%I%L%s",
    "public.canary",
    "pg_catalog.pg_sleep(5)",
    "(SELECT pg_sleep(5))",
    "x;\nDROP TABLE public.canary",
    "a" * 5000,
]

Call = Callable[[str], Awaitable[Any]]


def refused_properly(exc: BaseException) -> bool:
    text = str(exc)
    if re.search(r"ORA-\d{5}", text):
        return True
    if isinstance(exc, PgaqError) and exc.code is not None:
        return True
    # NUL: PostgreSQL text cannot hold it, refused before anything runs
    if isinstance(exc, asyncpg.PostgresError) and exc.sqlstate in ("22021", "22P05"):
        return True
    return "0x00" in text


async def run_corpus(conn: asyncpg.Connection, calls: dict[str, Call],
                     stored: Callable[[str, str], Awaitable[bool]] | None = None) -> None:
    """Each call with each string: refused with a code, or (when `stored` says how to
    check) kept as the very string. Afterwards the database holds the same objects."""
    before = await catalog_snapshot(conn)
    bad: list[tuple[str, str, str]] = []
    for label, call in calls.items():
        for value in CORPUS:
            try:
                await call(value)
            except (asyncpg.PostgresError, PgaqError) as exc:
                if not refused_properly(exc):
                    bad.append((label, value[:40], f"uncoded: {exc!r}"[:200]))
                continue
            if stored is None or not await stored(label, value):
                bad.append((label, value[:40], "accepted and not kept as data"))
    assert bad == [], "\n".join(map(str, bad))
    after = await catalog_snapshot(conn)
    assert after[3] == ["alive"]
    assert after == before


async def test_names_in_admin_procedures(conn: asyncpg.Connection, site: Site) -> None:
    await conn.execute("SET statement_timeout = '3s'")
    ex = conn.execute
    role = site.role_a
    calls: dict[str, Call] = {
        "queue table name": lambda v: ex("CALL dbms_aqadm.create_queue_table($1, 'RAW')", v),
        "queue table schema": lambda v: ex("CALL dbms_aqadm.create_queue_table($1, 'RAW')", v + ".t"),
        "payload type": lambda v: ex("CALL dbms_aqadm.create_queue_table('a.x_qt', $1)", v),
        "queue name": lambda v: ex("CALL dbms_aqadm.create_queue($1, 'a.qt')", v),
        "queue's table": lambda v: ex("CALL dbms_aqadm.create_queue('a.x', $1)", v),
        "start queue": lambda v: ex("CALL dbms_aqadm.start_queue($1)", v),
        "drop queue": lambda v: ex("CALL dbms_aqadm.drop_queue($1)", v),
        "drop queue table": lambda v: ex("CALL dbms_aqadm.drop_queue_table($1)", v),
        "privilege": lambda v: ex("CALL dbms_aqadm.grant_queue_privilege($1, 'a.q', $2)", v, role),
        "grantee": lambda v: ex("CALL dbms_aqadm.grant_queue_privilege('ENQUEUE', 'a.q', $1)", v),
        "system privilege": lambda v: ex("CALL dbms_aqadm.grant_system_privilege($1, $2)", v, role),
        "db user": lambda v: ex("CALL dbms_aqadm.enable_db_access('ALICE', $1)", v),
        "agent to map": lambda v: ex("CALL dbms_aqadm.enable_db_access($1, $2)", v, role),
        "exception queue": lambda v: ex("CALL dbms_aqadm.create_queue('a.x', 'a.qt', queue_type => $1)", v),
        "link name": lambda v: ex("CALL aq.create_database_link($1, 'postgresql://127.0.0.1/x')", v),
        "link url": lambda v: ex("CALL aq.create_database_link('l1', $1)", v),
        "drop link": lambda v: ex("CALL aq.drop_database_link($1)", v),
        "schedule queue": lambda v: ex("CALL dbms_aqadm.schedule_propagation($1)", v),
        "schedule destination": lambda v: ex(
            "CALL dbms_aqadm.schedule_propagation('a.q', destination => $1)", v),
        "next_time": lambda v: ex(
            "CALL dbms_aqadm.schedule_propagation('a.q', destination_queue => 'b.q', next_time => $1)", v),
        "transformation": lambda v: ex("CALL dbms_aqadm.drop_queue('a.q' || $1)", v),
    }
    async def kept(label: str, v: str) -> bool:
        """A payload type naming an existing row type, or a link name that is a valid
        name, is legitimate: made as asked (and removed again)."""
        if label == "payload type" and v == "public.canary":
            await ex("CALL dbms_aqadm.drop_queue_table('a.x_qt')")
            return True
        if label == "link name":
            ok = await conn.fetchval("SELECT count(*) = 1 FROM aq.db_links WHERE name = lower($1)", v)
            await ex("CALL aq.drop_database_link($1)", v)
            return bool(ok)
        return False

    await run_corpus(conn, calls, kept)


async def test_agent_names_and_aliases(conn: asyncpg.Connection, site: Site) -> None:
    """Agent names and aliases may be accepted as quoted names: then they are data in
    aq.agents / aq.directory, read back exactly, and dropped again."""
    ex = conn.execute

    async def agent(v: str) -> None:
        await ex("CALL dbms_aqadm.create_aq_agent($1, enable_http => true, password => $1)", v)

    async def alias(v: str) -> None:
        await ex("CALL dbms_aqadm.add_alias_to_ldap($1, 'a.q')", v)

    async def kept(label: str, v: str) -> bool:
        if label == "agent":
            name = await conn.fetchval("SELECT aq.agent_name($1)", v)
            ok = bool(await conn.fetchval("SELECT count(*) = 1 FROM aq.agents WHERE name = $1", name))
            await ex("CALL dbms_aqadm.drop_aq_agent($1)", v)
            return ok
        ok = bool(await conn.fetchval("SELECT count(*) = 1 FROM aq.directory WHERE alias = $1", v))
        await ex("CALL dbms_aqadm.del_alias_from_ldap($1)", v)
        return ok

    await run_corpus(conn, {"agent": agent, "alias": alias}, kept)


async def test_message_data_and_selectors(conn: asyncpg.Connection, site: Site) -> None:
    """Correlation ids and sender names are data: enqueued, stored and selected exactly.
    Consumer names, conditions and rules are parsed: refused with a code, or harmless."""
    await conn.execute("""
        CALL dbms_aqadm.create_queue_table('a.tqt', 'RAW', multiple_consumers => true);
        CALL dbms_aqadm.create_queue('a.topic', 'a.tqt');
        CALL dbms_aqadm.start_queue('a.topic');
        CALL dbms_aqadm.add_subscriber('a.topic', sys.aq$_agent('APP1', NULL, NULL));
    """)
    s = Session(conn)

    async def correlation(v: str) -> None:
        await s.enqueue("a.q", b"c", MessageProperties(correlation=v))

    async def corr_back(_label: str, v: str) -> bool:
        got = await s.dequeue("a.q", DequeueOptions(correlation=v, visibility="IMMEDIATE"))
        return [m.correlation for m in got] == [v]

    await run_corpus(conn, {"correlation": correlation}, corr_back)
    await s.enqueue("a.topic", b"t", MessageProperties(correlation="keep"))
    ex = conn.execute

    async def harmless(label: str, v: str) -> bool:
        if label == "rule":  # a rule the parser accepted is stored as written
            ok = await conn.fetchval("SELECT count(*) = 1 FROM aq.subscribers WHERE rule = $1", v)
            await ex("CALL dbms_aqadm.remove_subscriber('a.topic', sys.aq$_agent('R1', NULL, NULL))")
            return bool(ok)
        return True  # a dequeue that ran selected nothing (checked below: APP1's message stays)

    calls: dict[str, Call] = {
        "consumer": lambda v: s.dequeue("a.topic", DequeueOptions(consumer_name=v, visibility="IMMEDIATE",
                                                                   dequeue_mode="BROWSE")),
        "condition": lambda v: s.dequeue("a.topic", DequeueOptions(consumer_name="APP1", condition=v,
                                                                    dequeue_mode="BROWSE",
                                                                    visibility="IMMEDIATE")),
        "subscriber": lambda v: ex("CALL dbms_aqadm.add_subscriber('a.topic', sys.aq$_agent($1, NULL, NULL))", v),
        "rule": lambda v: ex("CALL dbms_aqadm.add_subscriber('a.topic', sys.aq$_agent('R1', NULL, NULL),"
                             " rule => $1)", v),
        "sender": lambda v: s.enqueue("a.q", b"s", MessageProperties(sender_id=Agent(v, None, 0))),
    }
    await run_corpus(conn, calls, harmless)
    got = await s.dequeue("a.topic", DequeueOptions(consumer_name="APP1", visibility="IMMEDIATE"))
    assert [m.payload for m in got] == [b"t"]


async def test_notification_urls_and_hosts(conn: asyncpg.Connection, site: Site) -> None:
    await conn.execute("""
        CALL dbms_aqadm.create_queue_table('a.tqt', 'RAW', multiple_consumers => true);
        CALL dbms_aqadm.create_queue('a.topic', 'a.tqt');
        CALL dbms_aqadm.start_queue('a.topic');
        CALL dbms_aqadm.add_subscriber('a.topic', sys.aq$_agent('APP1', NULL, NULL));
        CALL aq.allow_notification_host('hooks.example.com');
    """)
    ex = conn.execute

    async def kept(label: str, v: str) -> bool:
        if label == "host pattern":
            ok = await conn.fetchval("SELECT count(*) = 1 FROM aq.notification_hosts WHERE pattern = lower($1)"
                                     " OR pattern = $1", v)
            await ex("CALL aq.remove_notification_host($1)", v)
            return bool(ok)
        ok = await conn.fetchval("SELECT count(*) >= 1 FROM aq.registrations WHERE strpos(notify_url, $1) > 0"
                                 " OR strpos(consumer_name, upper($1)) > 0 OR strpos(consumer_name, $1) > 0", v)
        await ex("DELETE FROM aq.registrations")
        return bool(ok)

    calls: dict[str, Call] = {
        "url path": lambda v: conn.fetchval("SELECT aq.register('a.topic', 'APP1', $1)",
                                            "http://hooks.example.com/" + v),
        "url": lambda v: conn.fetchval("SELECT aq.register('a.topic', 'APP1', $1)", v),
        "consumer": lambda v: conn.fetchval("SELECT aq.register('a.topic', $1, 'http://hooks.example.com/')", v),
        "queue": lambda v: conn.fetchval("SELECT aq.register($1, 'APP1', 'http://hooks.example.com/')", v),
        "host pattern": lambda v: ex("CALL aq.allow_notification_host($1)", v),
    }
    await run_corpus(conn, calls, kept)


def xml_text(v: str) -> str:
    return v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


async def test_idap_register_and_aliases(conn: asyncpg.Connection, site: Site) -> None:
    """Over HTTP: notify_url, consumer_name and an LDAP destination, each hostile value
    a Client fault with a code or a 200; the database holds the same objects after."""
    await conn.execute("CALL aq.allow_notification_host('hooks.example.com')")
    before = await catalog_snapshot(conn)
    wrong: list[tuple[str, bytes | int]] = []
    async with aiohttp.ClientSession() as http:
        for value in CORPUS:
            if "\x00" in value:
                continue  # not XML at all: covered by the parser's own tests
            v = xml_text(value)
            docs = [
                op("AQXmlRegister", "<register_options><destination>A.Q</destination>"
                   f"<notify_url>http://hooks.example.com/{v}</notify_url></register_options><AQXmlCommit/>"),
                op("AQXmlRegister", "<register_options><destination>A.Q</destination>"
                   f"<consumer_name>{v}</consumer_name><notify_url>http://hooks.example.com/</notify_url>"
                   "</register_options><AQXmlCommit/>"),
                op("AQXmlSend", f'<producer_options><destination lookup_type="LDAP">{v}</destination>'
                   "</producer_options><message_set><message><message_header><sender_id>"
                   f"<agent_name>{v}</agent_name></sender_id></message_header><message_payload>"
                   "<RAW>00</RAW></message_payload></message></message_set><AQXmlCommit/>"),
            ]
            for doc in docs:
                async with http.post(site.url, data=envelope(doc), headers={
                        "Content-Type": "text/xml", "Authorization": basic("ALICE", "alice-pw-7Qz")}) as r:
                    body = await r.read()
                if r.status == 500 and b"SOAP-ENV:Client" in body:  # a Fault: HTTP 500
                    if not re.search(rb"<error_code>\d+</error_code>", body):
                        wrong.append((value[:30], body[:200]))
                elif r.status != 200:
                    wrong.append((value[:30], r.status))
    assert wrong == []
    await conn.execute("DELETE FROM aq.registrations")
    assert await catalog_snapshot(conn) == before
