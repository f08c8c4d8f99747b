"""The language-neutral messages of tests/golden/jms_messages.json (its "about" says the
format) for pgaq.jms: a case's "send" description built as the message it describes, a
received message described in the form of a case's "received", and the comparison of JSON
values both use. tests/unit/test_jms_golden.py checks the codec offline with them;
tests/java/test_java_interop.py sends and receives them live between pgaq.jms and the Java
provider, whose side of the same is java/src/test/java/pgaq/jms/GoldenMessages.java."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from pgaq.client import load_json_payload
from pgaq.jms import _values as V
from pgaq.jms.destination import AQjmsAgent, Destination, Queue, Topic
from pgaq.jms.message import (
    NON_PERSISTENT,
    PERSISTENT,
    AdtMessage,
    BytesMessage,
    MapMessage,
    Message,
    ObjectMessage,
    StreamMessage,
    TextMessage,
)

GOLDEN = Path(__file__).resolve().parent / "golden" / "jms_messages.json"
DATA: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = DATA["cases"]
CLASSES: dict[str, type[Message]] = {
    "message": Message, "text": TextMessage, "bytes": BytesMessage, "map": MapMessage,
    "stream": StreamMessage, "object": ObjectMessage, "adt": AdtMessage}
# a BytesMessage body op's type -> the write/read method's name
BYTES_OPS = {"boolean": "boolean", "byte": "byte", "short": "short", "char": "char",
             "int": "int", "long": "long", "float": "float", "double": "double",
             "utf": "utf", "bytes": "bytes"}
# the keys of a case's "received" that say how it was received, not what
HOW_RECEIVED = ("row", "topics", "j2ee_compliant")


def value(kind: str, raw: Any) -> Any:
    """A value of the description (the engine's JSON form) as the codec holds it."""
    if kind == "utf":
        kind = "string"
    got_kind, v = V.from_json(kind, raw)
    assert raw is None or got_kind == kind, (kind, raw)
    return v


def destination(spec: dict[str, Any] | None) -> Destination | AQjmsAgent | None:
    if spec is None:
        return None
    if "queue" in spec:
        return Queue.parse(spec["queue"])
    if "topic" in spec:
        return Topic.parse(spec["topic"])
    name, address, protocol = spec["agent"]
    return AQjmsAgent(name, address, protocol)


def agent(spec: list[Any]) -> AQjmsAgent:
    return AQjmsAgent(spec[0], spec[1], spec[2])


def build(send: dict[str, Any]) -> Message:
    """The message a case's "send" describes (its priority, time to live and delivery mode
    set as a producer would, for the codec alone)."""
    cls = send["class"]
    body: Any = send.get("body")
    msg: Message
    if cls == "adt":
        msg = AdtMessage(body["attributes"])
    else:
        msg = CLASSES[cls]()
    if isinstance(msg, TextMessage) and body is not None:
        msg.text = body["text"]
    elif isinstance(msg, BytesMessage):
        for kind, raw in body:
            getattr(msg, f"write_{BYTES_OPS[kind]}")(value(kind, raw))
    elif isinstance(msg, MapMessage):
        for name, kind, raw in body:
            getattr(msg, f"set_{kind}")(name, value(kind, raw))
    elif isinstance(msg, StreamMessage):
        for kind, raw in body:
            getattr(msg, f"write_{kind}")(value(kind, raw))
    elif isinstance(msg, ObjectMessage) and body is not None:
        msg.set_object_bytes(bytes.fromhex(body["serialized_hex"]))
    msg.jms_priority = send.get("priority", 1)
    msg.jms_delivery_mode = NON_PERSISTENT if send.get("delivery_mode") == "NON_PERSISTENT" \
        else PERSISTENT
    msg.jms_correlation_id = send.get("correlation_id")
    msg.jms_type = send.get("type")
    msg.jms_reply_to = destination(send.get("reply_to"))
    if "sender" in send:
        msg.set_sender_id(agent(send["sender"]))
    for name, kind, raw in send.get("properties", []):
        getattr(msg, f"set_{kind}_property")(name, value(kind, raw))
    return msg


def send_options(send: dict[str, Any]) -> dict[str, Any]:
    """What a case's "send" gives the send rather than the message, as pgaq.jms.codec's
    to_engine takes it: the producer's time to live (ms, 0: never) and a publish's
    recipient list."""
    recipients = send.get("recipients")
    return {"time_to_live": send.get("time_to_live", 0),
            "recipients": None if recipients is None else [agent(a) for a in recipients]}


def same(got: Any, want: Any) -> bool:
    """JSON values equal as values: numbers by value, NaN equal to itself."""
    if isinstance(want, dict):
        return (isinstance(got, dict) and got.keys() == want.keys()
                and all(same(got[k], want[k]) for k in want))
    if isinstance(want, list):
        return (isinstance(got, list) and len(got) == len(want)
                and all(same(g, w) for g, w in zip(got, want, strict=True)))
    if isinstance(want, bool) or isinstance(got, bool) or want is None or got is None:
        return type(got) is type(want) and got == want
    if isinstance(want, (int, float, Decimal)) and isinstance(got, (int, float, Decimal)):
        return decimal(got) == decimal(want)
    return bool(type(got) is type(want) and got == want)


def decimal(x: float | Decimal) -> Decimal:
    """A JSON number's value: floats by their shortest digits, as the JSON text has them
    (NaN and the infinities are strings in the engine's JSON)."""
    return x if isinstance(x, Decimal) else Decimal(repr(x))


def as_json(v: Any) -> Any:
    """What the engine's JSON column gives back (numbers as the engine reads them)."""
    return load_json_payload(json.dumps(v))


def reply_to_json(rt: Destination | AQjmsAgent | None) -> Any:
    if rt is None:
        return None
    if isinstance(rt, Topic):
        return {"topic": rt.qualified}
    if isinstance(rt, Queue):
        return {"queue": rt.qualified}
    assert isinstance(rt, AQjmsAgent)
    return {"agent": [rt.name, rt.address, rt.protocol]}


# a Java type name (get_property_type, get_item_type, get_next_item_type) -> the
# description's type
KINDS = {java: kind for kind, java in V.JAVA_NAMES.items()}


def typed(java: str | None, value: Any, name: list[str] | None = None) -> list[Any]:
    """[name,] type, value of a property, map item or stream field, as a description has it."""
    assert java is not None
    kind = KINDS[java]
    return [*(name or []), kind, V.to_json(kind, value)]


def body_json(msg: Message) -> Any:
    """The received body in the description's form."""
    if isinstance(msg, TextMessage):
        return None if msg.text is None else {"text": msg.text}
    if isinstance(msg, MapMessage):
        return sorted(typed(msg.get_item_type(n), msg.get_object(n), [n])
                      for n in msg.get_map_names())
    if isinstance(msg, StreamMessage):
        msg.reset()
        items = []
        while (java := msg.get_next_item_type()) is not None:
            items.append(typed(java, msg.read_object()))
        msg.reset()
        return items
    if isinstance(msg, BytesMessage):
        msg.reset()
        body = bytearray(msg.get_body_length())
        msg.read_bytes(body)
        msg.reset()
        return body.hex().upper()
    if isinstance(msg, ObjectMessage):
        data = msg.get_object_bytes()
        return None if data is None else {"serialized_hex": data.hex().upper()}
    if isinstance(msg, AdtMessage):
        return {"attributes": msg.adt_payload}
    return None


def received_shape(received: dict[str, Any]) -> dict[str, Any]:
    """The keys of a case's "received" that describe the message."""
    return {k: v for k, v in received.items() if k not in HOW_RECEIVED}


def describe(msg: Message) -> dict[str, Any]:
    """A received message in the form of a case's "received": class, priority,
    expires_after (JMSExpiration - JMSTimestamp, None: never), delivery_mode, redelivered,
    correlation_id, type and reply_to when set, properties [name, type, value] in order
    without JMSXRcvTimestamp, body (body_json)."""
    out: dict[str, Any] = {
        "class": type(msg).__name__, "priority": msg.jms_priority,
        "expires_after": msg.jms_expiration - msg.jms_timestamp if msg.jms_expiration else None,
        "delivery_mode": msg.jms_delivery_mode, "redelivered": msg.jms_redelivered}
    if msg.jms_correlation_id is not None:
        out["correlation_id"] = msg.jms_correlation_id
    if msg.jms_type is not None:
        out["type"] = msg.jms_type
    if msg.jms_reply_to is not None:
        out["reply_to"] = reply_to_json(msg.jms_reply_to)
    out["properties"] = [typed(msg.get_property_type(n), msg.get_object_property(n), [n])
                         for n in msg.get_property_names() if n != "JMSXRcvTimestamp"]
    out["body"] = body_json(msg)
    return out
