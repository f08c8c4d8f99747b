"""Hostile and broken requests over real HTTP: each gets the right HTTP status or a Client
fault carrying detail/status_response (-1, an error_code, an error_message), and nothing
it asked for is applied (no row in any queue table, no registration, no file or network
read, no entity expanded)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest
from aiohttp import web
from pgaq.embedded import free_port

from .gateway_support import Client, Reply, envelope, op, running_gateway
from .test_gateway import (
    gw,  # noqa: F401  (the fixture: queues and types of the examples)
    send,
)

TABLES = ("qs.orders_qt", "aquser.emp_qt", "aquser.raw_qt", "aquser.jms_qt", "aquser.map_qt")


async def applied(conn: asyncpg.Connection) -> int:
    """Rows in every queue table of the fixture plus registrations: 0 means untouched."""
    total = 0
    for table in TABLES:
        total += int(await conn.fetchval(f"SELECT count(*) FROM {table}"))
    total += int(await conn.fetchval("SELECT count(*) FROM aq.registrations"))
    return total


def assert_client_fault(r: Reply, code: str | None = None) -> None:
    assert r.status == 500, r.body  # SOAP 1.1 6.2: a Fault is HTTP 500
    assert b"SOAP-ENV:Client" in r.body, r.body
    assert r.text("//aq:status_code") == ["-1"], r.body
    [error_code] = r.text("//aq:error_code")
    assert error_code.isdigit(), r.body
    if code is not None:
        assert error_code == code, r.body
    [message] = r.text("//aq:error_message")
    assert message.startswith("ORA-"), message


@pytest.fixture
async def spy() -> AsyncIterator[tuple[str, list[str]]]:
    """A loopback HTTP server that records every request: an external entity or DTD the
    parser fetched would show here."""
    hits: list[str] = []

    async def record(request: web.Request) -> web.Response:
        hits.append(request.path)
        return web.Response(text="<!ENTITY leaked 'LEAKED'>")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", record)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}", hits
    finally:
        await runner.cleanup()


async def test_body_over_the_limit_is_413(conn: asyncpg.Connection, db_dsn: str,
                                          gw: tuple[str, list[str]]) -> None:  # noqa: F811
    big = send("AQUSER.RAW_MSGQ", "<RAW>" + "00" * 4096 + "</RAW>")
    async with running_gateway(db_dsn, body_limit=4096) as url:
        c = Client(url, "JOHN", "secret")
        try:
            r = await c.post(big.replace(b"</message_set>", b"</message_set><AQXmlCommit/>"))
            assert r.status == 413
            small = await c.post(send("AQUSER.RAW_MSGQ", "<RAW>00</RAW>"))  # still serving
            assert small.status == 200, small.body
            await c.post(envelope(op("AQXmlRollback", "")))
        finally:
            await c.close()
    assert await applied(conn) == 0


def entity_attacks(tmp: str, spy_url: str) -> list[tuple[str, bytes]]:
    body = send("AQUSER.RAW_MSGQ", "<RAW>&x;</RAW>").decode().replace('<?xml version="1.0"?>\n', "")
    decl = '<?xml version="1.0"?>\n'
    return [
        ("internal entity", f'{decl}<!DOCTYPE Envelope [<!ENTITY x "CAFE">]>{body}'.encode()),
        ("file entity", f'{decl}<!DOCTYPE Envelope [<!ENTITY x SYSTEM "file://{tmp}">]>{body}'.encode()),
        ("network entity", f'{decl}<!DOCTYPE Envelope [<!ENTITY x SYSTEM "{spy_url}/x">]>{body}'.encode()),
        ("external DTD", f'{decl}<!DOCTYPE Envelope SYSTEM "{spy_url}/dtd">{body}'.encode()),
        ("parameter entity", (f'{decl}<!DOCTYPE Envelope [<!ENTITY % p SYSTEM "{spy_url}/p"> %p;]>'
                              f"{body}").encode()),
        ("billion laughs", (decl + "<!DOCTYPE Envelope [<!ENTITY x0 \"lol\">"
                            + "".join(f'<!ENTITY x{i} "{f"&x{i - 1};" * 10}">' for i in range(1, 10))
                            + "<!ENTITY x \"&x9;\">]>" + body).encode()),
        ("utf-16 doctype", (f'<?xml version="1.0" encoding="UTF-16"?>\n<!DOCTYPE Envelope '
                            f'[<!ENTITY x SYSTEM "file://{tmp}">]>{body}').encode("utf-16")),
    ]


@pytest.mark.parametrize("attack", ["internal entity", "file entity", "network entity", "external DTD",
                                    "parameter entity", "billion laughs", "utf-16 doctype"])
async def test_dtds_and_entities_are_refused_unread(
        gw: tuple[str, list[str]], conn: asyncpg.Connection,  # noqa: F811
        spy: tuple[str, list[str]], tmp_path: object, attack: str) -> None:
    url, _ = gw
    spy_url, hits = spy
    secret = tmp_path / "secret.txt"  # type: ignore[operator]
    secret.write_text("CAFEBABE")
    doc = dict(entity_attacks(str(secret), spy_url))[attack]
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(doc)
        assert_client_fault(r, "31011")
        assert b"CAFE" not in r.body and b"lol" not in r.body and b"LEAKED" not in r.body
        await c.post(envelope(op("AQXmlCommit", "")))
    finally:
        await c.close()
    assert hits == []  # nothing was fetched
    assert await applied(conn) == 0


async def test_xinclude_is_not_processed(gw: tuple[str, list[str]], conn: asyncpg.Connection,  # noqa: F811
                                         tmp_path: object) -> None:
    url, _ = gw
    secret = tmp_path / "secret.txt"  # type: ignore[operator]
    secret.write_text("CAFEBABE")
    doc = send("AQUSER.RAW_MSGQ", f'<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" '
                                  f'href="file://{secret}" parse="text"/>')
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(doc.replace(b"</message_set>", b"</message_set><AQXmlCommit/>"))
        assert_client_fault(r)
        assert b"CAFEBABE" not in r.body
    finally:
        await c.close()
    assert await applied(conn) == 0


async def test_depth_limit(gw: tuple[str, list[str]], conn: asyncpg.Connection) -> None:  # noqa: F811
    url, _ = gw
    deep = "<A>" * 200 + "x" + "</A>" * 200
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(send("AQUSER.EMP_TOPIC", deep, "AQXmlPublish")
                         .replace(b"</message_set>", b"</message_set><AQXmlCommit/>"))
        assert_client_fault(r, "31011")
        assert b"nested deeper than 64" in r.body
    finally:
        await c.close()
    assert await applied(conn) == 0


SCHEMA_VIOLATIONS = [
    ("unknown element", envelope(op("AQXmlReceive",
        "<consumer_options><destination>AQUSER.RAW_MSGQ</destination><bogus/></consumer_options>"))),
    ("no destination", envelope(op("AQXmlReceive", "<consumer_options><wait_time>0</wait_time>"
                                                   "</consumer_options>"))),
    ("wait_time not a number", envelope(op("AQXmlReceive",
        "<consumer_options><destination>AQUSER.RAW_MSGQ</destination><wait_time>soon</wait_time>"
        "</consumer_options>"))),
    ("elements out of order", envelope(op("AQXmlSend",
        "<message_set><message><message_header><sender_id/></message_header><message_payload>"
        "<RAW>00</RAW></message_payload></message></message_set>"
        "<producer_options><destination>AQUSER.RAW_MSGQ</destination></producer_options>"
        "<AQXmlCommit/>"))),
    ("two operations", envelope(op("AQXmlCommit", "") + op("AQXmlRollback", ""))),
    ("text in the envelope", envelope("stray text" + op("AQXmlCommit", ""))),
    ("unknown header", envelope(op("AQXmlCommit", ""), "<Header><x:y xmlns:x='urn:x' "
                                "xmlns:s='http://schemas.xmlsoap.org/soap/envelope/' "
                                "s:mustUnderstand='1'/></Header>")),
]


@pytest.mark.parametrize(("name", "doc"), SCHEMA_VIOLATIONS, ids=[v[0] for v in SCHEMA_VIOLATIONS])
async def test_schema_violations_carry_an_error_code(
        gw: tuple[str, list[str]], conn: asyncpg.Connection, name: str, doc: bytes) -> None:  # noqa: F811
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(doc)
        if name == "unknown header":  # mustUnderstand="1": SOAP 1.1 4.2.3's own fault
            assert r.status == 500 and b"<faultcode>SOAP-ENV:MustUnderstand<" in r.body, r.body
        else:
            assert_client_fault(r)
        assert r.error_code in ("31154", "31011"), r.body
    finally:
        await c.close()
    assert await applied(conn) == 0


HOSTILE = ["O'Brien", "x'; DROP TABLE aquser.raw_qt; --", "a;b", "/* c */ --", "50%_off",
           "a<b&c>d", '"quoted"', "\\'"]


def xml_text(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@pytest.mark.parametrize("value", HOSTILE)
async def test_metacharacters_in_correlation_are_data(
        gw: tuple[str, list[str]], conn: asyncpg.Connection, value: str) -> None:  # noqa: F811
    """Sent and selected by correlation, the text comes back as it was; no table is harmed."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(send("AQUSER.RAW_MSGQ", "<RAW>0A</RAW>",
                              extra=f"<correlation>{xml_text(value)}</correlation>")
                         .replace(b"</message_set>", b"</message_set><AQXmlCommit/>"))
        assert r.status == 200, r.body
        stored = await conn.fetchval("SELECT corrid FROM aquser.raw_qt")
        assert stored == value
        r = await c.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.RAW_MSGQ</destination><wait_time>0</wait_time>"
            f"<selector><correlation>{xml_text(value)}</correlation></selector></consumer_options>"
            "<AQXmlCommit/>")))
        assert r.status == 200, r.body
        assert r.text("//aq:message_header/aq:correlation") == [value]
        assert await conn.fetchval("SELECT count(*) FROM aquser.raw_qt WHERE state = 0") == 0
    finally:
        await c.close()
    for table in TABLES:
        assert await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", table)


@pytest.mark.parametrize("value", HOSTILE)
async def test_metacharacters_in_consumer_name_match_no_one(
        gw: tuple[str, list[str]], conn: asyncpg.Connection, value: str) -> None:  # noqa: F811
    """A hostile consumer_name is a name no subscriber has: refused or given nothing, and
    APP1's message stays for APP1."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(send("AQUSER.EMP_TOPIC", "<EMP_TYP><EMPNO>1</EMPNO></EMP_TYP>", "AQXmlPublish")
                         .replace(b"</message_set>", b"</message_set><AQXmlCommit/>"))
        assert r.status == 200, r.body
        r = await c.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.EMP_TOPIC</destination>"
            f"<consumer_name>{xml_text(value)}</consumer_name><wait_time>0</wait_time>"
            "</consumer_options><AQXmlCommit/>")))
        if r.status == 500:
            assert_client_fault(r)
        else:
            assert r.status == 200 and r.text("//aq:message_count") == ["0"], r.body
        r = await c.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.EMP_TOPIC</destination>"
            "<consumer_name>APP1</consumer_name><wait_time>0</wait_time>"
            "</consumer_options><AQXmlCommit/>")))
        assert r.text("//aq:message_count") == ["1"], r.body
    finally:
        await c.close()


@pytest.mark.parametrize("value", HOSTILE)
async def test_metacharacters_in_destination_are_refused(
        gw: tuple[str, list[str]], conn: asyncpg.Connection, value: str) -> None:  # noqa: F811
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(send(f"AQUSER.RAW_MSGQ{xml_text(value)}", "<RAW>00</RAW>")
                         .replace(b"</message_set>", b"</message_set><AQXmlCommit/>"))
        assert_client_fault(r)
    finally:
        await c.close()
    assert await applied(conn) == 0


CONDITIONS = [
    "tab.user_data.deptno = 60; DROP TABLE aquser.emp_qt",
    "tab.user_data.deptno = 60 -- ",
    "tab.user_data.deptno = 60 /* x */",
    "tab.user_data.ename = 'a'' OR ''1''=''1'",
    "tab.user_data.ename LIKE '%'",
    "tab.user_data.deptno < 100) OR (1=1",
    "(SELECT 1) = 1",
    "pg_sleep(1) IS NULL",
]


@pytest.mark.parametrize("condition", CONDITIONS)
async def test_metacharacters_in_condition_are_parsed_not_run(
        gw: tuple[str, list[str]], conn: asyncpg.Connection, condition: str) -> None:  # noqa: F811
    """A condition is parsed by pgaq's grammar: what it cannot parse is refused with the
    position; what it can (a quoted string, LIKE '%') selects by value."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(send("AQUSER.EMP_TOPIC",
                              "<EMP_TYP><EMPNO>1</EMPNO><ENAME>Mary</ENAME><DEPTNO>60</DEPTNO></EMP_TYP>",
                              "AQXmlPublish")
                         .replace(b"</message_set>", b"</message_set><AQXmlCommit/>"))
        assert r.status == 200, r.body
        r = await c.post(envelope(op("AQXmlReceive",
            "<consumer_options><destination>AQUSER.EMP_TOPIC</destination>"
            "<consumer_name>APP1</consumer_name><wait_time>0</wait_time>"
            f"<selector><condition>{xml_text(condition)}</condition></selector>"
            "</consumer_options><AQXmlCommit/>")))
        if "LIKE" in condition:
            assert r.status == 200 and r.text("//aq:message_count") == ["1"], r.body
        elif "''" in condition:
            assert r.status == 200 and r.text("//aq:message_count") == ["0"], r.body
        else:
            assert_client_fault(r)
    finally:
        await c.close()
    assert await conn.fetchval("SELECT to_regclass('aquser.emp_qt') IS NOT NULL")


async def test_unknown_queue_and_wrong_payload_apply_nothing(
        gw: tuple[str, list[str]], conn: asyncpg.Connection) -> None:  # noqa: F811
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    try:
        r = await c.post(send("AQUSER.NO_SUCH_QUEUE", "<RAW>00</RAW>")
                         .replace(b"</message_set>", b"</message_set><AQXmlCommit/>"))
        assert_client_fault(r, "24010")
        r = await c.post(send("QS.NEW_ORDERS_QUE", "<RAW>00</RAW>")
                         .replace(b"</message_set>", b"</message_set><AQXmlCommit/>"))
        assert_client_fault(r)
        r = await c.post(send("AQUSER.JMS_TEXTQ", "<EMP_TYP><EMPNO>1</EMPNO></EMP_TYP>")
                         .replace(b"</message_set>", b"</message_set><AQXmlCommit/>"))
        assert_client_fault(r)
    finally:
        await c.close()
    assert await applied(conn) == 0


async def test_a_partly_invalid_message_set_enqueues_nothing(
        gw: tuple[str, list[str]], conn: asyncpg.Connection) -> None:  # noqa: F811
    """Inside a session's open transaction too: what the session did before stays, the
    set itself leaves nothing, and committing afterwards keeps only the earlier work."""
    url, _ = gw
    c = Client(url, "JOHN", "secret")
    emps = "".join(
        f"<message><message_number>{i}</message_number><message_header><sender_id/>"
        f"</message_header><message_payload><EMP_TYP><EMPNO>{n}</EMPNO></EMP_TYP>"
        "</message_payload></message>" for i, n in ((1, "1"), (2, "2"), (3, "99999")))
    try:
        r = await c.post(send("AQUSER.RAW_MSGQ", "<RAW>01</RAW>"))  # opens the transaction
        assert r.status == 200, r.body
        r = await c.post(envelope(op("AQXmlPublish",
            "<producer_options><destination>AQUSER.EMP_TOPIC</destination></producer_options>"
            f"<message_set><message_count>3</message_count>{emps}</message_set>")))
        assert_client_fault(r, "1438")  # EMPNO is numeric(4)
        r = await c.post(envelope(op("AQXmlCommit", "")))
        assert r.status == 200, r.body
    finally:
        await c.close()
    assert await conn.fetchval("SELECT count(*) FROM aquser.emp_qt") == 0
    assert await conn.fetchval("SELECT count(*) FROM aquser.raw_qt") == 1
