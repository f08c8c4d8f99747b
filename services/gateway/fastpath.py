"""A lean HTTP/1.1 server for the servlet's common POST, in front of aiohttp.

Why: a gateway worker spends about a quarter of a one-message AQXmlSend's CPU in aiohttp's
server machinery (protocol, request and response objects, middlewares, routing, writer).
This protocol owns the TCP port, parses heads with httphead.py and serves itself only
the plain case: POST to exactly the servlet path, one valid Content-Length within the body
limit, an XML or form content type, no Transfer-Encoding, Expect, Content-Encoding or
Upgrade, and a session cookie that is absent or this worker's. It keeps connections
alive, answers pipelined requests in order and closes idle ones.

Anything else hands the connection over to aiohttp for good: the first request it does
not serve (a GET, /metrics, a chunked body, `Expect: 100-continue`, an oversized or
malformed request, a forwarded or another worker's session, ...) is fed, with whatever
follows, to a protocol made by the runner's `web.Server`, which answers exactly as it
always has. Everything after HTTP parsing is servlet.handle_post, shared with aiohttp's
handler. PGAQ_GATEWAY_FASTPATH=0 serves the port with plain aiohttp instead
(app.tcp_site).
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import time
from http import HTTPStatus
from typing import cast

from aiohttp import web
from aiohttp.helpers import rfc822_formatted_time
from aiohttp.http import SERVER_SOFTWARE
from pgaq.idap.auth import certificate_subject

from .access import RequestInfo, write
from .exchange import Reply
from .httphead import Head, HeadError, parse_head
from .servlet import COOKIE, FORM_TYPE, XML_TYPES, Context, handle_post
from .workers import FORWARDED

log = logging.getLogger("pgaq.gateway.fastpath")
HEAD_LIMIT = 8190  # aiohttp's own line limit: a longer head is left to its checks
MAX_FIELDS = 100  # below aiohttp's max_headers (128)
_MEDIA = frozenset((*XML_TYPES, FORM_TYPE))
_NOT_FAST = frozenset(("transfer-encoding", "expect", "content-encoding", "upgrade",
                       FORWARDED.lower()))
_COOKIE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
_REASONS = {s.value: s.phrase for s in HTTPStatus}
_access = logging.getLogger("pgaq.gateway.access")


class _Unusual(Exception):
    """A request the fast path leaves to aiohttp."""


def session_cookie(header: str | None) -> str | None:
    """The JSESSIONID value of a plain Cookie header; _Unusual for anything aiohttp's
    parser might read differently (quotes, odd characters, the cookie twice)."""
    if not header:
        return None
    found: str | None = None
    for part in header.split(";"):
        name, eq, value = part.strip().partition("=")
        if not eq:
            if name:
                raise _Unusual("cookie without a value")
            continue
        if name.strip() != COOKIE:
            continue
        if found is not None or not value or not _COOKIE_CHARS.issuperset(value):
            raise _Unusual("unusual session cookie")
        found = value
    return found


class _FastPost:
    """A request parsed here, as the servlet sees it (exchange.Incoming)."""

    __slots__ = ("_body", "_head", "_subject", "content_type", "cookie")

    def __init__(self, head: Head, body: bytes, content_type: str, cookie: str | None,
                 subject: str | None = None) -> None:
        self._head = head
        self._body = body
        self.content_type = content_type
        self.cookie = cookie
        self._subject = subject

    @property
    def path_qs(self) -> str:
        return self._head.target

    def header(self, name: str) -> str | None:
        return self._head.fields.get(name.lower())

    def client_subject(self) -> str | None:
        return self._subject

    async def read(self) -> bytes:
        return self._body


class Hub:
    """What the connections of one listening socket share, and their shutdown."""

    def __init__(self, ctx: Context, server: web.Server, keepalive_timeout: float) -> None:
        self.ctx = ctx
        self.server = server
        self.path = ctx.settings.path
        self.body_limit = ctx.settings.body_limit
        self.keepalive_timeout = keepalive_timeout
        self.connections: set[FastProtocol] = set()
        self.closing = False

    def __call__(self) -> FastProtocol:
        return FastProtocol(self)

    def check(self, head: Head) -> tuple[int, str, str | None]:
        """(body size, media type, session cookie) of a request served here; _Unusual
        (or HeadError) for one aiohttp should answer."""
        if head.method != "POST" or head.target != self.path or head.repeated:
            raise _Unusual("not the servlet's plain POST")
        fields = head.fields
        if not _NOT_FAST.isdisjoint(fields):
            raise _Unusual("a header the fast path leaves to aiohttp")
        if head.minor == 1 and "host" not in fields:
            raise _Unusual("HTTP/1.1 without Host")
        size = head.content_length
        if size is None or size > self.body_limit:
            raise _Unusual("no Content-Length, or over the limit")
        media = fields.get("content-type", "").partition(";")[0].strip().lower()
        if media not in _MEDIA:
            raise _Unusual("another content type")
        token = session_cookie(fields.get("cookie"))
        if token is not None:
            store = self.ctx.store
            if store.owner_of(token) != store.prefix:
                raise _Unusual("another worker's session")
        return size, media, token

    async def drain(self, timeout: float) -> None:
        """Shutdown: idle connections close now; in-flight requests get `timeout` seconds
        to finish, then are cancelled (their sessions' transactions are rolled back)."""
        self.closing = True
        busy = []
        for conn in list(self.connections):
            task = conn.shutdown()
            if task is not None:
                busy.append(task)
        if not busy:
            return
        _, late = await asyncio.wait(busy, timeout=timeout)
        for task in late:
            task.cancel()
        if late:
            await asyncio.wait(late, timeout=5.0)


class FastProtocol(asyncio.Protocol):
    """One client connection: served here until its first unusual request, then relayed
    to aiohttp's protocol."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.head: Head | None = None  # parsed, waiting for its body
        self.need = 0  # bytes the pending request needs in `buf`
        self.media = ""  # the pending request's media type and session cookie
        self.token: str | None = None
        self.task: asyncio.Task[None] | None = None
        self.aiohttp: asyncio.Protocol | None = None
        self.remote: str | None = None
        self.subject: str | None = None  # the verified client certificate's (TLS only)
        self.closing = False
        self.write_paused = False
        self.read_paused = False
        self.idle_since = 0.0
        self.idle_timer: asyncio.TimerHandle | None = None

    # -- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, only alike
        self.transport = transport = cast(asyncio.Transport, transport)
        peer = transport.get_extra_info("peername")
        self.remote = peer[0] if isinstance(peer, tuple) and peer else None
        # asyncio and uvloop call connection_made after the TLS handshake
        self.subject = certificate_subject(transport.get_extra_info("peercert"))
        self.hub.connections.add(self)
        if self.hub.closing:
            transport.close()
            return
        self.idle_since = self.loop.time()
        self.idle_timer = self.loop.call_at(self.idle_since + self.hub.keepalive_timeout,
                                            self._idle_check)

    def data_received(self, data: bytes) -> None:
        if self.aiohttp is not None:
            self.aiohttp.data_received(data)
            return
        self.buf += data
        if self.task is not None:
            if not self.read_paused and len(self.buf) > HEAD_LIMIT + self.hub.body_limit:
                self.read_paused = True  # a flood of pipelined requests: wait for this one
                assert self.transport is not None
                self.transport.pause_reading()
            return
        if len(self.buf) >= self.need:
            self._advance()

    def eof_received(self) -> bool | None:
        if self.aiohttp is not None:
            return self.aiohttp.eof_received()
        # as aiohttp: the client's end of sending is its going away; the transport closes
        # and connection_lost cancels what is in flight (a blocking receive ends)
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.hub.connections.discard(self)
        if self.idle_timer is not None:
            self.idle_timer.cancel()
        if self.aiohttp is not None:
            self.aiohttp.connection_lost(exc)
            return
        self.closing = True
        if self.task is not None:
            self.task.cancel()  # the client went away: as aiohttp's handler_cancellation

    def pause_writing(self) -> None:
        if self.aiohttp is not None:
            self.aiohttp.pause_writing()
            return
        self.write_paused = True

    def resume_writing(self) -> None:
        if self.aiohttp is not None:
            self.aiohttp.resume_writing()
            return
        self.write_paused = False
        if self.task is None:
            self._advance()

    # -- requests

    def _advance(self) -> None:
        """Start the next complete request in `buf`, if nothing is in flight."""
        transport = self.transport
        if (self.task is not None or self.closing or self.write_paused or transport is None
                or transport.is_closing()):
            return
        head = self.head
        if head is None:
            if not self.buf:
                return
            try:
                head = parse_head(self.buf, HEAD_LIMIT, MAX_FIELDS)
                if head is None:
                    return
                size, media, token = self.hub.check(head)
            except (HeadError, _Unusual) as exc:
                self._handoff(str(exc))
                return
            self.head = head
            self.media, self.token = media, token
            self.need = head.size + size
        if len(self.buf) < self.need:
            return
        body = bytes(self.buf[head.size:self.need])
        del self.buf[:self.need]
        self.head, self.need = None, 0
        request = _FastPost(head, body, self.media, self.token, self.subject)
        self.task = self.loop.create_task(self._serve(head, request, len(body)))

    async def _serve(self, head: Head, request: _FastPost, bytes_in: int) -> None:
        started = time.perf_counter()
        record = RequestInfo()
        status, size = 500, 0
        keep_alive = head.keep_alive
        try:
            try:
                reply = await handle_post(self.hub.ctx, request, record)
            except asyncio.CancelledError:
                status = 499  # the client went away before the answer
                raise
            except Exception:
                log.exception("request failed")
                reply = Reply(500, [("Content-Type", "text/plain; charset=utf-8")],
                              b"500 Internal Server Error\n\nServer got itself in trouble")
                keep_alive = False
            if self.hub.closing or self.closing:
                keep_alive = False
            status, size = reply.status, len(reply.body)
            transport = self.transport
            assert transport is not None
            if not transport.is_closing():
                transport.write(render(reply, head.minor, keep_alive))
            if not keep_alive:
                self.closing = True
                transport.close()
        finally:
            if _access.isEnabledFor(logging.INFO):
                write(logging.INFO, head.method, head.target, record, status, started,
                      bytes_in, size, self.remote)
            self._done()

    def _done(self) -> None:
        self.task = None
        self.idle_since = self.loop.time()
        if self.read_paused and self.transport is not None and not self.closing:
            self.read_paused = False
            self.transport.resume_reading()
        if not self.closing:
            self._advance()

    def _handoff(self, reason: str) -> None:
        """From now on aiohttp serves this connection, starting with what is buffered."""
        transport = self.transport
        assert transport is not None and self.task is None
        log.debug("connection handed to aiohttp: %s", reason)
        self.hub.connections.discard(self)
        if self.idle_timer is not None:
            self.idle_timer.cancel()
            self.idle_timer = None
        proto = self.hub.server()
        self.aiohttp = proto
        proto.connection_made(transport)
        if self.write_paused:
            proto.pause_writing()
        data, self.buf = bytes(self.buf), bytearray()
        if data:
            proto.data_received(data)

    def _idle_check(self) -> None:
        """Close a keep-alive connection left idle too long."""
        self.idle_timer = None
        if self.aiohttp is not None or self.transport is None:
            return
        due = self.idle_since + self.hub.keepalive_timeout
        if self.task is None and self.loop.time() >= due:
            self.closing = True
            self.transport.close()
            return
        later = self.loop.time() + self.hub.keepalive_timeout if self.task else due
        self.idle_timer = self.loop.call_at(later, self._idle_check)

    def shutdown(self) -> asyncio.Task[None] | None:
        """The request in flight (the connection closes after it), or None: closed now."""
        if self.task is not None:
            return self.task
        self.closing = True
        if self.transport is not None:
            self.transport.close()
        return None


def render(reply: Reply, minor: int, keep_alive: bool) -> bytes:
    """The response as aiohttp writes it: same header order, Date and Server."""
    lines = [f"HTTP/1.{minor} {reply.status} {_REASONS.get(reply.status, '')}"]
    lines.extend(f"{name}: {value}" for name, value in reply.headers)
    lines.append(f"Content-Length: {len(reply.body)}")
    lines.extend(f"Set-Cookie: {value}" for value in reply.cookies)
    lines.append(f"Date: {rfc822_formatted_time()}")
    lines.append(f"Server: {SERVER_SOFTWARE}")
    if keep_alive:
        if minor == 0:
            lines.append("Connection: keep-alive")
    elif minor == 1:
        lines.append("Connection: close")
    lines.append("\r\n")
    return "\r\n".join(lines).encode("utf-8") + reply.body


class FastSite(web.BaseSite):
    """web.TCPSite's place in the runner, serving through FastProtocol."""

    def __init__(self, runner: web.AppRunner, ctx: Context, host: str, port: int, *,
                 ssl_context: ssl.SSLContext | None = None, reuse_port: bool | None = None,
                 shutdown_timeout: float = 10.0, keepalive_timeout: float = 75.0) -> None:
        super().__init__(runner, ssl_context=ssl_context)
        self._host = host
        self._port = port
        self._reuse_port = reuse_port
        self._shutdown_timeout = shutdown_timeout
        server = runner.server
        assert server is not None
        self.hub = Hub(ctx, server, keepalive_timeout)

    @property
    def name(self) -> str:
        scheme = "https" if self._ssl_context else "http"
        return f"{scheme}://{self._host}:{self._port}"

    async def start(self) -> None:
        self._runner._reg_site(self)
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            self.hub, self._host, self._port, ssl=self._ssl_context, backlog=self._backlog,
            reuse_port=self._reuse_port)

    async def stop(self) -> None:
        self._runner._check_site(self)
        if self._server is not None:
            self._server.close()
        await self.hub.drain(self._shutdown_timeout)
        self._runner._unreg_site(self)

