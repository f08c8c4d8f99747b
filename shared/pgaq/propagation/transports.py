"""Where a schedule's messages go: this database, another PostgreSQL database, or another
pgaq gateway over HTTP. Each transport delivers one batch for one destination queue and
classifies what goes wrong: SystemFailure is retried with backoff (network, remote down,
queue stopped for enqueue); ApplicationFailure is not (no such queue, type mismatch,
refused credentials)."""

from __future__ import annotations

import base64
import json
import ssl
from collections.abc import Sequence
from typing import Any, Protocol

import aiohttp
import asyncpg
from lxml import etree
from yarl import URL

from ..client import load_json_payload
from ..errors import PgaqError, QueueError, wrap_db_error
from ..idap.payload import payload_to_xml
from ..idap.request import NS_AQ, NS_SOAP
from ..idap.typeinfo import TypeInfo, load_type_info
from ..queries import load

NS_PGAQ = "urn:pgaq:propagation"
_RETRYABLE = {25207}  # the destination queue is stopped for enqueue
_APPLICATION = {24010, 25215, 1031, 24039, 24033, 2019}


class PropagationError(PgaqError):
    """Root of the propagator's errors."""


class SystemFailure(PropagationError):
    """Retried with exponential backoff."""


class ApplicationFailure(PropagationError):
    """Not retried: messages UNDELIVERABLE (queue-to-dblink) or the schedule stopped
    (queue-to-queue)."""


def classify(exc: BaseException) -> PropagationError:
    if isinstance(exc, PropagationError):
        return exc
    if isinstance(exc, asyncpg.PostgresError | OSError | asyncpg.InterfaceError | TimeoutError):
        err = wrap_db_error(exc) if not isinstance(exc, TimeoutError) else PgaqError("timed out")
    elif isinstance(exc, PgaqError):
        err = exc
    else:
        return SystemFailure(f"{type(exc).__name__}: {exc}")
    msg = err.message.split("\n")[0]
    if err.code in _APPLICATION and err.code not in _RETRYABLE:
        return ApplicationFailure(msg, err.code)
    if err.sqlstate in ("42P01", "42883", "42804"):
        return ApplicationFailure(msg, err.code)
    return SystemFailure(msg, err.code)


class Transport(Protocol):
    async def deliver(self, src: asyncpg.Connection, key: str, queue: str,
                      rows: Sequence[asyncpg.Record], source_signature: str,
                      *, payload_type: str | None = None) -> int: ...

    async def close(self) -> None: ...


def _arrays(rows: Sequence[asyncpg.Record]) -> tuple[list[bytes], str, str | None, list[bytes] | None]:
    ids = [r["msgid"] for r in rows]
    props = json.dumps([json.loads(r["props"]) if isinstance(r["props"], str) else r["props"]
                        for r in rows])
    raw = [r["payload_raw"] for r in rows]
    if all(p is None for p in raw):
        payloads = json.dumps([json.loads(r["payload_json"]) if isinstance(r["payload_json"], str)
                               else r["payload_json"] for r in rows])
        return ids, props, payloads, None
    return ids, props, None, raw


class LocalTransport:
    """The same database: the destination's enqueue is part of the source's transaction."""

    def __init__(self) -> None:
        self._checked: dict[str, str] = {}

    async def deliver(self, src: asyncpg.Connection, key: str, queue: str,
                      rows: Sequence[asyncpg.Record], source_signature: str,
                      *, payload_type: str | None = None) -> int:
        try:
            async with src.transaction():  # a savepoint: a refused queue keeps the batch's others
                sig = self._checked.get(queue)
                if sig is None:
                    sig = self._checked[queue] = str(await src.fetchval(load("prop_signature"), queue))
                if sig != source_signature:
                    raise ApplicationFailure(
                        f"ORA-25215: payload types of the source and {queue} are not equivalent "
                        f"({source_signature} vs {sig})", 25215)
                ids, props, payloads, raw = _arrays(rows)
                return int(await src.fetchval(load("prop_receive"), key, queue, ids, props, payloads, raw))
        except Exception as exc:
            self._checked.pop(queue, None)
            raise classify(exc) from exc

    async def close(self) -> None:
        pass


class PgTransport:
    """Another PostgreSQL database with pgaq installed, through a small pool. The remote
    enqueue commits first; the source marks the batch propagated after, and the remote
    drops a second copy of anything it already received under the schedule's key."""

    def __init__(self, url: str, user: str | None, password: str | None, timeout: float) -> None:
        self.url, self.user, self.password, self.timeout = url, user, password, timeout
        self._pool: asyncpg.Pool | None = None
        self._checked: dict[str, str] = {}

    async def _conn_pool(self) -> asyncpg.Pool:
        if self._pool is None:
            kw: dict[str, Any] = {}
            if self.user:
                kw["user"] = self.user
            if self.password:
                kw["password"] = self.password
            self._pool = await asyncpg.create_pool(self.url, min_size=0, max_size=4, timeout=self.timeout,
                                                   command_timeout=self.timeout, **kw)
        return self._pool

    async def deliver(self, src: asyncpg.Connection, key: str, queue: str,
                      rows: Sequence[asyncpg.Record], source_signature: str,
                      *, payload_type: str | None = None) -> int:
        try:
            pool = await self._conn_pool()
            async with pool.acquire() as c:
                sig = self._checked.get(queue)
                if sig is None:
                    sig = self._checked[queue] = str(await c.fetchval(load("prop_signature"), queue))
                if sig != source_signature:
                    raise ApplicationFailure(
                        f"ORA-25215: payload types of the source and the remote {queue} are not "
                        f"equivalent ({source_signature} vs {sig})", 25215)
                ids, props, payloads, raw = _arrays(rows)
                return int(await c.fetchval(load("prop_receive"), key, queue, ids, props, payloads, raw))
        except Exception as exc:
            self._checked.pop(queue, None)
            if isinstance(exc, OSError | asyncpg.InterfaceError | TimeoutError) and self._pool is not None:
                pool, self._pool = self._pool, None
                pool.terminate()
            raise classify(exc) from exc

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()


class HttpTransport:
    """Another pgaq gateway: AQXmlSend/AQXmlPublish of the batch with AQXmlCommit, the
    source message ids in a SOAP header the gateway uses to drop second copies."""

    def __init__(self, url: str, user: str | None, password: str | None, timeout: float,
                 ca_file: str | None = None) -> None:
        # credentials written into the URL (http://user:password@host/...) become the
        # Basic credentials when the link has none of its own, and leave the URL: aiohttp
        # refuses both at once, and a URL with them would carry them into error messages
        parsed = URL(url)
        if parsed.user is not None:
            if not user:
                user, password = parsed.user, parsed.password or ""
            parsed = parsed.with_user(None)
        self.url = str(parsed)
        self.timeout = timeout
        # https: the system's CAs, plus ca_file's (a gateway with its own or a self-signed certificate)
        self._ssl: ssl.SSLContext | None = None
        if ca_file:
            self._ssl = ssl.create_default_context()
            self._ssl.load_verify_locations(cafile=ca_file)
        self._auth = ("Basic " + base64.b64encode(f"{user or ''}:{password or ''}".encode()).decode()
                      if user else None)
        self._http: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        if self._http is None:
            self._http = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.timeout),
                cookie_jar=aiohttp.DummyCookieJar(),
                connector=aiohttp.TCPConnector(ssl=self._ssl) if self._ssl is not None else None)
        return self._http

    @staticmethod
    def document(key: str, queue: str, rows: Sequence[asyncpg.Record], multi: bool,
                 kind: str = "RAW", info: TypeInfo | None = None) -> bytes:
        """The batch as one SOAP request; objects and JMS messages are written as the
        gateway's AQXmlReceive writes them (shared/pgaq/idap/payload.py), so the remote
        gateway reads them back with its own queue's type."""
        env = etree.Element(f"{{{NS_SOAP}}}Envelope", nsmap={None: NS_SOAP})
        header = etree.SubElement(env, f"{{{NS_SOAP}}}Header")
        prop = etree.SubElement(header, f"{{{NS_PGAQ}}}propagation", nsmap={"pgaq": NS_PGAQ})
        etree.SubElement(prop, f"{{{NS_PGAQ}}}schedule_key").text = key
        for r in rows:
            etree.SubElement(prop, f"{{{NS_PGAQ}}}source_msgid").text = r["msgid"].hex().upper()
        body = etree.SubElement(env, f"{{{NS_SOAP}}}Body")
        op = etree.SubElement(body, f"{{{NS_AQ}}}{'AQXmlPublish' if multi else 'AQXmlSend'}",
                              nsmap={None: NS_AQ})

        def aq(parent: etree._Element, name: str, value: object | None = None) -> etree._Element:
            el = etree.SubElement(parent, f"{{{NS_AQ}}}{name}")
            if value is not None:
                el.text = str(value)
            return el

        aq(aq(op, "producer_options"), "destination", queue)
        ms = aq(op, "message_set")
        aq(ms, "message_count", len(rows))
        for i, r in enumerate(rows, start=1):
            p = json.loads(r["props"]) if isinstance(r["props"], str) else r["props"]
            m = aq(ms, "message")
            aq(m, "message_number", i)
            h = aq(m, "message_header")
            if p.get("correlation") is not None:
                aq(h, "correlation", p["correlation"])
            if p.get("expiration") is not None:
                aq(h, "expiration", p["expiration"])
            aq(h, "priority", p.get("priority", 1))
            s = aq(h, "sender_id")
            sender = p.get("sender_id") or {}
            if sender.get("name"):
                aq(s, "agent_name", sender["name"])
            if sender.get("address"):
                aq(s, "address", sender["address"])
            if multi and p.get("recipient_list"):
                rl = aq(h, "recipient_list")
                for rc in p["recipient_list"]:
                    aq(aq(rl, "recipient"), "agent_name", rc["name"])
            payload = aq(m, "message_payload")
            if r["payload_raw"] is not None:
                aq(payload, "RAW", r["payload_raw"].hex().upper())
            else:
                value = r["payload_json"]
                if isinstance(value, str):
                    value = load_json_payload(value)
                try:
                    payload_to_xml(kind, value, info, payload, NS_AQ)
                except (QueueError, ValueError) as exc:
                    raise ApplicationFailure(f"ORA-25215: a {kind} payload cannot travel over HTTP: "
                                             f"{exc}", 25215) from exc
        aq(op, "AQXmlCommit")
        out: bytes = etree.tostring(env, xml_declaration=True, encoding="UTF-8")
        return out

    async def deliver(self, src: asyncpg.Connection, key: str, queue: str,
                      rows: Sequence[asyncpg.Record], source_signature: str,
                      *, payload_type: str | None = None) -> int:
        multi = any((json.loads(r["props"]) if isinstance(r["props"], str) else r["props"])
                    .get("recipient_list") for r in rows)
        kind = source_signature.split(":", 1)[0]
        info: TypeInfo | None = None
        if kind == "OBJECT":
            if payload_type is None:
                raise ApplicationFailure("ORA-25215: an object payload over HTTP needs its type", 25215)
            try:
                info = await load_type_info(src, payload_type)
            except Exception as exc:
                raise classify(exc) from exc
        headers = {"Content-Type": "text/xml; charset=utf-8"}
        if self._auth:
            headers["Authorization"] = self._auth
        doc = self.document(key, queue, rows, multi, kind, info)
        try:
            async with self._client().post(self.url, data=doc, headers=headers) as r:
                body = await r.read()
                if r.status == 200:
                    return len(rows)
                if r.status in (401, 403):
                    raise ApplicationFailure(
                        f"the remote gateway refused the link's credentials (HTTP {r.status})", 1017)
                fault = _fault(body)
                # a Client fault is the request's (HTTP 500 as SOAP 1.1 says, 400 from
                # gateways before it); a Server fault, or no fault, is retried
                if fault is not None and (r.status == 400 or not _server_fault(body)):
                    code, text = fault
                    if code == 24039:  # Send vs Publish: the remote queue is the other kind
                        return await self._retry_as(self.document(key, queue, rows, not multi, kind, info),
                                                    len(rows), headers)
                    if code in _RETRYABLE:
                        raise SystemFailure(text, code)
                    raise ApplicationFailure(text, code)
                raise SystemFailure(f"the remote gateway answered HTTP {r.status}")
        except PropagationError:
            raise
        except TimeoutError as exc:
            raise SystemFailure(f"no answer from the remote gateway within {self.timeout:g} s") from exc
        except (aiohttp.ClientError, OSError) as exc:
            raise SystemFailure(f"{type(exc).__name__}: {exc}") from exc

    async def _retry_as(self, doc: bytes, n: int, headers: dict[str, str]) -> int:
        async with self._client().post(self.url, data=doc, headers=headers) as r:
            body = await r.read()
            if r.status == 200:
                return n
            fault = _fault(body)
            raise ApplicationFailure(fault[1] if fault else f"HTTP {r.status}", fault[0] if fault else None)

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()


def _server_fault(body: bytes) -> bool:
    """Whether the SOAP Fault's faultcode is Server (ours to retry), not Client's."""
    try:
        doc = etree.fromstring(body, etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError:
        return True
    code = str(doc.xpath("string(//*[local-name()='Fault']/*[local-name()='faultcode'])"))
    return code.strip().rsplit(":", 1)[-1] == "Server"


def _fault(body: bytes) -> tuple[int | None, str] | None:
    try:
        doc = etree.fromstring(body, etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError:
        return None
    codes = doc.xpath("//*[local-name()='error_code']/text()")
    msgs = doc.xpath("//*[local-name()='error_message']/text()")
    if not msgs:
        return None
    try:
        code = int(codes[0]) if codes else None
    except ValueError:
        code = None
    return code, str(msgs[0])
