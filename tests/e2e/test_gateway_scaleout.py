"""Two gateway instances behind HAProxy (deploy/ha's configuration, ha.gateways): a
transactional IDAP session stays on one instance; SIGKILLing that instance loses the
session's open transaction and nothing committed, its next request is told so once
(ORA-25402) and the one after works; sessions on the other instance carry on."""

from __future__ import annotations

import base64
import re
from collections.abc import AsyncIterator

import aiohttp
import asyncpg
import pytest

from ha.gateways import GatewayFarm, available

SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
AQ = "http://ns.oracle.com/AQ/schemas/access"
AUTH = "Basic " + base64.b64encode(b"SCALE:pw").decode()

pytestmark = pytest.mark.skipif(not available(), reason="HAProxy is not installed "
                                "(/usr/sbin/haproxy; deploy/system-deps.sh --test installs it)")


def doc(body: str) -> bytes:
    return f'<Envelope xmlns="{SOAP}"><Body>{body}</Body></Envelope>'.encode()


def send(corr: str, commit: bool = False) -> bytes:
    return doc(f'<AQXmlSend xmlns="{AQ}"><producer_options><destination>sc.q</destination>'
               f"</producer_options><message_set><message><message_number>1</message_number>"
               f"<message_header><correlation>{corr}</correlation><sender_id/></message_header>"
               f"<message_payload><RAW>0A0B</RAW></message_payload></message></message_set>"
               f"{'<AQXmlCommit/>' if commit else ''}</AQXmlSend>")


def receive(corr: str, commit: bool = False) -> bytes:
    return doc(f'<AQXmlReceive xmlns="{AQ}"><consumer_options><destination>sc.q</destination>'
               f"<wait_time>0</wait_time><selector><correlation>{corr}</correlation></selector>"
               f"</consumer_options>{'<AQXmlCommit/>' if commit else ''}</AQXmlReceive>")


COMMIT = doc(f'<AQXmlCommit xmlns="{AQ}"/>')


class Client:
    """One IDAP client through HAProxy: its own cookie jar, as a browser or SOAP toolkit
    keeps JSESSIONID (HAProxy's prefix and the gateway's expiry included)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))

    async def post(self, body: bytes) -> tuple[int, bytes]:
        headers = {"Content-Type": "text/xml", "Authorization": AUTH}
        async with self.http.post(self.url, data=body, headers=headers) as r:
            return r.status, await r.read()

    @property
    def instance(self) -> str | None:
        """The instance HAProxy pins the session to: its cookie's prefix (gw1~...)."""
        for c in self.http.cookie_jar:
            if c.key == "JSESSIONID" and "~" in c.value:
                return c.value.split("~", 1)[0]
        return None

    async def close(self) -> None:
        await self.http.close()


def error_code(body: bytes) -> str | None:
    m = re.search(rb"<error_code>(\d+)</error_code>", body)
    return m.group(1).decode() if m else None


async def served(farm: GatewayFarm) -> dict[str, float]:
    """Servlet requests each instance counted (its own /metrics, not through HAProxy)."""
    out = {}
    async with aiohttp.ClientSession() as http:
        for name in farm.names:
            async with http.get(f"{farm.direct(name)}/metrics") as r:
                text = await r.text()
            out[name] = sum(float(ln.rsplit(" ", 1)[1]) for ln in text.splitlines()
                            if ln.startswith("pgaq_gateway_requests_total{"))
    return out


@pytest.fixture
async def farm(db_dsn: str) -> AsyncIterator[GatewayFarm]:
    c = await asyncpg.connect(db_dsn)
    try:
        await c.execute("""
            CREATE SCHEMA sc;
            CALL dbms_aqadm.create_queue_table('sc.qt', 'RAW');
            CALL dbms_aqadm.create_queue('sc.q', 'sc.qt'); CALL dbms_aqadm.start_queue('sc.q');
            CALL dbms_aqadm.create_aq_agent(agent_name => 'SCALE', enable_http => true, password => 'pw');
            CALL dbms_aqadm.enable_db_access(agent_name => 'SCALE', db_username => 'postgres');
        """)
    finally:
        await c.close()
    async with GatewayFarm(db_dsn, 2) as f:
        yield f


async def corrids(dsn: str) -> list[str]:
    c = await asyncpg.connect(dsn)
    try:
        return [r["corrid"] for r in await c.fetch("SELECT corrid FROM sc.qt ORDER BY enq_seq")]
    finally:
        await c.close()


async def pinned_to(farm: GatewayFarm, name: str, opening: bytes) -> Client:
    """A client whose open transaction (begun by `opening`, uncommitted) HAProxy pinned
    to instance `name`; new sessions are balanced, so a few tries reach it."""
    for _ in range(20):
        c = Client(farm.url)
        status, body = await c.post(opening)
        assert status == 200 and c.instance in farm.names, body
        if c.instance == name:
            return c
        assert (await c.post(doc(f'<AQXmlRollback xmlns="{AQ}"/>')))[0] == 200
        await c.close()
    raise AssertionError(f"HAProxy sent no new session to {name}")


async def test_a_session_stays_on_its_instance_and_its_death_loses_only_open_work(
        farm: GatewayFarm, db_dsn: str) -> None:
    oneshot = Client(farm.url)
    try:
        assert (await oneshot.post(send("r1", commit=True)))[0] == 200
    finally:
        await oneshot.close()
    a = await pinned_to(farm, "gw1", send("a-first"))
    b = await pinned_to(farm, "gw2", send("b-first"))
    r = await pinned_to(farm, "gw1", receive("r1"))  # r1 taken, not committed
    try:
        # a's requests all reach gw1: its counter moves by each of them, gw2's not at all
        before = await served(farm)
        for i in range(5):
            status, body = await a.post(send(f"a{i}"))
            assert status == 200 and a.instance == "gw1", body
        assert (await a.post(COMMIT))[0] == 200  # the session ends with its transaction
        after = await served(farm)
        assert after["gw1"] - before["gw1"] == 6 and after["gw2"] == before["gw2"], (before, after)
        committed = sorted(["r1", "a-first", *(f"a{i}" for i in range(5))])
        assert sorted(await corrids(db_dsn)) == committed
        await a.close()
        a = await pinned_to(farm, "gw1", send("a-open"))  # the transaction gw1's death takes

        await farm.kill("gw1", wait_down=False)  # HAProxy may not know yet: no matter

        # a's next request reaches gw2 (HAProxy redispatches), which does not know the
        # session: ORA-25402, the transaction is gone; never silently a fresh session
        status, body = await a.post(send("a-lost"))
        assert status == 500 and error_code(body) == "25402", body
        assert b"nothing it did since its last commit was kept" in body
        assert a.instance is None  # the cookie is expired: told once
        # nothing committed is lost, nothing uncommitted was kept
        assert sorted(await corrids(db_dsn)) == committed
        # r's commit of its receive, too, is refused: r1 was not consumed
        status, body = await r.post(COMMIT)
        assert status == 500 and error_code(body) == "25402", body
        c = await asyncpg.connect(db_dsn)
        try:  # waits (on the row lock) until PostgreSQL has rolled back gw1's transaction
            await c.execute("SET lock_timeout = '30s'")
            assert await c.fetchval("SELECT corrid FROM sc.qt WHERE corrid = 'r1' FOR UPDATE") == "r1"
        finally:
            await c.close()
        status, body = await r.post(receive("r1", commit=True))
        assert status == 200 and b"<RAW>0A0B</RAW>" in body, body
        committed.remove("r1")

        # b, on gw2, is unaffected: its transaction is still open and commits
        status, body = await b.post(send("b-more"))
        assert status == 200 and b.instance == "gw2", body
        assert (await b.post(COMMIT))[0] == 200
        committed = sorted([*committed, "b-first", "b-more"])
        assert sorted(await corrids(db_dsn)) == committed

        # a's request after the fault works: a new session, now on gw2
        status, body = await a.post(send("a-again"))
        assert status == 200 and a.instance == "gw2", body
        assert (await a.post(COMMIT))[0] == 200
        # and a one-shot send (no session) just works
        oneshot = Client(farm.url)
        try:
            status, body = await oneshot.post(send("oneshot", commit=True))
        finally:
            await oneshot.close()
        assert status == 200, body
        assert sorted(await corrids(db_dsn)) == sorted([*committed, "a-again", "oneshot"])

        # gw1 started again: a new process, balanced to once more
        await farm.restart("gw1")
        c = Client(farm.url)
        try:
            for i in range(10):
                status, body = await c.post(send(f"after{i}", commit=True))
                assert status == 200, body
        finally:
            await c.close()
    finally:
        for x in (a, b, r):
            await x.close()
