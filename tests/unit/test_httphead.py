"""The fast path's request-head parser: what it accepts, and everything it refuses (the
gateway then leaves the request to aiohttp)."""

from __future__ import annotations

import pytest
from pgaq_services.gateway.httphead import Head, HeadError, HeadTooLarge, parse_head

LIMIT = 8190


def head(raw: bytes) -> Head:
    got = parse_head(raw, LIMIT)
    assert got is not None
    return got


def test_a_plain_post() -> None:
    raw = (b"POST /aqserv/servlet HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\n"
           b"Content-Length: 12\r\n\r\n<body>...")
    h = head(raw)
    assert (h.method, h.target, h.minor) == ("POST", "/aqserv/servlet", 1)
    assert h.get("content-type") == "text/xml" and h.content_length == 12
    assert h.size == raw.index(b"<body>") and h.keep_alive and not h.repeated


def test_incomplete_heads_wait_for_more() -> None:
    assert parse_head(b"", LIMIT) is None
    assert parse_head(b"POST / HTTP/1.1\r\nHost: x\r\n", LIMIT) is None
    assert parse_head(bytearray(b"POST / HTTP/1.1\r\nHost: x\r\n\r"), LIMIT) is None


def test_names_are_case_insensitive_and_values_trimmed() -> None:
    h = head(b"POST / HTTP/1.1\r\nCONTENT-length:  7 \r\ncOOkie:\ta=b\t\r\n\r\n")
    assert h.content_length == 7 and h.get("cookie") == "a=b"
    assert h.get("Cookie") is None  # lookups take the lower-case name


def test_repeated_fields_keep_the_first_and_are_listed() -> None:
    h = head(b"POST / HTTP/1.1\r\nX-A: 1\r\nx-a: 2\r\n\r\n")
    assert h.get("x-a") == "1" and h.repeated == {"x-a"}


@pytest.mark.parametrize("value", [b"12, 12", b"-1", b"+5", b"1e3", b"0x10", b"",
                                   b"99999999999999999999"])
def test_invalid_content_length(value: bytes) -> None:
    h = head(b"POST / HTTP/1.1\r\nContent-Length: " + value + b"\r\n\r\n")
    with pytest.raises(HeadError):
        _ = h.content_length


def test_duplicate_content_length_is_refused_even_when_equal() -> None:
    h = head(b"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n")
    with pytest.raises(HeadError):
        _ = h.content_length


def test_no_content_length() -> None:
    assert head(b"POST / HTTP/1.1\r\nHost: x\r\n\r\n").content_length is None


@pytest.mark.parametrize("raw", [
    b"POST / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",  # obs-fold
    b"POST / HTTP/1.1\r\nHost: x\r\n\tfolded\r\n\r\n",
    b"POST / HTTP/1.1\r\nNoColon\r\n\r\n",
    b"POST / HTTP/1.1\r\nHost : x\r\n\r\n",  # space before the colon
    b"POST / HTTP/1.1\r\n: x\r\n\r\n",  # empty name
    b"POST / HTTP/1.1\r\nX-A: a\x00b\r\n\r\n",  # NUL in a value
    b"POST / HTTP/1.1\r\nX-A: a\nInjected: 1\r\n\r\n",  # bare LF
    b"POST / HTTP/1.1\r\nX\x7fA: 1\r\n\r\n",
    b"POST / HTTP/2.0\r\n\r\n",
    b"POST / HTTP/1.2\r\n\r\n",
    b"POST / http/1.1\r\n\r\n",
    b"POST /  HTTP/1.1\r\n\r\n",  # two spaces
    b"POST http://x/ HTTP/1.1\r\n\r\n",  # absolute form
    b"POST * HTTP/1.1\r\n\r\n",
    b"POST /a b HTTP/1.1\r\n\r\n",
    b"PO(ST / HTTP/1.1\r\n\r\n",
    b"\r\nPOST / HTTP/1.1\r\n\r\n",  # a leading empty line
    b"POST / HTTP/1.1 extra\r\n\r\n",
])
def test_malformed_heads(raw: bytes) -> None:
    with pytest.raises(HeadError):
        parse_head(raw, LIMIT)


def test_huge_heads_are_refused_complete_or_not() -> None:
    big = b"POST / HTTP/1.1\r\nX-A: " + b"a" * LIMIT
    with pytest.raises(HeadTooLarge):
        parse_head(big, LIMIT)
    with pytest.raises(HeadTooLarge):
        parse_head(big + b"\r\n\r\n", LIMIT)
    exact = b"POST / HTTP/1.1\r\nX-A: "
    exact += b"a" * (LIMIT - len(exact) - 4) + b"\r\n\r\n"
    assert head(exact).size == LIMIT


def test_too_many_fields() -> None:
    raw = b"POST / HTTP/1.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(101)) + b"\r\n"
    with pytest.raises(HeadError):
        parse_head(raw, LIMIT, max_fields=100)
    assert parse_head(raw, LIMIT, max_fields=101) is not None


@pytest.mark.parametrize(("version", "connection", "keep"), [
    (b"1.1", None, True),
    (b"1.1", b"close", False),
    (b"1.1", b"Keep-Alive, CLOSE", False),
    (b"1.1", b"keep-alive", True),
    (b"1.0", None, False),
    (b"1.0", b"Keep-Alive", True),
    (b"1.0", b"upgrade, keep-alive", True),
    (b"1.0", b"close", False),
])
def test_connection_tokens(version: bytes, connection: bytes | None, keep: bool) -> None:
    raw = b"POST / HTTP/" + version + b"\r\nHost: x\r\n"
    if connection is not None:
        raw += b"Connection: " + connection + b"\r\n"
    h = head(raw + b"\r\n")
    assert h.minor == (1 if version == b"1.1" else 0)
    assert h.keep_alive is keep


def test_obs_text_in_values_is_kept_as_latin1() -> None:
    assert head(b"POST / HTTP/1.1\r\nX-A: caf\xe9\r\n\r\n").get("x-a") == "caf\xe9"
