"""A small, strict parser for HTTP/1.x request heads (the request line and header fields).

The gateway's fast path (services/gateway/fastpath.py) serves only plain, well-formed
requests itself and hands anything else to aiohttp. This parser therefore never guesses:
whatever is unusual (obs-fold, a space before a colon, control characters, a version other
than 1.0/1.1, a Content-Length that is not one run of digits) is a HeadError, and the
caller lets aiohttp answer it as it always has. Pure functions, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

END = b"\r\n\r\n"
# RFC 9110 token characters (method and field names)
_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
# a field value: visible ASCII, obs-text and inner spaces/tabs; no CR, LF, NUL or other CTL
_VALUE = re.compile(rb"[\t\x20-\x7e\x80-\xff]*\Z")
# a request target in origin form: no spaces or controls
_TARGET = re.compile(rb"/[\x21-\x7e]*\Z")
_DIGITS = re.compile(rb"[0-9]{1,18}\Z")


class HeadError(ValueError):
    """The head is not one this parser accepts (malformed, or merely unusual)."""


class HeadTooLarge(HeadError):
    """No end of head within the allowed size."""


@dataclass(slots=True)
class Head:
    """One parsed request head. Field names are lower-case; a name given more than once
    keeps its first value and is listed in `repeated`."""

    method: str
    target: str
    minor: int  # HTTP/1.<minor>
    fields: dict[str, str]
    repeated: frozenset[str]
    size: int  # bytes of the head, terminating blank line included

    def get(self, name: str) -> str | None:
        """The first value of field `name` (lower-case)."""
        return self.fields.get(name)

    @property
    def content_length(self) -> int | None:
        """The body's declared size; HeadError when it is repeated or not a number."""
        raw = self.fields.get("content-length")
        if raw is None:
            return None
        if "content-length" in self.repeated or not _DIGITS.match(raw.encode("latin-1")):
            raise HeadError("invalid Content-Length")
        return int(raw)

    def connection_tokens(self) -> set[str]:
        """The Connection field's options, lower-case."""
        raw = self.fields.get("connection")
        if not raw:
            return set()
        return {t.strip().lower() for t in raw.split(",") if t.strip()}

    @property
    def keep_alive(self) -> bool:
        """HTTP/1.1 keeps the connection unless told `close`; HTTP/1.0 only when asked."""
        tokens = self.connection_tokens()
        if "close" in tokens:
            return False
        return self.minor == 1 or "keep-alive" in tokens


def parse_head(buf: bytes | bytearray, limit: int, max_fields: int = 100) -> Head | None:
    """The head at the start of `buf`, or None when it is not complete yet.

    Raises HeadTooLarge when no complete head fits in `limit` bytes, HeadError when the head
    is malformed, has more than `max_fields` fields, or is outside what this parser accepts.
    """
    end = buf.find(END, 0, limit + len(END))
    if end < 0:
        if len(buf) >= limit + len(END):
            raise HeadTooLarge(f"request head over {limit} bytes")
        return None
    if end + len(END) > limit:
        raise HeadTooLarge(f"request head over {limit} bytes")
    lines = bytes(buf[:end]).split(b"\r\n")
    if len(lines) > max_fields + 1:
        raise HeadError("too many header fields")
    method, target, minor = _request_line(lines[0])
    fields: dict[str, str] = {}
    repeated: set[str] | None = None
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep:
            raise HeadError("header line without a colon")
        if not _TOKEN.match(name):  # also refuses obs-fold and a space before the colon
            raise HeadError("invalid header name")
        value = value.strip(b" \t")
        if not _VALUE.match(value):
            raise HeadError("invalid character in a header value")
        key = name.decode("ascii").lower()
        if key in fields:
            if repeated is None:
                repeated = set()
            repeated.add(key)
            continue
        fields[key] = value.decode("latin-1")
    return Head(method, target, minor, fields,
                frozenset(repeated) if repeated else frozenset(), end + len(END))


def _request_line(line: bytes) -> tuple[str, str, int]:
    parts = line.split(b" ")
    if len(parts) != 3:
        raise HeadError("malformed request line")
    method, target, version = parts
    if not _TOKEN.match(method):
        raise HeadError("invalid method")
    if not _TARGET.match(target):
        raise HeadError("invalid request target")
    if version == b"HTTP/1.1":
        minor = 1
    elif version == b"HTTP/1.0":
        minor = 0
    else:
        raise HeadError("unsupported HTTP version")
    return method.decode("ascii"), target.decode("ascii"), minor
