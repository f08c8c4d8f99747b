"""Login by TLS client certificate, the second way Oracle's AQ servlet authenticates (Oracle
Streams Advanced Queuing User's Guide and Reference, Release 10.1, chapter 17 "Internet Access
to Oracle Streams AQ": "The client logs in to the server by either: HTTP basic authentication
(with or without SSL), SSL certificate-based client authentication"): a certificate the
gateway's client CA bundle verifies logs in, with no password, as the agent whose
certificate_location (DBMS_AQADM.CREATE_AQ_AGENT) is its subject; a certificate naming no agent,
or an agent without enable_http, gets 401 and changes nothing; one from another CA does not get
past the handshake. Real TLS on loopback, certificates made by `openssl`."""

from __future__ import annotations

import asyncio
import shutil
import signal
import ssl
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict, Unpack

import aiohttp
import asyncpg
import pytest
from aiohttp import web
from pgaq.embedded import free_port
from pgaq_services.gateway.app import AUTH, Settings, build, runner_for, tcp_site

from tests.e2e.support import start_gateway
from tests.integration.gateway_support import envelope, op

from .support import basic, catalog_digest, drop_role, make_role, send_raw

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")

# subjects as `openssl req -subj` takes them (the certificate's own order, country first)
SUBJECTS = {
    "john": "/C=US/O=Acme Corp/OU=Billing/CN=john",
    "mary": "/C=US/O=Acme Corp/CN=Mary Smith",
    "ann": "/O=Acme, Inc./CN=Ann  Lee",
    "stranger": "/C=US/O=Acme Corp/CN=stranger",
    "carol": "/C=US/O=Acme Corp/CN=carol",
    "twin": "/O=Acme Corp/CN=twin",
    "late": "/O=Acme Corp/CN=late comer",
}
CLIENT_EXT = ("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
              "extendedKeyUsage=clientAuth\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n")
SERVER_EXT = ("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
              "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n"
              "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n")


@dataclass
class Pki:
    ca: str  # the CA of the gateway's certificate and of the clients it trusts
    server: tuple[str, str]
    clients: dict[str, tuple[str, str]] = field(default_factory=dict)
    rogue: dict[str, tuple[str, str]] = field(default_factory=dict)  # from another CA


def _openssl(cwd: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _ca(d: Path, name: str, subject: str) -> None:
    _openssl(d, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
             "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "2",
             "-subj", subject, "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign")


def _leaf(d: Path, ca: str, name: str, subject: str, ext: str) -> tuple[str, str]:
    (d / f"{name}.ext").write_text(ext)
    _openssl(d, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", subject)
    _openssl(d, "x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
             "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext")
    return str(d / f"{name}.pem"), str(d / f"{name}.key")


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    d = tmp_path_factory.mktemp("pki")
    _ca(d, "ca", "/O=pgaq tests/CN=pgaq test CA")
    _ca(d, "rogue", "/O=pgaq tests/CN=pgaq test CA")  # the same name, another key
    made = Pki(str(d / "ca.pem"), _leaf(d, "ca", "server", "/CN=127.0.0.1", SERVER_EXT))
    for name, subject in SUBJECTS.items():
        made.clients[name] = _leaf(d, "ca", name, subject, CLIENT_EXT)
    made.rogue["john"] = _leaf(d, "rogue", "rogue_john", SUBJECTS["john"], CLIENT_EXT)
    return made


@dataclass
class Db:
    role_j: str  # owns schema j (queue j.q); JOHN and ANN map to it
    role_m: str  # owns schema m (queue m.q); MARY, CAROL, the twins and BOB map to it


@pytest.fixture
async def db(conn: asyncpg.Connection) -> AsyncIterator[Db]:
    role_j, role_m = await make_role(conn, "cj"), await make_role(conn, "cm")
    for schema, role in (("j", role_j), ("m", role_m)):
        await conn.execute(f'CREATE SCHEMA {schema} AUTHORIZATION "{role}"')
        await conn.execute("CALL dbms_aqadm.create_queue_table($1, 'RAW')", f"{schema}.qt")
        await conn.execute("CALL dbms_aqadm.create_queue($1, $2)", f"{schema}.q", f"{schema}.qt")
        await conn.execute("CALL dbms_aqadm.start_queue($1)", f"{schema}.q")
    # certificate_location written as people write DNs: RFC 4514 order with odd spacing
    # and case, the certificate's own order as `openssl x509 -subject` prints it, quoting
    agents = [
        ("JOHN", "CN=John, OU=billing, O=ACME  Corp, C=US", True, "john-pw-5Tg", role_j),
        ("MARY", "C = US, O = Acme Corp, CN = Mary Smith", True, None, role_m),
        ("ANN", 'cn=ann lee;o="ACME, INC."', True, None, role_j),
        ("CAROL", "CN=carol,O=Acme Corp,C=US", False, None, role_m),
        ("TWIN1", "CN=twin,O=Acme Corp", True, None, role_m),
        ("TWIN2", "2.5.4.3=twin,organizationName=acme corp", True, None, role_m),
        ("BOB", None, True, "bob-pw-8Hq", role_m),
    ]
    for name, location, http, password, role in agents:
        await conn.execute(
            "CALL dbms_aqadm.create_aq_agent(agent_name => $1, certificate_location => $2, "
            "enable_http => $3, password => $4)", name, location, http, password)
        await conn.execute("CALL dbms_aqadm.enable_db_access($1, $2)", name, role)
    yield Db(role_j, role_m)
    for role in (role_j, role_m):
        await drop_role(conn, role)


class Overrides(TypedDict, total=False):
    """The gateway settings a test sets; the others keep their defaults."""
    fastpath: bool
    tls_client_required: bool


@asynccontextmanager
async def tls_gateway(dsn: str, pki: Pki,
                      **overrides: Unpack[Overrides]) -> AsyncIterator[tuple[str, web.Application]]:
    """An in-process gateway serving HTTPS on loopback with certificate login on."""
    port = free_port()
    settings = Settings(dsn=dsn, port=port, tls_cert=pki.server[0], tls_key=pki.server[1],
                        tls_client_ca=pki.ca, **overrides)
    app = build(settings)
    runner = runner_for(app, settings)
    await runner.setup()
    await tcp_site(runner, settings).start()
    try:
        yield f"https://127.0.0.1:{port}{settings.path}", app
    finally:
        await runner.cleanup()


def tls(pki: Pki, cert: tuple[str, str] | None) -> ssl.SSLContext:
    """A client that checks the gateway's certificate and presents `cert`, if any."""
    ctx = ssl.create_default_context(cafile=pki.ca)
    if cert is not None:
        ctx.load_cert_chain(*cert)
    return ctx


@dataclass
class Answer:
    status: int
    body: bytes
    headers: dict[str, str]
    cookie: str | None


async def post(url: str, ctx: ssl.SSLContext, body: bytes, auth: str | None = None,
               cookie: str | None = None, headers: dict[str, str] | None = None) -> Answer:
    """One request on a fresh TLS connection (a new handshake each time)."""
    h = {"Content-Type": "text/xml", **(headers or {})}
    if auth is not None:
        h["Authorization"] = auth
    if cookie is not None:
        h["Cookie"] = f"JSESSIONID={cookie}"
    connector = aiohttp.TCPConnector(ssl=ctx, force_close=True)
    async with aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar()) as http:
        async with http.post(url, data=body, headers=h) as r:
            got = r.cookies.get("JSESSIONID")
            return Answer(r.status, await r.read(), dict(r.headers), got.value if got is not None else None)


def error_code(body: bytes) -> str:
    start = body.find(b"<error_code>")
    return body[start + 12:body.find(b"</error_code>")].decode() if start >= 0 else ""


async def counts(conn: asyncpg.Connection) -> tuple[int, int]:
    return (await conn.fetchval("SELECT count(*) FROM j.qt"), await conn.fetchval("SELECT count(*) FROM m.qt"))


@pytest.mark.parametrize("fastpath", [True, False], ids=["fastpath", "aiohttp"])
async def test_a_certificate_logs_in_as_its_agent(pki: Pki, db: Db, conn: asyncpg.Connection,
                                                  db_dsn: str, fastpath: bool) -> None:
    """No Authorization header: the certificate alone says who the client is, and the
    request gets that agent's database users' rights and no others."""
    async with tls_gateway(db_dsn, pki, fastpath=fastpath) as (url, _):
        for who, own, other in (("john", "J.Q", "M.Q"), ("mary", "M.Q", "J.Q"), ("ann", "J.Q", "M.Q")):
            ctx = tls(pki, pki.clients[who])
            r = await post(url, ctx, send_raw(own))
            assert r.status == 200, (who, r.body)
            assert b"<status_code>0</status_code>" in r.body, (who, r.body)
            r = await post(url, ctx, send_raw(other))
            assert r.status == 500 and error_code(r.body) in ("1031", "24010"), (who, r.body)
            # a request the fast path hands to aiohttp mid-connection: the same certificate
            r = await post(url, ctx, send_raw(own), headers={"X-Pgaq-Forwarded": "1"})
            assert r.status == 200, (who, r.body)
    assert await counts(conn) == (4, 2)


@pytest.mark.parametrize("fastpath", [True, False], ids=["fastpath", "aiohttp"])
async def test_refused_certificates_get_401_and_change_nothing(pki: Pki, db: Db, conn: asyncpg.Connection,
                                                               db_dsn: str, fastpath: bool) -> None:
    before = await catalog_digest(conn)
    bob = basic("BOB", "bob-pw-8Hq")
    cases: list[tuple[str, str | None, str | None, dict[str, str]]] = [
        ("matches no agent", "stranger", None, {}),
        ("agent without enable_http", "carol", None, {}),
        ("two agents name it", "twin", None, {}),
        # a certificate must name its agent: valid Basic credentials do not rescue it
        ("matches no agent, with BOB's password", "stranger", bob, {}),
        ("agent without enable_http, with BOB's password", "carol", bob, {}),
        # two identities in one request: refused, whichever is right
        ("JOHN's certificate, BOB's password", "john", bob, {}),
        ("JOHN's certificate, a wrong JOHN password", "john", basic("JOHN", "nope"), {}),
        # the workers' forwarding header means nothing on the public port
        ("no certificate, forged subject", None, None,
         {"X-Pgaq-Forwarded": "1", "X-Pgaq-Client-Subject": "CN=john,OU=Billing,O=Acme Corp,C=US"}),
        ("no certificate, forged subject only", None, None,
         {"X-Pgaq-Client-Subject": "CN=john,OU=Billing,O=Acme Corp,C=US"}),
        ("no certificate, no password", None, None, {}),
    ]
    async with tls_gateway(db_dsn, pki, fastpath=fastpath) as (url, _):
        for case, who, auth, headers in cases:
            ctx = tls(pki, pki.clients[who] if who else None)
            for queue in ("J.Q", "M.Q"):
                r = await post(url, ctx, send_raw(queue), auth=auth, headers=headers)
                assert r.status == 401, (case, r.status, r.body)
                assert r.headers.get("WWW-Authenticate", "").startswith("Basic"), case
                assert b"Traceback" not in r.body, case
        # the same gateway lets the right ones in
        assert (await post(url, tls(pki, pki.clients["john"]), send_raw("J.Q"),
                           auth=basic("JOHN", "john-pw-5Tg"))).status == 200
        assert (await post(url, tls(pki, None), send_raw("M.Q"), auth=bob)).status == 200
    assert await counts(conn) == (1, 1)
    after = await catalog_digest(conn)
    assert {k: v for k, v in after.items() if k != "queue_tables"} == \
        {k: v for k, v in before.items() if k != "queue_tables"}


async def test_a_certificate_from_another_ca_fails_the_handshake(pki: Pki, db: Db, conn: asyncpg.Connection,
                                                                 db_dsn: str) -> None:
    """The same subject as JOHN's, signed by a CA the gateway does not trust: TLS itself
    refuses it (the client never gets an HTTP answer), whether or not a password rides along."""
    async with tls_gateway(db_dsn, pki) as (url, _):
        for auth in (None, basic("JOHN", "john-pw-5Tg")):
            with pytest.raises((aiohttp.ClientError, ssl.SSLError, ConnectionError)):
                await post(url, tls(pki, pki.rogue["john"]), send_raw("J.Q"), auth=auth)
        # the gateway still serves the right certificate
        assert (await post(url, tls(pki, pki.clients["john"]), send_raw("J.Q"))).status == 200
    assert await counts(conn) == (1, 0)


async def test_a_required_certificate(pki: Pki, db: Db, conn: asyncpg.Connection, db_dsn: str) -> None:
    """PGAQ_TLS_CLIENT_REQUIRED: without a certificate there is no connection at all, so
    Basic credentials alone no longer log in; with one, as before."""
    async with tls_gateway(db_dsn, pki, tls_client_required=True) as (url, _):
        with pytest.raises((aiohttp.ClientError, ssl.SSLError, ConnectionError)):
            await post(url, tls(pki, None), send_raw("M.Q"), auth=basic("BOB", "bob-pw-8Hq"))
        assert (await post(url, tls(pki, pki.clients["mary"]), send_raw("M.Q"))).status == 200
    assert await counts(conn) == (0, 1)


async def test_a_session_continues_on_its_certificate(pki: Pki, db: Db, conn: asyncpg.Connection,
                                                      db_dsn: str) -> None:
    """A transaction over several requests (the session cookie), each on a new
    connection that presents the certificate again; another agent's certificate cannot
    take the session over."""
    async with tls_gateway(db_dsn, pki) as (url, _):
        john = tls(pki, pki.clients["john"])
        r = await post(url, john, send_raw("J.Q", commit=False))
        assert r.status == 200 and r.cookie, r.body
        cookie = r.cookie
        r = await post(url, john, send_raw("J.Q", commit=False), cookie=cookie)
        assert r.status == 200, r.body
        r = await post(url, tls(pki, pki.clients["ann"]), envelope(op("AQXmlCommit", "")), cookie=cookie)
        # ANN may not use JOHN's session (a Client fault; SOAP 1.1 puts faults on HTTP 500)
        assert r.status in (400, 500) and error_code(r.body) == "25400", r.body
        assert await counts(conn) == (0, 0)
        r = await post(url, john, envelope(op("AQXmlCommit", "")), cookie=cookie)
        assert r.status == 200, r.body
    assert await counts(conn) == (2, 0)


async def test_agent_changes_hold_from_the_next_request(pki: Pki, db: Db, conn: asyncpg.Connection,
                                                        db_dsn: str) -> None:
    """The gateway remembers which agent a certificate names; disabling HTTP, moving the
    certificate_location, dropping the agent or creating a new one holds at once (on the
    agents' change notification, awaited here, not waited out)."""
    async with tls_gateway(db_dsn, pki) as (url, app):
        auth = app[AUTH]
        forgot = asyncio.Event()
        original = auth.forget

        def forget() -> None:
            original()
            forgot.set()

        auth.forget = forget  # type: ignore[method-assign]

        async def change(sql: str, *args: object) -> None:
            forgot.clear()
            await conn.execute(sql, *args)
            await asyncio.wait_for(forgot.wait(), 10)

        john = tls(pki, pki.clients["john"])
        assert (await post(url, john, send_raw("J.Q"))).status == 200
        await change("CALL dbms_aqadm.alter_aq_agent('JOHN', enable_http => false)")
        assert (await post(url, john, send_raw("J.Q"))).status == 401
        await change("CALL dbms_aqadm.alter_aq_agent('JOHN', enable_http => true)")
        assert (await post(url, john, send_raw("J.Q"))).status == 200
        await change("CALL dbms_aqadm.alter_aq_agent('JOHN', certificate_location => 'CN=someone else')")
        assert (await post(url, john, send_raw("J.Q"))).status == 401
        # a new agent for a certificate that named nobody
        late = tls(pki, pki.clients["late"])
        assert (await post(url, late, send_raw("J.Q"))).status == 401
        await change("CALL dbms_aqadm.create_aq_agent(agent_name => 'LATE', enable_http => true, "
                     "certificate_location => 'CN=Late Comer,O=Acme Corp')")
        await conn.execute("CALL dbms_aqadm.enable_db_access('LATE', $1)", db.role_j)
        assert (await post(url, late, send_raw("J.Q"))).status == 200
        await change("CALL dbms_aqadm.drop_aq_agent('LATE')")
        assert (await post(url, late, send_raw("J.Q"))).status == 401
        # one twin dropped: the certificate names a single agent now
        twin = tls(pki, pki.clients["twin"])
        assert (await post(url, twin, send_raw("M.Q"))).status == 401
        await change("CALL dbms_aqadm.drop_aq_agent('TWIN2')")
        assert (await post(url, twin, send_raw("M.Q"))).status == 200
    assert await counts(conn) == (3, 1)


# -- several worker processes on one port


async def _start_group(db_dsn: str, pki: Pki) -> tuple[asyncio.subprocess.Process, str]:
    """`python -m pgaq_services.gateway` with two workers and certificate login."""

    async def both_workers(proc: asyncio.subprocess.Process) -> bool:
        return len(await _children(proc.pid)) == 2

    return await start_gateway(db_dsn, ready=both_workers, tls=tls(pki, None),
                               PGAQ_TLS_CERT=pki.server[0], PGAQ_TLS_KEY=pki.server[1],
                               PGAQ_TLS_CLIENT_CA=pki.ca)


async def _children(pid: int) -> list[int]:
    out = await asyncio.create_subprocess_exec("pgrep", "-P", str(pid), stdout=asyncio.subprocess.PIPE)
    return [int(p) for p in (await out.communicate())[0].split()]


@pytest.mark.slow
async def test_certificate_login_across_worker_processes(pki: Pki, db: Db, conn: asyncpg.Connection,
                                                         db_dsn: str) -> None:
    """Each worker verifies certificates itself; a session's request that lands on the
    other worker is passed to its owner with the verified subject, so the owner logs the
    same agent in (12 fresh connections: both workers take some, p = 1 - 2^-12)."""
    proc, base = await _start_group(db_dsn, pki)
    url = f"{base}/aqserv/servlet"
    try:
        john = tls(pki, pki.clients["john"])
        r = await post(url, john, send_raw("J.Q", commit=False))
        assert r.status == 200 and r.cookie and r.cookie.startswith("w"), r.body
        cookie = r.cookie
        for _ in range(12):
            r = await post(url, john, send_raw("J.Q", commit=False), cookie=cookie)
            assert r.status == 200, r.body
            assert r.cookie in (None, cookie)
        # another agent's certificate with JOHN's cookie reaches JOHN's session nowhere
        for _ in range(6):
            r = await post(url, tls(pki, pki.clients["ann"]), envelope(op("AQXmlCommit", "")), cookie=cookie)
            assert r.status in (400, 500) and error_code(r.body) == "25400", r.body
        for who in ("stranger", "carol"):
            r = await post(url, tls(pki, pki.clients[who]), send_raw("J.Q"), cookie=cookie)
            assert r.status == 401, (who, r.body)
        assert await counts(conn) == (0, 0)
        r = await post(url, john, envelope(op("AQXmlCommit", "")), cookie=cookie)
        assert r.status == 200, r.body
        assert await counts(conn) == (13, 0)
    finally:
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 30) == 0
