"""IDAP requests as data: the SOAP envelope unwrapped and every option read once.

Element names are matched by local name, so Oracle's default-namespace documents and
SOAP toolkits' prefixed documents read the same; the schema check (idap.schema) has
already rejected what is not IDAP.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from lxml import etree

from ..errors import PgaqError
from .xmlsafe import child, children, index, local, ns, text

NS_SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
NS_AQ = "http://ns.oracle.com/AQ/schemas/access"
OPERATIONS = ("AQXmlSend", "AQXmlPublish", "AQXmlReceive", "AQXmlRegister", "AQXmlCommit",
              "AQXmlRollback")


class RequestError(PgaqError):
    """The request is not a valid IDAP request (a Client fault)."""


class MustUnderstandError(RequestError):
    """A SOAP header entry meant for the gateway, with mustUnderstand="1", that the gateway
    does not understand: SOAP 1.1 (4.2.3) answers it with a SOAP-ENV:MustUnderstand fault
    and processes nothing."""


class Destination(NamedTuple):
    """Read-only like the rest of a request's parts; a tuple because one is made for every
    request (a frozen dataclass's __init__ costs three times as much)."""

    name: str
    lookup_type: str = "DATABASE"


@dataclass(frozen=True)
class AgentRef:
    name: str | None = None
    address: str | None = None
    protocol: int = 0
    alias: str | None = None


@dataclass
class OutMessage:
    number: int | None
    correlation: str | None = None
    delay: int | None = None
    expiration: int | None = None
    priority: int | None = None
    sender: AgentRef | None = None
    recipients: list[AgentRef] | None = None
    exception_queue: str | None = None
    payload: etree._Element | None = None


@dataclass
class SendRequest:
    operation: Literal["AQXmlSend", "AQXmlPublish"]
    destination: Destination
    visibility: str = "ON_COMMIT"
    transformation: str | None = None
    messages: list[OutMessage] = field(default_factory=list)
    commit: bool = False
    # a pgaq propagator's batch: (schedule key, the source message ids, one per message)
    propagation: tuple[str, list[bytes]] | None = None


@dataclass
class ReceiveRequest:
    destination: Destination
    consumer_name: str | None = None
    wait_time: int | None = None
    correlation: str | None = None
    message_id: str | None = None
    condition: str | None = None
    batch_size: int = 1
    visibility: str = "ON_COMMIT"
    dequeue_mode: str = "REMOVE"
    navigation_mode: str = "NEXT_MESSAGE"
    transformation: str | None = None
    commit: bool = False
    operation: str = "AQXmlReceive"


@dataclass
class RegisterRequest:
    destination: Destination
    notify_url: str
    consumer_name: str | None = None
    commit: bool = False
    operation: str = "AQXmlRegister"


@dataclass
class CommitRequest:
    operation: str = "AQXmlCommit"


@dataclass
class RollbackRequest:
    operation: str = "AQXmlRollback"


Request = SendRequest | ReceiveRequest | RegisterRequest | CommitRequest | RollbackRequest


def _int(el: etree._Element | None, what: str, lo: int = -(2**31), hi: int = 2**31 - 1) -> int | None:
    value = text(el)
    if value is None or value == "":
        return None
    try:
        n = int(value)
    except ValueError as exc:
        raise RequestError(f"{what} must be an integer, got {value[:40]!r}") from exc
    if not lo <= n <= hi:
        raise RequestError(f"{what} {n} is out of range [{lo}, {hi}]")
    return n


def _str(el: etree._Element | None) -> str | None:
    value = text(el)
    return value if value else None


_ENVELOPE = f"{{{NS_SOAP}}}Envelope"
_BODY = f"{{{NS_SOAP}}}Body"


_OPERATION_TAGS = frozenset(f"{{{NS_AQ}}}{name}" for name in OPERATIONS)


def operation_element(envelope: etree._Element) -> etree._Element:
    if envelope.tag != _ENVELOPE:
        raise RequestError(
            f"not a SOAP 1.1 envelope: expected {_ENVELOPE}, got {envelope.tag}"
        )
    # the first element named Body, in whatever namespace: it must be SOAP's
    body = None
    for c in envelope:
        tag = c.tag
        if isinstance(tag, str) and tag.rsplit("}", 1)[-1] == "Body":
            body = c
            break
    if body is None or body.tag != _BODY:
        raise RequestError("the SOAP envelope has no Body")
    ops = children(body)
    if len(ops) != 1:
        raise RequestError("the SOAP Body must hold exactly one IDAP operation")
    op = ops[0]
    if op.tag not in _OPERATION_TAGS:
        raise RequestError(f"unknown operation {local(op)!r} (namespace {ns(op)})")
    return op


def headers(envelope: etree._Element) -> dict[str, str]:
    """SOAP header entries by local name (text values only)."""
    h = child(envelope, "Header")
    if h is None:
        return {}
    return {local(c): text(c) or "" for c in children(h)}


def _destination(opts: etree._Element) -> Destination:
    return _destination_of(child(opts, "destination"))


def _destination_of(d: etree._Element | None) -> Destination:
    name = _str(d)
    if d is None or not name:
        raise RequestError("destination is required")
    lookup = (d.get("lookup_type") or "DATABASE").upper()
    if lookup not in ("DATABASE", "LDAP"):
        raise RequestError(f"lookup_type must be DATABASE or LDAP, got {lookup[:20]!r}")
    return Destination(name, lookup)


def _agent(el: etree._Element | None) -> AgentRef | None:
    if el is None:
        return None
    alias = _str(child(el, "agent_alias"))
    return AgentRef(
        name=_str(child(el, "agent_name")),
        address=_str(child(el, "address")),
        protocol=_int(child(el, "protocol"), "protocol", 0) or 0,
        alias=alias,
    )


def _commit(op: etree._Element) -> bool:
    return child(op, "AQXmlCommit") is not None


def _enum(el: etree._Element | None, allowed: tuple[str, ...], default: str, what: str) -> str:
    value = _str(el)
    if value is None:
        return default
    v = value.upper()
    if v not in allowed:
        raise RequestError(f"{what} must be one of {', '.join(allowed)}")
    return v


def _message(el: etree._Element) -> OutMessage:
    m = index(el)
    header = m.get("message_header")
    if header is None:
        # optional in the 10.2 and 11.1 guides: the message takes every default (priority
        # 1, no delay, never expires, no correlation, sender or recipient list)
        return OutMessage(number=_int(m.get("message_number"), "message_number"),
                          payload=m.get("message_payload"))
    h = index(header)
    recipients = None
    rl = h.get("recipient_list")
    if rl is not None:
        recipients = [a for a in (_agent(r) for r in children(rl) if local(r) == "recipient") if a]
    sender = h.get("sender_id")
    out = OutMessage(number=_int(m.get("message_number"), "message_number"),
                     payload=m.get("message_payload"), recipients=recipients,
                     sender=_agent(sender) if sender is not None and len(sender) else None)
    if len(h) > (sender is not None) + (rl is not None):  # more than a sender: read the rest
        out.correlation = _str(h.get("correlation"))
        out.delay = _int(h.get("delay"), "delay", 0)
        out.expiration = _int(h.get("expiration"), "expiration", -1)
        out.priority = _int(h.get("priority"), "priority")
        out.exception_queue = _str(h.get("exception_queue"))
    return out


NS_PROPAGATION = "urn:pgaq:propagation"


def _propagation(envelope: etree._Element, count: int) -> tuple[str, list[bytes]] | None:
    """The SOAP header a pgaq propagator sends: the gateway enqueues each source message
    once per schedule, however often the batch comes."""
    if len(envelope) < 2:  # a Body alone: no Header (the usual request)
        return None
    h = child(envelope, "Header")
    if h is None:
        return None
    el = next((c for c in h if c.tag == f"{{{NS_PROPAGATION}}}propagation"), None)
    if el is None:
        return None
    key = _str(next((c for c in el if c.tag == f"{{{NS_PROPAGATION}}}schedule_key"), None))
    ids: list[bytes] = []
    for c in el:
        if c.tag == f"{{{NS_PROPAGATION}}}source_msgid":
            try:
                raw = bytes.fromhex(text(c) or "")
            except ValueError:
                raw = b""
            if len(raw) != 16:
                raise RequestError("propagation header: source_msgid must be 32 hexadecimal digits")
            ids.append(raw)
    if not key or len(key) > 400 or len(ids) != count:
        raise RequestError("propagation header: a schedule_key and one source_msgid per message")
    return key, ids


_MUST_UNDERSTAND = f"{{{NS_SOAP}}}mustUnderstand"
_ACTOR = f"{{{NS_SOAP}}}actor"
_ACTOR_NEXT = "http://schemas.xmlsoap.org/soap/actor/next"
_PROPAGATION_TAG = f"{{{NS_PROPAGATION}}}propagation"
_SENDS = frozenset(("AQXmlSend", "AQXmlPublish"))


def check_header(envelope: etree._Element, operation: str) -> None:
    """SOAP 1.1 4.2.3: every header entry for this gateway (no actor, or the `next` actor)
    with mustUnderstand="1" must be one it obeys, else nothing is processed. It obeys one:
    a pgaq propagator's batch header on a send. Entries with mustUnderstand 0 or absent, or
    for another actor, are ignored."""
    if len(envelope) < 2:  # a Body alone: no Header (the usual request)
        return
    first = next((c for c in envelope if isinstance(c.tag, str)), None)
    if first is None or first.tag != f"{{{NS_SOAP}}}Header":
        return
    for entry in first:
        if not isinstance(entry.tag, str):
            continue
        if (entry.get(_MUST_UNDERSTAND) or "0").strip() not in ("1", "true"):
            continue
        actor = (entry.get(_ACTOR) or "").strip()
        if actor and actor != _ACTOR_NEXT:
            continue  # for an intermediary, not for the gateway
        if entry.tag == _PROPAGATION_TAG and operation in _SENDS:
            continue
        raise MustUnderstandError(
            f"the SOAP header entry {local(entry)[:80]} (namespace {(ns(entry) or '')[:120]}) "
            f"has mustUnderstand=\"1\" and this gateway does not understand it")


def named_operation(value: str | None) -> str | None:
    """The method a SOAPMethodName (`URI#method`) or SOAPAction header names, or None when
    it names none: absent, empty, `""`, or a URI without a `#method` part that is not a
    bare operation name (the servlet's URL, a URN)."""
    if not value:
        return None
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] == '"':
        v = v[1:-1].strip()
    if "#" in v:
        return v.rsplit("#", 1)[1].strip() or None
    if not v or ":" in v or "/" in v:
        return None
    return v


def check_method(header: str | None, operation: str, what: str = "SOAPMethodName") -> None:
    """Refuse an HTTP SOAPMethodName or SOAPAction header that names another operation than
    the Body's: the client meant something else than the document says."""
    named = named_operation(header)
    if named is not None and named.lower() != operation.lower():
        raise RequestError(f"the {what} header names {named[:60]!r} but the SOAP Body holds "
                           f"{operation}")


def parse_request(envelope: etree._Element, soap_method: str | None = None,
                  soap_action: str | None = None) -> Request:
    """The request; `soap_method` and `soap_action` are the HTTP headers of those names
    (checked against the Body's operation when they name one)."""
    op = operation_element(envelope)
    name = local(op)
    if soap_method is not None:
        check_method(soap_method, name, "SOAPMethodName")
    if soap_action is not None:
        check_method(soap_action, name, "SOAPAction")
    check_header(envelope, name)
    if name in ("AQXmlSend", "AQXmlPublish"):
        parts = index(op)  # one pass over the operation's children, not one per name
        opts = parts.get("producer_options")
        if opts is None:
            raise RequestError(f"{name} needs producer_options")
        ms = parts.get("message_set")
        if ms is None:
            raise RequestError(f"{name} needs a message_set")
        messages: list[OutMessage] = []
        count_el = None
        for m in ms:
            tag = m.tag
            if not isinstance(tag, str):
                continue
            what = tag.rsplit("}", 1)[-1]
            if what == "message":
                messages.append(_message(m))
            elif what == "message_count" and count_el is None:
                count_el = m
        if not messages:
            raise RequestError("message_set holds no message")
        count = _int(count_el, "message_count", 0)
        if count is not None and count != len(messages):
            raise RequestError(f"message_count is {count} but the set holds {len(messages)} messages")
        options = index(opts)
        return SendRequest(
            operation=name,  # type: ignore[arg-type]
            destination=_destination_of(options.get("destination")),
            visibility=_enum(options.get("visibility"), ("ON_COMMIT", "IMMEDIATE"), "ON_COMMIT",
                             "visibility"),
            transformation=_str(options.get("transformation")),
            messages=messages,
            commit="AQXmlCommit" in parts,
            propagation=_propagation(envelope, len(messages)),
        )
    if name == "AQXmlReceive":
        opts = child(op, "consumer_options")
        if opts is None:
            raise RequestError("AQXmlReceive needs consumer_options")
        sel = child(opts, "selector")
        corr = msgid = cond = None
        if sel is not None:
            corr = _str(child(sel, "correlation"))
            msgid = _str(child(sel, "message_id"))
            cond = _str(child(sel, "condition"))
            if sum(x is not None for x in (corr, msgid, cond)) > 1:
                raise RequestError("selector takes one of correlation, message_id or condition")
            if cond is not None and len(cond) > 4000:
                raise RequestError("condition cannot exceed 4000 characters")
        return ReceiveRequest(
            destination=_destination(opts),
            consumer_name=_str(child(opts, "consumer_name")),
            wait_time=_int(child(opts, "wait_time"), "wait_time", -1),
            correlation=corr,
            message_id=msgid,
            condition=cond,
            batch_size=_int(child(opts, "batch_size"), "batch_size", 1, 10000) or 1,
            visibility=_enum(child(opts, "visibility"), ("ON_COMMIT", "IMMEDIATE"), "ON_COMMIT",
                             "visibility"),
            dequeue_mode=_enum(child(opts, "dequeue_mode"),
                               ("BROWSE", "LOCKED", "REMOVE", "REMOVE_NODATA"), "REMOVE", "dequeue_mode"),
            navigation_mode=_enum(child(opts, "navigation_mode"),
                                  ("FIRST_MESSAGE", "NEXT_MESSAGE", "NEXT_TRANSACTION"),
                                  "NEXT_MESSAGE", "navigation_mode"),
            transformation=_str(child(opts, "transformation")),
            commit=_commit(op),
        )
    if name == "AQXmlRegister":
        opts = child(op, "register_options")
        if opts is None:
            raise RequestError("AQXmlRegister needs register_options")
        url = _str(child(opts, "notify_url"))
        if not url:
            raise RequestError("notify_url is required")
        return RegisterRequest(
            destination=_destination(opts),
            consumer_name=_str(child(opts, "consumer_name")),
            notify_url=url,
            commit=_commit(op),
        )
    if name == "AQXmlCommit":
        return CommitRequest()
    return RollbackRequest()
