"""Live round trips of the golden messages (tests/golden/jms_messages.json) between the Java
provider and the other clients of the same queues, for every case whose queue holds JMS
messages (a JMS_MESSAGE queue for the generic ones): a message sent from Java is received
unchanged through pgaq.jms, dbms_aq.dequeue and IDAP's AQXmlReceive, and one sent through
pgaq.jms, dbms_aq.enqueue or IDAP's AQXmlSend is received unchanged in Java. The golden vectors fix the
stored form offline (CodecGoldenTest, tests/unit/test_jms_golden.py); these check that the
real providers, the engine, SQL and the gateway agree on it.

Java runs as pgaq.jms.InteropTool (java/src/test/java), one JVM per direction and test: it
sends a batch of cases, or receives a batch, and prints what it sent or what it received
in the golden "received" form (GoldenMessages, the Java side of tests/jms_golden.py).

A live message differs from a case's "received" only where the case cannot know it: its
message id and timestamps (JMS_OracleOriginalMessageID is the message's own id), the
exception queue's name as the catalog has it (lower case, as PostgreSQL folds SCOTT.EXCQ),
and the JMSXUserID and JMSXAppID the database sets as it stores the message (R__52): the
enqueuing user, and without a JMSXAppID of the message's own the sender's name, else the
sending session's application_name. The payload dbms_aq.dequeue returns carries the same
two in its header. A case that a send cannot make (a redelivered, propagated message) is
left to the golden tests; a case whose message is delayed goes to a queue of its own whose
delay is ended by a queue monitor pass run at a later clock, a case with an exception queue
to a queue in that queue's table, and a case with a recipient list to a topic, where it is
received by its first recipient. IDAP carries what docs/gateway.md says it does: no
NON_PERSISTENT message and no StreamMessage queue; char and byte[] items and nulls cross
as strings.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import asyncpg
import pgaq.jms as jms
from lxml import etree
from pgaq import waiting
from pgaq.idap.schema import load_schemas
from pgaq.jms.codec import JMS_KINDS, TIME_TO_LIVE_PROPERTY

from ..integration.gateway_support import (
    Client,
    Reply,
    drop_roles,
    envelope,
    make_agent,
    op,
    running_gateway,
)
from ..integration.helpers import make_queue
from ..jms_golden import CASES, build, describe, received_shape, same, send_options
from .conftest import ROOT, jdbc_url, jvm_options

SCHEMA = "interop"
NS = {"aq": "http://ns.oracle.com/AQ/schemas/access"}
SHORT = {"JMS_TEXT": "text", "JMS_BYTES": "bytes", "JMS_MAP": "map", "JMS_STREAM": "stream",
         "JMS_OBJECT": "object", "JMS_MESSAGE": "generic"}
PAYLOAD_TYPE = {k: f"SYS.AQ$_{k}_MESSAGE" if k != "JMS_MESSAGE" else "SYS.AQ$_JMS_MESSAGE"
                for k in JMS_KINDS}
# the application_name each client's session has (JMSXAppID without one of the message's own)
JAVA_APP = "PostgreSQL JDBC Driver"
PYTHON_APP: str | None = None
# reply-to addresses the cases name that are topics (the catalog says so, as Oracle's does)
REPLY_TOPICS = sorted({t for c in CASES for t in c.get("received", {}).get("topics", [])})
RECEIVE_TIMEOUT = 10.0


def _live(case: dict[str, Any]) -> bool:
    """A case a send makes: JMS payload, received, and no dequeued row of its own beyond
    an exception queue (attempts, state and original msgid come from redelivery and
    propagation)."""
    return (case["payload_kind"] in JMS_KINDS and "received" in case
            and not set(case["received"].get("row", {})) - {"exception_queue"})


LIVE = [c for c in CASES if _live(c)]


@dataclass(frozen=True)
class Route:
    """Where a case is sent and how it is received."""

    queue: str  # owner.name
    payload_kind: str
    compliant: bool  # Java EE compliant connections on both sides
    receiver: str | None  # a topic's recipient (the case has a recipient list)
    exception_queue: str | None  # owner.name, an exception queue in the queue's table

    @property
    def topic(self) -> bool:
        return self.receiver is not None

    @property
    def table(self) -> str:
        return self.queue + "_qt"


def route(case: dict[str, Any]) -> Route:
    """A queue of the case's payload kind per way of receiving it: a Java EE compliant
    connection, a topic receiver, the queue table of an exception queue (which is in the
    owner's schema), or a delay to end."""
    kind = case["payload_kind"]
    compliant = bool(case["received"].get("j2ee_compliant", False))
    recipients = case["send"].get("recipients")
    receiver = recipients[0][0] if recipients else None
    exception_queue = case["expected"]["properties"].get("exception_queue")
    schema = SCHEMA
    if exception_queue:
        exception_queue = exception_queue.lower()
        schema = exception_queue.split(".")[0]
    suffix = ("_t" if receiver else "_c" if compliant else "_x" if exception_queue
              else "_d" if delayed(case) else "_q")
    return Route(f"{schema}.{SHORT[kind]}{suffix}", kind, compliant, receiver, exception_queue)


def delayed(case: dict[str, Any]) -> bool:
    return bool(case["expected"]["properties"]["delay"] > 0)


def jms_priority(case: dict[str, Any]) -> int:
    """The JMSPriority that stores the case's AQ priority in its compliance mode."""
    aq = int(case["send"].get("priority", 1))
    return 9 - aq if route(case).compliant else aq


async def make_queues(conn: asyncpg.Connection) -> list[Route]:
    routes = sorted({route(c) for c in LIVE}, key=lambda r: r.queue)
    for r in routes:
        await make_queue(conn, r.queue, r.table, PAYLOAD_TYPE[r.payload_kind], multiple=r.topic)
        if r.exception_queue:
            await conn.execute("CALL dbms_aqadm.create_queue($1, $2, queue_type => 'EXCEPTION_QUEUE')",
                               r.exception_queue, r.table)
    for t in REPLY_TOPICS:
        await make_queue(conn, t.lower(), t.lower() + "_qt", "SYS.AQ$_JMS_MESSAGE", multiple=True)
    return routes


async def end_delays(conn: asyncpg.Connection) -> None:
    """The queue monitor's pass over the delayed cases' queue tables an hour from now: their
    delays are over (WAIT -> READY), as they would be after waiting."""
    for table in sorted({route(c).table for c in LIVE if delayed(c)}):
        schema, name = table.split(".")
        await conn.execute(
            "SELECT m.* FROM aq.queue_tables t, "
            "LATERAL aq.monitor_table(t, now() + interval '1 hour', 1000) m "
            "WHERE t.schema_name = $1 AND t.table_name = $2", schema, name)


# -- what a live message carries beyond its case ------------------------------------------
def app_id(case: dict[str, Any], session_app: str | None) -> str | None:
    """The JMSXAppID the database stores (R__52): the message's own, else its sender's
    name, else the sending session's application_name."""
    for name, _, v in case["send"].get("properties", []):
        if name == "JMSXAppID":
            return str(v)
    sender = case["expected"]["properties"].get("sender_name")
    return sender if sender is not None else session_app


# a live value of a property for the case's value and the message id
LIVE_VALUE: dict[str, Any] = {
    "JMS_OracleOriginalMessageID": lambda v, mid: mid,  # not propagated: its own id
    # the exception queue as the catalog names it (aq.resolve_queue): PostgreSQL folds the
    # unquoted SCOTT.EXCQ to scott.excq, as Oracle folds scott.excq to SCOTT.EXCQ
    "JMS_OracleExcpQ": lambda v, mid: v.lower(),
}


def mismatch(case: dict[str, Any], got: dict[str, Any], user: str, app: str | None,
             want: dict[str, Any] | None = None) -> str | None:
    """How a live received message differs from the case's "received" (or `want`; None:
    it does not), its id and the JMSXUserID and JMSXAppID the database set (`user`, `app`)
    checked apart."""
    got = dict(got)
    mid = got.pop("message_id")
    got.pop("queue", None)
    want = received_shape(case["received"] if want is None else want)
    want["properties"] = [[n, k, LIVE_VALUE.get(n, lambda v, _: v)(v, mid)]
                          for n, k, v in want["properties"]]
    wanted = {n for n, _, _ in want["properties"]}
    provider: dict[str, str | None] = {"JMSXUserID": user}
    if "JMSXAppID" not in wanted:
        provider["JMSXAppID"] = app
    props = []
    for p in got["properties"]:
        name, kind, v = p
        if name in provider:
            if [kind, v] != ["string", provider.pop(name)]:
                return f"{name} is {kind} {v!r}"
        else:
            props.append(p)
    missing = {n: v for n, v in provider.items() if v is not None}
    if missing:
        return f"no {sorted(missing)}"
    got["properties"] = props
    if not same(got, want):
        return (f"\n    expected {json.dumps(want, default=str, ensure_ascii=True)}"
                f"\n    got      {json.dumps(got, default=str, ensure_ascii=True)}")
    return None


def report(problems: dict[str, str]) -> str:
    return "".join(f"\n  {name}: {why}" for name, why in sorted(problems.items()))


# -- Java -----------------------------------------------------------------------------------
async def java(classpath: str, dsn: str, *args: str) -> list[dict[str, Any]]:
    """InteropTool's JSON output (numbers as Decimal: exactly as it wrote them)."""
    proc = await asyncio.create_subprocess_exec(
        "java", *jvm_options(), f"-Dpgaq.jdbc.url={jdbc_url(dsn)}",
        "-cp", classpath, "pgaq.jms.InteropTool", *args, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), 120)
    except TimeoutError:
        proc.kill()
        out, err = await proc.communicate()
    assert proc.returncode == 0, (f"InteropTool {args[0]}: exit {proc.returncode}\n"
                                  f"{err.decode(errors='replace')[-6000:]}\n{out.decode()[-4000:]}")
    result: list[dict[str, Any]] = json.loads(out, parse_float=Decimal)
    return result


async def java_send(classpath: str, dsn: str, tmp_path: Path,
                    cases: list[dict[str, Any]] = LIVE) -> dict[str, str]:
    """The cases sent from Java, each to its route; {case name: message id}."""
    batch = []
    for c in cases:
        r = route(c)
        batch.append({**c, "topic" if r.topic else "queue": r.queue})
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(batch), encoding="ascii")
    sent = await java(classpath, dsn, "send", f"{SCHEMA}.text_q", str(path))
    refused = {s["name"]: s["error"] for s in sent if "error" in s}
    assert not refused, "Java refused to send:" + report(refused)
    return {s["name"]: s["message_id"] for s in sent}


def receive_args(routes: list[Route], cases: list[dict[str, Any]]) -> list[str]:
    """InteropTool receive's groups: every route's queue and its count of the cases."""
    count = Counter(route(c) for c in cases)
    args: list[str] = []
    for r in routes:
        if count[r]:
            args += (["--compliant"] if r.compliant else []) + (
                ["--receiver", r.receiver] if r.receiver else []) + [r.queue, str(count[r])]
    return args


# -- pgaq.jms -------------------------------------------------------------------------------
@asynccontextmanager
async def sessions(dsn: str) -> AsyncIterator[dict[bool, jms.Session]]:
    """A started pgaq.jms session per compliance mode."""
    connections = [await jms.ConnectionFactory(dsn, safety_poll=1.0, j2ee_compliant=mode)
                   .create_connection() for mode in (False, True)]
    try:
        for c in connections:
            await c.start()
        yield {mode: c.create_session(False, jms.AUTO_ACKNOWLEDGE)
               for mode, c in zip((False, True), connections, strict=True)}
    finally:
        for c in connections:
            await c.close()
        await waiting.shutdown()


def destination(session: jms.Session, r: Route) -> jms.Destination:
    owner, name = r.queue.split(".")
    return session.get_topic(owner, name) if r.topic else session.get_queue(owner, name)


async def python_send(dsn: str) -> dict[str, str]:
    """Every live case sent through pgaq.jms to its route; {case name: message id}."""
    ids = {}
    async with sessions(dsn) as by_mode:
        for c in LIVE:
            r = route(c)
            s = by_mode[r.compliant]
            msg = build(c["send"])
            given = send_options(c["send"])
            await s.create_producer(destination(s, r)).send(
                msg, delivery_mode=msg.jms_delivery_mode, priority=jms_priority(c),
                time_to_live=given["time_to_live"] / 1000, recipient_list=given["recipients"])
            ids[c["name"]] = str(msg.jms_message_id)
    return ids


async def python_receive(dsn: str, routes: list[Route]) -> list[jms.Message]:
    """Every live case's message received through pgaq.jms, route by route."""
    count = Counter(route(c) for c in LIVE)
    got: list[jms.Message] = []
    async with sessions(dsn) as by_mode:
        for r in routes:
            s = by_mode[r.compliant]
            dest = destination(s, r)
            if isinstance(dest, jms.Topic):
                assert r.receiver is not None
                consumer = s.create_topic_receiver(dest, r.receiver)
            else:
                consumer = await s.create_consumer(dest)
            for _ in range(count[r]):
                m = await consumer.receive(RECEIVE_TIMEOUT)
                assert m is not None, f"{r.queue}: fewer than {count[r]} messages"
                got.append(m)
            await consumer.close()
    return got


async def current_user(conn: asyncpg.Connection) -> str:
    return str(await conn.fetchval("SELECT current_user"))


# -- the round trips ------------------------------------------------------------------------
async def test_java_to_pgaq_jms(conn: asyncpg.Connection, db_dsn: str, java_classpath: str,
                                tmp_path: Path) -> None:
    """Every live case sent from Java is received through pgaq.jms as the case says."""
    routes = await make_queues(conn)
    ids = await java_send(java_classpath, db_dsn, tmp_path)
    await end_delays(conn)
    received = {str(m.jms_message_id): describe(m) for m in await python_receive(db_dsn, routes)}
    user = await current_user(conn)
    problems = {}
    for c in LIVE:
        got = received.get(ids[c["name"]])
        if got is None:
            problems[c["name"]] = "not received"
            continue
        why = mismatch(c, {"message_id": ids[c["name"]], **got}, user, app_id(c, JAVA_APP))
        if why:
            problems[c["name"]] = why
    assert not problems, f"{len(problems)} of {len(LIVE)} cases differ:" + report(problems)


async def test_pgaq_jms_to_java(conn: asyncpg.Connection, db_dsn: str,
                                java_classpath: str) -> None:
    """Every live case sent through pgaq.jms is received in Java as the case says."""
    routes = await make_queues(conn)
    ids = await python_send(db_dsn)
    await end_delays(conn)
    got = await java(java_classpath, db_dsn, "receive", *receive_args(routes, LIVE))
    received = {g["message_id"]: g for g in got}
    user = await current_user(conn)
    problems = {}
    for c in LIVE:
        g = received.get(ids[c["name"]])
        if g is None:
            problems[c["name"]] = "not received"
            continue
        why = mismatch(c, g, user, app_id(c, PYTHON_APP))
        if why:
            problems[c["name"]] = why
    assert not problems, f"{len(problems)} of {len(LIVE)} cases differ:" + report(problems)


# -- dbms_aq ----------------------------------------------------------------------------------
PAYLOAD_SQL_TYPE = {k: t.lower() for k, t in PAYLOAD_TYPE.items()}
DEQUEUE = """CALL dbms_aq.dequeue(queue_name => $1,
               dequeue_options => dbms_aq.dequeue_options(consumer_name => $2, msgid => $3,
                                                          wait => 0, visibility => $4,
                                                          delivery_mode => $5),
               message_properties => NULL, payload => NULL::{type}, msgid => NULL)"""


def sql_json(v: Any) -> Any:
    """A value dbms_aq.dequeue returned in the engine's JSON form (to_jsonb's): a
    composite as an object, bytea as PostgreSQL's hex text."""
    if isinstance(v, asyncpg.Record):
        return {k: sql_json(x) for k, x in v.items()}
    if isinstance(v, bytes):
        return "\\x" + v.hex()
    if isinstance(v, list):
        return [sql_json(x) for x in v]
    return v


@asynccontextmanager
async def sql_session(dsn: str) -> AsyncIterator[asyncpg.Connection]:
    """A connection that reads jsonb as JSON values (numbers exactly as written)."""
    c = await asyncpg.connect(dsn)
    try:
        # jsonb in binary (composites are decoded in binary): a version byte, then the text
        await c.set_type_codec("jsonb", schema="pg_catalog", format="binary",
                               encoder=lambda v: b"\x01" + json.dumps(v).encode(),
                               decoder=lambda b: json.loads(b[1:], parse_float=Decimal))
        yield c
    finally:
        await c.close()


async def sql_dequeue(c: asyncpg.Connection, case: dict[str, Any], msgid: str) -> asyncpg.Record:
    """The case's message, dequeued by its id in SQL (a NON_PERSISTENT one, buffered, with
    IMMEDIATE visibility as dbms_aq requires; a topic's as its recipient)."""
    r = route(case)
    buffered = case["send"].get("delivery_mode") == "NON_PERSISTENT"
    row: asyncpg.Record = await c.fetchrow(
        DEQUEUE.format(type=PAYLOAD_SQL_TYPE[r.payload_kind]), r.queue, r.receiver,
        bytes.fromhex(msgid.removeprefix("ID:")), "IMMEDIATE" if buffered else "ON_COMMIT",
        "BUFFERED" if buffered else "PERSISTENT")
    return row


def expected_payload(case: dict[str, Any], user: str, session_app: str | None) -> Any:
    """The case's expected payload as stored: its header's userid and appid the database's
    (R__52)."""
    payload = json.loads(json.dumps(case["expected"]["payload"]), parse_float=Decimal)
    payload["header"]["userid"] = user
    payload["header"]["appid"] = app_id(case, session_app)
    return payload


def properties_mismatch(case: dict[str, Any], mp: dict[str, Any]) -> str | None:
    """How dequeue's message_properties differ from the case's expected AQ properties."""
    want = case["expected"]["properties"]
    got = {"priority": mp["priority"], "delay": mp["delay"], "correlation": mp["correlation"],
           "sender_id": mp["sender_id"], "delivery_mode": mp["delivery_mode"],
           "expiration": mp["expiration"], "exception_queue": mp["exception_queue"]}
    expect = {"priority": want["priority"], "delay": want["delay"],
              "correlation": want.get("correlation"), "sender_id": want.get("sender_id"),
              "delivery_mode": want["delivery_mode"], "expiration": want.get("expiration"),
              # the queue's name alone, as the catalog has it (the golden row's "EXCQ")
              "exception_queue": want["exception_queue"].split(".")[-1].lower()
              if want.get("exception_queue") else None}
    if expect["sender_id"] is not None:  # stored as the sender's name is (aq.sender_name)
        expect["sender_id"] = {**expect["sender_id"], "name": want["sender_name"]}
    return None if same(got, expect) else f"message_properties {got} expected {expect}"


async def test_java_to_dbms_aq(conn: asyncpg.Connection, db_dsn: str,
                               java_classpath: str, tmp_path: Path) -> None:
    """Every live case sent from Java is, dequeued by dbms_aq.dequeue in SQL, the case's
    expected payload and AQ message properties."""
    await make_queues(conn)
    ids = await java_send(java_classpath, db_dsn, tmp_path)
    user = await current_user(conn)
    problems = {}
    async with sql_session(db_dsn) as sql:
        rows = {c["name"]: await sql_dequeue(sql, c, ids[c["name"]]) for c in LIVE}
    for c in LIVE:
        row = rows[c["name"]]
        payload = sql_json(row["payload"])
        want = expected_payload(c, user, JAVA_APP)
        if not same(payload, want):
            problems[c["name"]] = (f"\n    expected {json.dumps(want, default=str)}"
                                   f"\n    got      {json.dumps(payload, default=str)}")
            continue
        why = properties_mismatch(c, sql_json(row["message_properties"]))
        if why:
            problems[c["name"]] = why
    assert not problems, f"{len(problems)} of {len(LIVE)} cases differ:" + report(problems)


ENQUEUE = """CALL dbms_aq.enqueue(queue_name => $1,
               enqueue_options => dbms_aq.enqueue_options(visibility => $2, delivery_mode => $3),
               message_properties => dbms_aq.message_properties(
                   priority => $4, delay => $5, expiration => $6, correlation => $7,
                   recipient_list => $8, exception_queue => $9, sender_id => $10),
               payload => jsonb_populate_record(NULL::{type}, $11), msgid => NULL)"""


def agent(spec: dict[str, Any] | None) -> tuple[Any, ...] | None:
    return None if spec is None else (spec["name"], spec["address"], spec["protocol"])


async def sql_enqueue(c: asyncpg.Connection, case: dict[str, Any]) -> str:
    """The case's expected AQ properties and payload enqueued by dbms_aq.enqueue in SQL (a
    NON_PERSISTENT one buffered, with IMMEDIATE visibility as dbms_aq requires); its id."""
    r = route(case)
    props = case["expected"]["properties"]
    buffered = props["delivery_mode"] == "BUFFERED"
    recipients = props.get("recipient_list")
    row = await c.fetchrow(
        ENQUEUE.format(type=PAYLOAD_SQL_TYPE[r.payload_kind]), r.queue,
        "IMMEDIATE" if buffered else "ON_COMMIT", props["delivery_mode"], props["priority"],
        props["delay"], props.get("expiration", -1), props.get("correlation"),
        None if recipients is None else [agent(a) for a in recipients],
        props.get("exception_queue"), agent(props.get("sender_id")), case["expected"]["payload"])
    return "ID:" + bytes(row["msgid"]).hex().upper()


async def test_dbms_aq_to_java(conn: asyncpg.Connection, db_dsn: str,
                               java_classpath: str) -> None:
    """Every live case's expected payload and AQ properties, enqueued by dbms_aq.enqueue in
    SQL, is received in Java as the case says (the golden decode, live)."""
    routes = await make_queues(conn)
    async with sql_session(db_dsn) as sql:
        ids = {c["name"]: await sql_enqueue(sql, c) for c in LIVE}
    await end_delays(conn)
    got = await java(java_classpath, db_dsn, "receive", *receive_args(routes, LIVE))
    received = {g["message_id"]: g for g in got}
    user = await current_user(conn)
    problems = {}
    for c in LIVE:
        g = received.get(ids[c["name"]])
        # JMSXAppID: without one of its own, the sender's name, else none (asyncpg's
        # session has no application_name, as pgaq.jms's)
        why = "not received" if g is None else mismatch(c, g, user, app_id(c, PYTHON_APP))
        if why:
            problems[c["name"]] = why
    assert not problems, f"{len(problems)} of {len(LIVE)} cases differ:" + report(problems)


# -- IDAP -------------------------------------------------------------------------------------
# IDAP's element of each body; a generic queue's message by its message_type (a StreamMessage
# crosses as the bytes of its body: docs/gateway.md, "JMS payloads and IDAP")
IDAP_ELEMENT = {"JMS_TEXT": "jms_text_message", "JMS_BYTES": "jms_bytes_message",
                "JMS_MAP": "jms_map_message", "JMS_OBJECT": "jms_object_message"}
GENERIC_ELEMENT = {0: "jms_text_message", 1: "jms_bytes_message", 2: "jms_bytes_message",
                   3: "jms_map_message", 4: "jms_object_message"}
IDAP_BODY = {"jms_text_message": "text_data", "jms_bytes_message": "bytes_data",
             "jms_map_message": "map_data", "jms_object_message": "ser_object_data"}
FLOAT_SPECIALS = ("NaN", "INF", "-INF", "-0.0")
IDAP_AGENT, IDAP_PASSWORD = "JOHN", "secret"


def over_idap(case: dict[str, Any]) -> bool:
    """A live case IDAP carries: persistent (IDAP has no delivery mode: docs/gateway.md), on a
    queue IDAP serves (not a StreamMessage queue: Oracle Streams Advanced Queuing User's Guide
    and Reference 10g Release 2 (10.2), "Internet Access to Oracle Streams AQ": "not supported
    through IDAP")."""
    return bool(case["send"].get("delivery_mode") != "NON_PERSISTENT"
                and case["payload_kind"] != "JMS_STREAM")


IDAP_CASES = [c for c in LIVE if over_idap(c)]


def idap_value(element: str, text: str) -> Any:
    """A typed element's text as a value of the engine's JSON."""
    if element in ("float_value", "double_value"):
        return text if text in FLOAT_SPECIALS else Decimal(text)
    if element in ("int_value", "long_value", "short_value", "byte_value"):
        return int(text)
    if element == "boolean_value":
        return {"true": True, "false": False}[text]
    return text


def stored_value(kind: str, v: Any) -> tuple[str, Any]:
    """The element and value IDAP writes for a stored typed value: char and byte[] as a
    string (their text), a null as an empty one (XML has no null here)."""
    element = "string_value" if kind in ("char", "bytes") else f"{kind}_value"
    if v is None:
        return element, ""
    return element, v


def typed_items(parent: Any, item: str) -> list[list[Any]]:
    """[name, element, value] of a <user_properties> or <map_data> in document order."""
    out = []
    for it in [] if parent is None else parent.findall(f"aq:{item}", NS):
        name = it.findtext("aq:name", namespaces=NS)
        [v] = [c for c in it if isinstance(c.tag, str) and etree.QName(c).localname != "name"]
        element = etree.QName(v).localname
        out.append([name, element, idap_value(element, v.text or "")])
    return out


def idap_expected(case: dict[str, Any], user: str, session_app: str | None) -> dict[str, Any]:
    """What AQXmlReceive writes of the case's stored message (docs/gateway.md): AQ's header
    and the payload's element, from the case's expected properties and payload."""
    props = case["expected"]["properties"]
    payload = json.loads(json.dumps(case["expected"]["payload"]), parse_float=Decimal)
    header: dict[str, Any] = {"priority": props["priority"], "delay": props["delay"],
                              "expiration": props.get("expiration"),
                              "correlation": props.get("correlation")}
    if props.get("sender_id"):
        header["sender_id"] = [props["sender_name"], props["sender_id"]["address"]]
    if case["payload_kind"] == "JMS_MESSAGE":
        element = GENERIC_ELEMENT[payload["message_type"]]
    else:
        element = IDAP_ELEMENT[case["payload_kind"]]
    h = payload["header"]
    jms_props: dict[str, Any] = {"type": h["type"], "userid": user,
                                 "appid": app_id(case, session_app), "groupid": h["groupid"],
                                 "group_sequence": h["groupseq"]}
    rt = h["replyto"]
    jms_props["reply_to"] = None if rt is None else [rt["name"] or "", rt["address"]]
    user_props = sorted(h["properties"].items(), key=lambda kv: kv[1]["seq"])
    body: Any
    if element == "jms_text_message":
        body = payload["text_vc"] or ""
    elif element == "jms_map_message":
        body = [[n, *stored_value(s["type"], s["value"])] for n, s in sorted(payload["map"].items())]
    else:
        body = (payload["bytes_raw"] or "\\x")[2:].upper()
    return {"header": header, "element": element, "jms_properties": jms_props,
            "user_properties": [[n, *stored_value(s["type"], s["value"])] for n, s in user_props
                                if n != TIME_TO_LIVE_PROPERTY],
            "body": body}


def idap_got(message: Any) -> dict[str, Any]:
    """The same of an AQXmlReceive <message>."""
    def text(path: str) -> str | None:
        t = message.findtext(path, namespaces=NS)
        return None if t is None else str(t)

    def number(path: str) -> int | None:
        t = text(path)
        return None if t is None else int(t)

    header: dict[str, Any] = {"priority": number("aq:message_header/aq:priority"),
                              "delay": number("aq:message_header/aq:delay"),
                              "expiration": number("aq:message_header/aq:expiration"),
                              "correlation": text("aq:message_header/aq:correlation")}
    sender = message.find("aq:message_header/aq:sender_id/aq:agent_name", NS)
    if sender is not None:
        header["sender_id"] = [sender.text, text("aq:message_header/aq:sender_id/aq:address")]
    [payload] = message.find("aq:message_payload", NS)
    element = etree.QName(payload).localname
    p = "aq:oracle_jms_properties/aq:"
    seq = payload.findtext(p + "group_sequence", namespaces=NS)
    jms_props: dict[str, Any] = {
        key: payload.findtext(p + key, namespaces=NS) for key in ("type", "userid", "appid", "groupid")}
    jms_props["group_sequence"] = None if seq is None else int(seq)
    rt = payload.find(p + "reply_to", NS)
    jms_props["reply_to"] = None if rt is None else [
        rt.findtext("aq:agent_name", namespaces=NS), rt.findtext("aq:address", namespaces=NS)]
    body_el = payload.find("aq:" + IDAP_BODY[element], NS)
    body: Any
    if element == "jms_map_message":
        body = sorted(typed_items(body_el, "item"))
    else:
        body = None if body_el is None else body_el.text or ""
    return {"header": header, "element": element, "jms_properties": jms_props,
            "user_properties": typed_items(payload.find("aq:user_properties", NS), "property"),
            "body": body}


@asynccontextmanager
async def idap_client(conn: asyncpg.Connection, dsn: str) -> AsyncIterator[tuple[Client, str]]:
    """An IDAP agent's client of a gateway served in-process, and the database role the
    agent works as (its JMSXUserID); the role owns the schemas the cases' queues are in (so
    it may use them, as in test_jms_idap_interop)."""
    roles = await make_agent(conn, IDAP_AGENT, IDAP_PASSWORD)
    for schema in sorted({route(c).queue.split(".")[0] for c in LIVE}):
        await conn.execute(f'CREATE SCHEMA {schema} AUTHORIZATION "{roles[0]}"')
    try:
        async with running_gateway(dsn, session_timeout=5.0, max_wait=10.0) as url:
            client = Client(url, IDAP_AGENT, IDAP_PASSWORD)
            try:
                yield client, roles[0]
            finally:
                await client.close()
    finally:
        await drop_roles(conn, roles)


async def idap_receive(client: Client, case: dict[str, Any], msgid: str) -> Reply:
    r = route(case)
    consumer = f"<consumer_name>{r.receiver}</consumer_name>" if r.receiver else ""
    reply = await client.post(envelope(op("AQXmlReceive",
        f"<consumer_options><destination>{r.queue.upper()}</destination>{consumer}"
        f"<wait_time>0</wait_time><selector><message_id>{msgid.removeprefix('ID:')}</message_id>"
        "</selector></consumer_options><AQXmlCommit/>")))
    assert reply.status == 200 and reply.fault is None and reply.doc is not None, reply.body
    load_schemas().validate(reply.doc)  # what an IDAP client validates
    return reply


# the cases sent back over IDAP (AQXmlSend) as AQXmlReceive gave them: text, non-BMP text, a
# null text, bytes of every write, maps of every type and float specials, a stream (on a
# generic queue), an object, properties of every type and non-BMP strings, header fields,
# reply-tos, priorities and times to live in both compliance modes
IDAP_BACK = ["text_unicode_non_bmp", "text_null", "bytes_every_write", "map_every_type",
             "map_float_specials", "generic_stream", "generic_map", "generic_text",
             "object_string", "properties_integers", "properties_floats", "properties_strings",
             "correlation_and_type", "group_and_app", "reply_to_queue", "reply_to_agent",
             "priority_noncompliant", "priority_compliant", "ttl_whole_seconds",
             "ttl_not_whole_compliant"]


def through_idap(case: dict[str, Any]) -> dict[str, Any]:
    """The case's "received" after a trip through IDAP (docs/gateway.md): char and byte[]
    map items and null values cross as strings (a byte[] as its hex), a null text as an empty
    one, a StreamMessage as a BytesMessage of its stream body, and a time to live as AQ's
    whole seconds (IDAP's <expiration>)."""
    want: dict[str, Any] = json.loads(json.dumps(received_shape(case["received"])),
                                      parse_float=Decimal)
    expiration = case["expected"]["properties"].get("expiration")
    if expiration is not None:
        want["expires_after"] = expiration * 1000

    def text(kind: str, v: Any) -> list[Any]:
        return ["string", "" if v is None else v] if kind in ("char", "bytes", "string") else [kind, v]

    want["properties"] = [[n, *text(k, v)] for n, k, v in want["properties"]]
    if want["class"] == "MapMessage":
        want["body"] = [[n, *text(k, v)] for n, k, v in want["body"]]
    elif want["class"] == "TextMessage" and want["body"] is None:
        want["body"] = {"text": ""}
    elif want["class"] == "StreamMessage":
        want["class"] = "BytesMessage"
        want["body"] = case["expected"]["payload"]["bytes_raw"][2:].upper()
    return want


async def idap_send_back(client: Client, case: dict[str, Any], message: Any) -> str:
    """The payload AQXmlReceive gave sent back to the case's queue as it is, with the header
    fields it gave; the message id."""
    r = route(case)
    header = "".join(
        f"<{tag}>{etree.tostring(el, method='text', encoding=str)}</{tag}>"
        for tag in ("correlation", "delay", "expiration", "priority")
        if (el := message.find(f"aq:message_header/aq:{tag}", NS)) is not None)
    [payload] = message.find("aq:message_payload", NS)
    reply = await client.post(envelope(op("AQXmlSend",
        f"<producer_options><destination>{r.queue.upper()}</destination></producer_options>"
        f"<message_set><message><message_header>{header}<sender_id><agent_name>{IDAP_AGENT}"
        "</agent_name></sender_id></message_header><message_payload>"
        + etree.tostring(payload, encoding=str) + "</message_payload></message></message_set>"
        "<AQXmlCommit/>")))
    assert reply.status == 200 and reply.fault is None, reply.body
    [mid] = reply.text("//aq:send_result/aq:message_id")
    return "ID:" + mid


async def test_java_to_idap_and_back(conn: asyncpg.Connection, db_dsn: str,
                                     java_classpath: str, tmp_path: Path) -> None:
    """Every live case IDAP carries, sent from Java, is received over IDAP (AQXmlReceive)
    with the case's header fields, JMS properties, typed user properties and body; the
    payload IDAP gave, sent back as it is (AQXmlSend), is received in Java as the case says
    but for what IDAP cannot carry (through_idap), its JMSXUserID the IDAP agent's database
    role (the JMSXAppID the document carries, the Java sender's, is kept)."""
    async with idap_client(conn, db_dsn) as (client, idap_user):
        routes = await make_queues(conn)
        ids = await java_send(java_classpath, db_dsn, tmp_path, IDAP_CASES)
        user = await current_user(conn)
        problems: dict[str, str] = {}
        back: dict[str, str] = {}
        for c in IDAP_CASES:
            reply = await idap_receive(client, c, ids[c["name"]])
            assert reply.doc is not None
            [message] = reply.doc.findall(".//aq:message", NS)
            got, want = idap_got(message), idap_expected(c, user, JAVA_APP)
            if not same(got, want):
                problems[c["name"]] = (f"\n    expected {json.dumps(want, default=str)}"
                                       f"\n    got      {json.dumps(got, default=str)}")
            if c["name"] in IDAP_BACK:
                back[c["name"]] = await idap_send_back(client, c, message)
        assert not problems, (f"over IDAP {len(problems)} of {len(IDAP_CASES)} cases differ:"
                              + report(problems))
        await end_delays(conn)
        sent_back = [c for c in IDAP_CASES if c["name"] in back]
        back_in_java = await java(java_classpath, db_dsn, "receive",
                                  *receive_args(routes, sent_back))
        received = {g["message_id"]: g for g in back_in_java}
        for c in sent_back:
            g = received.get(back[c["name"]])
            # JMSXAppID: the document's (the Java sender's, kept), JMSXUserID the IDAP send's
            why = ("not received" if g is None else
                   mismatch(c, g, idap_user, app_id(c, JAVA_APP), through_idap(c)))
            if why:
                problems[c["name"]] = why
        assert not problems, (f"back over IDAP {len(problems)} of {len(sent_back)} cases differ:"
                              + report(problems))
