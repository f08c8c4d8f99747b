"""The gateway as several worker processes on one port: a session's requests reach the
worker holding its transaction whichever worker accepts the connection; metrics add up
over the workers; the workers do not outlive their parent."""

from __future__ import annotations

import asyncio
import base64
import os
import signal
from collections.abc import AsyncIterator

import aiohttp
import asyncpg
import pytest

from tests.e2e.support import start_gateway

SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
AQ = "http://ns.oracle.com/AQ/schemas/access"
AUTH = "Basic " + base64.b64encode(b"WORKERS:pw").decode()


def doc(body: str) -> bytes:
    return f'<Envelope xmlns="{SOAP}"><Body>{body}</Body></Envelope>'.encode()


def send(i: int, commit: bool) -> bytes:
    return doc(f'<AQXmlSend xmlns="{AQ}"><producer_options><destination>wk.q</destination>'
               f"</producer_options><message_set><message><message_number>1</message_number>"
               f"<message_header><correlation>m{i}</correlation><sender_id/></message_header>"
               f"<message_payload><RAW>0A0B</RAW></message_payload></message></message_set>"
               f"{'<AQXmlCommit/>' if commit else ''}</AQXmlSend>")


COMMIT = doc(f'<AQXmlCommit xmlns="{AQ}"/>')


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie waits for init to reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


def listening_sockets(port: int) -> int:
    """How many sockets listen on `port` (each worker binds its own, SO_REUSEPORT): a worker
    that exists but has not reached listen() yet takes no connection, and one whose
    companion does not listen yet either leaves the port refusing them."""
    n = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                n += 1
    return n


def _port(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


async def children_of(pid: int) -> list[int]:
    out = await asyncio.create_subprocess_exec("pgrep", "-P", str(pid), stdout=asyncio.subprocess.PIPE)
    return [int(p) for p in (await out.communicate())[0].split()]


@pytest.fixture
async def gateway(db_dsn: str) -> AsyncIterator[tuple[str, asyncio.subprocess.Process]]:
    c = await asyncpg.connect(db_dsn)
    try:
        await c.execute("""
            CREATE SCHEMA wk;
            CALL dbms_aqadm.create_queue_table('wk.qt', 'RAW');
            CALL dbms_aqadm.create_queue('wk.q', 'wk.qt'); CALL dbms_aqadm.start_queue('wk.q');
            CALL dbms_aqadm.create_aq_agent(agent_name => 'WORKERS', enable_http => true, password => 'pw');
            CALL dbms_aqadm.enable_db_access(agent_name => 'WORKERS', db_username => 'postgres');
        """)
    finally:
        await c.close()

    async def both_workers(proc: asyncio.subprocess.Process) -> bool:
        return len(await children_of(proc.pid)) == 2

    proc, base = await start_gateway(db_dsn, ready=both_workers)
    for _ in range(600):  # both processes are there: wait for both to listen
        if listening_sockets(_port(base)) == 2:
            break
        await asyncio.sleep(0.05)
    try:
        yield base, proc
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(proc.wait(), 30) == 0


async def post(base: str, body: bytes, cookie: str | None = None) -> tuple[int, str | None, bytes]:
    """One request on a fresh TCP connection, so the kernel picks the worker each time."""
    headers = {"Content-Type": "text/xml", "Authorization": AUTH}
    if cookie:
        headers["Cookie"] = f"JSESSIONID={cookie}"
    conn = aiohttp.TCPConnector(force_close=True)
    async with aiohttp.ClientSession(connector=conn, cookie_jar=aiohttp.DummyCookieJar()) as http:
        async with http.post(f"{base}/aqserv/servlet", data=body, headers=headers) as r:
            got = r.cookies.get("JSESSIONID")
            return r.status, got.value if got is not None else None, await r.read()


async def test_a_session_spans_workers(gateway: tuple[str, asyncio.subprocess.Process],
                                       db_dsn: str) -> None:
    base, _ = gateway
    status, cookie, body = await post(base, send(0, commit=False))
    assert status == 200 and cookie and cookie.startswith("w"), body
    for i in range(1, 13):  # 12 fresh connections: both workers take some (p = 1 - 2^-12)
        status, again, body = await post(base, send(i, commit=False), cookie)
        assert status == 200, body
        assert again in (None, cookie)  # the same session, never a new one
    c = await asyncpg.connect(db_dsn)
    try:
        # one transaction, still open: nothing visible yet
        assert await c.fetchval("SELECT count(*) FROM wk.qt") == 0
        status, after, body = await post(base, COMMIT, cookie)
        assert status == 200, body
        corr = await c.fetch("SELECT corrid FROM wk.qt ORDER BY enq_seq")
        assert [r["corrid"] for r in corr] == [f"m{i}" for i in range(13)]
    finally:
        await c.close()
    # the session ended with its transaction: the cookie is expired, not renewed
    assert after == ""
    # one-shot requests (commit inside) open no session and set no cookie
    status, none, body = await post(base, send(99, commit=True))
    assert status == 200 and none is None, body


async def test_metrics_add_up_over_workers(gateway: tuple[str, asyncio.subprocess.Process]) -> None:
    base, _ = gateway
    for i in range(10):
        status, _, body = await post(base, send(i, commit=True))
        assert status == 200, body
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{base}/metrics") as r:
            text = await r.text()
    lines = [ln for ln in text.splitlines()
             if ln.startswith("pgaq_gateway_requests_total{") and 'operation="AQXmlSend"' in ln
             and 'outcome="ok"' in ln]
    assert lines and sum(float(ln.rsplit(" ", 1)[1]) for ln in lines) == 10, text


async def test_workers_die_with_their_parent(gateway: tuple[str, asyncio.subprocess.Process]) -> None:
    _, proc = gateway
    workers = await children_of(proc.pid)
    assert len(workers) == 2
    proc.kill()
    await proc.wait()
    for _ in range(600):
        alive = [w for w in workers if _running(w)]
        if not alive:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError(f"workers {alive} outlived the gateway's parent")


def _worker_index(pid: int) -> str | None:
    with open(f"/proc/{pid}/environ", "rb") as f:
        for item in f.read().split(b"\0"):
            if item.startswith(b"PGAQ_GATEWAY_WORKER="):
                return item.split(b"=", 1)[1].decode()
    return None


async def test_a_session_whose_worker_died_is_told_once(
        gateway: tuple[str, asyncio.subprocess.Process], db_dsn: str) -> None:
    """The worker holding a session's transaction is SIGKILLed (its group starts another):
    the session's next request, whichever worker takes it, hears ORA-25402 with its cookie
    expired, never a silent fresh session; the request after that works."""
    base, proc = gateway
    status, cookie, body = await post(base, send(0, commit=False))
    assert status == 200 and cookie, body
    owner = cookie.split("-", 1)[0][1:]  # w<i>-<random>.<token>
    victim = next(p for p in await children_of(proc.pid) if _worker_index(p) == owner)
    os.kill(victim, signal.SIGKILL)
    for _ in range(600):  # the group starts a new worker in its place
        workers = await children_of(proc.pid)
        if victim not in workers and len(workers) == 2 and listening_sockets(_port(base)) == 2:
            break
        await asyncio.sleep(0.05)
    status, after, body = await post(base, send(1, commit=False), cookie)
    assert status == 500 and b"<error_code>25402</error_code>" in body, body
    assert after == ""  # expired: told once
    status, _, body = await post(base, send(2, commit=True))  # no cookie: a new session
    assert status == 200, body
    c = await asyncpg.connect(db_dsn)
    try:
        assert [r["corrid"] for r in await c.fetch("SELECT corrid FROM wk.qt")] == ["m2"]
    finally:
        await c.close()
