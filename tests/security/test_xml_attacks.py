"""XML attacks over HTTP beyond those of tests/integration/test_gateway_bad_input.py (which
covers internal, file and network entities, external DTDs, parameter entities, billion
laughs, a UTF-16 DOCTYPE, XInclude, the depth limit and the body limit): encodings that
hide a DOCTYPE from a byte search, quadratic blow-up without a DTD, element floods,
compressed bodies, and references a parser might follow (schemaLocation, stylesheet PIs).
Each is refused (Client fault with a code, or 413) or harmless, nothing is fetched,
nothing is enqueued, and the gateway still serves."""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import AsyncIterator

import aiohttp
import asyncpg
import pytest
from aiohttp import web
from pgaq.embedded import free_port

from tests.integration.gateway_support import envelope, op, running_gateway

from .support import Site, basic, send_raw

ALICE = basic("ALICE", "alice-pw-7Qz")


@pytest.fixture
async def spy() -> AsyncIterator[tuple[str, list[str]]]:
    """A loopback server recording every request: anything the parser fetched shows here."""
    hits: list[str] = []

    async def record(request: web.Request) -> web.Response:
        hits.append(request.path)
        return web.Response(text='<!ENTITY x "LEAKED">')

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", record)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}", hits
    finally:
        await runner.cleanup()


async def post(url: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    h = {"Content-Type": "text/xml", "Authorization": ALICE}
    h.update(headers or {})
    async with aiohttp.ClientSession(auto_decompress=False) as http, \
            http.post(url, data=body, headers=h) as r:
        return r.status, await r.read()


def client_fault(status: int, body: bytes) -> bool:
    return status == 500 and b"SOAP-ENV:Client" in body and re.search(rb"<error_code>\d+</error_code>", body) is not None


def attacks(spy_url: str, secret: str) -> dict[str, bytes]:
    doc = send_raw("A.Q", "&x;").decode().replace('<?xml version="1.0"?>\n', "")
    dtd = f'<!DOCTYPE Envelope [<!ENTITY x SYSTEM "file://{secret}">]>'
    plain = send_raw("A.Q").decode().replace('<?xml version="1.0"?>\n', "")
    big = "A" * 100_000
    return {
        # a DOCTYPE a byte search for "<!DOCTYPE" cannot see
        "utf-16le without BOM": (f'<?xml version="1.0" encoding="UTF-16LE"?>{dtd}{doc}').encode("utf-16-le"),
        "utf-16be with BOM": b"\xfe\xff" + f'<?xml version="1.0" encoding="UTF-16"?>{dtd}{doc}'.encode("utf-16-be"),
        "utf-32": f'<?xml version="1.0" encoding="UTF-32"?>{dtd}{doc}'.encode("utf-32"),
        "doctype after 8 KiB comment": (f'<?xml version="1.0"?><!--{"c" * 8192}-->{dtd}{doc}').encode(),
        "lower-case doctype": f'<?xml version="1.0"?><!doctype Envelope [<!entity x "y">]>{doc}'.encode(),
        "doctype with whitespace": f'<?xml version="1.0"?><! DOCTYPE Envelope>{doc}'.encode(),
        "character reference to NUL": send_raw("A.Q", "&#0;"),
        # quadratic blow-up without a DTD: one long attribute value repeated
        "many long attributes": ('<?xml version="1.0"?><Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/" '
                                 + " ".join(f'a{i}="{big}"' for i in range(60)) + "><Body/></Envelope>").encode(),
        "many namespace declarations": ('<?xml version="1.0"?><Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/" '
                                        + " ".join(f'xmlns:n{i}="urn:{i}"' for i in range(20_000))
                                        + "><Body/></Envelope>").encode(),
        "element flood": envelope(op("AQXmlSend", "<x/>" * 250_000)),
        "deep nesting": envelope("<a>" * 5000 + "</a>" * 5000),
        "external schemaLocation": plain.replace(
            "<Envelope ", f'<Envelope xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
                          f'xsi:schemaLocation="urn:x {spy_url}/xsd" ', 1).encode(),
        "stylesheet PI": (f'<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="{spy_url}/xsl"?>'
                          f"{plain}").encode(),
        "xinclude fallback to network": send_raw("A.Q").replace(
            b"<RAW>0A</RAW>", f'<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="{spy_url}/xi" '
                              f'parse="text"/>'.encode()),
        "unterminated": send_raw("A.Q")[:-40],
        "not xml": b"\x00\x01\x02\xff" * 100,
        "empty": b"",
    }


HARMLESS = {"external schemaLocation", "stylesheet PI"}  # valid documents: the hint is ignored


async def test_hostile_documents(site: Site, conn: asyncpg.Connection, spy: tuple[str, list[str]],
                                 tmp_path: object) -> None:
    spy_url, hits = spy
    secret = tmp_path / "secret.txt"  # type: ignore[operator]
    secret.write_text("CAFEBABE")
    wrong = []
    for name, doc in attacks(spy_url, str(secret)).items():
        status, body = await post(site.url, doc)
        leaked = b"CAFEBABE" in body or b"LEAKED" in body or b"Traceback" in body
        ok = status == 200 if name in HARMLESS else client_fault(status, body)
        if leaked or not ok:
            wrong.append((name, status, body[:200]))
    assert wrong == [], "\n".join(map(str, wrong))
    assert hits == []
    assert await conn.fetchval("SELECT count(*) FROM a.qt") == len(HARMLESS)
    # still serving
    assert (await post(site.url, send_raw("A.Q")))[0] == 200


async def test_compressed_bodies_are_bounded_after_decompression(conn: asyncpg.Connection,
                                                                 site: Site, db_dsn: str) -> None:
    """A gzip (or deflate) bomb: 16 MiB of spaces in ~16 KiB. aiohttp inflates request
    bodies; the body limit must hold for the inflated size, not the wire size."""
    bomb = b"<" + b"\x20" * (16 * 1024 * 1024)
    async with running_gateway(db_dsn, body_limit=1024 * 1024) as url:
        for encoding, packed in (("gzip", gzip.compress(bomb, 9)), ("deflate", zlib.compress(bomb, 9))):
            assert len(packed) < 1024 * 1024
            status, _ = await post(url, packed, {"Content-Encoding": encoding})
            assert status == 413, encoding
        # an honest compressed request within the limit still works
        status, body = await post(url, gzip.compress(send_raw("A.Q")), {"Content-Encoding": "gzip"})
        assert status == 200, body
    assert await conn.fetchval("SELECT count(*) FROM a.qt") == 1


async def test_oversize_form_and_chunked_bodies(conn: asyncpg.Connection, site: Site, db_dsn: str) -> None:
    async with running_gateway(db_dsn, body_limit=64 * 1024) as url:
        big = send_raw("A.Q", "00" * 40_000)
        async with aiohttp.ClientSession() as http:
            async with http.post(url, data={"aqxmldoc": big.decode()},
                                 headers={"Authorization": ALICE}) as r:
                assert r.status == 413

            async def chunks() -> AsyncIterator[bytes]:
                for _ in range(100):
                    yield b" " * 4096

            async with http.post(url, data=chunks(), headers={"Authorization": ALICE,
                                                               "Content-Type": "text/xml"}) as r:
                assert r.status == 413
    assert await conn.fetchval("SELECT count(*) FROM a.qt") == 0
