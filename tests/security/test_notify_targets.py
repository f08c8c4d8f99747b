"""Notification targets outside the operator's allow list. Registration refuses them
(ORA-24950, or ORA-24940 for hosts that are no host); delivery checks again and never
follows a redirect, so an allowed receiver cannot bounce the notifier to a denied one.
IP literal forms checked at delivery are in tests/integration/test_notifier.py
(test_ip_literals_are_checked_when_delivering)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest
from aiohttp import web
from pgaq import Session
from pgaq.embedded import free_port

from tests.integration.helpers import make_queue
from tests.integration.test_notifier import (  # noqa: F401  (start_notifier: the fixture)
    Start,
    register,
    start_notifier,
)

REFUSED = [
    "http://10.0.0.1/x",
    "http://192.168.1.1/x",
    "http://169.254.169.254/latest/meta-data/",  # cloud metadata
    "http://127.0.0.2/x",  # only 127.0.0.1 is allowed here
    "http://[::1]/x",
    "http://[::ffff:10.0.0.1]/x",
    "http://[0:0:0:0:0:ffff:7f00:2]/x",
    "http://localhost/x",  # allowed by address, not by name
    "http://LOCALHOST./x",
    "http://127.0.0.1.nip.io/x",
    "http://hooks.example.com.evil.net/x",
    "http://evilhooks.example.com/x",
    "http://hooks.example.com@10.0.0.1/x",  # userinfo: the host is 10.0.0.1
    "http://10.0.0.1#@hooks.example.com/x",
    "http://10.0.0.1\\@hooks.example.com/x",
    "http://%31%30.0.0.1/x",
    "http://127.0.0.1\u3002nip\u3002io/x",  # ideographic full stops
    "http://2130706433/x",
    "http://0x7f000001/x",
    "http://017700000001/x",
    "http://127.1/x",
    "http://0/x",
    "http://[::]/x",
    "https://10.0.0.1:443/x",
    "gopher://127.0.0.1:25/x",
    "file:///etc/passwd",
    "http:///x",
    "http://:80/x",
]


async def test_registration_refuses_every_form_of_a_denied_host(conn: asyncpg.Connection) -> None:
    await make_queue(conn, "s.q")
    await conn.execute("CALL aq.allow_notification_host('127.0.0.1')")
    await conn.execute("CALL aq.allow_notification_host('hooks.example.com')")
    accepted = []
    for url in REFUSED:
        try:
            await register(conn, "s.q", None, url)
        except asyncpg.PostgresError as exc:
            assert "ORA-24950" in str(exc) or "ORA-24940" in str(exc), (url, str(exc))
        else:
            accepted.append(url)
    assert accepted == []
    assert await conn.fetchval("SELECT count(*) FROM aq.registrations") == 0
    # the allowed ones do register
    for url in ("http://127.0.0.1:9/x", "http://hooks.example.com/x", "https://HOOKS.example.com/y"):
        await register(conn, "s.q", None, url)


@pytest.fixture
async def servers() -> AsyncIterator[tuple[str, str, list[str]]]:
    """An allowed receiver on 127.0.0.1 that answers every POST with a redirect to a
    receiver on 127.0.0.2, which is denied; the second records what reaches it."""
    hits: list[str] = []
    runners = []
    denied_port = free_port()
    denied_url = f"http://127.0.0.2:{denied_port}"

    async def bounce(request: web.Request) -> web.Response:
        status = int(request.path.rsplit("/", 1)[-1])
        return web.Response(status=status, headers={"Location": denied_url + "/landed"})

    async def record(request: web.Request) -> web.Response:
        hits.append(request.path)
        return web.Response(text="ok")

    allowed_port = free_port()
    for host, port, handler in (("127.0.0.1", allowed_port, bounce), ("127.0.0.2", denied_port, record)):
        app = web.Application()
        app.router.add_post("/{tail:.*}", handler)
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, host, port).start()
        runners.append(runner)
    try:
        yield f"http://127.0.0.1:{allowed_port}", denied_url, hits
    finally:
        for runner in runners:
            await runner.cleanup()


async def test_redirects_to_a_denied_host_are_not_followed(
        conn: asyncpg.Connection, start_notifier: Start,  # noqa: F811
        servers: tuple[str, str, list[str]]) -> None:
    allowed, _denied, hits = servers
    await make_queue(conn, "s.q")
    await conn.execute("CALL aq.allow_notification_host('127.0.0.1')")
    await conn.execute("CALL aq.deny_notification_host('127.0.0.2')")
    codes = (301, 302, 303, 307, 308)
    for code in codes:
        await register(conn, "s.q", None, f"{allowed}/{code}")
    running = await start_notifier(max_attempts=2)
    await Session(conn).enqueue("s.q", b"1")
    outcomes = [await running.outcome() for _ in codes]
    assert {o[1] for o in outcomes} == {"FAILED"}, outcomes  # a 3xx is a refusal, not a hop
    assert all(o[2] is not None and o[2].startswith("HTTP 30") for o in outcomes), outcomes
    assert hits == []


async def test_a_name_resolving_to_a_denied_address_is_refused_at_delivery(
        conn: asyncpg.Connection, start_notifier: Start,  # noqa: F811
        servers: tuple[str, str, list[str]]) -> None:
    """DNS re-pointing: the name was allowed when registered; at delivery it resolves into
    a denied network, and nothing is sent, at any attempt (a refusal by the list is retried,
    as the list may change, and FAILED when it still refuses at the last)."""
    _allowed, denied, hits = servers
    await make_queue(conn, "s.q")
    await conn.execute("CALL aq.allow_notification_host('localhost')")
    await register(conn, "s.q", None, denied.replace("127.0.0.2", "localhost") + "/via-name")
    await conn.execute("CALL aq.deny_notification_host('127.0.0.0/8')")
    await conn.execute("CALL aq.deny_notification_host('::1')")
    running = await start_notifier(max_attempts=5)
    await Session(conn).enqueue("s.q", b"1")
    _, _state, error = await running.until("FAILED")
    assert error is not None and "may not go to" in error, error
    assert await conn.fetchval("SELECT attempts FROM aq.notifications") == 5
    assert hits == []
