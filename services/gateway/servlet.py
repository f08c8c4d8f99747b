"""The servlet's POST, independent of the HTTP server that received it.

Both transports (aiohttp's handler in app.py and the lean protocol in fastpath.py) call
`handle_post`, so authentication, content types, sessions, the IDAP operation, metrics,
faults, the session cookie and the access-log fields are decided in one place only.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qs

import asyncpg
from aiohttp import web
from pgaq.errors import wrap_db_error
from pgaq.idap.auth import Authenticator
from pgaq.idap.gateway import XML_PARSE_FAILED, Fault, Gateway, document_fault, to_fault
from pgaq.idap.hooks import HookCall
from pgaq.idap.sessions import SessionError, SessionStore

from .access import RequestInfo, session_ref
from .exchange import Incoming, Reply
from .workers import FORWARDED, Forwarder

if TYPE_CHECKING:
    from .metrics import Metrics
    from .settings import Settings

COOKIE = "JSESSIONID"
XML_TYPES = ("text/xml", "application/xml", "application/soap+xml")
FORM_TYPE = "application/x-www-form-urlencoded"
XML_CONTENT_TYPE = "text/xml; charset=utf-8"
TEXT_CONTENT_TYPE = "text/plain; charset=utf-8"
UNAUTHORIZED_BODY = b"authentication required\n"
UNSUPPORTED_BODY = (b"use Content-Type text/xml or application/x-www-form-urlencoded "
                    b"(aqxmldoc)\n")


@dataclass(slots=True)
class Context:
    """The running gateway's parts a request uses (built once, when the app has started)."""

    settings: Settings
    metrics: Metrics
    gateway: Gateway
    store: SessionStore
    auth: Authenticator
    forwarder: Forwarder


def _cookie_parts(secure: bool) -> tuple[str, str]:
    """aiohttp's own Set-Cookie text for the session cookie, split around the token, so
    both transports send exactly what `resp.set_cookie` would."""
    mark = "TOKENMARK"
    resp = web.Response()
    resp.set_cookie(COOKIE, mark, httponly=True, samesite="Strict", secure=secure, path="/")
    text = resp.cookies[COOKIE].output(header="")[1:]
    before, _, after = text.partition(mark)
    return before, after


def _drop_cookie() -> str:
    resp = web.Response()
    resp.del_cookie(COOKIE, path="/")
    return resp.cookies[COOKIE].output(header="")[1:]


_SET = {False: _cookie_parts(False), True: _cookie_parts(True)}
_DROP = _drop_cookie()
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")


def set_cookie_value(token: str, secure: bool) -> str:
    """The Set-Cookie value that hands `token` to the client."""
    if not _TOKEN_CHARS.issuperset(token):  # would need quoting: let aiohttp write it
        resp = web.Response()
        resp.set_cookie(COOKIE, token, httponly=True, samesite="Strict", secure=secure,
                        path="/")
        return resp.cookies[COOKIE].output(header="")[1:]
    before, after = _SET[secure]
    return before + token + after


def xml_reply(body: bytes, status: int = 200, cookie: str | None = None, secure: bool = False,
              drop: bool = False) -> Reply:
    """A text/xml reply; `cookie` sets the session cookie, `drop` expires a stale one (a
    session that ended), so clients stop presenting it."""
    cookies: list[str] = []
    if cookie:
        cookies.append(set_cookie_value(cookie, secure))
    elif drop:
        cookies.append(_DROP)
    return Reply(status, [("Content-Type", XML_CONTENT_TYPE)], body, cookies)


# SOAP 1.1's HTTP binding (6.2): a response holding a SOAP Fault is HTTP 500, whatever
# its faultcode (Client, Server, MustUnderstand); 401/413/415 stay HTTP-level refusals
FAULT_STATUS = 500


def _fault(ctx: Context, record: RequestInfo, fault: Fault, cookie: str | None = None,
           secure: bool = False, drop: bool = False) -> Reply:
    record.fault = fault.faultcode or ("Client" if fault.client else "Server")
    record.error_code = None if fault.code is None else str(fault.code)
    return xml_reply(ctx.gateway.fault_bytes(fault), FAULT_STATUS, cookie, secure, drop=drop)


def _note(record: RequestInfo, operation: str, token: str | None, in_tx: bool) -> None:
    """The operation and the session it leaves behind, for the request's log line."""
    record.operation = operation
    if token:
        record.session = session_ref(token)
    record.transaction = in_tx


async def handle_post(ctx: Context, req: Incoming, record: RequestInfo) -> Reply:
    """One IDAP POST, from credentials to the reply (see the module docstring)."""
    metrics = ctx.metrics
    started = time.perf_counter()
    try:
        agent = await ctx.auth.check_request(req.header("Authorization"), req.client_subject())
    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
        # the database went away mid-check (a restart): a Server fault the client may retry
        metrics.count("auth", "server_fault")
        return _fault(ctx, record, to_fault(wrap_db_error(exc)))
    if agent is None:
        metrics.count("auth", "unauthorized")
        return Reply(401, [("WWW-Authenticate", 'Basic realm="pgaq"'),
                           ("Content-Type", TEXT_CONTENT_TYPE)], UNAUTHORIZED_BODY)
    record.agent = agent
    ctype = req.content_type
    raw = await req.read()
    if ctype == FORM_TYPE:
        fields = parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True)
        docs = fields.get("aqxmldoc")
        if not docs:
            return _fault(ctx, record, document_fault("form field aqxmldoc is required",
                                                      XML_PARSE_FAILED))
        document = docs[0].encode("utf-8")
    elif ctype in XML_TYPES:
        document = raw
    else:
        metrics.count("unknown", "unsupported_media")
        return Reply(415, [("Content-Type", TEXT_CONTENT_TYPE)], UNSUPPORTED_BODY)
    settings = ctx.settings
    secure = settings.tls_cert is not None
    token = req.cookie
    record.session = session_ref(token)
    store = ctx.store
    if token and settings.workers > 1 and req.header(FORWARDED) is None:
        owner = store.owner_of(token)
        if owner and owner != store.prefix and ctx.forwarder.has(owner):
            forwarded = await ctx.forwarder.forward(owner, req, raw)
            if forwarded is not None:
                record.operation = "forwarded"  # the owning worker logs the operation
                return forwarded
        # a sibling that is gone, or another instance: store.get tells the client that the
        # session's transaction went with its process
    try:
        session = await store.claim(token, agent)
    except SessionError as exc:
        metrics.count("session", "client_fault")
        return _fault(ctx, record, Fault(True, str(exc), exc.code), drop=exc.drop)
    operation = "unknown"
    try:
        try:
            call = (HookCall(req, document, req.path_qs, max_depth=settings.max_depth)
                    if ctx.gateway.has_hooks else None)
            operation, body = await ctx.gateway.handle(
                session, document, call, req.header("SOAPMethodName"),
                req.header("SOAPAction"))
        except asyncio.CancelledError:
            # the client went away: the session's transaction cannot be trusted
            await store.abort(session)
            raise
        finally:
            session.last_used = time.monotonic()
            session.lock.release()
    except Fault as fault:
        operation = fault.operation
        metrics.count(operation, "client_fault" if fault.client else "server_fault")
        cookie = session.token if store.keep(session) else None
        metrics.observe_store(store)
        _note(record, operation, session.token if cookie else None, session.in_transaction)
        return _fault(ctx, record, fault, cookie, secure, drop=bool(token))
    metrics.count(operation, "ok", time.perf_counter() - started)
    cookie = session.token if store.keep(session) else None
    metrics.observe_store(store)
    _note(record, operation, session.token if cookie else None, session.in_transaction)
    return xml_reply(body, 200, cookie, secure, drop=bool(token))
