"""Session fixation and reuse: a session cookie is a bearer credential bound to the agent
that opened it. Another agent presenting it, a token the client made up, and a token
whose session ended (commit, rollback, idle timeout) never reach anyone's transaction."""

from __future__ import annotations

import asyncio
import re
import time

import aiohttp
import asyncpg

from tests.integration.gateway_support import envelope, op

from .support import Site, basic, send_raw

ALICE = basic("ALICE", "alice-pw-7Qz")
BOB = basic("BOB", "bob-pw-4Kx")
COMMIT = envelope(op("AQXmlCommit", ""))
ROLLBACK = envelope(op("AQXmlRollback", ""))


async def post(url: str, auth: str, body: bytes, token: str | None = None
               ) -> tuple[int, bytes, str | None, str]:
    """One request with an explicit cookie (or none); the new cookie it sets, if any, and
    the raw Set-Cookie header."""
    headers = {"Content-Type": "text/xml", "Authorization": auth}
    if token is not None:
        headers["Cookie"] = f"JSESSIONID={token}"
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as http, \
            http.post(url, data=body, headers=headers) as r:
        raw = r.headers.get("Set-Cookie", "")
        morsel = r.cookies.get("JSESSIONID")
        new = morsel.value if morsel is not None and morsel.value else None
        return r.status, await r.read(), new, raw


def code(body: bytes) -> str | None:
    m = re.search(rb"<error_code>(\d+)</error_code>", body)
    return m.group(1).decode() if m else None


async def test_a_session_is_bound_to_its_agent(site: Site, conn: asyncpg.Connection) -> None:
    status, _, token, raw = await post(site.url, ALICE, send_raw("A.Q", commit=False))
    assert status == 200 and token is not None
    assert "HttpOnly" in raw and "SameSite=Strict" in raw
    assert len(token) >= 40  # 32 random bytes, URL-safe
    # BOB presents ALICE's cookie: refused, whatever he asks for
    for body in (send_raw("B.Q", commit=False), COMMIT, ROLLBACK, send_raw("A.Q")):
        status, reply, new, _ = await post(site.url, BOB, body, token)
        assert status == 500 and code(reply) == "25400", reply
        assert new is None or new != token
    # ALICE's transaction is untouched by all that: still open, still hers
    assert await conn.fetchval("SELECT count(*) FROM a.qt") == 0
    status, _, _, _ = await post(site.url, ALICE, COMMIT, token)
    assert status == 200
    assert await conn.fetchval("SELECT count(*) FROM a.qt") == 1
    assert await conn.fetchval("SELECT count(*) FROM b.qt") == 0


async def test_a_forged_token_is_never_adopted(site: Site, conn: asyncpg.Connection) -> None:
    """Fixation: a token chosen by an attacker and planted on a victim is not taken as the
    victim's session id; the victim gets a fresh random one, so the attacker's copy is
    worthless."""
    forged = "w0.attacker-chosen-token-aaaaaaaaaaaaaaaaaaaaaaa"
    status, _, token, _ = await post(site.url, ALICE, send_raw("A.Q", commit=False), forged)
    assert status == 200 and token is not None and token != forged
    # the attacker (any agent, even ALICE's name with the forged token) cannot commit it
    status, reply, _, _ = await post(site.url, BOB, COMMIT, forged)
    assert status == 200 and code(reply) is None  # a new, empty session of BOB's: nothing
    assert await conn.fetchval("SELECT count(*) FROM a.qt") == 0
    status, _, _, _ = await post(site.url, ALICE, COMMIT, forged)
    assert status == 200
    assert await conn.fetchval("SELECT count(*) FROM a.qt") == 0  # not ALICE's real session
    await post(site.url, ALICE, ROLLBACK, token)
    assert await conn.fetchval("SELECT count(*) FROM a.qt") == 0


async def test_a_token_is_dead_after_commit_and_rollback(site: Site, conn: asyncpg.Connection) -> None:
    for end in (COMMIT, ROLLBACK):
        status, _, token, _ = await post(site.url, ALICE, send_raw("A.Q", commit=False))
        assert token is not None
        status, _, _, raw = await post(site.url, ALICE, end, token)
        assert status == 200
        assert "JSESSIONID=" in raw and ("Max-Age=0" in raw or "expires=" in raw.lower())
        # replayed afterwards, by BOB or ALICE, it reaches nothing
        status, reply, new, _ = await post(site.url, BOB, send_raw("B.Q", commit=False), token)
        assert status == 200 and new is not None and new != token, reply
        await post(site.url, BOB, ROLLBACK, new)
        status, _, new, _ = await post(site.url, ALICE, send_raw("A.Q", commit=False), token)
        assert new is not None and new != token
        await post(site.url, ALICE, ROLLBACK, new)
    assert await conn.fetchval("SELECT count(*) FROM a.qt") == 1  # only the committed one
    assert await conn.fetchval("SELECT count(*) FROM b.qt") == 0


async def open_transactions(site: Site) -> int:
    # the status page shows the count to an agent only
    async with aiohttp.ClientSession() as http, \
            http.get(site.url, headers={"Authorization": ALICE}) as r:
        text = await r.text()
    m = re.search(r"open transactions: (\d+)", text)
    assert m, text
    return int(m.group(1))


async def test_a_token_after_the_idle_timeout(idle_site: Site, conn: asyncpg.Connection) -> None:
    """The gateway runs with a 2 s timeout here: the reaper rolls ALICE's transaction back;
    her next request is told so once (25402), BOB's gets 25400, and no-one commits it."""
    status, _, token, _ = await post(idle_site.url, ALICE, send_raw("A.Q", commit=False))
    assert token is not None and await open_transactions(idle_site) == 1
    started = time.monotonic()
    while await open_transactions(idle_site) != 0:  # the reaper's rollback, observed
        assert time.monotonic() - started < 10
        await asyncio.sleep(0.05)
    status, reply, _, _ = await post(idle_site.url, BOB, COMMIT, token)
    assert status == 500 and code(reply) == "25400", reply
    status, reply, _, _ = await post(idle_site.url, ALICE, COMMIT, token)
    assert status == 500 and code(reply) == "25402", reply
    status, reply, _, _ = await post(idle_site.url, ALICE, COMMIT, token)
    assert status == 200, reply  # told once; now a new, empty session
    assert await conn.fetchval("SELECT count(*) FROM a.qt") == 0


async def test_sessions_of_one_agent_do_not_mix(site: Site, conn: asyncpg.Connection) -> None:
    """Two clients of the same agent each have their own transaction: committing one does
    not commit the other's work."""
    _, _, t1, _ = await post(site.url, ALICE, send_raw("A.Q", "01", commit=False))
    _, _, t2, _ = await post(site.url, ALICE, send_raw("A.Q", "02", commit=False))
    assert t1 and t2 and t1 != t2
    await post(site.url, ALICE, COMMIT, t1)
    assert [bytes(r["user_data"]) for r in await conn.fetch("SELECT user_data FROM a.qt")] == [b"\x01"]
    await post(site.url, ALICE, ROLLBACK, t2)
