"""The gateway's per-request log line, read through the project's formatter: one line per
request with the operation, agent, session, outcome and timing, and never a credential,
a session cookie or a payload."""

from __future__ import annotations

import base64
import logging

import asyncpg
import pytest
from pgaq.logs import LineFormatter

from tests.unit import idap_examples as ex

from .gateway_support import Client, envelope, op
from .test_gateway import (
    gw,  # noqa: F401  (the fixture: queues and types of the examples)
    send,
)


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    fmt = LineFormatter()
    return [fmt.format(r) for r in caplog.records if r.name == "pgaq.gateway.access"]


def field(line: str, key: str) -> str | None:
    for part in line.split(" "):
        if part.startswith(key + "="):
            return part[len(key) + 1:]
    return None


async def test_one_line_per_request_without_secrets(
        gw: tuple[str, list[str]], caplog: pytest.LogCaptureFixture,  # noqa: F811
        conn: asyncpg.Connection) -> None:
    url, _ = gw
    caplog.set_level(logging.INFO, logger="pgaq.gateway.access")
    c = Client(url, "JOHN", "secret")
    wrong = Client(url, "JOHN", "hunter2-wrong")
    try:
        sent = await c.post(send("AQUSER.RAW_MSGQ", "<RAW>C0FFEE42</RAW>",
                                 extra="<correlation>private-corr</correlation>"))
        assert sent.status == 200
        cookie = next(iter(c.http.cookie_jar)).value
        fault = await c.post(send("AQUSER.NOPE", "<RAW>00</RAW>"))
        assert fault.status == 500
        commit = await c.post(ex.EXAMPLE_17_14.encode())
        assert commit.status == 200
        assert (await wrong.post(envelope(op("AQXmlCommit", "")))).status == 401
        assert (await c.post(b"{}", content_type="application/json")).status == 415
    finally:
        await c.close()
        await wrong.close()
    got = lines(caplog)
    assert len(got) == 5, got
    first, second, third, unauth, media = got
    for line in got:
        assert field(line, "method") == "POST" and field(line, "path") == "/aqserv/servlet"
        assert float(field(line, "duration_ms") or "-1") >= 0
        assert int(field(line, "bytes_in") or "-1") > 0
    assert field(first, "operation") == "AQXmlSend" and field(first, "agent") == "JOHN"
    assert field(first, "status") == "200" and field(first, "transaction") == "true"
    session = field(first, "session")
    assert session is not None and len(session) == 12
    assert int(field(first, "bytes_out") or "0") > 0
    assert field(second, "operation") == "AQXmlSend" and field(second, "status") == "500"
    assert field(second, "fault") == "Client" and field(second, "error_code") == "24010"
    assert field(second, "session") == session  # the same transaction, still open
    assert field(third, "operation") == "AQXmlCommit" and field(third, "transaction") == "false"
    assert field(third, "session") == session
    assert field(unauth, "status") == "401" and field(unauth, "agent") is None
    assert field(media, "status") == "415"
    text = "\n".join(got)
    for secret in ("secret", "hunter2", base64.b64encode(b"JOHN:secret").decode(), "Basic",
                   "Authorization", cookie, "C0FFEE42", "private-corr"):
        assert secret not in text, secret


async def test_probes_log_at_debug_and_too_large_is_logged(
        gw: tuple[str, list[str]], caplog: pytest.LogCaptureFixture, db_dsn: str) -> None:  # noqa: F811
    from .gateway_support import running_gateway

    caplog.set_level(logging.INFO, logger="pgaq.gateway.access")
    async with running_gateway(db_dsn, body_limit=1024) as url:
        c = Client(url, "JOHN", "secret")
        try:
            async with c.http.get(url.split("/aqserv")[0] + "/health") as r:
                assert r.status in (200, 503)
            r2 = await c.post(send("AQUSER.RAW_MSGQ", "<RAW>" + "00" * 2048 + "</RAW>"))
            assert r2.status == 413
        finally:
            await c.close()
    got = lines(caplog)
    assert len(got) == 1, got  # /health is below INFO
    assert field(got[0], "status") == "413"
