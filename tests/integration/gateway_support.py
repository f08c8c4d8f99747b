"""A gateway served in-process on a loopback port, for integration tests over real HTTP."""

from __future__ import annotations

import base64
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import aiohttp
import asyncpg
from lxml import etree
from pgaq.embedded import free_port
from pgaq_services.gateway.app import Settings, build, runner_for, tcp_site

NS = {"s": "http://schemas.xmlsoap.org/soap/envelope/", "aq": "http://ns.oracle.com/AQ/schemas/access"}


def envelope(body: str, header: str = "") -> bytes:
    return (
        '<?xml version="1.0"?>\n'
        '<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/">'
        f"{header}<Body>{body}</Body></Envelope>"
    ).encode()


def op(name: str, inner: str) -> str:
    return f'<{name} xmlns="http://ns.oracle.com/AQ/schemas/access">{inner}</{name}>'


@dataclass
class Reply:
    status: int
    body: bytes
    doc: etree._Element | None

    def text(self, xpath: str) -> list[str]:
        assert self.doc is not None, self.body
        return [e.text or "" for e in self.doc.xpath(xpath, namespaces=NS)]

    @property
    def fault(self) -> str | None:
        if self.doc is None:
            return None
        f = self.doc.xpath("//s:Fault", namespaces=NS)
        if not f:
            return None
        return "".join(self.doc.xpath("//aq:error_message/text()", namespaces=NS)) or "fault"

    @property
    def error_code(self) -> str | None:
        codes = self.text("//aq:error_code")
        return codes[0] if codes else None


class Client:
    """One IDAP client: its own cookie jar (HTTP session) and credentials."""

    def __init__(self, url: str, agent: str, password: str) -> None:
        self.url = url
        self.auth = "Basic " + base64.b64encode(f"{agent}:{password}".encode()).decode()
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))

    async def post(self, document: bytes, *, content_type: str = "text/xml",
                   auth: bool = True, headers: dict[str, str] | None = None) -> Reply:
        h = {"Content-Type": content_type}
        if auth:
            h["Authorization"] = self.auth
        h.update(headers or {})
        async with self.http.post(self.url, data=document, headers=h) as r:
            body = await r.read()
            doc = None
            if body.startswith(b"<?xml"):
                doc = etree.fromstring(body)
            return Reply(r.status, body, doc)

    async def close(self) -> None:
        await self.http.close()


@asynccontextmanager
async def running_gateway(dsn: str, **overrides: object) -> AsyncIterator[str]:
    port = free_port()
    settings = Settings(dsn=dsn, port=port, **overrides)  # type: ignore[arg-type]
    app = build(settings)
    runner = runner_for(app, settings)
    await runner.setup()
    await tcp_site(runner, settings).start()  # the fast path unless fastpath=False
    try:
        yield f"{'https' if settings.tls_cert else 'http'}://127.0.0.1:{port}{settings.path}"
    finally:
        await runner.cleanup()


async def make_agent(conn: asyncpg.Connection, agent: str = "JOHN", password: str = "secret",
                     roles: tuple[str, ...] = ("oe",)) -> list[str]:
    """An HTTP-enabled agent mapped to fresh database roles (returned, unique per test)."""
    made = []
    for base in roles:
        role = f"{base}_{uuid.uuid4().hex[:8]}"
        await conn.execute(f'CREATE ROLE "{role}" NOLOGIN')
        made.append(role)
    await conn.execute(
        "CALL dbms_aqadm.create_aq_agent(agent_name => $1, enable_http => true, password => $2)",
        agent, password)
    # the same password at bcrypt's lowest cost: each gateway's first request per
    # credential checks it (~50 ms of the server's CPU at cost 10, ~1 ms at 4), and what
    # these tests check is the gateway, not the hash (test_privileges checks that)
    await conn.execute(
        "UPDATE aq.agents SET password_hash = public.crypt($2, public.gen_salt('bf', 4))"
        " WHERE name = aq.agent_name($1)", agent, password)
    for role in made:
        await conn.execute("CALL dbms_aqadm.enable_db_access(agent_name => $1, db_username => $2)",
                           agent, role)
    return made


async def drop_roles(conn: asyncpg.Connection, roles: list[str]) -> None:
    for role in roles:
        await conn.execute(f'DROP OWNED BY "{role}" CASCADE')
        await conn.execute(f'DROP ROLE IF EXISTS "{role}"')
