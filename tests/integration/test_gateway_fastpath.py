"""The gateway's fast path (services/gateway/fastpath.py) over raw sockets on loopback:
keep-alive, pipelining, the hand-over to aiohttp on the same connection, and replies that
mean exactly what aiohttp's meant."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import quote_plus, urlsplit

import asyncpg
import pytest

from tests.unit import idap_examples as ex

from .gateway_support import envelope, op, running_gateway
from .test_gateway import (
    gw,  # noqa: F401  (the fixture: an agent JOHN and the examples' queues)
    send,
)

AUTH = "Basic " + base64.b64encode(b"JOHN:secret").decode()
RAW_SEND = send("AQUSER.RAW_MSGQ", "<RAW>0A0B</RAW>")
COMMIT = ex.EXAMPLE_17_14.encode()
SEND_COMMIT = envelope(op("AQXmlSend",
    "<producer_options><destination>AQUSER.RAW_MSGQ</destination></producer_options>"
    "<message_set><message><message_header><sender_id/></message_header>"
    "<message_payload><RAW>0C</RAW></message_payload></message></message_set><AQXmlCommit/>"))
FASTPATH_LOG = "pgaq.gateway.fastpath"


@dataclass
class Answer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    head: bytes

    def header(self, name: str) -> str | None:
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    def all(self, name: str) -> list[str]:
        return [v for k, v in self.headers if k.lower() == name.lower()]


class Conn:
    """One raw HTTP/1.x connection to the gateway."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 host: str) -> None:
        self.reader, self.writer, self.host = reader, writer, host

    @classmethod
    async def open(cls, url: str) -> Conn:
        u = urlsplit(url)
        reader, writer = await asyncio.open_connection(u.hostname, u.port)
        return cls(reader, writer, f"{u.hostname}:{u.port}")

    def request(self, body: bytes, *, method: str = "POST", path: str = "/aqserv/servlet",
                version: str = "1.1", cookie: str | None = None,
                extra: tuple[str, ...] = (), length: bool = True,
                content_type: str = "text/xml") -> bytes:
        lines = [f"{method} {path} HTTP/{version}", f"Host: {self.host}",
                 f"Authorization: {AUTH}", f"Content-Type: {content_type}"]
        if length:
            lines.append(f"Content-Length: {len(body)}")
        if cookie:
            lines.append(f"Cookie: JSESSIONID={cookie}")
        lines.extend(extra)
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + body

    def send(self, data: bytes) -> None:
        self.writer.write(data)

    async def answer(self) -> Answer:
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), 30)
        status_line, *lines = head.decode("latin-1").rstrip("\r\n").split("\r\n")
        headers = [(k, v.strip()) for k, _, v in (line.partition(":") for line in lines)]
        a = Answer(int(status_line.split(" ")[1]), headers, b"", head)
        if a.status == 100:
            return await self.answer()
        if a.header("Transfer-Encoding") == "chunked":
            body = b""
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
                chunk = await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                body += chunk[:-2]
            a.body = body
        else:
            a.body = await self.reader.readexactly(int(a.header("Content-Length") or "0"))
        return a

    async def closed(self) -> bool:
        """True when the server closed the connection (nothing more to read)."""
        return await asyncio.wait_for(self.reader.read(1), 30) == b""

    async def close(self) -> None:
        self.writer.close()
        try:
            await self.writer.wait_closed()
        except OSError:
            pass


@contextlib.asynccontextmanager
async def opened(url: str) -> AsyncIterator[Conn]:
    """A client connection for the length of a block."""
    c = await Conn.open(url)
    try:
        yield c
    finally:
        await c.close()


def cookie_of(a: Answer) -> str | None:
    for value in a.all("Set-Cookie"):
        m = re.match(r'JSESSIONID=([^;]*);', value)
        if m and m.group(1) != '""':
            return m.group(1)
    return None


def handed_over(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == FASTPATH_LOG]


async def raw_count(conn: asyncpg.Connection) -> int:
    return int(await conn.fetchval("SELECT count(*) FROM aquser.raw_qt"))


@pytest.fixture
def fp_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """The fast path's own log (hand-overs to aiohttp), captured."""
    caplog.set_level(logging.DEBUG, logger=FASTPATH_LOG)
    return caplog


async def test_keep_alive_many_requests_one_connection(
        gw: tuple[str, list[str]], conn: asyncpg.Connection,  # noqa: F811
        fp_log: pytest.LogCaptureFixture) -> None:
    url, _ = gw
    async with opened(url) as c:
        for _ in range(40):
            c.send(c.request(SEND_COMMIT))
            a = await c.answer()
            assert a.status == 200, a.body
            assert a.header("Connection") is None  # HTTP/1.1 keeps the connection
            assert b"<status_code>0</status_code>" in a.body
    assert await raw_count(conn) == 40
    assert handed_over(fp_log) == []  # all of them served by the fast path


async def test_pipelined_requests_are_answered_in_order(
        gw: tuple[str, list[str]], fp_log: pytest.LogCaptureFixture) -> None:  # noqa: F811
    url, _ = gw
    async with opened(url) as c:
        bad = send("AQUSER.NOPE", "<RAW>00</RAW>")
        c.send(c.request(SEND_COMMIT) + c.request(bad) + c.request(SEND_COMMIT))
        first, second, third = [await c.answer() for _ in range(3)]
        assert (first.status, second.status, third.status) == (200, 500, 200)
        assert b"24010" in second.body
    assert handed_over(fp_log) == []


async def test_get_after_posts_is_handed_to_aiohttp_on_the_same_connection(
        gw: tuple[str, list[str]], fp_log: pytest.LogCaptureFixture) -> None:  # noqa: F811
    url, _ = gw
    async with opened(url) as c:
        for _ in range(2):
            c.send(c.request(SEND_COMMIT))
            assert (await c.answer()).status == 200
        c.send(c.request(b"", method="GET", length=False))
        page = await c.answer()
        assert page.status == 200 and b"pgaq IDAP gateway" in page.body
        c.send(c.request(b"", method="GET", path="/aqserv/servlet?wsdl", length=False))
        wsdl = await c.answer()
        assert wsdl.status == 200 and b"definitions" in wsdl.body
        c.send(c.request(SEND_COMMIT))  # aiohttp serves the rest of the connection
        assert (await c.answer()).status == 200
    assert handed_over(fp_log) == ["connection handed to aiohttp: not the servlet's plain POST"]


async def test_chunked_and_expect_continue_posts_are_answered_by_aiohttp(
        gw: tuple[str, list[str]], conn: asyncpg.Connection,  # noqa: F811
        fp_log: pytest.LogCaptureFixture) -> None:
    url, _ = gw
    async with opened(url) as c:
        half = len(SEND_COMMIT) // 2
        chunked = b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (
            half, SEND_COMMIT[:half], len(SEND_COMMIT) - half, SEND_COMMIT[half:])
        c.send(c.request(b"", length=False, extra=("Transfer-Encoding: chunked",)) + chunked)
        a = await c.answer()
        assert a.status == 200, a.body
    async with opened(url) as c:
        c.send(c.request(b"", extra=("Expect: 100-continue",)).replace(
            b"Content-Length: 0", b"Content-Length: %d" % len(SEND_COMMIT)))
        interim = await asyncio.wait_for(c.reader.readuntil(b"\r\n\r\n"), 30)
        assert interim.startswith(b"HTTP/1.1 100 Continue")
        c.send(SEND_COMMIT)
        a = await c.answer()
        assert a.status == 200, a.body
    assert await raw_count(conn) == 2
    assert len(handed_over(fp_log)) == 2


async def test_body_over_the_limit_gets_413(gw: tuple[str, list[str]],  # noqa: F811
                                            db_dsn: str) -> None:
    async with running_gateway(db_dsn, body_limit=1000) as url:
        async with opened(url) as c:
            c.send(c.request(b"<x/>" * 300))
            a = await c.answer()
            assert a.status == 413
        async with opened(url) as c:
            c.send(c.request(SEND_COMMIT))  # within the limit: served
            assert (await c.answer()).status == 200


async def test_malformed_head_gets_aiohttp_400(gw: tuple[str, list[str]]) -> None:  # noqa: F811
    url, _ = gw
    async with opened(url) as c:
        c.send(c.request(SEND_COMMIT, extra=("Content-Length: 3",)))  # two lengths
        a = await c.answer()
        assert a.status == 400


async def test_connection_close_and_http10(gw: tuple[str, list[str]]) -> None:  # noqa: F811
    url, _ = gw
    async with opened(url) as c:
        c.send(c.request(SEND_COMMIT, extra=("Connection: close",)))
        a = await c.answer()
        assert a.status == 200 and a.header("Connection") == "close"
        assert await c.closed()
    async with opened(url) as c:
        c.send(c.request(SEND_COMMIT, version="1.0"))
        a = await c.answer()
        assert a.head.startswith(b"HTTP/1.0 200 OK\r\n") and a.header("Connection") is None
        assert await c.closed()
    async with opened(url) as c:
        for _ in range(2):
            c.send(c.request(SEND_COMMIT, version="1.0", extra=("Connection: keep-alive",)))
            a = await c.answer()
            assert a.status == 200 and a.header("Connection") == "keep-alive"


async def test_session_cookie_flow(gw: tuple[str, list[str]],  # noqa: F811
                                   conn: asyncpg.Connection) -> None:
    url, _ = gw
    async with opened(url) as c:
        c.send(c.request(RAW_SEND))  # opens a transaction: the cookie comes back
        a = await c.answer()
        token = cookie_of(a)
        assert a.status == 200 and token
        [set_cookie] = a.all("Set-Cookie")
        assert set_cookie == f"JSESSIONID={token}; HttpOnly; Path=/; SameSite=Strict"
        assert await raw_count(conn) == 0
        c.send(c.request(RAW_SEND, cookie=token))
        a = await c.answer()
        assert cookie_of(a) == token
        c.send(c.request(COMMIT, cookie=token))  # the transaction ends: the cookie is dropped
        a = await c.answer()
        assert a.status == 200
        assert a.all("Set-Cookie") == [
            'JSESSIONID=""; expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/']
        assert await raw_count(conn) == 2


def _normal(a: Answer) -> bytes:
    """An answer with what differs from run to run (date, tokens, ids) blanked out."""
    text = a.head + a.body
    text = re.sub(rb"Date: [^\r]*", b"Date: -", text)
    text = re.sub(rb"JSESSIONID=[A-Za-z0-9_.\-]+", b"JSESSIONID=-", text)
    return re.sub(rb"<message_id>[0-9A-F]+</message_id>", b"<message_id/>", text)


async def test_replies_are_byte_for_byte_those_of_aiohttp(
        gw: tuple[str, list[str]], db_dsn: str) -> None:  # noqa: F811
    async def script(url: str) -> list[bytes]:
        got = []
        async with opened(url) as c:
            c.send(c.request(RAW_SEND))
            a = await c.answer()
            got.append(_normal(a))
            token = cookie_of(a)
            for req in (c.request(send("AQUSER.NOPE", "<RAW>00</RAW>"), cookie=token),
                        c.request(COMMIT, cookie=token),
                        c.request(b"{}", content_type="application/json"),
                        c.request(b"aqxmldoc=" + quote_plus(COMMIT).encode(),
                                  content_type="application/x-www-form-urlencoded"),
                        c.request(b"x=1", content_type="application/x-www-form-urlencoded"),
                        c.request(COMMIT, extra=("Connection: close",))):
                c.send(req)
                got.append(_normal(await c.answer()))
        async with opened(url) as c:
            c.send(c.request(COMMIT).replace(AUTH.encode(),
                                             b"Basic " + base64.b64encode(b"JOHN:wrong")))
            got.append(_normal(await c.answer()))
        return got

    url, _ = gw
    fast = await script(url)
    async with running_gateway(db_dsn, session_timeout=2.0, max_wait=10.0,
                               fastpath=False) as plain_url:
        plain = await script(plain_url)
    for f, p in zip(fast, plain, strict=True):
        assert f == p, (f.decode(), p.decode())
    statuses = [int(x.split(b" ")[1]) for x in fast]
    assert statuses == [200, 500, 200, 415, 200, 500, 200, 401]  # Faults: HTTP 500


async def test_disconnect_mid_blocking_receive_releases_the_session(
        gw: tuple[str, list[str]], conn: asyncpg.Connection) -> None:  # noqa: F811
    url, _ = gw
    metrics_path = "/metrics"

    async def gauges() -> dict[str, float]:
        async with opened(url) as m:
            m.send(m.request(b"", method="GET", path=metrics_path, length=False))
            text = (await m.answer()).body.decode()
        return {line.split()[0]: float(line.split()[1]) for line in text.splitlines()
                if line.startswith(("pgaq_gateway_waiting_receivers ",
                                    "pgaq_gateway_open_transactions "))}

    c = await Conn.open(url)
    c.send(c.request(RAW_SEND))  # a transaction holding one uncommitted message
    token = cookie_of(await c.answer())
    assert token
    c.send(c.request(envelope(op("AQXmlReceive",
        "<consumer_options><destination>AQUSER.EMP_TOPIC</destination>"
        "<consumer_name>APP1</consumer_name><wait_time>60</wait_time></consumer_options>")),
        cookie=token))
    for _ in range(500):
        if (await gauges()).get("pgaq_gateway_waiting_receivers") == 1.0:
            break
    else:
        raise AssertionError("the receive never waited")
    await c.close()  # the client goes away mid-wait
    for _ in range(500):
        g = await gauges()
        if (g.get("pgaq_gateway_waiting_receivers"), g.get("pgaq_gateway_open_transactions")) \
                == (0.0, 0.0):
            break
    else:
        raise AssertionError(f"the session was not released: {g}")
    assert await raw_count(conn) == 0  # its transaction was rolled back


async def test_access_log_fields(gw: tuple[str, list[str]],  # noqa: F811
                                 caplog: pytest.LogCaptureFixture) -> None:
    url, _ = gw
    caplog.set_level(logging.INFO, logger="pgaq.gateway.access")
    async with opened(url) as c:
        c.send(c.request(SEND_COMMIT))
        a = await c.answer()
    [rec] = [r for r in caplog.records if r.name == "pgaq.gateway.access"]
    f = rec.__dict__["fields"]
    assert f["method"] == "POST" and f["path"] == "/aqserv/servlet"
    assert f["operation"] == "AQXmlSend" and f["agent"] == "JOHN" and f["status"] == 200
    assert f["transaction"] is False and "session" not in f
    assert f["bytes_in"] == len(SEND_COMMIT) and f["bytes_out"] == len(a.body)
    assert f["remote"] == "127.0.0.1" and f["duration_ms"] >= 0
