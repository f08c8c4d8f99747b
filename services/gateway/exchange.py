"""A servlet request and its reply as plain values, so that aiohttp and the fast path
(fastpath.py) can share everything after HTTP parsing (servlet.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(slots=True)
class Reply:
    """A response before any transport writes it: `headers` in aiohttp's order (before
    Content-Length), `cookies` the Set-Cookie values (after it)."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes
    cookies: list[str] = field(default_factory=list)


class Incoming(Protocol):
    """What the servlet needs of a POST, whichever server parsed it."""

    @property
    def path_qs(self) -> str: ...

    @property
    def content_type(self) -> str:
        """The media type, lower-case, without parameters ("" when absent)."""
        ...

    @property
    def cookie(self) -> str | None:
        """The session cookie's value."""
        ...

    def header(self, name: str) -> str | None:
        """A header's first value (name as usually spelled; matched case-insensitively)."""
        ...

    def client_subject(self) -> str | None:
        """The subject DN (RFC 4514) of the client certificate the TLS handshake verified,
        None without one (pgaq.idap.auth.certificate_subject)."""
        ...

    async def read(self) -> bytes: ...
