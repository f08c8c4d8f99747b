"""Live round trips of the golden messages (tests/golden/jms_messages.json) between the Java
provider and the other clients of the same queues: a message sent from Java is received
unchanged through pgaq.jms and dbms_aq.dequeue, and one sent through pgaq.jms is received
unchanged in Java, for every case whose queue holds JMS messages (a JMS_MESSAGE queue for
the generic ones). The golden vectors fix the stored form offline (CodecGoldenTest,
tests/unit/test_jms_golden.py); these check that the real providers, the engine and SQL
agree on it.

Java runs as pgaq.jms.InteropTool (java/src/test/java), one JVM per direction and test: it
sends a batch of cases, or receives a batch, and prints what it sent or what it received
in the golden "received" form (GoldenMessages, the Java side of tests/jms_golden.py).

A live message differs from a case's "received" only where the case cannot know it: its
message id and timestamps (JMS_OracleOriginalMessageID is the message's own id), and the
JMSXUserID and JMSXAppID the database sets as it stores the message (R__52): the enqueuing
user, and without a JMSXAppID of the message's own the sender's name, else the sending
session's application_name. The payload dbms_aq.dequeue returns carries the same two in
its header. A case that a send cannot make (a redelivered, propagated message) is left to
the golden tests; a case whose message is delayed goes to a queue of its own whose delay is
ended by a queue monitor pass run at a later clock, and a case with a recipient list to a
topic, where it is received by its first recipient.
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
from pgaq import waiting
from pgaq.jms.codec import JMS_KINDS

from ..integration.helpers import make_queue
from ..jms_golden import CASES, build, describe, received_shape, same
from .conftest import ROOT, jdbc_url

SCHEMA = "interop"
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
    # the exception queue as the catalog names it: PostgreSQL folds the unquoted SCOTT.EXCQ
    # as Oracle folds scott.excq (aq.resolve_queue), the same queue either way
    "JMS_OracleExcpQ": lambda v, mid: v.lower(),
}


def mismatch(case: dict[str, Any], got: dict[str, Any], user: str,
             session_app: str | None) -> str | None:
    """How a live received message differs from the case's "received" (None: it does not),
    its id and the properties the database set checked apart."""
    got = dict(got)
    mid = got.pop("message_id")
    got.pop("queue", None)
    want = received_shape(case["received"])
    want["properties"] = [[n, k, LIVE_VALUE.get(n, lambda v, _: v)(v, mid)]
                          for n, k, v in want["properties"]]
    wanted = {n for n, _, _ in want["properties"]}
    provider = {"JMSXUserID": user}
    if "JMSXAppID" not in wanted:
        provider["JMSXAppID"] = app_id(case, session_app)  # type: ignore[assignment]
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
        "java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", f"-Dpgaq.jdbc.url={jdbc_url(dsn)}",
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


async def java_send(classpath: str, dsn: str, tmp_path: Path) -> dict[str, str]:
    """Every live case sent from Java to its route; {case name: message id}."""
    batch = []
    for c in LIVE:
        r = route(c)
        batch.append({**c, "topic" if r.topic else "queue": r.queue})
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(batch), encoding="ascii")
    sent = await java(classpath, dsn, "send", f"{SCHEMA}.text_q", str(path))
    refused = {s["name"]: s["error"] for s in sent if "error" in s}
    assert not refused, "Java refused to send:" + report(refused)
    return {s["name"]: s["message_id"] for s in sent}


def receive_args(routes: list[Route]) -> list[str]:
    """InteropTool receive's groups: every route's queue and its count of cases."""
    count = Counter(route(c) for c in LIVE)
    args: list[str] = []
    for r in routes:
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
            ttl = c["send"].get("time_to_live", 0)
            await s.create_producer(destination(s, r)).send(
                msg, delivery_mode=msg.jms_delivery_mode, priority=jms_priority(c),
                time_to_live=ttl / 1000, recipient_list=msg._recipients)
            ids[c["name"]] = str(msg.jms_message_id)
    return ids


async def python_receive(dsn: str, routes: list[Route]) -> list[tuple[jms.Message, Route]]:
    count = Counter(route(c) for c in LIVE)
    got: list[tuple[jms.Message, Route]] = []
    async with sessions(dsn) as by_mode:
        for r in routes:
            s = by_mode[r.compliant]
            dest = destination(s, r)
            consumer = (s.create_topic_receiver(dest, r.receiver)  # type: ignore[arg-type]
                        if r.receiver else await s.create_consumer(dest))
            for _ in range(count[r]):
                m = await consumer.receive(RECEIVE_TIMEOUT)
                assert m is not None, f"{r.queue}: fewer than {count[r]} messages"
                got.append((m, r))
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
    received = {str(m.jms_message_id): describe(m) for m, _ in await python_receive(db_dsn, routes)}
    user = await current_user(conn)
    problems = {}
    for c in LIVE:
        got = received.get(ids[c["name"]])
        if got is None:
            problems[c["name"]] = "not received"
            continue
        why = mismatch(c, {"message_id": ids[c["name"]], **got}, user, JAVA_APP)
        if why:
            problems[c["name"]] = why
    assert not problems, f"{len(problems)} of {len(LIVE)} cases differ:" + report(problems)


async def test_pgaq_jms_to_java(conn: asyncpg.Connection, db_dsn: str,
                                java_classpath: str) -> None:
    """Every live case sent through pgaq.jms is received in Java as the case says."""
    routes = await make_queues(conn)
    ids = await python_send(db_dsn)
    await end_delays(conn)
    got = await java(java_classpath, db_dsn, "receive", *receive_args(routes))
    received = {g["message_id"]: g for g in got}
    user = await current_user(conn)
    problems = {}
    for c in LIVE:
        g = received.get(ids[c["name"]])
        if g is None:
            problems[c["name"]] = "not received"
            continue
        why = mismatch(c, g, user, PYTHON_APP)
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
    composite as an object, bytea as "\\\\x" and lower-case hex."""
    if isinstance(v, asyncpg.Record):
        return {k: sql_json(x) for k, x in v.items()}
    if isinstance(v, bytes):
        return "\\x" + v.hex()
    if isinstance(v, list):
        return [sql_json(x) for x in v]
    return v


async def sql_dequeue(dsn: str, case: dict[str, Any], msgid: str) -> asyncpg.Record:
    """The case's message, dequeued by its id in SQL (a NON_PERSISTENT one, buffered, with
    IMMEDIATE visibility as dbms_aq requires)."""
    r = route(case)
    buffered = case["send"].get("delivery_mode") == "NON_PERSISTENT"
    c = await asyncpg.connect(dsn)
    try:
        # jsonb in binary (composites are decoded in binary): a version byte, then the text
        await c.set_type_codec("jsonb", schema="pg_catalog", format="binary",
                               encoder=lambda v: b"\x01" + json.dumps(v).encode(),
                               decoder=lambda b: json.loads(b[1:], parse_float=Decimal))
        row: asyncpg.Record = await c.fetchrow(
            DEQUEUE.format(type=PAYLOAD_SQL_TYPE[r.payload_kind]), r.queue, r.receiver,
            bytes.fromhex(msgid.removeprefix("ID:")), "IMMEDIATE" if buffered else "ON_COMMIT",
            "BUFFERED" if buffered else "PERSISTENT")
    finally:
        await c.close()
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
    for c in LIVE:
        row = await sql_dequeue(db_dsn, c, ids[c["name"]])
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
