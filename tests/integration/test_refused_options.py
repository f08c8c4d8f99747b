"""Nothing silently accepted (issue 21, section 3): each option Oracle's procedures take is
honoured, refused with Oracle's error (or pgaq's documented choice of number), or accepted
as a documented no-op; a refusal stores nothing. Each refusal runs on every path that
accepts the option: the SQL CALL, the Python library, IDAP over real HTTP, the core
service's JSON admin API. The list is docs/errors.md, "Refused options"."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import aiohttp
import asyncpg
import pytest
from aiohttp import web
from pgaq import Agent, DequeueOptions, MessageProperties, Session
from pgaq.embedded import free_port
from pgaq.errors import PgaqError
from pgaq_services.core.app import Settings, build

from tests.conftest import prepared

from .gateway_support import Client, drop_roles, envelope, make_agent, op, running_gateway
from .helpers import make_queue, subscribe

MSGID = "0123456789ABCDEF0123456789ABCDEF"


def ora_of(text: str) -> int:
    m = re.search(r"ORA-(\d{5})", text)
    assert m, f"no ORA code in {text!r}"
    return int(m.group(1))


async def sql_refused(conn: asyncpg.Connection, sql: str, *args: object) -> int:
    with pytest.raises(asyncpg.PostgresError) as err:
        await conn.execute(sql, *args)
    return ora_of(str(err.value))


async def stored(conn: asyncpg.Connection, table: str = "s.qt", recipients: str = 's."aq$_qt_r"') -> int:
    """Messages plus recipient rows of a queue table: 0 means nothing was stored."""
    return int(await conn.fetchval(f"SELECT (SELECT count(*) FROM {table}) + (SELECT count(*) FROM {recipients})"))


# -- the queues the tests start from: made once per worker (tests/conftest.py `prepared`) ------
async def _agent_owning_s(conn: asyncpg.Connection) -> None:
    """The IDAP agent JOHN, mapped to the owner of schema s: the queues made there are his."""
    roles = await make_agent(conn)
    await conn.execute(f'CREATE SCHEMA s AUTHORIZATION "{roles[0]}"')


async def _single(conn: asyncpg.Connection) -> None:
    await make_queue(conn)


async def _multi(conn: asyncpg.Connection) -> None:
    await make_queue(conn, multiple=True)


async def _idap_single(conn: asyncpg.Connection) -> None:
    await _agent_owning_s(conn)
    await make_queue(conn)


async def _idap_multi(conn: asyncpg.Connection) -> None:
    await _agent_owning_s(conn)
    await make_queue(conn, multiple=True)


prepared("refused_single", _single)
prepared("refused_multi", _multi)
prepared("refused_idap_single", _idap_single)
prepared("refused_idap_multi", _idap_multi)


@pytest.fixture
def refused_single(db_dsn: str) -> str:
    """Single-consumer RAW queue s.q in table s.qt, started."""
    return "s.q"


@pytest.fixture
def refused_multi(db_dsn: str) -> str:
    """Multi-consumer RAW queue s.q in table s.qt, started, no subscribers."""
    return "s.q"


@pytest.fixture
def refused_idap_single(db_dsn: str) -> str:
    """refused_single, in a schema s owned by the database user of IDAP agent JOHN."""
    return "s.q"


@pytest.fixture
def refused_idap_multi(db_dsn: str) -> str:
    """refused_multi, in a schema s owned by the database user of IDAP agent JOHN."""
    return "s.q"


# -- enqueue_options.sequence_deviation / relative_msgid ---------------------------------------
DEVIATIONS = [
    pytest.param("TOP", None, id="deviation-top"),
    pytest.param("BEFORE", MSGID, id="deviation-before-relative"),
    pytest.param(None, MSGID, id="relative-msgid-alone"),
    pytest.param("", None, id="deviation-empty-string"),
]


async def _enqueue(conn: asyncpg.Connection, deviation: str | None, relative: str | None) -> None:
    await conn.execute(
        "CALL dbms_aq.enqueue('s.q', dbms_aq.enqueue_options(sequence_deviation => $1,"
        " relative_msgid => decode($2, 'hex')), NULL, '\\x01'::bytea, NULL)", deviation, relative)


async def _enqueue_array(conn: asyncpg.Connection, deviation: str | None, relative: str | None) -> None:
    await conn.execute(
        "CALL dbms_aq.enqueue_array('s.q', dbms_aq.enqueue_options(sequence_deviation => $1,"
        " relative_msgid => decode($2, 'hex')), 2, ARRAY[dbms_aq.message_properties(),"
        " dbms_aq.message_properties()], ARRAY['\\x01'::bytea, '\\x02'::bytea], NULL)", deviation, relative)


async def _enqueue_record(conn: asyncpg.Connection, deviation: str | None, relative: str | None) -> None:
    """The options record written out, as a ported script builds it field by field."""
    await conn.execute(
        "CALL dbms_aq.enqueue('s.q', ROW('ON_COMMIT', decode($2, 'hex'), $1, NULL, NULL)"
        "::dbms_aq.enqueue_options_t, NULL, '\\x01'::bytea, NULL)", deviation, relative)


SQL_ENQUEUES: dict[str, Callable[[asyncpg.Connection, str | None, str | None], Awaitable[None]]] = {
    "dbms_aq.enqueue": _enqueue, "dbms_aq.enqueue_array": _enqueue_array,
    "dbms_aq.enqueue record": _enqueue_record,
}


@pytest.mark.parametrize("path", list(SQL_ENQUEUES))
@pytest.mark.parametrize(("deviation", "relative"), DEVIATIONS)
async def test_sequence_deviation_is_refused(conn: asyncpg.Connection, refused_single: str, path: str,
                                             deviation: str | None, relative: str | None) -> None:
    with pytest.raises(asyncpg.PostgresError) as err:
        await SQL_ENQUEUES[path](conn, deviation, relative)
    assert ora_of(str(err.value)) == 25219
    assert "s.q" in str(err.value) and "SEQUENCE_DEVIATION" in str(err.value)
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


@pytest.mark.parametrize("path", list(SQL_ENQUEUES))
async def test_no_sequence_deviation_enqueues(conn: asyncpg.Connection, refused_single: str,
                                              path: str) -> None:
    """NULL (the default) is no deviation: the message is stored."""
    await SQL_ENQUEUES[path](conn, None, None)
    assert await conn.fetchval("SELECT count(*) FROM s.qt") >= 1


async def test_the_library_has_no_sequence_deviation(conn: asyncpg.Connection, refused_single: str) -> None:
    """The library offers no such option: a caller passing one is told so, nothing stored."""
    s = Session(conn)
    with pytest.raises(TypeError):
        await s.enqueue("s.q", b"x", sequence_deviation="TOP")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        await s.enqueue_array("s.q", [(b"x", None)], relative_msgid=MSGID)  # type: ignore[call-arg]
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


@asynccontextmanager
async def admin_api(db_dsn: str) -> AsyncIterator[Callable[[str, dict[str, Any]], Awaitable[tuple[int, Any]]]]:
    """The core service's JSON admin API over real HTTP: a POST per call."""
    token = "t0ken"
    port = free_port()
    runner = web.AppRunner(build(Settings(dsn=db_dsn, port=port, token=token)))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        async with aiohttp.ClientSession() as http:
            async def call(proc: str, args: dict[str, Any]) -> tuple[int, Any]:
                async with http.post(f"http://127.0.0.1:{port}/api/admin/{proc}", json=args,
                                     headers={"Authorization": f"Bearer {token}"}) as r:
                    return r.status, await r.json()
            yield call
    finally:
        await runner.cleanup()


async def idap_fault(url: str, body: str) -> tuple[int, str]:
    """POST one IDAP operation (with its commit); the Client fault's (error_code, message)."""
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(envelope(op(*body.split(" ", 1))))
        assert r.status == 500 and b"SOAP-ENV:Client" in r.body, r.body
        [message] = r.text("//aq:error_message")
        return int(r.error_code or 0), message
    finally:
        await c.close()


def idap_send(operation: str, options: str, header: str, payload: str = "<RAW>01</RAW>") -> str:
    return (f"{operation} <producer_options><destination>S.Q</destination>{options}</producer_options>"
            "<message_set><message><message_header><sender_id><agent_name>x</agent_name></sender_id>"
            f"{header}</message_header><message_payload>{payload}</message_payload></message>"
            "</message_set><AQXmlCommit/>")


@pytest.mark.parametrize("element", ["<sequence_deviation>TOP</sequence_deviation>",
                                     f"<relative_msgid>{MSGID}</relative_msgid>"])
async def test_idap_has_no_sequence_deviation(conn: asyncpg.Connection, refused_idap_single: str,
                                              db_dsn: str, element: str) -> None:
    """IDAP's producer_options has no such element (the 11.1 schema): the document is
    invalid (ORA-31154) and nothing is enqueued."""
    async with running_gateway(db_dsn) as url:
        code, _ = await idap_fault(url, idap_send("AQXmlSend", element, ""))
        assert code == 31154
        assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


# -- message_properties.signature / user_property ----------------------------------------------
@pytest.mark.parametrize(("field", "code"), [("signature", 25221), ("user_property", 24005)])
@pytest.mark.parametrize("path", ["dbms_aq.enqueue", "dbms_aq.enqueue_array"])
async def test_unkept_message_properties_are_refused(conn: asyncpg.Connection, refused_single: str, path: str,
                                                     field: str, code: int) -> None:
    value = "'sig'" if field == "signature" else "'{\"a\": 1}'::jsonb"
    props = (f"ROW(1, 0, -1, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, "
             f"{value if field == 'signature' else 'NULL'}, NULL, "
             f"{value if field == 'user_property' else 'NULL'}, NULL)::dbms_aq.message_properties_t")
    sql = (f"CALL dbms_aq.enqueue('s.q', NULL, {props}, '\\x01'::bytea, NULL)" if path == "dbms_aq.enqueue"
           else f"CALL dbms_aq.enqueue_array('s.q', NULL, 1, ARRAY[{props}], ARRAY['\\x01'::bytea], NULL)")
    assert await sql_refused(conn, sql) == code
    assert await conn.fetchval("SELECT count(*) FROM s.qt") == 0


# -- recipients with a protocol -----------------------------------------------------------------
RECIPIENTS = [
    pytest.param("PARTNER", "s.other@remote", 128, 25259, id="gateway-128-with-address"),
    pytest.param("PARTNER", "mq://host/q", 255, 25259, id="gateway-255-with-address"),
    pytest.param("PARTNER", "s.other@remote", 5, 25259, id="reserved-5-with-address"),
    pytest.param("PARTNER", None, 128, 24075, id="gateway-128-no-address"),
]


@pytest.mark.parametrize("path", ["dbms_aq.enqueue", "dbms_aq.enqueue_array", "library", "idap"])
@pytest.mark.parametrize(("name", "address", "protocol", "code"), RECIPIENTS)
async def test_recipients_without_a_delivery_path_are_refused(
        conn: asyncpg.Connection, refused_idap_multi: str, db_dsn: str, path: str,
        name: str, address: str | None, protocol: int, code: int) -> None:
    """A recipient pgaq could never deliver (a protocol other than 0: no Messaging Gateway)
    is refused at enqueue, naming the recipient and its protocol; nothing is stored."""
    async with AsyncExitStack() as stack:
        url = await stack.enter_async_context(running_gateway(db_dsn)) if path == "idap" else ""
        await subscribe(conn, "s.q", "A")
        if path == "idap":
            recipient = (f"<agent_name>{name}</agent_name>" + (f"<address>{address}</address>" if address else "")
                         + f"<protocol>{protocol}</protocol>")
            got, message = await idap_fault(url, idap_send(
                "AQXmlPublish", "", "<recipient_list><recipient><agent_name>B</agent_name></recipient>"
                f"<recipient>{recipient}</recipient></recipient_list>"))
        elif path == "library":
            with pytest.raises(PgaqError) as err:
                await Session(conn).enqueue("s.q", b"x", MessageProperties(
                    recipient_list=[Agent("B"), Agent(name, address, protocol)]))
            got, message = err.value.code or 0, str(err.value)
        else:
            props = ("dbms_aq.message_properties(recipient_list => ARRAY[sys.aq$_agent('B', NULL, NULL),"
                     " sys.aq$_agent($1, $2, $3)])")
            sql = (f"CALL dbms_aq.enqueue('s.q', NULL, {props}, '\\x01'::bytea, NULL)" if path == "dbms_aq.enqueue"
                   else f"CALL dbms_aq.enqueue_array('s.q', NULL, 1, ARRAY[{props}], ARRAY['\\x01'::bytea], NULL)")
            with pytest.raises(asyncpg.PostgresError) as perr:
                await conn.execute(sql, name, address, protocol)
            message = str(perr.value)
            got = ora_of(message)
        assert got == code, message
        assert name in message and str(protocol) in message, message
        assert await stored(conn) == 0


@pytest.mark.parametrize("path", ["dbms_aq.enqueue", "library"])
async def test_protocol_zero_recipients_are_delivered(conn: asyncpg.Connection, refused_multi: str,
                                                      path: str) -> None:
    """Protocol 0 or NULL: a local consumer, dequeued by its name."""
    await subscribe(conn, "s.q", "A")
    if path == "library":
        await Session(conn).enqueue("s.q", b"x", MessageProperties(recipient_list=[Agent("B", None, 0)]))
    else:
        await conn.execute("CALL dbms_aq.enqueue('s.q', NULL, dbms_aq.message_properties(recipient_list =>"
                           " ARRAY[sys.aq$_agent('B', NULL, NULL)]), '\\x01'::bytea, NULL)")
    [m] = await Session(conn).dequeue("s.q", DequeueOptions(consumer_name="B"))
    assert m.payload == (b"x" if path == "library" else b"\x01")


# -- add_subscriber: protocol and delivery_mode ---------------------------------------------
SUBSCRIBERS = [
    # (name, address, protocol, delivery_mode, code)
    pytest.param("PARTNER", "s.other@remote", 128, None, 25259, id="gateway-128"),
    pytest.param("PARTNER", "mq://host/q", 200, "PERSISTENT", 25259, id="gateway-200"),
    pytest.param("PARTNER", None, 130, None, 24075, id="gateway-no-address"),
    pytest.param("PARTNER", None, -3, None, 25216, id="negative-protocol"),
    pytest.param("PARTNER", None, None, "NON_PERSISTENT", 25299, id="mode-jms-name"),
    pytest.param("PARTNER", None, None, "PERSISTANT", 25299, id="mode-misspelt"),
    pytest.param("PARTNER", None, None, "4", 25299, id="mode-number-out-of-range"),
    pytest.param("PARTNER", None, None, "", 25299, id="mode-empty"),
]


@pytest.mark.parametrize("path", ["sql", "admin api"])
@pytest.mark.parametrize(("name", "address", "protocol", "mode", "code"), SUBSCRIBERS)
async def test_add_subscriber_refuses(conn: asyncpg.Connection, refused_multi: str, db_dsn: str, path: str,
                                      name: str, address: str | None, protocol: int | None,
                                      mode: str | None, code: int) -> None:
    if path == "sql":
        with pytest.raises(asyncpg.PostgresError) as err:
            await conn.execute("CALL dbms_aqadm.add_subscriber('s.q', sys.aq$_agent($1, $2, $3),"
                               " delivery_mode => coalesce($4, 'PERSISTENT'))", name, address, protocol, mode)
        message = str(err.value)
        got = ora_of(message)
    else:
        args: dict[str, Any] = {"queue_name": "s.q",
                                "subscriber": {"name": name, "address": address, "protocol": protocol}}
        if mode is not None:
            args["delivery_mode"] = mode
        async with admin_api(db_dsn) as admin:
            status, body = await admin("add_subscriber", args)
        assert status == 400, body
        message = body["error"]
        got = ora_of(body["code"])
    assert got == code, message
    if code != 25299:
        assert name in message and str(protocol) in message, message
    assert await conn.fetchval("SELECT count(*) FROM aq.subscribers") == 0


@pytest.mark.parametrize(("given", "kept"), [
    (None, "PERSISTENT"), ("persistent", "PERSISTENT"), ("BUFFERED", "BUFFERED"),
    (" persistent_or_buffered ", "PERSISTENT_OR_BUFFERED"), ("1", "PERSISTENT"), ("2", "BUFFERED"),
    ("3", "PERSISTENT_OR_BUFFERED")])
async def test_add_subscriber_keeps_oracles_delivery_modes(conn: asyncpg.Connection, refused_multi: str,
                                                           given: str | None,
                                                           kept: str) -> None:
    """Oracle's three modes, by name or by the number of their constant, stored by name."""
    await conn.execute("CALL dbms_aqadm.add_subscriber('s.q', sys.aq$_agent('A', NULL, NULL),"
                       " delivery_mode => $1)", given)
    assert await conn.fetchval("SELECT delivery_mode FROM aq.subscribers") == kept


async def test_remote_subscriber_with_protocol_zero_is_kept(conn: asyncpg.Connection,
                                                            refused_multi: str) -> None:
    await conn.execute("CALL dbms_aqadm.add_subscriber('s.q', sys.aq$_agent('R', 's.other@remote', 0))")
    await conn.execute("CALL dbms_aqadm.add_subscriber('s.q', sys.aq$_agent(NULL, 's.third', NULL))")
    assert await conn.fetchval("SELECT count(*) FROM aq.subscribers WHERE protocol = 0") == 2


# -- create_queue_table / create_queue / alter_queue_table ---------------------------------
QUEUE_TABLE_OPTIONS = [
    pytest.param({"secure": True}, 3001, id="secure"),
    pytest.param({"compatible": "8.0"}, 24005, id="compatible-8.0"),
    pytest.param({"compatible": "ten"}, 24005, id="compatible-garbage"),
    pytest.param({"primary_instance": -1}, 24005, id="primary-negative"),
    pytest.param({"secondary_instance": -2}, 24005, id="secondary-negative"),
]


def _sql_args(args: dict[str, Any]) -> tuple[str, list[Any]]:
    names = list(args)
    return ", ".join(f"{n} => ${i + 1}" for i, n in enumerate(names)), [args[n] for n in names]


@pytest.mark.parametrize("path", ["sql", "admin api"])
@pytest.mark.parametrize(("options", "code"), QUEUE_TABLE_OPTIONS)
async def test_create_queue_table_refuses(conn: asyncpg.Connection, db_dsn: str,
                                          path: str, options: dict[str, Any], code: int) -> None:
    await conn.execute("CREATE SCHEMA s")
    args = {"queue_table": "s.qt", "queue_payload_type": "RAW", **options}
    if path == "sql":
        named, values = _sql_args(args)
        assert await sql_refused(conn, f"CALL dbms_aqadm.create_queue_table({named})", *values) == code
    else:
        async with admin_api(db_dsn) as admin:
            status, body = await admin("create_queue_table", args)
        assert status == 400 and ora_of(body["code"]) == code, body
    assert await conn.fetchval("SELECT count(*) FROM aq.queue_tables") == 0
    assert await conn.fetchval("SELECT to_regclass('s.qt')") is None


@pytest.mark.parametrize("options", [
    {"primary_instance": 1, "secondary_instance": 2}, {"compatible": "8.1"}, {"compatible": "10.0"},
    {"compatible": "12.2.0.1"}, {"storage_clause": "TABLESPACE users"}, {"auto_commit": False},
    {"secure": False}])
async def test_create_queue_table_accepts_no_ops(conn: asyncpg.Connection, options: dict[str, Any]) -> None:
    """Instance affinity, compatibility 8.1 and later, a storage clause: accepted, documented
    as no-ops (one PostgreSQL instance; PostgreSQL places the table)."""
    await conn.execute("CREATE SCHEMA s")
    named, values = _sql_args({"queue_table": "s.qt", "queue_payload_type": "RAW", **options})
    await conn.execute(f"CALL dbms_aqadm.create_queue_table({named})", *values)
    assert await conn.fetchval("SELECT count(*) FROM aq.queue_tables") == 1


@pytest.mark.parametrize("path", ["sql", "admin api"])
async def test_create_queue_refuses_dependency_tracking(conn: asyncpg.Connection, refused_single: str,
                                                        db_dsn: str,
                                                        path: str) -> None:
    args = {"queue_name": "s.q2", "queue_table": "s.qt", "dependency_tracking": True}
    if path == "sql":
        named, values = _sql_args(args)
        assert await sql_refused(conn, f"CALL dbms_aqadm.create_queue({named})", *values) == 3001
    else:
        async with admin_api(db_dsn) as admin:
            status, body = await admin("create_queue", args)
        assert status == 400 and ora_of(body["code"]) == 3001, body
    assert await conn.fetchval("SELECT count(*) FROM aq.queues WHERE queue_name = 'q2'") == 0


async def test_alter_queue_table(conn: asyncpg.Connection, refused_single: str) -> None:
    """Oracle's ALTER_QUEUE_TABLE: the comment is kept, instance affinity accepted as a
    no-op; a negative instance number changes nothing."""
    await conn.execute("CALL dbms_aqadm.alter_queue_table('s.qt', comment => 'orders',"
                       " primary_instance => 1, secondary_instance => 2)")
    assert await conn.fetchval("SELECT comment FROM aq.queue_tables") == "orders"
    await conn.execute("CALL dbms_aqadm.alter_queue_table('s.qt', primary_instance => 3)")
    assert await conn.fetchval("SELECT comment FROM aq.queue_tables") == "orders"
    assert await sql_refused(conn, "CALL dbms_aqadm.alter_queue_table('s.qt', comment => 'x',"
                                   " secondary_instance => -1)") == 24005
    assert await conn.fetchval("SELECT comment FROM aq.queue_tables") == "orders"
    assert await sql_refused(conn, "CALL dbms_aqadm.alter_queue_table('s.nope', comment => 'x')") == 24002


@pytest.mark.parametrize("path", ["dbms_aq.dequeue", "dbms_aq.dequeue_array"])
async def test_dequeue_signature_is_refused(conn: asyncpg.Connection, refused_single: str, path: str) -> None:
    """dequeue_options.signature asks for receiver non-repudiation: ORA-25265, and the
    message stays in the queue."""
    await conn.execute("CALL dbms_aq.enqueue('s.q', NULL, NULL, '\\x01'::bytea, NULL)")
    opts = "ROW(NULL, 'REMOVE', NULL, NULL, 0, NULL, NULL, NULL, 'sig', NULL, NULL)::dbms_aq.dequeue_options_t"
    sql = (f"CALL dbms_aq.dequeue('s.q', {opts}, NULL, NULL::bytea, NULL)" if path == "dbms_aq.dequeue"
           else f"CALL dbms_aq.dequeue_array('s.q', {opts}, 1, NULL, NULL::bytea[], NULL, NULL)")
    assert await sql_refused(conn, sql) == 25265
    assert await conn.fetchval("SELECT count(*) FROM s.qt WHERE state = 0") == 1


@pytest.mark.parametrize(("flags", "status"), [("enable_anyp => true", 200), ("enable_http => true", 200),
                                               ("enable_smtp => true", 401), ("enable_http => false", 401)])
async def test_any_protocol_agents_use_http(conn: asyncpg.Connection, db_dsn: str, flags: str,
                                            status: int) -> None:
    """create_aq_agent's enable_anyp (any protocol) lets the agent in over HTTP, as
    enable_http does; e-mail alone (enable_smtp: pgaq has no e-mail access) does not."""
    await conn.execute('CREATE ROLE "anyp_role" NOLOGIN')
    try:
        await conn.execute(f"CALL dbms_aqadm.create_aq_agent('ANNA', {flags}, password => 'pw')")
        await conn.execute("CALL dbms_aqadm.enable_db_access('ANNA', 'anyp_role')")
        async with running_gateway(db_dsn) as url:
            c = Client(url, "ANNA", "pw")
            try:
                r = await c.post(envelope(op("AQXmlCommit", "")))
                assert r.status == status, r.body
            finally:
                await c.close()
    finally:
        await drop_roles(conn, ["anyp_role"])


@pytest.mark.parametrize("path", ["dbms_aq.listen", "library"])
@pytest.mark.parametrize("protocol", [128, 1])
async def test_listen_refuses_a_protocol(conn: asyncpg.Connection, refused_multi: str, path: str,
                                         protocol: int) -> None:
    """LISTEN's agents take no protocol (Oracle's ORA-25259), rather than one ignored; the
    message waiting for the agent is left alone."""
    await subscribe(conn, "s.q", "A")
    await conn.execute("CALL dbms_aq.enqueue('s.q', NULL, NULL, '\\x01'::bytea, NULL)")
    if path == "library":
        with pytest.raises(PgaqError) as err:
            await Session(conn).listen([Agent("A", "s.q", protocol)], wait=0)
        got, message = err.value.code, str(err.value)
    else:
        with pytest.raises(asyncpg.PostgresError) as perr:
            await conn.execute("CALL dbms_aq.listen(ARRAY[sys.aq$_agent('A', 's.q', $1)], 0, NULL)", protocol)
        message = str(perr.value)
        got = ora_of(message)
    assert got == 25259 and str(protocol) in message, message
    assert await conn.fetchval("SELECT count(*) FROM s.aq$qt WHERE msg_state = 'READY'") == 1
    # protocol 0 (or NULL) is a plain local agent
    assert await Session(conn).listen([Agent("A", "s.q", 0)], wait=0) == Agent("A", "s.q", 0)
