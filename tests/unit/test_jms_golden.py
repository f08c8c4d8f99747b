"""The golden vectors of tests/golden/jms_messages.json through pgaq.jms.codec: each case's
message, built from its language-neutral description, encodes to exactly the expected AQ
properties and payload, and the expected payload, dequeued, reads back as the message sent.
The Java provider's CodecGoldenTest checks the same file, so a message crosses between the
two unchanged."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pgaq.engine import Agent, _number
from pgaq.engine import Message as EngineMessage
from pgaq.jms import _values as V
from pgaq.jms import codec
from pgaq.jms.destination import AQjmsAgent, Destination, Queue, Topic
from pgaq.jms.errors import JMSException
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

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "jms_messages.json"
DATA: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = DATA["cases"]
CLASSES: dict[str, type[Message]] = {
    "message": Message, "text": TextMessage, "bytes": BytesMessage, "map": MapMessage,
    "stream": StreamMessage, "object": ObjectMessage, "adt": AdtMessage}
# a BytesMessage body op's type -> the write/read method's name
BYTES_OPS = {"boolean": "boolean", "byte": "byte", "short": "short", "char": "char",
             "int": "int", "long": "long", "float": "float", "double": "double",
             "utf": "utf", "bytes": "bytes"}


def _value(kind: str, raw: Any) -> Any:
    """A value of the description (the engine's JSON form) as the codec holds it."""
    if kind == "utf":
        kind = "string"
    got_kind, value = V.from_json(kind, raw)
    assert raw is None or got_kind == kind, (kind, raw)
    return value


def _destination(spec: dict[str, Any] | None) -> Destination | AQjmsAgent | None:
    if spec is None:
        return None
    if "queue" in spec:
        return Queue.parse(spec["queue"])
    if "topic" in spec:
        return Topic.parse(spec["topic"])
    name, address, protocol = spec["agent"]
    return AQjmsAgent(name, address, protocol)


def _agent(spec: list[Any]) -> AQjmsAgent:
    return AQjmsAgent(spec[0], spec[1], spec[2])


def _build(send: dict[str, Any]) -> Message:
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
            getattr(msg, f"write_{BYTES_OPS[kind]}")(_value(kind, raw))
    elif isinstance(msg, MapMessage):
        for name, kind, raw in body:
            getattr(msg, f"set_{kind}")(name, _value(kind, raw))
    elif isinstance(msg, StreamMessage):
        for kind, raw in body:
            getattr(msg, f"write_{kind}")(_value(kind, raw))
    elif isinstance(msg, ObjectMessage) and body is not None:
        msg.set_object_bytes(bytes.fromhex(body["serialized_hex"]))
    msg.jms_priority = send.get("priority", 1)
    msg._time_to_live = send.get("time_to_live", 0)
    msg.jms_delivery_mode = NON_PERSISTENT if send.get("delivery_mode") == "NON_PERSISTENT" \
        else PERSISTENT
    msg.jms_correlation_id = send.get("correlation_id")
    msg.jms_type = send.get("type")
    msg.jms_reply_to = _destination(send.get("reply_to"))
    if "sender" in send:
        msg._sender = _agent(send["sender"])
    if "recipients" in send:
        msg._recipients = [_agent(a) for a in send["recipients"]]
    for name, kind, raw in send.get("properties", []):
        getattr(msg, f"set_{kind}_property")(name, _value(kind, raw))
    return msg


def _same(got: Any, want: Any) -> bool:
    """JSON values equal as values: numbers by value, NaN equal to itself."""
    if isinstance(want, dict):
        return (isinstance(got, dict) and got.keys() == want.keys()
                and all(_same(got[k], want[k]) for k in want))
    if isinstance(want, list):
        return (isinstance(got, list) and len(got) == len(want)
                and all(_same(g, w) for g, w in zip(got, want, strict=True)))
    if isinstance(want, bool) or isinstance(got, bool) or want is None or got is None:
        return type(got) is type(want) and got == want
    if isinstance(want, (int, float, Decimal)) and isinstance(got, (int, float, Decimal)):
        return _decimal(got) == _decimal(want)
    return bool(type(got) is type(want) and got == want)


def _decimal(x: float | Decimal) -> Decimal:
    """A JSON number's value: floats by their shortest digits, as the JSON text has them
    (NaN and the infinities are strings in the engine's JSON)."""
    return x if isinstance(x, Decimal) else Decimal(repr(x))


def _as_json(value: Any) -> Any:
    """What the engine's JSON column gives back (numbers as the engine reads them)."""
    return json.loads(json.dumps(value), parse_float=_number)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_encode(case: dict[str, Any]) -> None:
    msg = _build(case["send"])
    expected = case["expected"]
    if "error" in expected:
        with pytest.raises(JMSException) as err:
            codec.to_engine(msg, case["payload_kind"])
        assert err.value.error_code == expected["error"]
        return
    payload, props = codec.to_engine(msg, case["payload_kind"])
    got_props = {**props.to_json(), "delivery_mode": codec.engine_delivery_mode(msg)}
    assert _same(_as_json(got_props), expected["properties"]), got_props
    if case["payload_kind"] == "RAW":
        assert payload == bytes.fromhex(expected["raw"])
        assert expected["payload"] is None
    else:
        assert _same(_as_json(payload), expected["payload"]), payload


def _row(case: dict[str, Any]) -> EngineMessage:
    """The dequeued engine message of a case's expected properties and payload."""
    props = case["expected"]["properties"]
    fields = {**DATA["row"], **case.get("received", {}).get("row", {})}
    sender = props.get("sender_id")
    stamp = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=fields["enqueue_micros"])
    payload: Any = (bytes.fromhex(case["expected"]["raw"]) if case["payload_kind"] == "RAW"
                    else _as_json(case["expected"]["payload"]))
    return EngineMessage(
        msgid=fields["msgid"], queue=fields["queue"], consumer_name=None,
        correlation=props.get("correlation"), priority=props["priority"], delay=props["delay"],
        expiration=props.get("expiration"), enqueue_time=stamp, state=fields["state"],
        attempts=fields["attempts"],
        exception_queue=fields.get("exception_queue", props.get("exception_queue")),
        sender_id=Agent(sender["name"], sender["address"], sender["protocol"]) if sender else None,
        original_msgid=fields.get("original_msgid"), transaction_group=None, payload=payload,
        delivery_mode=props["delivery_mode"])


def _reply_to_json(rt: Destination | AQjmsAgent | None) -> Any:
    if rt is None:
        return None
    if isinstance(rt, Topic):
        return {"topic": rt.qualified}
    if isinstance(rt, Queue):
        return {"queue": rt.qualified}
    assert isinstance(rt, AQjmsAgent)
    return {"agent": [rt.name, rt.address, rt.protocol]}


def _body_json(msg: Message) -> Any:
    """The received body in the description's form."""
    if isinstance(msg, TextMessage):
        return None if msg.text is None else {"text": msg.text}
    if isinstance(msg, MapMessage):
        return sorted([n, k, V.to_json(k, v)] for n, (k, v) in msg._map.items())
    if isinstance(msg, StreamMessage):
        return [[k, V.to_json(k, v)] for k, v in msg._items]
    if isinstance(msg, BytesMessage):
        return msg._body().hex().upper()
    if isinstance(msg, ObjectMessage):
        data = msg.get_object_bytes()
        return None if data is None else {"serialized_hex": data.hex().upper()}
    if isinstance(msg, AdtMessage):
        return {"attributes": msg.adt_payload}
    return None


@pytest.mark.parametrize("case", [c for c in CASES if "received" in c],
                         ids=[c["name"] for c in CASES if "received" in c])
def test_decode(case: dict[str, Any]) -> None:
    want = case["received"]
    topics = set(want.get("topics", []))
    msg = codec.from_engine(_row(case), case["payload_kind"], Queue.parse(DATA["row"]["queue"]),
                            is_topic=topics.__contains__,
                            j2ee_compliant=want.get("j2ee_compliant", False))
    assert type(msg).__name__ == want["class"]
    stamp = DATA["row"]["enqueue_micros"] // 1000
    assert msg.jms_message_id == "ID:" + DATA["row"]["msgid"]
    assert msg.jms_timestamp == stamp
    assert msg.jms_priority == want["priority"]
    assert msg.jms_expiration == (0 if want["expires_after"] is None
                                  else stamp + want["expires_after"])
    assert msg.jms_delivery_mode == want["delivery_mode"]
    assert msg.jms_redelivered == want["redelivered"]
    assert msg.jms_correlation_id == want.get("correlation_id")
    assert msg.jms_type == want.get("type")
    assert _reply_to_json(msg.jms_reply_to) == want.get("reply_to")
    props = [[n, k, V.to_json(k, v)] for n, (k, v) in msg._properties.items()
             if n != "JMSXRcvTimestamp"]
    assert _same(props, want["properties"]), props
    assert msg._properties["JMSXRcvTimestamp"][0] == "long"
    assert _same(_body_json(msg), want["body"]), _body_json(msg)
