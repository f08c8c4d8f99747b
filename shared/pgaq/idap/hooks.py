"""Before/after operation hooks: Oracle's AQxmlCallback and its AQxmlCallbackContext.

A hook is an async function `hook(phase, operation, agent, conn)`. One that also takes a
keyword argument `call` gets this request's `HookCall`, the rest of what Oracle's callback
context offers: the HTTP request's headers, the parsed request document
(`parseRequestStream`) and a stylesheet for this response only (`setStyleSheet`, which
overrides the servlet's). Hooks written for the four arguments keep working unchanged.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import asyncpg
from lxml import etree

from .xmlsafe import parse

Hook = Callable[..., Awaitable[None]]
#: an xml-stylesheet processing instruction's (type, href)
Stylesheet = tuple[str, str]

_MEDIA_TYPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*")
# quotes, tags, control characters, what XML cannot hold (surrogates, U+FFFE, U+FFFF)
# and the instruction's end
_HREF_FORBIDDEN = re.compile('["<>\x00-\x1f\x7f\ud800-\udfff\ufffe\uffff]|\\?>')


class HasHeaders(Protocol):
    def header(self, name: str) -> str | None: ...


class NoHeaders:
    """A request that came without HTTP (a library caller of Gateway.handle)."""

    def header(self, name: str) -> str | None:
        return None


class HookCall:
    """One request as its hooks see it. Shared by every hook and phase of the request, so a
    `before` hook can leave a stylesheet that an `after` hook replaces."""

    __slots__ = ("_document", "_max_depth", "_request", "path", "stylesheet")

    def __init__(self, request: HasHeaders, document: bytes, path: str = "", *,
                 max_depth: int = 64) -> None:
        self._request = request
        self._document = document
        self._max_depth = max_depth  # the gateway's PGAQ_MAX_DEPTH: what it served, parses
        self.path = path
        self.stylesheet: Stylesheet | None = None

    def header(self, name: str) -> str | None:
        """An HTTP request header (case-insensitive). Authorization is withheld: the
        agent is already authenticated and its password is no hook's business. A request
        relayed from another gateway worker (its session lives there) carries only the
        headers the relay passes on (services/gateway/workers.py)."""
        if name.lower() == "authorization":
            return None
        return self._request.header(name)

    def request_document(self) -> etree._ElementTree:
        """The request as a fresh tree (Oracle's parseRequestStream): parsed again with
        the gateway's safe parser, so a hook may read or change it without touching the
        request being served."""
        return parse(self._document, max_depth=self._max_depth).getroottree()

    def set_stylesheet(self, href: str, type: str = "text/xsl") -> None:
        """An xml-stylesheet processing instruction for this request's response (success
        or Fault), in place of the servlet's `PGAQ_STYLESHEET`."""
        if not isinstance(type, str) or not _MEDIA_TYPE.fullmatch(type):
            raise ValueError(f"not a media type: {type!r}")
        if not isinstance(href, str) or not href or _HREF_FORBIDDEN.search(href):
            raise ValueError("a stylesheet href must be non-empty, without quotes, angle "
                             "brackets, control characters or '?>'")
        self.stylesheet = (type, href)


def takes_call(hook: Hook) -> bool:
    """Whether the hook accepts the `call` keyword (or any keywords)."""
    try:
        params = inspect.signature(hook).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is p.VAR_KEYWORD or (p.name == "call" and p.kind is not p.POSITIONAL_ONLY)
               for p in params)


async def run_hook(hook: Hook, wants_call: bool, phase: str, operation: str, agent: str,
                   conn: asyncpg.Connection | None, call: HookCall | None) -> None:
    kwargs: dict[str, Any] = {"call": call} if wants_call else {}
    await hook(phase, operation, agent, conn, **kwargs)
