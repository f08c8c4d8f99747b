"""Authentication bypass attempts against every path of a real gateway over loopback:
nothing but the right password of an HTTP-enabled agent gets in, and every refusal is a
plain 401 (never a 500, never a traceback) that enqueues nothing."""

from __future__ import annotations

import asyncio
import base64
import time

import aiohttp
import asyncpg

from tests.integration.gateway_support import envelope, op

from .support import (
    ADMIN_TOKEN,
    Site,
    basic,
    catalog_snapshot,
    make_agent,
    make_role,
    send_raw,
)

GOOD = basic("ALICE", "alice-pw-7Qz")

BAD_AUTH: list[tuple[str, str | None]] = [
    ("none", None),
    ("empty", ""),
    ("scheme only", "Basic"),
    ("scheme and space", "Basic "),
    ("other scheme", "Bearer " + base64.b64encode(b"ALICE:alice-pw-7Qz").decode()),
    ("digest", 'Digest username="ALICE", response="x"'),
    ("not base64", "Basic !!!notbase64!!!"),
    ("base64 without colon", "Basic " + base64.b64encode(b"ALICEalice-pw-7Qz").decode()),
    ("empty user", basic("", "alice-pw-7Qz")),
    ("empty password", basic("ALICE", "")),
    ("wrong password", basic("ALICE", "alice-pw-7Qy")),
    ("password prefix", basic("ALICE", "alice-pw")),
    ("password with suffix", basic("ALICE", "alice-pw-7Qz ")),
    ("password case", basic("ALICE", "ALICE-PW-7QZ")),
    ("other agent's password", basic("ALICE", "bob-pw-4Kx")),
    ("unknown agent", basic("MALLORY", "alice-pw-7Qz")),
    ("quoted lower-case agent", basic('"alice"', "alice-pw-7Qz")),
    ("agent with spaces", basic(" ALICE ", "alice-pw-7Qz")),
    ("agent with NUL", basic("ALICE\x00", "alice-pw-7Qz")),
    ("password with NUL", basic("ALICE", "alice-pw-7Qz\x00")),
    ("NUL splits the cache key", basic("ALICE\x00alice-pw-7Qz", "")),
    ("agent SQL", basic("ALICE' OR '1'='1", "x' OR '1'='1")),
    ("non-UTF-8 user", basic(b"AL\xffICE", b"alice-pw-7Qz")),
    ("non-UTF-8 password", basic(b"ALICE", b"alice-pw-7Qz\xc3")),
    ("latin-1 lookalike", basic("ALİCE", "alice-pw-7Qz")),
    ("long user", basic("A" * 4000, "alice-pw-7Qz")),
    ("long password", basic("ALICE", "alice-pw-7Qz" + "p" * 4000)),
    ("header over the limit", basic("ALICE", "alice-pw-7Qz" + "p" * 60_000)),
    ("disabled agent", basic("CAROL", "carol-pw-1Zz")),
]


async def post(url: str, auth: str | None, body: bytes) -> tuple[int, bytes, dict[str, str]]:
    headers = {"Content-Type": "text/xml"}
    if auth is not None:
        headers["Authorization"] = auth
    async with aiohttp.ClientSession() as http, http.post(url, data=body, headers=headers) as r:
        return r.status, await r.read(), dict(r.headers)


async def test_bad_credentials_get_401_and_change_nothing(site: Site, conn: asyncpg.Connection) -> None:
    """Every case of BAD_AUTH against one gateway (a gateway per case would cost seconds)."""
    role = await make_role(conn, "rc")
    await make_agent(conn, "CAROL", "carol-pw-1Zz", role, enable_http=False)
    await conn.execute(f'GRANT USAGE ON SCHEMA a TO "{role}"')
    await conn.execute("CALL dbms_aqadm.grant_queue_privilege('ALL', 'a.q', $1)", role)
    before = await catalog_snapshot(conn)
    wrong: list[tuple[str, int]] = []
    for case, auth in BAD_AUTH:
        status, body, headers = await post(site.url, auth, send_raw("A.Q"))
        assert b"Traceback" not in body and b"alice-pw" not in body, case
        if case == "header over the limit":  # aiohttp refuses the request line itself
            ok = status == 400
        else:
            ok = status == 401 and headers.get("WWW-Authenticate", "").startswith("Basic")
        if not ok:
            wrong.append((case, status))
    assert wrong == []
    assert await conn.fetchval("SELECT count(*) FROM a.qt") == 0
    assert await catalog_snapshot(conn) == before
    # the gateway still serves the right credentials afterwards
    assert (await post(site.url, GOOD, send_raw("A.Q")))[0] == 200


async def test_agent_names_are_case_insensitive_like_oracle_but_passwords_are_not(
        site: Site, conn: asyncpg.Connection) -> None:
    """Oracle folds unquoted agent names to upper case: every spelling is the one agent
    ALICE, with ALICE's rights only; the password is compared exactly."""
    names = ["ALICE", "alice", "Alice", "aLiCe", '"ALICE"']
    for name in names:
        status, body, _ = await post(site.url, basic(name, "alice-pw-7Qz"), send_raw("A.Q"))
        assert status == 200, (name, body)
        assert (await post(site.url, basic(name, "ALICE-PW-7QZ"), send_raw("A.Q")))[0] == 401
        # the folded name gets ALICE's rights, not more
        status, body, _ = await post(site.url, basic(name, "alice-pw-7Qz"), send_raw("B.Q"))
        assert status == 500 and (b"ORA-01031" in body or b"24010" in body), body
    assert await conn.fetchval("SELECT count(*) FROM a.qt") == len(names)
    assert await conn.fetchval("SELECT count(*) FROM b.qt") == 0


async def shut_out(url: str, auth: str, within: float = 3.0) -> float:
    """Seconds until `auth` gets 401: the change reaches the gateway by NOTIFY, a few
    milliseconds after the commit, far inside the credential cache's 30 s."""
    started = time.monotonic()
    while (await post(url, auth, envelope(op("AQXmlCommit", ""))))[0] != 401:
        assert time.monotonic() - started < within, "the credentials cache kept the agent in"
        await asyncio.sleep(0.01)
    return time.monotonic() - started


async def test_a_disabled_or_dropped_agent_is_shut_out_at_once(site: Site,
                                                              conn: asyncpg.Connection) -> None:
    """The gateway caches a successful check for 30 s; disabling HTTP access, a new
    password or dropping the agent must take effect at once all the same."""
    assert (await post(site.url, GOOD, send_raw("A.Q")))[0] == 200
    await conn.execute("CALL dbms_aqadm.alter_aq_agent('ALICE', enable_http => false)")
    await shut_out(site.url, GOOD)
    await conn.execute("CALL dbms_aqadm.alter_aq_agent('ALICE', enable_http => true)")
    assert (await post(site.url, GOOD, send_raw("A.Q")))[0] == 200
    await conn.execute("CALL dbms_aqadm.alter_aq_agent('ALICE', password => 'changed-pw-3Rr')")
    await shut_out(site.url, GOOD)
    new = basic("ALICE", "changed-pw-3Rr")
    assert (await post(site.url, new, send_raw("A.Q")))[0] == 200
    await conn.execute("UPDATE aq.agents SET enable_http = false WHERE name = 'ALICE'")  # by hand
    await shut_out(site.url, new)
    await conn.execute("UPDATE aq.agents SET enable_http = true WHERE name = 'ALICE'")
    assert (await post(site.url, new, send_raw("A.Q")))[0] == 200
    await conn.execute("CALL dbms_aqadm.drop_aq_agent('ALICE')")
    await shut_out(site.url, new)
    assert await conn.fetchval("SELECT count(*) FROM a.qt") == 4


async def get(url: str, auth: str | None = None) -> tuple[int, bytes]:
    headers = {} if auth is None else {"Authorization": auth}
    async with aiohttp.ClientSession() as http, http.get(url, headers=headers,
                                                         allow_redirects=False) as r:
        return r.status, await r.read()


async def test_every_path_is_guarded_as_documented(site: Site) -> None:
    """POST needs an agent; the dashboard needs an administrator or the admin token; the
    status page, ?wsdl, /health and /metrics are public by design and say nothing secret."""
    status, _ = await get(site.base + "/dashboard/")
    assert status in (301, 302, 308, 401)  # at most a redirect to /dashboard, which asks
    for path in ("/dashboard", "/dashboard/data?range=1h",
                 "/dashboard/static/dashboard.js"):
        assert (await get(site.base + path))[0] == 401, path
        assert (await get(site.base + path, basic("admin", "wrong")))[0] == 401, path
        assert (await get(site.base + path, basic("ADMIN", ADMIN_TOKEN)))[0] in (401, 403), path
        assert (await get(site.base + path, GOOD))[0] == 403, path  # an agent, not an admin
        status, _ = await get(site.base + path, basic("admin", ADMIN_TOKEN))
        assert status in (200, 301, 302, 404), (path, status)  # in: served (or no such file)
    assert (await get(site.base + "/dashboard/data?range=1h", basic("admin", ADMIN_TOKEN)))[0] == 200
    for path in ("/dashboard/static/..%2f..%2fconfig.py", "/dashboard/static/%2e%2e%2fdb.py",
                 "/dashboard/static/__init__.py"):  # only the page's own files are served
        status, body = await get(site.base + path, basic("admin", ADMIN_TOKEN))
        assert status in (400, 404), (path, status)
        assert b"import" not in body
    for path in ("/aqserv/servlet", "/aqserv/servlet?wsdl", "/aqserv/servlet?WSDL", "/health",
                 "/metrics"):
        status, body = await get(site.base + path)
        assert status == 200, path
        for secret in (b"alice-pw", b"bob-pw", ADMIN_TOKEN.encode(), b"password"):
            assert secret not in body, (path, secret)
    # other methods and paths are not a way round authentication
    async with aiohttp.ClientSession() as http:
        for method in ("PUT", "DELETE", "PATCH"):
            async with http.request(method, site.url, data=send_raw("A.Q")) as r:
                assert r.status == 405, method
        async with http.post(site.url + "/", data=send_raw("A.Q"),
                             headers={"Content-Type": "text/xml"}) as r:
            assert r.status in (401, 404)
        async with http.post(site.base + "/AQSERV/SERVLET", data=send_raw("A.Q"),
                             headers={"Content-Type": "text/xml"}) as r:
            assert r.status in (401, 404, 405)
        # the internal forwarding header does not skip the check
        async with http.post(site.url, data=send_raw("A.Q"),
                             headers={"Content-Type": "text/xml", "X-Pgaq-Forwarded": "1"}) as r:
            assert r.status == 401
    status, body = await get(site.base + "/metrics")  # refusals are counted, not hidden
    assert status == 200 and b'outcome="unauthorized"' in body


async def test_form_encoded_documents_need_credentials_too(site: Site, conn: asyncpg.Connection) -> None:
    async with aiohttp.ClientSession() as http:
        async with http.post(site.url, data={"aqxmldoc": send_raw("A.Q").decode()}) as r:
            assert r.status == 401
        async with http.post(site.url, data={"aqxmldoc": send_raw("A.Q").decode()},
                             headers={"Authorization": GOOD}) as r:
            assert r.status == 200, await r.text()
    assert await conn.fetchval("SELECT count(*) FROM a.qt") == 1
