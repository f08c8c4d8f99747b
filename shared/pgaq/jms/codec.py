"""JMS messages to and from the engine's payloads and message properties.

A JMS message is stored as Oracle stores it (Oracle Database Advanced Queuing User's Guide,
"Introduction to Oracle Java Message Service", "JMS Message Bodies"): the body and the JMS
header fields that have no AQ counterpart in a sys.aq$_jms_* value (V0001__catalog.sql), the
rest in the AQ message properties. The payload dict is exactly what pgaq.idap.payload makes
of the same message and what `dbms_aq.enqueue` stores, so a message crosses between
pgaq.jms, IDAP and SQL unchanged:

  JMS                         engine
  --------------------------  ---------------------------------------------------------------
  JMSMessageID                "ID:" + msgid
  JMSTimestamp                enqueue time (ms since the epoch, floored as the selector does);
                              a sender reads it from the msgid it gets back (enqueue_ms)
  JMSPriority                 priority: as it is in Oracle JMS's default, non-compliant
                              mode; 9 - JMSPriority in Java EE compliant mode (compliance)
  JMSExpiration               expiration: the time to live in whole seconds (rounded up),
                              and, when that is not the time to live exactly, the time to
                              live in ms as header.properties' JMS_OracleTimeToLive (a long;
                              not a property the client sees). Back as JMSTimestamp + the
                              time to live in ms in Java EE compliant mode (that property,
                              while AQ's expiration is still its seconds; else expiration *
                              1000), JMSTimestamp + expiration * 1000 in non-compliant mode;
                              0: never
  JMSCorrelationID            correlation
  JMSDeliveryMode             the enqueue's delivery mode: PERSISTENT, NON_PERSISTENT = BUFFERED
  JMSRedelivered              attempts > 0 (JMSXDeliveryCount = attempts + 1)
  JMSType, JMSReplyTo         header.type, header.replyto (an agent; a Queue or Topic is an
                              agent with only an address, "owner.name"; back as a Topic when
                              the catalog has a multi-consumer queue there, as a Temporary
                              Queue / Topic when the name is a temporary one's, which holds
                              once it is dropped too: aq.jms_reply_to_kind, R__52)
  JMSXUserID, JMSXAppID       header.userid (set by the database: R__52), header.appid
  JMSXGroupID, JMSXGroupSeq   header.groupid, header.groupseq
  JMS_OracleDelay             delay (seconds)
  JMS_OracleExcpQ             exception_queue
  JMS_OracleOriginalMessageID "ID:" + original_msgid (the msgid itself when not propagated)
  user properties             header.properties: {name: {"type", "value", "seq"}} (seq: the
                              order they were set, as IDAP keeps it)
  MapMessage items            map: {name: {"type", "value"}}
  Text / Bytes / Object body  text_vc + text_len / bytes_raw + bytes_len
  StreamMessage body          bytes_raw in pgaq's tagged format (wire.encode_stream)

Types in JSON: boolean, byte, short, int, long, float, double, string as IDAP writes them
(float NaN and infinities as "NaN", "INF", "-INF", negative zero as "-0.0": jsonb's numeric
has neither), plus, in maps only, char (a one-character string) and bytes (hex), which IDAP's
schema has no element for. Strings the database cannot store (U+0000, a lone surrogate) are
refused before the send.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from ..client import Message as EngineMessage
from ..client import MessageProperties, Payload
from . import _values as V
from . import compliance
from .destination import (
    AQjmsAgent,
    Destination,
    Queue,
    TemporaryQueue,
    TemporaryTopic,
    Topic,
    temporary_kind,
)
from .errors import MessageFormatException
from .message import (
    JMSX_STATE,
    NON_PERSISTENT,
    PERSISTENT,
    SPECIAL_PROPERTIES,
    AdtMessage,
    BytesMessage,
    MapMessage,
    Message,
    ObjectMessage,
    StreamMessage,
    TextMessage,
)
from .wire import decode_stream, encode_stream

__all__ = ["JMS_KINDS", "engine_delivery_mode", "from_engine", "payload_type_accepts",
           "to_engine"]

# the queue table payload kinds (aq.payload_kind, R__14_admin.sql) that hold JMS messages;
# JMS_MESSAGE is Oracle's AQ$_JMS_MESSAGE, which takes every kind (pgaq has no such type yet:
# the codec reads and writes its layout for when it has)
JMS_KINDS = ("JMS_TEXT", "JMS_BYTES", "JMS_MAP", "JMS_STREAM", "JMS_OBJECT", "JMS_MESSAGE")
# AQ$_JMS_MESSAGE's message_type values (Oracle's DBMS_AQ JMS constants)
_GENERIC_TYPE = {"JMS_TEXT": 0, "JMS_BYTES": 1, "JMS_STREAM": 2, "JMS_MAP": 3, "JMS_OBJECT": 4}
_KIND_OF_GENERIC = {v: k for k, v in _GENERIC_TYPE.items()}
_CLASSES: dict[str, type[Message]] = {
    "JMS_TEXT": TextMessage, "JMS_BYTES": BytesMessage, "JMS_MAP": MapMessage,
    "JMS_STREAM": StreamMessage, "JMS_OBJECT": ObjectMessage, "OBJECT": AdtMessage,
    "RAW": BytesMessage,
}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)
# The producer's time to live in ms, kept where AQ's whole seconds would lose it (Java EE
# compliant mode's JMSExpiration is JMSTimestamp + the time to live in ms: Oracle Database
# Advanced Queuing User's Guide, "JMS Message Headers"). pgaq's own: in the provider's
# JMS_Oracle namespace, which no client may set (message.is_user_property).
TIME_TO_LIVE_PROPERTY = "JMS_OracleTimeToLive"


def payload_type_accepts(payload_type: str, msg: Message) -> bool:
    """Whether a queue table of this payload kind can hold the message: each JMS kind its
    own body (a header-only Message any, as an empty body), JMS_MESSAGE every JMS body,
    OBJECT an AdtMessage, RAW a BytesMessage (its body alone)."""
    kind = payload_type.upper()
    if isinstance(msg, AdtMessage):
        return kind == "OBJECT"
    if kind == "JMS_MESSAGE":
        return True
    if kind == "RAW":
        return isinstance(msg, BytesMessage)
    if kind in JMS_KINDS:
        return type(msg) is Message or msg.body_kind == kind
    return False


def engine_delivery_mode(msg: Message) -> str:
    """The enqueue's delivery mode for the message's JMSDeliveryMode (Oracle JMS guide,
    table 11-3)."""
    return "BUFFERED" if msg.jms_delivery_mode == NON_PERSISTENT else "PERSISTENT"


def _wrong_type(msg: Message, payload_type: str) -> MessageFormatException:
    return MessageFormatException(
        f"Messages of type {type(msg).__name__} not allowed with Destinations containing "
        f"payload of type {payload_type}", "JMS-108")


# -- to the engine -------------------------------------------------------------------------
def _agent_json(rt: Destination | AQjmsAgent | None) -> dict[str, Any] | None:
    if rt is None:
        return None
    if isinstance(rt, Destination):
        return {"name": None, "address": rt.qualified, "protocol": 0}
    return {"name": rt.name, "address": rt.address, "protocol": rt.protocol}


def _special(msg: Message, name: str) -> Any:
    got = msg._properties.get(name)
    return None if got is None else got[1]


def _header(msg: Message, ttl: int | None) -> dict[str, Any]:
    props: dict[str, Any] = {}
    seq = 0
    for name, (kind, value) in msg._properties.items():
        if name in SPECIAL_PROPERTIES or name == TIME_TO_LIVE_PROPERTY:
            continue
        seq += 1
        props[name] = {"type": kind, "value": V.to_json(kind, value), "seq": seq}
    if ttl is not None and ttl % 1000:  # whole seconds: AQ's expiration says it all
        props[TIME_TO_LIVE_PROPERTY] = {"type": "long", "value": ttl, "seq": seq + 1}
    return {"replyto": _agent_json(msg.jms_reply_to), "type": msg.jms_type, "userid": None,
            "appid": _special(msg, "JMSXAppID"), "groupid": _special(msg, "JMSXGroupID"),
            "groupseq": _special(msg, "JMSXGroupSeq"), "properties": props}


def _raw(data: bytes | None) -> str | None:
    return None if data is None else "\\x" + data.hex()


def _body(msg: Message, kind: str) -> dict[str, Any]:
    """The body's fields of the sys.aq$_jms_* type of `kind`."""
    if kind == "JMS_TEXT":
        text = msg.text if isinstance(msg, TextMessage) else None
        return {"text_len": len(text) if text is not None else 0, "text_vc": text}
    if kind == "JMS_MAP":
        items = msg._map if isinstance(msg, MapMessage) else {}
        return {"map": {n: {"type": k, "value": V.to_json(k, v)} for n, (k, v) in items.items()}}
    data: bytes | None
    if isinstance(msg, BytesMessage):
        data = msg._body()
    elif isinstance(msg, StreamMessage):
        data = encode_stream(msg._items)
    elif isinstance(msg, ObjectMessage):
        data = msg.get_object_bytes()
    else:
        data = b"" if kind in ("JMS_BYTES", "JMS_STREAM") else None
    return {"bytes_len": len(data) if data is not None else 0, "bytes_raw": _raw(data)}


def _generic(msg: Message) -> dict[str, Any]:
    """The AQ$_JMS_MESSAGE layout: one type for every body, message_type saying which."""
    kind = msg.body_kind if msg.body_kind in _GENERIC_TYPE else "JMS_TEXT"
    assert kind is not None
    out: dict[str, Any] = {"message_type": _GENERIC_TYPE[kind], "text_len": 0, "text_vc": None,
                           "bytes_len": 0, "bytes_raw": None, "map": None}
    out.update(_body(msg, kind))
    return out


def _time_to_live(msg: Message, given: int | None) -> int | None:
    """The time to live in ms: the producer's (`given`, 0: never), else JMSExpiration -
    JMSTimestamp."""
    if given is not None:
        return given if given > 0 else None
    if not msg.jms_expiration:
        return None
    start = msg.jms_timestamp or time.time_ns() // 1_000_000
    return max(msg.jms_expiration - start, 0)


def _storable(text: str) -> bool:
    if "\0" in text:
        return False
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _strings(value: Any) -> list[str]:
    """Every string in a JSON-shaped value, keys too (a loop, not recursion: once a send)."""
    out: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            out.extend(map(str, v))
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return out


def _check_storable(payload: Any, props: MessageProperties) -> None:
    """PostgreSQL text and jsonb hold neither U+0000 nor a lone UTF-16 surrogate (Java strings
    may): refuse such a message before anything is sent. Stream and Bytes bodies are bytes,
    so they can carry both."""
    texts = _strings(payload)
    texts.append(props.correlation or "")
    texts.append(props.exception_queue or "")
    if _storable("".join(texts)):  # one look at them all; the culprit only when one is bad
        return
    for text in texts:
        if not _storable(text):
            raise MessageFormatException(
                f"{text[:40]!r}: a string of the message (text, property, map item, JMSType, "
                "correlation) holds U+0000 or a lone surrogate, which the database cannot "
                "store", "JMS-161")


def to_engine(msg: Message, payload_type: str, *, time_to_live: int | None = None,
              recipients: Sequence[AQjmsAgent] | None = None) -> tuple[Payload, MessageProperties]:
    """The payload and AQ message properties to enqueue `msg` into a queue table of kind
    `payload_type` (aq.payload_kind's names); MessageFormatException (JMS-108) when that
    kind cannot hold the message. What the send adds: the producer's `time_to_live` in ms
    (0: never; None: JMSExpiration - JMSTimestamp) and the `recipients` of a publish
    (None: the subscribers). The message itself is left unchanged."""
    kind = payload_type.upper()
    if not payload_type_accepts(kind, msg):
        raise _wrong_type(msg, payload_type)
    ttl = _time_to_live(msg, time_to_live)
    delay = _special(msg, "JMS_OracleDelay")
    sender = msg._sender  # set_sender_id's only: a received message's is not sent on
    props = MessageProperties(
        priority=msg.jms_priority,
        delay=int(delay) if delay is not None else 0,
        expiration=None if ttl is None else math.ceil(ttl / 1000),
        correlation=msg.jms_correlation_id,
        sender_id=sender.to_engine() if sender is not None else None,
        recipient_list=[a.to_engine() for a in recipients] if recipients else None,
        exception_queue=_special(msg, "JMS_OracleExcpQ"),
    )
    payload: Payload
    if kind == "OBJECT":
        assert isinstance(msg, AdtMessage)
        payload = msg.payload_dict()
        if payload is None:
            raise MessageFormatException("an AdtMessage needs a payload", "JMS-104")
    elif kind == "RAW":
        assert isinstance(msg, BytesMessage)
        carried = [n for n in msg._properties if n not in ("JMS_OracleDelay", "JMS_OracleExcpQ")]
        if carried or msg.jms_type is not None or msg.jms_reply_to is not None:
            raise MessageFormatException(
                "a RAW queue holds the body alone: no JMSType, JMSReplyTo or properties "
                f"({', '.join(carried) or 'header fields'})", "JMS-193")
        payload = msg._body()
    elif kind == "JMS_MESSAGE":
        payload = {"header": _header(msg, ttl), **_generic(msg)}
    else:
        payload = {"header": _header(msg, ttl), **_body(msg, kind)}
    _check_storable(payload, props)
    return payload, props


# -- from the engine -----------------------------------------------------------------------
def _bytes(raw: Any) -> bytes | None:
    if raw is None:
        return None
    if isinstance(raw, (bytes, bytearray, memoryview)):
        return bytes(raw)
    text = str(raw)
    try:
        return bytes.fromhex(text[2:] if text.startswith("\\x") else text)
    except ValueError as exc:
        raise MessageFormatException(f"bytes_raw is not hexadecimal: {text[:40]!r}", "JMS-161",
                                     exc) from exc


def _reply_to(raw: Any, is_topic: Callable[[str], bool] | None) -> Destination | AQjmsAgent | None:
    if not isinstance(raw, dict):
        return None
    name, address = raw.get("name"), raw.get("address")
    protocol = raw.get("protocol") or 0
    if not name and not address:
        return None
    if not name and protocol == 0 and isinstance(address, str):
        owner, dot, rest = address.partition(".")
        if dot and owner and rest and "." not in rest and "@" not in rest:
            # an address alone: a destination in this database. The agent has no kind: a
            # temporary one's name says it (so it survives the destination), else a Queue
            # unless the caller knows the address for a multi-consumer queue (the
            # receiving session asks the catalog: temporary.settle_reply_to)
            kind = temporary_kind(rest)
            if kind is not None:
                return TemporaryTopic(owner, rest) if kind == "t" else TemporaryQueue(owner, rest)
            if is_topic is not None and is_topic(address):
                return Topic(owner, rest)
            return Queue(owner, rest)
    return AQjmsAgent(name or None, address or None, int(protocol))


def _place(entry: tuple[str, Any]) -> tuple[int, int, str]:
    spec = entry[1]
    seq = spec.get("seq") if isinstance(spec, dict) else None
    if isinstance(seq, int) and not isinstance(seq, bool):
        return 0, seq, entry[0]
    return 1, 0, entry[0]


def _typed(spec: Any) -> tuple[str, Any]:
    if isinstance(spec, dict) and "type" in spec:
        return V.from_json(str(spec["type"]).lower(), spec.get("value"))
    return V.from_json("", spec)  # a plain JSON scalar, as a SQL producer may write one


def _apply_header(msg: Message, header: Any, is_topic: Callable[[str], bool] | None) -> None:
    if not isinstance(header, dict):
        return
    msg._reply_to = _reply_to(header.get("replyto"), is_topic)
    jtype = header.get("type")
    msg._type = None if jtype is None else str(jtype)
    props = header.get("properties")
    if isinstance(props, dict):
        for name, spec in sorted(props.items(), key=_place):
            msg._properties[str(name)] = _typed(spec)
    for key, name in (("userid", "JMSXUserID"), ("appid", "JMSXAppID"),
                      ("groupid", "JMSXGroupID")):
        if header.get(key) is not None:
            msg._provider_property(name, "string", str(header[key]))
    seq = header.get("groupseq")
    if seq is not None:
        msg._provider_property("JMSXGroupSeq", *V.from_json("int", seq))


def _fill_body(msg: Message, payload: dict[str, Any]) -> None:
    if isinstance(msg, TextMessage):
        text = payload.get("text_vc")
        msg._text = None if text is None else str(text)
    elif isinstance(msg, MapMessage):
        items = payload.get("map")
        if isinstance(items, dict):
            msg._map = {str(n): _typed(spec) for n, spec in items.items()}
    elif isinstance(msg, StreamMessage):
        msg._items = decode_stream(_bytes(payload.get("bytes_raw")) or b"")
    elif isinstance(msg, BytesMessage):
        msg._buf = bytearray(_bytes(payload.get("bytes_raw")) or b"")
    elif isinstance(msg, ObjectMessage):
        msg._data = _bytes(payload.get("bytes_raw"))


def from_engine(m: EngineMessage, payload_type: str, destination: Destination | None, *,
                is_topic: Callable[[str], bool] | None = None,
                j2ee_compliant: bool = False) -> Message:
    """The JMS message for a dequeued engine message from a queue table of kind
    `payload_type`: the class of its body, headers and JMSX/JMS_Oracle properties set,
    properties and body read-only (Bytes and Stream bodies reset for reading). A reply-to
    stored as an address alone is a Queue, or a Topic where `is_topic(address)` says so."""
    kind = payload_type.upper()
    payload = m.payload
    if kind == "JMS_MESSAGE" and isinstance(payload, dict):
        body_kind = _KIND_OF_GENERIC.get(int(payload.get("message_type") or 0), "JMS_TEXT")
    else:
        body_kind = kind
    cls = _CLASSES.get(body_kind)
    if cls is None:
        raise MessageFormatException(f"no JMS message type for payload type {payload_type}",
                                     "JMS-197")
    msg = cls()
    if isinstance(msg, AdtMessage):
        msg._payload = payload
    elif kind == "RAW":
        assert isinstance(msg, BytesMessage)
        msg._buf = bytearray(payload if isinstance(payload, (bytes, bytearray)) else b"")
    elif isinstance(payload, dict):
        _apply_header(msg, payload.get("header"), is_topic)
        _fill_body(msg, payload)
    ttl_ms = msg._properties.pop(TIME_TO_LIVE_PROPERTY, None)
    msg._message_id = "ID:" + m.msgid
    stamp = _ms(m.enqueue_time)
    msg._timestamp = stamp
    msg._correlation_id = m.correlation
    msg._priority = compliance.from_aq_priority(m.priority, j2ee_compliant)
    msg._expiration = expiration_ms(stamp, m.expiration, ttl_ms[1] if ttl_ms else None,
                                    j2ee_compliant)
    msg._redelivered = m.attempts > 0
    msg._delivery_mode = NON_PERSISTENT if m.delivery_mode == "BUFFERED" else PERSISTENT
    msg._destination = destination
    msg._provider_property("JMSXDeliveryCount", "int", m.attempts + 1)
    msg._provider_property("JMSXRcvTimestamp", "long", time.time_ns() // 1_000_000)
    state = JMSX_STATE.get((m.state or "").upper())
    if state is not None:
        msg._provider_property("JMSXState", "int", state)
    msg._provider_property("JMS_OracleDelay", "int", m.delay)
    if m.exception_queue is not None:
        msg._provider_property("JMS_OracleExcpQ", "string",
                               _qualified(m.exception_queue, m.queue, destination))
    msg._provider_property("JMS_OracleOriginalMessageID", "string",
                           "ID:" + (m.original_msgid or m.msgid))
    msg._engine_message = m
    msg._set_read_only()
    if isinstance(msg, (BytesMessage, StreamMessage)):
        msg.reset()
    return msg


def _qualified(name: str, queue: str, destination: Destination | None) -> str:
    """An exception queue as "owner.name": the engine gives its name alone (it is in the
    queue's own queue table, so in the queue's schema)."""
    if "." in name:
        return name
    schema, dot, _ = (queue or "").rpartition(".")
    if dot and schema:
        return f"{schema}.{name}"
    return f"{destination.owner}.{name}" if destination is not None else name


def expiration_ms(stamp: int, expiration: int | None, ttl_ms: Any, compliant: bool) -> int:
    """JMSExpiration for a message enqueued at `stamp` (ms) with AQ's `expiration` (whole
    seconds; None or negative: never) and the producer's time to live in ms if recorded.
    Oracle Database Advanced Queuing User's Guide, "JMS Message Headers": non-compliant,
    the enqueue time + the time to live (AQ's, in seconds); compliant, JMSTimestamp + the
    time to live in ms. The recorded ms count only while AQ's seconds are still theirs (a
    PL/SQL change of the expiration wins). AQ expires the message at the enqueue time (not
    floored to the ms) + its seconds (rounded up): never before this JMSExpiration."""
    if expiration is None or expiration < 0:
        return 0
    if (compliant and isinstance(ttl_ms, int) and not isinstance(ttl_ms, bool) and ttl_ms > 0
            and -(-ttl_ms // 1000) == expiration):
        return stamp + ttl_ms
    return stamp + expiration * 1000


def enqueue_ms(msgid: str) -> int:
    """The enqueue time (ms since the epoch, floored as JMSTimestamp) of a message the
    engine just enqueued, from its id: the id's first 8 bytes are its enq_time in µs
    (aq.new_msgid, R__10_engine.sql), so the sender needs no other round trip."""
    return int(msgid[:16], 16) // 1000


def _ms(t: datetime) -> int:
    """ms since the epoch, floored (the JMS selector's JMSTimestamp)."""
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return (t - _EPOCH) // _MS
