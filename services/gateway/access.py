"""One structured log line per HTTP request (logger `pgaq.gateway.access`).

aiohttp's own access log is off (it cannot see the IDAP operation or the agent); this
middleware (and the fast path, through `write`) writes what an operator needs to follow a
request and nothing a log reader could abuse: no Authorization header, password, payload
or query string, and the session cookie only as a short digest (the cookie itself is a bearer credential).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from dataclasses import dataclass

from aiohttp import web
from aiohttp.typedefs import Handler
from pgaq.logs import fields

log = logging.getLogger("pgaq.gateway.access")
QUIET = ("/health", "/metrics")  # probes: DEBUG, so they do not drown the requests


@dataclass
class RequestInfo:
    """What the servlet learned about a request, for its log line."""

    operation: str | None = None
    agent: str | None = None
    session: str | None = None  # digest of the session cookie
    transaction: bool | None = None  # the session holds an open transaction afterwards
    fault: str | None = None  # Client or Server
    error_code: str | None = None


INFO = web.RequestKey("pgaq_access", RequestInfo)  # filled in by the handlers


def session_ref(token: str | None) -> str | None:
    """A stable, non-reversible name for a session in logs."""
    if not token:
        return None
    return hashlib.sha256(token.encode()).hexdigest()[:12]


def info(request: web.Request) -> RequestInfo:
    got: RequestInfo | None = request.get(INFO)
    if got is not None:
        return got
    fresh = RequestInfo()
    request[INFO] = fresh
    return fresh


def _size(resp: web.StreamResponse) -> int:
    if isinstance(resp, web.Response) and isinstance(resp.body, bytes):
        return len(resp.body)
    return resp.content_length or 0


@web.middleware
async def access_log(request: web.Request, handler: Handler) -> web.StreamResponse:
    started = time.perf_counter()
    record = info(request)
    status, size = 500, 0
    try:
        resp = await handler(request)
        status, size = resp.status, _size(resp)
        return resp
    except web.HTTPException as exc:
        status = exc.status
        raise
    except asyncio.CancelledError:
        status = 499  # the client went away before the answer
        raise
    finally:
        level = logging.DEBUG if request.path in QUIET else logging.INFO
        if log.isEnabledFor(level):
            write(level, request.method, request.path, record, status, started,
                  request.content_length or 0, size, request.remote)


def write(level: int, method: str, path: str, record: RequestInfo, status: int,
          started: float, bytes_in: int, bytes_out: int, remote: str | None) -> None:
    """The line itself, shared with the fast path (fastpath.py) so both read the same."""
    log.log(level, "request", extra=fields(
        method=method, path=path, operation=record.operation, agent=record.agent,
        session=record.session, transaction=record.transaction, status=status,
        fault=record.fault, error_code=record.error_code,
        duration_ms=round((time.perf_counter() - started) * 1000, 2),
        bytes_in=bytes_in, bytes_out=bytes_out, remote=remote))
