"""IDAP responses and SOAP faults, written the way Oracle's servlet writes them."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from lxml import etree

from ..client import Message
from .request import NS_AQ, NS_SOAP

Payloader = Callable[[Message, etree._Element], None]


def _envelope() -> tuple[etree._Element, etree._Element]:
    env = etree.Element(f"{{{NS_SOAP}}}Envelope", nsmap={None: NS_SOAP, "SOAP-ENV": NS_SOAP})
    body = etree.SubElement(env, f"{{{NS_SOAP}}}Body")
    return env, body


def _aq(parent: etree._Element, name: str, value: object | None = None) -> etree._Element:
    el = etree.SubElement(parent, f"{{{NS_AQ}}}{name}")
    if value is not None:
        el.text = str(value)
    return el


def _op(body: etree._Element, name: str) -> etree._Element:
    op = etree.SubElement(body, f"{{{NS_AQ}}}{name}", nsmap={None: NS_AQ})
    status = _aq(op, "status_response")
    _aq(status, "status_code", 0)
    return op


Sheet = str | tuple[str, str] | None  # an href (text/xsl), or (type, href)


def _head(stylesheet: Sheet) -> bytes:
    head = b"<?xml version = '1.0'?>\n"
    if stylesheet:
        # the servlet's configurable stylesheet processing instruction, or a hook's for
        # this response (hooks.HookCall.set_stylesheet checked its type and href)
        kind, href = ("text/xsl", stylesheet) if isinstance(stylesheet, str) else stylesheet
        safe = href.replace('"', "%22").replace("?>", "")
        head += f'<?xml-stylesheet type="{kind}" href="{safe}"?>\n'.encode()
    return head


def serialize(env: etree._Element, stylesheet: Sheet = None) -> bytes:
    out: bytes = etree.tostring(env, xml_declaration=False, encoding="UTF-8")
    return _head(stylesheet) + out


# The two answers of every autocommit send, written without building a tree (they are
# most of the gateway's traffic): byte for byte what serialize() makes of send_response()
# and status_only(), which tests/unit/test_response_templates.py holds them to.
_OPEN = ('<Envelope xmlns="' + NS_SOAP + '" xmlns:SOAP-ENV="' + NS_SOAP + '"><Body><{op}Response'
         ' xmlns="' + NS_AQ + '"><status_response><status_code>0</status_code></status_response>')
_CLOSE = "</{op}Response></Body></Envelope>"


def _text(value: str) -> str:
    """XML character data, escaped as lxml escapes it."""
    if "&" in value:
        value = value.replace("&", "&amp;")
    if "<" in value:
        value = value.replace("<", "&lt;")
    if ">" in value:
        value = value.replace(">", "&gt;")
    if "\r" in value:
        value = value.replace("\r", "&#13;")
    return value


def send_bytes(operation: str, destination: str, message_ids: Sequence[str],
               stylesheet: Sheet = None) -> bytes:
    """serialize(send_response(...)) without the tree; ids are hex and need no escaping."""
    result = "send_result" if operation == "AQXmlSend" else "publish_result"
    ids = "".join(["<message_id>" + _hex_id(m) + "</message_id>" for m in message_ids])
    return _head(stylesheet) + (
        _OPEN.format(op=operation) + "<" + result + "><destination>" + _text(destination)
        + "</destination>" + ids + "</" + result + ">" + _CLOSE.format(op=operation)).encode()


def status_bytes(operation: str, stylesheet: Sheet = None) -> bytes:
    """serialize(status_only(operation)) without the tree."""
    return _head(stylesheet) + (_OPEN.format(op=operation) + _CLOSE.format(op=operation)).encode()


def _hex_id(mid: str) -> str:
    if not mid.isalnum():  # message ids are hex; anything else is escaped like text
        return _text(mid)
    return mid


def send_response(operation: str, destination: str, message_ids: Sequence[str]) -> etree._Element:
    env, body = _envelope()
    op = _op(body, f"{operation}Response")
    result = _aq(op, "send_result" if operation == "AQXmlSend" else "publish_result")
    _aq(result, "destination", destination)
    for mid in message_ids:
        _aq(result, "message_id", mid)
    return env


def status_only(operation: str) -> etree._Element:
    env, body = _envelope()
    _op(body, f"{operation}Response")
    return env


def _agent(parent: etree._Element, tag: str, name: str | None, address: str | None,
           protocol: int | None) -> None:
    el = _aq(parent, tag)
    if name:
        _aq(el, "agent_name", name)
    if address:
        _aq(el, "address", address)
    if protocol:
        _aq(el, "protocol", protocol)


def oracle_name(name: str) -> str:
    """A stored name as Oracle prints it: PostgreSQL keeps unquoted names in lower case,
    Oracle in upper case; a part holding upper-case letters was quoted and stays as is."""
    return ".".join(p if p != p.lower() else p.upper() for p in name.split("."))


def message_set(parent: etree._Element, messages: Sequence[Message], payload: Payloader | None,
                states: Sequence[int], schema: str | None = None) -> None:
    """`schema` is the queue's: its messages' exception queues are in its queue table, so
    in its schema, and are given qualified (SCHEMA.AQ$_TABLE_E), as Oracle gives them."""
    ms = _aq(parent, "message_set")
    _aq(ms, "message_count", len(messages))
    for i, (m, state) in enumerate(zip(messages, states, strict=True), start=1):
        msg = _aq(ms, "message")
        _aq(msg, "message_number", i)
        h = _aq(msg, "message_header")
        _aq(h, "message_id", m.msgid)
        if m.correlation is not None:
            _aq(h, "correlation", m.correlation)
        _aq(h, "delay", m.delay)
        if m.expiration is not None:
            _aq(h, "expiration", m.expiration)
        _aq(h, "priority", m.priority)
        _aq(h, "delivery_count", m.attempts)
        s = m.sender_id
        _agent(h, "sender_id", s.name if s else None, s.address if s else None,
               s.protocol if s else None)
        if m.consumer_name:
            rl = _aq(h, "recipient_list")
            _agent(rl, "recipient", m.consumer_name, None, None)
        _aq(h, "message_state", state)
        if m.exception_queue:
            exq = m.exception_queue
            if schema and "." not in exq:
                exq = f"{schema}.{exq}"
            _aq(h, "exception_queue", oracle_name(exq))
        if payload is not None and m.payload is not None:
            payload(m, _aq(msg, "message_payload"))


def receive_response(destination: str, messages: Sequence[Message], payload: Payloader | None,
                     states: Sequence[int], schema: str | None = None) -> etree._Element:
    env, body = _envelope()
    op = _op(body, "AQXmlReceiveResponse")
    result = _aq(op, "receive_result")
    _aq(result, "destination", destination)
    message_set(result, messages, payload, states, schema)
    return env


# characters XML 1.0 cannot carry; a database message may echo stored data holding them
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def fault(client: bool, message: str, code: int | str | None,
          faultcode: str | None = None) -> etree._Element:
    """A SOAP Fault; `detail` carries status_response as in Oracle's example 17-21.
    `faultcode` is another SOAP 1.1 fault code than Client/Server (MustUnderstand).

    The envelope is prefixed: faultcode, faultstring and detail are unqualified elements,
    which a default SOAP namespace would capture."""
    message = _NOT_XML.sub("\ufffd", message)
    if isinstance(code, int) and not message.startswith("ORA-"):
        # every error_message starts with its number, as Oracle's do, whoever raised it
        message = f"ORA-{code:05d}: {message}"
    env = etree.Element(f"{{{NS_SOAP}}}Envelope", nsmap={"SOAP-ENV": NS_SOAP})
    body = etree.SubElement(env, f"{{{NS_SOAP}}}Body")
    f = etree.SubElement(body, f"{{{NS_SOAP}}}Fault")
    kind = faultcode or ("Client" if client else "Server")
    etree.SubElement(f, "faultcode").text = f"SOAP-ENV:{kind}"
    etree.SubElement(f, "faultstring").text = f"{kind} Fault: {message}"
    detail = etree.SubElement(f, "detail")
    status = etree.SubElement(detail, f"{{{NS_AQ}}}status_response", nsmap={None: NS_AQ})
    _aq(status, "status_code", -1)
    if code is not None:
        _aq(status, "error_code", code)
    _aq(status, "error_message", message)
    return env
