"""The hooks' view of a request (Oracle's AQxmlCallbackContext), without a server."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest
from lxml import etree
from pgaq.idap import response
from pgaq.idap.hooks import HookCall, run_hook, takes_call
from pgaq.idap.xmlsafe import XmlError

from . import idap_examples as ex


class _Headers:
    def __init__(self, **fields: str) -> None:
        self.fields = {k.lower().replace("_", "-"): v for k, v in fields.items()}

    def header(self, name: str) -> str | None:
        return self.fields.get(name.lower())


def _call(document: bytes = ex.EXAMPLE_17_5.encode()) -> HookCall:
    return HookCall(_Headers(User_Agent="ua/1", Authorization="Basic Sk9ITjpzZWNyZXQ="), document)


def test_the_request_document_is_a_fresh_copy_each_time() -> None:
    call = _call()
    first = call.request_document()
    assert isinstance(first, etree._ElementTree)
    assert first.findtext(".//{http://ns.oracle.com/AQ/schemas/access}destination") == "AQUSER.RAW_MSGQ"
    first.getroot().clear()
    again = call.request_document()
    assert again.findtext(".//{http://ns.oracle.com/AQ/schemas/access}destination") == "AQUSER.RAW_MSGQ"


def test_the_request_document_is_parsed_safely() -> None:
    call = _call(b'<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>')
    with pytest.raises(XmlError):
        call.request_document()


def test_headers_without_the_credentials() -> None:
    call = _call()
    assert call.header("user-agent") == "ua/1"
    assert call.header("USER-AGENT") == "ua/1"
    assert call.header("Authorization") is None
    assert call.header("authorization") is None
    assert call.header("X-Missing") is None


@pytest.mark.parametrize(("href", "kind"), [
    ("http://h/s.xsl", "text/xsl"), ("/s.css", "text/css"), ("s.xsl?v=2&x=1", "application/xslt+xml")])
def test_a_stylesheet_the_instruction_can_carry(href: str, kind: str) -> None:
    call = _call()
    call.set_stylesheet(href, kind)
    assert call.stylesheet == (kind, href)
    head = response.status_bytes("AQXmlCommit", call.stylesheet)
    assert f'<?xml-stylesheet type="{kind}" href="{href}"?>'.encode() in head
    etree.fromstring(head.split(b"\n", 2)[2])  # the rest is still one well-formed document


@pytest.mark.parametrize(("href", "kind"), [
    ('a"b.xsl', "text/xsl"), ("a?>b", "text/xsl"), ("", "text/xsl"), ("<x>", "text/xsl"),
    ("a\nb", "text/xsl"), ("s.xsl", 'text/xsl" href="evil'), ("s.xsl", "textxsl"),
    ("s.xsl", ""), ("s.xsl", "text/xsl?>"), ("a\ud800.xsl", "text/xsl"), ("a\ufffe", "text/xsl"),
    ("a\uffff", "text/xsl")])
def test_a_stylesheet_that_would_break_the_instruction_is_refused(href: str, kind: str) -> None:
    call = _call()
    with pytest.raises(ValueError):
        call.set_stylesheet(href, kind)
    assert call.stylesheet is None


async def _plain(phase: str, operation: str, agent: str, conn: asyncpg.Connection | None) -> None:
    SEEN.append((phase, operation, agent, None))


async def _with_call(phase: str, operation: str, agent: str, conn: asyncpg.Connection | None,
                     *, call: HookCall) -> None:
    SEEN.append((phase, operation, agent, call))


async def _kwargs(phase: str, operation: str, agent: str, conn: asyncpg.Connection | None,
                  **extra: Any) -> None:
    SEEN.append((phase, operation, agent, extra.get("call")))


SEEN: list[tuple[str, str, str, HookCall | None]] = []


async def test_old_hooks_keep_their_four_arguments_new_ones_get_the_call() -> None:
    assert not takes_call(_plain)
    assert takes_call(_with_call) and takes_call(_kwargs)
    call = _call()
    SEEN.clear()
    for hook in (_plain, _with_call, _kwargs):
        await run_hook(hook, takes_call(hook), "before", "AQXmlSend", "JOHN", None, call)
    assert SEEN == [("before", "AQXmlSend", "JOHN", None), ("before", "AQXmlSend", "JOHN", call),
                    ("before", "AQXmlSend", "JOHN", call)]


def test_the_request_document_follows_the_gateways_depth_limit() -> None:
    deep = b"<a>" * 80 + b"</a>" * 80
    assert HookCall(_Headers(), deep, max_depth=100).request_document() is not None
    with pytest.raises(XmlError):
        HookCall(_Headers(), deep).request_document()  # the default, 64
